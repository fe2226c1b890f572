"""What SmolLM2-135M's 270 heads do, and whether removing them matters (``12_heads_at_work``).

One module per job, every name re-exported here so that a notebook cell reads ``helpers.heads.…``:

- :mod:`.scores` — the previous-token, sink, induction and duplicate-token scores of any attention
  pattern, and choosing heads by score (``top_heads``, ``random_heads``);
- :mod:`.sequences` — the repeated random-token sequences and their copy losses;
- :mod:`.experiment` — :class:`HeadStudy`: every head's scores and the copy losses on those sequences,
  with memoised ablations (``Zero()`` / ``Replace(z)`` of :mod:`helpers.interventions`);
- :mod:`.patching` — which input (query, key, value) carries one head's influence on another;
- :mod:`.attribution` — direct logit attribution, what a head's direct write does to every logit,
  and the direct path's loss;
- :mod:`.stats` — percentiles in a null distribution and the spread over sequences;
- :mod:`.senders` — the stored sender screen into 18.6 (``load_senders``) and where a removed
  sender is made up for (``between_change``), a same-size random-direction control
  (``same_size_directions``, stored per sender: ``direction_controls``) and one sender's removal as
  the explorer shows it (``removal_view``);
- :mod:`.scan` — the stored single-head and random-set ablation scans (``load_scan``);
- :mod:`.report` — the notebook's longer tables and summary lines, one call per cell.
"""
from . import attribution, experiment, patching, report, scan, scores, senders, sequences, stats
from .attribution import (
    centred_unembedding,
    direct_logit_shift,
    direct_path_losses,
    frozen_scale,
    head_logit_attribution,
)
from .experiment import ABLATION_LABELS, ABLATIONS, HeadStudy, output_constancy, study
from .patching import (
    INPUTS,
    PATHS,
    composition,
    composition_screen,
    head_write,
    pattern_change,
    receiver_pattern,
    sender_screen,
)
from .report import (
    attribution_lines,
    attribution_table,
    composition_rows,
    direct_path_change,
    direct_shares,
    leader_table,
    logit_shift_lines,
    random_set_lines,
    score_rank,
    sender_table,
    set_side_lines,
    set_table,
    share_parts,
)
from .scan import RECOMPUTE_TOLERANCE, SCAN_PATH, Scan, load_scan, random_set, recompute, tracked_heads
from .scores import (
    SCORE_LABELS,
    SCORES,
    SINK_SKIP,
    all_scores,
    duplicate_token_score,
    induction_score,
    previous_token_score,
    random_heads,
    sink_score,
    top_heads,
)
from .senders import (
    SENDERS_PATH,
    Senders,
    between_change,
    direction_controls,
    load_senders,
    removal_view,
    same_size_directions,
)
from .sequences import FIRST_TOKEN, copy_losses, repeated_sequence, unrepeated_sequence, word_pool
from .stats import difference_spread, difference_text, percentile, rank_correlation, ranks, spread, spread_text

__all__ = [
    "attribution", "experiment", "patching", "report", "scan", "scores", "senders", "sequences", "stats",
    "SENDERS_PATH", "Senders", "between_change", "direction_controls", "load_senders", "removal_view",
    "same_size_directions",
    "centred_unembedding", "direct_logit_shift", "direct_path_losses", "frozen_scale", "head_logit_attribution",
    "INPUTS", "PATHS", "composition", "composition_screen", "head_write", "pattern_change", "receiver_pattern",
    "sender_screen",
    "RECOMPUTE_TOLERANCE", "SCAN_PATH", "Scan", "load_scan", "random_set", "recompute", "tracked_heads",
    "SCORE_LABELS", "SCORES", "SINK_SKIP", "all_scores", "duplicate_token_score", "induction_score",
    "previous_token_score", "random_heads", "sink_score", "top_heads",
    "FIRST_TOKEN", "copy_losses", "repeated_sequence", "unrepeated_sequence", "word_pool",
    "difference_spread", "difference_text", "percentile", "rank_correlation", "ranks", "spread", "spread_text",
    "ABLATION_LABELS", "ABLATIONS", "HeadStudy", "output_constancy", "study",
    "attribution_lines", "attribution_table", "composition_rows", "direct_path_change", "direct_shares", "leader_table", "logit_shift_lines",
    "random_set_lines", "score_rank", "sender_table", "set_side_lines", "set_table", "share_parts",
]

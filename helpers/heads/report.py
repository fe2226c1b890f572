"""The tables and summary lines of ``12_heads_at_work``'s longer analyses, computed here so that a
cell stays one short call: each ``*_table`` returns ``(headers, rows)`` for
:func:`helpers.display.show_table`, each ``*_lines`` the lines the notebook prints.

- :func:`set_table`, :func:`random_set_lines`, :func:`set_side_lines` — top-k sets of heads against
  random sets of k heads (the stored scan);
- :func:`leader_table`, :func:`score_rank` — the heads whose removal hurts the second copy most,
  with the rank of each of their scores; :func:`composition_rows` — what patching one input did;
- :func:`share_parts` — one head's direct share at one position, as the three factors it multiplies;
  :func:`direct_shares`, :func:`attribution_table`, :func:`attribution_lines`,
  :func:`direct_path_change` — direct logit attribution on the study's sequences;
- :func:`sender_table` — the stored sender screen into 18.6, one row per screen.
"""
from __future__ import annotations

import numpy as np

from ..real_model import head_attention, token_labels
from ..render.validation import entries, head_pair, instance, integer, one_of, positive_int
from .attribution import centred_unembedding, direct_logit_shift, direct_path_losses, frozen_scale
from .experiment import ABLATION_LABELS, ABLATIONS, HeadStudy
from .patching import head_write
from .scan import Scan
from .scores import SCORE_LABELS, SCORES, top_heads
from .senders import Senders
from .sequences import copy_losses
from .stats import percentile, spread_text

#: the heads whose zero-ablation alone hurts most (12's single-head scan): a random set holding one
#: of them can hurt more than the top induction heads for that reason alone
SIDE_EFFECT_HEADS = ((1, 4), (1, 5), (1, 3), (2, 2))
#: the previous-token head that matters most (16.0): how often a random set holds it
WATCHED_HEAD = (16, 0)
#: the layers counted as "early" (0–2) in the random-set lines
EARLY_LAYERS = 3
#: the scores a leader's ranks are read for
RANKED_SCORES = (*SCORES, "duplicate")
RANKED_LABELS = {**SCORE_LABELS, "duplicate": "重复 token"}


def _scan(scan) -> Scan:
    return instance("scan", scan, Scan, "helpers.heads.Scan (from helpers.heads.load_scan())")


def _study(study) -> HeadStudy:
    return instance("study", study, HeadStudy, "helpers.heads.HeadStudy (from helpers.heads.study())")


def _heads(name: str, heads, shape: tuple) -> list:
    """``heads`` checked, in the order given (a ranking stays a ranking)."""
    return [head_pair(name, pair, *shape) for pair in entries(name, heads, "(layer, head) pairs")]


def _name(head) -> str:
    return f"{head[0]}.{head[1]}"


def set_table(scan) -> tuple:
    """For each stored set size k and each ablation kind: the second-copy loss change (mean over the
    sequences, bootstrap interval, percentile in the null of k random heads) of the top-k induction
    heads and of the top-k previous-token heads, and the null's 5–95th percentiles."""
    scan = _scan(scan)
    rows = []
    for k in (int(k) for k in scan.ks):
        for kind in ABLATIONS:
            null = scan.null(k, kind)
            q5, q95 = np.percentile(null, [5, 95])
            rows.append([k, ABLATION_LABELS[kind],
                         *[spread_text(scan.set_change(s, k, kind), null) for s in ("induction", "previous")],
                         f"{len(null)} 组：{q5:+.2f} … {q95:+.2f}"])
    return ["k", "做法", "前 k 个归纳头 [区间] 百分位", "前 k 个前一个 token 头", "随机 k 个头"], rows


def random_set_lines(scan) -> list:
    """For each size k of the random sets: how many random sets hurt more than the top-k induction
    heads when zeroed (listed, with how many hold an early-layer head or one of
    :data:`SIDE_EFFECT_HEADS`, and how likely that many random sets would all hold an early-layer
    head), and how many when mean-ablated or resampled; how often a random set
    holds :data:`WATCHED_HEAD`."""
    scan = _scan(scan)
    layers, n_heads = scan.single["zero"].shape[1:3]
    n_early, n_all = EARLY_LAYERS * n_heads, layers * n_heads
    side = "、".join(_name(h) for h in SIDE_EFFECT_HEADS)
    lines = []
    for k in (int(k) for k in scan.draw_ks):
        value, draws = scan.set_change("induction", k).mean(), scan.draw_change(k).mean(axis=-1)
        worse = [d for d in range(len(draws)) if draws[d] > value]
        early = [d for d in worse if min(a for a, _ in scan.draw_set(k, d)) < EARLY_LAYERS]
        named_early = [d for d in worse if set(scan.draw_set(k, d)) & set(SIDE_EFFECT_HEADS)]
        p_early = 1 - np.prod([(n_all - n_early - i) / (n_all - i) for i in range(k)])
        others = [int((scan.draw_change(k, kind).mean(axis=-1) > scan.set_change("induction", k, kind).mean()).sum())
                  for kind in ("mean", "resample")]
        lines.append(f"k = {k}：置零时 {len(draws)} 组随机头里有 {len(worse)} 组比前 {k} 个归纳头伤得更重（其中 "
                     f"{len(early)} 组含第 0–{EARLY_LAYERS - 1} 层的头；{n_all} 个头里有 {n_early} 个在第 "
                     f"0–{EARLY_LAYERS - 1} 层，随机 {k} 个头至少含一个的概率 {p_early:.2f}"
                     f"{_all_hold_text(len(worse), p_early)}）；"
                     f"换成均值 / 重采样时：{others[0]} / {others[1]} 组")
        for d in worse:
            lines.append(f"  第 {d + 1} 组：" + " ".join(_name(h) for h in scan.draw_set(k, d)) + f"（{draws[d]:+.2f}）")
        lines.append(f"  这 {len(worse)} 组里含 {side} 之一的：{len(named_early)} 组")
        holding = sum(WATCHED_HEAD in set(scan.draw_set(k, d)) for d in range(len(draws)))
        lines.append(f"  随机 {k} 个头含 {_name(WATCHED_HEAD)} 的概率 {k / n_all:.3f}；这 {len(draws)} 组里含 "
                     f"{_name(WATCHED_HEAD)} 的：{holding} 组")
    return lines


def _all_hold_text(n_sets: int, p: float) -> str:
    """How likely all ``n_sets`` independently drawn sets each hold an early-layer head, when one
    set does with probability ``p``; nothing for fewer than two sets, where it says no more."""
    return f"，{n_sets} 组都含的概率 {p ** n_sets:.2f}" if n_sets > 1 else ""


def set_side_lines(scan) -> list:
    """Two readings of the top-k sets beside the table: the top-k previous-token heads mean-ablated
    against :data:`WATCHED_HEAD` alone, and the top-k induction heads' change on the *first* copy."""
    scan = _scan(scan)
    ks = [int(k) for k in scan.ks]
    alone = scan.single_change("mean").mean(axis=-1)[WATCHED_HEAD]
    lines = [f"前一个 token 头，换成均值：{_name(WATCHED_HEAD)} 单独 {alone:+.2f}；前 k 个 " + "，".join(
        f"k = {k} {scan.set_change('previous', k, 'mean').mean():+.2f}" for k in ks if k > 1)]
    for kind in ABLATIONS:
        lines.append(f"前 k 个归纳头，{ABLATION_LABELS[kind]}，第一遍的变化：" + "，".join(
            f"k = {k} {scan.set_change('induction', k, kind, 'first').mean():+.2f}" for k in ks))
    return lines


def score_rank(study, name: str, head) -> int:
    """``head``'s rank (1 = highest) by the study's score ``name`` (one of :data:`RANKED_SCORES`)."""
    study = _study(study)
    (head,) = _heads("head", [head], study.shape)
    m = study.scores[one_of("name", name, RANKED_SCORES)]
    return int((m > m[head]).sum()) + 1


def leader_table(study, scan, leaders) -> tuple:
    """For each head of ``leaders``: its zero-ablation loss change on the second and the first copy
    (means over the sequences) and their difference, then its rank by each of :data:`RANKED_SCORES`
    with the percentile of its score among all heads."""
    study, scan = _study(study), _scan(scan)
    second = scan.single_change("zero").mean(axis=-1)
    first = scan.single_change("zero", "first").mean(axis=-1)
    rows = [[_name(h), second[h], first[h], second[h] - first[h],
             *[f"{score_rank(study, n, h)}（{percentile(study.scores[n][h], study.scores[n]):.0f}）"
               for n in RANKED_SCORES]]
            for h in _heads("leaders", leaders, study.shape)]
    return ["头", "第二遍", "第一遍", "差", *[f"{RANKED_LABELS[n]}：名次（百分位）" for n in RANKED_SCORES]], rows


#: what each entry of :meth:`HeadStudy.composition` patched, as the notebook names it
ROUTES = {"q": "只有查询", "k": "只有键", "v": "只有值", "qkv": "查询、键、值都"}


def composition_rows(study, patched) -> list:
    """One row per entry of ``study.composition(...)`` (``patched``): the inputs patched, the
    receiver's induction score (mean and range over the sequences) and the second-copy loss change."""
    study = _study(study)
    second = copy_losses(study.losses, study.length)[1]
    if not isinstance(patched, list) or not all(isinstance(r, dict) and {"inputs", "induction", "second"} <= set(r)
                                                for r in patched):
        raise TypeError(f"patched must be the list that HeadStudy.composition returns, got {type(patched).__name__}")
    rows = []
    for r in patched:
        s = r["induction"]
        rows.append([ROUTES["".join(r["inputs"])], f"{s.mean():.3f}（{s.min():.3f}–{s.max():.3f}）",
                     spread_text(r["second"] - second)])
    return rows


def share_parts(study, head, sequence: int, position: int) -> dict:
    """``head``'s direct share of the next token's logit at one ``position`` of one ``sequence``,
    taken apart: ``along`` (how far the head's write reaches along the direction that reads the
    target, ``o · r / ‖r‖``), ``scale`` (the final norm's frozen ``1/rms``), ``length`` (``‖r‖``,
    with ``r = γ · (E[target] − mean_v E[v])`` the target's centred unembedding row through the norm's
    weights) and their product ``share``; ``stored`` is the same share from
    :meth:`HeadStudy.logit_attribution` (``None`` at a position it does not cover); ``target`` the
    token id predicted."""
    study = _study(study)
    (head,) = _heads("head", [head], study.shape)
    sequence = integer("sequence", sequence, low=0, high=len(study.seeds) - 1)
    position = integer("position", position, low=0, high=2 * study.length - 1)
    model, layer, h = study.model, *head
    z = head_attention(model, layer, h, study.layer_inputs[layer][sequence]).z
    write = head_write(model, layer, h, z)[position]
    target = int(study.batch[sequence, position + 1])
    reader = centred_unembedding(model, target) * model.final_norm
    length = float(np.linalg.norm(reader))
    along = float(write @ reader) / length
    scale = float(frozen_scale(model, study.final_residual[sequence])[position])
    stored = (float(study.logit_attribution()[sequence, layer, h, study.loss_positions.index(position)])
              if position in study.loss_positions else None)
    return {"target": target, "along": along, "scale": scale, "length": length,
            "share": along * scale * length, "stored": stored}


def direct_shares(study) -> tuple:
    """``(first, second)``: every head's direct share of the next token's logit
    (:meth:`HeadStudy.logit_attribution`) averaged over each copy's positions, each ``(seeds,
    layers, heads)``."""
    study = _study(study)
    dla = study.logit_attribution()
    t = study.length - 1
    return dla[..., :t].mean(axis=-1), dla[..., t:].mean(axis=-1)


def attribution_table(study, heads) -> tuple:
    """For each of ``heads``: its induction score and its direct share of the next token's logit on
    the second copy (interval, percentile among all heads' means) and on the first."""
    study = _study(study)
    first, second = direct_shares(study)
    null = second.mean(axis=0)
    rows = [[_name(h), study.scores["induction"][h], spread_text(second[(slice(None), *h)], null),
             spread_text(first[(slice(None), *h)])] for h in _heads("heads", heads, study.shape)]
    return ["头", "归纳分数", "第二遍：直接贡献 [区间] 百分位", "第一遍：直接贡献 [区间]"], rows


def attribution_lines(study, head, top: int = 5) -> list:
    """The spread of all heads' mean direct share on the second copy (5th/50th/95th percentiles),
    the ``top`` heads with the largest (second copy / first copy), and ``head``'s rank among all."""
    study = _study(study)
    (head,) = _heads("head", [head], study.shape)
    top = positive_int("top", top, maximum=study.shape[0] * study.shape[1])
    first, second = direct_shares(study)
    null = second.mean(axis=0)
    q5, q50, q95 = np.percentile(null, [5, 50, 95])
    lines = [f"全部 {null.size} 个头（第二遍）：第 5/50/95 百分位 {q5:+.3f} / {q50:+.3f} / {q95:+.3f}",
             f"直接贡献最大的 {top} 个头：第二遍 [区间] / 第一遍 [区间]"]
    for h in top_heads(null, top):
        lines.append(f"  {_name(h)}（归纳分数 {study.scores['induction'][h]:.2f}）："
                     f"{spread_text(second[(slice(None), *h)])} / {spread_text(first[(slice(None), *h)])}")
    lines.append(f"{_name(head)} 的直接贡献在 {null.size} 个头里排第 {int((null > null[head]).sum()) + 1} 名；"
                 f"{null[head]:+.3f} 对第 95 百分位 {q95:+.3f}")
    return lines


def direct_path_change(study, head) -> np.ndarray:
    """The second-copy loss change, ``(seeds, T − 1)``, when only ``head``'s direct path is cut
    (:func:`helpers.heads.direct_path_losses` minus the clean losses at the same positions)."""
    study = _study(study)
    (head,) = _heads("head", [head], study.shape)
    rows = study.loss_positions[study.length - 1:]
    cut = direct_path_losses(study.model, study.batch, study.layer_inputs, study.final_residual, head, rows)
    return cut - study.losses[:, rows]


def logit_shift_lines(study, head, top: int = 5) -> list:
    """Why cutting ``head``'s direct path can lower the loss although its centred share of the
    target's logit is positive (:func:`helpers.heads.direct_logit_shift` on the second copy, means
    over the sequences and positions): the raw change of the target's logit, of the vocabulary's
    mean logit and of the probability-weighted mean (the loss's first-order change is the last
    minus the first), and the ``top`` tokens the write raises most."""
    study = _study(study)
    (head,) = _heads("head", [head], study.shape)
    top = positive_int("top", top, maximum=50)
    rows = study.loss_positions[study.length - 1:]
    shift = direct_logit_shift(study.model, study.batch, study.layer_inputs, study.final_residual, head, rows)
    target, mean, expected = (float(shift[k].mean()) for k in ("target", "mean", "expected"))
    raised = np.argsort(-shift["tokens"], kind="stable")[:top]
    words = token_labels(study.model, [int(t) for t in raised])
    return [f"{_name(head)} 直接写入的东西让 logit 变了多少（第二遍，{len(study.seeds)} 条序列的平均，不减去全词表的平均）：",
            f"  正确的下一个 token {target:+.2f}；全词表的平均 {mean:+.2f}；两者之差 {target - mean:+.2f}",
            f"  按模型自己的概率加权的平均 {expected:+.2f}；损失的一阶变化 = 它 − 正确 token 的变化 = {expected - target:+.2f}",
            f"  抬得最多的 {top} 个 token：" + "  ".join(f"“{w}” {shift['tokens'][t]:+.2f}" for w, t in zip(words, raised))]


__all__ = ["SIDE_EFFECT_HEADS", "WATCHED_HEAD", "EARLY_LAYERS", "RANKED_SCORES", "RANKED_LABELS", "set_table",
           "random_set_lines", "set_side_lines", "score_rank", "leader_table", "ROUTES", "composition_rows",
           "share_parts", "direct_shares",
           "attribution_table", "attribution_lines", "direct_path_change", "logit_shift_lines"]


#: the screens :func:`sender_table` lists: (study, input, kind)
SENDER_ROWS = (("study", "k", "zero"), ("study", "k", "mean"), ("study", "q", "zero"), ("study", "q", "mean"),
               ("fresh", "k", "zero"), ("fresh", "k", "mean"), ("long", "k", "zero"), ("long", "k", "mean"))
SENDER_INPUTS = {"k": "键", "q": "查询"}


def sender_table(senders, lowest: int = 2) -> tuple:
    """``(headers, rows)``: for each stored sender screen (:data:`SENDER_ROWS`), the receiver's
    induction score with nothing removed, the ``lowest`` senders (mean over the sequences) and the
    lowest and median of all the others."""
    senders = instance("senders", senders, Senders, "helpers.heads.Senders (from helpers.heads.load_senders())")
    lowest = positive_int("lowest", lowest, maximum=10)
    rows = []
    for study, inputs, kind in SENDER_ROWS:
        mean = senders.scores(inputs, kind, study).mean(axis=-1)
        picked = senders.ranked(inputs, kind, study, lowest)
        rest = np.delete(mean.ravel(), [a * mean.shape[1] + b for a, b in picked])
        seeds = senders.arrays[f"{study}_seeds"]
        where = f"T = {int(senders.arrays[f'{study}_length'])}，种子 {seeds[0]}–{seeds[-1]}"
        rows.append([where, SENDER_INPUTS[inputs], ABLATION_LABELS[kind], f"{senders.clean(study).mean():.3f}",
                     "  ".join(f"{a}.{b} {mean[a, b]:.3f}" for a, b in picked),
                     f"{rest.min():.3f}", f"{np.median(rest):.3f}"])
    a, b = senders.receiver
    headers = ["序列", f"从 {a}.{b} 的哪一路减去", "做法", "不减去", f"最低的 {lowest} 个发送者", "其余最低", "其余中位数"]
    return headers, rows

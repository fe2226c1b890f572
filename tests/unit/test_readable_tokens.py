"""helpers.readable_tokens: byte-level pieces grouped into the characters they spell, and attention
moved onto those characters (no model needed: the pieces come from tokenizers' ByteLevel)."""
import unicodedata

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("tokenizers")
from tokenizers.decoders import ByteLevel as ByteDecoder  # noqa: E402
from tokenizers.pre_tokenizers import ByteLevel  # noqa: E402

from helpers import readable_tokens as rt  # noqa: E402

# SmolLM2's 15 pieces of the article's sentence, as its GGUF vocabulary stores them
CHINESE = ["å¹", "´", "å", "ģ", "ĩ", "æĢ", "İ", "ä¹", "Ī", "çĶ", "³", "è¯", "·", "ï¼", "Ł"]
FORBIDDEN = ("Ġ", "Ċ", "\ufffd", "å", "ä", "æ", "ç", "è", "ï")


def symbols(text: str) -> str:
    """The byte-level symbols tokenizers writes for ``text`` (one per UTF-8 byte)."""
    (out, _), = ByteLevel(add_prefix_space=False, use_regex=False).pre_tokenize_str(text)
    return out


def test_the_symbol_table_is_one_byte_per_symbol_and_agrees_with_the_decoder():
    table = rt.byte_of_symbol()
    assert len(table) == 256 and sorted(table.values()) == list(range(256))
    decoder = ByteDecoder()
    for symbol, byte in table.items():
        if byte < 0x80:  # a one-byte character decodes on its own
            assert decoder.decode([symbol]) == chr(byte)


def test_the_article_sentence_reads_as_its_seven_characters():
    spelling = rt.spell(CHINESE)
    assert spelling.labels() == list("年假怎么申请？")
    assert spelling.runs[:2] == ((0, 2), (2, 5))
    labels = spelling.piece_labels()
    assert labels[:5] == ["年·1/2", "年·2/2", "假·1/3", "假·2/3", "假·3/3"] and len(labels) == 15
    assert not any(bad in label for label in labels for bad in FORBIDDEN)
    assert spelling.index("申") == 4


def test_whitespace_is_drawn_and_a_words_space_is_dropped_on_axes():
    spelling = rt.spell([symbols(t) for t in ("Hello", "\n\n ", " world", "\t", " ")])
    assert spelling.labels() == ["Hello", "↵↵␣", "world", "⇥", "␣"]
    assert spelling.labels(keep_space=True) == ["Hello", "↵↵␣", "␣world", "⇥", "␣"]
    assert rt.visible("a\x00b\x7f\r") == "a‹00›b‹7F›‹0D›"


@pytest.mark.parametrize("char", ["\u202e", "\u202a", "\u2066", "\u2067", "\u2068", "\u2069", "\u061c", "\u200b",
                                  "\u200c", "\u200d", "\u200e", "\u200f", "\ufeff", "\u00ad", "\u2028", "\u2029",
                                  "\x85", "\U000e0041", "\ud800"])
def test_bidi_controls_and_invisible_format_characters_are_drawn_as_their_code(char):
    """U+202E would reverse the rest of a label on screen, U+200D and U+FEFF would hide in it: each
    is drawn as ‹U+XXXX›, which ‹› bytes of a cut character (no U+) cannot be mistaken for."""
    shown = rt.visible(f"ab{char}cd")
    assert shown == f"ab‹U+{ord(char):04X}›cd"
    assert all(unicodedata.category(c) not in rt.HIDDEN_CATEGORIES for c in shown)
    if char != "\ud800":  # a lone surrogate has no UTF-8 bytes: no piece spells it
        assert rt.spell([symbols(f"x{char}")]).labels() == [f"x‹U+{ord(char):04X}›"]


def test_every_drawn_symbol_is_in_the_series_fonts():
    import io
    import warnings

    from helpers.render.png import new_figure

    fig = new_figure(3.0, 1.0)
    fig.text(0.0, 0.5, rt.visible("".join(map(chr, [*range(0x21), 0x7F, 0x3000, 0x202E, 0xFEFF]))) + "‹E7B3›·年")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib warns about a glyph missing from the fonts
        fig.savefig(io.BytesIO(), format="png")


def test_a_cut_character_shows_its_bytes_not_a_replacement_character():
    spelling = rt.spell(CHINESE[1:-1])  # starts inside 年, ends inside ？
    assert spelling.labels()[0] == "‹B4›" and spelling.labels()[1] == "假"
    assert spelling.labels(keep_space=True)[-1] == "‹EFBC›"


@settings(max_examples=80, deadline=None)
@given(st.text(min_size=1, max_size=12), st.data())
def test_runs_spell_the_text_and_are_the_shortest_whole_character_runs(text, data):
    sym = symbols(text)
    cuts = sorted(data.draw(st.sets(st.integers(1, len(sym) - 1), max_size=len(sym) - 1)) if len(sym) > 1 else [])
    pieces = [sym[a:b] for a, b in zip([0, *cuts], [*cuts, len(sym)])]
    spelling = rt.spell(pieces)
    assert "".join(spelling.texts) == text
    assert spelling.runs[0][0] == 0 and spelling.runs[-1][1] == len(pieces)
    for (_, stop), (start, _) in zip(spelling.runs, spelling.runs[1:]):
        assert stop == start
    for (start, stop) in spelling.runs:  # no shorter prefix of a run ends on a character boundary
        for cut in range(start + 1, stop):
            head = b"".join(spelling.bytes[start:cut])
            with pytest.raises(UnicodeDecodeError):
                head.decode("utf-8")
    assert not any("\ufffd" in label for label in spelling.piece_labels()) or "\ufffd" in text


def random_causal_attention(rng, heads, n):
    scores = rng.normal(size=(heads, n, n)) * 3
    scores[:, np.triu_indices(n, 1)[0], np.triu_indices(n, 1)[1]] = -np.inf
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return w / w.sum(axis=-1, keepdims=True)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=10), st.integers(0, 2**32 - 1))
def test_grouped_rows_still_sum_to_one_and_match_the_definition(run_sizes, seed):
    by_size = {1: "a", 2: "é", 3: "年", 4: "😀"}  # a character of k UTF-8 bytes, one piece per byte
    pieces = [b for k in run_sizes for b in symbols(by_size[k])]
    spelling = rt.spell(pieces)
    assert [stop - start for start, stop in spelling.runs] == run_sizes
    rng = np.random.default_rng(seed)
    w = random_causal_attention(rng, 3, len(pieces))
    grouped = rt.group_attention(w, spelling)
    # float64 rows of at most 40 terms: rounding stays far below 1e-12
    np.testing.assert_allclose(grouped.sum(axis=-1), 1.0, atol=1e-12)
    member = np.zeros((len(pieces), len(run_sizes)))
    member[np.arange(len(pieces)), spelling.run_of_piece] = 1
    expected = member.T @ w @ member / np.array(run_sizes)[:, None]
    np.testing.assert_allclose(grouped, expected, rtol=1e-12, atol=1e-15)


def test_one_piece_per_word_leaves_attention_exactly_unchanged():
    spelling = rt.spell([symbols(t) for t in ("The", " capital", " of", " France", " is")])
    assert spelling.labels() == ["The", "capital", "of", "France", "is"]
    w = random_causal_attention(np.random.default_rng(0), 9, 5).astype(np.float32)
    grouped = rt.group_attention(w, spelling)
    assert grouped.dtype == np.float32 and np.array_equal(grouped, w)


@pytest.mark.parametrize("call, error, words", [
    (lambda: rt.spell("å¹´"), TypeError, "pieces must be a list"),
    (lambda: rt.spell([]), ValueError, "at least one piece"),
    (lambda: rt.spell(["å¹", 3]), TypeError, "pieces[1] must be a str"),
    (lambda: rt.spell(["å¹", "年"]), ValueError, "pieces[1] = '年' is not a byte-level BPE piece"),
    (lambda: rt.spell(["", "a"]), ValueError, "pieces[0] must not be empty"),
    (lambda: rt.group_attention(np.eye(3), rt.spell(CHINESE)), ValueError, "weights must end in (15, 15)"),
    (lambda: rt.group_attention(np.eye(15), CHINESE), TypeError, "spelling must be a Spelling"),
    (lambda: rt.spell_ids("model", [1]), TypeError, "model must be a loaded model"),
    (lambda: rt.visible(3), TypeError, "text must be a str"),
    (lambda: rt.spell(CHINESE).index("年假"), ValueError, "text = '年假' is not one run"),
])
def test_bad_input_names_the_argument(call, error, words):
    with pytest.raises(error) as info:
        call()
    assert words in str(info.value)


def test_within_run_weight_reads_the_look_back_inside_a_character():
    spelling = rt.spell(CHINESE)  # 7 characters of 2, 3, 2, 2, 2, 2, 2 pieces: 8 later pieces
    previous = np.eye(15, k=-1)
    previous[0, 0] = 1
    assert rt.within_run_weight(previous, spelling) == pytest.approx(1.0)
    assert rt.within_run_weight(np.eye(15)[None], spelling) == pytest.approx([0.0])
    with pytest.raises(ValueError, match="no character of more than one piece"):
        rt.within_run_weight(np.eye(2), rt.spell(["a", "b"]))

"""helpers.render.memo and the caches built on it: bounded by bytes, least recently used out first."""
import numpy as np
import pytest

from helpers.render.memo import ByteLRU, approx_nbytes
from helpers.render.png import new_figure
from helpers.render.text_stamps import TextStamps


def test_the_budget_holds_the_least_recently_used_go_first_and_the_newest_stays():
    cache = ByteLRU(1000)
    for key in "abc":
        cache.put(key, b"x" * 300, size=300)
    assert len(cache) == 3 and cache.nbytes <= 1000
    cache.get("a")  # a is now the most recent: b goes next
    cache.put("d", b"x" * 300, size=300)
    assert "b" not in cache and {"a", "c", "d"} <= {k for k in "abcd" if k in cache}
    cache.put("huge", b"x" * 5000)  # larger than the whole budget: everything else goes, it stays
    assert len(cache) == 1 and "huge" in cache
    with pytest.raises(KeyError):
        cache.get("a")


def test_a_value_that_grows_is_charged_and_can_push_others_out():
    cache = ByteLRU(1000)
    cache.put("state", [1.0], size=100)
    cache.put("other", [2.0], size=100)
    cache.get("other")
    cache.grow("state", 850)  # its PNG arrived: it is the one in use
    assert cache.nbytes <= 1000 and "state" in cache and "other" not in cache
    cache.grow("missing", 10**9)  # not there: nothing happens
    assert cache.nbytes == 950


def test_sizes_are_weighed_from_what_a_value_holds():
    arr = np.zeros((100, 100))
    assert approx_nbytes(arr) >= arr.nbytes
    assert approx_nbytes({"a": arr, "b": arr}) < 2 * arr.nbytes  # one array held twice counts once
    assert approx_nbytes([b"x" * 10_000, "y"]) >= 10_000
    with pytest.raises(ValueError, match="max_bytes"):
        ByteLRU(0)


def test_text_stamps_keep_one_byte_per_pixel_within_their_budget():
    fig = new_figure(6, 1.5)
    fig.canvas.draw()
    stamps = TextStamps(fig.dpi, max_bytes=200_000)
    text = fig.text(0.5, 0.5, "", fontsize=10, ha="center", va="center")
    for i in range(300):  # all different: the kind of title that grew 02's explorer by 300 MiB
        text.set_text(f"x = [{i / 10:.1f}, 1.0]（申请）")
        assert stamps.draw(text, fig.canvas)
    assert 0 < stamps.nbytes <= 200_000
    kept = [entry for entry in stamps._masks._items.values() if entry is not None]
    assert kept and all(red.dtype == np.uint8 for red, _, _ in kept)

"""No stored output prints a gap's noisy digits: every gap, error or recompute difference between two
computations is printed as a bound against its tolerance ("差 < 1e-05：是"), so strict nbval passes
under every CPU kernel family (tests/support/printed_gaps.py says what counts as noisy). The live
book's readouts (every state of every explorer) are scanned here too (slow); each explorer's default
readout in tests/series/test_explorers.py, exercise workings in tests/series/test_exercises.py."""
import base64
import gzip
import json

import pytest
from paths import ROOT
from printed_gaps import noisy_lines, noisy_numbers, output_text, stored_outputs

from tools.series import NOTEBOOKS


def stored_noisy_gaps(path):
    """``(cell index, line, numbers)`` for each stored output line that prints a gap's digits."""
    return [(index, line, numbers) for index, out in stored_outputs(path)
            for line, numbers in noisy_lines(output_text(out))]


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_stored_outputs_print_gaps_as_bounds(name):
    found = stored_noisy_gaps(ROOT / "notebooks" / f"{name}.ipynb")
    assert not found, (f"{name}: a gap printed with its own digits, which change with the CPU's BLAS kernel "
                       "(print it against its tolerance, e.g. f\"差 < {bound:.0e}：{'是' if gap < bound else '否'}\"): "
                       + "; ".join(f"cell {i}: {line!r} ({', '.join(numbers)})" for i, line, numbers in found))


@pytest.mark.slow
def test_every_live_readout_prints_gaps_as_bounds():
    """Every readout the live book holds (each state of a grid explorer, a formula explorer's default:
    tools/site/live/live_pages.py) is made on the machine that builds the book."""
    from tools.site.live import live_pages

    found = []
    for name, encoded in live_pages.build_all(log=lambda *_: None).items():
        data = json.loads(gzip.decompress(base64.b64decode(encoded)))
        grid = data.get("grid")
        readouts = {grid["strings"][state[1]] for state in grid["states"].values()} if grid else {data["readout"]}
        found += [(name, line, numbers) for text in sorted(readouts) for line, numbers in noisy_lines(text)]
    assert not found, found


@pytest.mark.parametrize("line", [
    "现场重算 162 个发送者（置零、只换键），和文件最多差 8.7e-07（允许 1e-05）",
    "“怎么”的输出变化 4.4e-16；“年”（从位置 0 挪到位置 1）的输出变化 1.630。",
    "两组权重最大相差 0.068，输出最大差 0.0e+00。",
    "和参考的差 1e-16",                      # a power of ten, but no comparison before it
    "差 1.5e-08，允许的差 ≤ 2.1e-09",          # the tolerance passes, the gap beside it does not
    "max error 0.00000079",                  # written out below 1e-3
    "与一次性 softmax 的最大差 <span class='err'>2.2e-16</span>（&lt; 1e-12：是）",
])
def test_a_gap_printed_with_its_digits_is_found(line):
    assert noisy_lines(line)


@pytest.mark.parametrize("line", [
    "现场重算 162 个发送者（置零、只换键），和文件的差 < 1e-05：是",
    "attention() 的输出形状 [6, 4096]；与 helpers.layer.attention_layer 的最大差小于 1e-12：是",
    "最大相对误差 < 1e-8：是（测试要求 ≤ 1e-6）",
    "与一次性 softmax 的最大差 &lt; 1e-12：是",
    "差超过了允许的差 ≤ 1.7e-10（相对误差 ≤ 1e-09、绝对误差 ≤ 1e-12）",
    "闭式解与模拟的最大差：0.006（容差 0.02）",     # a Monte Carlo gap, far above rounding
    "只断开 18.6 的直接路径：第二遍损失变化 -0.07 [-0.11, -0.03] nats",
    "放大 √128 = 11.3 倍：最大权重 1.0000，‖J‖_F = 5.7e-06",  # a value, not a gap
])
def test_bounds_values_and_gaps_above_rounding_pass(line):
    assert noisy_numbers(line) == []

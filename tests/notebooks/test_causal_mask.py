"""``05_causal_mask``: the causal-mask explorer and its cache readout."""
import numpy as np
import pytest

from helpers import example, scaled_dot_product_attention, widgets


def test_causal_explorer_each_control():
    e = widgets.causal_mask_explorer()
    qkv = example.running_qkv()
    # mask off: the 假 row puts 0.578 on 怎么
    e.set(causal=False, row=1)
    _, w = scaled_dot_product_attention(qkv.q, qkv.k, qkv.v)
    np.testing.assert_allclose(e.state["weights"], w)
    assert "怎么 0.578" in e.readout.value
    # mask on: 怎么's row
    e.set(causal=True, row=2)
    assert "年 0.284 · 假 0.576 · 怎么 0.140" in e.readout.value
    # append tokens: with the mask earlier outputs do not change; without they do
    e.controls["extra"].value = 4
    assert len(e.state["tokens"]) == 8 and e.state["change"] == 0.0
    assert 'class="change">0.000' in e.readout.value
    e.controls["causal"].value = False
    tokens, qkv8 = example.extended_qkv(4)
    before, _ = scaled_dot_product_attention(qkv.q, qkv.k, qkv.v)
    after, _ = scaled_dot_product_attention(qkv8.q, qkv8.k, qkv8.v)
    change = np.abs(after[:4] - before).max()
    assert e.state["change"] == pytest.approx(change) and change > 0.05
    # the highlighted row follows the slider; shrinking the sequence clamps the slider to it
    e.set(row=7)
    e.set(extra=0)
    assert e.controls["row"].max == 3 and e.state["row"] == 3
    assert e.heat.row_box.get_y() == pytest.approx(2.5)
    with pytest.raises(ValueError, match="row"):  # a row past the sequence is refused, not shown as another
        e.set(row=7)

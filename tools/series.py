"""The one list of the series' notebooks, in reading order.

Everything that has to know every notebook reads this list: the header/footer tool and pairing
check (``tools/notebooks/pairs.py``), the index and README tests, the browser tests and ``make bench``.
Adding a notebook = adding its name here (see CONTRIBUTING.md); a test names whatever else is missing.
"""
from __future__ import annotations

NOTEBOOKS = [
    "00_index",
    "01_weighted_average",
    "02_qkv",
    "03_hand_calculation",
    "04_sqrt_d",
    "05_causal_mask",
    "06_attention_layer",
    "07_cost_of_length",
    "08_reading_attention",
    "09_real_model",
    "10_learning_to_attend",
    "11_learning_a_circuit",
    "12_heads_at_work",
    "13_induction_circuit",
]

#: notebooks that load SmolLM2-135M (the model wheel): timed on their own line with peak memory
REAL_MODEL = {"09_real_model", "12_heads_at_work", "13_induction_circuit"}

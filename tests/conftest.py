import os

import matplotlib

matplotlib.use("Agg")

import helpers  # noqa: E402

helpers.setup()

REQUIRE_BROWSER = os.environ.get("ATTENTION_LAB_REQUIRE_BROWSER") == "1"

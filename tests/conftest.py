import matplotlib

matplotlib.use("Agg")

import helpers  # noqa: E402

helpers.setup()

"""Stand-ins for the real model's results, so exercises that read them are tested without it."""
import numpy as np

from helpers import exercises as ex
from helpers import heads


def fake_weights(prev_share):
    """Three layers × two heads of 6×6 causal weights; layer 1 head 1 puts ``prev_share`` on the
    previous token, every other head spreads its weight evenly."""
    n = 6
    even = np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]
    prev = np.eye(n) * (1 - prev_share) + np.eye(n, k=-1) * prev_share
    prev[0, 0] = 1.0
    return [np.stack([even, prev if layer == 1 else even]) for layer in range(3)]


class FakeStudy:
    """The attributes of a :class:`helpers.heads.HeadStudy` the 12-x exercises read, without the model:
    4 layers × 3 heads, induction strongest at layer ``induction_layer``, previous-token at layer 1
    (first) and layer 3 (second: after the induction head unless ``induction_layer`` is 3)."""

    def __init__(self, induction_layer=2, first=7.5, second=1.25):
        self.seeds, self.shape = (0, 1, 2), (4, 3)
        self.first_copy_loss, self.second_copy_loss = first, second
        rng = np.random.default_rng(0)
        self.scores = {name: rng.uniform(0, 0.2, self.shape) for name in heads.SCORES}
        self.scores["induction"][induction_layer, 1] = 0.9
        self.scores["previous"][1, 0] = 0.8
        self.scores["previous"][3, 2] = 0.7
        self.ablated = []

    def top(self, score, k):
        return heads.top_heads(self.scores[score], k)

    def second_copy_loss_without(self, ablated):
        self.ablated.append(list(ablated))
        return self.second_copy_loss + 2.0 * len(ablated)

    def ablate(self, ablated):
        """Like the real study: layers below the lowest ablated head keep their scores."""
        self.ablated.append(list(ablated))
        induction = self.scores["induction"].copy()
        induction[min(layer for layer, _ in ablated):] *= 0.5
        return {"induction": induction}


#: SmolLM2's 15 byte-level pieces of 年假怎么申请？, as its vocabulary stores them
CHINESE_PIECES = ["å¹", "´", "å", "ģ", "ĩ", "æĢ", "İ", "ä¹", "Ī", "çĶ", "³", "è¯", "·", "ï¼", "Ł"]


def fake_piece_weights():
    """One layer × one head of causal weights over :data:`CHINESE_PIECES`, each row spread evenly."""
    n = len(CHINESE_PIECES)
    return (np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None])[None, None]


def exercise_context(key):
    """The context an exercise's solve function needs (the notebook passes it), made without the model."""
    if key.startswith("12-") or key == "13-1":
        return {"study": FakeStudy()}
    if key == "09-1":
        weights = fake_weights(0.9)
        return {"short": weights, "ranked": ex.previous_token_ranking(weights)}
    if key == "09-3":
        from helpers import readable_tokens

        spelling = readable_tokens.spell(CHINESE_PIECES)
        return {"weights": fake_piece_weights(), "spelling": spelling, "layer": 0, "head": 0}
    return {}

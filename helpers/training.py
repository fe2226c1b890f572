"""Training one attention head from data in numpy (``10_learning_to_attend``).

The task is built from the running example's four token kinds (事项, 时间, 疑问, 动作, see
:mod:`helpers.example`): a short "sentence" ends with an 动作 token, somewhere before it sits
exactly one 事项 token among 时间 and 疑问 tokens, and the target at the last position is *which*
事项 it is. Every word's input is its kind (the article's four features, one-hot) followed by a
random identity vector (like a real embedding row: no named meaning). Averaging the sentence
with weights that ignore content mixes every word's identity vector; picking the 事项 token by
its kind keeps one clean identity, which is what the learned q·k has to find.

The model is one attention head read out at the last position::

    q = x_last W_Q   k_j = x_j W_K   v_j = x_j W_V   s_j = q·k_j · scale   p = softmax(s)
    o = Σ_j p_j v_j   logits = o W_O + b_O   loss = mean cross-entropy

:func:`backward` writes the gradient out step by step in the reverse order; the softmax step is
``(diag(p) − p pᵀ) · upstream`` (:func:`helpers.scaling.softmax_jacobian`, ``04_sqrt_d``).
:func:`gradient_check` compares it with central finite differences. :func:`train` runs Adam,
seeded and deterministic; :func:`trained_run` caches the notebook's run for its explorer.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, lru_cache

import numpy as np

from .attention import softmax
from .example import FEATURES
from .gradcheck import central_differences
from .validation import (
    as_float_array,
    boolean,
    finite_scalar,
    integer,
    magnitude_bound,
    max_abs,
    one_of,
    positive_float,
    positive_int,
)
from .validation import seed as check_seed

KINDS = FEATURES  # 事项, 时间, 疑问, 动作
WORDS = {
    "事项": ("假", "报销", "加班", "出差"),
    "时间": ("年", "下周", "月底", "今天", "明天", "周五", "年底", "本月"),
    "疑问": ("怎么", "如何", "能否", "哪里", "何时", "是否", "可以", "需要"),
    "动作": ("申请", "办理", "提交"),
}
VOCAB = tuple(w for kind in KINDS for w in WORDS[kind])
KIND_OF = {w: kind for kind in KINDS for w in WORDS[kind]}
ITEMS = WORDS["事项"]          # the classes the readout chooses between
DISTRACTORS = WORDS["时间"] + WORDS["疑问"]
IDENTITY_DIM = 2               # size of each word's random identity vector
INPUT_DIM = len(KINDS) + IDENTITY_DIM
MIN_LEN, MAX_LEN = 4, 7
MAX_D = 4096          # widest head train / init_params accept (the √d experiment goes to 128)
MAX_STEPS = 10_000    # most training steps one call runs
MAX_GRADIENT_CHECK = 64  # largest d and n_sentences of gradient_check (one forward per parameter entry)
SEED = 20260510
LEARNING_RATE = 0.02
STEPS = 150
CHECKPOINTS = (0, 5, 10, 15, 20, 25, 30, 35, 40, 50, 60, 80, 100, 150)
#: example sentences of the notebook and its explorer (the first is the article's)
EXAMPLES = (
    ("年", "假", "怎么", "申请"),
    ("出差", "下周", "怎么", "办理"),
    ("今天", "如何", "加班", "申请"),
    ("哪里", "月底", "能否", "报销", "提交"),
    ("假", "下周", "年", "怎么", "如何", "申请"),
)
PROJECTIONS = ("W_Q", "W_K", "W_V")


# ---- the data ----------------------------------------------------------------------------------
@lru_cache(maxsize=4)
def _embedding_table(seed: int) -> np.ndarray:
    rng = np.random.default_rng([seed, 0])
    kinds = np.array([[float(KIND_OF[w] == k) for k in KINDS] for w in VOCAB])
    identity = rng.standard_normal((len(VOCAB), IDENTITY_DIM)) / np.sqrt(IDENTITY_DIM)
    table = np.hstack([kinds, identity])
    table.setflags(write=False)
    return table


def embeddings(seed: int = SEED) -> np.ndarray:
    """Input rows of every word in :data:`VOCAB`: kind one-hot (事项, 时间, 疑问, 动作), then a
    random identity vector of :data:`IDENTITY_DIM` components (N(0, 1/IDENTITY_DIM), seeded)."""
    return _embedding_table(_seed(seed))


@dataclass(frozen=True)
class Sentences:
    """A padded batch: ``x`` is ``(B, L, D)``, ``valid`` marks real positions, ``target`` is the
    index in :data:`ITEMS` of each sentence's 事项 token, ``item_pos`` its position."""

    tokens: tuple
    x: np.ndarray
    valid: np.ndarray
    lengths: np.ndarray
    target: np.ndarray
    item_pos: np.ndarray

    def __len__(self) -> int:
        return len(self.tokens)

    @cached_property
    def last(self) -> np.ndarray:
        """Input row of every sentence's last (动作) token, ``(B, D)``."""
        return self.x[np.arange(len(self)), self.lengths - 1]

    @cached_property
    def offsets(self) -> np.ndarray:
        """Position counted from the end (0 = the last token), ``(B, L)``; padding gets -1."""
        pos = np.arange(self.x.shape[1])[None, :]
        return np.where(self.valid, self.lengths[:, None] - 1 - pos, -1)

    @cached_property
    def item_distance(self) -> np.ndarray:
        """How many words before the last one each sentence's 事项 word sits (1 = right before it)."""
        return self.lengths - 1 - self.item_pos

    @cached_property
    def mask(self) -> np.ndarray:
        """0 on words, −inf on padding, ``(B, L)``: added to the scores."""
        return np.where(self.valid, 0.0, -np.inf)


def encode(sentences, seed: int = SEED) -> Sentences:
    """Turn sentences (sequences of words from :data:`VOCAB`) into a padded batch.

    Each sentence must end with an 动作 word and hold exactly one 事项 word before it.
    """
    if isinstance(sentences, str) or not hasattr(sentences, "__len__") or len(sentences) == 0:
        raise ValueError(f"sentences must be a non-empty list of word sequences, got {sentences!r}")
    seed = _seed(seed)
    rows = []
    for s in sentences:
        if not isinstance(s, str) and (not isinstance(s, (list, tuple)) or not all(isinstance(w, str) for w in s)):
            raise TypeError(f"sentences must hold sequences (lists or tuples) of words, got {s!r:.60}")
        words = (s,) if isinstance(s, str) else tuple(s)
        unknown = [w for w in words if w not in KIND_OF]
        if unknown:
            raise ValueError(f"sentences contains words not in the vocabulary {list(VOCAB)}: {unknown}")
        if not MIN_LEN <= len(words) <= MAX_LEN:
            raise ValueError(f"each sentence must have {MIN_LEN}…{MAX_LEN} words, got {len(words)}: {words}")
        if KIND_OF[words[-1]] != "动作":
            raise ValueError(f"each sentence must end with an 动作 word {WORDS['动作']}, got {words}")
        items = [i for i, w in enumerate(words[:-1]) if KIND_OF[w] == "事项"]
        if len(items) != 1 or any(KIND_OF[w] == "动作" for w in words[:-1]):
            raise ValueError(f"each sentence needs exactly one 事项 word {ITEMS} and 动作 only at the end, "
                             f"got {words}")
        rows.append((words, items[0]))
    table = embeddings(seed)
    index = {w: i for i, w in enumerate(VOCAB)}
    b = len(rows)
    x = np.zeros((b, MAX_LEN, INPUT_DIM))
    valid = np.zeros((b, MAX_LEN), dtype=bool)
    for i, (words, _) in enumerate(rows):
        x[i, : len(words)] = table[[index[w] for w in words]]
        valid[i, : len(words)] = True
    return Sentences(tuple(w for w, _ in rows), x, valid, valid.sum(axis=1),
                     np.array([ITEMS.index(w[p]) for w, p in rows]), np.array([p for _, p in rows]))


def random_sentences(n: int, seed: int) -> list:
    """``n`` random sentences: length 3…6, one 事项 word at a random position among distinct
    时间/疑问 words, an 动作 word at the end."""
    n = positive_int("n", n)
    rng = np.random.default_rng([_seed(seed), 1])
    out = []
    for _ in range(n):
        length = int(rng.integers(MIN_LEN, MAX_LEN + 1))
        body = [DISTRACTORS[i] for i in rng.choice(len(DISTRACTORS), size=length - 2, replace=False)]
        body.insert(int(rng.integers(0, length - 1)), ITEMS[int(rng.integers(len(ITEMS)))])
        out.append((*body, WORDS["动作"][int(rng.integers(len(WORDS["动作"])))]))
    return out


def dataset(split: str = "train", seed: int = SEED) -> Sentences:
    """The fixed training (512) or test (512) sentences; the two splits use different draws."""
    return _dataset(one_of("split", split, ("train", "test")), _seed(seed))


@lru_cache(maxsize=8)
def _dataset(split: str, seed: int) -> Sentences:
    size, stream = (512, 0) if split == "train" else (512, 1)
    return encode(random_sentences(size, _seed(seed) * 10 + stream + 7), seed)


# ---- parameters ------------------------------------------------------------------------------
def init_params(d: int, seed: int = SEED, *, init_seed=None, fixed_positions: bool = False) -> dict:
    """Initial parameters for head dimension ``d`` (same draw for scaled and unscaled runs).

    ``seed`` is the one that fixed the words' inputs (:func:`embeddings`); the draw uses
    ``init_seed`` (default: ``seed``).

    W_Q, W_K, W_V have N(0, σ²) entries with σ² = 1 / (mean ‖x‖² of the vocabulary), so every
    component of q, k, v has variance about 1 at the start — the assumption of ``04_sqrt_d``.
    The readout W_O has N(0, 1/d) entries, b_O starts at 0. ``fixed_positions=True`` gives the
    baseline: instead of W_Q and W_K, one learnable score per position counted from the end
    (``bias``, starting at 0 = equal weights), whatever the words are.
    """
    d = positive_int("d", d, maximum=MAX_D)
    seed = _seed(seed)
    init_seed = seed if init_seed is None else _seed(init_seed, "init_seed")
    fixed_positions = boolean("fixed_positions", fixed_positions)
    rng = np.random.default_rng([init_seed, d, 2])
    sigma = 1.0 / np.sqrt(np.mean(np.sum(embeddings(seed) ** 2, axis=1)))
    w_q, w_k, w_v = (rng.standard_normal((INPUT_DIM, d)) * sigma for _ in range(3))
    params = {"W_Q": w_q, "W_K": w_k, "W_V": w_v,
              "W_O": rng.standard_normal((d, len(ITEMS))) / np.sqrt(d), "b_O": np.zeros(len(ITEMS))}
    if fixed_positions:
        del params["W_Q"], params["W_K"]
        params["bias"] = np.zeros(MAX_LEN)
    return params


def _check_params(params) -> dict:
    if not isinstance(params, dict):
        raise TypeError(f"params must be a dict of arrays (from init_params), got {type(params).__name__}")
    need = {"W_V", "W_O", "b_O"} | ({"bias"} if "bias" in params else {"W_Q", "W_K"})
    missing = need - set(params)
    if missing:
        raise ValueError(f"params is missing {sorted(missing)}; it has {sorted(params)}")
    out = {name: as_float_array(f"params[{name!r}]", params[name], ndim=1 if name in ("b_O", "bias") else 2)
           for name in need}
    d = out["W_V"].shape[1]
    shapes = {"W_V": (INPUT_DIM, d), "W_O": (d, len(ITEMS)), "b_O": (len(ITEMS),)}
    shapes.update({"bias": (MAX_LEN,)} if "bias" in out else {"W_Q": (INPUT_DIM, d), "W_K": (INPUT_DIM, d)})
    for name, shape in shapes.items():
        if out[name].shape != shape:
            raise ValueError(f"params[{name!r}] must have shape {shape}, got {out[name].shape}")
    return out


def _check_data(data) -> Sentences:
    if not isinstance(data, Sentences):
        raise TypeError(f"data must be Sentences (from encode or dataset), got {type(data).__name__}")
    return data


# ---- forward -------------------------------------------------------------------------------------
# k_j = x_j W_K and v_j = x_j W_V are linear in the input x_j, so the code never forms them for
# every position: q·k_j = x_j·(W_K q) and Σ_j p_j v_j = (Σ_j p_j x_j) W_V. Same numbers (the
# gradient check and the tests compare with the literal k and v), but the work no longer grows
# with d times the sentence length — the √d experiment trains heads of d = 128 in seconds.
@dataclass(frozen=True)
class Forward:
    """Every intermediate of one forward pass (the backward pass reads them)."""

    q: np.ndarray        # (B, d)  the last token's query (None in the baseline)
    scale: float         # 1/√d, or 1.0 unscaled (1.0 for the fixed-position baseline)
    scores: np.ndarray   # (B, L)  scale · q·k_j, −inf on padding
    weights: np.ndarray  # (B, L)  softmax(scores): the last position's attention weights
    mixed: np.ndarray    # (B, D)  Σ_j p_j x_j, the weighted average of the inputs
    output: np.ndarray   # (B, d)  Σ_j p_j v_j = mixed · W_V
    logits: np.ndarray   # (B, C)
    probs: np.ndarray    # (B, C)  softmax(logits)
    loss: float          # mean cross-entropy
    accuracy: float      # share of sentences whose largest logit is the right 事项


def forward(params, data, *, scaled: bool = True) -> Forward:
    """The model on a batch of sentences, keeping every intermediate (``10_learning_to_attend``)."""
    return _forward(_check_params(params), _check_data(data), boolean("scaled", scaled))


def _forward(p: dict, data: Sentences, scaled: bool) -> Forward:
    x = data.x                                                         # (B, L, D)
    if "bias" in p:  # the baseline: one score per position from the end, blind to content
        q = None
        scale = 1.0
        scores = p["bias"][np.maximum(data.offsets, 0)] + data.mask
    else:
        q = data.last @ p["W_Q"]                                       # (B, d)
        scale = 1.0 / np.sqrt(q.shape[1]) if scaled else 1.0
        looks_for = q @ p["W_K"].T                                     # (B, D): W_K q
        scores = np.einsum("bli,bi->bl", x, looks_for) * scale + data.mask  # q·k_j = x_j·(W_K q)
    weights = softmax(scores)
    mixed = np.einsum("bl,bli->bi", weights, x)                        # Σ_j p_j x_j
    output = mixed @ p["W_V"]                                          # Σ_j p_j v_j
    logits = output @ p["W_O"] + p["b_O"]
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))  # log-softmax
    probs = np.exp(log_probs)
    loss = float(-np.mean(log_probs[np.arange(len(data)), data.target]))
    accuracy = float(np.mean(np.argmax(logits, axis=1) == data.target))
    return Forward(q, scale, scores, weights, mixed, output, logits, probs, loss, accuracy)


# ---- backward, step by step ----------------------------------------------------------------------
def softmax_backward(weights, upstream) -> np.ndarray:
    """∂loss/∂scores from ∂loss/∂weights, row by row: ``(diag(p) − p pᵀ) · upstream``.

    The matrix is softmax's Jacobian (:func:`helpers.scaling.softmax_jacobian`, ``04_sqrt_d``);
    it is symmetric, and ``(diag(p) − p pᵀ) g = p ⊙ (g − p·g)`` needs no n×n matrix.
    """
    p = as_float_array("weights", weights)
    g = as_float_array("upstream", upstream)
    if p.shape != g.shape or p.ndim == 0:
        raise ValueError(f"weights and upstream must have the same shape (…, n), got {p.shape} and {g.shape}")
    return _softmax_backward(p, g)


def _softmax_backward(p: np.ndarray, g: np.ndarray) -> np.ndarray:
    """:func:`softmax_backward` without the argument checks (the training loop calls it every step)."""
    return p * (g - np.sum(p * g, axis=-1, keepdims=True))


def backward(params, data, fwd: Forward) -> dict:
    """Gradients of the mean cross-entropy with respect to every parameter, in reverse order.

    1. loss → logits: softmax + cross-entropy gives ``(probs − one_hot) / B``;
    2. logits = o W_O + b_O → ∂W_O, ∂b_O and ∂o;
    3. o = Σ_j p_j v_j → ∂p_j = ∂o · v_j and ∂v_j = p_j ∂o;
    4. p = softmax(s) → ∂s = (diag(p) − p pᵀ) ∂p (:func:`softmax_backward`);
    5. s_j = scale · q·k_j → ∂q = scale Σ_j ∂s_j k_j and ∂k_j = scale ∂s_j q;
    6. q = x_last W_Q, k = X W_K, v = X W_V → ∂W = xᵀ ∂(q, k or v), summed over sentences.
    """
    if not isinstance(fwd, Forward):
        raise TypeError(f"fwd must be the Forward of these params and data, got {type(fwd).__name__}")
    return _backward(_check_params(params), _check_data(data), fwd)


def backward_steps(params, data, *, scaled: bool = True) -> dict:
    """The gradient flowing back through each step of :func:`backward`, for reading in the
    notebook: ``{"d_logits", "d_output", "d_weights", "d_scores", "grads"}``."""
    p, data = _check_params(params), _check_data(data)
    steps: dict = {}
    steps["grads"] = _backward(p, data, _forward(p, data, boolean("scaled", scaled)), keep=steps)
    return steps


def _backward(p: dict, data: Sentences, fwd: Forward, keep=None) -> dict:
    b, length = data.x.shape[:2]
    grads = {}
    # 1. loss → logits
    d_logits = fwd.probs.copy()
    d_logits[np.arange(b), data.target] -= 1.0
    d_logits /= b
    # 2. readout: logits = o W_O + b_O
    grads["W_O"] = fwd.output.T @ d_logits
    grads["b_O"] = d_logits.sum(axis=0)
    d_output = d_logits @ p["W_O"].T                                   # (B, d)
    # 3. o = Σ_j p_j v_j: ∂p_j = ∂o·v_j = x_j·(W_V ∂o); ∂v_j = p_j ∂o, so ∂W_V = Σ_j x_jᵀ p_j ∂o
    d_weights = np.einsum("bli,bi->bl", data.x, d_output @ p["W_V"].T)  # (B, L)
    grads["W_V"] = fwd.mixed.T @ d_output
    # 4. p = softmax(s): ∂s = (diag(p) − p pᵀ) ∂p                      (0 on padding: p = 0 there)
    d_scores = _softmax_backward(fwd.weights, d_weights)
    if keep is not None:
        keep.update(d_logits=d_logits, d_output=d_output, d_weights=d_weights, d_scores=d_scores)
    if "bias" in p:  # the baseline's scores are bias[offset]: add up ∂s per offset
        grads["bias"] = np.bincount(data.offsets[data.valid], weights=d_scores[data.valid], minlength=length)
        return grads
    # 5. s_j = scale · q·k_j: ∂q = scale Σ_j ∂s_j k_j = scale (Σ_j ∂s_j x_j) W_K; ∂k_j = scale ∂s_j q
    pulled = np.einsum("bl,bli->bi", d_scores, data.x)                 # (B, D): Σ_j ∂s_j x_j
    d_q = fwd.scale * pulled @ p["W_K"]                                # (B, d)
    # 6. q = x_last W_Q → ∂W_Q = x_lastᵀ ∂q;  k_j = x_j W_K → ∂W_K = Σ_j x_jᵀ ∂k_j = scale · pulledᵀ q
    grads["W_Q"] = data.last.T @ d_q
    grads["W_K"] = fwd.scale * pulled.T @ fwd.q
    return grads


def loss_and_grads(params, data, *, scaled: bool = True) -> tuple:
    """``(Forward, grads)`` of one batch."""
    p, data = _check_params(params), _check_data(data)
    fwd = _forward(p, data, boolean("scaled", scaled))
    return fwd, _backward(p, data, fwd)


def numerical_gradient(params, data, *, scaled: bool = True, eps: float = 1e-6) -> dict:
    """Central finite differences (L(θ+ε) − L(θ−ε)) / 2ε of the loss, one entry at a time
    (:func:`helpers.gradcheck.central_differences`)."""
    return central_differences(lambda p: forward(p, data, scaled=scaled).loss, _check_params(params), eps=eps)


def relative_error(a, b) -> float:
    """‖a − b‖ / max(‖a‖ + ‖b‖, 1e-12): 0 when equal, about 1 when unrelated."""
    a_arr, b_arr = as_float_array("a", a), as_float_array("b", b)
    if a_arr.shape != b_arr.shape:
        raise ValueError(f"a and b must have the same shape, got {a_arr.shape} and {b_arr.shape}")
    largest = max(max_abs(a_arr), max_abs(b_arr))
    magnitude_bound("a and b", largest, largest, a_arr.size, limit=1e300)  # the squared norms stay finite
    return float(np.linalg.norm(a_arr - b_arr) / max(np.linalg.norm(a_arr) + np.linalg.norm(b_arr), 1e-12))


def gradient_check(d: int = 2, n_sentences: int = 4, seed: int = 0, *, scaled: bool = True,
                   fixed_positions: bool = False) -> dict:
    """Relative error between :func:`backward` and :func:`numerical_gradient`, per parameter,
    on ``n_sentences`` random sentences and random parameters (float64)."""
    d = positive_int("d", d, maximum=MAX_GRADIENT_CHECK)
    n_sentences = positive_int("n_sentences", n_sentences, maximum=MAX_GRADIENT_CHECK)
    seed, scaled = _seed(seed), boolean("scaled", scaled)
    fixed_positions = boolean("fixed_positions", fixed_positions)
    data = encode(random_sentences(n_sentences, seed))
    params = init_params(d, seed, fixed_positions=fixed_positions)
    rng = np.random.default_rng([_seed(seed), 3])
    params = {name: value + 0.3 * rng.standard_normal(value.shape) for name, value in params.items()}
    _, analytic = loss_and_grads(params, data, scaled=scaled)
    numeric = numerical_gradient(params, data, scaled=scaled)
    return {name: relative_error(analytic[name], numeric[name]) for name in analytic}


# ---- training --------------------------------------------------------------------------------------
class Adam:
    """Adam (Kingma & Ba 2015) with the usual β₁ = 0.9, β₂ = 0.999, ε = 1e-8."""

    def __init__(self, lr: float = LEARNING_RATE, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8):
        self.lr = positive_float("lr", lr)
        self.beta1, self.beta2, self.eps = beta1, beta2, eps
        self.t = 0
        self.m: dict = {}
        self.v: dict = {}

    def step(self, params: dict, grads: dict) -> None:
        """Update ``params`` in place."""
        self.t += 1
        for name, g in grads.items():
            m = self.m[name] = self.beta1 * self.m.get(name, 0.0) + (1 - self.beta1) * g
            v = self.v[name] = self.beta2 * self.v.get(name, 0.0) + (1 - self.beta2) * g * g
            m_hat = m / (1 - self.beta1 ** self.t)
            v_hat = v / (1 - self.beta2 ** self.t)
            params[name] -= self.lr * m_hat / (np.sqrt(v_hat) + self.eps)


@dataclass
class TrainingRun:
    """What one training run recorded. Index ``t`` of the per-step lists is *before* step t+1,
    so index 0 is the initialisation."""

    d: int
    scaled: bool
    fixed_positions: bool
    loss: list = field(default_factory=list)          # training loss
    train_accuracy: list = field(default_factory=list)
    test_steps: list = field(default_factory=list)    # the steps at which the test set was scored
    test_accuracy: list = field(default_factory=list)
    item_weight: list = field(default_factory=list)   # mean weight on the 事项 word (training set)
    grad_norm_qk: list = field(default_factory=list)  # ‖(∂W_Q, ∂W_K)‖ (through the softmax)
    grad_norm_v: list = field(default_factory=list)   # ‖∂W_V‖ (around it)
    checkpoints: dict = field(default_factory=dict)   # step → parameter copies
    init_max_weight: float = float("nan")             # mean largest weight at step 0 (training set)
    init_saturated: float = float("nan")              # share of those above SATURATED

    @property
    def steps(self) -> int:
        return len(self.loss) - 1

    def steps_to(self, accuracy: float, split: str = "train"):
        """First step at which the accuracy on ``split`` reaches ``accuracy``; ``None`` if never."""
        if one_of("split", split, ("train", "test")) == "train":
            pairs = enumerate(self.train_accuracy)
        else:
            pairs = zip(self.test_steps, self.test_accuracy)
        hits = [t for t, a in pairs if a >= accuracy]
        return hits[0] if hits else None

    def test_accuracy_at(self, step: int) -> float:
        """Test accuracy at ``step`` (one of :attr:`test_steps`)."""
        if step not in self.test_steps:
            raise ValueError(f"step must be a step where the test set was scored (every few steps), got {step!r}")
        return self.test_accuracy[self.test_steps.index(step)]

    def early_grad_norm(self, steps: int = 5) -> float:
        """Mean ‖(∂W_Q, ∂W_K)‖ over the first ``steps`` steps."""
        return float(np.mean(self.grad_norm_qk[:steps]))

    def params_at(self, step: int) -> dict:
        if step not in self.checkpoints:
            raise ValueError(f"step must be one of the checkpoints {sorted(self.checkpoints)}, got {step!r}")
        return self.checkpoints[step]


def train(d: int = 2, *, scaled: bool = True, steps: int = STEPS, lr: float = LEARNING_RATE, seed: int = SEED,
          init_seed=None, fixed_positions: bool = False, checkpoints=CHECKPOINTS, stop_at=None,
          test_every=5) -> TrainingRun:
    """Full-batch Adam on the 512 training sentences for ``steps`` steps (deterministic).

    ``seed`` fixes the words' inputs and the sentences; ``init_seed`` (default: ``seed``) the
    initial parameters. Records loss, train and test accuracy and the gradient norms at every
    step, and parameter copies at ``checkpoints``. ``stop_at`` (an accuracy) ends the run early
    once the *training* accuracy reaches it. The test set is scored every ``test_every`` steps
    and at the last step (``None``: never; the √d experiment needs only the step count).
    """
    d, steps = positive_int("d", d, maximum=MAX_D), positive_int("steps", steps, maximum=MAX_STEPS)
    scaled, fixed_positions = boolean("scaled", scaled), boolean("fixed_positions", fixed_positions)
    seed = _seed(seed)
    if init_seed is not None:
        init_seed = _seed(init_seed, "init_seed")
    if test_every is not None:
        test_every = positive_int("test_every", test_every)
    if stop_at is not None:
        finite_scalar("stop_at", stop_at)
        if not 0 < float(stop_at) <= 1:
            raise ValueError(f"stop_at must be an accuracy in (0, 1], got {stop_at!r}")
    wanted = _steps("checkpoints", checkpoints)
    train_set, test_set = dataset("train", seed), dataset("test", seed)
    params = init_params(d, seed, init_seed=init_seed, fixed_positions=fixed_positions)
    opt = Adam(lr)
    run = TrainingRun(d, scaled, fixed_positions)
    rows = np.arange(len(train_set))
    for t in range(steps + 1):
        fwd = _forward(params, train_set, scaled)
        grads = _backward(params, train_set, fwd)
        if t == 0:
            largest = fwd.weights.max(axis=1)
            run.init_max_weight = float(largest.mean())
            run.init_saturated = float(np.mean(largest > SATURATED))
        run.loss.append(fwd.loss)
        run.train_accuracy.append(fwd.accuracy)
        run.item_weight.append(float(fwd.weights[rows, train_set.item_pos].mean()))
        if test_every is not None and (t % test_every == 0 or t == steps):
            run.test_steps.append(t)
            run.test_accuracy.append(_forward(params, test_set, scaled).accuracy)
        qk = [grads[n] for n in ("W_Q", "W_K", "bias") if n in grads]
        run.grad_norm_qk.append(float(np.sqrt(sum(np.sum(g * g) for g in qk))))
        run.grad_norm_v.append(float(np.linalg.norm(grads["W_V"])))
        if t in wanted:
            run.checkpoints[t] = {name: value.copy() for name, value in params.items()}
        if t == steps or (stop_at is not None and fwd.accuracy >= stop_at):
            break
        opt.step(params, grads)
    return run


def trained_run(fixed_positions: bool = False) -> TrainingRun:
    """The notebook's run (d = 2 like the article's head, scaled), computed once and cached: the
    explorer's checkpoint slider reads it. ``fixed_positions=True``: the baseline's run."""
    return _trained_run(boolean("fixed_positions", fixed_positions))


@lru_cache(maxsize=2)
def _trained_run(fixed_positions: bool) -> TrainingRun:
    return train(2, fixed_positions=fixed_positions)


def attention_on_item(params, data, *, scaled: bool = True) -> np.ndarray:
    """The last position's weight on each sentence's 事项 token."""
    fwd = forward(params, data, scaled=scaled)
    return fwd.weights[np.arange(len(data)), data.item_pos]


def by_item_distance(params, data, *, scaled: bool = True) -> dict:
    """Per distance of the 事项 word from the end (:attr:`Sentences.item_distance`):
    ``{distance: (count, mean weight on the 事项 word, accuracy)}`` — where a model that fails
    puts its weight, and whether it fails more at some distances than at others."""
    data = _check_data(data)
    fwd = forward(params, data, scaled=scaled)
    on_item = fwd.weights[np.arange(len(data)), data.item_pos]
    right = np.argmax(fwd.logits, axis=1) == data.target
    return {int(k): (int(np.sum(data.item_distance == k)), float(on_item[data.item_distance == k].mean()),
                     float(right[data.item_distance == k].mean()))
            for k in np.unique(data.item_distance)}


# ---- the learned score table ---------------------------------------------------------------------
def kind_score_table(w_q, w_k, *, scale=None) -> np.ndarray:
    """Score per unit of query feature (row) and key feature (column) over the four kinds:
    the kind block of ``W_Q W_Kᵀ`` times ``scale`` (default 1/√d). ``W_Q W_Kᵀ`` is unchanged by
    any invertible A (W_Q A, W_K A⁻ᵀ; a rotation is one such A), so a learned and a hand-chosen
    head can be compared. The block leaves out the identity dimensions' terms."""
    q = as_float_array("w_q", w_q, ndim=2)
    k = as_float_array("w_k", w_k, ndim=2)
    if q.shape[1] != k.shape[1] or q.shape[0] < len(KINDS) or k.shape[0] < len(KINDS):
        raise ValueError(f"w_q and w_k must be (features ≥ 4, d) with the same d, got {q.shape} and {k.shape}")
    factor = 1.0 / np.sqrt(q.shape[1]) if scale is None else positive_float("scale", scale)
    return q[: len(KINDS)] @ k[: len(KINDS)].T * factor


def action_row(params) -> np.ndarray:
    """The 动作 row of the centred kind score table of ``params`` (the only row the task trains)."""
    p = _check_params(params)
    if "W_Q" not in p:
        raise ValueError("params must hold W_Q and W_K (the attention model, not the fixed-position baseline)")
    return centred(kind_score_table(p["W_Q"], p["W_K"]))[KINDS.index("动作")]


def centred(table) -> np.ndarray:
    """Each row minus its mean: softmax ignores a constant added to a row, so only these
    differences matter."""
    t = as_float_array("table", table, ndim=2)
    return t - t.mean(axis=1, keepdims=True)


def article_score_table() -> np.ndarray:
    """The article's hand-chosen W_Q W_Kᵀ / √2 over the four features (``02_qkv``)."""
    from . import example

    return kind_score_table(example.W_Q, example.W_K)


# ---- the √d experiment -----------------------------------------------------------------------------
SQRT_D_DIMS = (2, 16, 64, 128)
SQRT_D_TARGET = 0.95
SQRT_D_STEPS = 150
SATURATED = 0.99
SQRT_D_INITS = (SEED, SEED + 1, SEED + 2)
EARLY_STEPS = 5


def sqrt_d_experiment(dims=SQRT_D_DIMS, *, target: float = SQRT_D_TARGET, steps: int = SQRT_D_STEPS,
                      init_seeds=SQRT_D_INITS) -> tuple:
    """For each d and each initial draw, train with and without 1/√d from the same start.

    One row per (d, scaled): per draw, ``steps_to_target`` (``None`` when the accuracy on the
    training sentences does not reach ``target`` within ``steps``), ``final_accuracy`` and
    ``final_item_weight`` (mean weight on the 事项 word when the run stopped); means
    over the draws of ``init_max_weight`` (the largest weight at step 0), ``init_saturated`` (share
    of sentences whose largest weight is above :data:`SATURATED` at step 0; per draw in
    ``init_saturated_each``) and ``grad_qk`` /
    ``grad_v`` (‖∂W_Q, ∂W_K‖ and ‖∂W_V‖, mean over the first :data:`EARLY_STEPS` steps).
    Cached: the notebook and its exercise share one computation.
    """
    dims = tuple(positive_int("dims", d, maximum=MAX_D) for d in _sequence("dims", dims))
    init_seeds = tuple(_seed(s, "init_seeds") for s in _sequence("init_seeds", init_seeds))
    target = finite_scalar("target", target, low=0.0, low_open=True, high=1.0)
    steps = positive_int("steps", steps, maximum=MAX_STEPS)
    return _sqrt_d_experiment(dims, float(target), steps, init_seeds)


@lru_cache(maxsize=2)
def _sqrt_d_experiment(dims: tuple, target: float, steps: int, init_seeds: tuple) -> tuple:
    rows = []
    for d in dims:
        for scaled in (True, False):
            runs = [train(d, scaled=scaled, steps=steps, stop_at=target,
                          init_seed=s, checkpoints=(), test_every=None) for s in init_seeds]
            rows.append({"d": d, "scaled": scaled,
                         "steps_to_target": tuple(r.steps_to(target) for r in runs),
                         "final_accuracy": tuple(r.train_accuracy[-1] for r in runs),
                         "final_item_weight": tuple(r.item_weight[-1] for r in runs),
                         "init_max_weight": float(np.mean([r.init_max_weight for r in runs])),
                         "init_saturated": float(np.mean([r.init_saturated for r in runs])),
                         "init_saturated_each": tuple(r.init_saturated for r in runs),
                         "grad_qk": float(np.mean([r.early_grad_norm(EARLY_STEPS) for r in runs])),
                         "grad_v": float(np.mean([np.mean(r.grad_norm_v[:EARLY_STEPS]) for r in runs]))})
    return tuple(rows)


def sqrt_d_pairs(rows=None) -> list:
    """The √d experiment per (d, initial draw): the scaled and the unscaled run from the same start
    side by side — ``d``, ``draw`` (0, 1, 2 …), ``steps`` and ``accuracy`` (``{True: scaled,
    False: unscaled}``, steps ``None`` when the target was not reached), ``saturated`` (the
    unscaled start's share of sentences above :data:`SATURATED`) and ``item_weight`` (per
    scaling, when the run stopped)."""
    rows = sqrt_d_experiment() if rows is None else _experiment_rows(rows)
    by = {(r["d"], r["scaled"]): r for r in rows}
    out = []
    for d in sorted({r["d"] for r in rows}):
        on, off = by[(d, True)], by[(d, False)]
        for i in range(len(on["steps_to_target"])):
            out.append({"d": d, "draw": i,
                        "steps": {True: on["steps_to_target"][i], False: off["steps_to_target"][i]},
                        "accuracy": {True: on["final_accuracy"][i], False: off["final_accuracy"][i]},
                        "item_weight": {True: on["final_item_weight"][i], False: off["final_item_weight"][i]},
                        "saturated": off["init_saturated_each"][i]})
    return out


_ROW_KEYS = ("d", "scaled", "steps_to_target", "final_accuracy", "final_item_weight", "init_saturated_each")


def _experiment_rows(rows) -> tuple:
    """``rows`` as :func:`sqrt_d_experiment` returns them: dicts with its keys, a scaled and an
    unscaled row for every d, the same number of draws in each."""
    rows = _sequence("rows", rows)
    for r in rows:
        if not isinstance(r, dict) or any(key not in r for key in _ROW_KEYS):
            raise TypeError(f"rows must be the rows of sqrt_d_experiment (dicts with keys {list(_ROW_KEYS)}), "
                            f"got {r!r:.60}")
    try:
        pairs = {(r["d"], r["scaled"]) for r in rows}
        draws = {len(r[key]) for r in rows for key in _ROW_KEYS[2:]}
    except TypeError:
        raise TypeError("rows must be the rows of sqrt_d_experiment (d and scaled hashable, per-draw tuples)") from None
    if not rows or len(draws) != 1 or pairs != {(d, s) for d, _ in pairs for s in (True, False)} \
            or len(pairs) != len(rows):
        raise ValueError(f"rows must be the rows of sqrt_d_experiment: one scaled and one unscaled row per d, "
                         f"the same number of draws in each; got {len(rows)} rows")
    return rows


def _sequence(name: str, value) -> tuple:
    if isinstance(value, (str, bytes, dict, set)) or not isinstance(value, (list, tuple, np.ndarray)):
        raise TypeError(f"{name} must be a list or tuple, got {type(value).__name__} {value!r:.60}")
    if isinstance(value, np.ndarray) and value.ndim != 1:
        raise ValueError(f"{name} must be a flat list or tuple, got an array of shape {value.shape}")
    value = tuple(value)
    if not value:
        raise ValueError(f"{name} must hold at least one entry, got none")
    return value


def _steps(name: str, value) -> set:
    """A collection of step numbers (checkpoints): integers >= 0; may be empty."""
    if isinstance(value, (str, bytes, dict)) or not isinstance(value, (list, tuple, set, frozenset, range)):
        raise TypeError(f"{name} must be a list or tuple of step numbers, got {type(value).__name__} {value!r:.60}")
    return {integer(name, c, low=0) for c in value}


def _seed(seed, name: str = "seed") -> int:
    return check_seed(name, seed)

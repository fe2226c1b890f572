"""Argument checks shared by every helpers function: one vocabulary for bad input.

Every public function validates its inputs here, first thing, so a learner sees a ``ValueError``
(a value of the right kind that is out of range, NaN, empty, of the wrong shape) or a
``TypeError`` (a value of the wrong kind: text where numbers go, a float where a count goes, a
boolean where a number goes) whose message names the argument, says what was expected and what
was given — never a numpy broadcasting traceback, an ``IndexError`` or a silent NaN.

Conventions shared by all checks:

- arrays: lists, tuples and numpy arrays are all accepted; integers are converted to float where
  the maths is real-valued; booleans are *not* numbers here (``TypeError``), except for a mask,
  see :func:`as_mask`;
- counts and positions: Python or numpy integers only (``2.5`` or ``2.0`` is a ``TypeError``,
  ``True`` too), within the range the function states;
- results that cannot be represented: :func:`finite_result` raises naming the argument that is
  too large (use it after a computation run under :func:`quiet_overflow`).
"""
from __future__ import annotations

import numbers
import warnings
from contextlib import contextmanager

import numpy as np

#: numpy < 1.24 warns (instead of raising ValueError) on ragged nested lists; both mean "ragged"
_RAGGED_WARNING = getattr(getattr(np, "exceptions", np), "VisibleDeprecationWarning", DeprecationWarning)


def asarray_strict(value) -> np.ndarray:
    """``np.asarray(value)``, where a ragged nested list is a ``ValueError`` on every numpy version
    (numpy ≥ 1.24 raises one; older versions only warn and build an object array)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", _RAGGED_WARNING)
        try:
            return np.asarray(value)
        except _RAGGED_WARNING as exc:
            raise ValueError(f"ragged nested sequence ({exc})") from None

#: largest element count a helpers function allocates for one array (keeps a typo like
#: ``n_samples=10**9`` from freezing the notebook: it is refused with a message instead)
MAX_ELEMENTS = 50_000_000


def _kind(value) -> str:
    """A short description of what was given: ``float 2.5``, ``str 'abc'``, ``ndarray (2, 3) bool``."""
    if isinstance(value, np.ndarray):
        return f"ndarray of shape {value.shape} and dtype {value.dtype}"
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(value).__name__} {text}"


#: the longest preview of a value a message shows (a 1 MB string is not echoed back)
PREVIEW_LIMIT = 200


def short_preview(value, limit: int = PREVIEW_LIMIT) -> str:
    """``value``'s repr when it is short; otherwise its type, its length and the start of its repr,
    in at most ``limit`` characters: ``str of 1,000,000 characters: 'xxxx…'``."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 — a learner's object whose repr fails is still described
        text = f"<{type(value).__name__}>"
    if len(text) <= limit:
        return text
    try:
        size = len(value)
    except TypeError:
        size = None
    unit = "characters" if isinstance(value, str) else "entries"
    head = f"{type(value).__name__}" + (f" of {size:,} {unit}" if size is not None else "") + ": "
    return head + text[:max(limit - len(head) - 1, 10)] + "…"


# ---- arrays ----------------------------------------------------------------------------------
def as_real_array(name: str, value, *, ndim=None, shape=None, allow_empty: bool = False,
                  allow_neg_inf: bool = False, keep_float_dtype: bool = False,
                  allow_nonfinite: bool = False) -> np.ndarray:
    """Return ``value`` (a list, tuple or array of real numbers) as a float64 array.

    ``ndim`` is an int or a tuple of allowed ranks; ``shape`` a tuple whose entries are sizes or
    ``None`` (any size). Empty arrays are refused unless ``allow_empty``. ``allow_neg_inf`` lets
    ``-inf`` through (masked scores); NaN and ``+inf`` are refused unless ``allow_nonfinite``
    (numbers only drawn, where NaN/±inf is a gap or a masked cell). ``keep_float_dtype``
    keeps float32/float16 arrays as they are (the real model's weights) instead of copying them
    to float64. Booleans, text, complex numbers and ragged nested lists are a ``TypeError`` or
    ``ValueError`` naming ``name``.
    """
    if value is None or isinstance(value, (str, bytes, dict, set, frozenset)):
        raise TypeError(f"{name} must be an array of real numbers (a list, tuple or numpy array), "
                        f"got {_kind(value)}")
    try:
        raw = asarray_strict(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a rectangular array of real numbers; got a ragged or "
                         f"malformed {type(value).__name__} ({exc})") from None
    if raw.dtype.kind == "b":
        raise TypeError(f"{name} must hold real numbers, got booleans ({_kind(raw)}); "
                        "convert with .astype(float) if you meant 0/1")
    if raw.dtype.kind == "c":
        raise TypeError(f"{name} must hold real numbers, got complex numbers ({_kind(raw)})")
    if raw.dtype.kind in "OUSVMm" and not (
            raw.dtype.kind == "O" and all(_is_real_scalar(v) for v in raw.ravel())):
        raise TypeError(f"{name} must hold real numbers, got {_kind(raw) if raw.dtype.kind != 'O' else _kind(value)}")
    if keep_float_dtype and raw.dtype.kind == "f":
        arr = raw
    else:
        try:
            arr = raw.astype(np.float64, copy=False)
        except OverflowError:  # a Python int beyond float64
            raise ValueError(f"{name} holds a number too large for float64 ({_kind(value)})") from None
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in allowed:
            want = " or ".join(str(a) for a in allowed)
            raise ValueError(f"{name} must have rank {want}, got shape {arr.shape} (rank {arr.ndim})")
    if shape is not None:
        if arr.ndim != len(shape) or any(s is not None and s != a for s, a in zip(shape, arr.shape)):
            want = "(" + ", ".join("any" if s is None else str(s) for s in shape) + ")"
            raise ValueError(f"{name} must have shape {want}, got shape {arr.shape}")
    if not allow_empty and arr.size == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape}); it needs at least one entry on every axis")
    if allow_nonfinite:
        return arr
    if np.isnan(arr).any():
        raise ValueError(f"{name} contains NaN (shape {arr.shape}); check the values you passed")
    if allow_neg_inf:
        if np.isposinf(arr).any():
            raise ValueError(f"{name} contains +inf (shape {arr.shape}); only -inf (masked) is allowed")
    elif not np.isfinite(arr).all():
        raise ValueError(f"{name} contains inf (shape {arr.shape}); values must be finite")
    return arr


#: the name older modules use
as_float_array = as_real_array


def preview(values, limit: int = 8) -> str:
    """``[0.3, 0.25, …]``: the first entries of an array for an error message (never overflows)."""
    flat = np.ravel(np.asarray(values, dtype=float))
    body = ", ".join(f"{x:.4g}" for x in flat[:limit])
    return f"[{body}{', …' if flat.size > limit else ''}]"


def _is_real_scalar(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def same_length(names: str, *arrays) -> None:
    """Require the arrays to have the same first dimension (one row per token, per weight, …)."""
    lengths = [len(a) for a in arrays]
    if len(set(lengths)) > 1:
        shapes = ", ".join(str(np.shape(a)) for a in arrays)
        raise ValueError(f"{names} need the same number of rows, got shapes {shapes}")


def probability_vector(name: str, value, *, atol: float = 1e-6) -> np.ndarray:
    """A 1-D array of weights that are >= 0 and sum to 1 (within ``atol``)."""
    w = as_real_array(name, value, ndim=1)
    if (w < 0).any() or abs(_safe_sum(w) - 1.0) > atol:
        raise ValueError(f"{name} must be weights >= 0 that sum to 1, got "
                         f"{preview(w)} (sum {_safe_sum(w):.6g})")
    return w


def _safe_sum(w) -> float:
    with np.errstate(over="ignore"):
        return float(np.sum(w))


def as_mask(name: str, value, shapes) -> np.ndarray:
    """An attention mask as an additive float array (0 = visible, ``-inf`` = hidden).

    Two conventions are accepted, told apart by dtype:

    - **boolean** (torch's ``scaled_dot_product_attention`` convention): ``True`` = this query
      may attend to this key (keep), ``False`` = hidden; converted to 0 / ``-inf``;
    - **real**: an additive bias added to the scores, holding 0, ``-inf`` or any finite bias.

    ``shapes`` lists the allowed shapes.
    """
    if isinstance(value, np.ndarray) and value.dtype.kind == "b" or _all_bools(value):
        m = np.asarray(value, dtype=bool)
        m = np.where(m, 0.0, -np.inf)
    else:
        m = as_real_array(name, value, allow_neg_inf=True)
    if m.shape not in [tuple(s) for s in shapes]:
        want = " or ".join(str(tuple(s)) for s in shapes)
        raise ValueError(f"{name} must have shape {want}, got {m.shape}")
    return m


def queries_and_keys(q, k) -> tuple:
    """``q`` and ``k`` as scaled dot-product attention takes them: ``(n_q, d)`` and ``(n_k, d)``,
    or ``(heads, n_q, d)`` and ``(heads, n_k, d)`` — one rank, one head dimension d ≥ 1, as many
    heads, at least one position each. ``(q, k)`` as float64 arrays."""
    q_arr = as_real_array("q", q, ndim=(2, 3))
    k_arr = as_real_array("k", k, ndim=(2, 3))
    if q_arr.ndim != k_arr.ndim:
        raise ValueError(f"q and k must have the same rank, got q {q_arr.shape} and k {k_arr.shape}")
    if q_arr.shape[-1] < 1:
        raise ValueError(f"the head dimension d must be >= 1, got q {q_arr.shape}")
    if q_arr.shape[-1] != k_arr.shape[-1]:
        raise ValueError(
            f"q and k must share the last dimension d, got q {q_arr.shape} and k {k_arr.shape}")
    if q_arr.ndim == 3 and q_arr.shape[0] != k_arr.shape[0]:
        raise ValueError(
            f"q and k must have the same number of heads, got q {q_arr.shape} and k {k_arr.shape}")
    if q_arr.shape[-2] < 1 or k_arr.shape[-2] < 1:
        raise ValueError(f"q and k need at least one position, got q {q_arr.shape} and k {k_arr.shape}")
    return q_arr, k_arr


def attention_rows(name: str, value, *, atol: float = 1e-3) -> np.ndarray:
    """Attention patterns ``(…, n, n)``: entries in ``[0, 1]`` and every row summing to 1, both
    within ``atol`` (float32 rows of a few hundred keys sum to 1 within ~1e-5; 1e-3 also admits
    patterns stored at lower precision). Float dtypes are kept."""
    arr = as_real_array(name, value, keep_float_dtype=True)
    if arr.ndim < 2 or arr.shape[-1] != arr.shape[-2]:
        raise ValueError(f"{name} must be attention patterns of shape (…, n, n), got shape {arr.shape}")
    with quiet_overflow():
        sums = arr.sum(axis=-1, dtype=np.float64)
    if arr.min() < -atol or arr.max() > 1 + atol or np.abs(sums - 1).max() > atol:
        raise ValueError(f"{name} must be attention patterns: weights in [0, 1] whose rows sum to 1, got "
                         f"weights {float(arr.min()):.4g} … {float(arr.max()):.4g} and row sums "
                         f"{float(sums.min()):.4g} … {float(sums.max()):.4g}")
    return arr


def positions(name: str, value, length: int) -> np.ndarray:
    """A non-empty list of positions in a sequence of ``length`` (negative counts from the end, as
    :func:`index`) → an int64 array of non-negative positions."""
    if value is None or isinstance(value, (str, bytes, dict, set)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{name} must be a list of positions, got {_kind(value)}")
    if isinstance(value, np.ndarray) and value.ndim != 1:
        raise ValueError(f"{name} must be a flat list of positions, got shape {value.shape}")
    out = np.array([index(name, p, length) for p in value], dtype=np.int64)
    if not len(out):
        raise ValueError(f"{name} must name at least one position, got none")
    return out


def _all_bools(value) -> bool:
    if isinstance(value, (list, tuple)):
        try:
            raw = asarray_strict(value)
        except (TypeError, ValueError):
            return False
        return raw.dtype.kind == "b"
    return False


def check_elements(names: str, count, limit: int = MAX_ELEMENTS, *, why: str | None = None) -> None:
    """Refuse an allocation (or an amount of work) of more than ``limit`` elements, naming the sizes
    responsible; ``why`` says what the limit protects (a sentence for the learner)."""
    if count > limit:
        reason = f" ({why})" if why else ""
        raise ValueError(f"{names} ask for {count:,} numbers at once (limit {limit:,}{reason}); choose smaller sizes")


def work_limit(name: str, value: int, limit: int, why: str) -> int:
    """Refuse a size that sets the work (resamples, random sets, sequences) above ``limit``, saying
    the limit and ``why`` it is there; ``value`` is an already checked integer."""
    if value > limit:
        raise ValueError(f"{name} must be at most {limit:,} ({why}), got {value:,}")
    return value


# ---- scalars ---------------------------------------------------------------------------------
def finite_scalar(name: str, value, *, low=None, high=None, low_open: bool = False,
                  high_open: bool = False) -> float:
    """Return ``value`` as a finite float within ``[low, high]`` (``low_open``/``high_open``
    make that end strict). Integers are converted; booleans and text are a ``TypeError``."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if not _is_real_scalar(value):
        raise TypeError(f"{name} must be a real number, got {_kind(value)}")
    try:
        out = float(value)
    except OverflowError:
        raise ValueError(f"{name} is too large to be a float, got {_kind(value)}") from None
    if not np.isfinite(out):
        raise ValueError(f"{name} must be a finite number, got {out!r}")
    if low is not None and (out < low or (low_open and out == low)):
        raise ValueError(f"{name} must be {'>' if low_open else '>='} {low}, got {out!r}")
    if high is not None and (out > high or (high_open and out == high)):
        raise ValueError(f"{name} must be {'<' if high_open else '<='} {high}, got {out!r}")
    return out


def positive_float(name: str, value) -> float:
    """Return ``value`` as a float, requiring it to be finite and > 0."""
    return finite_scalar(name, value, low=0.0, low_open=True)


def integer(name: str, value, *, low=None, high=None) -> int:
    """Return ``value`` (a Python or numpy integer, not a bool or a float) as an int in
    ``[low, high]``."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {_kind(value)}")
    out = int(value)
    if low is not None and out < low:
        raise ValueError(f"{name} must be >= {low}, got {out}")
    if high is not None and out > high:
        raise ValueError(f"{name} must be <= {high:,}, got {out:,}")
    return out


#: default upper limit of a size or count (a longer sequence, a wider head, … is refused with a message)
MAX_SIZE = 1_000_000


def positive_int(name: str, value, *, maximum: int = MAX_SIZE) -> int:
    """Return ``value`` as an int, requiring a whole number in ``1 … maximum``."""
    return integer(name, value, low=1, high=maximum)


def nonneg_int(name: str, value, *, maximum: int = MAX_SIZE) -> int:
    """Return ``value`` as an int, requiring a whole number in ``0 … maximum``."""
    return integer(name, value, low=0, high=maximum)


def whole_numbers(name: str, value, *, maximum: int = MAX_SIZE) -> np.ndarray:
    """A flat list or array of whole numbers in ``0 … maximum`` (positions, counts, steps; empty
    allowed) as an int64 array; ``3.0`` is accepted as 3, ``2.5`` or ``-1`` is a ``ValueError``."""
    arr = as_real_array(name, value, ndim=1, allow_empty=True)
    bad = (arr < 0) | (arr > maximum) | (arr != np.floor(arr))
    if bad.any():
        raise ValueError(f"{name} must hold whole numbers in 0…{maximum:,}, got {preview(arr[bad])}")
    return arr.astype(np.int64)


def index(name: str, value, length: int) -> int:
    """A position in a sequence of ``length`` items; negative counts from the end (Python's
    convention). Returns the non-negative position."""
    i = integer(name, value)
    if not -length <= i < length:
        raise ValueError(f"{name} must be a position in -{length}…{length - 1}, got {i}")
    return i % length


def seed(name: str, value) -> int:
    """A seed for ``numpy.random.default_rng``: an integer >= 0."""
    return integer(name, value, low=0, high=2 ** 64 - 1)


def seeds(name: str, value, *, limit: int = MAX_SIZE, why: str | None = None) -> tuple:
    """A non-empty list (tuple, range, flat array) of distinct seeds (:func:`seed`), each naming
    one draw: a repeated seed would count one draw twice. More than ``limit`` of them is refused,
    saying ``why`` the limit is there when given (:func:`work_limit`)."""
    if isinstance(value, np.ndarray) and value.ndim > 1:
        raise ValueError(f"{name} must be a flat list of seeds, got an array of shape {value.shape}")
    if why is not None and hasattr(value, "__len__") and not isinstance(value, (str, bytes, dict, set, frozenset)):
        work_limit(f"len({name})", len(value), limit, why)
    out = tuple(seed(name, s) for s in entries(name, value, "seeds", limit=limit))
    if not out:
        raise ValueError(f"{name} must name at least one seed, got none")
    if len(set(out)) < len(out):
        raise ValueError(f"{name} must be distinct (each seed names one draw), got {out!r:.60}")
    return out


def float_dtype(name: str, value) -> np.dtype:
    """A floating numpy dtype (``np.float32``, ``"float64"``, …)."""
    try:
        dtype = np.dtype(value)
    except TypeError:
        dtype = None
    if dtype is None or dtype.kind != "f":
        raise TypeError(f"{name} must be a floating type such as numpy.float32 or numpy.float64, got {_kind(value)}")
    return dtype


def boolean(name: str, value) -> bool:
    """``True``/``False`` (Python or numpy booleans only)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {_kind(value)}")
    return bool(value)


def text(name: str, value) -> str:
    """A string."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, got {_kind(value)}")
    return value


def instance(name: str, value, cls, what: str | None = None):
    """Require ``value`` to be an instance of ``cls`` (a class or a tuple of classes)."""
    if not isinstance(value, cls):
        if what is None:
            classes = cls if isinstance(cls, tuple) else (cls,)
            what = " or ".join(c.__name__ for c in classes)
        raise TypeError(f"{name} must be a {what}, got {_kind(value)}")
    return value


def choice(name: str, value, options):
    """Return ``value`` if it is one of ``options``; otherwise name the choices."""
    if isinstance(value, (np.ndarray, list, dict, set)):
        ok = False  # an array is never one option (and `in` would compare it elementwise)
    elif isinstance(value, (bool, np.bool_)) and not any(isinstance(o, (bool, np.bool_)) for o in options):
        ok = False  # True == 1 in Python: do not let a boolean pass for the option 1
    else:
        try:
            ok = value in options
        except (TypeError, ValueError):  # unhashable value against a dict/set of options
            ok = False
    if not ok:
        raise ValueError(f"{name} must be one of {list(options)}, got {_kind(value)}")
    return value


#: the name older modules use
one_of = choice


# ---- results ---------------------------------------------------------------------------------
@contextmanager
def quiet_overflow():
    """Run numpy arithmetic without overflow/invalid warnings; check the result with
    :func:`finite_result` (a warning in a notebook output is noise; a clear error is not)."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
        yield


def finite_result(value, culprits: str, what: str) -> np.ndarray:
    """Raise if ``value`` (a computed result) holds NaN or ±inf: ``culprits`` names the caller's
    arguments that are too large, ``what`` the quantity that overflowed."""
    arr = np.asarray(value)
    if not np.isfinite(arr).all():
        raise ValueError(f"{culprits} too large: {what} overflows float64; use smaller values")
    return value


def magnitude_bound(names: str, *factors, limit: float = 1e150) -> None:
    """Refuse inputs whose product of magnitudes could overflow later arithmetic: the product of
    ``factors`` (largest absolute values, sizes) must stay below ``limit``. Checked in log space,
    so the check itself cannot overflow; ``names`` are the arguments blamed."""
    logs = [np.log10(float(f)) if f > 0 else -np.inf for f in factors]
    if sum(logs) > np.log10(limit):
        raise ValueError(f"{names} too large: products of their entries would overflow float64 "
                         f"(largest magnitudes {', '.join(f'{float(f):.3g}' for f in factors)}); use smaller values")


def max_abs(arr) -> float:
    """Largest absolute entry of a finite array (0 for an empty one)."""
    return float(np.max(np.abs(arr))) if np.size(arr) else 0.0


def token_ids(name: str, value, vocab_size: int, *, min_length: int = 1) -> np.ndarray:
    """A 1-D sequence of integer token ids in ``0 … vocab_size − 1`` (float ids are refused, not
    truncated), with at least ``min_length`` entries."""
    if value is None or isinstance(value, (str, bytes, dict, set)):
        raise TypeError(f"{name} must be a list or array of integer token ids, got {_kind(value)}")
    try:
        raw = asarray_strict(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a flat list of integer token ids, got a ragged {type(value).__name__}") from None
    if raw.dtype.kind not in "iu" and not (raw.size == 0 and raw.dtype.kind == "f"):
        raise TypeError(f"{name} must hold integer token ids, got {_kind(raw)}")
    if raw.ndim != 1:
        raise ValueError(f"{name} must be a 1-D sequence of token ids, got shape {raw.shape}")
    if len(raw) == 0 and min_length == 1:
        raise ValueError(f"{name} must be a non-empty sequence of token ids, got an empty one")
    if len(raw) < min_length:
        raise ValueError(f"{name} needs at least {min_length} token ids, got {len(raw)}")
    if len(raw) and (raw.min() < 0 or raw.max() >= vocab_size):
        raise ValueError(f"{name}: token ids must be in 0…{vocab_size - 1}, got {raw.min()}…{raw.max()}")
    return raw.astype(np.int64)


def _index(name: str, value, upper: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must hold integer {what} indices, got {value!r} ({type(value).__name__})")
    if not 0 <= value < upper:
        raise ValueError(f"{name}: {what} index {value} is out of range 0…{upper - 1}")
    return int(value)


def entries(name: str, value, what: str, *, limit: int = MAX_SIZE) -> list:
    """``value`` (a list, tuple, range or array) as a list of its first-axis entries; text, a mapping, a set or a single
    number is a ``TypeError`` naming ``name`` (``what`` says what the entries are). More than
    ``limit`` entries is a ``ValueError`` (checked before the list is built where the length is known)."""
    if isinstance(value, (str, bytes, dict, set, frozenset)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{name} must be a list of {what}, got {_kind(value)}")
    if isinstance(value, np.ndarray) and value.ndim == 0:
        raise TypeError(f"{name} must be a list of {what}, got {_kind(value)}")
    if hasattr(value, "__len__") and len(value) > limit:
        raise ValueError(f"{name} must hold at most {limit:,} {what}, got {len(value):,}")
    return list(value)



def grid_shape(name: str, value) -> tuple:
    """A ``(layers, heads)`` pair of positive sizes."""
    if isinstance(value, (str, bytes, dict)) or not isinstance(value, (tuple, list, np.ndarray)) or len(value) != 2:
        raise TypeError(f"{name} must be a (layers, heads) pair, got {_kind(value)}")
    return tuple(positive_int(name, s) for s in value)


def head_indices(name: str, value, num_heads: int) -> tuple:
    """Sorted distinct head indices in ``0…num_heads − 1`` (``None`` → none); ``12_heads_at_work``."""
    if value is None:
        return ()
    return tuple(sorted({_index(name, h, num_heads, "head") for h in entries(name, value, "head indices")}))


def head_pair(name: str, value, num_layers: int, num_heads: int) -> tuple:
    """One ``(layer, head)`` pair, checked as :func:`head_pairs` checks each (``12_heads_at_work``)."""
    (layer, (head,)), = head_pairs(name, [value], num_layers, num_heads).items()
    return layer, head


def head_pairs(name: str, value, num_layers: int, num_heads: int) -> dict:
    """``{layer: (heads…)}`` from ``(layer, head)`` pairs (``None`` → ``{}``); ``12_heads_at_work``."""
    if value is None:
        return {}
    by_layer: dict = {}
    for pair in entries(name, value, "(layer, head) pairs"):
        if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or np.ndim(pair) == 0 or len(pair) != 2:
            raise TypeError(f"{name} must hold (layer, head) pairs, got {pair!r}")
        layer = _index(name, pair[0], num_layers, "layer")
        by_layer.setdefault(layer, set()).add(_index(name, pair[1], num_heads, "head"))
    return {layer: tuple(sorted(heads)) for layer, heads in sorted(by_layer.items())}


#: how the words of :mod:`helpers.interventions` are written, for the messages of :func:`interventions`
INTERVENTION_SPELLING = "Zero(), Mean(), Replace(z) or Patch(q=…, k=…, v=…)"


def interventions(name: str, value, num_layers: int, num_heads: int) -> dict:
    """A forward pass's ``interventions`` (``None`` or ``{(layer, head): intervention}``) checked:
    ``{(layer, head): intervention}`` with plain-int keys, in layer order. An intervention is
    anything with ``checked`` and ``apply`` methods (the words of :mod:`helpers.interventions`, each
    of which checks its own arrays against the model); ``name`` is the argument as the caller wrote it."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise TypeError(f"{name} must be a dict {{(layer, head): {INTERVENTION_SPELLING}}}, e.g. {{(1, 0): Zero()}}, "
                        f"got {short_preview(value)}")
    checked = {}
    for key, item in value.items():
        layer, head = head_pair(f"{name}'s keys", key, num_layers, num_heads)
        if isinstance(item, type) or not all(callable(getattr(item, m, None)) for m in ("checked", "apply")):
            hint = f" (a class: write {item.__name__}() with brackets)" if isinstance(item, type) else ""
            raise TypeError(f"{name}[{key!r}] must be {INTERVENTION_SPELLING}{hint}, got {short_preview(item)}")
        checked[(layer, head)] = item
    return dict(sorted(checked.items()))

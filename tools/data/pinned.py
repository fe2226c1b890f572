"""The one pinned environment of the data generators (``make circuit-data``, ``make head-scan``, ``make sender-screen``).

The same code gives different last bits on different CPUs: OpenBLAS picks its kernels by CPU, numpy
dispatches AVX2/AVX-512 loops, and glibc's ``exp``/``log`` have FMA variants. A generator calls
:func:`pin` first: it re-executes the script under :func:`pinned_env` (one BLAS thread with
OpenBLAS's :data:`BLAS_CORE` kernels, numpy's dispatched features off, glibc's FMA/AVX2 libm variants
off) and checks that it took, so the file it writes is the same on every x86-64 Linux with glibc
≥ 2.28 (where it cannot hold, :func:`unpinnable` says why). The bit-for-bit test of the circuit
sweep runs the generator the same way.
"""
from __future__ import annotations

import os
import platform
import sys

#: OpenBLAS's kernels for Nehalem (SSE4.2, x86-64-v2, numpy 2's own baseline): every x86-64 CPU has them
BLAS_CORE = "Nehalem"
#: glibc's libm variants chosen by CPU (``exp``, ``log``, ``pow`` with FMA): off, so the SSE2 code runs
#: (the names since glibc 2.33, then the older ``*_Usable`` spelling; unknown names are ignored)
LIBM_OFF = ("AVX2", "FMA", "FMA4", "AVX2_Usable", "FMA_Usable")
MIN_GLIBC = (2, 28)   # glibc's exp/log/pow are the same code since 2.28


def _umath():
    try:
        from numpy._core import _multiarray_umath as umath
    except ImportError:   # numpy 1.x
        from numpy.core import _multiarray_umath as umath
    return umath


def dispatched_on() -> list:
    """Those of numpy's dispatched features in use in this process (none under :func:`pinned_env`)."""
    return [name for name in _dispatched_features() if _umath().__cpu_features__.get(name)]


def _dispatched_features() -> list:
    """numpy's CPU features above its baseline (those it picks at run time), as this numpy names them."""
    return list(_umath().__cpu_dispatch__)


def pinned_env() -> dict:
    """The environment variables under which the stored runs are trained and retrained."""
    return {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "OPENBLAS_CORETYPE": BLAS_CORE,
            "NPY_DISABLE_CPU_FEATURES": " ".join(_dispatched_features()),
            "GLIBC_TUNABLES": "glibc.cpu.hwcaps=" + ",".join("-" + name for name in LIBM_OFF)}


def is_pinned(environ=None) -> bool:
    """Whether ``environ`` (default: this process's) holds every variable of :func:`pinned_env`."""
    environ = os.environ if environ is None else environ
    if not hasattr(environ, "get") or not hasattr(environ, "items"):
        raise TypeError(f"environ must be a mapping of environment variables, got {type(environ).__name__} {environ!r:.60}")
    return all(environ.get(k) == v for k, v in pinned_env().items())


def unpinnable():
    """Why :func:`pinned_env` cannot give the stored bits on this machine, or ``None`` where it can."""
    machine = platform.machine().lower()
    if machine not in ("x86_64", "amd64"):
        return f"the stored runs pin x86-64 kernels (OpenBLAS {BLAS_CORE}, SSE2 libm); this machine is {machine}"
    libc, version = platform.libc_ver()
    parts = tuple(int(x) for x in version.split(".")[:2] if x.isdigit())
    if libc != "glibc" or parts < MIN_GLIBC:
        return (f"the stored runs pin glibc's SSE2 exp/log (glibc ≥ {MIN_GLIBC[0]}.{MIN_GLIBC[1]}); "
                f"this machine has {libc or 'no glibc'} {version}")
    return None


def pin() -> None:
    """Re-execute this process's command line (``python -m tools.data.<generator> …``, as it was typed)
    under :func:`pinned_env`, once; in the re-executed process, check that OpenBLAS runs
    :data:`BLAS_CORE` and numpy no dispatched feature."""
    name = os.path.basename(sys.argv[0])
    if not is_pinned():
        reason = unpinnable()
        if reason:
            raise SystemExit(f"{name}: {reason}")
        os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]], {**os.environ, **pinned_env()})
    from threadpoolctl import threadpool_info  # a test tool: only the generators need it

    cores = {i.get("architecture") for i in threadpool_info() if i.get("internal_api") == "openblas"}
    if cores != {BLAS_CORE} or dispatched_on():
        raise SystemExit(f"{name}: the pinned environment did not take: OpenBLAS cores "
                         f"{sorted(map(str, cores))}, numpy features still on {dispatched_on()}")

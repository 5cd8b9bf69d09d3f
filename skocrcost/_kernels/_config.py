"""Which paths the compiled kernels may take: one small configuration, set for a block.

As scikit-learn's ``config_context``: a dict of defaults, copied per thread on first
use, changed for the duration of a ``with kernel_config(...)`` block.  Every choice
only selects among implementations that give bit for bit the same results: the
switches exist so that tests can compare each fast path with the plain one and
benchmarks can time each.
"""

import math
import numbers
import threading
from contextlib import contextmanager

from ._constants import SIMD_LEVELS

_DEFAULTS = {
    "simd": "auto",
    "bitparallel": True,
    "grid": True,
    "rows": True,
    "rows_share": 0.4,
}
_global_config = dict(_DEFAULTS)
_threadlocal = threading.local()
# Called with this thread's configuration after each change: the compiled kernel keeps
# a C copy of what ``distance`` reads (src/_options.h).
_on_change = []


def _get_threadlocal_config():
    """This thread's configuration (a copy of the global one, made on first use)."""
    if not hasattr(_threadlocal, "config"):
        _threadlocal.config = _global_config.copy()
    return _threadlocal.config


def get_kernel_config():
    """The current kernel configuration, as a dict (a copy: change it with ``kernel_config``).

    Returns
    -------
    config : dict
        Keys ``simd``, ``bitparallel``, ``grid``, ``rows`` and ``rows_share``; see
        :func:`kernel_config`.
    """
    return _get_threadlocal_config().copy()


def _check(name, value):
    if name == "simd":
        if value != "auto" and value not in SIMD_LEVELS:
            raise ValueError(f"simd must be 'auto' or one of {SIMD_LEVELS}, got {value!r}")
    elif name == "rows_share":
        if (
            isinstance(value, bool)
            or not isinstance(value, numbers.Real)
            or not (math.isfinite(value) and 0.0 <= value <= 1.0)
        ):
            raise ValueError(f"rows_share must be a number in [0, 1], got {value!r}")
        return float(value)
    elif not isinstance(value, (bool, numbers.Integral)) or value not in (0, 1):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    else:
        return bool(value)
    return value


def set_kernel_config(simd=None, bitparallel=None, grid=None, rows=None, rows_share=None):
    """Set kernel options for this thread until changed again (``None`` leaves one as it is).

    Prefer :func:`kernel_config`, which restores the previous values.  The
    parameters are those of :func:`kernel_config`.
    """
    given = {
        "simd": simd,
        "bitparallel": bitparallel,
        "grid": grid,
        "rows": rows,
        "rows_share": rows_share,
    }
    checked = {k: _check(k, v) for k, v in given.items() if v is not None}
    _update(checked)


def _update(values):
    config = _get_threadlocal_config()
    config.update(values)
    for apply in _on_change:
        apply(config)


@contextmanager
def kernel_config(*, simd=None, bitparallel=None, grid=None, rows=None, rows_share=None):
    """Choose, for a block, which compiled paths the distance kernels may take.

    Every path computes the same distances, bit for bit; the options exist to
    compare a fast path with the plain one (tests) or to time each (benchmarks).
    As scikit-learn's ``config_context``, the choice holds in this thread for the
    block, and ``None`` leaves an option as it is.

    Parameters
    ----------
    simd : {"auto", "baseline", "avx2", "avx512"}, optional
        The vector code of the SIMD kernels: "auto" (the default) is the best the
        CPU runs; a level the CPU lacks falls back to the highest it has below.
    bitparallel : bool, optional
        Unit costs (every edit 1) may take the bit-parallel kernels (default True);
        False runs them on the DP.
    grid : bool, optional
        Costs that are whole multiples of one power of two may run on int32 steps
        (default True); False runs them on doubles.
    rows : bool, optional
        Few OCR strings against many truth strings on a grid may take the rows
        kernel (default True); False runs the lanes.
    rows_share : float in [0, 1], optional
        The rows kernel skips the characters a truth string shares at its start
        with the one before when at most this fraction of the columns remains
        (default 0.4; 0 never skips, 1 always does).

    Examples
    --------
    >>> from skocrcost import WeightedLevenshtein, kernel_config
    >>> metric = WeightedLevenshtein()
    >>> with kernel_config(bitparallel=False):  # the DP, not the bit-vectors
    ...     metric.pairwise(["kitten"], ["sitting"])
    array([[3.]])
    """
    old = _get_threadlocal_config().copy()
    set_kernel_config(
        simd=simd, bitparallel=bitparallel, grid=grid, rows=rows, rows_share=rows_share
    )
    try:
        yield
    finally:
        _update(old)

"""Which compiled path a call takes, chosen in Python from the kernel, the input and the
configuration (``kernel_config``).

As scikit-learn's ``_pairwise_distances_reduction/_dispatcher.py``: each path says
whether it is usable for a call (``is_usable_for``) and the first usable one in
``PAIRWISE_PATHS`` runs.  The compiled kernel asks this module at each call and
takes the answer as arguments: no choice lives in a C global.  Every path gives
the same distances, bit for bit; they differ in speed only.
"""

from ._config import _get_threadlocal_config
from ._constants import (
    PATH_BITPARALLEL,
    PATH_LANES,
    PATH_PAIRS,
    PATH_ROWS,
    ROWS_MAX_CHARS,
    SIMD_LEVELS,
)

# Up to this many OCR strings take the rows kernel: beyond (about 100 against SCOWL,
# with its lane groups already built), the lanes' per-group profile is faster
# (benchmarks/one_query.py measures both).
ROWS_MAX_X = 64


def simd_index(config, cpu_level):
    """The SIMD level to run (an index of SIMD_LEVELS): the configured one, at most the CPU's."""
    wanted = config["simd"]
    if wanted == "auto":
        return cpu_level
    return min(SIMD_LEVELS.index(wanted), cpu_level)


class _Call:
    """What a path needs to know of one ``pairwise`` call."""

    def __init__(self, kernel, nx, xlongest, ylongest):
        self.kernel, self.nx, self.xlongest, self.ylongest = kernel, nx, xlongest, ylongest

    def on_grid(self, config):
        """Whether the costs may run on int32 grid steps for strings of these lengths."""
        return bool(config["grid"]) and self.kernel._fits_grid(self.xlongest, self.ylongest)


class BitParallel:
    """Unit costs (every edit 1): bit-vectors, 16 truth strings a block (src/_unit.h)."""

    code = PATH_BITPARALLEL

    @staticmethod
    def is_usable_for(call, config):
        return bool(call.kernel.unit and config["bitparallel"])


class Rows:
    """Few OCR strings (each at most ROWS_MAX_CHARS) against many truth strings, on a grid:
    an OCR string's characters in the lanes, the truth strings read in order (src/_rows.h)."""

    code = PATH_ROWS

    @staticmethod
    def is_usable_for(call, config):
        return bool(
            config["rows"]
            and call.nx <= ROWS_MAX_X
            and call.xlongest <= ROWS_MAX_CHARS
            and call.on_grid(config)
        )


class Lanes:
    """Dense tables: truth strings of similar length in SIMD lanes, on int32 grid steps
    when the costs allow, else on doubles (src/_lanes.h)."""

    code = PATH_LANES

    @staticmethod
    def is_usable_for(call, config):
        return bool(call.kernel.dense)


class Pairs:
    """Any table (dense or CSR): the two-row DP, one pair at a time."""

    code = PATH_PAIRS

    @staticmethod
    def is_usable_for(call, config):
        return True


PAIRWISE_PATHS = (BitParallel, Rows, Lanes, Pairs)


def pairwise_plan(kernel, nx, xlongest, ylongest, cpu_level):
    """``(path, level, grid, rows_share)`` for ``kernel.pairwise(X, Y)``: ``nx`` OCR
    strings of at most ``xlongest`` characters, truth strings of at most ``ylongest``.

    ``path`` is the code of the first usable path of PAIRWISE_PATHS, ``level`` the
    SIMD level to run, ``grid`` whether int32 grid steps may be used (the lanes, and
    the DP of unit-cost pairs too long for a lane), ``rows_share`` the rows kernel's
    threshold for skipping shared starts.
    """
    config = _get_threadlocal_config()
    call = _Call(kernel, nx, xlongest, ylongest)
    path = next(p for p in PAIRWISE_PATHS if p.is_usable_for(call, config))
    if path is BitParallel:
        grid = bool(config["grid"])  # for its DP fallback, which checks the bound pair by pair
    else:
        grid = path is Rows or (path is Lanes and call.on_grid(config))
    return path.code, simd_index(config, cpu_level), grid, config["rows_share"]


def on_grid(kernel, xlongest, ylongest):
    """Whether ``pairwise`` of strings of at most these lengths may run on int32 grid steps."""
    return _Call(kernel, 0, xlongest, ylongest).on_grid(_get_threadlocal_config())


def simd_plan(cpu_level):
    """The SIMD level a call runs now."""
    return simd_index(_get_threadlocal_config(), cpu_level)

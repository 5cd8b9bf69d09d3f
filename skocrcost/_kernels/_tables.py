"""Plain-Python preparation of cost tables, shared by the compiled kernels and their twins.

Both :mod:`._cost_kernel` and :mod:`._cost_kernel_py` read a table through these
functions (which path it may take: bit-parallel for unit costs, int32 lanes on a
grid) and check a lexicon's unit-cost match table with them.
"""

import numpy as np

from ._constants import BP_LANES, GRID_BITS


def unit_costs(sub_src, sub_tgt, sub_cost, rowdef, coldef, ins, dele):
    """Whether every edit of these tables costs exactly 1 (a match 0): plain Levenshtein.

    Read by the compiled kernel too, to route such tables to the bit-parallel path.
    An unlisted substitution ``s -> t`` costs ``rowdef[s] + coldef[t]`` (``rowdef[0]``
    for ``s = 0``); float addition is monotone, so checking each row against the
    smallest and the largest ``coldef`` covers every column in O(V), not O(V^2).  That
    is conservative: listed costs of 1 hiding other defaults read as not unit, and
    take the DP, which is always right.  Equal ids >= 1 are a match, whatever they list.
    """
    sub_src, sub_tgt = np.asarray(sub_src), np.asarray(sub_tgt)
    sub_cost, rowdef, coldef = (np.asarray(x, dtype=float) for x in (sub_cost, rowdef, coldef))
    rows = rowdef[1:]
    return bool(
        np.all(np.asarray(ins) == 1.0)
        and np.all(np.asarray(dele) == 1.0)
        and rowdef[0] == 1.0
        and np.all(sub_cost[(sub_src != sub_tgt) | (sub_src == 0)] == 1.0)
        and np.all(rows + coldef.min() == 1.0)
        and np.all(rows + coldef.max() == 1.0)
    )


def grid_tables(dense, ins, dele):
    """The dense tables as whole numbers of their coarsest grid step, or None.

    Returns ``(step, dense, ins, dele)`` with ``step = 2**-s`` for the smallest
    ``s <= GRID_BITS`` such that every cost is a multiple of ``step`` below
    ``2**30`` steps (a cost minus two others stays above -2**31), the tables as
    int32 numbers of steps.  Sums of such costs are
    exact in double arithmetic (they are whole numbers of steps far below 2**53),
    so a DP on the int32 steps gives exactly the double DP's distances.  Read by
    the compiled kernel to route such tables to its int32 lanes.  A cost on the
    grid of ``2**-s`` is on every finer one, so ``s`` is found by bisection, and
    the coarsest grid leaves the most room below 2**30.
    """
    arrays = [np.asarray(a, dtype=float) for a in (dense, ins, dele)]
    costs = np.concatenate([a.ravel() for a in arrays])
    if not (np.all(np.isfinite(costs)) and costs.min(initial=0.0) >= 0.0):
        return None

    def on_grid(bits):
        with np.errstate(over="ignore"):  # huge costs: inf steps, refused below
            steps = np.ldexp(costs, bits)
        return bool(np.all(steps == np.rint(steps)))

    if not on_grid(GRID_BITS):
        return None
    lo, hi = 0, GRID_BITS
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if on_grid(mid) else (mid + 1, hi)
    if costs.max(initial=0.0) >= 2.0 ** (30 - lo):
        return None
    return (2.0**-lo, *(np.ldexp(a, lo).astype(np.int32) for a in arrays))


def check_unit_table(n_x, alphabet, table, lane_mask, yoff, ycp, g0, out):
    """The arguments of ``_pairwise_unit_table`` must fit together (``unit_table``'s layout)."""
    ny = len(yoff) - 1
    nblocks = (ny + BP_LANES - 1) // BP_LANES
    if (
        table.shape[0] != len(alphabet) + 1
        or table.shape[1] != nblocks * BP_LANES
        or lane_mask.shape[0] != table.shape[1]
        or yoff[ny] > len(ycp)
    ):
        raise ValueError("the table does not match the lexicon: build it with unit_table")
    if out.shape[0] != n_x or g0 < 0 or g0 * BP_LANES + out.shape[1] > ny:
        raise ValueError(f"out must have {n_x} rows and columns within the lexicon")

"""Pure-Python twin of :mod:`skocrcost._kernels._cost_kernel`: the same class, methods and results.

Written for clarity, not speed: the tests compare the compiled kernel with it
on random strings and random cost tables, and it documents what the kernel
computes.  Floating-point operations happen in the same order as in the kernel,
so results are bit-for-bit equal.
"""

import numpy as np

from ._constants import BP_LANES, GRID_BITS, OP_DEL, OP_INS, OP_MATCH, OP_SUB
from ._tables import check_unit_table, grid_tables, unit_costs

__all__ = [
    "BP_LANES",
    "GRID_BITS",
    "CostKernel",
    "bitparallel_distance",
    "bitparallel_scan",
    "check_unit_table",
    "grid_tables",
    "unit_costs",
]


def bitparallel_distance(a, b):
    """Unit-cost Levenshtein of ``a`` and ``b`` by bit-vectors (Hyyrö 2003), as an int.

    Twin of ``skc_bp_distance`` and of the lanes of ``skc_bp_block_run`` in
    ``_unit.h``: the DP column of pattern ``p`` (the longer string) after each
    character of text ``t`` is kept as its vertical +1 bits (``vp``) and -1 bits
    (``vn``); Python ints make one word as wide as any pattern.
    """
    p, t = (a, b) if len(a) >= len(b) else (b, a)
    if not p:
        return len(t)
    peq = {}
    for j, c in enumerate(p):
        peq[c] = peq.get(c, 0) | (1 << j)
    return bitparallel_scan(lambda c: peq.get(c, 0), len(p), t)


def bitparallel_scan(masks, m, t):
    """Levenshtein of a pattern of ``m >= 1`` characters and the text ``t``.

    ``masks(c)`` is the pattern's match mask of character ``c`` (bit j set where
    the pattern has ``c``): the scan of Hyyrö (2003) reads nothing else of it.
    """
    full = (1 << m) - 1
    vp, vn = full, 0
    for c in t:
        eq = masks(c)
        xv = eq | vn
        xh = (((eq & vp) + vp) ^ vp) | eq
        hp = (((vn | ~(xh | vp)) << 1) | 1) & full
        hn = ((vp & xh) << 1) & full
        vp = hn | (~(xv | hp) & full)
        vn = hp & xv
    # The last column, from its top cell (len(t)) down: +1 per vp bit, -1 per vn bit.
    return len(t) + vp.bit_count() - vn.bit_count()


class CostKernel:
    """Twin of ``_cost_kernel.CostKernel`` (see there for the parameters)."""

    def __init__(self, chars, sub_src, sub_tgt, sub_cost, rowdef, coldef, ins, dele, dense):
        self._set_tables(chars, sub_src, sub_tgt, sub_cost, rowdef, coldef, ins, dele, dense)

    def _set_tables(self, chars, sub_src, sub_tgt, sub_cost, rowdef, coldef, ins, dele, dense):
        self._args = (chars, sub_src, sub_tgt, sub_cost, rowdef, coldef, ins, dele, dense)
        self.dense = bool(dense)
        self.unit = unit_costs(sub_src, sub_tgt, sub_cost, rowdef, coldef, ins, dele)
        self._ids = {int(c): i + 1 for i, c in enumerate(chars)}
        self._explicit = {
            (int(s), int(t)): float(c) for s, t, c in zip(sub_src, sub_tgt, sub_cost, strict=True)
        }
        self._rowdef = [float(x) for x in rowdef]
        self._coldef = [float(x) for x in coldef]
        self._ins = [float(x) for x in ins]
        self._dele = [float(x) for x in dele]

    def _kernel_args(self):
        return self._args

    def _sub(self, ia, ib):
        if (ia, ib) in self._explicit:
            return self._explicit[(ia, ib)]
        if ia == 0:
            return self._rowdef[0]
        return self._rowdef[ia] + self._coldef[ib]

    def encode(self, s):
        ids = np.array([self._ids.get(ord(c), 0) for c in s], dtype=np.int32)
        return ids, np.array([ord(c) for c in s], dtype=np.uint32)

    def _table(self, a, b):
        """The full DP table and the move taken into each cell (0 diag, 1 up, 2 left)."""
        ai = [self._ids.get(ord(c), 0) for c in a]
        bi = [self._ids.get(ord(c), 0) for c in b]
        n, m = len(a), len(b)
        D = [[0.0] * (m + 1) for _ in range(n + 1)]
        move = [[0] * (m + 1) for _ in range(n + 1)]
        for j in range(m):
            D[0][j + 1] = D[0][j] + self._ins[bi[j]]
            move[0][j + 1] = 2
        for i in range(n):
            dl = self._dele[ai[i]]
            D[i + 1][0] = D[i][0] + dl
            move[i + 1][0] = 1
            for j in range(m):
                sub = 0.0 if a[i] == b[j] else self._sub(ai[i], bi[j])
                best, mv = D[i][j] + sub, 0
                if D[i][j + 1] + dl < best:
                    best, mv = D[i][j + 1] + dl, 1
                if D[i + 1][j] + self._ins[bi[j]] < best:
                    best, mv = D[i + 1][j] + self._ins[bi[j]], 2
                D[i + 1][j + 1] = best
                move[i + 1][j + 1] = mv
        return D, move, ai, bi

    def distance(self, a, b):
        if self.unit:
            return float(bitparallel_distance(a, b))
        return self._table(a, b)[0][len(a)][len(b)]

    def pairwise(self, X, Y, n_threads=1):
        out = np.empty((len(X), len(Y)), dtype=np.float64)
        for i, x in enumerate(X):
            for j, y in enumerate(Y):
                out[i, j] = self.distance(x, y)
        return out

    def _pairwise_unit_table(
        self, X, alphabet, table, lane_mask, longer, yoff, ycp, g0, out, n_threads=1
    ):
        """Twin: each short lexicon string's match masks read from ``table`` (its column)
        and scanned by the query; the longer strings by ``bitparallel_distance``."""
        if not self.unit:
            raise ValueError("_pairwise_unit_table needs unit costs")
        check_unit_table(len(X), alphabet, table, lane_mask, yoff, ycp, g0, out)
        rows = {int(c): r + 1 for r, c in enumerate(alphabet)}
        longer = set(np.asarray(longer).tolist())
        for c in range(out.shape[1]):
            y = g0 * BP_LANES + c
            column = table[:, y]
            m = int(lane_mask[y]).bit_count()
            word = "".join(map(chr, ycp[yoff[y] : yoff[y + 1]]))
            for i, x in enumerate(X):
                if y in longer:
                    out[i, c] = bitparallel_distance(x, word)
                elif m == 0:
                    out[i, c] = len(x)
                else:
                    out[i, c] = bitparallel_scan(
                        lambda ch, column=column: int(column[rows.get(ord(ch), 0)]), m, x
                    )

    def align(self, a, b):
        return self.align_batch([a], [b], 1, True)[:4]

    def _align_one(self, a, b):
        _, move, ai, bi = self._table(a, b)
        cols = []
        i, j = len(a), len(b)
        while i > 0 or j > 0:
            mv = move[i][j]
            if mv == 0:
                i, j = i - 1, j - 1
                if a[i] == b[j]:
                    cols.append((OP_MATCH, ord(a[i]), ord(b[j]), 0.0))
                else:
                    cols.append((OP_SUB, ord(a[i]), ord(b[j]), self._sub(ai[i], bi[j])))
            elif mv == 1:
                i -= 1
                cols.append((OP_DEL, ord(a[i]), -1, self._dele[ai[i]]))
            else:
                j -= 1
                cols.append((OP_INS, -1, ord(b[j]), self._ins[bi[j]]))
        return cols[::-1]

    def align_batch(self, X, Y, n_threads=1, costs=False):
        if len(X) != len(Y):
            raise ValueError(f"X and Y must have the same length, got {len(X)} and {len(Y)}")
        cols, pair = [], []
        for k, (a, b) in enumerate(zip(X, Y, strict=True)):
            one = self._align_one(a, b)
            cols.extend(one)
            pair.extend([k] * len(one))
        arr = list(zip(*cols, strict=True)) if cols else [(), (), (), ()]
        op = np.array(arr[0], dtype=np.int8)
        src = np.array(arr[1], dtype=np.int32)
        tgt = np.array(arr[2], dtype=np.int32)
        cost = np.array(arr[3], dtype=np.float64)
        pair = np.array(pair, dtype=np.int64)
        return (op, src, tgt, cost, pair) if costs else (op, src, tgt, pair)

"""Pure-Python twin of :mod:`skocrcost._kernels._edit_kernel`: the same class, methods and results.

Written for clarity: the tests compare the compiled kernel with it on random
strings and tables.  It performs the same floating-point operations in the same
order as the kernel (moves tried as diagonal, deletion, insertion,
transposition, then rules by end-list order).
"""

import math

import numpy as np

from ._constants import OP_DEL, OP_INS, OP_MATCH, OP_RULE, OP_SUB, OP_TRANS
from ._cost_kernel_py import CostKernel

DIAG, UP, LEFT, TRANS, RULE = 0, 1, 2, 3, 4
INF = math.inf


def softmin(x, y, scale):
    lo, hi = (x, y) if x < y else (y, x)
    if hi == INF:
        return lo
    return lo - math.log1p(math.exp(-scale * (hi - lo))) / scale


class EditKernel(CostKernel):
    """Twin of ``_edit_kernel.EditKernel`` (see there for the parameters)."""

    def __init__(self, chars, sub_src, sub_tgt, sub_cost, rowdef, coldef, ins, dele, dense,
                 match, trans_keys, trans_cost, trans_default, pieces, piece_off,
                 rule_src, rule_tgt, rule_cost):  # fmt: skip
        self._set_tables(chars, sub_src, sub_tgt, sub_cost, rowdef, coldef, ins, dele, dense)
        self._set_extra(match, trans_keys, trans_cost, trans_default, pieces, piece_off,
                        rule_src, rule_tgt, rule_cost)  # fmt: skip

    def _set_extra(self, match, trans_keys, trans_cost, trans_default, pieces, piece_off,
                   rule_src, rule_tgt, rule_cost):  # fmt: skip
        self._extra = (match, trans_keys, trans_cost, trans_default, pieces, piece_off,
                       rule_src, rule_tgt, rule_cost)  # fmt: skip
        self._n = len(self._rowdef)
        self._match = [float(x) for x in match]
        self._trans = {int(k): float(c) for k, c in zip(trans_keys, trans_cost, strict=True)}
        self._tdefault = float(trans_default)
        self._has_trans = self._tdefault < INF or any(c < INF for c in self._trans.values())
        off = [int(x) for x in piece_off]
        cps = [int(c) for c in pieces]
        self._pieces = [tuple(cps[off[k] : off[k + 1]]) for k in range(len(off) - 1)]
        self._rules = [
            (int(s), int(t), float(c))
            for s, t, c in zip(rule_src, rule_tgt, rule_cost, strict=True)
        ]
        self._by_pair = {(s, t): r for r, (s, t, _) in enumerate(self._rules)}
        self._sources = {s for s, _, _ in self._rules}
        self._targets = {t for _, t, _ in self._rules}

    def _kernel_args(self):
        return (*self._args, *self._extra)

    def _ends(self, x, side):
        """Per end position 0..len(x), the rule pieces (sources or targets) ending there."""
        used = self._sources if side else self._targets
        out = []
        for pos in range(len(x) + 1):
            here = [
                k
                for k in range(1, len(self._pieces))
                if k in used
                and len(self._pieces[k]) <= pos
                and tuple(x[pos - len(self._pieces[k]) : pos]) == self._pieces[k]
            ]
            if 0 in used:
                here.append(0)
            out.append(here)
        return out

    def _tcost(self, ia, ib):
        if ia == 0 or ib == 0:
            return self._tdefault
        return self._trans.get(ia * self._n + ib, self._tdefault)

    def _cell_moves(self, a, b, ai, bi, ends_a, ends_b, i, j):
        """The moves into (i, j) in the kernel's order: (move, from_i, from_j, cost)."""
        moves = []
        if i > 0 and j > 0:
            if a[i - 1] == b[j - 1]:
                c = self._match[ai[i - 1]]
            else:
                c = self._sub(ai[i - 1], bi[j - 1])
            moves.append((DIAG, i - 1, j - 1, c))
        if i > 0:
            moves.append((UP, i - 1, j, self._dele[ai[i - 1]]))
        if j > 0:
            moves.append((LEFT, i, j - 1, self._ins[bi[j - 1]]))
        if (
            self._has_trans
            and i > 1
            and j > 1
            and a[i - 2] != a[i - 1]
            and a[i - 2] == b[j - 1]
            and a[i - 1] == b[j - 2]
        ):
            moves.append((TRANS, i - 2, j - 2, self._tcost(ai[i - 2], ai[i - 1])))
        if self._rules:
            for k in ends_a[i]:
                for l in ends_b[j]:  # noqa: E741
                    r = self._by_pair.get((k, l))
                    if r is not None:
                        p, q = len(self._pieces[k]), len(self._pieces[l])
                        moves.append((RULE + r, i - p, j - q, self._rules[r][2]))
        return moves

    def _prepare(self, a, b):
        ai = [self._ids.get(ord(c), 0) for c in a]
        bi = [self._ids.get(ord(c), 0) for c in b]
        ac, bc = [ord(c) for c in a], [ord(c) for c in b]
        return ac, bc, ai, bi, self._ends(ac, True), self._ends(bc, False)

    def _table(self, a, b, soft=False, scale=1.0):
        ac, bc, ai, bi, ea, eb = self._prepare(a, b)
        n, m = len(a), len(b)
        D = [[0.0] * (m + 1) for _ in range(n + 1)]
        move = [[-1] * (m + 1) for _ in range(n + 1)]
        for i in range(n + 1):
            for j in range(m + 1):
                if i == 0 and j == 0:
                    continue
                best, mv = INF, -1
                for k, (code, fi, fj, c) in enumerate(
                    self._cell_moves(ac, bc, ai, bi, ea, eb, i, j)
                ):
                    x = D[fi][fj] + c
                    if soft and k > 0:
                        best = softmin(best, x, scale)
                    elif mv < 0 or x < best:
                        best, mv = x, code
                D[i][j] = best
                move[i][j] = mv
        return D, move, (ac, bc, ai, bi, ea, eb)

    def distance(self, a, b):
        return self._table(a, b)[0][len(a)][len(b)]

    def soft_distance(self, a, b, scale=1.0):
        if not scale > 0:
            raise ValueError(f"scale must be > 0, got {scale!r}")
        return self._table(a, b, True, scale)[0][len(a)][len(b)]

    def soft_distance_batch(self, X, Y, scale=1.0, n_threads=1):
        if len(X) != len(Y):
            raise ValueError(f"X and Y must have the same length, got {len(X)} and {len(Y)}")
        return np.array([self.soft_distance(a, b, scale) for a, b in zip(X, Y)], dtype=float)

    def _align_one(self, a, b):
        _, move, (ac, bc, ai, bi, _, _) = self._table(a, b)
        cols = []
        i, j = len(a), len(b)
        while i > 0 or j > 0:
            mv = move[i][j]
            if mv == DIAG:
                i, j = i - 1, j - 1
                if ac[i] == bc[j]:
                    cols.append((OP_MATCH, ac[i], bc[j], self._match[ai[i]]))
                else:
                    cols.append((OP_SUB, ac[i], bc[j], self._sub(ai[i], bi[j])))
            elif mv == UP:
                i -= 1
                cols.append((OP_DEL, ac[i], -1, self._dele[ai[i]]))
            elif mv == LEFT:
                j -= 1
                cols.append((OP_INS, -1, bc[j], self._ins[bi[j]]))
            elif mv == TRANS:
                i, j = i - 2, j - 2
                cols.append((OP_TRANS, ac[i], ac[i + 1], self._tcost(ai[i], ai[i + 1])))
            else:
                r = mv - RULE
                s, t, c = self._rules[r]
                cols.append((OP_RULE, r, r, c))
                i -= len(self._pieces[s])
                j -= len(self._pieces[t])
        return cols[::-1]

    def expected_counts(self, X, Y, scale=1.0, n_threads=1):
        if len(X) != len(Y):
            raise ValueError(f"X and Y must have the same length, got {len(X)} and {len(Y)}")
        if not scale > 0:
            raise ValueError(f"scale must be > 0, got {scale!r}")
        n = self._n
        single = np.zeros((n, n))
        trans = np.zeros((n, n))
        rules = np.zeros(len(self._rules))
        loglik = np.empty(len(X))
        for p, (a, b) in enumerate(zip(X, Y, strict=True)):
            F, _, prep = self._table(a, b, True, scale)
            ac, bc, ai, bi, ea, eb = prep
            na, mb = len(a), len(b)
            total = F[na][mb]
            loglik[p] = -scale * total
            if total == INF:
                continue
            # Backward: every edge into a cell, from the cell it leaves.  B[i][j] is the
            # soft cost from (i, j) to the end; cells are finished in reverse order.
            B = [[INF] * (mb + 1) for _ in range(na + 1)]
            B[na][mb] = 0.0
            edges = {}
            for i in range(na + 1):
                for j in range(mb + 1):
                    for code, fi, fj, c in self._cell_moves(ac, bc, ai, bi, ea, eb, i, j):
                        edges.setdefault((fi, fj), []).append((code, i, j, c))
            for i in range(na, -1, -1):
                for j in range(mb, -1, -1):
                    if i == na and j == mb:
                        continue
                    best = INF
                    for code, ti, tj, c in sorted(
                        edges.get((i, j), []), key=lambda e: _backward_order(e, i, j)
                    ):
                        x = c + B[ti][tj]
                        best = softmin(best, x, scale)
                        post = math.exp(-scale * (F[i][j] + x - total))
                        if code == DIAG:
                            if ac[i] == bc[j]:
                                single[ai[i], ai[i]] += post
                            else:
                                single[ai[i], bi[j]] += post
                        elif code == UP:
                            single[ai[i], 0] += post
                        elif code == LEFT:
                            single[0, bi[j]] += post
                        elif code == TRANS:
                            trans[ai[i], ai[i + 1]] += post
                        else:
                            rules[code - RULE] += post
                    B[i][j] = best
        return single, trans, rules, loglik


def _backward_order(edge, i, j):
    """The kernel's order of the edges leaving (i, j): diagonal, deletion, insertion,
    transposition, then rules by source length p, then target length q."""
    code, ti, tj, _ = edge
    if code < RULE:
        return (code, 0, 0, 0)
    return (RULE, ti - i, tj - j, 0)

# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The general edit DP: match costs, transpositions and multi-character edits.

``EditKernel`` extends :class:`skocrcost._kernels._cost_kernel.CostKernel` (same alphabet, same
single-character tables, same encoding) with

* a cost for matching each character (0 for a Levenshtein metric; ``-weight``
  for LingPipe's weighted edit distance),
* transpositions of two adjacent different characters (optimal string
  alignment): ``xy`` read where the truth has ``yx``,
* multi-character edits ("rules"): a source piece of the OCR string replaced by
  a target piece of the truth, either of which may be empty or longer than one
  character (``rn -> m``, ``m -> rn``, ``cl -> d``).

Costs may be ``inf`` (the edit is forbidden).  Where each rule can apply is
found once per string, as per-position lists of the pieces that end there; the
DP then only visits those lists.  ``soft`` DPs replace the minimum by the
soft minimum ``-log(sum exp(-scale * cost)) / scale``: with costs that are
negative log-probabilities, that is the forward algorithm (the sum over all
alignments, in log space).  ``expected_counts`` runs forward and backward and
adds each edit's posterior probability into count arrays (Ristad & Yianilos'
EM step).  The pure-Python twin is :mod:`skocrcost._kernels._edit_kernel_py`.
"""

import numpy as np

from cython.parallel cimport parallel, prange
from libc.math cimport INFINITY, exp, log1p
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

from skocrcost._kernels._cost_kernel cimport (
    MOVE_DIAG, MOVE_LEFT, MOVE_RULE, MOVE_TRANS, MOVE_UP, OP_RULE, OP_TRANS, CostKernel,
    EncodedY, Table, back_step, cp_t, lookup, sub_cost,
)
from ._cost_kernel import _align_columns, _no_columns

cdef extern from "_omp.h":
    int skc_threads(int wanted) nogil

# Largest DP matrix (cells) one alignment or forward-backward may allocate: 12-16
# bytes per cell.
MAX_ALIGN_CELLS = 1 << 25

# expected_counts sums the pairs in at most this many fixed ranges, with at most this
# many bytes of count buffers (wide alphabets get fewer ranges, hence fewer threads).
EXPECTED_RANGES = 64
EXPECTED_BUFFER_BYTES = 256 << 20


cdef struct Extra:
    const double* match         # n: cost of matching a character, by id
    const int64_t* tptr         # listed transpositions, CSR by first id (n + 1)
    const int32_t* tsecond      # their second ids, sorted within a first id
    const double* tcost
    double tdefault             # any other transposition (inf: none)
    bint trans                  # whether any transposition has a finite cost
    const cp_t* pcp             # the pieces' code points, end to end; piece 0 is ""
    const int64_t* poff
    Py_ssize_t npieces
    const uint8_t* psrc         # piece is the source of some rule
    const uint8_t* ptgt         # piece is the target of some rule
    const int64_t* rptr         # rules by source piece (CSR over pieces)
    const int32_t* rtgt         # target piece of each rule, sorted within a source
    const double* rcost
    Py_ssize_t nrules
    Py_ssize_t maxp             # longest source piece
    Py_ssize_t maxq             # longest target piece
    const int32_t* rsrc         # source piece of each rule


cdef inline double softmin(double x, double y, double scale) noexcept nogil:
    """-log(exp(-scale x) + exp(-scale y)) / scale, exact for infinities."""
    cdef double lo = x if x < y else y
    cdef double hi = y if x < y else x
    if hi == INFINITY:
        return lo
    return lo - log1p(exp(-scale * (hi - lo))) / scale


cdef inline Py_ssize_t csr_find(const int64_t* indptr, const int32_t* indices,
                                Py_ssize_t row, int32_t col) noexcept nogil:
    """Index of ``col`` among row ``row``'s sorted ``indices``, or -1."""
    cdef int64_t lo = indptr[row], hi = indptr[row + 1], mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if indices[mid] < col:
            lo = mid + 1
        else:
            hi = mid
    if lo < indptr[row + 1] and indices[lo] == col:
        return lo
    return -1


cdef inline double trans_cost(const Table* t, const Extra* e, int ia, int ib) noexcept nogil:
    cdef Py_ssize_t k
    if ia == 0 or ib == 0:
        return e.tdefault
    k = csr_find(e.tptr, e.tsecond, ia, ib)
    return e.tcost[k] if k >= 0 else e.tdefault


cdef inline Py_ssize_t find_rule(const Extra* e, int32_t k, int32_t l) noexcept nogil:
    return csr_find(e.rptr, e.rtgt, k, l)


cdef Py_ssize_t piece_ends(const Extra* e, const cp_t* x, Py_ssize_t n, bint src,
                           int64_t* ptr, int32_t* lst, int64_t start) noexcept nogil:
    """Per end position 0..n, the pieces (sources or targets of rules) ending there.

    Writes ``ptr[0..n+1]`` (absolute indices into ``lst``, from ``start``) and,
    unless ``lst`` is NULL, the piece ids: nonempty pieces by id, then the empty
    piece.  Returns the number of entries.
    """
    cdef const uint8_t* used = e.psrc if src else e.ptgt
    cdef Py_ssize_t pos, k, p, s
    cdef int64_t w = start
    cdef bint ok
    for pos in range(n + 1):
        ptr[pos] = w
        for k in range(1, e.npieces):
            if not used[k]:
                continue
            p = e.poff[k + 1] - e.poff[k]
            if p > pos:
                continue
            ok = True
            for s in range(p):
                if x[pos - p + s] != e.pcp[e.poff[k] + s]:
                    ok = False
                    break
            if ok:
                if lst != NULL:
                    lst[w] = <int32_t> k
                w += 1
        if e.npieces > 0 and used[0]:
            if lst != NULL:
                lst[w] = 0
            w += 1
    ptr[n + 1] = w
    return w - start


cdef double edit_dp(const Table* t, const Extra* e,
                    const int32_t* aid, const cp_t* acp, Py_ssize_t n,
                    const int64_t* aptr, const int32_t* alst,
                    const int32_t* bid, const cp_t* bcp, Py_ssize_t m,
                    const int64_t* bptr, const int32_t* blst,
                    double* D, Py_ssize_t R, int32_t* moves,
                    bint soft, double scale) noexcept nogil:
    """The DP over all moves; D holds R rows of m + 1 (R > max(2, longest source)).

    Hard mode takes the cheapest move (ties: diagonal, deletion, insertion,
    transposition, rules in list order) and, when ``moves`` is given (then
    R = n + 1), records it; soft mode combines all moves by ``softmin``.
    Returns D[n, m].
    """
    cdef Py_ssize_t i, j, w = m + 1, ka, lb, p, q, r
    cdef double best, x, dl = 0.0, tc = 0.0
    cdef int32_t mv, k, l
    cdef double* row
    cdef const double* prev = NULL     # row i - 1
    cdef const double* prev2 = NULL    # row i - 2
    cdef int ia = 0
    cdef cp_t ca = 0
    cdef bint swap
    for i in range(n + 1):
        # Row pointers and the OCR character's costs once per row, not per cell.
        row = D + (i % R) * w
        if i > 0:
            prev = D + ((i - 1) % R) * w
            ia = aid[i - 1]
            ca = acp[i - 1]
            dl = t.dele[ia]
        if i > 1:
            prev2 = D + ((i - 2) % R) * w
        swap = e.trans and i > 1 and acp[i - 2] != ca
        if swap:
            tc = trans_cost(t, e, aid[i - 2], ia)
        for j in range(m + 1):
            if i == 0 and j == 0:
                row[0] = 0.0
                if moves != NULL:
                    moves[0] = -1
                continue
            best = INFINITY
            mv = -1
            if i > 0 and j > 0:
                if ca == bcp[j - 1]:
                    x = prev[j - 1] + e.match[ia]
                else:
                    x = prev[j - 1] + sub_cost(t, ia, bid[j - 1])
                best = x
                mv = MOVE_DIAG
            if i > 0:
                x = prev[j] + dl
                if soft:
                    best = softmin(best, x, scale)
                elif mv < 0 or x < best:
                    best = x
                    mv = MOVE_UP
            if j > 0:
                x = row[j - 1] + t.ins[bid[j - 1]]
                if soft:
                    best = softmin(best, x, scale)
                elif mv < 0 or x < best:
                    best = x
                    mv = MOVE_LEFT
            if swap and j > 1 and acp[i - 2] == bcp[j - 1] and ca == bcp[j - 2]:
                x = prev2[j - 2] + tc
                if soft:
                    best = softmin(best, x, scale)
                elif mv < 0 or x < best:
                    best = x
                    mv = MOVE_TRANS
            if e.nrules:
                for ka in range(aptr[i], aptr[i + 1]):
                    k = alst[ka]
                    if e.rptr[k] == e.rptr[k + 1]:
                        continue
                    p = e.poff[k + 1] - e.poff[k]
                    for lb in range(bptr[j], bptr[j + 1]):
                        l = blst[lb]
                        r = find_rule(e, k, l)
                        if r < 0:
                            continue
                        q = e.poff[l + 1] - e.poff[l]
                        x = D[((i - p) % R) * w + j - q] + e.rcost[r]
                        if soft:
                            best = softmin(best, x, scale)
                        elif mv < 0 or x < best:
                            best = x
                            mv = <int32_t> (MOVE_RULE + r)
            row[j] = best
            if moves != NULL:
                moves[i * w + j] = mv
    return D[(n % R) * w + m]


cdef double edit_backward(const Table* t, const Extra* e,
                          const int32_t* aid, const cp_t* acp, Py_ssize_t n,
                          const int64_t* aptr, const int32_t* alst,
                          const int32_t* bid, const cp_t* bcp, Py_ssize_t m,
                          const int64_t* bptr, const int32_t* blst,
                          const double* F, double* B, double scale,
                          double* mcount, double* tcount, double* rcount) noexcept nogil:
    """Backward soft DP into B (full, (n+1)(m+1)); adds each edge's posterior to the counts.

    ``F`` is the full forward matrix.  B[i, j] is the soft cost from (i, j) to
    (n, m).  An edge from (i0, j0) to (i, j) of cost c has posterior
    ``exp(-scale (F[i0, j0] + c + B[i, j] - F[n, m]))``; it is added to
    ``mcount[src_id * n_ids + tgt_id]`` (id 0 = the gap side; matches on the
    diagonal), ``tcount[first_id * n_ids + second_id]`` or ``rcount[rule]``.
    Visits the cells in reverse order, so edges leave from finished cells.
    """
    cdef Py_ssize_t i, j, w = m + 1, ka, lb, p, q, r, nid = t.n
    cdef double total = F[n * w + m], best, x, c, post
    cdef int32_t k, l
    cdef int ia, ib
    for i in range(n, -1, -1):
        for j in range(m, -1, -1):
            if i == n and j == m:
                B[i * w + j] = 0.0
                continue
            best = INFINITY
            if i < n and j < m:
                ia = aid[i]
                ib = bid[j]
                if acp[i] == bcp[j]:
                    c = e.match[ia]
                else:
                    c = sub_cost(t, ia, ib)
                x = c + B[(i + 1) * w + j + 1]
                best = softmin(best, x, scale)
                post = exp(-scale * (F[i * w + j] + x - total))
                if acp[i] == bcp[j]:
                    mcount[ia * nid + ia] += post
                else:
                    mcount[ia * nid + ib] += post
            if i < n:
                x = t.dele[aid[i]] + B[(i + 1) * w + j]
                best = softmin(best, x, scale)
                mcount[aid[i] * nid] += exp(-scale * (F[i * w + j] + x - total))
            if j < m:
                x = t.ins[bid[j]] + B[i * w + j + 1]
                best = softmin(best, x, scale)
                mcount[bid[j]] += exp(-scale * (F[i * w + j] + x - total))
            if (e.trans and i + 1 < n and j + 1 < m and acp[i] != acp[i + 1]
                    and acp[i] == bcp[j + 1] and acp[i + 1] == bcp[j]):
                x = trans_cost(t, e, aid[i], aid[i + 1]) + B[(i + 2) * w + j + 2]
                best = softmin(best, x, scale)
                tcount[aid[i] * nid + aid[i + 1]] += exp(-scale * (F[i * w + j] + x - total))
            if e.nrules:
                # Rules that start at (i, j) end at (i + p, j + q): look them up in the
                # end lists there.
                for p in range(0, e.maxp + 1):
                    if i + p > n:
                        break
                    for ka in range(aptr[i + p], aptr[i + p + 1]):
                        k = alst[ka]
                        if e.poff[k + 1] - e.poff[k] != p or e.rptr[k] == e.rptr[k + 1]:
                            continue
                        for q in range(0, min(e.maxq, m - j) + 1):
                            for lb in range(bptr[j + q], bptr[j + q + 1]):
                                l = blst[lb]
                                if e.poff[l + 1] - e.poff[l] != q:
                                    continue
                                r = find_rule(e, k, l)
                                if r < 0:
                                    continue
                                x = e.rcost[r] + B[(i + p) * w + j + q]
                                best = softmin(best, x, scale)
                                rcount[r] += exp(-scale * (F[i * w + j] + x - total))
            B[i * w + j] = best
    return B[0]


# Strings encoded end to end, with their per-position piece lists (see _encode_side).
cdef struct Side:
    const int64_t* off
    const int32_t* ids
    const cp_t* cps
    const int64_t* ptr
    const int32_t* lst


cdef Side side_of(const int64_t[::1] off, const int32_t[::1] ids, const cp_t[::1] cps,
                  const int64_t[::1] ptr, const int32_t[::1] lst):
    cdef Side s
    s.off = &off[0]
    s.ids = &ids[0]
    s.cps = &cps[0]
    s.ptr = &ptr[0]
    s.lst = &lst[0]
    return s


cdef inline double pair_dp(const Table* t, const Extra* e, const Side* x, Py_ssize_t i,
                           const Side* y, Py_ssize_t j, double* D, Py_ssize_t R,
                           int32_t* moves, bint soft, double scale) noexcept nogil:
    """edit_dp on string i of x against string j of y."""
    return edit_dp(t, e, x.ids + x.off[i], x.cps + x.off[i], x.off[i + 1] - x.off[i],
                   x.ptr + x.off[i] + 2 * i, x.lst,
                   y.ids + y.off[j], y.cps + y.off[j], y.off[j + 1] - y.off[j],
                   y.ptr + y.off[j] + 2 * j, y.lst, D, R, moves, soft, scale)


cdef class EditKernel(CostKernel):
    """CostKernel tables plus match costs, transpositions and multi-character rules.

    Parameters
    ----------
    chars, sub_src, sub_tgt, sub_cost, rowdef, coldef, ins, dele, dense
        As for :class:`skocrcost._kernels._cost_kernel.CostKernel`.
    match : array of float, shape (n_chars + 1,)
        Cost of matching each character by id (index 0: characters outside the alphabet).
    trans_keys : array of int64
        Sorted ``first_id * (n_chars + 1) + second_id`` of the listed transpositions.
    trans_cost : array of float
        Their costs.
    trans_default : float
        Cost of any other transposition of two different characters (``inf``: none).
    pieces : array of uint32
        Code points of the rules' pieces, end to end; ``piece_off`` (int64, P + 1)
        delimits them.  Piece 0 is the empty string; the others are distinct.
    rule_src, rule_tgt : array of int32
        Source and target piece of each rule, sorted by (source, target), unique.
    rule_cost : array of float
        Their costs.
    """

    cdef Extra e
    cdef readonly object _extra

    def __init__(self, chars, sub_src, sub_tgt, sub_cost, rowdef, coldef, ins, dele, dense,
                 match, trans_keys, trans_cost, trans_default, pieces, piece_off,
                 rule_src, rule_tgt, rule_cost):
        self._set_tables(chars, sub_src, sub_tgt, sub_cost, rowdef, coldef, ins, dele, dense)
        self._set_extra(match, trans_keys, trans_cost, trans_default, pieces, piece_off,
                        rule_src, rule_tgt, rule_cost)

    def _set_extra(self, match, trans_keys, trans_cost, trans_default, pieces, piece_off,
                   rule_src, rule_tgt, rule_cost):
        match = np.ascontiguousarray(match, dtype=np.float64)
        trans_keys = np.ascontiguousarray(trans_keys, dtype=np.int64)
        trans_cost = np.ascontiguousarray(trans_cost, dtype=np.float64)
        pieces = np.ascontiguousarray(pieces, dtype=np.uint32)
        piece_off = np.ascontiguousarray(piece_off, dtype=np.int64)
        rule_src = np.ascontiguousarray(rule_src, dtype=np.int32)
        rule_tgt = np.ascontiguousarray(rule_tgt, dtype=np.int32)
        rule_cost = np.ascontiguousarray(rule_cost, dtype=np.float64)
        if match.shape[0] != self.t.n:
            raise ValueError(f"match must have len(chars) + 1 = {self.t.n} entries")
        npieces = piece_off.shape[0] - 1
        if npieces < 1 or piece_off[0] != 0 or piece_off[1] != 0:
            raise ValueError("piece 0 must be the empty string")
        rptr = np.zeros(npieces + 1, dtype=np.int64)
        np.add.at(rptr, rule_src.astype(np.int64) + 1, 1)
        rptr = np.cumsum(rptr)
        psrc = np.zeros(npieces, dtype=np.uint8)
        ptgt = np.zeros(npieces, dtype=np.uint8)
        psrc[rule_src] = 1
        ptgt[rule_tgt] = 1
        lengths = np.diff(piece_off)
        maxp = int(lengths[rule_src].max()) if rule_src.shape[0] else 0
        maxq = int(lengths[rule_tgt].max()) if rule_tgt.shape[0] else 0
        trans_default = float(trans_default)
        tfirst, tsecond = np.divmod(trans_keys, self.t.n)
        tptr = np.zeros(self.t.n + 1, dtype=np.int64)
        np.add.at(tptr, tfirst + 1, 1)
        tptr = np.cumsum(tptr)
        tsecond = tsecond.astype(np.int32)
        self._extra = (match, trans_keys, trans_cost, trans_default, pieces, piece_off,
                       rule_src, rule_tgt, rule_cost, rptr, psrc, ptgt, tptr, tsecond)
        self._point_extra(match, tptr, tsecond, trans_cost, pieces, piece_off, rptr, psrc,
                          ptgt, rule_src, rule_tgt, rule_cost)
        self.e.tdefault = trans_default
        self.e.trans = bool(trans_default < INFINITY or np.any(trans_cost < INFINITY))
        self.e.maxp = maxp
        self.e.maxq = maxq

    cdef _point_extra(self, const double[::1] match, const int64_t[::1] tptr,
                      const int32_t[::1] tsecond, const double[::1] tcost, const cp_t[::1] pieces,
                      const int64_t[::1] poff, const int64_t[::1] rptr,
                      const uint8_t[::1] psrc, const uint8_t[::1] ptgt,
                      const int32_t[::1] rsrc, const int32_t[::1] rtgt,
                      const double[::1] rcost):
        self.e.match = &match[0]
        self.e.tptr = &tptr[0]
        self.e.tsecond = &tsecond[0] if tsecond.shape[0] else NULL
        self.e.tcost = &tcost[0] if tcost.shape[0] else NULL
        self.e.pcp = &pieces[0] if pieces.shape[0] else NULL
        self.e.poff = &poff[0]
        self.e.npieces = poff.shape[0] - 1
        self.e.rptr = &rptr[0]
        self.e.psrc = &psrc[0]
        self.e.ptgt = &ptgt[0]
        self.e.nrules = rtgt.shape[0]
        self.e.rsrc = &rsrc[0] if rsrc.shape[0] else NULL
        self.e.rtgt = &rtgt[0] if rtgt.shape[0] else NULL
        self.e.rcost = &rcost[0] if rcost.shape[0] else NULL

    def _kernel_args(self):
        return (*CostKernel._kernel_args(self), *self._extra[:9])

    def __reduce__(self):
        return (type(self), self._kernel_args())

    def _ends(self, offsets, cps, bint src):
        """Per string, per end position, the rule pieces ending there (see piece_ends)."""
        cdef const int64_t[::1] off = offsets
        cdef const cp_t[::1] vc = cps
        cdef Py_ssize_t k, ns = off.shape[0] - 1, total = 0
        ptr = np.empty(max(off[ns] + 2 * ns, 1), dtype=np.int64)
        cdef int64_t[::1] vp = ptr
        for k in range(ns):
            total += piece_ends(&self.e, &vc[off[k]] if off[k + 1] > off[k] else NULL,
                                off[k + 1] - off[k], src, &vp[off[k] + 2 * k], NULL, total)
        lst = np.empty(max(total, 1), dtype=np.int32)
        cdef int32_t[::1] vl = lst
        total = 0
        for k in range(ns):
            total += piece_ends(&self.e, &vc[off[k]] if off[k + 1] > off[k] else NULL,
                                off[k + 1] - off[k], src, &vp[off[k] + 2 * k], &vl[0], total)
        return ptr, lst

    def _encode_side(self, list strings, bint src):
        offsets, ids, cps = self._encode_list(strings, "X" if src else "Y")
        ptr, lst = self._ends(offsets, cps, src)
        return offsets, ids, cps, ptr, lst

    def _y_side(self, EncodedY enc):
        """``_encode_side(Y, False)`` of the strings of ``enc``, their pieces found once."""
        ends = enc.derived("ends", self._ends, enc.offsets, enc.cps, False)
        return (enc.offsets, self._y_ids(enc), enc.cps, *ends)

    cdef Py_ssize_t _rows(self):
        return max(self.e.maxp, 2) + 1

    def distance(self, str a not None, str b not None):
        """Cheapest total cost of the edits turning ``a`` (OCR side) into ``b`` (truth side)."""
        return self._one(a, b, False, 1.0)

    def soft_distance(self, str a not None, str b not None, double scale=1.0):
        """``-log(sum over all edit sequences of exp(-scale * cost)) / scale``."""
        if not scale > 0:
            raise ValueError(f"scale must be > 0, got {scale!r}")
        return self._one(a, b, True, scale)

    cdef double _one(self, str a, str b, bint soft, double scale) except? -1.0:
        """One pair without arrays or threads: C buffers, the DP with the GIL released."""
        self._check()
        cdef Py_ssize_t n = len(a), m = len(b), R = self._rows(), na, nb
        cdef int32_t* ids = <int32_t*> malloc((n + m + 1) * sizeof(int32_t))
        cdef cp_t* cps = <cp_t*> malloc((n + m + 1) * sizeof(cp_t))
        cdef int64_t* ptr = <int64_t*> malloc((n + m + 4) * sizeof(int64_t))
        cdef double* D = <double*> malloc(R * (m + 1) * sizeof(double))
        cdef int32_t* lst = NULL
        cdef double result
        try:
            if ids == NULL or cps == NULL or ptr == NULL or D == NULL:
                raise MemoryError()
            self._encode_into(a, ids, cps)
            self._encode_into(b, ids + n, cps + n)
            na = piece_ends(&self.e, cps, n, True, ptr, NULL, 0)
            nb = piece_ends(&self.e, cps + n, m, False, ptr + n + 2, NULL, na)
            lst = <int32_t*> malloc((na + nb + 1) * sizeof(int32_t))
            if lst == NULL:
                raise MemoryError()
            piece_ends(&self.e, cps, n, True, ptr, lst, 0)
            piece_ends(&self.e, cps + n, m, False, ptr + n + 2, lst, na)
            with nogil:
                result = edit_dp(&self.t, &self.e, ids, cps, n, ptr, lst,
                                 ids + n, cps + n, m, ptr + n + 2, lst, D, R, NULL,
                                 soft, scale)
        finally:
            free(ids)
            free(cps)
            free(ptr)
            free(D)
            free(lst)
        return result

    def soft_distance_batch(self, list X not None, list Y not None, double scale=1.0,
                            int n_threads=1):
        """``soft_distance(X[k], Y[k], scale)`` for every k."""
        if len(X) != len(Y):
            raise ValueError(f"X and Y must have the same length, got {len(X)} and {len(Y)}")
        if not scale > 0:
            raise ValueError(f"scale must be > 0, got {scale!r}")
        return self._batch(X, Y, n_threads, False, True, scale)

    def pairwise(self, list X not None, Y not None, int n_threads=1):
        """Distances from every string of X (rows) to every string of Y.

        Y is a list of str or an EncodedY of this kernel, as in ``CostKernel.pairwise``:
        a large Y passed again is not encoded again.
        """
        return self._batch(X, Y, n_threads, True, False, 1.0)

    def _batch(self, list X, Y, int n_threads, bint grid, bint soft, double scale):
        """Distances of every (X[i], Y[j]) if ``grid`` (rows X), else of the pairs (X[k], Y[k]).

        Only a grid's Y is kept encoded for the next call (``_encode_y``).
        """
        self._check()
        xs = self._encode_side(X, True)
        cdef EncodedY enc = self._encode_y(Y, grid)
        ys = self._y_side(enc)
        cdef Py_ssize_t nx = len(X), ny = enc.n
        cdef Py_ssize_t total = nx * ny if grid else nx
        # Filled flat; the grid's cell (i, j) is entry i * ny + j.
        flat = np.empty(total, dtype=np.float64)
        out = flat.reshape(nx, ny) if grid else flat
        if total == 0:
            return out
        cdef double[::1] vout = flat
        cdef Side x = side_of(xs[0], xs[1], xs[2], xs[3], xs[4])
        cdef Side y = side_of(ys[0], ys[1], ys[2], ys[3], ys[4])
        cdef Py_ssize_t R = self._rows()
        cdef Py_ssize_t maxm = int(np.diff(ys[0]).max())
        cdef Py_ssize_t p, i, j, failed = 0
        cdef double* work
        n_threads = skc_threads(n_threads)
        with nogil, parallel(num_threads=n_threads):
            work = <double*> malloc(R * (maxm + 1) * sizeof(double))
            for p in prange(total, schedule="dynamic", chunksize=32):
                i = p // ny if grid else p
                j = p - i * ny if grid else p
                if work != NULL:
                    vout[p] = pair_dp(&self.t, &self.e, &x, i, &y, j, work, R, NULL, soft, scale)
                else:
                    failed += 1
            free(work)
        if failed:
            raise MemoryError("could not allocate DP rows")
        return out

    def align(self, str a not None, str b not None):
        """One cheapest alignment of ``a`` to ``b``: ``(op, src, tgt, cost)``.

        Op codes: 0 match, 1 substitution, 2 deletion, 3 insertion, 4
        transposition (src, tgt: the first and second OCR characters), 5 rule
        (src = tgt = the rule's index).  Other columns carry code points, -1
        for a gap.
        """
        return self.align_batch([a], [b], 1, True)[:4]

    def align_batch(self, list X not None, list Y not None, int n_threads=1, bint costs=False):
        """Align ``X[k]`` to ``Y[k]`` for every k; columns of all pairs end to end.

        Returns ``(op, src, tgt, pair)`` (and ``cost`` before ``pair`` when ``costs``).
        """
        self._check()
        if len(X) != len(Y):
            raise ValueError(f"X and Y must have the same length, got {len(X)} and {len(Y)}")
        xs = self._encode_side(X, True)
        ys = self._encode_side(Y, False)
        cdef Py_ssize_t npairs = len(X)
        lx = np.diff(xs[0])
        ly = np.diff(ys[0])
        need, base, op, src, tgt, cost = _align_columns(lx, ly, MAX_ALIGN_CELLS)
        if cost.shape[0] == 0:
            return _no_columns(costs)
        cdef int8_t[::1] vop = op
        cdef int32_t[::1] vsrc = src
        cdef int32_t[::1] vtgt = tgt
        cdef double[::1] vcost = cost
        cdef const int64_t[::1] vbase = base
        cdef Side x = side_of(xs[0], xs[1], xs[2], xs[3], xs[4])
        cdef Side y = side_of(ys[0], ys[1], ys[2], ys[3], ys[4])
        cdef Py_ssize_t maxcells = int(need.max())
        cdef Py_ssize_t p, failed = 0
        cdef double* work
        cdef int32_t* moves
        n_threads = skc_threads(n_threads)
        with nogil, parallel(num_threads=n_threads):
            work = <double*> malloc(maxcells * sizeof(double))
            moves = <int32_t*> malloc(maxcells * sizeof(int32_t))
            for p in prange(npairs, schedule="dynamic", chunksize=64):
                if work != NULL and moves != NULL:
                    self._align_one(&x, &y, p, work, moves, &vop[0], &vsrc[0], &vtgt[0],
                                    &vcost[0], vbase[p + 1])
                else:
                    failed += 1
            free(work)
            free(moves)
        if failed:
            raise MemoryError("could not allocate alignment buffers")
        keep = op >= 0
        pair = np.repeat(np.arange(npairs, dtype=np.int64), lx + ly)[keep]
        if costs:
            return op[keep], src[keep], tgt[keep], cost[keep], pair
        return op[keep], src[keep], tgt[keep], pair

    cdef void _align_one(self, const Side* x, const Side* y, Py_ssize_t p, double* D,
                         int32_t* moves, int8_t* op, int32_t* src, int32_t* tgt,
                         double* cost, Py_ssize_t end) noexcept nogil:
        """Cheapest alignment of pair p, written backwards into [.., end).

        Each column costs what the DP took for it.
        """
        cdef const int32_t* aid = x.ids + x.off[p]
        cdef const cp_t* acp = x.cps + x.off[p]
        cdef const int32_t* bid = y.ids + y.off[p]
        cdef const cp_t* bcp = y.cps + y.off[p]
        cdef Py_ssize_t n = x.off[p + 1] - x.off[p], m = y.off[p + 1] - y.off[p]
        cdef Py_ssize_t i = n, j = m, w = m + 1, pos = end, r
        cdef int32_t mv
        pair_dp(&self.t, &self.e, x, p, y, p, D, n + 1, moves, False, 1.0)
        while i > 0 or j > 0:
            mv = moves[i * w + j]
            pos -= 1
            if back_step(&self.t, mv, self.e.match, aid, acp, bid, bcp, &i, &j,
                         &op[pos], &src[pos], &tgt[pos], &cost[pos]):
                continue
            if mv == MOVE_TRANS:
                i -= 2
                j -= 2
                op[pos] = OP_TRANS
                src[pos] = <int32_t> acp[i]
                tgt[pos] = <int32_t> acp[i + 1]
                cost[pos] = trans_cost(&self.t, &self.e, aid[i], aid[i + 1])
            else:
                r = mv - MOVE_RULE
                op[pos] = OP_RULE
                src[pos] = <int32_t> r
                tgt[pos] = <int32_t> r
                cost[pos] = self.e.rcost[r]
                i -= self.e.poff[self.e.rsrc[r] + 1] - self.e.poff[self.e.rsrc[r]]
                j -= self.e.poff[self.e.rtgt[r] + 1] - self.e.poff[self.e.rtgt[r]]

    def expected_counts(self, list X not None, list Y not None, double scale=1.0,
                        int n_threads=1):
        """Posterior expected counts of every edit over all alignments of each pair.

        Returns ``(single, trans, rules, loglik)``: ``single`` (n, n) float64 with
        rows OCR ids and columns truth ids (column 0: deletions, row 0:
        insertions, the diagonal: matches), ``trans`` (n, n) by (first, second)
        id, ``rules`` by rule index, and each pair's ``-scale * soft_distance``.
        Characters outside the alphabet count under id 0.
        """
        self._check()
        if len(X) != len(Y):
            raise ValueError(f"X and Y must have the same length, got {len(X)} and {len(Y)}")
        if not scale > 0:
            raise ValueError(f"scale must be > 0, got {scale!r}")
        xs = self._encode_side(X, True)
        ys = self._encode_side(Y, False)
        cdef Py_ssize_t npairs = len(X), nid = self.t.n
        n_threads = skc_threads(n_threads)
        # The pairs are cut into nbuf contiguous ranges, each summed in order into its
        # own buffer and the buffers summed in order: a number fixed by the sizes, not
        # by the threads, so the counts do not depend on n_threads in the last bits.
        nbuf = max(1, min(EXPECTED_RANGES, npairs,
                          EXPECTED_BUFFER_BYTES // (16 * nid * nid + 8 * self.e.nrules + 8)))
        single = np.zeros((nbuf, nid * nid), dtype=np.float64)
        trans = np.zeros((nbuf, nid * nid), dtype=np.float64)
        rules = np.zeros((nbuf, max(self.e.nrules, 1)), dtype=np.float64)
        loglik = np.empty(npairs, dtype=np.float64)
        if npairs == 0:
            return (single.sum(0).reshape(nid, nid), trans.sum(0).reshape(nid, nid),
                    rules.sum(0)[:self.e.nrules], loglik)
        lx = np.diff(xs[0])
        ly = np.diff(ys[0])
        cdef Py_ssize_t maxcells = int(((lx + 1) * (ly + 1)).max())
        if maxcells > MAX_ALIGN_CELLS:
            raise ValueError(f"strings too long for forward-backward ({maxcells} cells)")
        cdef double[:, ::1] vs = single
        cdef double[:, ::1] vt = trans
        cdef double[:, ::1] vr = rules
        cdef double[::1] vll = loglik
        cdef Side x = side_of(xs[0], xs[1], xs[2], xs[3], xs[4])
        cdef Side y = side_of(ys[0], ys[1], ys[2], ys[3], ys[4])
        cdef Py_ssize_t p, b, failed = 0, nb = nbuf
        cdef double* F
        cdef double* Bk
        cdef double f
        with nogil, parallel(num_threads=n_threads):
            F = <double*> malloc(maxcells * sizeof(double))
            Bk = <double*> malloc(maxcells * sizeof(double))
            for b in prange(nb, schedule="dynamic", chunksize=1):
                if F == NULL or Bk == NULL:
                    failed += 1
                    continue
                for p in range(b * npairs // nb, (b + 1) * npairs // nb):
                    f = pair_dp(&self.t, &self.e, &x, p, &y, p, F,
                                x.off[p + 1] - x.off[p] + 1, NULL, True, scale)
                    vll[p] = -scale * f
                    if f < INFINITY:
                        edit_backward(&self.t, &self.e,
                                      x.ids + x.off[p], x.cps + x.off[p],
                                      x.off[p + 1] - x.off[p], x.ptr + x.off[p] + 2 * p, x.lst,
                                      y.ids + y.off[p], y.cps + y.off[p],
                                      y.off[p + 1] - y.off[p], y.ptr + y.off[p] + 2 * p, y.lst,
                                      F, Bk, scale, &vs[b, 0], &vt[b, 0], &vr[b, 0])
            free(F)
            free(Bk)
        if failed:
            raise MemoryError("could not allocate forward-backward matrices")
        return (single.sum(0).reshape(nid, nid), trans.sum(0).reshape(nid, nid),
                rules.sum(0)[:self.e.nrules], loglik)

"""Declarations shared with the kernels that read the same cost tables (e.g. ``_lexicon_index``).

``Table`` and its two lookups live here so that every kernel reads the costs
through one piece of code; ``CostKernel`` owns the buffers a ``Table`` points into.
"""

from libc.stdint cimport int8_t, int32_t, int64_t, uint32_t

ctypedef uint32_t cp_t


# Edit kinds of an alignment column and moves of a direction matrix, for every kernel.
cdef enum:
    OP_MATCH = 0
    OP_SUB = 1
    OP_DEL = 2
    OP_INS = 3
    OP_TRANS = 4
    OP_RULE = 5
    MOVE_DIAG = 0
    MOVE_UP = 1         # consume an OCR character: deletion
    MOVE_LEFT = 2       # produce a truth character: insertion
    MOVE_TRANS = 3
    MOVE_RULE = 4       # rule r is move 4 + r


cdef struct Table:
    Py_ssize_t n                # ids 0 .. n-1; 0 = any other character
    const double* dense         # n * n, or NULL for the CSR layout
    const int64_t* indptr       # CSR of explicit substitution costs (n + 1)
    const int32_t* indices
    const double* data
    const double* rowdef        # unseen substitution s -> t costs rowdef[s] + coldef[t]
    const double* coldef
    const double* ins
    const double* dele
    const int32_t* lut          # code point -> id for code points < lut_size
    Py_ssize_t lut_size
    const cp_t* chars           # sorted alphabet; id of chars[i] is i + 1
    Py_ssize_t n_chars
    # Costs on a grid (CostKernel.grid_step), in int32 steps; gpot is NULL otherwise.
    const int32_t* gpot         # n * n: sub - del - ins, what a diagonal adds with potentials
    const int32_t* gins
    const int32_t* gdele
    int64_t gmax                # the largest cost, in steps
    double gstep


cdef inline int lookup(const Table* t, cp_t c) noexcept nogil:
    cdef Py_ssize_t lo = 0, hi = t.n_chars, mid
    if c < <cp_t> t.lut_size:
        return t.lut[c]
    while lo < hi:
        mid = (lo + hi) >> 1
        if t.chars[mid] < c:
            lo = mid + 1
        else:
            hi = mid
    if lo < t.n_chars and t.chars[lo] == c:
        return <int> (lo + 1)
    return 0


cdef inline double sub_cost(const Table* t, int ia, int ib) noexcept nogil:
    cdef int64_t lo, hi, mid, end
    if t.dense != NULL:
        return t.dense[ia * t.n + ib]
    lo = t.indptr[ia]
    end = t.indptr[ia + 1]
    hi = end
    while lo < hi:
        mid = (lo + hi) >> 1
        if t.indices[mid] < ib:
            lo = mid + 1
        else:
            hi = mid
    if lo < end and t.indices[lo] == ib:
        return t.data[lo]
    if ia == 0:
        return t.rowdef[0]
    return t.rowdef[ia] + t.coldef[ib]


cdef inline Py_ssize_t dp_work_size(Py_ssize_t m) noexcept nogil:
    """Doubles of work space dp_distance needs for a truth string of length m."""
    return 5 * m + 3


cdef double dp_distance(const Table* t, const int32_t* aid, const cp_t* acp, Py_ssize_t n,
                        const int32_t* bid, const cp_t* bcp, Py_ssize_t m,
                        double* work) noexcept nogil


cdef class EncodedY:
    cdef list strings              # a copy of the list encoded (its str objects kept alive)
    cdef readonly object tables    # the _arrays of the kernel that encoded them
    cdef readonly Py_ssize_t n
    cdef readonly Py_ssize_t longest
    cdef readonly object offsets   # int64 (n + 1)
    cdef readonly object cps       # uint32 code points, end to end
    cdef dict _derived             # what the pairwise paths derive from them, built on first use
    cdef bint same(self, list Y)


cdef class CostKernel:
    cdef Table t
    cdef object _last_y            # the EncodedY of the last large Y pairwise saw, or None
    cdef readonly object _arrays   # owns every buffer the Table points into
    cdef readonly bint dense
    cdef readonly bint unit        # every edit costs 1: the bit-parallel kernels apply
    cdef object _grid              # (step, dense, ins, dele, pot) in int32 steps, or None

    cdef _point(self, const cp_t[::1] chars, const int64_t[::1] indptr,
                const int32_t[::1] indices, const double[::1] data,
                const double[::1] rowdef, const double[::1] coldef,
                const double[::1] ins, const double[::1] dele, const int32_t[::1] lut,
                object table)
    cdef _point_grid(self)
    cdef int _check(self) except -1
    cdef _pairwise_pairs(self, double[:, ::1] vout, const int64_t[::1] xoff,
                         const int32_t[::1] xid, const cp_t[::1] xcp, const int64_t[::1] yoff,
                         const int32_t[::1] yid, const cp_t[::1] ycp, int n_threads)
    cdef _pairwise_lanes(self, double[:, ::1] vout, const int64_t[::1] xoff,
                         const int32_t[::1] xid, const cp_t[::1] xcp, EncodedY enc,
                         const int32_t[::1] yid, int n_threads, bint grid, int level)
    cdef _pairwise_rows(self, double[:, ::1] vout, const int64_t[::1] xoff,
                        const int32_t[::1] xid, const cp_t[::1] xcp, EncodedY enc,
                        const int32_t[::1] yid, int n_threads, double rows_share, int level)
    cdef _pairwise_unit(self, double[:, ::1] vout, const int64_t[::1] xoff,
                        const cp_t[::1] xcp, EncodedY enc, int n_threads, bint grid, int level)
    cdef _pairwise_long(self, double[:, ::1] vout, const int64_t[::1] xoff, const cp_t[::1] xcp,
                        const int64_t[::1] yoff, const cp_t[::1] ycp, rest_arr,
                        Py_ssize_t col0, int n_threads, bint grid)
    cdef _unsort_columns(self, double[:, ::1] vout, const int64_t[::1] order, int n_threads)
    cdef void _encode_into(self, str s, int32_t* ids, cp_t* cps) noexcept


cdef inline bint back_step(const Table* t, int mv, const double* match,
                           const int32_t* aid, const cp_t* acp, const int32_t* bid,
                           const cp_t* bcp, Py_ssize_t* i, Py_ssize_t* j, int8_t* op,
                           int32_t* src, int32_t* tgt, double* cost) noexcept nogil:
    """Undo one diagonal, up or left move of a backtrace into column (op, src, tgt, cost).

    A match costs ``match[id]`` (0 when ``match`` is NULL).  Returns False for any
    other move (transpositions, rules), which the caller's kernel undoes itself.
    """
    if mv == MOVE_DIAG:
        i[0] -= 1
        j[0] -= 1
        src[0] = <int32_t> acp[i[0]]
        tgt[0] = <int32_t> bcp[j[0]]
        if acp[i[0]] == bcp[j[0]]:
            op[0] = OP_MATCH
            cost[0] = 0.0 if match == NULL else match[aid[i[0]]]
        else:
            op[0] = OP_SUB
            cost[0] = sub_cost(t, aid[i[0]], bid[j[0]])
    elif mv == MOVE_UP:
        i[0] -= 1
        op[0] = OP_DEL
        src[0] = <int32_t> acp[i[0]]
        tgt[0] = -1
        cost[0] = t.dele[aid[i[0]]]
    elif mv == MOVE_LEFT:
        j[0] -= 1
        op[0] = OP_INS
        src[0] = -1
        tgt[0] = <int32_t> bcp[j[0]]
        cost[0] = t.ins[bid[j[0]]]
    else:
        return False
    return True

# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Edit-distance kernels over integer-encoded strings and dense (or CSR) cost tables.

Strings are read as code points and mapped to small integer ids by the table's
alphabet (id 0 is "any other character", which takes the default costs).  A
match is decided on code points, not ids, so two different unknown characters
are never a free match.  Every public method here has a pure-Python twin with
the same signature in :mod:`skocrcost._kernels._cost_kernel_py`; the tests hold the two equal.
"""

import numpy as np

cimport cython
from cython.parallel cimport parallel, prange, threadid
from libc.stdint cimport int8_t, int32_t, int64_t, uint16_t, uint32_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy
from cpython.list cimport PyList_New, PyList_SET_ITEM
from cpython.ref cimport PyObject, Py_INCREF

cdef extern from "Python.h":
    int PyUnicode_KIND(object o)
    void* PyUnicode_DATA(object o)
    Py_ssize_t PyUnicode_GET_LENGTH(object o)
    ctypedef unsigned char Py_UCS1
    ctypedef unsigned short Py_UCS2
    enum:
        PyUnicode_1BYTE_KIND
        PyUnicode_2BYTE_KIND
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t index) nogil
    # Borrowed, without touching the item's reference count (nor its memory).
    PyObject* list_item "PyList_GET_ITEM"(object o, Py_ssize_t i)

cdef extern from "_omp.h":
    int skc_omp_max_threads() nogil
    int skc_have_openmp() nogil
    int skc_threads(int wanted) nogil

cdef extern from "_lanes.h":
    enum: SKC_LANES
    enum: SKC_STRIP_D
    enum: SKC_STRIP_I
    size_t skc_lanes_work(Py_ssize_t mmax, Py_ssize_t nmax) nogil
    enum: SKC_ALIGN_SLACK
    double* skc_align64(void* raw) nogil
    void skc_gather_sub(const double* drow, cp_t ca, const int32_t* yid, const cp_t* ycp,
                        Py_ssize_t w, double* out) nogil
    void skc_lanes_load(const double* ins_tab, const int32_t* bid, const cp_t* bcp,
                        const int64_t* off, const int64_t* m, Py_ssize_t mmax,
                        double* work) nogil
    void skc_lanes_profile(const double* dense, Py_ssize_t n_ids, Py_ssize_t mmax,
                           const double* work, const cp_t* extra_cp, Py_ssize_t n_extra,
                           double* profile) nogil
    void skc_lanes_run(const double* dense, Py_ssize_t n_ids, const double* del_tab,
                       const int32_t* xid, const cp_t* xcp, const int32_t* xrow,
                       const int64_t* xo, Py_ssize_t nx, const int64_t* m, Py_ssize_t mmax,
                       double* work, const double* profile, const int64_t* cols, double* out,
                       Py_ssize_t ostride, int level) nogil
    void skc_lanes_load_i(const int32_t* ins_tab, const int32_t* bid, const cp_t* bcp,
                          const int64_t* off, const int64_t* m, Py_ssize_t mmax,
                          int32_t* work) nogil
    void skc_grid_profile(const int32_t* dense, Py_ssize_t n_ids, const int32_t* del_tab,
                          Py_ssize_t mmax, const int32_t* work, const cp_t* extra_cp,
                          Py_ssize_t n_extra, int32_t* profile) nogil
    void skc_lanes_run_i(const int32_t* dense, Py_ssize_t n_ids, const int32_t* del_tab,
                         const int32_t* xid, const cp_t* xcp, const int32_t* xrow,
                         const int64_t* xo, Py_ssize_t nx, const int64_t* m, Py_ssize_t mmax,
                         int32_t* work, const int32_t* profile, const int64_t* cols,
                         double step, double* out, Py_ssize_t ostride, int level) nogil
    int skc_simd_available() nogil

cdef extern from "_options.h":
    ctypedef struct skc_options:
        int bitparallel
        int grid
    skc_options* skc_thread_options() nogil

cdef extern from "_rows.h":
    Py_ssize_t skc_rows_width(Py_ssize_t n) nogil
    Py_ssize_t skc_rows_profile(const int32_t* gpot, Py_ssize_t n_ids, const int32_t* gdele,
                                const int32_t* gins, const int32_t* aid, const cp_t* acp,
                                Py_ssize_t n, Py_ssize_t width, cp_t* extra,
                                int32_t* prof) nogil
    void skc_rows_prefixes(const int64_t* co, const cp_t* cp, Py_ssize_t nk, int64_t* lcp,
                           int64_t* ccum) nogil
    void skc_rows_run(const int32_t* prof, Py_ssize_t width, Py_ssize_t n_ids,
                      const cp_t* extra, Py_ssize_t n_extra, const int32_t* yid,
                      const cp_t* ycp, const int64_t* co, const int64_t* lcp,
                      const int64_t* ccum, const int64_t* wid, Py_ssize_t k0, Py_ssize_t k1,
                      int64_t p, double step, int64_t* res, double* out, int level) nogil

cdef extern from "_unit.h":
    enum: SKC_BP_LANES
    enum: SKC_BP_LANE_BITS
    ctypedef struct skc_peq:
        pass
    ctypedef struct skc_bp_block:
        pass
    int64_t skc_bp_distance(skc_peq* q, const cp_t* a, Py_ssize_t n, const cp_t* b,
                            Py_ssize_t m) nogil
    skc_bp_block* skc_bp_block_new() nogil
    void skc_bp_block_free(skc_bp_block* blk) nogil
    void skc_bp_block_use(skc_bp_block* blk, Py_ssize_t g, const cp_t* cp, const int64_t* off,
                          Py_ssize_t count) nogil
    void skc_bp_block_run(const skc_bp_block* blk, const cp_t* t1, Py_ssize_t n1, double* row1,
                          const cp_t* t2, Py_ssize_t n2, double* row2, int level) nogil
    void skc_bp_table_run(const uint16_t* table, Py_ssize_t nblocks, const uint16_t* lane_mask,
                          const int32_t* rows, Py_ssize_t n, Py_ssize_t g0, Py_ssize_t g1,
                          Py_ssize_t ny, double* row, int level) nogil

from ._constants import (
    BP_LANES,
    PATH_BITPARALLEL,
    PATH_LANES,
    PATH_ROWS,
    ROWS_MAX_CHARS,
    SIMD_LEVELS,
)
from ._config import _get_threadlocal_config, _on_change
from ._dispatch import on_grid, pairwise_plan, simd_plan
from ._tables import check_unit_table, grid_tables, unit_costs

cdef enum:
    STACK = 64          # strings up to this length use stack buffers in distance()
    LUT_LIMIT = 0x10000
    # Largest substitution profile (doubles) pairwise builds per thread: 8 MiB.
    PROFILE_LIMIT = 1 << 20
    # X strings per call of the lanes kernels: on a grid, a call per string (each
    # clearing its row 0) cost 125 M user cycles against 102 M on the benchmark of 2,000
    # OCR words against 20,000 (docs/performance.md); on doubles it made no difference.
    X_CHUNK = 16
    # Truth strings per work item of the rows kernel.
    ROWS_CHUNK = 4096

# Largest direction matrix (bytes) one alignment may allocate.
MAX_ALIGN_CELLS = 1 << 30


def openmp_max_threads():
    """Threads OpenMP would use now (1 without OpenMP); threadpoolctl lowers it."""
    return skc_omp_max_threads()


def have_openmp():
    """Whether the kernels were compiled with OpenMP."""
    return bool(skc_have_openmp())


# Columns the lanes compute at a time, down every row (doubles, and int32 on a grid).
LANES_STRIP = SKC_STRIP_D
GRID_STRIP = SKC_STRIP_I


# The highest SIMD level this CPU runs (an index of SIMD_LEVELS), asked once.
cdef int CPU_LEVEL = skc_simd_available()
assert BP_LANES == SKC_BP_LANES
assert skc_rows_width(ROWS_MAX_CHARS) > 0 and skc_rows_width(ROWS_MAX_CHARS + 1) == 0


def simd_level():
    """The vector code ``pairwise`` runs now: "avx512", "avx2" or "baseline" (the best the
    CPU has, unless ``kernel_config(simd=...)`` asks for a lower one)."""
    return SIMD_LEVELS[simd_plan(CPU_LEVEL)]


def simd_levels():
    """The levels this CPU runs, lowest first (tests compare each with the twin)."""
    return list(SIMD_LEVELS[:CPU_LEVEL + 1])


def _apply_config(config):
    """Copy this thread's kernel_config into the options ``distance`` reads (_options.h)."""
    cdef skc_options* opts = skc_thread_options()
    opts.bitparallel = config["bitparallel"]
    opts.grid = config["grid"]


_on_change.append(_apply_config)
_apply_config(_get_threadlocal_config())


def _thread_options():
    """``(bitparallel, grid)`` as ``distance`` reads them on this thread (for the tests)."""
    cdef skc_options* opts = skc_thread_options()
    return bool(opts.bitparallel), bool(opts.grid)


cdef Py_ssize_t longest_str(list X):
    """The longest string of X, in code points (an item that is not a str counts 0:
    encoding X refuses it, naming it)."""
    cdef Py_ssize_t i, n, longest = 0
    for i in range(len(X)):
        item = X[i]
        if isinstance(item, str):
            n = PyUnicode_GET_LENGTH(item)
            if n > longest:
                longest = n
    return longest


def _first_not_exact_str(list X not None):
    """Index of the first item of X whose type is not exactly ``str``, or -1.

    Input validation calls this before its item-by-item Python loop, which
    takes seconds on the 600k tokens of a corpus.
    """
    cdef Py_ssize_t i
    for i in range(len(X)):
        if type(X[i]) is not str:
            return i
    return -1


# A Y of at least this many strings is kept encoded for the next pairwise call
# (CostKernel._encode_y): fewer encode in microseconds, and should not evict a lexicon.
KEEP_MIN_Y = 256


cdef class EncodedY:
    """The Y strings of ``pairwise`` encoded once by a kernel (``CostKernel._encode_y``).

    Holds a copy of the list of str objects (8 bytes per string; it keeps them
    alive, so that no other string can take their address), their offsets (int64)
    and code points (uint32), and in ``_derived`` what the pairwise paths build from
    them on first use: the ids (int32), the lane groups, the non-empty strings of
    the rows kernel, the pieces of the general kernel.  Nothing is changed after it
    is built except that entries are added to ``_derived`` (under the GIL, each one
    assignment of arrays that are never written again), so threads may share it.
    """

    def __reduce__(self):
        raise TypeError("EncodedY is not picklable: pickle the strings, or the metric")

    def __len__(self):
        return self.n

    def derived(self, key, build, *args):
        """``build(*args)`` (an array, or a tuple of arrays and None), made read-only and
        kept under ``key``, built on the first call for that key."""
        value = self._derived.get(key)
        if value is None:
            value = build(*args)
            value = tuple(map(frozen, value)) if type(value) is tuple else frozen(value)
            self._derived[key] = value
        return value

    cdef bint same(self, list Y):
        """Whether Y holds exactly these str objects, in this order.

        Pointer comparisons only, which read Y's array of pointers and not the
        objects (encoding them costs a cache miss or two per str).  A str is
        immutable and ``strings`` keeps these alive, so the same objects are the
        same text: a list changed in place, or another list of equal strings,
        reads as different (and is encoded again), never the other way round.
        """
        cdef Py_ssize_t k
        if len(Y) != self.n:
            return False
        for k in range(self.n):
            if list_item(Y, k) != list_item(self.strings, k):
                return False
        return True


def frozen(arr):
    """``arr``, made read-only (None stays None): arrays an EncodedY shares between calls
    and threads."""
    if arr is not None:
        arr.flags.writeable = False
    return arr


def long_strings(offsets):
    """The indices of the strings at ``offsets`` too long for a bit-parallel lane."""
    return np.flatnonzero(np.diff(offsets) > SKC_BP_LANE_BITS)


cdef inline void fill_subrow(const Table* t, int ia, cp_t ca, const int32_t* bid,
                             const cp_t* bcp, Py_ssize_t m, double* subrow) noexcept nogil:
    """Substitution costs of OCR character ``ca`` against every truth position (0 on a match)."""
    cdef Py_ssize_t j
    if t.dense != NULL:
        skc_gather_sub(t.dense + ia * t.n, ca, bid, bcp, m, subrow)
    else:
        for j in range(m):
            subrow[j] = 0.0 if bcp[j] == ca else sub_cost(t, ia, bid[j])


cdef inline void encode_str(const Table* t, str s, int32_t* ids, cp_t* cps) noexcept:
    """Code points and ids of ``s`` (only code points when ``ids`` is NULL), one loop per
    storage width of the str.

    The lookup table covers at least Latin-1, so one-byte strings need no bound
    check: this loop is a fair share of a short distance() call.  Unit costs need
    no ids (every id costs the same), and skipping them saves a third of encoding
    a lexicon.
    """
    cdef Py_ssize_t i, n = PyUnicode_GET_LENGTH(s)
    cdef int kind = PyUnicode_KIND(s)
    cdef const int32_t* lut = t.lut
    cdef const Py_UCS1* s1
    cdef const Py_UCS2* s2
    cdef const Py_UCS4* s4
    if kind == PyUnicode_1BYTE_KIND:
        s1 = <const Py_UCS1*> PyUnicode_DATA(s)
        if ids == NULL:
            for i in range(n):
                cps[i] = s1[i]
        else:  # one loop: two would cost a short distance() call 40 cycles more
            for i in range(n):
                cps[i] = s1[i]
                ids[i] = lut[s1[i]]
        return
    if kind == PyUnicode_2BYTE_KIND:
        s2 = <const Py_UCS2*> PyUnicode_DATA(s)
        for i in range(n):
            cps[i] = s2[i]
    else:
        s4 = <const Py_UCS4*> PyUnicode_DATA(s)
        for i in range(n):
            cps[i] = s4[i]
    if ids != NULL:
        for i in range(n):
            ids[i] = lookup(t, cps[i])


cdef inline double dp_cell(double diag, double up, double left) noexcept nogil:
    """The cheapest of the three moves into a cell, as exact minima (minsd, no branch)."""
    diag = up if up < diag else diag
    return left if left < diag else diag


cdef double dp_distance(const Table* t, const int32_t* aid, const cp_t* acp, Py_ssize_t n,
                        const int32_t* bid, const cp_t* bcp, Py_ssize_t m,
                        double* work) noexcept nogil:
    """Weighted Levenshtein of one pair; ``work`` holds dp_work_size(m) doubles.

    Every cell takes the minimum of all three moves, also on a match: a match
    can hide a cheaper path (weighted-levenshtein 0.2.2 gets this wrong).

    Each cell waits on its left neighbour (an addition and a minimum), so with a
    dense table two rows go together, the second one column behind the first:
    two chains in flight.  The dense table has a zero diagonal for ids >= 1, so
    a row of an alphabet character reads its substitution costs without
    comparing characters; neighbours stay in registers.  Each cell adds the
    same two numbers as the twin and takes exact minima: bit-for-bit the same.
    """
    cdef double* prev = work
    cdef double* cur = work + (m + 1)
    cdef double* r2 = work + 2 * (m + 1)
    cdef double* subrow = work + 3 * (m + 1)
    cdef double* insb = subrow + m
    cdef double* tmp
    cdef const double* drow
    cdef const double* drow1
    cdef double d, diag, up, dl, d1, diag1, up1, dl1, insj, ins1, acc = 0.0
    cdef Py_ssize_t i = 0, j
    cdef int ia, bj, b1
    prev[0] = 0.0
    for j in range(m):
        insb[j] = t.ins[bid[j]]
        acc = acc + insb[j]
        prev[j + 1] = acc
    while i < n:
        ia = aid[i]
        dl = t.dele[ia]
        diag = prev[0]
        d = diag + dl
        cur[0] = d
        if t.dense != NULL and ia != 0 and m > 0 and i + 1 < n and aid[i + 1] != 0:
            # Rows i + 1 (d) and i + 2 (d1, into r2), the second a column behind.
            drow = t.dense + ia * t.n
            drow1 = t.dense + aid[i + 1] * t.n
            dl1 = t.dele[aid[i + 1]]
            d1 = d + dl1
            r2[0] = d1
            diag1 = d
            up = prev[1]
            bj = bid[0]
            insj = insb[0]
            d = dp_cell(diag + drow[bj], up + dl, d + insj)
            diag = up
            # Row i + 2 reads row i + 1 from registers, so row i + 1 is never stored;
            # the previous column's id and insertion cost are carried, not reloaded.
            for j in range(1, m):
                up1 = d
                up = prev[j + 1]
                b1 = bj
                ins1 = insj
                bj = bid[j]
                insj = insb[j]
                d = dp_cell(diag + drow[bj], up + dl, d + insj)
                diag = up
                d1 = dp_cell(diag1 + drow1[b1], up1 + dl1, d1 + ins1)
                r2[j] = d1
                diag1 = up1
            d1 = dp_cell(diag1 + drow1[bj], d + dl1, d1 + insj)
            r2[m] = d1
            tmp = prev
            prev = r2
            r2 = tmp
            i += 2
            continue
        if t.dense != NULL and ia != 0:
            drow = t.dense + ia * t.n
            for j in range(m):
                up = prev[j + 1]
                d = dp_cell(diag + drow[bid[j]], up + dl, d + insb[j])
                cur[j + 1] = d
                diag = up
        else:
            fill_subrow(t, ia, acp[i], bid, bcp, m, subrow)
            for j in range(m):
                d = dp_cell(prev[j] + subrow[j], prev[j + 1] + dl, d + insb[j])
                cur[j + 1] = d
        tmp = prev
        prev = cur
        cur = tmp
        i += 1
    return prev[m]


cdef inline int64_t steps_sum(const int32_t* steps, const int32_t* ids, Py_ssize_t n) noexcept nogil:
    """The sum of steps[ids[k]] over a string's ids: deleting (or inserting) all of it."""
    cdef int64_t total = 0
    cdef Py_ssize_t k
    for k in range(n):
        total += steps[ids[k]]
    return total


cdef double dp_distance_grid(const Table* t, const int32_t* aid, const cp_t* acp, Py_ssize_t n,
                             const int32_t* bid, const cp_t* bcp, Py_ssize_t m,
                             int32_t* work) noexcept nogil:
    """dp_distance on a table whose costs are whole numbers of grid steps, in int32 steps.

    With potentials, as the int32 lanes (``_grid_body.h``): the DP runs on D - P - Q
    (P, Q: deleting and inserting the prefixes), where deletions and insertions add
    nothing and a diagonal adds ``t.gpot`` = sub - del - ins, so each cell waits on
    one minimum rather than an addition and a minimum.  On such costs the double DP
    is exact too: the same distance.  ``work`` holds 2 (m + 1) int32; the caller
    keeps (n + m + 2) times the largest cost below 2^31 steps.
    """
    cdef int32_t* prev = work
    cdef int32_t* cur = work + (m + 1)
    cdef int32_t* tmp
    cdef const int32_t* prow
    cdef const int32_t* prow1
    cdef int64_t p = 0, q = 0
    cdef int32_t d, d1, dold, x, y, up, diag, dl
    cdef Py_ssize_t i = 0, j
    cdef int ia, bj
    for j in range(m + 1):
        prev[j] = 0
    q = steps_sum(t.gins, bid, m)
    while i < n:
        ia = aid[i]
        dl = t.gdele[ia]
        p += dl
        d = 0
        diag = 0
        cur[0] = 0
        prow = t.gpot + ia * t.n
        if ia != 0 and i + 1 < n and aid[i + 1] != 0:
            # Rows i + 1 (d) and i + 2 (d1, into cur): the second reads the first from
            # registers, so row i + 1 is never stored.
            prow1 = t.gpot + aid[i + 1] * t.n
            p += t.gdele[aid[i + 1]]
            d1 = 0
            for j in range(m):
                bj = bid[j]
                up = prev[j + 1]
                dold = d
                x = diag + prow[bj]
                x = up if up < x else x
                d = x if x < d else d
                y = dold + prow1[bj]
                y = d if d < y else y
                d1 = y if y < d1 else d1
                cur[j + 1] = d1
                diag = up
            i += 2
        elif ia != 0:
            for j in range(m):
                up = prev[j + 1]
                x = diag + prow[bid[j]]
                x = up if up < x else x
                d = x if x < d else d
                cur[j + 1] = d
                diag = up
            i += 1
        else:  # outside the alphabet: a match by code point
            for j in range(m):
                up = prev[j + 1]
                x = diag + (-(dl + t.gins[bid[j]]) if acp[i] == bcp[j] else prow[bid[j]])
                x = up if up < x else x
                d = x if x < d else d
                cur[j + 1] = d
                diag = up
            i += 1
        tmp = prev
        prev = cur
        cur = tmp
    return <double> (prev[m] + p + q) * t.gstep


cdef double pair_distance(const Table* t, bint unit, bint grid, const int32_t* aid,
                          const cp_t* acp, Py_ssize_t n, const int32_t* bid, const cp_t* bcp,
                          Py_ssize_t m, skc_peq* q, double* work) noexcept nogil:
    """One pair: bit-parallel if ``unit`` (the DP if its memory runs out), the int32 DP
    if ``grid`` and the costs are on a grid where no value can reach 2^31 steps, else the
    DP."""
    cdef int64_t d
    if unit:
        d = skc_bp_distance(q, acp, n, bcp, m)
        if d >= 0:
            return <double> d
    if grid and t.gpot != NULL and (n + m + 2) * t.gmax < (<int64_t> 1) << 31:
        return dp_distance_grid(t, aid, acp, n, bid, bcp, m, <int32_t*> work)
    return dp_distance(t, aid, acp, n, bid, bcp, m, work)


cdef Py_ssize_t dp_align(const Table* t, const int32_t* aid, const cp_t* acp, Py_ssize_t n,
                         const int32_t* bid, const cp_t* bcp, Py_ssize_t m,
                         double* work, unsigned char* moves,
                         int8_t* op, int32_t* src, int32_t* tgt, double* cost,
                         Py_ssize_t end) noexcept nogil:
    """One cheapest alignment, written backwards into positions [end - L, end); returns L.

    Ties prefer the diagonal, then a deletion, then an insertion, as in dp_distance's
    order of comparison, so the alignment's costs sum exactly to the distance.
    ``moves`` holds (n + 1) * (m + 1) bytes.
    """
    cdef double* prev = work
    cdef double* cur = work + (m + 1)
    cdef double* subrow = work + 2 * (m + 1)
    cdef double* insb = subrow + m
    cdef double* tmp
    cdef double d, x, dl
    cdef Py_ssize_t i, j, w = m + 1, pos = end
    cdef int ia
    cdef unsigned char mv
    prev[0] = 0.0
    moves[0] = MOVE_DIAG
    for j in range(m):
        insb[j] = t.ins[bid[j]]
        prev[j + 1] = prev[j] + insb[j]
        moves[j + 1] = MOVE_LEFT
    for i in range(n):
        ia = aid[i]
        dl = t.dele[ia]
        fill_subrow(t, ia, acp[i], bid, bcp, m, subrow)
        cur[0] = prev[0] + dl
        moves[(i + 1) * w] = MOVE_UP
        for j in range(m):
            d = prev[j] + subrow[j]
            mv = MOVE_DIAG
            x = prev[j + 1] + dl
            if x < d:
                d = x
                mv = MOVE_UP
            x = cur[j] + insb[j]
            if x < d:
                d = x
                mv = MOVE_LEFT
            cur[j + 1] = d
            moves[(i + 1) * w + j + 1] = mv
        tmp = prev
        prev = cur
        cur = tmp
    i = n
    j = m
    while i > 0 or j > 0:
        pos -= 1
        back_step(t, moves[i * w + j], NULL, aid, acp, bid, bcp, &i, &j,
                  &op[pos], &src[pos], &tgt[pos], &cost[pos])
    return end - pos


def _align_columns(lx, ly, limit):
    """Check the sizes and allocate the padded columns of ``align_batch``.

    For pairs of lengths ``lx`` and ``ly`` returns ``(need, base, op, src, tgt,
    cost)``: each pair's DP cells (at most ``limit``), where its columns end
    (``base[p + 1]``, at most ``lx + ly`` of them), and the column arrays (op
    codes -1: not written).  Shared by every kernel's ``align_batch``.
    """
    npairs = lx.shape[0]
    need = (lx + 1) * (ly + 1) if npairs else np.zeros(1, dtype=np.int64)
    if need.max() > limit:
        k = int(need.argmax())
        raise ValueError(
            f"aligning X[{k}] and Y[{k}] (lengths {lx[k]} and {ly[k]}) needs {need[k]} "
            f"cells, more than the limit of {limit}; split long lines, or use "
            f"distance() for long strings")
    base = np.zeros(npairs + 1, dtype=np.int64)
    np.cumsum(lx + ly, out=base[1:])
    total = int(base[npairs])
    return (need, base, np.full(total, -1, dtype=np.int8), np.empty(total, dtype=np.int32),
            np.empty(total, dtype=np.int32), np.empty(total, dtype=np.float64))


def _no_columns(costs):
    """What ``align_batch`` returns when no pair has a column."""
    op, pair = np.zeros(0, dtype=np.int8), np.zeros(0, dtype=np.int64)
    src = np.zeros(0, dtype=np.int32)
    empty = (op, src, src.copy())
    return (*empty, np.zeros(0, dtype=np.float64), pair) if costs else (*empty, pair)


def unit_table(offsets, cps, max_bytes=None):
    """Match masks of a lexicon (``_encode_list(words, "Y", False)``) for the unit-cost table scan.

    Returns ``(alphabet, table, lane_mask, longer)``: the sorted code points of the strings of
    at most 16 characters; uint16 ``table[r, y]`` with bit j set when string y has
    ``alphabet[r - 1]`` at position j (row 0: none), y padded to whole blocks of 16;
    ``lane_mask[y] = (1 << len) - 1`` (0 for longer strings); and the indices of the
    longer strings (found once here, not per call).  2 bytes per string and alphabet
    character; None if the table would take more than ``max_bytes``.
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    ny = offsets.shape[0] - 1
    lens = np.diff(offsets)
    cps = np.asarray(cps)[: offsets[ny]]
    short_cps = cps[np.repeat(lens <= SKC_BP_LANE_BITS, lens)]
    small = cps.shape[0] == 0 or int(cps.max()) < LUT_LIMIT
    # Small code points (most text): a histogram and a lookup table, not a sort and a search.
    alphabet = (np.flatnonzero(np.bincount(short_cps)).astype(np.uint32) if small
                else np.unique(short_cps))
    width = (ny + SKC_BP_LANES - 1) // SKC_BP_LANES * SKC_BP_LANES
    if max_bytes is not None and 2 * (alphabet.shape[0] + 1) * width > max_bytes:
        return None
    table = np.zeros((alphabet.shape[0] + 1, width), dtype=np.uint16)
    if small:
        lut = np.zeros(LUT_LIMIT, dtype=np.int32)
        lut[alphabet] = np.arange(1, alphabet.shape[0] + 1)
        rows_arr = lut[short_cps]
    else:
        rows_arr = (np.searchsorted(alphabet, short_cps) + 1).astype(np.int32)
    # Or each position's bit into its cell: one pass over the short strings.
    cdef const int32_t[::1] rows = rows_arr
    cdef const int64_t[::1] off = offsets
    cdef uint16_t[:, ::1] tab = table
    cdef Py_ssize_t y, j, k = 0, n, count = ny
    with nogil:
        for y in range(count):
            n = off[y + 1] - off[y]
            if n <= SKC_BP_LANE_BITS:
                for j in range(n):
                    tab[rows[k], y] |= <uint16_t> (1 << j)
                    k += 1
    lane_mask = np.zeros(width, dtype=np.uint16)
    lane_mask[:ny] = np.where(lens <= SKC_BP_LANE_BITS, (1 << np.minimum(lens, 16)) - 1, 0)
    return alphabet, table, lane_mask, np.flatnonzero(lens > SKC_BP_LANE_BITS)


cdef Py_ssize_t longest_of(const int64_t[::1] off):
    """The longest of the strings at offsets ``off`` (0 for none): a loop, where numpy's
    diff and max take microseconds on a short list (a small call's budget)."""
    cdef Py_ssize_t k, best = 0
    for k in range(off.shape[0] - 1):
        if off[k + 1] - off[k] > best:
            best = off[k + 1] - off[k]
    return best


def nonempty(yo):
    """The rows kernel's view of the strings at offsets ``yo``: ``(co, wid, empty)``.

    ``co`` are the offsets of the non-empty strings (and the end), ``wid`` their
    indices, ``empty`` the indices of the empty ones; without empty strings,
    ``(yo, None, None)``.
    """
    ny = yo.shape[0] - 1
    cdef const int64_t[::1] off = yo
    cdef Py_ssize_t k
    for k in range(ny):
        if off[k + 1] == off[k]:
            break
    else:
        return yo, None, None
    is_empty = np.diff(yo) == 0
    wid = np.flatnonzero(~is_empty).astype(np.int64)
    return np.append(yo[wid], yo[ny]), wid, np.flatnonzero(is_empty)


def rows_prefixes(const int64_t[::1] co not None, const cp_t[::1] cps not None):
    """``(lcp, ccum)`` of the words at offsets ``co`` for the rows kernel (``skc_rows_prefixes``).

    lcp[k] characters at the start of word k are word k - 1's (capped), so the kernel
    starts the word from the column it kept of the word before; ``ccum`` counts the
    columns it computes.  One pass over the characters, once per EncodedY.
    """
    cdef Py_ssize_t nk = co.shape[0] - 1
    lcp_arr = np.zeros(max(nk, 1), dtype=np.int64)
    ccum_arr = np.zeros(nk + 1, dtype=np.int64)
    cdef int64_t[::1] lcp = lcp_arr
    cdef int64_t[::1] ccum = ccum_arr
    with nogil:
        skc_rows_prefixes(&co[0], &cps[0], nk, &lcp[0], &ccum[0])
    return lcp_arr, ccum_arr


def lane_groups(yo):
    """The lanes' groups of the strings at offsets ``yo``: ``(order, cols, m, off, mmax,
    sorted)``.

    The strings sorted by length (``order``; stable), in groups of SKC_LANES: lane k
    of group g takes string ``order[g * SKC_LANES + k]``, of length ``m`` at offset
    ``off`` (0 for the padding lanes of the last group), and writes column ``cols``
    of the sorted output row (-1: padding); ``mmax`` is each group's longest;
    ``sorted`` whether the order is the identity (no columns to put back).
    """
    ny = yo.shape[0] - 1
    ylen = np.diff(yo)
    # Stable: the same order whatever the dtype, and numpy radix-sorts 16-bit
    # keys, 7x faster than its int64 timsort (a third of a one-query call).
    order = np.argsort(ylen.astype(np.uint16) if ny and ylen.max() <= 0xFFFF else ylen,
                       kind="stable")
    ngroups = (ny + SKC_LANES - 1) // SKC_LANES
    cols = np.full(ngroups * SKC_LANES, -1, dtype=np.int64)
    cols[:ny] = np.arange(ny)
    m = np.zeros(ngroups * SKC_LANES, dtype=np.int64)
    m[:ny] = ylen[order]
    off = np.zeros(ngroups * SKC_LANES, dtype=np.int64)
    off[:ny] = yo[:ny][order]
    mmax = m.reshape(ngroups, SKC_LANES).max(axis=1)
    return order, cols, m, off, mmax, np.array(bool(np.all(order == cols[:ny])))


cdef class CostKernel:
    """Cost tables compiled for the DP: an alphabet, dense or CSR substitution costs.

    Parameters
    ----------
    chars : array of int
        Sorted distinct code points of the alphabet; ``chars[i]`` gets id ``i + 1``.
    sub_src, sub_tgt : array of int
        Ids of the explicit substitution costs (sorted by source, then target, unique).
    sub_cost : array of float
        Their costs.
    rowdef, coldef : array of float, shape (n_chars + 1,)
        An unlisted substitution ``s -> t`` costs ``rowdef[s] + coldef[t]``
        (``rowdef[0]`` alone when ``s`` is outside the alphabet).
    ins, dele : array of float, shape (n_chars + 1,)
        Insertion and deletion costs by id; index 0 holds the defaults.
    dense : bool
        Build a dense (n_chars + 1)^2 table (fast) rather than a CSR one (small).

    Attributes
    ----------
    unit : bool
        Every edit costs exactly 1 (a match 0): ``distance`` and ``pairwise`` then
        run bit-parallel (``_unit.h``) rather than the DP, with the same results.
    grid_step : float
        The coarsest step ``2**-s`` (``s <= 30``) of which every cost of a dense
        table is a whole number (0.0 if there is none, or the table is not dense).
        ``pairwise`` then runs its lanes on int32 numbers of steps, with the same
        results: on such costs the double DP's additions are exact too.
    """

    def __cinit__(self, *args, **kwargs):
        self.t.n = 0

    def __init__(self, chars, sub_src, sub_tgt, sub_cost, rowdef, coldef, ins, dele, dense):
        self._set_tables(chars, sub_src, sub_tgt, sub_cost, rowdef, coldef, ins, dele, dense)

    def _set_tables(self, chars, sub_src, sub_tgt, sub_cost, rowdef, coldef, ins, dele, dense):
        if self.t.n != 0:
            # Other threads may be reading the tables without the GIL: swapping the
            # buffers under them would be a use-after-free.  Kernels are immutable.
            raise RuntimeError("the cost tables are already set; build a new object instead")
        chars = np.ascontiguousarray(chars, dtype=np.uint32)
        n = chars.shape[0] + 1
        sub_src = np.ascontiguousarray(sub_src, dtype=np.int32)
        sub_tgt = np.ascontiguousarray(sub_tgt, dtype=np.int32)
        sub_cost = np.ascontiguousarray(sub_cost, dtype=np.float64)
        rowdef = np.ascontiguousarray(rowdef, dtype=np.float64)
        coldef = np.ascontiguousarray(coldef, dtype=np.float64)
        ins = np.ascontiguousarray(ins, dtype=np.float64)
        dele = np.ascontiguousarray(dele, dtype=np.float64)
        for name, arr in (("rowdef", rowdef), ("coldef", coldef), ("ins", ins), ("dele", dele)):
            if arr.shape[0] != n:
                raise ValueError(f"{name} must have len(chars) + 1 = {n} entries")
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.add.at(indptr, sub_src.astype(np.int64) + 1, 1)
        indptr = np.cumsum(indptr)
        # At least all of Latin-1, so that one-byte strings are encoded without a bound check.
        lut_size = max(256, min(int(chars.max()) + 1, LUT_LIMIT) if chars.shape[0] else 0)
        lut = np.zeros(lut_size, dtype=np.int32)
        small = chars[chars < lut_size]
        lut[small] = np.arange(1, small.shape[0] + 1, dtype=np.int32)
        if dense:
            table = np.empty((n, n), dtype=np.float64)
            table[...] = rowdef[:, None] + coldef[None, :]
            table[0, :] = rowdef[0]
            table[sub_src, sub_tgt] = sub_cost
            # Ids >= 1 are distinct characters, so equal ids are a match: a zero diagonal
            # lets a row of the DP read substitution costs without comparing characters.
            # Id 0 (outside the alphabet) keeps rowdef[0]: two such characters may differ.
            table[np.arange(1, n), np.arange(1, n)] = 0.0
            table = np.ascontiguousarray(table)
        else:
            table = None
        self._arrays = (chars, sub_src, sub_tgt, sub_cost, rowdef, coldef, ins, dele,
                        indptr, lut, table)
        self.dense = bool(dense)
        self.unit = unit_costs(sub_src, sub_tgt, sub_cost, rowdef, coldef, ins, dele)
        grid = None if table is None else grid_tables(table, ins, dele)
        if grid is not None:
            _, dense_i, ins_i, dele_i = grid
            # sub - del - ins: what dp_distance_grid adds on a diagonal (its potentials).
            grid = (*grid, np.ascontiguousarray(dense_i - dele_i[:, None] - ins_i[None, :]))
        self._grid = grid
        self._point(chars, indptr, sub_tgt, sub_cost, rowdef, coldef, ins, dele, lut, table)

    cdef _point(self, const cp_t[::1] chars, const int64_t[::1] indptr,
                const int32_t[::1] indices, const double[::1] data,
                const double[::1] rowdef, const double[::1] coldef,
                const double[::1] ins, const double[::1] dele, const int32_t[::1] lut,
                object table):
        cdef const double[:, ::1] dense
        self.t.n = rowdef.shape[0]
        self.t.n_chars = chars.shape[0]
        self.t.chars = &chars[0] if chars.shape[0] else NULL
        self.t.indptr = &indptr[0]
        self.t.indices = &indices[0] if indices.shape[0] else NULL
        self.t.data = &data[0] if data.shape[0] else NULL
        self.t.rowdef = &rowdef[0]
        self.t.coldef = &coldef[0]
        self.t.ins = &ins[0]
        self.t.dele = &dele[0]
        self.t.lut = &lut[0]
        self.t.lut_size = lut.shape[0]
        if table is None:
            self.t.dense = NULL
        else:
            dense = table
            self.t.dense = &dense[0, 0]
        self._point_grid()

    cdef _point_grid(self):
        cdef const int32_t[:, ::1] pot
        cdef const int32_t[::1] gins
        cdef const int32_t[::1] gdele
        self.t.gpot = NULL
        if self._grid is not None:
            self.t.gstep, _, gins, gdele, pot = self._grid
            self.t.gmax = max(int(np.max(gins)), int(np.max(gdele)), int(np.max(self._grid[1])))
            self.t.gpot, self.t.gins, self.t.gdele = &pot[0, 0], &gins[0], &gdele[0]

    @property
    def grid_step(self):
        return self.t.gstep if self.t.gpot != NULL else 0.0

    def _kernel_args(self):
        """The constructor's arguments, for pickling and for building the twin."""
        chars, sub_src, sub_tgt, sub_cost, rowdef, coldef, ins, dele = self._arrays[:8]
        return chars, sub_src, sub_tgt, sub_cost, rowdef, coldef, ins, dele, self.dense

    def __reduce__(self):
        return (type(self), self._kernel_args())

    cdef int _check(self) except -1:
        if self.t.n == 0:
            raise ValueError("the cost tables are not set")
        return 0

    cdef void _encode_into(self, str s, int32_t* ids, cp_t* cps) noexcept:
        encode_str(&self.t, s, ids, cps)

    def encode(self, str s not None):
        """Return ``(ids, code_points)`` of ``s`` as int32 and uint32 arrays."""
        self._check()
        n = len(s)
        ids = np.empty(n, dtype=np.int32)
        cps = np.empty(n, dtype=np.uint32)
        cdef int32_t[::1] vi = ids
        cdef cp_t[::1] vc = cps
        if n:
            self._encode_into(s, &vi[0], &vc[0])
        return ids, cps

    def _encode_list(self, list strings, name="X", bint with_ids=True, bint snapshot=False):
        """Encode strings end to end: (offsets int64 (n + 1), ids int32, code points uint32).

        Without ``with_ids``, ids is None.  With ``snapshot``, a copy of the list comes
        fourth, made in the same pass over the str objects as their lengths (on its
        own, a pass costs a cache miss or two per str), and the characters are read
        from it: what is encoded is what the copy holds.
        """
        cdef Py_ssize_t k, n = len(strings), total = 0
        cdef list snap = PyList_New(n) if snapshot else strings
        offsets = np.empty(n + 1, dtype=np.int64)
        cdef int64_t[::1] off = offsets
        off[0] = 0
        for k in range(n):
            item = strings[k]
            # Checked here, not only by callers: the encoder reads the str buffer directly.
            if not isinstance(item, str):
                raise TypeError(f"{name} must contain only strings; {name}[{k}] is "
                                f"{type(item).__name__}: {item!r}")
            if snapshot:
                Py_INCREF(item)  # PyList_SET_ITEM takes over a reference
                PyList_SET_ITEM(snap, k, item)
            total += len(<str> item)
            off[k + 1] = total
        ids = np.empty(max(total, 1), dtype=np.int32) if with_ids else None
        cps = np.empty(max(total, 1), dtype=np.uint32)
        cdef int32_t[::1] vi = ids if with_ids else None
        cdef cp_t[::1] vc = cps
        for k in range(n):
            if off[k + 1] > off[k]:
                self._encode_into(<str> snap[k], &vi[off[k]] if with_ids else NULL,
                                  &vc[off[k]])
        return (offsets, ids, cps, snap) if snapshot else (offsets, ids, cps)

    def _encode_y(self, Y, bint keep=True):
        """Y of ``pairwise`` as an :class:`EncodedY` of this kernel.

        An EncodedY of this kernel comes back as it is (``pairwise_chunked`` and the
        brute-force search encode their Y once, then pass it per chunk).  A list
        holding the same str objects as the last one kept (``EncodedY.same``) gets
        that one back: a lexicon passed call after call is encoded once.  Otherwise
        the list is encoded, and kept for the next call (replacing the last) if
        ``keep`` and it has at least KEEP_MIN_Y strings.  Only the last one is kept,
        and it keeps its strings alive.  For SCOWL's 104,334 words (880,476
        characters), measured with tracemalloc: 5.2 MB with unit costs (the list
        copy and the offsets 0.83 MB each, the code points 3.52 MB), 8.7 MB once a
        path has read the ids (3.52 MB), 10.4 MB once the rows kernel has found the
        words' shared starts (1.67 MB), 12.2 MB after the lanes without those (the
        lane groups, 3.44 MB), 13.8 MB after all.
        Pickling and copying a metric do not carry it.
        """
        cdef EncodedY enc
        if isinstance(Y, EncodedY):
            enc = Y
            if enc.tables is not self._arrays:
                raise ValueError("Y was encoded by another kernel; pass the strings")
            return enc
        if type(Y) is not list:
            raise TypeError(f"Y must be a list of strings, got {type(Y).__name__}")
        enc = self._last_y
        if enc is not None and enc.tables is self._arrays and enc.same(Y):
            return enc
        enc = EncodedY.__new__(EncodedY)
        # A copy: what is encoded is what ``same`` compares.
        offsets, ids, cps, enc.strings = self._encode_list(Y, "Y", not self.unit, True)
        enc.tables = self._arrays
        enc.n = len(enc.strings)
        enc.longest = longest_of(offsets)
        enc.offsets, enc.cps = frozen(offsets), frozen(cps)
        enc._derived = {} if ids is None else {"ids": frozen(ids)}
        if keep and enc.n >= KEEP_MIN_Y:
            self._last_y = enc
        return enc

    def _y_ids(self, EncodedY enc):
        """The ids of ``enc`` (not encoded for unit costs until a path reads them)."""
        return enc.derived("ids", lambda: self._encode_list(enc.strings, "Y")[1])

    # A plain method descriptor, not a bound cyfunction: 5% of a short call (588 -> 559 user
    # cycles, on run.py's tokens of 5-12 characters); clinic signature: inspect reads (a, b).
    @cython.binding(False)
    @cython.embedsignature(True)
    @cython.embedsignature.format("clinic")
    def distance(self, str a not None, str b not None):
        """Weighted Levenshtein distance from ``a`` (OCR side) to ``b`` (truth side)."""
        self._check()
        cdef Py_ssize_t n = len(a), m = len(b)
        cdef int32_t aid_s[STACK]
        cdef int32_t bid_s[STACK]
        cdef cp_t acp_s[STACK]
        cdef cp_t bcp_s[STACK]
        cdef double work_s[5 * STACK + 3]
        cdef int32_t* aid
        cdef int32_t* bid
        cdef cp_t* acp
        cdef cp_t* bcp
        cdef double* work
        cdef double result
        cdef skc_peq q
        # This thread's kernel_config, read without a Python call (_options.h).
        cdef skc_options* opts = skc_thread_options()
        cdef bint unit = self.unit and opts.bitparallel
        cdef bint grid = opts.grid
        if n <= STACK and m <= STACK:
            # Unit costs read no ids here: both strings fit the bit-parallel word.
            encode_str(&self.t, a, NULL if unit else aid_s, acp_s)
            encode_str(&self.t, b, NULL if unit else bid_s, bcp_s)
            return pair_distance(&self.t, unit, grid, aid_s, acp_s, n, bid_s, bcp_s, m, &q,
                                 work_s)
        aid = <int32_t*> malloc((n + m + 1) * sizeof(int32_t))
        acp = <cp_t*> malloc((n + m + 1) * sizeof(cp_t))
        work = <double*> malloc(dp_work_size(m) * sizeof(double))
        if aid == NULL or acp == NULL or work == NULL:
            free(aid)
            free(acp)
            free(work)
            raise MemoryError()
        bid = aid + n
        bcp = acp + n
        try:
            self._encode_into(a, aid, acp)
            self._encode_into(b, bid, bcp)
            with nogil:
                result = pair_distance(&self.t, unit, grid, aid, acp, n, bid, bcp, m, &q, work)
        finally:
            free(aid)
            free(acp)
            free(work)
        return result

    def pairwise(self, list X not None, Y not None, int n_threads=1):
        """Distances from every string of X (rows) to every string of Y, shape (len(X), len(Y)).

        Y is a list of str or an EncodedY of this kernel: either way it goes through
        ``_encode_y``, so a large Y passed again (the same str objects) is not
        encoded again, nor its lane groups sorted and built.
        """
        self._check()
        cdef EncodedY enc = self._encode_y(Y)
        cdef Py_ssize_t nx = len(X), ny = enc.n
        out = np.empty((nx, ny), dtype=np.float64)
        if nx == 0 or ny == 0:
            return out
        n_threads = skc_threads(n_threads)
        # The path, SIMD level and options: chosen in Python (_dispatch, kernel_config).
        cdef int path, level
        cdef bint grid
        cdef double rows_share
        path, level, grid, rows_share = pairwise_plan(
            self, nx, longest_str(X), enc.longest, CPU_LEVEL)
        cdef bint unit = path == PATH_BITPARALLEL
        xo, xi, xc = self._encode_list(X, "X", not unit)
        if unit:
            self._pairwise_unit(out, xo, xc, enc, n_threads, grid, level)
            return out
        yi = self._y_ids(enc)
        if path == PATH_ROWS:
            self._pairwise_rows(out, xo, xi, xc, enc, yi, n_threads, rows_share, level)
        elif path == PATH_LANES:
            self._pairwise_lanes(out, xo, xi, xc, enc, yi, n_threads, grid, level)
        else:
            self._pairwise_pairs(out, xo, xi, xc, enc.offsets, yi, enc.cps, n_threads)
        return out

    def _pairwise_unit_table(self, list X not None, const cp_t[::1] alphabet not None,
                             const uint16_t[:, ::1] table not None,
                             const uint16_t[::1] lane_mask not None, longer not None,
                             const int64_t[::1] yoff not None, const cp_t[::1] ycp not None,
                             Py_ssize_t g0, double[:, ::1] out not None, int n_threads=1):
        """Unit costs: X against a lexicon's strings from 16 g0 on, through its match table.

        ``(alphabet, table, lane_mask) = unit_table(yoff, ycp)`` is built once for a
        lexicon (``EditDistanceNeighbors`` does at fit), so a call loads no block of
        match masks: a query alone costs its scan of the lexicon, where ``pairwise``
        loads each block of 16 strings once per call, whatever the number of queries.
        ``out`` (len(X) rows) gets the distances to strings 16 g0 .. 16 g0 + its columns.
        """
        self._check()
        if not self.unit:
            raise ValueError("_pairwise_unit_table needs unit costs")
        check_unit_table(len(X), alphabet, table, lane_mask, yoff, ycp, g0, out)
        cdef Py_ssize_t nx = out.shape[0], ncols = out.shape[1], ny = yoff.shape[0] - 1
        cdef Py_ssize_t nblocks = (ny + SKC_BP_LANES - 1) // SKC_BP_LANES, col0 = g0 * SKC_BP_LANES
        if nx == 0 or ncols == 0:
            return
        n_threads = skc_threads(n_threads)
        cdef int level = simd_plan(CPU_LEVEL)
        cdef bint grid = skc_thread_options().grid
        xo, _, xc = self._encode_list(X, "X", False)
        # Each query character's row of the table; 0 for characters no short string has.
        where = np.searchsorted(alphabet, xc[:xo[nx]])
        found = where < alphabet.shape[0]
        found[found] = np.asarray(alphabet)[where[found]] == xc[:xo[nx]][found]
        rows_arr = np.append(np.where(found, where + 1, 0).astype(np.int32), np.int32(0))
        cdef const int32_t[::1] rows = rows_arr
        cdef const int64_t[::1] xoff = xo
        cdef Py_ssize_t g1 = (col0 + ncols + SKC_BP_LANES - 1) // SKC_BP_LANES
        # Work items: (query, run of 32 blocks); a thread scans a run two blocks at a time.
        cdef Py_ssize_t run = 32, nruns = (g1 - g0 + run - 1) // run
        cdef Py_ssize_t p, i, gs
        with nogil:
            for p in prange(nx * nruns, schedule="dynamic", chunksize=4, num_threads=n_threads):
                i = p // nruns
                gs = g0 + (p - i * nruns) * run
                skc_bp_table_run(&table[0, 0], nblocks, &lane_mask[0], &rows[xoff[i]],
                                 xoff[i + 1] - xoff[i], gs, min(gs + run, g1), col0 + ncols,
                                 &out[i, (gs - g0) * SKC_BP_LANES], level)
        rest = longer[np.searchsorted(longer, col0):np.searchsorted(longer, col0 + ncols)]
        self._pairwise_long(out, xo, xc, yoff, ycp, rest, col0, n_threads, grid)

    cdef _pairwise_pairs(self, double[:, ::1] vout, const int64_t[::1] xoff,
                         const int32_t[::1] xid, const cp_t[::1] xcp, const int64_t[::1] yoff,
                         const int32_t[::1] yid, const cp_t[::1] ycp, int n_threads):
        """One pair at a time (any table layout): the two-row DP for every cell of the output."""
        cdef Py_ssize_t nx = vout.shape[0], ny = vout.shape[1]
        cdef Py_ssize_t maxm = int(np.diff(yoff).max())
        cdef Py_ssize_t p, i, j, total = nx * ny, failed = 0
        cdef double* work
        cdef Table* t = &self.t
        with nogil, parallel(num_threads=n_threads):
            work = <double*> malloc(dp_work_size(maxm) * sizeof(double))
            for p in prange(total, schedule="dynamic", chunksize=64):
                i = p // ny
                j = p - i * ny
                if work != NULL:
                    vout[i, j] = dp_distance(
                        t, &xid[xoff[i]], &xcp[xoff[i]], xoff[i + 1] - xoff[i],
                        &yid[yoff[j]], &ycp[yoff[j]], yoff[j + 1] - yoff[j], work)
                else:
                    failed += 1
            free(work)
        if failed:
            raise MemoryError("could not allocate DP rows")

    cdef _pairwise_unit(self, double[:, ::1] vout, const int64_t[::1] xoff,
                        const cp_t[::1] xcp, EncodedY enc, int n_threads, bint grid, int level):
        """Unit costs: Y in blocks of 16 consecutive strings, each in a bit-parallel lane.

        A work item is (block, two X strings): consecutive items share the block, which
        a thread loads once (its match masks) and every X string scans as the text,
        writing 16 neighbouring cells of its output row.  Y strings longer than a
        lane (16 characters) leave their lane empty and go one pair at a time
        (_pairwise_long).
        """
        cdef Py_ssize_t nx = vout.shape[0], ny = vout.shape[1]
        cdef Py_ssize_t half = (nx + 1) // 2   # X strings go two at a time
        cdef const int64_t[::1] yoff = enc.offsets
        cdef const cp_t[::1] ycp = enc.cps
        longer = enc.derived("longer", long_strings, enc.offsets)
        cdef Py_ssize_t p, g, i, total = (ny + SKC_BP_LANES - 1) // SKC_BP_LANES * half
        cdef Py_ssize_t failed = 0
        cdef skc_bp_block* blk
        with nogil, parallel(num_threads=n_threads):
            blk = skc_bp_block_new()
            for p in prange(total, schedule="dynamic", chunksize=64):
                if blk == NULL:
                    failed += 1
                    continue
                g = p // half
                i = 2 * (p - g * half)
                skc_bp_block_use(blk, g, &ycp[0], &yoff[0], ny)
                skc_bp_block_run(blk, &xcp[xoff[i]], xoff[i + 1] - xoff[i], &vout[i, 0],
                                 &xcp[xoff[i + 1]], xoff[i + 2] - xoff[i + 1] if i + 1 < nx else 0,
                                 &vout[i + 1, 0] if i + 1 < nx else NULL, level)
            skc_bp_block_free(blk)
        if failed:
            raise MemoryError("could not allocate the bit-parallel buffers")
        self._pairwise_long(vout, xoff, xcp, yoff, ycp, longer, 0, n_threads, grid)

    cdef _pairwise_long(self, double[:, ::1] vout, const int64_t[::1] xoff, const cp_t[::1] xcp,
                        const int64_t[::1] yoff, const cp_t[::1] ycp, rest_arr,
                        Py_ssize_t col0, int n_threads, bint grid):
        """Unit costs, the Y strings ``rest_arr`` (longer than a lane), one pair at a time.

        String y goes to column y - col0.  Should pair_distance fall back to the DP,
        unit costs are the same for every id, so it reads id 0 everywhere.
        """
        cdef const int64_t[::1] rest = rest_arr
        cdef Py_ssize_t nx = vout.shape[0], nrest = rest_arr.shape[0]
        if nrest == 0:
            return
        ends = np.asarray(yoff)
        cdef Py_ssize_t maxm = int((ends[rest_arr + 1] - ends[rest_arr]).max())
        zeros = np.zeros(max(maxm, int(np.diff(xoff).max())) + 1, dtype=np.int32)
        cdef const int32_t[::1] zid = zeros
        cdef Py_ssize_t p, i, j, failed = 0
        cdef skc_peq* q
        cdef double* work
        cdef Table* t = &self.t
        with nogil, parallel(num_threads=n_threads):
            q = <skc_peq*> malloc(sizeof(skc_peq))
            work = <double*> malloc(dp_work_size(maxm) * sizeof(double))
            for p in prange(nx * nrest, schedule="dynamic", chunksize=16):
                i = p // nrest
                j = rest[p - i * nrest]
                if q == NULL or work == NULL:
                    failed += 1
                    continue
                vout[i, j - col0] = pair_distance(
                    t, True, grid, &zid[0], &xcp[xoff[i]], xoff[i + 1] - xoff[i],
                    &zid[0], &ycp[yoff[j]], yoff[j + 1] - yoff[j], q, work)
            free(q)
            free(work)
        if failed:
            raise MemoryError("could not allocate the bit-parallel buffers")

    cdef _pairwise_lanes(self, double[:, ::1] vout, const int64_t[::1] xoff,
                         const int32_t[::1] xid, const cp_t[::1] xcp, EncodedY enc,
                         const int32_t[::1] yid, int n_threads, bint grid, int level):
        """Dense tables: each X string against groups of SKC_LANES Y strings of similar length.

        Y is grouped by length so that little of each group is padding.  A work item
        is (group, X_CHUNK X strings), one kernel call; consecutive items share the
        group, whose interleaved columns each thread loads once.  The columns are
        computed in that sorted order, so that a string writes whole cache lines of its
        output row rather than SKC_LANES lines all over it (each a cache miss: a
        group's items walk down the whole output), and each row is then put back in
        Y's order.  Memory: the output, the encoded strings and per thread
        O(SKC_LANES x (longest Y string + longest X string) + len(Y)).
        """
        cdef Py_ssize_t nx = vout.shape[0], ny = vout.shape[1]
        cdef const cp_t[::1] ycp = enc.cps
        order, cols_arr, lanes_m, lanes_off, mmax_arr, sorted_ = enc.derived(
            "lanes", lane_groups, enc.offsets)
        cdef const int64_t[::1] vorder = order
        cdef Py_ssize_t ngroups = mmax_arr.shape[0]
        cdef const int64_t[::1] cols = cols_arr
        cdef const int64_t[::1] gm = lanes_m
        cdef const int64_t[::1] goff = lanes_off
        cdef const int64_t[::1] gmax = mmax_arr
        cdef Py_ssize_t longest = enc.longest
        cdef Py_ssize_t nchunks = (nx + X_CHUNK - 1) // X_CHUNK
        cdef Py_ssize_t p, g, i, i1, total = ngroups * nchunks, failed = 0
        # Items handed out at a time: about X_CHUNK OCR strings, as many groups for few.
        cdef Py_ssize_t per_grab = max(1, X_CHUNK // nx)
        cdef Py_ssize_t* loaded   # the group a thread's work buffer holds
        cdef double* work
        cdef double* prof
        cdef void* work_raw
        cdef void* prof_raw
        # Profile rows: the alphabet's ids, then one per distinct character of X outside
        # it (with unit costs, that is every character).
        xid_np = np.asarray(xid)
        xcp_np = np.asarray(xcp)
        outside = xid_np == 0
        extra_arr = np.unique(xcp_np[outside])
        xrow_arr = xid_np.copy()
        xrow_arr[outside] = self.t.n + np.searchsorted(extra_arr, xcp_np[outside])
        cdef Py_ssize_t n_rows = self.t.n + extra_arr.shape[0]
        extra_arr = np.append(extra_arr, np.uint32(0))  # never empty: &extra[0] is valid
        cdef const cp_t[::1] extra = extra_arr
        cdef const int32_t[::1] xrow = xrow_arr
        # A group's substitution profile pays off when many OCR characters read it and
        # it stays small enough for the cache; otherwise each row gathers its costs.
        cdef bint use_profile = (
            longest > 0 and xoff[nx] >= n_rows and n_rows * longest * SKC_LANES <= PROFILE_LIMIT)
        cdef Table* t = &self.t
        cdef const int32_t[::1] idense = None
        cdef const int32_t[::1] iins = None
        cdef const int32_t[::1] idele = None
        cdef double step = 0.0
        cdef Py_ssize_t xlongest = longest_of(xoff)
        if grid:
            step, dense_i, iins, idele, _ = self._grid
            idense = dense_i.ravel()
        with nogil, parallel(num_threads=n_threads):
            work_raw = malloc(skc_lanes_work(longest, xlongest) * sizeof(double) + SKC_ALIGN_SLACK)
            work = skc_align64(work_raw)
            prof_raw = NULL
            if use_profile:
                prof_raw = malloc(n_rows * longest * SKC_LANES * sizeof(double) + SKC_ALIGN_SLACK)
            prof = skc_align64(prof_raw)
            loaded = <Py_ssize_t*> malloc(sizeof(Py_ssize_t))
            if loaded != NULL:
                loaded[0] = -1
            for p in prange(total, schedule="dynamic", chunksize=per_grab):
                g = p // nchunks
                i = (p - g * nchunks) * X_CHUNK
                i1 = i + X_CHUNK if i + X_CHUNK < nx else nx
                if work == NULL or loaded == NULL or (use_profile and prof == NULL):
                    failed += 1
                    continue
                if grid:
                    if g != loaded[0]:
                        skc_lanes_load_i(&iins[0], &yid[0], &ycp[0], &goff[g * SKC_LANES],
                                         &gm[g * SKC_LANES], gmax[g], <int32_t*> work)
                        if prof != NULL:
                            skc_grid_profile(&idense[0], t.n, &idele[0], gmax[g],
                                             <int32_t*> work, &extra[0], n_rows - t.n,
                                             <int32_t*> prof)
                        loaded[0] = g
                    skc_lanes_run_i(&idense[0], t.n, &idele[0], &xid[0], &xcp[0], &xrow[0],
                                    &xoff[i], i1 - i, &gm[g * SKC_LANES], gmax[g],
                                    <int32_t*> work, <int32_t*> prof, &cols[g * SKC_LANES],
                                    step, &vout[i, 0], ny, level)
                    continue
                if g != loaded[0]:
                    skc_lanes_load(t.ins, &yid[0], &ycp[0], &goff[g * SKC_LANES],
                                   &gm[g * SKC_LANES], gmax[g], work)
                    if prof != NULL:
                        skc_lanes_profile(t.dense, t.n, gmax[g], work, &extra[0],
                                          n_rows - t.n, prof)
                    loaded[0] = g
                skc_lanes_run(t.dense, t.n, t.dele, &xid[0], &xcp[0], &xrow[0], &xoff[i],
                              i1 - i, &gm[g * SKC_LANES], gmax[g], work, prof,
                              &cols[g * SKC_LANES], &vout[i, 0], ny, level)
            free(work_raw)
            free(prof_raw)
            free(loaded)
        if failed:
            raise MemoryError("could not allocate DP rows")
        if not sorted_:
            self._unsort_columns(vout, vorder, n_threads)

    def _rows_fit(self, xoff, yoff):
        """Whether ``pairwise`` of strings at these offsets runs the rows kernel now."""
        plan = pairwise_plan(self, xoff.shape[0] - 1, int(np.diff(xoff).max()),
                             int(np.diff(yoff).max()), CPU_LEVEL)
        return plan[0] == PATH_ROWS

    cdef _pairwise_rows(self, double[:, ::1] vout, const int64_t[::1] xoff,
                        const int32_t[::1] xid, const cp_t[::1] xcp, EncodedY enc,
                        const int32_t[::1] yid, int n_threads, double rows_share, int level):
        """Few OCR strings against many truth strings: each OCR string's characters in the
        lanes, the truth strings read in order (_rows.h).  A work item is (OCR string,
        chunk of ROWS_CHUNK truth strings); empty truth strings cost deleting the OCR string.
        """
        cdef Py_ssize_t nx = vout.shape[0], ny = vout.shape[1]
        cdef const cp_t[::1] ycp = enc.cps
        # The words' shared starts are found (a pass over the characters) when the
        # EncodedY comes back: a Y seen once does not pay for them.
        again = "rows" in enc._derived
        co_arr, wid_arr, empty = enc.derived("rows", nonempty, enc.offsets)
        lcp_arr = ccum_arr = None
        if again:
            lcp_arr, ccum_arr = enc.derived("prefixes", rows_prefixes, co_arr, enc.cps)
        cdef Py_ssize_t nk = co_arr.shape[0] - 1
        if lcp_arr is None or ccum_arr[nk] > rows_share * (co_arr[nk] - co_arr[0]):
            lcp_arr, ccum_arr = None, co_arr  # every column computed
        cdef const int64_t[::1] co = co_arr
        cdef const int64_t[::1] lcp = lcp_arr
        cdef const int64_t[::1] ccum = ccum_arr
        cdef const int64_t* plcp = &lcp[0] if lcp_arr is not None else NULL
        cdef const int64_t[::1] wid = wid_arr
        cdef const int64_t* pwid = &wid[0] if wid_arr is not None and wid_arr.shape[0] else NULL
        cdef Py_ssize_t nchunks = (nk + ROWS_CHUNK - 1) // ROWS_CHUNK
        cdef Py_ssize_t maxn = longest_of(xoff)
        cdef Py_ssize_t maxw = skc_rows_width(maxn)
        step, _, iins, idele, ipot = self._grid
        cdef const int32_t[::1] gins = iins
        cdef const int32_t[::1] gdele = idele
        cdef const int32_t[:, ::1] gpot = ipot
        cdef Table* t = &self.t
        cdef double gstep = step
        cdef Py_ssize_t item, i, c, n, width = 0, failed = 0
        cdef Py_ssize_t* loaded
        cdef int32_t* prof
        cdef cp_t* extra
        cdef int64_t* res
        cdef void* prof_raw
        # P of each OCR string (deleting all of it): what every distance adds, and the
        # whole distance to an empty truth string.
        p_arr = np.empty(nx, dtype=np.int64)
        cdef int64_t[::1] p = p_arr
        for i in range(nx):
            p[i] = steps_sum(&gdele[0], &xid[xoff[i]], xoff[i + 1] - xoff[i])
        if wid_arr is not None:
            np.asarray(vout)[:, empty] = (p_arr * gstep)[:, None]
        with nogil, parallel(num_threads=n_threads):
            prof_raw = malloc((t.n + maxn) * (maxw + 4) * sizeof(int32_t) + SKC_ALIGN_SLACK)
            prof = <int32_t*> skc_align64(prof_raw)
            extra = <cp_t*> malloc((maxn + 1) * sizeof(cp_t))
            res = <int64_t*> malloc(ROWS_CHUNK * sizeof(int64_t))
            loaded = <Py_ssize_t*> malloc(2 * sizeof(Py_ssize_t))  # OCR string, n_extra
            if loaded != NULL:
                loaded[0] = -1
            for item in prange(nx * nchunks, schedule="dynamic", chunksize=1):
                i = item // nchunks
                c = item - i * nchunks
                if prof == NULL or extra == NULL or res == NULL or loaded == NULL:
                    failed += 1
                    continue
                n = xoff[i + 1] - xoff[i]
                # Every thread's first item of an OCR string builds its profile (a few KiB).
                width = skc_rows_width(n)
                if loaded[0] != i:
                    loaded[1] = skc_rows_profile(&gpot[0, 0], t.n, &gdele[0], &gins[0],
                                                 &xid[xoff[i]], &xcp[xoff[i]], n, width,
                                                 extra, prof)
                    loaded[0] = i
                skc_rows_run(prof, width, t.n, extra, loaded[1], &yid[0], &ycp[0], &co[0],
                             plcp, &ccum[0], pwid, c * ROWS_CHUNK,
                             min((c + 1) * ROWS_CHUNK, nk), p[i], gstep, res, &vout[i, 0],
                             level)
            free(prof_raw)
            free(extra)
            free(res)
            free(loaded)
        if failed:
            raise MemoryError("could not allocate the rows kernel's profile")

    def _grid_fits(self, xoff, yoff):
        """Whether ``pairwise`` of strings at these offsets runs on the int32 lanes now."""
        return on_grid(self, int(np.diff(xoff).max()), int(np.diff(yoff).max()))

    def _fits_grid(self, Py_ssize_t xlongest, Py_ssize_t ylongest):
        """Whether strings of at most these lengths can run on the int32 lanes.

        The costs must be whole numbers of grid steps, and no value the DP forms
        may reach 2^31 steps in magnitude: with its potentials (``_grid_body.h``)
        every value lies between minus the cost of deleting all of an X string
        and inserting all of a Y string, and the largest cost; a substitution
        cost minus the potentials is at least minus twice the largest cost.  The
        longest strings times the largest costs bound those sums without a pass
        over the characters (on a grid of 2^-16, costs of 1 allow 16,000 + 16,000).
        """
        if self.t.gpot == NULL:
            return False
        _, _, ins_i, dele_i, _ = self._grid
        bound = xlongest * int(dele_i.max()) + ylongest * int(ins_i.max()) + 2 * self.t.gmax
        return bound < 2**31

    cdef _unsort_columns(self, double[:, ::1] vout, const int64_t[::1] order, int n_threads):
        """Move column c of every row to column order[c]."""
        cdef Py_ssize_t i, c, nx = vout.shape[0], ny = vout.shape[1], failed = 0
        cdef double* row
        with nogil, parallel(num_threads=n_threads):
            row = <double*> malloc(ny * sizeof(double))
            for i in prange(nx, schedule="static"):
                if row == NULL:
                    failed += 1
                    continue
                memcpy(row, &vout[i, 0], ny * sizeof(double))
                for c in range(ny):
                    vout[i, order[c]] = row[c]
            free(row)
        if failed:
            raise MemoryError("could not allocate a row buffer")

    def align(self, str a not None, str b not None):
        """One cheapest alignment of ``a`` to ``b``.

        Returns ``(op, src, tgt, cost)``: op codes (0 match, 1 substitution,
        2 deletion, 3 insertion), source and target code points (-1 for a gap)
        and each column's cost.
        """
        return self.align_batch([a], [b], 1, True)[:4]

    def align_batch(self, list X not None, list Y not None, int n_threads=1, bint costs=False):
        """Align ``X[k]`` to ``Y[k]`` for every k; columns of all pairs end to end.

        Returns ``(op, src, tgt, pair)`` (and ``cost`` before ``pair`` when
        ``costs``): int8 op codes, int32 code points (-1 for a gap), the
        column's cost, and the int64 index of the pair each column belongs to.
        """
        self._check()
        if len(X) != len(Y):
            raise ValueError(f"X and Y must have the same length, got {len(X)} and {len(Y)}")
        xo, xi, xc = self._encode_list(X, "X")
        yo, yi, yc = self._encode_list(Y, "Y")
        cdef Py_ssize_t npairs = len(X)
        lx = np.diff(xo)
        ly = np.diff(yo)
        need, base, op, src, tgt, cost = _align_columns(lx, ly, MAX_ALIGN_CELLS)
        if cost.shape[0] == 0:
            return _no_columns(costs)
        lens = np.zeros(npairs, dtype=np.int64)
        cdef int8_t[::1] vop = op
        cdef int32_t[::1] vsrc = src
        cdef int32_t[::1] vtgt = tgt
        cdef double[::1] vcost = cost
        cdef const int64_t[::1] vbase = base
        cdef int64_t[::1] vlens = lens
        cdef const int64_t[::1] xoff = xo
        cdef const int64_t[::1] yoff = yo
        cdef const int32_t[::1] xid = xi
        cdef const int32_t[::1] yid = yi
        cdef const cp_t[::1] xcp = xc
        cdef const cp_t[::1] ycp = yc
        cdef Py_ssize_t maxm = int(ly.max())
        cdef const int64_t[::1] vneed = need
        cdef Py_ssize_t p, tid, failed = 0
        cdef double* work
        cdef Table* t = &self.t
        n_threads = skc_threads(n_threads)
        # One direction matrix per thread, grown to the largest pair that thread meets:
        # a single long pair among many short ones costs its cells once, not once per thread.
        cdef unsigned char** moves = <unsigned char**> calloc(n_threads, sizeof(void*))
        cdef int64_t* cap = <int64_t*> calloc(n_threads, sizeof(int64_t))
        if moves == NULL or cap == NULL:
            free(moves)
            free(cap)
            raise MemoryError("could not allocate alignment buffers")
        with nogil, parallel(num_threads=n_threads):
            work = <double*> malloc((4 * maxm + 2) * sizeof(double))
            for p in prange(npairs, schedule="dynamic", chunksize=256):
                tid = threadid()
                if vneed[p] > cap[tid]:
                    free(moves[tid])
                    moves[tid] = <unsigned char*> malloc(vneed[p])
                    cap[tid] = vneed[p] if moves[tid] != NULL else 0
                if work != NULL and moves[tid] != NULL:
                    vlens[p] = dp_align(t, &xid[xoff[p]], &xcp[xoff[p]], xoff[p + 1] - xoff[p],
                             &yid[yoff[p]], &ycp[yoff[p]], yoff[p + 1] - yoff[p],
                             work, moves[tid], &vop[0], &vsrc[0], &vtgt[0], &vcost[0],
                             vbase[p + 1])
                else:
                    failed += 1
            free(work)
        for p in range(n_threads):
            free(moves[p])
        free(moves)
        free(cap)
        if failed:
            raise MemoryError("could not allocate alignment buffers")
        # Each pair's columns end at base[p + 1]; gather them end to end (in parallel,
        # into new arrays: cheaper than boolean masks over the padded ones).
        starts = np.zeros(npairs + 1, dtype=np.int64)
        np.cumsum(lens, out=starts[1:])
        cdef Py_ssize_t size = starts[npairs]
        op2 = np.empty(size, dtype=np.int8)
        src2 = np.empty(size, dtype=np.int32)
        tgt2 = np.empty(size, dtype=np.int32)
        cost2 = np.empty(size if costs else 0, dtype=np.float64)
        pair = np.empty(size, dtype=np.int64)
        cdef int8_t[::1] wop = op2
        cdef int32_t[::1] wsrc = src2
        cdef int32_t[::1] wtgt = tgt2
        cdef double[::1] wcost = cost2
        cdef int64_t[::1] wpair = pair
        cdef const int64_t[::1] vstart = starts
        cdef Py_ssize_t q, c, a, b
        with nogil:
            for q in prange(npairs, schedule="static", num_threads=n_threads):
                a = vstart[q]
                b = vbase[q + 1] - vlens[q]
                for c in range(vlens[q]):
                    wop[a + c] = vop[b + c]
                    wsrc[a + c] = vsrc[b + c]
                    wtgt[a + c] = vtgt[b + c]
                    wpair[a + c] = q
                    if costs:
                        wcost[a + c] = vcost[b + c]
        if costs:
            return op2, src2, tgt2, cost2, pair
        return op2, src2, tgt2, pair

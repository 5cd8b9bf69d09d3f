# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Exact nearest lexicon words under a ``CostKernel``'s costs, by a trie with shared DP columns.

The query is the OCR side (the rows of the DP), a lexicon word the truth side
(the columns).  Walking down the trie adds one truth character per node, so the
DP column of a node is computed once, from its parent's, and shared by every
word below it.  Every cell is the minimum of the same three sums as in
``_dp.dp_distance``, read through the same ``Table`` and ``sub_cost``
(``_dp.pxd``), so the distances are bit-for-bit those of ``CostKernel.distance``.

Pruning is exact for any non-negative costs.  A path to the end of any word
below a node leaves the node's column at some row ``i`` and only adds costs
after it, so the word costs at least ``column[i]`` plus what the remaining
characters must cost: when the word can have at most ``s`` characters left and
the query has ``r > s``, at least ``r - s`` OCR characters are deleted (each
costing at least the cheapest deletion among them); when the word has at least
``s > r`` characters left, ``s - r`` insertions (the length bound).  A subtree
whose bound exceeds the k-th best distance found so far (or the radius) is
skipped; ties with the k-th best are still visited, so ties are broken by the
lexicon index exactly as a stable sort of the brute-force distances does.
"""

import numpy as np

from libc.math cimport INFINITY
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport calloc, free, malloc, qsort, realloc
from cython.parallel cimport parallel, prange

from skocrcost._dp cimport CostKernel, Table, cp_t, lookup, sub_cost

cdef extern from "_omp.h":
    int skc_threads(int wanted) nogil

# A bound that adds the length term is a product and a sum rounded once, while a
# real path rounds at every step: shrink it by far more than that rounding error.
cdef double SLACK = 1.0 - 1e-10

# Cache the substitution rows of a query up to this many doubles (small alphabets).
cdef Py_ssize_t SUB_CACHE = 1 << 16

# The single-character tables the kernel compiles (CostKernel._kernel_args()).
N_KERNEL_ARGS = 9

# Largest column stack (bytes) one query's search may allocate: (longest word + 1)
# columns of (query length + 1) doubles, per thread.
MAX_SEARCH_BYTES = 1 << 30


cdef struct Hit:
    double d
    int64_t i


cdef struct Found:
    Hit* hits
    Py_ssize_t size
    Py_ssize_t capacity       # radius mode: allocated hits; k-NN mode: k
    bint radius_mode
    double bound              # prune subtrees whose lower bound exceeds this


cdef struct Trie:
    Py_ssize_t n_nodes
    const cp_t* cp            # code point of the edge into each node (preorder)
    const int32_t* nid        # its id in the kernel's alphabet
    const int32_t* depth
    const int64_t* size       # nodes in the subtree, the node included
    const int32_t* lo         # shortest and longest word length in the subtree
    const int32_t* hi
    const int64_t* end_ptr    # words ending at node v: ends[end_ptr[v]:end_ptr[v + 1]]
    const int64_t* ends
    double min_ins            # cheapest insertion of any lexicon character


cdef int hit_cmp(const void* a, const void* b) noexcept nogil:
    cdef const Hit* x = <const Hit*> a
    cdef const Hit* y = <const Hit*> b
    if x.d < y.d:
        return -1
    if x.d > y.d:
        return 1
    return (x.i > y.i) - (x.i < y.i)


cdef inline bint hit_after(double d, int64_t i, const Hit* h) noexcept nogil:
    return d > h.d or (d == h.d and i > h.i)


cdef void heap_sift_down(Hit* h, Py_ssize_t size, Py_ssize_t p) noexcept nogil:
    """Restore the max-heap (by distance, then index) below position p."""
    cdef Py_ssize_t c
    cdef Hit tmp
    while True:
        c = 2 * p + 1
        if c >= size:
            return
        if c + 1 < size and hit_after(h[c + 1].d, h[c + 1].i, &h[c]):
            c += 1
        if not hit_after(h[c].d, h[c].i, &h[p]):
            return
        tmp = h[p]
        h[p] = h[c]
        h[c] = tmp
        p = c


cdef int found_add(Found* f, double d, int64_t i) noexcept nogil:
    """Offer one word; returns -1 when memory runs out."""
    cdef Py_ssize_t c, p
    cdef Hit tmp
    cdef Hit* grown
    if f.radius_mode:
        if d > f.bound:
            return 0
        if f.size == f.capacity:
            grown = <Hit*> realloc(f.hits, 2 * f.capacity * sizeof(Hit))
            if grown == NULL:
                return -1
            f.hits = grown
            f.capacity *= 2
        f.hits[f.size].d = d
        f.hits[f.size].i = i
        f.size += 1
        return 0
    if f.size < f.capacity:
        c = f.size
        f.hits[c].d = d
        f.hits[c].i = i
        f.size += 1
        while c > 0:
            p = (c - 1) >> 1
            if not hit_after(f.hits[c].d, f.hits[c].i, &f.hits[p]):
                break
            tmp = f.hits[p]
            f.hits[p] = f.hits[c]
            f.hits[c] = tmp
            c = p
    elif not hit_after(d, i, &f.hits[0]):  # every index is offered once: no equality
        f.hits[0].d = d
        f.hits[0].i = i
        heap_sift_down(f.hits, f.size, 0)
    if f.size == f.capacity:
        f.bound = f.hits[0].d
    return 0


cdef int search(const Table* t, const Trie* tr, const int32_t* aid, const cp_t* acp,
                Py_ssize_t n, double* stack, double* dl, double* sufdel, double* scratch,
                Found* f) noexcept nogil:
    """Walk the trie for one query, offering every word not pruned to ``f``."""
    cdef Py_ssize_t i, v, w = n + 1, r, a_end, c_start
    cdef int32_t b, j
    cdef cp_t c
    cdef double x, y, ib, lb, rem
    cdef double* col
    cdef double* par
    cdef double* subrow
    # The substitution costs of the query against one lexicon character are the
    # same at every node carrying it: compute each such row once per query.
    cdef double* cache = NULL
    cdef unsigned char* cached = NULL
    for i in range(n):
        dl[i] = t.dele[aid[i]]
    # sufdel[i]: the cheapest deletion among OCR characters i .. n - 1 (rows left after row i).
    if n:
        sufdel[n - 1] = dl[n - 1]
        for i in range(n - 2, -1, -1):
            sufdel[i] = dl[i] if dl[i] < sufdel[i + 1] else sufdel[i + 1]
    # The root's column: the empty prefix, every OCR character deleted.
    stack[0] = 0.0
    for i in range(n):
        stack[i + 1] = stack[i] + dl[i]
    for r in range(tr.end_ptr[0], tr.end_ptr[1]):
        if found_add(f, stack[n], tr.ends[r]) < 0:
            return -1
    if n > 0 and t.n * n <= SUB_CACHE:
        cache = <double*> malloc(t.n * n * sizeof(double))
        cached = <unsigned char*> calloc(t.n, 1)
        if cache == NULL or cached == NULL:  # no cache, the same results
            free(cache)
            free(cached)
            cache = NULL
            cached = NULL
    v = 1
    while v < tr.n_nodes:
        j = tr.depth[v]
        par = stack + (j - 1) * w
        col = stack + j * w
        b = tr.nid[v]
        c = tr.cp[v]
        ib = t.ins[b]
        col[0] = par[0] + ib
        if cache != NULL and b != 0:  # id b > 0 stands for c alone: a match is aid == b
            subrow = cache + b * n
            if not cached[b]:
                cached[b] = 1
                for i in range(n):
                    subrow[i] = 0.0 if aid[i] == b else sub_cost(t, aid[i], b)
        else:
            subrow = scratch
            for i in range(n):
                subrow[i] = 0.0 if acp[i] == c else sub_cost(t, aid[i], b)
        for i in range(n):
            # The moves in dp_distance's order: diagonal, deletion, insertion.
            x = par[i] + subrow[i]
            y = col[i] + dl[i]
            x = y if y < x else x
            y = par[i + 1] + ib
            col[i + 1] = y if y < x else x
        # Lower bound of every word in the subtree (see the module docstring): rows
        # i < a_end have more OCR characters left than the longest word has truth
        # characters, rows i >= c_start fewer than the shortest; the rest add nothing.
        a_end = n - (tr.hi[v] - j)
        a_end = 0 if a_end < 0 else a_end
        c_start = n - (tr.lo[v] - j) + 1  # <= n + 1: no word is shorter than its node
        lb = INFINITY
        for i in range(a_end):
            rem = (a_end - i) * sufdel[i]
            x = (col[i] + rem) * SLACK if rem > 0.0 else col[i]
            lb = x if x < lb else lb
        for i in range(a_end, c_start if c_start > 0 else 0):
            lb = col[i] if col[i] < lb else lb
        for i in range(c_start if c_start > 0 else 0, n + 1):
            rem = (i - c_start + 1) * tr.min_ins
            x = (col[i] + rem) * SLACK if rem > 0.0 else col[i]
            lb = x if x < lb else lb
        if lb > f.bound:
            v += tr.size[v]
            continue
        for r in range(tr.end_ptr[v], tr.end_ptr[v + 1]):
            if found_add(f, col[n], tr.ends[r]) < 0:
                free(cache)
                free(cached)
                return -1
        v += 1
    free(cache)
    free(cached)
    return 0


cdef Hit* search_one(const Table* t, const Trie* tr, Py_ssize_t max_depth,
                     const int32_t* aid, const cp_t* acp, Py_ssize_t n,
                     Py_ssize_t k, double radius, Py_ssize_t* count) noexcept nogil:
    """Sorted hits of one query (k-NN when k > 0, else within radius); NULL when out of memory."""
    cdef Found f
    cdef Py_ssize_t cells = (max_depth + 1) * (n + 1)
    cdef double* work = <double*> malloc((cells + 3 * n + 2) * sizeof(double))
    f.radius_mode = k <= 0
    f.capacity = k if k > 0 else 16
    f.size = 0
    f.bound = radius if k <= 0 else INFINITY
    f.hits = <Hit*> malloc(f.capacity * sizeof(Hit))
    if work == NULL or f.hits == NULL or search(
            t, tr, aid, acp, n, work, work + cells, work + cells + n + 1,
            work + cells + 2 * n + 2, &f) < 0:
        free(work)
        free(f.hits)
        return NULL
    free(work)
    qsort(f.hits, f.size, sizeof(Hit), hit_cmp)
    count[0] = f.size
    return f.hits


def build_trie(list words not None):
    """The trie of ``words`` in preorder: ``(cp, depth, size, lo, hi, end_ptr, ends)``.

    Node 0 is the root (the empty prefix).  ``ends`` lists the word indices sorted
    by word, then index; the words ending at node ``v`` are
    ``ends[end_ptr[v]:end_ptr[v + 1]]``.  ``lo``/``hi`` are the shortest and
    longest word lengths in each subtree.
    """
    cdef Py_ssize_t n_words = len(words), w, d, m, L, total = 1, max_len = 0, v
    cdef str s, prev
    order = sorted(range(n_words), key=words.__getitem__)
    # Words in sorted order are the trie's preorder: each adds the nodes past the
    # prefix it shares with the word before it.
    shared = np.zeros(n_words, dtype=np.int64)
    cdef int64_t[::1] vshared = shared
    prev = ""
    for w in range(n_words):
        s = words[order[w]]
        m = len(s)
        d = 0
        while d < m and d < len(prev) and s[d] == prev[d]:
            d += 1
        vshared[w] = d
        total += m - d
        max_len = m if m > max_len else max_len
        prev = s
    cp = np.zeros(total, dtype=np.uint32)
    depth = np.zeros(total, dtype=np.int32)
    parent = np.zeros(total, dtype=np.int64)
    counts = np.zeros(total, dtype=np.int64)
    path = np.zeros(max_len + 1, dtype=np.int64)
    cdef cp_t[::1] vcp = cp
    cdef int32_t[::1] vdepth = depth
    cdef int64_t[::1] vparent = parent, vcounts = counts, vpath = path
    v = 1
    for w in range(n_words):
        s = words[order[w]]
        m = len(s)
        for L in range(vshared[w], m):
            vcp[v] = s[L]
            vdepth[v] = <int32_t> (L + 1)
            vparent[v] = vpath[L]
            vpath[L + 1] = v
            v += 1
        vcounts[vpath[m]] += 1
    size = np.ones(total, dtype=np.int64)
    lo = np.where(counts > 0, depth, np.iinfo(np.int32).max).astype(np.int32)
    hi = np.where(counts > 0, depth, -1).astype(np.int32)
    cdef int64_t[::1] vsize = size
    cdef int32_t[::1] vlo = lo, vhi = hi
    cdef int64_t p
    for v in range(total - 1, 0, -1):
        p = vparent[v]
        vsize[p] += vsize[v]
        vlo[p] = vlo[v] if vlo[v] < vlo[p] else vlo[p]
        vhi[p] = vhi[v] if vhi[v] > vhi[p] else vhi[p]
    end_ptr = np.zeros(total + 1, dtype=np.int64)
    np.cumsum(counts, out=end_ptr[1:])
    return cp, depth, size, lo, hi, end_ptr, np.asarray(order, dtype=np.int64)


def _rebuild(kernel, trie, n_words):
    obj = LexiconIndex.__new__(LexiconIndex)
    obj._set(kernel, trie, n_words)
    return obj


cdef class LexiconIndex:
    """Exact k nearest (or all within a radius) lexicon words of OCR queries.

    Parameters
    ----------
    kernel : CostKernel
        The costs (a ``WeightedLevenshtein``); the distance is ``kernel.distance(query, word)``.
    words : list of str
        The lexicon; duplicates are kept, each a neighbour of its own.
    """

    cdef readonly CostKernel kernel
    cdef readonly tuple trie
    cdef readonly Py_ssize_t n_words
    cdef readonly Py_ssize_t max_depth
    cdef object _nid
    cdef Trie tr

    def __init__(self, CostKernel kernel not None, list words not None):
        if len(kernel._kernel_args()) != N_KERNEL_ARGS:
            raise TypeError("the trie index reads single-character cost tables only")
        if not words:
            raise ValueError("the lexicon is empty; at least one word is needed")
        self._set(kernel, build_trie(words), len(words))

    def _set(self, CostKernel kernel, tuple trie, Py_ssize_t n_words):
        kernel._check()
        cp, depth, size, lo, hi, end_ptr, ends = trie
        self.kernel = kernel
        self.trie = trie
        self.n_words = n_words
        self.max_depth = int(depth.max())
        nid = np.zeros(cp.shape[0], dtype=np.int32)
        cdef const cp_t[::1] vcp = cp
        cdef int32_t[::1] vnid = nid
        cdef Py_ssize_t v
        cdef double m = INFINITY
        for v in range(1, cp.shape[0]):
            vnid[v] = lookup(&kernel.t, vcp[v])
            if kernel.t.ins[vnid[v]] < m:
                m = kernel.t.ins[vnid[v]]
        self._nid = nid
        self._point(cp, nid, depth, size, lo, hi, end_ptr, ends)
        self.tr.min_ins = m if m < INFINITY else 0.0

    cdef _point(self, const cp_t[::1] cp, const int32_t[::1] nid, const int32_t[::1] depth,
                const int64_t[::1] size, const int32_t[::1] lo, const int32_t[::1] hi,
                const int64_t[::1] end_ptr, const int64_t[::1] ends):
        self.tr.n_nodes = cp.shape[0]
        self.tr.cp = &cp[0]
        self.tr.nid = &nid[0]
        self.tr.depth = &depth[0]
        self.tr.size = &size[0]
        self.tr.lo = &lo[0]
        self.tr.hi = &hi[0]
        self.tr.end_ptr = &end_ptr[0]
        self.tr.ends = &ends[0]

    def __reduce__(self):
        return (_rebuild, (self.kernel, self.trie, self.n_words))

    @property
    def n_nodes(self):
        return self.tr.n_nodes

    def _run(self, list queries, Py_ssize_t k, double radius, int n_threads):
        """Sorted hits of every query: a list of (pointer-owning) arrays, one per query."""
        offsets, ids, cps = self.kernel._encode_list(queries)
        cdef Py_ssize_t nq = len(queries), q, failed = 0
        longest = int(np.diff(offsets).max()) if nq else 0
        need = 8 * (self.max_depth + 1) * (longest + 1)
        if need > MAX_SEARCH_BYTES:
            # Checked before any allocation: a long OCR line against a lexicon holding a
            # long entry would otherwise take (or overcommit) gigabytes per thread.
            raise ValueError(
                f"searching a query of {longest} characters among lexicon words of up to "
                f"{self.max_depth} needs {need} bytes per thread, more than the limit of "
                f"{MAX_SEARCH_BYTES}; split long lines into tokens")
        cdef const int64_t[::1] off = offsets
        cdef const int32_t[::1] vid = ids
        cdef const cp_t[::1] vcp = cps
        hits_ptr = np.zeros(max(nq, 1), dtype=np.uintp)
        counts = np.zeros(max(nq, 1), dtype=np.intp)
        cdef size_t[::1] vptr = hits_ptr
        cdef Py_ssize_t[::1] vcount = counts
        cdef Hit* h
        cdef const Table* t = &self.kernel.t
        cdef const Trie* tr = &self.tr
        cdef Py_ssize_t max_depth = self.max_depth
        n_threads = skc_threads(n_threads)
        with nogil, parallel(num_threads=n_threads):
            for q in prange(nq, schedule="dynamic", chunksize=1):
                h = search_one(t, tr, max_depth, &vid[off[q]], &vcp[off[q]],
                               off[q + 1] - off[q], k, radius, &vcount[q])
                vptr[q] = <size_t> h
                if h == NULL:
                    failed += 1
        return hits_ptr, counts, failed

    def kneighbors(self, list queries not None, Py_ssize_t k, int n_threads=1):
        """The ``k`` nearest words of every query: ``(distances, indices)``, shape (n, k).

        Sorted by distance, ties by lexicon index (a stable sort of brute force).
        """
        if not 1 <= k <= self.n_words:
            raise ValueError(f"k must be in [1, {self.n_words}], got {k}")
        cdef Py_ssize_t nq = len(queries), q, j
        dist = np.empty((nq, k), dtype=np.float64)
        ind = np.empty((nq, k), dtype=np.int64)
        cdef double[:, ::1] vd = dist
        cdef int64_t[:, ::1] vi = ind
        hits_ptr, counts, failed = self._run(queries, k, 0.0, n_threads)
        cdef size_t[::1] vptr = hits_ptr
        cdef Hit* h
        for q in range(nq):
            h = <Hit*> vptr[q]
            if h != NULL:
                for j in range(k):
                    vd[q, j] = h[j].d
                    vi[q, j] = h[j].i
                free(h)
        if failed:
            raise MemoryError("could not allocate the search buffers")
        return dist, ind

    def radius_neighbors(self, list queries not None, double radius, int n_threads=1):
        """Every word within ``radius`` (inclusive) of every query, sorted as in kneighbors.

        Returns ``(offsets, distances, indices)``: the hits of query ``q`` are
        ``[offsets[q], offsets[q + 1])``.
        """
        if not radius >= 0:
            raise ValueError(f"radius must be >= 0, got {radius}")
        cdef Py_ssize_t nq = len(queries), q, j, pos
        hits_ptr, counts, failed = self._run(queries, 0, radius, n_threads)
        offsets = np.zeros(nq + 1, dtype=np.int64)
        np.cumsum(counts[:nq], out=offsets[1:])
        dist = np.empty(offsets[nq], dtype=np.float64)
        ind = np.empty(offsets[nq], dtype=np.int64)
        cdef double[::1] vd = dist
        cdef int64_t[::1] vi = ind
        cdef size_t[::1] vptr = hits_ptr
        cdef Py_ssize_t[::1] vcount = counts
        cdef Hit* h
        pos = 0
        for q in range(nq):
            h = <Hit*> vptr[q]
            if h != NULL:
                for j in range(vcount[q]):
                    vd[pos + j] = h[j].d
                    vi[pos + j] = h[j].i
                pos += vcount[q]
                free(h)
        if failed:
            raise MemoryError("could not allocate the search buffers")
        return offsets, dist, ind

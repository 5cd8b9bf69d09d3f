# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Exact nearest lexicon words under a ``CostKernel``'s costs, by a trie with shared DP columns.

The query is the OCR side (the rows of the DP), a lexicon word the truth side
(the columns).  Walking down the trie adds one truth character per node, so the
DP column of a node is computed once, from its parent's, and shared by every
word below it.  Every cell is the minimum of the same three sums as in
``_cost_kernel.dp_distance``, read through the same ``Table`` and ``sub_cost``
(``_cost_kernel.pxd``), so the distances are bit-for-bit those of ``CostKernel.distance``.

Pruning is exact for any non-negative costs.  A path to the end of any word
below a node leaves the node's column at some row ``i`` and only adds costs
after it, so the word costs at least ``column[i]`` plus what the remaining
characters must cost: when the word can have at most ``s`` characters left and
the query has ``r > s``, at least ``r - s`` OCR characters are deleted (each
costing at least the cheapest deletion among them); when the word has at least
``s > r`` characters left, ``s - r`` insertions (the length bound).  And an OCR
character that occurs nowhere below the node cannot be matched there: it is
deleted or substituted, at the cheaper of its deletion and its cheapest
substitution into any lexicon character (the character bound; each node keeps
the set of characters below it as a 64-bit mask).  The larger of the two bounds
holds, and on OCR queries the character bound halves the nodes visited.  A subtree
whose bound exceeds the k-th best distance found so far (or the radius) is
skipped; ties with the k-th best are still visited, so ties are broken by the
lexicon index exactly as a stable sort of the brute-force distances does.

Three things make the walk cheap without changing its result.  The query's own
prefixes are visited first (OCR keeps most characters, so near words tighten
the k-NN bound early), then the rest of their subtrees from the deepest up.
A column keeps only its band of cells within the bound: a cell above it
only leads to words above it, so a child computes the cells its parent's band
reaches and no others.  And the nodes are stored breadth first, each node's
children side by side (``breadth_first``): a visit reads a node's children in
a row, most of them pruned, which the CPU fetches together, where in preorder
each next sibling lies past a whole subtree and waits on its own cache miss.
Searched with the index out of the CPU's caches, as between the calls of a
loop over lines, a word costs half as much so.

Near the root every bound lets most nodes through: within a cost of 3 (about
three OCR errors), a word's first three characters may be almost anything.  So
a k-nearest search within a largest distance is split (``search_split``): a
path to a word within the bound b crosses the middle row of the query, and the
cost before the crossing or the cost after it is at most b / 2.  One pass walks
the trie and leaves a subtree once no path into it can cross within b / 2
before; another walks a second trie, of the reversed words, with the reversed
query, for the cost after.  Each prunes near its root by half the bound: on
OCR words, three fifths of the columns for the same words.
"""

import numpy as np

from libc.math cimport INFINITY
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, qsort, realloc
from libc.string cimport memset
from cython.parallel cimport parallel, prange

from skocrcost._kernels._cost_kernel cimport (CostKernel, Table, cp_t, dp_distance,
                                              dp_work_size, lookup, sub_cost)

cdef extern from "_omp.h":
    int skc_threads(int wanted) nogil

# A bound that adds the length term is a product and a sum rounded once, while a
# real path rounds at every step: shrink it by far more than that rounding error.
cdef double SLACK = 1.0 - 1e-10

# A split search (search_split) halves the bound at the row that splits the query,
# and its backward pass sums each path's costs in the other order: widen both tests
# by far more than that rounding error, so that no word within the bound is missed.
cdef double HALF = 0.5 * (1.0 + 1e-9)
cdef double LOOSE = 1.0 + 1e-9

# Split k-NN searches keep at most this many hits (a word the backward pass meets
# again is looked for among them).
cdef Py_ssize_t SPLIT_MAX_K = 64

# Cache the substitution rows of a query up to this many doubles (small alphabets).
cdef Py_ssize_t SUB_CACHE = 1 << 16

# The single-character tables the kernel compiles (CostKernel._kernel_args()).
from ._constants import N_KERNEL_ARGS

# Largest column stack (bytes) one query's search may allocate: (longest word + 1)
# columns of (query length + 1) doubles, per thread.
MAX_SEARCH_BYTES = 1 << 30


cdef extern from *:
    """
    #define skc_prefetch(p) __builtin_prefetch(p)
    #include <stdint.h>
    #include <string.h>
    /* x if keep else +0.0, without a branch: which characters a node lacks is
       data, not a pattern the branch predictor could learn. */
    static inline double skc_keep_if(double x, int keep) {
        uint64_t b;
        memcpy(&b, &x, sizeof b);
        b &= (uint64_t) 0 - (uint64_t) (keep != 0);
        memcpy(&x, &b, sizeof b);
        return x;
    }
    #if defined(__SSE2__)
    #include <emmintrin.h>
    /* max(x, 0) as one maxsd: the compiler turns the ternary into a branch. */
    static inline double skc_pos(double x) {
        return _mm_cvtsd_f64(_mm_max_sd(_mm_set_sd(x), _mm_setzero_pd()));
    }
    static inline double skc_max(double x, double y) {
        return _mm_cvtsd_f64(_mm_max_sd(_mm_set_sd(x), _mm_set_sd(y)));
    }
    #else
    static inline double skc_pos(double x) { return x > 0.0 ? x : 0.0; }
    static inline double skc_max(double x, double y) { return x > y ? x : y; }
    #endif
    """
    void prefetch "skc_prefetch" (const void* p) noexcept nogil
    double positive_part "skc_pos" (double x) noexcept nogil
    double larger "skc_max" (double x, double y) noexcept nogil
    double keep_if "skc_keep_if" (double x, int keep) noexcept nogil


cdef struct Found:
    Hit* hits
    Py_ssize_t size
    Py_ssize_t capacity       # radius mode: allocated hits; k-NN mode: k
    bint radius_mode
    double bound              # prune subtrees whose lower bound exceeds this


cdef struct Node:
    # 32 bytes, two per cache line; stored breadth first, each node's children side
    # by side (the module's docstring says why).
    uint64_t mask             # the characters strictly below the node (char_masks())
    int32_t nid               # id in the kernel's alphabet of the edge into the node
    int32_t first             # its first child; the children are first .. first + n_children - 1
    int32_t n_children
    int32_t end_begin         # words ending here: ends[end_begin:nodes[v + 1].end_begin]
    cp_t cp                   # code point of the edge into the node
    uint16_t depth
    uint8_t lo                # shortest word below, minus depth, at most 255 (a weaker bound)
    uint8_t hi                # longest word below, minus depth; LONG: LONG or more (no bound)


NODE_DTYPE = np.dtype([("mask", np.uint64), ("nid", np.int32), ("first", np.int32),
                       ("n_children", np.int32), ("end_begin", np.int32), ("cp", np.uint32),
                       ("depth", np.uint16), ("lo", np.uint8), ("hi", np.uint8)], align=True)

# Node and word counts must fit in int32, words in uint16 (MAX_WORD).
MAX_NODES = (1 << 31) - 1
MAX_WORD = (1 << 16) - 1
cdef int LONG = 255
# Character masks: the most frequent lexicon characters get a bit each, the rest
# share the last one (a shared bit only weakens the bound).
cdef int MASK_BITS = 64


assert NODE_DTYPE.itemsize == sizeof(Node), "NODE_DTYPE must match struct Node"


cdef struct Trie:
    Py_ssize_t n_nodes
    const Node* nodes         # n_nodes + 1, breadth first: the last one only ends the
                              # last node's words
    const int64_t* ends
    double min_ins            # cheapest insertion of any lexicon character
    const cp_t* lex_cp        # the lexicon's distinct characters, sorted
    const uint64_t* lex_bit   # and the mask bit of each
    Py_ssize_t n_lex
    const int32_t* lex_ids    # the distinct kernel ids of the lexicon's characters
    Py_ssize_t n_lex_ids


cdef struct Query:
    # One query's encoding and search buffers (see search()).
    const int32_t* aid
    const cp_t* acp
    Py_ssize_t n
    double* stack             # column of the node at depth j: stack[j * (n + 1):]
    double* dl                # deletion cost of each OCR character
    double* sufdel            # the cheapest deletion among OCR characters i .. n - 1
    double* scratch
    double* cache             # substitution rows per lexicon id, or NULL
    unsigned char* cached
    int32_t* band_lo          # column j's cells outside [band_lo[j], band_hi[j]] exceed
    int32_t* band_hi          # the bound they were computed under (empty when lo > hi)
    int64_t* next             # the walk's levels (walk()): the next child to visit at
    int64_t* stop             # depth j, and the end of those children
    uint64_t* qbit            # each OCR character's mask bit, 0 if no lexicon word has it
    uint64_t qall             # the union of qbit
    double* cm                # what an OCR character costs where it cannot be matched
    double* always            # suffix sums of cm over the characters no word has
    double* miss              # suffix sums of cm over the characters missing below a node
    # A pass of a split search (search_split); anchor -1: a whole search.
    Py_ssize_t anchor         # the row that splits the query
    uint8_t* anchored         # per depth: the node on the walk's path there, or a node
                              # above it, has its cell at row ``anchor`` within half the bound
    int64_t* pathv            # the node on the walk's path at each depth
    const int32_t* faid       # backward pass: the query forwards, whose distance to a
    const cp_t* facp          # word it finds is computed as the forward walk computes it
    double* fwork             # (dp_distance's work space, and the word's ids and code
    int32_t* wid              # points)
    cp_t* wcp


cdef int hit_cmp(const void* a, const void* b) noexcept nogil:
    cdef const Hit* x = <const Hit*> a
    cdef const Hit* y = <const Hit*> b
    return -1 if hit_before(x, y) else (1 if hit_before(y, x) else 0)


cdef void heap_sift_down(Hit* h, Py_ssize_t size, Py_ssize_t p) noexcept nogil:
    """Restore the max-heap (by distance, then index) below position p."""
    cdef Py_ssize_t c
    cdef Hit tmp
    while True:
        c = 2 * p + 1
        if c >= size:
            return
        if c + 1 < size and hit_before(&h[c], &h[c + 1]):
            c += 1
        if not hit_before(&h[p], &h[c]):
            return
        tmp = h[p]
        h[p] = h[c]
        h[c] = tmp
        p = c


cdef int found_add(Found* f, double d, int64_t i) noexcept nogil:
    """Offer one word; returns -1 when memory runs out."""
    cdef Py_ssize_t c, p
    cdef Hit tmp, new
    cdef Hit* grown
    if d > f.bound:  # beyond the radius, or (k-NN mode) the k-th best or the largest distance
        return 0
    if f.radius_mode:
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
            if not hit_before(&f.hits[p], &f.hits[c]):
                break
            tmp = f.hits[p]
            f.hits[p] = f.hits[c]
            f.hits[c] = tmp
            c = p
    else:
        new.d = d
        new.i = i
        if not hit_before(&f.hits[0], &new):  # every index is offered once: no equality
            f.hits[0] = new
            heap_sift_down(f.hits, f.size, 0)
    if f.size == f.capacity:
        f.bound = f.hits[0].d
    return 0


cdef inline double cell_bound(double c, double fi, double a_end, double c_start1,
                              double sufdel_i, double min_ins, double miss_i) noexcept nogil:
    """Cell i's share (i = fi) of its subtree's lower bound, before SLACK: the cell
    plus the larger of the deletions (rows i < a_end) or insertions (rows i >
    c_start1) the subtree's word lengths force after it and the cost of the OCR
    characters after it that no word below has; no branches, as it runs in the DP loop."""
    return c + larger(
        positive_part(a_end - fi) * sufdel_i + positive_part(fi - c_start1) * min_ins, miss_i)


cdef inline const double* missing(const Trie* tr, Py_ssize_t v, Query* q,
                                  Py_ssize_t lo) noexcept nogil:
    """The character bound of node v's cells ``lo .. n``: for cell i, what the OCR
    characters i .. n - 1 that occur nowhere below v cost at least."""
    cdef uint64_t mask = tr.nodes[v].mask
    cdef Py_ssize_t i
    cdef double acc = 0.0
    if mask & q.qall == q.qall:  # near the root: every character is below
        return q.always
    q.miss[q.n] = 0.0
    for i in range(q.n - 1, lo - 1, -1):
        acc = acc + keep_if(q.cm[i], mask & q.qbit[i] == 0)
        q.miss[i] = acc
    return q.miss


cdef inline double store_band(Query* q, Py_ssize_t j, Py_ssize_t lo, Py_ssize_t hi,
                              double bound, double lb) noexcept nogil:
    """Keep column j's band, its cells within the bound among the computed [lo, hi]
    (hi: the last one within it), for its children; return the lower bound ``lb``.

    A cell above the bound only leads to words above it (costs are non-negative),
    so the children skip it: they read infinity just outside the band.
    """
    cdef double* col = q.stack + j * (q.n + 1)
    while lo <= hi and col[lo] > bound:
        lo += 1
    q.band_lo[j] = <int32_t> lo
    q.band_hi[j] = <int32_t> hi
    if lo > hi:
        return INFINITY
    if lo > 0:
        col[lo - 1] = INFINITY
    if hi < q.n:
        col[hi + 1] = INFINITY
    return lb


cdef inline double node_column(const Table* t, const Trie* tr, Py_ssize_t v, Query* q,
                               double bound) noexcept nogil:
    """Compute node v's DP column from its parent's; return the subtree's lower bound.

    Only the parent's band and the cells it reaches are computed (store_band):
    a cell within the bound has its cheapest predecessor within it too, so
    every such cell is exact, and so is every word distance within the bound.
    """
    cdef const Node* nd = &tr.nodes[v]
    cdef Py_ssize_t i, n = q.n, j = nd.depth, lo = q.band_lo[j - 1], hi = q.band_hi[j - 1]
    cdef Py_ssize_t last, alive = -1
    cdef double* par = q.stack + (j - 1) * (n + 1)
    cdef double* col = par + (n + 1)
    cdef const int32_t* aid = q.aid
    cdef const double* dl = q.dl
    cdef const double* sufdel = q.sufdel
    cdef const double* subrow
    cdef const double* miss
    cdef int32_t b = nd.nid
    cdef cp_t c
    cdef double x, y, d, lb, fi, ib = t.ins[b], min_ins = tr.min_ins
    # Rows i < a_end have more OCR characters left than the longest word below has
    # truth characters, rows i >= c_start fewer than the shortest (c_start <= n + 1:
    # no word is shorter than its node); the rest add nothing.
    cdef double a_end = <double> (n - nd.hi if nd.hi < LONG else -1)
    cdef double c_start1 = <double> (n - nd.lo)
    if lo > hi:
        return INFINITY
    miss = missing(tr, v, q, lo)
    if q.cache != NULL and b != 0:  # id b > 0 stands for c alone: a match is aid == b
        subrow = q.cache + b * n
        if not q.cached[b]:
            q.cached[b] = 1
            for i in range(n):
                q.cache[b * n + i] = 0.0 if aid[i] == b else sub_cost(t, aid[i], b)
    else:
        c = nd.cp
        for i in range(n):
            q.scratch[i] = 0.0 if q.acp[i] == c else sub_cost(t, aid[i], b)
        subrow = q.scratch
    # Cell lo: the diagonal and the cell above come from outside the parent's band.
    d = par[lo] + ib
    col[lo] = d
    fi = <double> lo
    lb = cell_bound(d, fi, a_end, c_start1, sufdel[lo], min_ins, miss[lo])
    alive = lo if d <= bound else alive
    last = hi + 1 if hi < n else n
    for i in range(lo, last):
        # The sums of dp_distance; exact minima, so their order does not change the
        # value: the two moves from the parent's column first (par[hi + 1] holds
        # infinity), off the chain that runs down this column through d, which
        # leaves the CPU room for the bound's bookkeeping.
        x = par[i] + subrow[i]
        y = par[i + 1] + ib
        x = y if y < x else x
        y = d + dl[i]
        d = y if y < x else x
        col[i + 1] = d
        fi = fi + 1.0
        x = cell_bound(d, fi, a_end, c_start1, sufdel[i + 1], min_ins, miss[i + 1])
        lb = x if x < lb else lb
        alive = i + 1 if d <= bound else alive
    # Below the parent's band only deletions continue the column.
    while last < n and d + dl[last] <= bound:
        d = d + dl[last]
        last += 1
        col[last] = d
        fi = fi + 1.0
        x = cell_bound(d, fi, a_end, c_start1, sufdel[last], min_ins, miss[last])
        lb = x if x < lb else lb
        alive = last
    # Rounding is monotonic, so shrinking the minimum is shrinking every term.
    return store_band(q, j, lo, alive, bound, lb * SLACK)


cdef inline int offer_ends(const Table* t, const Trie* tr, Py_ssize_t v, Query* q,
                           Found* f) noexcept nogil:
    """Offer the words ending at node v (its column is on the stack)."""
    cdef const Node* nd = &tr.nodes[v]
    cdef double d = q.stack[nd.depth * (q.n + 1) + q.n]
    cdef int64_t r
    if q.band_hi[nd.depth] < q.n:  # the last cell exceeds the bound: so do these words
        return 0
    if q.faid != NULL:
        if nd.end_begin == tr.nodes[v + 1].end_begin:
            return 0
        d = forward_distance(t, tr, q, nd.depth)
    for r in range(nd.end_begin, tr.nodes[v + 1].end_begin):
        if q.faid != NULL and holds(f, tr.ends[r]):  # (found forwards)
            continue
        if found_add(f, d, tr.ends[r]) < 0:
            return -1
    return 0


cdef double forward_distance(const Table* t, const Trie* tr, Query* q,
                             Py_ssize_t depth) noexcept nogil:
    """The distance of the query to the word the backward pass reached at ``depth``
    (the reversed trie's path, read backwards), summed as the forward walk sums it:
    the same number to the last bit, so that ties fall as in a whole search."""
    cdef Py_ssize_t p
    cdef const Node* nd
    for p in range(depth):
        nd = &tr.nodes[q.pathv[depth - p]]
        q.wid[p] = nd.nid
        q.wcp[p] = nd.cp
    return dp_distance(t, q.faid, q.facp, q.n, q.wid, q.wcp, depth, q.fwork)


cdef inline bint holds(const Found* f, int64_t i) noexcept nogil:
    cdef Py_ssize_t c
    for c in range(f.size):
        if f.hits[c].i == i:
            return True
    return False


cdef inline double pass_bound(const Query* q, const Found* f) noexcept nogil:
    """The bound a pass prunes by: the k-th best distance (or the radius), widened
    in a split search's backward pass, whose sums round in the other order."""
    return f.bound * LOOSE if q.faid != NULL else f.bound


cdef inline bint anchored_at(const Query* q, Py_ssize_t j, double half) noexcept nogil:
    """Whether the column at depth j (its band stored) has its cell at row
    ``anchor`` within ``half``."""
    return (q.band_lo[j] <= q.anchor <= q.band_hi[j]
            and q.stack[j * (q.n + 1) + q.anchor] <= half)


cdef inline bint may_lead(Query* q, Py_ssize_t j, double bound) noexcept nogil:
    """Whether a word below the node at depth j (its column on the stack, its band
    stored) may be one this pass of a split search finds, a word whose cell at row
    ``anchor`` is within half the bound; records whether this node's is.

    Below a node without such a cell on its path, that cell is at least the
    smallest of the column's cells up to row ``anchor``: costs only add.
    """
    cdef Py_ssize_t i, hi = q.band_hi[j] if q.band_hi[j] < q.anchor else q.anchor
    cdef double low = INFINITY, half = bound * HALF
    cdef const double* col = q.stack + j * (q.n + 1)
    if q.anchored[j - 1]:
        q.anchored[j] = 1
        return True
    for i in range(q.band_lo[j], hi + 1):
        low = col[i] if col[i] < low else low
    if low > half:
        return False
    q.anchored[j] = anchored_at(q, j, half)
    return True


cdef inline void prefetch_children(const Trie* tr, Py_ssize_t v) noexcept nogil:
    """Ask for the records of node v's children (side by side) before they are read."""
    cdef const char* p = <const char*> &tr.nodes[tr.nodes[v].first]
    cdef const char* end = <const char*> &tr.nodes[tr.nodes[v].first + tr.nodes[v].n_children]
    while p < end:
        prefetch(p)
        p += 64


cdef int walk(const Table* t, const Trie* tr, Py_ssize_t u, Py_ssize_t skip, Query* q,
              Found* f) noexcept nogil:
    """Visit the subtrees of node u's children but ``skip`` (-1: none); u's column and
    its ancestors' are on the stack.  Depth first, with a stack of levels: level j
    holds the next child to visit (``q.next[j]``) among those of a node at depth j."""
    cdef Py_ssize_t top = tr.nodes[u].depth, base = top, c
    cdef const Node* nd
    cdef double bound
    q.next[top] = tr.nodes[u].first
    q.stop[top] = tr.nodes[u].first + tr.nodes[u].n_children
    while top >= base:
        c = q.next[top]
        if c == q.stop[top]:
            top -= 1
            continue
        q.next[top] = c + 1
        bound = pass_bound(q, f)
        if c == skip or node_column(t, tr, c, q, bound) > bound:
            continue
        if not may_lead(q, top + 1, bound):
            continue
        q.pathv[top + 1] = c
        if offer_ends(t, tr, c, q, f) < 0:
            return -1
        nd = &tr.nodes[c]
        if nd.n_children:
            prefetch_children(tr, c)
            top += 1
            q.next[top] = nd.first
            q.stop[top] = nd.first + nd.n_children
    return 0


cdef void char_costs(const Table* t, const Trie* tr, Query* q) noexcept nogil:
    """The character bound's tables of a query (q.dl set): each OCR character's
    mask bit and its cost where it cannot be matched, the cheaper of its deletion
    and its cheapest substitution into a lexicon character other than itself."""
    cdef Py_ssize_t i, k, lo, hi, mid, n = q.n
    cdef int a, b
    cdef double c, best
    q.qall = 0
    q.always[n] = 0.0
    for i in range(n - 1, -1, -1):
        lo, hi = 0, tr.n_lex
        while lo < hi:  # binary search among the lexicon's characters
            mid = (lo + hi) // 2
            if tr.lex_cp[mid] < q.acp[i]:
                lo = mid + 1
            else:
                hi = mid
        q.qbit[i] = tr.lex_bit[lo] if lo < tr.n_lex and tr.lex_cp[lo] == q.acp[i] else 0
        q.qall |= q.qbit[i]
        a = q.aid[i]
        best = q.dl[i]
        for k in range(tr.n_lex_ids):
            b = tr.lex_ids[k]
            if b != a or b == 0:  # id 0 stands for many characters, some other than this one
                c = sub_cost(t, a, b)
                best = c if c < best else best
        q.cm[i] = best
        q.always[i] = q.always[i + 1] + (best if q.qbit[i] == 0 else 0.0)


cdef int search(const Table* t, const Trie* tr, Query* q, int64_t* path, double* path_lb,
                Found* f) noexcept nogil:
    """Walk the trie for one query, offering every word not pruned to ``f``.

    The nodes spelling the query's own prefixes come first, then the rest of
    their subtrees from the deepest up: OCR keeps most characters, so words
    near the query are found early and tighten the k-NN bound for the rest of
    the walk.  The order changes only what is pruned, never the result.
    """
    cdef Py_ssize_t i, n = q.n, L = 0, u, stop
    cdef double lb
    for i in range(n):
        q.dl[i] = t.dele[q.aid[i]]
    char_costs(t, tr, q)
    q.sufdel[n] = 0.0  # read for the last row, never used: no characters are left
    if n:
        q.sufdel[n - 1] = q.dl[n - 1]
        for i in range(n - 2, -1, -1):
            q.sufdel[i] = q.dl[i] if q.dl[i] < q.sufdel[i + 1] else q.sufdel[i + 1]
    # The root's column: the empty prefix, every OCR character deleted.
    q.stack[0] = 0.0
    for i in range(n):
        q.stack[i + 1] = q.stack[i] + q.dl[i]
    # The root's band: the cells within the bound, a prefix (the column only grows).
    i = n
    while i > 0 and q.stack[i] > pass_bound(q, f):
        i -= 1
    store_band(q, 0, 0, i, pass_bound(q, f), 0.0)
    q.anchored[0] = q.anchor < 0 or anchored_at(q, 0, pass_bound(q, f) * HALF)
    if offer_ends(t, tr, 0, q, f) < 0:
        return -1
    path[0] = 0
    while L < n:
        u = tr.nodes[path[L]].first
        stop = u + tr.nodes[path[L]].n_children
        while u < stop and tr.nodes[u].cp != q.acp[L]:
            u += 1
        if u >= stop:
            break
        lb = node_column(t, tr, u, q, pass_bound(q, f))
        if not may_lead(q, L + 1, pass_bound(q, f)):
            break  # (the walk from its parent meets it, and prunes it)
        L += 1
        path[L] = u
        path_lb[L] = lb
        q.pathv[L] = u
        if offer_ends(t, tr, u, q, f) < 0:
            return -1
    for i in range(L, -1, -1):
        if i > 0 and path_lb[i] > pass_bound(q, f):
            continue
        if walk(t, tr, path[i], path[i + 1] if i < L else -1, q, f) < 0:
            return -1
    return 0


cdef int search_split(const Table* t, const Trie* tr, const Trie* rtr, Query* q,
                      int64_t* path, double* path_lb, Found* f, int32_t* raid,
                      cp_t* racp) noexcept nogil:
    """search() of the k nearest in two passes that each prune twice as hard.

    Split the query in two halves at row m: a path to a word within the bound b
    crosses row m somewhere, and the costs before and after the crossing add up
    to at most b, so one of them is at most b / 2.  The forward pass walks the
    trie and leaves a subtree as soon as no path into it can cross row m within
    b / 2 (``may_lead``); the backward pass walks the trie of the reversed words
    (``rtr``) with the reversed query and does the same for the second half.
    Near the root, where a whole bound lets most nodes through, half of it
    prunes most: on OCR words, three fifths of the columns, for the same words.
    """
    cdef Py_ssize_t i, n = q.n, m = n // 2
    q.anchor = m
    if search(t, tr, q, path, path_lb, f) < 0:
        return -1
    for i in range(n):
        raid[i] = q.aid[n - 1 - i]
        racp[i] = q.acp[n - 1 - i]
    q.faid, q.facp = q.aid, q.acp
    q.aid, q.acp = raid, racp
    q.anchor = n - m
    if q.cached != NULL:  # (the rows are per query position)
        memset(q.cached, 0, t.n)
    return search(t, rtr, q, path, path_lb, f)


cdef Hit* search_one(const Table* t, const Trie* tr, const Trie* rtr, Py_ssize_t max_depth,
                     const int32_t* aid, const cp_t* acp, Py_ssize_t n,
                     Py_ssize_t k, double radius, Py_ssize_t* count) noexcept nogil:
    """Sorted hits of one query (k-NN when k > 0, else within radius); NULL when out of memory.

    In k-NN mode ``radius`` is the largest distance kept (INFINITY: none): the k
    nearest within it, fewer when fewer are, and the search prunes by it from the
    start.  With ``rtr``, the trie of the reversed words, a k-NN search of a query
    of two characters or more within a largest distance is split (search_split):
    without one, its bound is the k-th distance, often many edits, half of which
    prunes little, so that two passes cost more than one.
    """
    cdef Found f
    cdef Query q
    cdef Py_ssize_t cells = (max_depth + 1) * (n + 1)
    cdef bint split = (rtr != NULL and 0 < k <= SPLIT_MAX_K and n >= 2
                       and radius < INFINITY)
    cdef double* work = <double*> malloc((cells + 7 * n + 7) * sizeof(double))
    cdef uint64_t* qbit = <uint64_t*> malloc((n + 1) * sizeof(uint64_t))
    cdef int64_t* path = <int64_t*> malloc((n + 1) * sizeof(int64_t))
    cdef int32_t* band = <int32_t*> malloc(2 * (max_depth + 1) * sizeof(int32_t))
    cdef int64_t* levels = <int64_t*> malloc(3 * (max_depth + 1) * sizeof(int64_t))
    cdef uint8_t* anchored = <uint8_t*> malloc(max_depth + 1)
    # The backward pass's query and word, and dp_distance's work space.
    cdef int32_t* ids = <int32_t*> malloc((n + max_depth + 1) * sizeof(int32_t)) if split else NULL
    cdef cp_t* cps = <cp_t*> malloc((n + max_depth + 1) * sizeof(cp_t)) if split else NULL
    cdef double* fwork = <double*> malloc(dp_work_size(max_depth) * sizeof(double)) if split else NULL
    cdef int failed
    f.radius_mode = k <= 0
    f.capacity = k if k > 0 else 16
    f.size = 0
    f.bound = radius
    f.hits = <Hit*> malloc(f.capacity * sizeof(Hit))
    q.aid = aid
    q.acp = acp
    q.n = n
    q.stack = work
    q.dl = work + cells
    q.sufdel = q.dl + n + 1
    q.scratch = q.sufdel + n + 1
    q.cm = q.scratch + 2 * (n + 1)  # after path_lb
    q.always = q.cm + n + 1
    q.miss = q.always + n + 1
    q.qbit = qbit
    q.cache = NULL
    q.cached = NULL
    q.band_lo = band
    q.band_hi = band + max_depth + 1 if band != NULL else NULL
    q.next = levels
    q.stop = levels + max_depth + 1 if levels != NULL else NULL
    q.pathv = levels + 2 * (max_depth + 1) if levels != NULL else NULL
    q.anchored = anchored
    q.anchor = -1
    q.faid = NULL
    q.facp = NULL
    q.fwork = fwork
    q.wid = ids + n if ids != NULL else NULL
    q.wcp = cps + n if cps != NULL else NULL
    # The substitution costs of the query against one lexicon character are the
    # same at every node carrying it: compute each such row once per query.
    if n > 0 and t.n * n <= SUB_CACHE:
        q.cache = <double*> malloc(t.n * n * sizeof(double))
        q.cached = <unsigned char*> calloc(t.n, 1)
        if q.cache == NULL or q.cached == NULL:  # no cache, the same results
            free(q.cache)
            free(q.cached)
            q.cache = NULL
            q.cached = NULL
    failed = (work == NULL or path == NULL or band == NULL or levels == NULL or f.hits == NULL
              or qbit == NULL or anchored == NULL
              or (split and (ids == NULL or cps == NULL or fwork == NULL)))
    if not failed and split:
        failed = search_split(t, tr, rtr, &q, path, q.scratch + n + 1, &f, ids, cps) < 0
    elif not failed:
        failed = search(t, tr, &q, path, q.scratch + n + 1, &f) < 0
    free(anchored)
    free(ids)
    free(cps)
    free(fwork)
    free(work)
    free(qbit)
    free(path)
    free(band)
    free(levels)
    free(q.cache)
    free(q.cached)
    if failed:
        free(f.hits)
        return NULL
    qsort(f.hits, f.size, sizeof(Hit), hit_cmp)
    count[0] = f.size
    return f.hits


cdef void merge_row(const double* row, Py_ssize_t m, int64_t first, Py_ssize_t k,
                    Py_ssize_t have, Hit* hits, double* dist, int64_t* ind) noexcept nogil:
    """Offer a row's ``have`` best so far, then its m new distances (indices first ..)."""
    cdef Found f
    cdef Py_ssize_t j
    f.hits = hits
    f.size = 0
    f.capacity = k
    f.radius_mode = False
    f.bound = INFINITY
    for j in range(have):
        found_add(&f, dist[j], ind[j])
    for j in range(m):
        # Indices only grow, so a tie with the k-th best never displaces it: skip it here.
        if f.size < k or row[j] < f.bound:
            found_add(&f, row[j], first + j)
    qsort(hits, f.size, sizeof(Hit), hit_cmp)
    for j in range(f.size):
        dist[j] = hits[j].d
        ind[j] = hits[j].i


def topk_update(const double[:, ::1] D not None, int64_t first, double[:, ::1] dist not None,
                int64_t[:, ::1] ind not None, Py_ssize_t have, int n_threads=1):
    """Merge the distances D to lexicon words ``first, first + 1, ...`` into each row's best.

    ``dist`` and ``ind`` (shape (len(D), k)) hold each row's ``have`` best so far,
    from words before ``first``, sorted; returns how many they hold now.  The
    order is the trie's (found_add, hit_cmp): by distance, ties by lexicon index,
    so brute force over the lexicon in chunks of words gives the trie's answer.
    """
    cdef Py_ssize_t n = D.shape[0], m = D.shape[1], k = dist.shape[1], r, failed = 0
    if ind.shape[0] != n or dist.shape[0] != n or ind.shape[1] != k or not 0 <= have <= k:
        raise ValueError("dist and ind must have shape (len(D), k), with 0 <= have <= k")
    cdef Hit* hits
    if n == 0 or k == 0:
        return min(k, have + m)
    n_threads = skc_threads(n_threads)
    with nogil, parallel(num_threads=n_threads):
        hits = <Hit*> malloc(k * sizeof(Hit))
        for r in prange(n, schedule="static"):
            if hits == NULL:
                failed += 1
                continue
            merge_row(&D[r, 0] if m else NULL, m, first, k, have, hits, &dist[r, 0], &ind[r, 0])
        free(hits)
    if failed:
        raise MemoryError("could not allocate the top-k buffers")
    return min(k, have + m)


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


def breadth_first(size):
    """The nodes of a preorder trie (``size``: each subtree's nodes) breadth first:
    ``(order, first, n_children)``, ``order[i]`` the preorder index of the i-th node,
    whose children are the nodes ``first[i] .. first[i] + n_children[i] - 1``.
    The root stays first, and each node's children keep their preorder order."""
    cdef const int64_t[::1] vsize = np.ascontiguousarray(size, dtype=np.int64)
    cdef Py_ssize_t n = vsize.shape[0], head = 0, tail = 1, v, u, end
    order = np.zeros(n, dtype=np.int64)
    first = np.zeros(n, dtype=np.int32)
    n_children = np.zeros(n, dtype=np.int32)
    cdef int64_t[::1] vorder = order
    cdef int32_t[::1] vfirst = first, vcount = n_children
    with nogil:
        while head < tail:
            v = vorder[head]
            vfirst[head] = <int32_t> tail
            u, end = v + 1, v + vsize[v]
            while u < end:  # the children, each past the subtree of the one before
                vorder[tail] = u
                tail += 1
                u += vsize[u]
            vcount[head] = <int32_t> (tail - vfirst[head])
            head += 1
    return order, first, n_children


def char_masks(cp, size):
    """``(masks, lexicon characters, their bits)`` of a preorder trie.

    The lexicon's characters (the edges' code points), most frequent first, ties
    by code point, get bits 0 .. 62 of a 64-bit mask; the others share bit 63.
    ``masks[v]`` has the bit of every character strictly below node ``v``.
    """
    cp = np.asarray(cp, dtype=np.uint32)
    chars, counts = np.unique(cp[1:], return_counts=True)
    rank = np.empty(len(chars), dtype=np.int64)
    rank[np.lexsort((chars, -counts))] = np.arange(len(chars))
    bits = np.left_shift(np.uint64(1), np.minimum(rank, MASK_BITS - 1).astype(np.uint64))
    node_bit = np.zeros(len(cp), dtype=np.uint64)
    node_bit[1:] = bits[np.searchsorted(chars, cp[1:])]
    masks = np.zeros(len(cp), dtype=np.uint64)
    cdef const uint64_t[::1] vb = node_bit
    cdef uint64_t[::1] vm = masks
    cdef const int64_t[::1] vsize = np.ascontiguousarray(size, dtype=np.int64)
    cdef Py_ssize_t v, u
    cdef uint64_t m
    for v in range(len(cp)):  # every node is read once per ancestor: sizes sum to N x depth
        m = 0
        for u in range(v + 1, v + vsize[v]):
            m |= vb[u]
        vm[v] = m
    return masks, chars, bits


cdef tuple _records(CostKernel kernel, tuple trie, Trie* out):
    """Fill ``out`` from a preorder trie (``build_trie``): the node records breadth
    first, the words' indices in their order, the mask bits of the lexicon's
    characters.  Returns the arrays ``out`` points into, which the caller keeps."""
    cp, depth, size, lo, hi, end_ptr, ends = trie
    n_nodes = cp.shape[0]
    cp = np.ascontiguousarray(cp, dtype=np.uint32)  # (copied into the records: not kept)
    cdef const cp_t[::1] vcp = cp
    cdef int32_t[::1] vnid = np.zeros(n_nodes, dtype=np.int32)
    cdef Py_ssize_t v
    cdef double m = INFINITY
    for v in range(1, n_nodes):
        vnid[v] = lookup(&kernel.t, vcp[v])
        if kernel.t.ins[vnid[v]] < m:
            m = kernel.t.ins[vnid[v]]
    masks, lex_cp, lex_bit = char_masks(cp, size)  # (copied: not kept)
    order, first, n_children = breadth_first(size)
    nodes = np.zeros(n_nodes + 1, dtype=NODE_DTYPE)
    nodes["mask"][:n_nodes] = masks[order]
    nodes["nid"][:n_nodes] = np.asarray(vnid)[order]
    nodes["first"][:n_nodes] = first
    nodes["n_children"][:n_nodes] = n_children
    nodes["cp"][:n_nodes] = cp[order]
    nodes["depth"][:n_nodes] = depth[order]
    nodes["lo"][:n_nodes] = np.minimum(lo - depth, LONG)[order]
    nodes["hi"][:n_nodes] = np.minimum(hi - depth, LONG)[order]
    # The words of each node, in the nodes' new order.
    counts = np.diff(end_ptr)[order]
    nodes["end_begin"][1:] = np.cumsum(counts)
    starts = np.repeat(end_ptr[:-1][order] - nodes["end_begin"][:n_nodes], counts)
    ends = np.ascontiguousarray(np.asarray(ends)[starts + np.arange(len(ends))], dtype=np.int64)
    lex_ids = np.unique(nodes["nid"][1:n_nodes]).astype(np.int32)
    cdef const cp_t[::1] vlex = lex_cp
    cdef const uint64_t[::1] vbit = lex_bit
    cdef const int32_t[::1] vids = lex_ids
    out.n_lex = vlex.shape[0]
    out.lex_cp = &vlex[0] if vlex.shape[0] else NULL
    out.lex_bit = &vbit[0] if vlex.shape[0] else NULL
    out.n_lex_ids = vids.shape[0]
    out.lex_ids = &vids[0] if vids.shape[0] else NULL
    cdef const int64_t[::1] vends = ends
    cdef const unsigned char[::1] raw = nodes.view(np.uint8)
    out.n_nodes = n_nodes
    out.nodes = <const Node*> &raw[0]
    out.ends = &vends[0]
    out.min_ins = m if m < INFINITY else 0.0
    return nodes, ends, lex_cp, lex_bit, lex_ids


def trie_words(tuple trie, Py_ssize_t n_words):
    """The words a preorder trie (``build_trie``) holds, by index."""
    cp, depth, size, lo, hi, end_ptr, ends = trie
    cdef const cp_t[::1] vcp = np.ascontiguousarray(cp, dtype=np.uint32)
    cdef const int32_t[::1] vdepth = np.ascontiguousarray(depth, dtype=np.int32)
    cdef const int64_t[::1] vptr = np.ascontiguousarray(end_ptr, dtype=np.int64)
    cdef const int64_t[::1] vends = np.ascontiguousarray(ends, dtype=np.int64)
    cdef Py_ssize_t v, r
    cdef list words = [None] * n_words, prefix = []
    cdef str w
    for v in range(vcp.shape[0]):
        if v:
            del prefix[vdepth[v] - 1:]
            prefix.append(chr(vcp[v]))
        if vptr[v + 1] > vptr[v]:
            w = "".join(prefix)
            for r in range(vptr[v], vptr[v + 1]):
                words[vends[r]] = w
    return words


def _rebuild(kernel, trie, n_words, split=True):
    obj = LexiconIndex.__new__(LexiconIndex)
    obj._set(kernel, trie, n_words, split=split)
    return obj


cdef class LexiconIndex:
    """Exact k nearest (or all within a radius) lexicon words of OCR queries.

    Parameters
    ----------
    kernel : CostKernel
        The costs (a ``WeightedLevenshtein``); the distance is ``kernel.distance(query, word)``.
    words : list of str
        The lexicon; duplicates are kept, each a neighbour of its own.
    split : bool, default=True
        Whether k-nearest searches within a largest distance run in two passes
        (``search_split``, which keeps a second trie, of the reversed words).
        The same results either way.
    """

    cdef readonly CostKernel kernel
    cdef readonly tuple trie
    cdef readonly Py_ssize_t n_words
    cdef readonly Py_ssize_t max_depth
    cdef tuple _owners    # own the arrays tr points into (the Node records first)
    cdef tuple _rowners   # and rtr's, or None
    cdef Trie tr
    cdef Trie rtr         # the trie of the reversed words (search_split), if _rowners

    @property
    def char_masks(self):
        """The characters below each node (see ``char_masks()``), breadth first (the
        root first): read from the node records, which hold them."""
        return self._owners[0]["mask"][: self.tr.n_nodes]

    def __init__(self, CostKernel kernel not None, list words not None, bint split=True):
        if len(kernel._kernel_args()) != N_KERNEL_ARGS:
            raise TypeError("the trie index reads single-character cost tables only")
        if not words:
            raise ValueError("the lexicon is empty; at least one word is needed")
        self._set(kernel, build_trie(words), len(words), words, split)

    @property
    def split(self):
        return self._rowners is not None

    def _set(self, CostKernel kernel, tuple trie, Py_ssize_t n_words, list words=None,
             bint split=True):
        kernel._check()
        cp, depth, size, lo, hi, end_ptr, ends = trie
        if cp.shape[0] > MAX_NODES or ends.shape[0] > MAX_NODES:
            raise ValueError(f"the lexicon's trie has {cp.shape[0]} nodes for {ends.shape[0]} "
                             f"words; the index holds at most {MAX_NODES} of each")
        self.kernel = kernel
        self.trie = trie
        self.n_words = n_words
        self.max_depth = int(depth.max())
        if self.max_depth > MAX_WORD:
            raise ValueError(f"the lexicon has a word of {self.max_depth} characters; the "
                             f"index holds words of up to {MAX_WORD}")
        self._owners = _records(kernel, trie, &self.tr)
        self._rowners = None
        if split:
            if words is None:  # (unpickled: the trie spells them)
                words = trie_words(trie, n_words)
            self._rowners = _records(kernel, build_trie([w[::-1] for w in words]), &self.rtr)

    def __reduce__(self):
        return (_rebuild, (self.kernel, self.trie, self.n_words, self.split))

    @property
    def n_nodes(self):
        return self.tr.n_nodes

    def _run(self, list queries, Py_ssize_t k, double radius, int n_threads):
        """Sorted hits of every query: a list of (pointer-owning) arrays, one per query."""
        offsets, ids, cps = self.kernel._encode_list(queries)
        cdef Py_ssize_t nq = len(queries), q, failed = 0, longest = 0
        cdef const int64_t[::1] off = offsets
        for q in range(nq):  # (a loop, not np.diff: a call of one line has a few queries)
            longest = max(longest, off[q + 1] - off[q])
        need = 8 * (self.max_depth + 1) * (longest + 1)
        if need > MAX_SEARCH_BYTES:
            # Checked before any allocation: a long OCR line against a lexicon holding a
            # long entry would otherwise take (or overcommit) gigabytes per thread.
            raise ValueError(
                f"searching a query of {longest} characters among lexicon words of up to "
                f"{self.max_depth} needs {need} bytes per thread, more than the limit of "
                f"{MAX_SEARCH_BYTES}; split long lines into tokens")
        cdef const int32_t[::1] vid = ids
        cdef const cp_t[::1] vcp = cps
        hits_ptr = np.zeros(max(nq, 1), dtype=np.uintp)
        counts = np.zeros(max(nq, 1), dtype=np.intp)
        cdef size_t[::1] vptr = hits_ptr
        cdef Py_ssize_t[::1] vcount = counts
        cdef Hit* h
        cdef const Table* t = &self.kernel.t
        cdef const Trie* tr = &self.tr
        cdef const Trie* rtr = &self.rtr if self._rowners is not None else NULL
        cdef Py_ssize_t max_depth = self.max_depth
        n_threads = skc_threads(n_threads)
        with nogil, parallel(num_threads=n_threads):
            for q in prange(nq, schedule="dynamic", chunksize=1):
                h = search_one(t, tr, rtr, max_depth, &vid[off[q]], &vcp[off[q]],
                               off[q + 1] - off[q], k, radius, &vcount[q])
                vptr[q] = <size_t> h
                if h == NULL:
                    failed += 1
        return hits_ptr, counts, failed

    def kneighbors(self, list queries not None, Py_ssize_t k, int n_threads=1,
                   double max_distance=INFINITY):
        """The ``k`` nearest words of every query: ``(distances, indices)``, shape (n, k).

        Sorted by distance, ties by lexicon index (a stable sort of brute force).
        Only words within ``max_distance`` (inclusive) are found, and the search
        prunes by it: a query with fewer has its row filled with ``inf`` and ``-1``.
        """
        if not 1 <= k <= self.n_words:
            raise ValueError(f"k must be in [1, {self.n_words}], got {k}")
        if not max_distance >= 0:
            raise ValueError(f"max_distance must be >= 0, got {max_distance}")
        cdef Py_ssize_t nq = len(queries), q, j, found
        dist = np.empty((nq, k), dtype=np.float64)
        ind = np.empty((nq, k), dtype=np.int64)
        cdef double[:, ::1] vd = dist
        cdef int64_t[:, ::1] vi = ind
        hits_ptr, counts, failed = self._run(queries, k, max_distance, n_threads)
        cdef size_t[::1] vptr = hits_ptr
        cdef Py_ssize_t[::1] vcount = counts
        cdef Hit* h
        for q in range(nq):
            h = <Hit*> vptr[q]
            found = vcount[q] if h != NULL else 0
            for j in range(found):
                vd[q, j] = h[j].d
                vi[q, j] = h[j].i
            for j in range(found, k):  # padded: fewer within the bound
                vd[q, j] = INFINITY
                vi[q, j] = -1
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

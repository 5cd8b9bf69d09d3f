# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The beam search of a line's readings, scored with a Katz back-off language model.

``search_lines`` runs the decoder's search (``NoisyChannelDecoder._search`` in
``skocrcost/correction/_decoder.py``: one-word readings and joins, no cuts)
over a batch of lines, each line a list of steps.  A step is a word left as it
is (its id) or a word to read: one of a set of readings, each with a
context-free score, a word id and whether the language model prices it; the
first reading keeps the word, and may also be priced as a spelling variant of
the others.  A hypothesis is a score, a state (the last ``m`` word ids read) and
a link to the readings chosen.  After each step the hypotheses with the same
state merge (the cheaper survives; on a tie the one offered first) and the
``beam_width`` cheapest survive (ties: the state offered first); each
hypothesis offers its ``beam_width`` cheapest readings (ties: the lower
reading).  A join reads two neighbouring tokens as one word: from the
hypotheses before the first, like a step, into the hypotheses after the
second, where they merge with those that read the two tokens one by one, as
the Python search's table of hypotheses per token boundary merges them.
``_beam_py.py`` is its pure-Python twin: the tests hold them equal.

The language model's probabilities are those of ``KatzBackoffLM._log_prob``
(``skocrcost/lm.py``), read from the same arrays (``KatzTables``) with the same
operations in the same order: a context's index at each order is found once
per hypothesis, then each reading's n-gram by binary search.  Each search runs
over the keys that share the key's context (``key_start``, ``ctx_start``: a
context has a few followers, a table has millions of keys), which finds what a
search of the whole table finds, in a few steps and cache lines instead of ~20.

A reading is priced by the language model only if it may survive.  The language
model only adds to a score (``coef * ln p`` with ``coef <= 0`` and ``p <= 1``),
so a reading whose score before it already exceeds the ``beam_width``-th
cheapest state offered in the step cannot be among the states kept: those
states only get cheaper as the step goes on (a state offered again keeps its
cheaper score).  The hypotheses come cheapest first, so once the beam is full
most readings of the later ones are left unpriced, and so is the context of a
hypothesis none of whose readings is priced.  The states kept, their scores and
their order are those of pricing every reading (ties are broken by the order in
which states are first offered, which skipping offers that are never kept does
not change): the tests hold the search equal to its twin, which prices all.
"""

import numpy as np

from libc.math cimport INFINITY, log
from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy
from cython.parallel cimport parallel, prange

from skocrcost._kernels._lexicon_index cimport Hit, hit_before

cdef extern from "_omp.h":
    int skc_threads(int wanted) nogil

# A word id whose probability is 0 (the start symbol is never predicted).
NEVER = -3
cdef int64_t C_NEVER = -3


cdef struct Level:
    const int64_t *context_keys
    const int64_t *total
    const double *discount
    const double *alpha
    const double *rest
    const int64_t *keys
    const int64_t *counts
    const int64_t *key_start  # context c's keys: key_start[c]:key_start[c + 1]
    const int64_t *ctx_start  # the contexts after context i of the order below:
                              # context_keys[ctx_start[i]:ctx_start[i + 1]]


def _group_starts(keys, Py_ssize_t n, int64_t w1):
    """Where each of the ``n`` groups ``key // w1`` starts among the sorted ``keys``, and
    the end: ``searchsorted(keys, arange(n + 1) * w1)``, counted in one pass rather
    than searched for (a trigram level has hundreds of thousands of contexts)."""
    out = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(np.asarray(keys) // w1, minlength=n), out=out[1:])
    return out


cdef class KatzTables:
    """The arrays of a fitted ``KatzBackoffLM``, one tuple per order:
    ``(context_keys, total, discount, alpha, rest, keys, counts)`` (``lm._Level``)."""

    cdef list arrays
    cdef Level *levels
    cdef const int64_t *first_ctx  # each word id's context index among the bigrams', or -1
    cdef readonly int n_levels
    cdef readonly int64_t w1

    def __cinit__(self, levels, int64_t n_words):
        self.n_levels = len(levels)
        self.w1 = n_words + 1
        self.arrays = []
        self.levels = <Level *> malloc(max(1, self.n_levels) * sizeof(Level))
        if self.levels == NULL:
            raise MemoryError()
        cdef const int64_t[::1] ck, tot, keys, counts, key_start, ctx_start
        cdef const double[::1] disc, alpha, rest
        cdef int64_t n_below = 1  # the unigrams' one context (the empty one)
        for j, (a_ck, a_tot, a_disc, a_alpha, a_rest, a_keys, a_counts) in enumerate(levels):
            ck = np.ascontiguousarray(a_ck, dtype=np.int64)
            tot = np.ascontiguousarray(a_tot, dtype=np.int64)
            disc = np.ascontiguousarray(a_disc, dtype=np.float64)
            alpha = np.ascontiguousarray(a_alpha, dtype=np.float64)
            rest = np.ascontiguousarray(a_rest, dtype=np.float64)
            keys = np.ascontiguousarray(a_keys, dtype=np.int64)
            counts = np.ascontiguousarray(a_counts, dtype=np.int64)
            # Keys are context * w1 + word, sorted: each context's keys are contiguous,
            # and so are the contexts after each context of the order below.
            key_start = _group_starts(keys, max(ck.shape[0], 1), self.w1)
            ctx_start = _group_starts(ck, n_below, self.w1)
            n_below = ck.shape[0]
            self.arrays.append((ck, tot, disc, alpha, rest, keys, counts, key_start,
                                ctx_start))  # kept alive
            self.levels[j].context_keys = &ck[0] if ck.shape[0] else NULL
            self.levels[j].total = &tot[0] if tot.shape[0] else NULL
            self.levels[j].discount = &disc[0] if disc.shape[0] else NULL
            self.levels[j].alpha = &alpha[0] if alpha.shape[0] else NULL
            self.levels[j].rest = &rest[0] if rest.shape[0] else NULL
            self.levels[j].keys = &keys[0] if keys.shape[0] else NULL
            self.levels[j].counts = &counts[0] if counts.shape[0] else NULL
            self.levels[j].key_start = &key_start[0]
            self.levels[j].ctx_start = &ctx_start[0]
        # A one-word context is read by the word's id, not searched for.
        first = np.full(self.w1, -1, dtype=np.int64)
        if self.n_levels > 1:
            ck1 = self.arrays[1][0]
            first[np.asarray(ck1)] = np.arange(ck1.shape[0], dtype=np.int64)
        cdef const int64_t[::1] first_v = first
        self.arrays.append(first)
        self.first_ctx = &first_v[0]

    def __dealloc__(self):
        free(self.levels)

    def probabilities(self, const int64_t[::1] words, const int64_t[:, ::1] histories):
        """``P(words[i] | histories[i])`` for each ``i``: the probabilities whose
        logs ``lm._log_prob`` gives for these pairs, the same doubles (word ids: -1
        unknown, NEVER never predicted; each history the ``n_levels - 1`` ids
        before its word, -1 unknown, -2 absent)."""
        cdef Py_ssize_t n = words.shape[0], i
        cdef int m = self.n_levels - 1 if self.n_levels else 0
        if histories.shape[0] != n or (n and histories.shape[1] != m):
            raise ValueError(f"histories must have shape ({n}, {m}), got "
                             f"({histories.shape[0]}, {histories.shape[1]})")
        out = np.empty(n, dtype=np.float64)
        cdef double[::1] out_v = out
        cdef Context *ctx = <Context *> calloc(self.n_levels + 1, sizeof(Context))
        try:
            if ctx == NULL:
                raise MemoryError()
            for i in range(n):
                if m:
                    context_index(self.levels, self.first_ctx, self.n_levels, self.w1,
                                  &histories[i, 0], m, ctx)
                out_v[i] = probability(self.levels, self.n_levels, self.w1, words[i], ctx)
        finally:
            free(ctx)
        return out


cdef inline int64_t find(const int64_t *keys, int64_t lo, int64_t hi, int64_t key,
                         bint *hit) noexcept nogil:
    """``lm._find`` within ``keys[lo:hi]``, the keys of ``key``'s context: where
    ``key`` is, and whether it is there (a miss's position is never read)."""
    cdef int64_t end = hi, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if keys[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    hit[0] = lo < end and keys[lo] == key
    return lo


# A history's context at one order, and what each word's probability reads of it
# (read once per history, not once per word).
cdef struct Context:
    bint found
    int64_t c          # its index among the contexts of the order
    int64_t lo, hi     # its n-grams: keys[lo:hi]
    double total, discount, alpha, rest


cdef void context_index(const Level *levels, const int64_t *first_ctx, int n_levels, int64_t w1,
                        const int64_t *hist, int m, Context *ctx) noexcept nogil:
    """``lm._context_index`` for orders 2..n_levels of one history of ``m`` ids,
    with each found context's statistics."""
    cdef int k, j
    cdef int64_t idx, token, pos
    cdef bint ok, hit
    cdef const Level *level
    for k in range(2, n_levels + 1):
        idx = 0
        ok = True
        for j in range(k - 1):
            token = hist[m - (k - 1) + j]
            ok = ok and token >= 0
            if j == 0:
                pos = first_ctx[token if token > 0 else 0]
                hit = pos >= 0
            else:
                pos = find(levels[j + 1].context_keys, levels[j + 1].ctx_start[idx],
                           levels[j + 1].ctx_start[idx + 1],
                           idx * w1 + (token if token > 0 else 0), &hit)
            ok = ok and hit
            idx = pos if ok else 0
        ctx[k].c = idx
        ctx[k].found = ok
        if ok:
            level = &levels[k - 1]
            ctx[k].lo = level.key_start[idx]
            ctx[k].hi = level.key_start[idx + 1]
            ctx[k].total = <double> level.total[idx]
            ctx[k].discount = level.discount[idx]
            ctx[k].alpha = level.alpha[idx]
            ctx[k].rest = level.rest[idx]


cdef double probability(const Level *levels, int n_levels, int64_t w1, int64_t w,
                        const Context *ctx) noexcept nogil:
    """The probability ``lm._log_prob`` takes the log of, of word id ``w`` (-1
    unknown, NEVER: 0), in the same operations: the same double."""
    cdef int k
    cdef int64_t wid = w if w > 0 else 0, pos
    cdef bint seen
    cdef double p
    if w == C_NEVER:
        return 0.0
    p = (1.0 if w < 0 else <double> levels[0].counts[wid]) / <double> levels[0].total[0]
    for k in range(2, n_levels + 1):
        if not ctx[k].found:
            continue
        pos = find(levels[k - 1].keys, ctx[k].lo, ctx[k].hi, ctx[k].c * w1 + wid, &seen)
        if seen and w >= 0:
            p = (<double> levels[k - 1].counts[pos] - ctx[k].discount) / ctx[k].total
        else:
            p = ctx[k].alpha * p / ctx[k].rest if ctx[k].alpha > 0 else 0.0
    return p


cdef inline double log_prob(const Level *levels, int n_levels, int64_t w1, int64_t w,
                            const Context *ctx) noexcept nogil:
    """``lm._log_prob`` of word id ``w`` (-1 unknown, NEVER: -inf)."""
    return log(probability(levels, n_levels, w1, w, ctx))


cdef struct Offer:
    Hit cost  # its score, and when its state was first offered in this step (a dict's order)
    int64_t hyp
    int64_t reading  # -1: a word left as it is
    int64_t group  # the offering hypothesis's state less its oldest word (first such hypothesis)
    int64_t word  # the word read: the new state is the group's words and this one


cdef struct Work:
    # The hypotheses (``beam`` of them, each ``m`` word ids and ``m`` context ids),
    # and the next step's, swapped after each step.
    double *score
    int64_t *state
    int64_t *ctx
    int64_t *link
    double *score_next
    int64_t *state_next
    int64_t *ctx_next
    int64_t *link_next
    int64_t *group
    Offer *offers
    int64_t *table  # an offer's index, valid where its stamp is this step's
    int64_t *stamp
    int64_t now
    int64_t table_mask
    Hit *ranked  # a hypothesis's readings: total score, reading
    double *cheapest  # the beam cheapest scores of the states offered (kth_offered)
    double *lm
    int64_t *hist
    Context *level_ctx
    # A boundary's hypotheses merged with a join's (merge_joined), up to 2 * beam.
    double *m_score
    int64_t *m_state
    int64_t *m_ctx
    int64_t *m_link
    Hit *m_rank
    # Each join's hypotheses of a line, until the boundary they reach (beam each).
    double *j_score
    int64_t *j_state
    int64_t *j_ctx
    int64_t *j_link
    int64_t *j_n
    # The links: the reading chosen at a step, after the links of the hypothesis before.
    int64_t *node_parent
    int64_t *node_step
    int64_t *node_reading


cdef void offer(Work *w, int64_t *n, double score, int64_t hyp, int64_t reading,
                int64_t group, int64_t word) noexcept nogil:
    """Offer a next state: kept if it is new or cheaper than the one offered before."""
    cdef uint64_t h = (<uint64_t> group * 0x9E3779B97F4A7C15ULL) ^ (<uint64_t> word * 0xC2B2AE3D27D4EB4FULL)
    cdef int64_t slot = <int64_t> ((h ^ (h >> 29)) & <uint64_t> w.table_mask)
    cdef int64_t at
    cdef Offer *o
    while True:
        at = w.table[slot] if w.stamp[slot] == w.now else -1
        if at < 0:
            w.table[slot] = n[0]
            w.stamp[slot] = w.now
            o = &w.offers[n[0]]
            o.cost.d = score
            o.cost.i = n[0]
            o.hyp = hyp
            o.reading = reading
            o.group = group
            o.word = word
            n[0] += 1
            return
        o = &w.offers[at]
        if o.group == group and o.word == word:
            if score < o.cost.d:
                o.cost.d = score
                o.hyp = hyp
                o.reading = reading
            return
        slot = (slot + 1) & w.table_mask


cdef struct Line:
    # What the search of every line reads: the language model, the readings and the beam.
    const Level *levels
    const int64_t *first_ctx
    int n_levels
    int64_t w1
    int m_lm
    double coef
    bint use_lm
    const int64_t *word_ctx
    const int64_t *word_pred
    const int64_t *r_start
    const int64_t *r_word
    const double *r_score
    const uint8_t *r_priced
    const int64_t *v_start
    const double *v_cost
    const double *v_offset
    int m
    int64_t beam


cdef inline void set_groups(Work *w, int64_t n_hyps, int m) noexcept nogil:
    """Each hypothesis's group: the first hypothesis with its state less the oldest word."""
    cdef int64_t h, g
    for h in range(n_hyps):
        w.group[h] = h
        for g in range(h):
            if w.group[g] == g and (m <= 1 or _same(w.state + h * m + 1, w.state + g * m + 1, m - 1)):
                w.group[h] = g
                break


cdef inline int64_t offer_readings(const Line *ln, Work *w, int64_t n_hyps, int64_t step,
                                   double rec, double extra) noexcept nogil:
    """Offer each hypothesis's readings of reading set ``step`` (``set_groups`` done),
    each costing ``extra`` more (a join's cost) and keeping the word ``rec`` less (its
    recurrences); return the number of states offered."""
    cdef int64_t n_offers = 0, h, k, j, n_rank, counted = 0
    cdef int64_t r0 = ln.r_start[step], nr = ln.r_start[step + 1] - r0, v0 = ln.v_start[step]
    cdef double base, t, best, lm_k, limit = INFINITY
    cdef bint priced_context
    cdef Offer spare  # keep_cheapest's room for one item (an Offer or a Hit)
    # (locals: the compiler keeps them in registers across the writes to w)
    cdef const Level *levels = ln.levels
    cdef const double *r_score = ln.r_score + r0
    cdef const uint8_t *r_priced = ln.r_priced + r0
    cdef const int64_t *r_word = ln.r_word + r0
    cdef const int64_t *word_pred = ln.word_pred
    cdef double coef = ln.coef
    cdef bint use_lm = ln.use_lm
    cdef int m = ln.m, n_levels = ln.n_levels
    cdef int64_t w1 = ln.w1, beam = ln.beam
    # Readings that cannot survive are left unpriced (the module's docstring says
    # why) unless keeping the word as a variant reads the prices of all of them.
    cdef bint prune = use_lm and coef <= 0.0 and ln.v_start[step + 1] == v0
    w.now += 1  # a fresh table of states
    for h in range(n_hyps):
        priced_context = False
        base = w.score[h]
        if extra != 0.0:
            base = base + extra
        if prune and n_offers >= beam and n_offers > counted:
            # (after new states only: one offered again can only lower the limit, so
            # the last one still holds)
            limit = kth_offered(w, n_offers, beam)
            counted = n_offers
        n_rank = 0
        for k in range(nr):
            # (keeping the word: its recurrences in this call make it cheaper)
            t = base + (r_score[0] - rec if k == 0 else r_score[k])
            if t > limit:
                continue
            lm_k = 0.0
            if use_lm and r_priced[k]:
                if not priced_context:
                    _history(w.ctx + h * m, m, w.hist, ln.m_lm)
                    context_index(levels, ln.first_ctx, n_levels, w1, w.hist, ln.m_lm, w.level_ctx)
                    priced_context = True
                lm_k = coef * log_prob(levels, n_levels, w1, word_pred[r_word[k]], w.level_ctx)
                t = t + lm_k
            w.lm[k] = lm_k
            w.ranked[n_rank].d = t
            w.ranked[n_rank].i = k
            n_rank += 1
        if ln.v_start[step + 1] > v0:  # keeping the word as a variant of a candidate
            best = INFINITY
            for k in range(1, nr):
                t = ln.v_cost[v0 + k - 1] + w.lm[k]
                if t < best:
                    best = t
            t = base + ((best + ln.v_offset[step]) - rec)
            if t < w.ranked[0].d:
                w.ranked[0].d = t
        if n_rank > beam:  # only a hypothesis's beam cheapest readings can survive
            n_rank = keep_cheapest(<char *> w.ranked, n_rank, sizeof(Hit), beam, <char *> &spare)
        for j in range(n_rank):
            k = w.ranked[j].i
            offer(w, &n_offers, w.ranked[j].d, h, k, w.group[h], r_word[k] if m else 0)
    return n_offers


cdef inline double kth_offered(Work *w, int64_t n_offers, int64_t k) noexcept nogil:
    """The ``k``-th cheapest score among the ``n_offers`` (at least ``k``) states
    offered so far in the step (each state once), by insertion into ``w.cheapest``."""
    cdef int64_t j, p, kept = 0
    cdef double c
    cdef double *a = w.cheapest
    for j in range(n_offers):
        c = w.offers[j].cost.d
        if kept == k and not c < a[k - 1]:
            continue
        p = kept if kept < k else k - 1  # (full: the dearest kept goes)
        while p > 0 and c < a[p - 1]:
            a[p] = a[p - 1]
            p -= 1
        a[p] = c
        kept = kept + 1 if kept < k else k
    return a[k - 1]


cdef inline int64_t keep_offers(const Line *ln, Work *w, int64_t n_offers, int64_t step,
                                int64_t s, int64_t *n_nodes, double *score, int64_t *state,
                                int64_t *ctx, int64_t *link) noexcept nogil:
    """The ``beam`` cheapest states offered, as hypotheses written to ``score``,
    ``state``, ``ctx`` and ``link``: read from a reading set ``step`` (a link to the
    reading, at step ``s``; a join: ``s`` = -1 - its index) or a word left as it is
    (``step`` = -1 - its id); returns how many."""
    cdef Offer spare
    cdef Offer *o
    cdef int64_t n_keep = keep_cheapest(<char *> w.offers, n_offers, sizeof(Offer), ln.beam,
                                        <char *> &spare)
    cdef int64_t j, g, h, word
    cdef int m = ln.m
    for j in range(n_keep):
        o = &w.offers[j]
        h = o.hyp
        score[j] = o.cost.d
        if step < 0:
            word = -step - 1
            link[j] = w.link[h]
        else:
            word = ln.r_word[ln.r_start[step] + o.reading]
            w.node_parent[n_nodes[0]] = w.link[h]
            w.node_step[n_nodes[0]] = s
            w.node_reading[n_nodes[0]] = o.reading
            link[j] = n_nodes[0]
            n_nodes[0] += 1
        if m:
            for g in range(m - 1):
                state[j * m + g] = w.state[h * m + g + 1]
                ctx[j * m + g] = w.ctx[h * m + g + 1]
            state[j * m + m - 1] = word
            ctx[j * m + m - 1] = ln.word_ctx[word]
    return n_keep


cdef int64_t merge_joined(const Line *ln, Work *w, int64_t n_hyps, const double *score,
                          const int64_t *state, const int64_t *ctx, const int64_t *link,
                          int64_t n_joined) noexcept nogil:
    """The hypotheses at a token boundary that a join reaches: the join's (first)
    and the current ones, one per state (the cheaper; on a tie, or a dearer one,
    the first keeps its place), the ``beam`` cheapest of them (ties: by place),
    written back to the current ones; returns how many."""
    cdef int64_t n = 0, j, q, src, kept
    cdef int m = ln.m
    cdef double d
    cdef const int64_t *st
    cdef const int64_t *cx
    cdef int64_t lk
    cdef Hit spare
    for src in range(n_joined + n_hyps):
        if src < n_joined:
            j = src
            d = score[j]
            st = state + j * m
            cx = ctx + j * m
            lk = link[j]
        else:
            j = src - n_joined
            d = w.score[j]
            st = w.state + j * m
            cx = w.ctx + j * m
            lk = w.link[j]
        q = 0
        while q < n and not _same(w.m_state + q * m, st, m):
            q += 1
        if q == n:  # a new state: its place is the next
            n += 1
            w.m_score[q] = d
            w.m_link[q] = lk
            memcpy(w.m_state + q * m, st, m * sizeof(int64_t))
            memcpy(w.m_ctx + q * m, cx, m * sizeof(int64_t))
        elif d < w.m_score[q]:
            w.m_score[q] = d
            w.m_link[q] = lk
    for q in range(n):
        w.m_rank[q].d = w.m_score[q]
        w.m_rank[q].i = q
    kept = keep_cheapest(<char *> w.m_rank, n, sizeof(Hit), ln.beam, <char *> &spare)
    for j in range(kept):
        q = w.m_rank[j].i
        w.score[j] = w.m_score[q]
        w.link[j] = w.m_link[q]
        memcpy(w.state + j * m, w.m_state + q * m, m * sizeof(int64_t))
        memcpy(w.ctx + j * m, w.m_ctx + q * m, m * sizeof(int64_t))
    return kept


cdef int64_t search_line(
    const Line *ln, const double *v_rec, const int64_t *steps, int64_t n_steps,
    const int64_t *j_tok, const int64_t *j_at, const int64_t *j_to, const int64_t *j_set,
    const double *j_rec, int64_t n_joins, double join_cost, int64_t start_word, Work *w,
    int64_t *chosen, int64_t *joined, double *best_score,
) noexcept nogil:
    """The cheapest path through one line's steps: ``chosen[s]``, the reading taken at
    step ``s`` (-1: a word left as it is), ``joined[j]``, the reading taken for join
    ``j`` (-1: not joined), and its score.

    Join ``j`` reads the word of two tokens, ``j_tok[j]`` and the next, from the
    hypotheses at the boundary before the first (before step ``j_at[j]``): at
    ``join_cost`` more, with the readings of set ``j_set[j]`` (keeping its word
    ``j_rec[j]`` less).  They join the hypotheses at the boundary after the
    second (before step ``j_to[j]``), first, as the Python search adds them;
    the joins come by token, their boundaries in the order of their tokens.
    """
    cdef int64_t n_hyps = 1, n_offers, n_nodes = 0, s, j, k, e = 0, g = 0
    cdef int m = ln.m
    cdef int64_t beam = ln.beam
    cdef double *swap_d
    cdef int64_t *swap_i
    cdef bint merge_now, emit_now
    # The start: m start symbols, no link.
    w.score[0] = 0.0
    for j in range(m):
        w.state[j] = start_word
        w.ctx[j] = ln.word_ctx[start_word]
    w.link[0] = -1
    for j in range(n_joins):
        joined[j] = -1
    for s in range(n_steps + 1):
        # The boundaries before step s, in token order: a join's hypotheses join those
        # of the boundary it reaches, then a join leaves from the boundary it starts at.
        while True:
            merge_now = g < e and j_to[g] == s
            emit_now = e < n_joins and j_at[e] == s
            if merge_now and (not emit_now or j_tok[g] + 2 <= j_tok[e]):
                n_hyps = merge_joined(ln, w, n_hyps, w.j_score + g * beam,
                                      w.j_state + g * beam * m, w.j_ctx + g * beam * m,
                                      w.j_link + g * beam, w.j_n[g])
                g += 1
            elif emit_now:
                set_groups(w, n_hyps, m)
                n_offers = offer_readings(ln, w, n_hyps, j_set[e], j_rec[e], join_cost)
                w.j_n[e] = keep_offers(ln, w, n_offers, j_set[e], -1 - e, &n_nodes,
                                       w.j_score + e * beam, w.j_state + e * beam * m,
                                       w.j_ctx + e * beam * m, w.j_link + e * beam)
                e += 1
            else:
                break
        if s == n_steps:
            break
        chosen[s] = -1
        set_groups(w, n_hyps, m)
        if steps[s] < 0:  # a word left as it is: every hypothesis reads it
            w.now += 1  # a fresh table of states
            n_offers = 0
            for j in range(n_hyps):
                offer(w, &n_offers, w.score[j], j, -1, w.group[j], -steps[s] - 1 if m else 0)
        else:
            n_offers = offer_readings(ln, w, n_hyps, steps[s], v_rec[s], 0.0)
        n_hyps = keep_offers(ln, w, n_offers, steps[s], s, &n_nodes, w.score_next,
                             w.state_next, w.ctx_next, w.link_next)
        swap_d = w.score; w.score = w.score_next; w.score_next = swap_d
        swap_i = w.state; w.state = w.state_next; w.state_next = swap_i
        swap_i = w.ctx; w.ctx = w.ctx_next; w.ctx_next = swap_i
        swap_i = w.link; w.link = w.link_next; w.link_next = swap_i
    # The first hypothesis is the cheapest (the first of equals).
    best_score[0] = w.score[0]
    k = w.link[0]
    while k >= 0:
        if w.node_step[k] >= 0:
            chosen[w.node_step[k]] = w.node_reading[k]
        else:
            joined[-1 - w.node_step[k]] = w.node_reading[k]
        k = w.node_parent[k]
    return 0


cdef int64_t keep_cheapest(char *items, int64_t n, size_t size, int64_t k,
                           char *spare) noexcept nogil:
    """Put the ``k`` cheapest of ``n`` items (each starting with a ``Hit``) first, in
    ``hit_before`` order, and return how many that is: the first
    ``min(n, k)`` items a qsort by ``hit_cmp`` would give (no two items compare
    equal), by insertion into the first ``k`` places, since a step keeps 8 of some
    50.  The other places are left undefined."""
    cdef int64_t j, p, kept = 0
    for j in range(n):
        if kept == k and not hit_before(<Hit *> (items + j * size), <Hit *> (items + (k - 1) * size)):
            continue
        memcpy(spare, items + j * size, size)
        p = kept if kept < k else k - 1  # (full: the dearest kept goes)
        while p > 0 and hit_before(<Hit *> spare, <Hit *> (items + (p - 1) * size)):
            memcpy(items + p * size, items + (p - 1) * size, size)
            p -= 1
        memcpy(items + p * size, spare, size)
        kept = kept + 1 if kept < k else k
    return kept


cdef inline bint _same(const int64_t *a, const int64_t *b, int n) noexcept nogil:
    cdef int j
    for j in range(n):
        if a[j] != b[j]:
            return False
    return True


cdef inline void _history(const int64_t *ctx, int m, int64_t *hist, int m_lm) noexcept nogil:
    """The language model's history: the last ``m_lm`` context ids, padded with 'absent'."""
    cdef int j
    for j in range(m_lm):
        hist[j] = ctx[m - m_lm + j] if m - m_lm + j >= 0 else -2


cdef int alloc_work(Work *w, int64_t beam, int m, int m_lm, int64_t max_readings,
                    int64_t max_steps, int64_t max_joins, int n_levels) noexcept nogil:
    """Allocate a work space for lines of at most ``max_steps`` steps and ``max_joins``
    joins; 0, or -1 when out of memory (what was allocated is freed by ``free_work``
    either way)."""
    cdef int64_t n_offers = beam * (beam if beam > 1 else 1), size = 4, mm = m if m else 1
    cdef int64_t n_nodes = beam * (max_steps + max_joins) + 1, jj = max_joins if max_joins else 1
    while size < 2 * n_offers:
        size *= 2
    w.table_mask = size - 1
    w.now = 0
    w.score = <double *> malloc(beam * sizeof(double))
    w.score_next = <double *> malloc(beam * sizeof(double))
    w.state = <int64_t *> malloc(beam * mm * sizeof(int64_t))
    w.state_next = <int64_t *> malloc(beam * mm * sizeof(int64_t))
    w.ctx = <int64_t *> malloc(beam * mm * sizeof(int64_t))
    w.ctx_next = <int64_t *> malloc(beam * mm * sizeof(int64_t))
    w.link = <int64_t *> malloc(beam * sizeof(int64_t))
    w.link_next = <int64_t *> malloc(beam * sizeof(int64_t))
    w.group = <int64_t *> malloc(beam * sizeof(int64_t))
    w.offers = <Offer *> malloc(n_offers * sizeof(Offer))
    w.table = <int64_t *> malloc(size * sizeof(int64_t))
    w.stamp = <int64_t *> calloc(size, sizeof(int64_t))
    w.ranked = <Hit *> malloc((max_readings + 1) * sizeof(Hit))
    w.cheapest = <double *> malloc(beam * sizeof(double))
    w.lm = <double *> malloc((max_readings + 1) * sizeof(double))
    w.hist = <int64_t *> malloc((m_lm + 1) * sizeof(int64_t))
    w.level_ctx = <Context *> malloc((n_levels + 2) * sizeof(Context))
    w.m_score = <double *> malloc(2 * beam * sizeof(double))
    w.m_state = <int64_t *> malloc(2 * beam * mm * sizeof(int64_t))
    w.m_ctx = <int64_t *> malloc(2 * beam * mm * sizeof(int64_t))
    w.m_link = <int64_t *> malloc(2 * beam * sizeof(int64_t))
    w.m_rank = <Hit *> malloc(2 * beam * sizeof(Hit))
    w.j_score = <double *> malloc(jj * beam * sizeof(double))
    w.j_state = <int64_t *> malloc(jj * beam * mm * sizeof(int64_t))
    w.j_ctx = <int64_t *> malloc(jj * beam * mm * sizeof(int64_t))
    w.j_link = <int64_t *> malloc(jj * beam * sizeof(int64_t))
    w.j_n = <int64_t *> malloc(jj * sizeof(int64_t))
    w.node_parent = <int64_t *> malloc(n_nodes * sizeof(int64_t))
    w.node_step = <int64_t *> malloc(n_nodes * sizeof(int64_t))
    w.node_reading = <int64_t *> malloc(n_nodes * sizeof(int64_t))
    if (w.score == NULL or w.score_next == NULL or w.state == NULL or w.state_next == NULL
            or w.ctx == NULL or w.ctx_next == NULL or w.link == NULL or w.link_next == NULL
            or w.group == NULL or w.offers == NULL or w.table == NULL or w.stamp == NULL
            or w.ranked == NULL or w.cheapest == NULL or w.lm == NULL or w.hist == NULL
            or w.level_ctx == NULL
            or w.m_score == NULL or w.m_state == NULL or w.m_ctx == NULL or w.m_link == NULL
            or w.m_rank == NULL or w.j_score == NULL or w.j_state == NULL or w.j_ctx == NULL
            or w.j_link == NULL or w.j_n == NULL
            or w.node_parent == NULL or w.node_step == NULL
            or w.node_reading == NULL):
        return -1
    return 0


cdef void free_work(Work *w) noexcept nogil:
    free(w.score); free(w.score_next); free(w.state); free(w.state_next)
    free(w.ctx); free(w.ctx_next); free(w.link); free(w.link_next); free(w.group)
    free(w.offers); free(w.table); free(w.stamp); free(w.ranked); free(w.cheapest); free(w.lm)
    free(w.hist); free(w.level_ctx)
    free(w.m_score); free(w.m_state); free(w.m_ctx); free(w.m_link); free(w.m_rank)
    free(w.j_score); free(w.j_state); free(w.j_ctx); free(w.j_link); free(w.j_n)
    free(w.node_parent); free(w.node_step); free(w.node_reading)


def search_lines(
    KatzTables lm, double coef,
    const int64_t[::1] word_ctx, const int64_t[::1] word_pred,
    const int64_t[::1] r_start, const int64_t[::1] r_word, const double[::1] r_score,
    const uint8_t[::1] r_priced, const int64_t[::1] v_start, const double[::1] v_cost,
    const double[::1] v_offset, const double[::1] v_rec,
    const int64_t[::1] steps, const int64_t[::1] line_start,
    int64_t start_word, int m, int64_t beam_width, int n_threads=1,
    joins=None, double join_cost=0.0,
):
    """The cheapest reading of each line: ``(chosen, scores, joined)``.

    Parameters
    ----------
    lm : KatzTables or None
        The language model; None: no language model (``coef`` unused).
    coef : float
        The language model's weight in cost units, times -1 (``-lm_weight / Z``).
    word_ctx, word_pred : int64 arrays
        For each word id: its id in the language model as a context word (the
        start symbol: the vocabulary's size) and as a predicted word (-1: unknown;
        ``NEVER``: probability 0).
    r_start : int64 array
        Reading set ``i`` is ``r_start[i]:r_start[i + 1]`` of ``r_word`` (the
        readings' word ids), ``r_score`` (context-free scores) and ``r_priced``
        (whether the language model prices the reading).
    v_start, v_cost, v_offset
        Keeping the word of reading set ``i`` (its first reading) costs
        ``r_score[r_start[i]]``; and the set keeps its word as a variant of its
        other readings when ``v_start[i] < v_start[i + 1]``:
        ``v_cost[v_start[i]:v_start[i + 1]]`` (one per other reading), plus
        ``v_offset[i]``.
    v_rec : float64 array, the shape of ``steps``
        What keeping the word of the set at each step costs less, either way (its
        recurrences in the call).  One per step, not one per set: a call's arrays
        stay the size of its lines, whatever the sets a caller keeps across calls.
    steps, line_start : int64 arrays
        Line ``l``'s steps are ``steps[line_start[l]:line_start[l + 1]]``: a
        reading set's index, or ``-1 - id`` for the word ``id`` left as it is.
    start_word : int
        The start symbol's word id; the first state is ``m`` of them.
    m : int
        The words a state holds (the language model's order - 1; 0: none).
    beam_width : int
        Hypotheses kept after each step, and readings each offers.
    n_threads : int
        Threads, lines shared among them.
    joins : tuple of arrays, or None
        Two tokens read as one word: ``(join_start, tok, at, to, set, rec)``, int64
        but ``rec``.  Line ``l``'s joins are ``join_start[l]:join_start[l + 1]``,
        by token: join ``j`` reads tokens ``tok[j]`` and ``tok[j] + 1`` with the
        reading set ``set[j]`` (keeping its word ``rec[j]`` less) from the
        hypotheses before the line's step ``at[j]`` (the first token's first), and
        its hypotheses join those before step ``to[j]`` (after the second token; the
        line's number of steps after its last).  None: no joins.
    join_cost : float
        What a join costs more than its readings.

    Returns
    -------
    chosen : int64 array, the shape of ``steps``
        The reading taken at each step (an index into its set; -1: a word left as it
        is, or a step of joined tokens).
    scores : float64 array, one per line
    joined : int64 array, one per join
        The reading taken for each join; -1: not joined.
    """
    cdef int64_t n_lines = line_start.shape[0] - 1, l, max_steps = 0, max_readings = 1, i
    cdef int64_t max_joins = 0, n_joins, n_sets = r_start.shape[0] - 1
    cdef int n_levels = lm.n_levels if lm is not None else 0
    cdef int m_lm = n_levels - 1 if n_levels else 0
    cdef bint use_lm = lm is not None
    if beam_width < 1:
        raise ValueError(f"beam_width must be at least 1, got {beam_width}")
    if m < 0:
        raise ValueError(f"m must be >= 0, got {m}")
    if v_rec.shape[0] != steps.shape[0]:
        raise ValueError(f"v_rec must have one value per step ({steps.shape[0]}), "
                         f"got {v_rec.shape[0]}")
    if joins is None:
        joins = (np.zeros(max(n_lines, 0) + 1, np.int64), *[np.zeros(0, np.int64)] * 4,
                 np.zeros(0, np.float64))
    cdef const int64_t[::1] join_start = joins[0]
    cdef const int64_t[::1] j_tok = joins[1]
    cdef const int64_t[::1] j_at = joins[2]
    cdef const int64_t[::1] j_to = joins[3]
    cdef const int64_t[::1] j_set = joins[4]
    cdef const double[::1] j_rec = joins[5]
    n_joins = j_tok.shape[0]
    if (join_start.shape[0] != line_start.shape[0] or j_at.shape[0] != n_joins
            or j_to.shape[0] != n_joins or j_set.shape[0] != n_joins
            or j_rec.shape[0] != n_joins or (n_lines >= 0 and join_start[0] != 0)
            or (n_lines >= 0 and join_start[n_lines] != n_joins)):
        raise ValueError("joins must be (join_start, tok, at, to, set, rec): join_start one "
                         "per line and one more, from 0 to the number of joins, the others "
                         "one per join")
    for l in range(n_lines):
        max_steps = max(max_steps, line_start[l + 1] - line_start[l])
        if join_start[l + 1] < join_start[l]:
            raise ValueError("joins: join_start must not decrease")
        max_joins = max(max_joins, join_start[l + 1] - join_start[l])
        for i in range(join_start[l], join_start[l + 1]):
            if (not 0 <= j_at[i] <= j_to[i] <= line_start[l + 1] - line_start[l]
                    or not 0 <= j_set[i] < n_sets
                    or (i > join_start[l] and j_tok[i] <= j_tok[i - 1])
                    or (i > join_start[l] and j_at[i] < j_at[i - 1])):
                raise ValueError(f"joins: join {i} lies outside its line's steps, or reads "
                                 f"no reading set, or comes out of order")
    # The largest reading set the lines step through (not every set of the tables,
    # which a caller keeps growing across calls: the call's work stays its own).
    for i in range(steps.shape[0]):
        if steps[i] >= 0:
            max_readings = max(max_readings, r_start[steps[i] + 1] - r_start[steps[i]])
    for i in range(n_joins):
        max_readings = max(max_readings, r_start[j_set[i] + 1] - r_start[j_set[i]])
    chosen = np.full(steps.shape[0], -1, dtype=np.int64)
    scores = np.zeros(max(n_lines, 0), dtype=np.float64)
    joined = np.full(n_joins, -1, dtype=np.int64)
    cdef int64_t[::1] chosen_v = chosen
    cdef double[::1] scores_v = scores
    cdef int64_t[::1] joined_v = joined
    cdef Work *w
    cdef Py_ssize_t failed = 0
    cdef int ok
    cdef Line ln
    ln.levels = lm.levels if lm is not None else NULL
    ln.first_ctx = lm.first_ctx if lm is not None else NULL
    ln.n_levels = n_levels
    ln.w1 = lm.w1 if lm is not None else 1
    ln.m_lm = m_lm
    ln.coef = coef
    ln.use_lm = use_lm
    ln.word_ctx = &word_ctx[0] if word_ctx.shape[0] else NULL
    ln.word_pred = &word_pred[0] if word_pred.shape[0] else NULL
    ln.r_start = &r_start[0]
    ln.r_word = &r_word[0] if r_word.shape[0] else NULL
    ln.r_score = &r_score[0] if r_score.shape[0] else NULL
    ln.r_priced = &r_priced[0] if r_priced.shape[0] else NULL
    ln.v_start = &v_start[0]
    ln.v_cost = &v_cost[0] if v_cost.shape[0] else NULL
    ln.v_offset = &v_offset[0] if v_offset.shape[0] else NULL
    ln.m = m
    ln.beam = beam_width
    cdef const double *p_v_rec = &v_rec[0] if v_rec.shape[0] else NULL
    cdef const int64_t *p_steps = &steps[0] if steps.shape[0] else NULL
    cdef int64_t *p_chosen = &chosen_v[0] if steps.shape[0] else NULL
    cdef const int64_t *p_tok = &j_tok[0] if n_joins else NULL
    cdef const int64_t *p_at = &j_at[0] if n_joins else NULL
    cdef const int64_t *p_to = &j_to[0] if n_joins else NULL
    cdef const int64_t *p_set = &j_set[0] if n_joins else NULL
    cdef const double *p_rec = &j_rec[0] if n_joins else NULL
    cdef int64_t *p_joined = &joined_v[0] if n_joins else NULL
    if n_lines <= 0:
        return chosen, scores, joined
    with nogil, parallel(num_threads=skc_threads(n_threads)):
        # Each thread's own work space.
        w = <Work *> calloc(1, sizeof(Work))
        ok = w != NULL and alloc_work(w, beam_width, m, m_lm, max_readings, max_steps,
                                      max_joins, n_levels) == 0
        for l in prange(n_lines, schedule="dynamic"):
            if not ok:
                failed += 1
                continue
            search_line(
                &ln, p_v_rec + line_start[l], p_steps + line_start[l],
                line_start[l + 1] - line_start[l],
                p_tok + join_start[l], p_at + join_start[l], p_to + join_start[l],
                p_set + join_start[l], p_rec + join_start[l],
                join_start[l + 1] - join_start[l], join_cost, start_word, w,
                p_chosen + line_start[l], p_joined + join_start[l], &scores_v[l],
            )
        if w != NULL:
            free_work(w)
            free(w)
    if failed:
        raise MemoryError("search_lines: no memory for the beam's work space")
    return chosen, scores, joined

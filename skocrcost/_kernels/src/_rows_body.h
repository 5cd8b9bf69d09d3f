/* Template included by _rows_set.h with SKC_ATTR, SKC_NAME, SKC_VT (a vector of SKC_VW = 4
 * int32), SKC_NV (vectors per column), SKC_S (strings in flight), SKC_MIN(y, x),
 * SKC_DOWN(x, hi, k) (lane j takes lane j + k of x, or of hi past the end), SKC_SELECT(m,
 * a, b) (a where m, else b) and SKC_SHARE defined: one OCR string against the truth
 * strings of words [k0, k1) (skc_rows_run).
 *
 * With SKC_SHARE, a word's first lcp[k] characters are the word before's (a sorted
 * lexicon: 73% of SCOWL's characters), and so are its first lcp[k] columns: each stream
 * keeps its last columns (up to SKC_ROWS_DEPTH - 2) in ``kept`` and starts a word from
 * column lcp[k] of the word before, without a branch (a word starts every 2 or 3 columns
 * there).  The stores, loads and selects make a column 2.1-2.4x dearer, so skc_rows_run
 * takes this set only when it skips most columns (ROWS_SHARE in _cost_kernel.pyx).
 *
 * A column of the DP sits in the lanes, at positions p = 0 .. W - 1: the OCR string's last
 * character at p = 0, its first at p = n - 1; positions past n are row 0 (always 0).  They
 * are striped (Farrar 2007): position p is lane p / NV of vector p % NV, so that p + 1 is
 * the same lane of the next vector, except from the last vector, whose p + 1 is the next
 * lane of vector 0.  With the potentials of _grid_body.h (D'' = D - P - Q, all values
 * <= 0), column j is built from column j - 1 by
 *   T[p] = min(column j - 1 at p + 1 (the diagonal) + profile[y_j][p], column j - 1 at p)
 * and a running minimum from the top position down (a deletion adds nothing): down the
 * vectors within each lane (no shuffle), then the minimum of the lanes above each lane
 * (three lane shifts) applied to every vector.  So a column takes 4 lane shifts whatever
 * the number of vectors, where the plain layout (p in lane p % 4 of vector p / 4) took 4
 * per vector: shuffles share two pipes on Zen 3 and bounded the kernel (one query
 * against SCOWL: 8.4 M -> 7.0 M user cycles per call).  Each column waits on the one
 * before through about a dozen instructions, so SKC_S strings
 * run interleaved, each walking its own share of the words column by column.  A word's
 * first column starts from column 0 (all 0) without a branch, every column writes its
 * word's D'' + Q so far to ``res``, so the last one written is the word's, and P is added
 * by the caller.  Q (inserting the word so far) is summed in a vector too, from the
 * profile row's last 4 lanes (the column character's insertion cost): as a scalar it
 * cost registers the interleaved strings need (14% more cycles per call).
 */
SKC_ATTR static void SKC_NAME(const int32_t *prof, ptrdiff_t n_ids, const uint32_t *extra,
                              ptrdiff_t n_extra, const int32_t *yid, const uint32_t *ycp,
                              const int64_t *co, const int64_t *lcp, const int64_t *ccum,
                              ptrdiff_t k0, ptrdiff_t k1, int64_t *res) {
    enum { S = SKC_S, NV = SKC_NV, VW = SKC_VW, W = SKC_NV * SKC_VW, D = SKC_ROWS_DEPTH };
    const SKC_VT zero = {0};
    const SKC_VT keep[2] = {~zero, zero}; /* a word's first column takes a kept column */
    /* res[k - k0] and lcp[k] sit as far from co[k] as res[0] from co[k0] and lcp[0] from
     * co[0]: a stream's word is one pointer. */
    const intptr_t to_res = (intptr_t)res - (intptr_t)(co + k0);
    SKC_VT c[S][NV];
    SKC_VT q[S]; /* Q of the stream's word so far in every lane (below 2^31: the caller) */
    const int64_t *cw[S]; /* the end of the stream's current word: &co[word + 1] */
    ptrdiff_t pos[S], left[S], s, v, steps;
#if SKC_SHARE
    const intptr_t to_lcp = (intptr_t)lcp - (intptr_t)co;
    /* Columns 1 .. D - 2 of the stream's last words (then Q), slot 0 all zero (a word's
     * column 0), slot D - 1 where deeper columns go unread. */
    SKC_VT kept[S][D][NV + 1];
    ptrdiff_t dep[S];
    int64_t valid[S]; /* 0 until the stream's first column: its first word keeps nothing */
#endif
    skc_rows_streams(co, ccum, lcp, k0, k1, S, cw, pos, left);
    for (s = 0; s < S; s++) {
        q[s] = zero;
        for (v = 0; v < NV; v++) c[s][v] = zero;
#if SKC_SHARE
        for (v = 0; v <= NV; v++) kept[s][0][v] = zero;
        dep[s] = 0;
        valid[s] = 0;
#endif
    }
#if SKC_SHARE
    /* A word's first column: its first l characters are the last word's, whose column l
     * is kept (l = 0: column 0); slot 0 otherwise, not selected.  No branch: a word
     * starts every 2 or 3 columns, unpredictably. */
#define SKC_START(s)                                                                         \
    do {                                                                                     \
        const int64_t l =                                                                    \
            *(const int64_t *)((intptr_t)(cw[s] - 1) + to_lcp) & valid[s] & -(int64_t)first; \
        const SKC_VT *from = kept[s][l];                                                     \
        const ptrdiff_t d = (first ? l : dep[s]) + 1;                                        \
        valid[s] = -1;                                                                       \
        ps += l;                                                                             \
        dep[s] = d < D - 1 ? d : D - 1;                                                      \
        q[s] = SKC_SELECT(keep[first], q[s], from[NV]);                                      \
        for (v = 0; v < NV; v++) c[s][v] = SKC_SELECT(keep[first], c[s][v], from[v]);        \
    } while (0)
#define SKC_KEEP(s)                                                                          \
    do {                                                                                     \
        for (v = 0; v < NV; v++) kept[s][dep[s]][v] = c[s][v];                               \
        kept[s][dep[s]][NV] = q[s];                                                          \
    } while (0)
#else
#define SKC_START(s)                                                                         \
    do {                                                                                     \
        q[s] &= keep[first];                                                                 \
        for (v = 0; v < NV; v++) c[s][v] &= keep[first];                                     \
    } while (0)
#define SKC_KEEP(s)
#endif
#define SKC_COLUMN(s)                                                                        \
    do {                                                                                     \
        ptrdiff_t ps = pos[s];                                                               \
        const int first = ps == *cw[s];                                                      \
        int32_t id;                                                                          \
        const int32_t *pr;                                                                   \
        SKC_VT x[NV], y;                                                                     \
        cw[s] += first;                                                                      \
        SKC_START(s);                                                                        \
        id = yid[ps];                                                                        \
        pr = prof + (id ? (ptrdiff_t)id : skc_rows_extra(ycp[ps], extra, n_extra, n_ids)) * (W + VW); \
        q[s] += *(const SKC_VT *)(pr + W);                                                   \
        for (v = 0; v < NV; v++) { /* the diagonal: position p + 1 */                        \
            x[v] = v + 1 < NV ? c[s][v + 1] : SKC_DOWN(c[s][0], zero, 1);                    \
            x[v] = SKC_MIN(x[v] + *(const SKC_VT *)(pr + v * VW), c[s][v]);                 \
        }                                                                                    \
        for (v = NV - 2; v >= 0; v--) x[v] = SKC_MIN(x[v], x[v + 1]); /* within lanes */     \
        y = SKC_DOWN(x[0], zero, 1); /* lane k: the minimum of the lanes above it */         \
        y = SKC_MIN(y, SKC_DOWN(y, zero, 1));                                                \
        y = SKC_MIN(y, SKC_DOWN(y, zero, 2));                                                \
        for (v = 0; v < NV; v++) c[s][v] = SKC_MIN(x[v], y);                                 \
        SKC_KEEP(s);                                                                         \
        *(int32_t *)((intptr_t)(cw[s] - 1) + to_res) = (c[s][0] + q[s])[0];              \
        pos[s] = ps + 1;                                                                     \
    } while (0)
    for (;;) { /* all S strings in flight, until one runs out of columns */
        steps = left[0];
        for (s = 1; s < S; s++)
            if (left[s] < steps) steps = left[s];
        if (steps == 0) break;
        for (s = 0; s < S; s++) left[s] -= steps;
        for (; steps > 0; steps--) {
#pragma GCC unroll 8
            for (s = 0; s < S; s++) SKC_COLUMN(s);
        }
    }
    for (s = 0; s < S; s++) /* the others' last columns, one string at a time */
        for (; left[s] > 0; left[s]--) SKC_COLUMN(s);
#undef SKC_COLUMN
#undef SKC_START
#undef SKC_KEEP
}

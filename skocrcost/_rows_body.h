/* Template included by _rows_set.h with SKC_ATTR, SKC_NAME, SKC_VT (a vector of SKC_VW = 4
 * int32), SKC_NV (vectors per column), SKC_S (strings in flight), SKC_MIN(y, x),
 * SKC_DOWN(x, hi, k) (lane j takes lane j + k of x, or of hi past the end) and
 * SKC_BCAST0(x) defined: one OCR string against the truth strings of words [k0, k1)
 * (skc_rows_run).
 *
 * A column of the DP sits in the lanes, the OCR string's last character in lane 0 of vector
 * 0 and its first in lane n - 1; lanes past n are row 0 (always 0).  With the potentials of
 * _grid_body.h (D'' = D - P - Q, all values <= 0), column j is built from column j - 1 by
 *   T = min(column j - 1 moved down one lane (the diagonal) + profile[y_j], column j - 1)
 * and a running minimum from the top lane down (a deletion adds nothing): two shift-and-
 * minimum steps in each vector, then each vector takes the minimum of the one above it.
 * Each column waits on the one before through about a dozen instructions, so SKC_S strings
 * run interleaved, each walking its own share of the words column by column.  A word's
 * first column starts from column 0 (all 0) without a branch, every column writes its
 * word's D'' + Q so far to ``res``, so the last one written is the word's, and P is added
 * by the caller.  Q (inserting the word so far) is summed in a vector too, from the
 * profile row's last 4 lanes (the column character's insertion cost): as a scalar it
 * cost registers the interleaved strings need (14% more cycles per call).
 */
SKC_ATTR static void SKC_NAME(const int32_t *prof, ptrdiff_t n_ids, const uint32_t *extra,
                              ptrdiff_t n_extra, const int32_t *yid, const uint32_t *ycp,
                              const int64_t *co, ptrdiff_t k0, ptrdiff_t k1, int64_t *res) {
    enum { S = SKC_S, NV = SKC_NV, VW = SKC_VW, W = SKC_NV * SKC_VW };
    const SKC_VT zero = {0};
    const SKC_VT keep[2] = {~zero, zero}; /* a word's first column clears the state */
    /* res[k - k0] sits as far from co[k] as res[0] from co[k0]: a stream's word is one pointer. */
    const intptr_t to_res = (intptr_t)res - (intptr_t)(co + k0);
    SKC_VT c[S][NV];
    SKC_VT q[S]; /* Q of the stream's word so far in every lane (below 2^31: the caller) */
    const int64_t *cw[S]; /* the end of the stream's current word: &co[word + 1] */
    ptrdiff_t pos[S], end[S], s, v, steps;
    skc_rows_streams(co, k0, k1, S, cw, pos, end);
    for (s = 0; s < S; s++) {
        q[s] = zero;
        for (v = 0; v < NV; v++) c[s][v] = zero;
    }
#define SKC_COLUMN(s)                                                                        \
    do {                                                                                     \
        const ptrdiff_t ps = pos[s];                                                         \
        const int first = ps == *cw[s];                                                      \
        const int32_t id = yid[ps];                                                          \
        const int32_t *pr;                                                                   \
        SKC_VT x[NV];                                                                        \
        cw[s] += first;                                                                      \
        pr = prof + (id ? (ptrdiff_t)id : skc_rows_extra(ycp[ps], extra, n_extra, n_ids)) * (W + VW); \
        q[s] = (q[s] & keep[first]) + *(const SKC_VT *)(pr + W);                         \
        for (v = 0; v < NV; v++) c[s][v] &= keep[first];                                     \
        for (v = 0; v < NV; v++) {                                                           \
            x[v] = SKC_DOWN(c[s][v], v + 1 < NV ? c[s][v + 1] : zero, 1);                    \
            x[v] = SKC_MIN(x[v] + *(const SKC_VT *)(pr + v * VW), c[s][v]);                 \
            x[v] = SKC_MIN(x[v], SKC_DOWN(x[v], zero, 1));                                   \
            x[v] = SKC_MIN(x[v], SKC_DOWN(x[v], zero, 2));                                   \
        }                                                                                    \
        for (v = NV - 2; v >= 0; v--) x[v] = SKC_MIN(x[v], SKC_BCAST0(x[v + 1]));            \
        for (v = 0; v < NV; v++) c[s][v] = x[v];                                             \
        *(int32_t *)((intptr_t)(cw[s] - 1) + to_res) = (x[0] + q[s])[0];                 \
        pos[s] = ps + 1;                                                                     \
    } while (0)
    for (;;) { /* all S strings in flight, until one runs out of words */
        steps = end[0] - pos[0];
        for (s = 1; s < S; s++)
            if (end[s] - pos[s] < steps) steps = end[s] - pos[s];
        if (steps == 0) break;
        for (; steps > 0; steps--) {
#pragma GCC unroll 8
            for (s = 0; s < S; s++) SKC_COLUMN(s);
        }
    }
    for (s = 0; s < S; s++) /* the others' last words, one string at a time */
        while (pos[s] < end[s]) SKC_COLUMN(s);
#undef SKC_COLUMN
}

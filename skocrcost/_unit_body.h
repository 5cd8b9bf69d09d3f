/* Template included by _unit.h with SKC_NAME and SKC_ATTR defined: one text against the
 * 16 patterns of a loaded block (skc_bp_block_run).
 *
 * Each lane keeps its score (the bottom cell of its DP column) in 16 bits, which wrap
 * for texts of 65536 characters or more; the distance d of a lane of length m <= 16
 * lies in [n - 16, n + 16], so d = n + (int16_t)(score - n) recovers it exactly.
 */
SKC_ATTR static void SKC_NAME(const skc_bp_block *blk, const uint32_t *t, ptrdiff_t n,
                              const int64_t *cols, double *out) {
    typedef int16_t s16x16 __attribute__((vector_size(32)));
    const skc_u16x16 zero = {0};
    skc_u16x16 vp = ~zero, vn = zero, hp, hn, eq, score, last;
    ptrdiff_t i;
    int k, e;
    memcpy(&score, blk->len, sizeof score);
    memcpy(&last, blk->last, sizeof last);
    for (i = 0; i < n; i++) {
        const uint32_t c = t[i];
        if (c < SKC_BP_LOW) {
            eq = blk->low[c];
        } else {
            eq = zero;
            for (e = 0; e < blk->n_ext; e++)
                if (blk->ext_cp[e] == c) {
                    eq = blk->ext_mask[e];
                    break;
                }
        }
        SKC_BP_STEP(skc_u16x16, eq, vp, vn, hp, hn);
        /* A comparison gives -1 in the lanes where it holds. */
        score -= (skc_u16x16)((s16x16)((hp & last) != zero));
        score += (skc_u16x16)((s16x16)((hn & last) != zero));
    }
    for (k = 0; k < SKC_BP_LANES; k++)
        if (cols[k] >= 0)
            out[cols[k]] = blk->len[k] ? (double)(n + (int16_t)(uint16_t)(score[k] - (uint16_t)n))
                                       : (double)n;
}

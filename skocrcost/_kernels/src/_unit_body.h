/* Template included by _unit.h with SKC_NAME and SKC_ATTR defined: two texts against
 * the 16 patterns of a loaded block (skc_bp_block_run).
 *
 * One step of the recurrence is a chain of ~11 dependent vector operations, longer
 * than its ~15 operations take to issue: two texts scanned together fill the gap
 * (independent chains), where one alone waits on its own latency.
 */

/* Advance the state (vp, vn) named by suffix S over text character c. */
#define SKC_BP_LANE_STEP(S, c)                                                  \
    do {                                                                        \
        const uint32_t c_ = (c);                                                \
        skc_u16x16 eq_ = zero;                                                  \
        if (c_ < SKC_BP_LOW) {                                                  \
            eq_ = blk->low[c_];                                                 \
        } else {                                                                \
            for (e = 0; e < blk->n_ext; e++)                                    \
                if (blk->ext_cp[e] == c_) {                                     \
                    eq_ = blk->ext_mask[e];                                     \
                    break;                                                      \
                }                                                               \
        }                                                                       \
        skc_u16x16 unused_hp_, unused_hn_;                                      \
        SKC_BP_STEP(skc_u16x16, 15, eq_, vp##S, vn##S, 1, 0, unused_hp_, unused_hn_); \
    } while (0)

/* Write the distances of a text of n characters, final state (vp, vn), to row: n plus
 * the +1 steps minus the -1 steps of each lane's last column (skc_bp_bottom). */
#define SKC_BP_LANE_WRITE(vp, vn, n, row)                                       \
    do {                                                                        \
        double *out_ = (row) + blk->loaded * SKC_BP_LANES;                      \
        skc_u16x16 up_, down_;                                                  \
        SKC_POPCOUNT16(1, (vp) & mask, up_);                                    \
        SKC_POPCOUNT16(1, (vn) & mask, down_);                                  \
        up_ -= down_;                                                           \
        for (k = 0; k < SKC_BP_LANES; k++)                                      \
            if (blk->active[k]) out_[k] = (double)((n) + (int16_t)up_[k]);      \
    } while (0)

/* Texts t1 (n1 characters, distances to row1) and t2 (n2, row2; none if row2 is NULL). */
SKC_ATTR static void SKC_NAME(const skc_bp_block *blk, const uint32_t *t1, ptrdiff_t n1,
                              double *row1, const uint32_t *t2, ptrdiff_t n2, double *row2) {
    const skc_u16x16 zero = {0};
    skc_u16x16 vp1 = ~zero, vn1 = zero, vp2 = ~zero, vn2 = zero, mask;
    ptrdiff_t i;
    int k, e;
    if (row2 == NULL) n2 = 0;
    memcpy(&mask, blk->mask, sizeof mask);
    for (i = 0; i < n1 && i < n2; i++) {
        SKC_BP_LANE_STEP(1, t1[i]);
        SKC_BP_LANE_STEP(2, t2[i]);
    }
    for (; i < n1; i++) SKC_BP_LANE_STEP(1, t1[i]);
    for (; i < n2; i++) SKC_BP_LANE_STEP(2, t2[i]);
    SKC_BP_LANE_WRITE(vp1, vn1, n1, row1);
    if (row2 != NULL) SKC_BP_LANE_WRITE(vp2, vn2, n2, row2);
}

/* One text, as rows of a table of match masks built once for a whole lexicon (see
 * skc_bp_table_run), against blocks g0 .. g1 - 1, two blocks at a time (two chains in
 * flight): no block is loaded, a step reads its mask where the table holds it. */
SKC_ATTR static void SKC_TABLE_NAME(const uint16_t *table, ptrdiff_t nblocks,
                                    const uint16_t *lane_mask, const int32_t *rows, ptrdiff_t n,
                                    ptrdiff_t g0, ptrdiff_t g1, ptrdiff_t ny, double *row) {
    const skc_u16x16 zero = {0};
    ptrdiff_t g, i;
    int k, b;
    for (g = g0; g < g1; g += 2) {
        const int two = g + 1 < g1;
        skc_u16x16 vp[2] = {~zero, ~zero}, vn[2] = {zero, zero};
        for (i = 0; i < n; i++) {
            const skc_u16x16u *r = (const skc_u16x16u *)table + rows[i] * nblocks + g;
            skc_u16x16 u1, u2, u3, u4;
            SKC_BP_STEP(skc_u16x16, 15, r[0], vp[0], vn[0], 1, 0, u1, u2);
            SKC_BP_STEP(skc_u16x16, 15, r[two], vp[1], vn[1], 1, 0, u3, u4);
        }
        for (b = 0; b <= two; b++) {
            const skc_u16x16 mask = ((const skc_u16x16u *)lane_mask)[g + b];
            double *out = row + (g + b - g0) * SKC_BP_LANES;
            const ptrdiff_t lanes = ny - (g + b) * SKC_BP_LANES;
            skc_u16x16 up, down;
            SKC_POPCOUNT16(1, vp[b] & mask, up);
            SKC_POPCOUNT16(1, vn[b] & mask, down);
            up -= down;
            for (k = 0; k < SKC_BP_LANES && k < lanes; k++) out[k] = (double)(n + (int16_t)up[k]);
        }
    }
}

#undef SKC_BP_LANE_STEP
#undef SKC_BP_LANE_WRITE

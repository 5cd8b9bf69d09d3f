/* Template included by _lanes.h with SKC_T (the element type: double, or int32_t for
 * fixed-point costs) and SKC_TN(name) (the name of the function for that type) defined:
 * the work space of a group of truth strings, its first DP row and its substitution
 * costs.  Offsets are in elements of SKC_T; the work space is allocated in doubles
 * (skc_lanes_work), which is enough for either type.
 */
static inline SKC_T *SKC_TN(skc_lanes_ins)(SKC_T *work, ptrdiff_t mmax) {
    return work + (5 * mmax + 3) * SKC_LANES;
}

/* Interleave a group's truth strings into ``work`` and fill its first DP row. */
static void SKC_TN(skc_lanes_load)(const SKC_T *ins_tab, const int32_t *bid, const uint32_t *bcp,
                           const int64_t *off, const int64_t *m, ptrdiff_t mmax,
                           SKC_T *work) {
    /* Lane k holds the string at bid[off[k]], bcp[off[k]] of length m[k]. */
    const ptrdiff_t L = SKC_LANES;
    SKC_T *prev = work;
    SKC_T *ins = SKC_TN(skc_lanes_ins)(work, mmax);
    int32_t *yid = (int32_t *)(ins + mmax * L);
    uint32_t *ycp = (uint32_t *)(yid + mmax * L);
    ptrdiff_t j, k;
    for (j = 0; j < mmax; j++) {
        for (k = 0; k < L; k++) {
            if (j < m[k]) {
                yid[j * L + k] = bid[off[k] + j];
                ycp[j * L + k] = bcp[off[k] + j];
                ins[j * L + k] = ins_tab[bid[off[k] + j]];
            } else {
                yid[j * L + k] = 0;
                ycp[j * L + k] = SKC_NO_CP;
                ins[j * L + k] = 0;
            }
        }
    }
    for (k = 0; k < L; k++) prev[k] = 0;
    for (j = 0; j < mmax; j++)
        for (k = 0; k < L; k++) prev[(j + 1) * L + k] = prev[j * L + k] + ins[j * L + k];
}

/* Substitution costs of one OCR character (code point ca, dense row drow) against w
 * truth characters: 0 on a match (equal code points), else drow[yid[j]].  Every dense
 * row has 0 on its own id's diagonal, so an alphabet character passes ca = SKC_NO_MATCH
 * and takes a plain gather, without comparing code points (a quarter fewer
 * instructions for one query against a lexicon, where rows are gathered). */
static inline void SKC_TN(skc_gather_sub)(const SKC_T *drow, uint32_t ca, const int32_t *yid,
                                  const uint32_t *ycp, ptrdiff_t w, SKC_T *out) {
    ptrdiff_t j;
    if (ca == SKC_NO_MATCH) {
        SKC_GATHER_UNROLL
        for (j = 0; j < w; j++) out[j] = drow[yid[j]];
        return;
    }
    for (j = 0; j < w; j++) out[j] = (ycp[j] == ca) ? 0 : drow[yid[j]];
}

/* The loaded group's substitution costs per OCR character class (row r: mmax * L
 * elements), so that many OCR strings against one group read them rather than gather
 * them per row.  Rows 1 .. n_ids - 1 are the alphabet's ids; row n_ids + k is the
 * character extra_cp[k] outside the alphabet (id 0: dense row 0, a match by code
 * point); row 0 is unused.  ``profile`` holds (n_ids + n_extra) * mmax * L elements. */
static void SKC_TN(skc_lanes_profile)(const SKC_T *dense, ptrdiff_t n_ids, ptrdiff_t mmax,
                              const SKC_T *work, const uint32_t *extra_cp,
                              ptrdiff_t n_extra, SKC_T *profile) {
    const ptrdiff_t w = mmax * SKC_LANES;
    const int32_t *yid = (const int32_t *)(SKC_TN(skc_lanes_ins)((SKC_T *)work, mmax) + w);
    const uint32_t *ycp = (const uint32_t *)(yid + w);
    ptrdiff_t a, k;
    for (a = 1; a < n_ids; a++)
        SKC_TN(skc_gather_sub)(dense + a * n_ids, SKC_NO_MATCH, yid, ycp, w, profile + a * w);
    for (k = 0; k < n_extra; k++)
        SKC_TN(skc_gather_sub)(dense, extra_cp[k], yid, ycp, w, profile + (n_ids + k) * w);
}

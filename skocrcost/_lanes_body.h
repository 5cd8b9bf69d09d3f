/* Template included by _lanes.h with SKC_NAME, SKC_ATTR, SKC_VT (a vector of SKC_VW
 * doubles) and SKC_MT (its comparison mask) defined.
 *
 * Distances of one OCR string to the loaded group: lane k (length m[k]) goes to
 * out[cols[k]], unless cols[k] < 0 (a padding lane).  Each lane adds what the scalar
 * DP adds and takes y < x ? y : x, the exact minimum, so results are bit-for-bit the same.
 */
SKC_ATTR static void SKC_NAME(const double *dense, ptrdiff_t n_ids, const double *del_tab,
                              const int32_t *aid, const uint32_t *acp, ptrdiff_t n,
                              const int64_t *m, ptrdiff_t mmax, double *work,
                              const double *profile, const int64_t *cols, double *out) {
    enum { L = SKC_LANES, VW = SKC_VW, NV = SKC_LANES / SKC_VW };
    const double *row0 = work;
    double *bufa = work + (mmax + 1) * L; /* row 0 (in work) is kept for the next string */
    double *bufb = bufa + (mmax + 1) * L;
    double *restrict sub = bufb + (mmax + 1) * L;
    const double *restrict ins = skc_lanes_ins(work, mmax);
    const int32_t *restrict yid = (const int32_t *)(ins + mmax * L);
    const uint32_t *restrict ycp = (const uint32_t *)(yid + mmax * L);
    const double *up = row0;
    ptrdiff_t i, j, k, v;
    if (n == 0) {
        for (k = 0; k < L; k++)
            if (cols[k] >= 0) out[cols[k]] = row0[m[k] * L + k];
        return;
    }
    /* Rows alternate between two buffers; the first reads row 0, which stays intact. */
    for (i = 0; i < n; i++) {
        const double dl = del_tab[aid[i]];
        const SKC_VT vdl = (SKC_VT){0} + dl;
        double *restrict dst = (i & 1) ? bufb : bufa;
        const double *restrict src = up;
        const double *restrict srow;
        SKC_VT d[NV], x, y;
        SKC_MT lt;
        if (profile != NULL && aid[i] != 0) {
            srow = profile + (ptrdiff_t)aid[i] * mmax * L;
        } else {
            /* Characters outside the alphabet (id 0) match by code point only. */
            const double *restrict drow = dense + (ptrdiff_t)aid[i] * n_ids;
            const uint32_t ca = acp[i];
            for (j = 0; j < mmax * L; j++) sub[j] = (ycp[j] == ca) ? 0.0 : drow[yid[j]];
            srow = sub;
        }
        for (v = 0; v < NV; v++) {
            d[v] = *(const SKC_VT *)(src + v * VW) + vdl;
            *(SKC_VT *)(dst + v * VW) = d[v];
        }
        for (j = 0; j < mmax; j++) {
            for (v = 0; v < NV; v++) {
                const ptrdiff_t c = j * L + v * VW;
                x = *(const SKC_VT *)(src + c) + *(const SKC_VT *)(srow + c);
                y = *(const SKC_VT *)(src + c + L) + vdl;
                lt = y < x;
                x = (SKC_VT)((lt & (SKC_MT)y) | (~lt & (SKC_MT)x));
                y = d[v] + *(const SKC_VT *)(ins + c);
                lt = y < x;
                d[v] = (SKC_VT)((lt & (SKC_MT)y) | (~lt & (SKC_MT)x));
                *(SKC_VT *)(dst + c + L) = d[v];
            }
        }
        up = dst;
    }
    for (k = 0; k < L; k++)
        if (cols[k] >= 0) out[cols[k]] = up[m[k] * L + k];
}

/* Template included by _lanes.h with SKC_NAME, SKC_ATTR, SKC_VT (a vector of SKC_VW
 * doubles), SKC_MIN(y, x) (y < x ? y : x in every lane) and SKC_FADD(x, y) (x + y, in
 * whichever instruction the target has a pipe free for) defined.
 *
 * Distances of OCR strings t < nx (at offsets xo[t] .. xo[t + 1] of xid, xcp and xrow) to
 * the loaded group: lane k (length m[k]) goes to out[t * ostride + cols[k]], unless
 * cols[k] < 0 (a padding lane).  Each lane adds what the scalar
 * DP adds and takes y < x ? y : x (SKC_MIN), the exact minimum, so results are
 * bit-for-bit the same.
 *
 * Rows go two at a time: row i + 1 reads row i from registers, so per cell there are
 * half the loads and stores, and twice the chains in flight (each cell waits on its
 * left neighbour: an addition and a minimum).
 */
SKC_ATTR static void SKC_NAME(const double *dense, ptrdiff_t n_ids, const double *del_tab,
                              const int32_t *xid, const uint32_t *xcp, const int32_t *xrow,
                              const int64_t *xo, ptrdiff_t nx, const int64_t *m,
                              ptrdiff_t mmax, double *work, const double *profile,
                              const int64_t *cols, double *out, ptrdiff_t ostride) {
    enum { L = SKC_LANES, VW = SKC_VW, NV = SKC_LANES / SKC_VW };
    const ptrdiff_t w = mmax * L;
    const double *row0 = work;
    double *bufa = work + (mmax + 1) * L; /* row 0 (in work) is kept for the next string */
    double *bufb = bufa + (mmax + 1) * L;
    double *sub = bufb + (mmax + 1) * L; /* two rows of gathered substitution costs */
    const double *restrict ins = skc_lanes_ins(work, mmax);
    const int32_t *yid = (const int32_t *)(ins + w);
    const uint32_t *ycp = (const uint32_t *)(yid + w);
    ptrdiff_t t, i, j, k, v;
    for (t = 0; t < nx; t++, out += ostride) {
        const int32_t *aid = xid + xo[t], *arow = xrow + xo[t];
        const uint32_t *acp = xcp + xo[t];
        const ptrdiff_t n = xo[t + 1] - xo[t];
        const double *up = row0;
        for (i = 0; i < n; i += 2) {
            /* Rows alternate between two buffers; the first pass reads row 0, kept intact. */
            double *restrict dst = (up == bufa) ? bufb : bufa;
            const double *restrict src = up;
            const SKC_VT vdl0 = (SKC_VT){0} + del_tab[aid[i]];
            const double *restrict s0 = skc_lanes_srow(dense, n_ids, profile, profile ? arow[i] : 0,
                                                       aid[i], acp[i], yid, ycp, w, sub);
            SKC_VT a[NV], b[NV], u[NV], x, y, vup, vins;
            if (i + 1 == n) { /* the last row of an odd count: one row */
                for (v = 0; v < NV; v++) {
                    u[v] = *(const SKC_VT *)(src + v * VW);
                    a[v] = u[v] + vdl0;
                    *(SKC_VT *)(dst + v * VW) = a[v];
                }
                for (j = 0; j < mmax; j++) {
                    for (v = 0; v < NV; v++) {
                        const ptrdiff_t c = j * L + v * VW;
                        vup = *(const SKC_VT *)(src + c + L);
                        x = SKC_FADD(u[v], *(const SKC_VT *)(s0 + c));
                        y = SKC_FADD(vup, vdl0);
                        x = SKC_MIN(y, x);
                        y = a[v] + *(const SKC_VT *)(ins + c);
                        a[v] = SKC_MIN(y, x);
                        *(SKC_VT *)(dst + c + L) = a[v];
                        u[v] = vup;
                    }
                }
            } else {
                const SKC_VT vdl1 = (SKC_VT){0} + del_tab[aid[i + 1]];
                const double *restrict s1 =
                    skc_lanes_srow(dense, n_ids, profile, profile ? arow[i + 1] : 0, aid[i + 1],
                                   acp[i + 1], yid, ycp, w, sub + w);
                for (v = 0; v < NV; v++) {
                    u[v] = *(const SKC_VT *)(src + v * VW);
                    a[v] = u[v] + vdl0;
                    b[v] = a[v] + vdl1;
                    *(SKC_VT *)(dst + v * VW) = b[v];
                }
                for (j = 0; j < mmax; j++) {
                    for (v = 0; v < NV; v++) {
                        const ptrdiff_t c = j * L + v * VW;
                        vup = *(const SKC_VT *)(src + c + L);
                        vins = *(const SKC_VT *)(ins + c);
                        /* Row i, column j + 1: diagonal, up, left. */
                        x = SKC_FADD(u[v], *(const SKC_VT *)(s0 + c));
                        y = SKC_FADD(vup, vdl0);
                        x = SKC_MIN(y, x);
                        y = a[v] + vins;
                        x = SKC_MIN(y, x);
                        /* Row i + 1, column j + 1: its diagonal and up are row i's cells. */
                        y = SKC_FADD(a[v], *(const SKC_VT *)(s1 + c));
                        a[v] = x;
                        x = SKC_FADD(a[v], vdl1);
                        x = SKC_MIN(x, y);
                        y = b[v] + vins;
                        b[v] = SKC_MIN(y, x);
                        *(SKC_VT *)(dst + c + L) = b[v];
                        u[v] = vup;
                    }
                }
            }
            up = dst;
        }
        for (k = 0; k < L; k++)
            if (cols[k] >= 0) out[cols[k]] = up[m[k] * L + k];
    }
}

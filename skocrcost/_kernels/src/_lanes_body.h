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
 *
 * Columns go SKC_STRIP_D at a time (_lanes.h): a strip runs down every row before the
 * next starts, so that the rows it reads and writes stay in L1 however long the truth
 * strings (five streams of SKC_STRIP_D columns: the row above, the row written, two rows
 * of substitution costs and the insertion costs).  A strip takes its left column from the
 * strip before, through bcol (row r's value at bcol + r * L), and keeps it in the row
 * buffers' column j0, where the next row pair reads its diagonal.  Every cell is still
 * the same sum and minimum of the same values, so results do not change.  Groups of at
 * most SKC_STRIP_D columns (tokens) run one strip with the seams compiled out: with them,
 * (iii) took 11-25% longer on AVX2, its 16 registers already full.  Longer groups run
 * the strips out of line, and each kind has its own loop over the OCR strings.
 */

/* Columns j0 + 1 .. j1 of the DP of OCR string (aid, acp, arow: n characters) against
 * the loaded group, down every row; returns the buffer that holds the last row. */
SKC_ATTR static inline __attribute__((always_inline)) const double *SKC_CAT(SKC_NAME, _strip)(
    const double *dense, ptrdiff_t n_ids, const double *del_tab, const int32_t *aid,
    const uint32_t *acp, const int32_t *arow, ptrdiff_t n, ptrdiff_t mmax, double *work,
    const double *profile, ptrdiff_t j0, ptrdiff_t j1) {
    enum { L = SKC_LANES, VW = SKC_VW, NV = SKC_LANES / SKC_VW };
    const ptrdiff_t w = mmax * L;
    const double *row0 = work;
    double *bufa = work + (mmax + 1) * L; /* row 0 (in work) is kept for the next string */
    double *bufb = bufa + (mmax + 1) * L;
    double *sub = bufb + (mmax + 1) * L; /* two rows of gathered substitution costs */
    const double *restrict ins = skc_lanes_ins(work, mmax);
    const int32_t *yid = (const int32_t *)(ins + w);
    const uint32_t *ycp = (const uint32_t *)(yid + w);
    double *bcol = skc_lanes_bcol(work, mmax);
    const double *up = row0;
    ptrdiff_t i, j, v;
    for (i = 0; i < n; i += 2) {
        /* Rows alternate between two buffers; the first pass reads row 0, kept intact.
         * src and dst are offset to the strip's column j0. */
        double *restrict dst = ((up == bufa) ? bufb : bufa) + j0 * L;
        const double *restrict src = up + j0 * L;
        const double *restrict vins = ins + j0 * L;
        const SKC_VT vdl0 = (SKC_VT){0} + del_tab[aid[i]];
        const double *restrict s0 = skc_lanes_srow(dense, n_ids, profile, profile ? arow[i] : 0,
                                                   aid[i], acp[i], yid, ycp, w, j0, j1, sub) +
                                    j0 * L;
        SKC_VT a[NV], b[NV], u[NV], x, y, vup, vi;
        if (i + 1 == n) { /* the last row of an odd count: one row */
            for (v = 0; v < NV; v++) {
                u[v] = *(const SKC_VT *)(src + v * VW);
                a[v] = j0 ? *(const SKC_VT *)(bcol + (i + 1) * L + v * VW) : u[v] + vdl0;
                *(SKC_VT *)(dst + v * VW) = a[v];
            }
            for (j = 0; j < j1 - j0; j++) {
                for (v = 0; v < NV; v++) {
                    const ptrdiff_t c = j * L + v * VW;
                    vup = *(const SKC_VT *)(src + c + L);
                    x = SKC_FADD(u[v], *(const SKC_VT *)(s0 + c));
                    y = SKC_FADD(vup, vdl0);
                    x = SKC_MIN(y, x);
                    y = a[v] + *(const SKC_VT *)(vins + c);
                    a[v] = SKC_MIN(y, x);
                    *(SKC_VT *)(dst + c + L) = a[v];
                    u[v] = vup;
                }
            }
            if (j1 < mmax)
                for (v = 0; v < NV; v++) *(SKC_VT *)(bcol + (i + 1) * L + v * VW) = a[v];
        } else {
            const SKC_VT vdl1 = (SKC_VT){0} + del_tab[aid[i + 1]];
            const double *restrict s1 =
                skc_lanes_srow(dense, n_ids, profile, profile ? arow[i + 1] : 0, aid[i + 1],
                               acp[i + 1], yid, ycp, w, j0, j1, sub + w) +
                j0 * L;
            for (v = 0; v < NV; v++) {
                u[v] = *(const SKC_VT *)(src + v * VW);
                if (j0) {
                    a[v] = *(const SKC_VT *)(bcol + (i + 1) * L + v * VW);
                    b[v] = *(const SKC_VT *)(bcol + (i + 2) * L + v * VW);
                } else {
                    a[v] = u[v] + vdl0;
                    b[v] = a[v] + vdl1;
                }
                *(SKC_VT *)(dst + v * VW) = b[v];
            }
            for (j = 0; j < j1 - j0; j++) {
                for (v = 0; v < NV; v++) {
                    const ptrdiff_t c = j * L + v * VW;
                    vup = *(const SKC_VT *)(src + c + L);
                    vi = *(const SKC_VT *)(vins + c);
                    /* Row i, column j + 1: diagonal, up, left. */
                    x = SKC_FADD(u[v], *(const SKC_VT *)(s0 + c));
                    y = SKC_FADD(vup, vdl0);
                    x = SKC_MIN(y, x);
                    y = a[v] + vi;
                    x = SKC_MIN(y, x);
                    /* Row i + 1, column j + 1: its diagonal and up are row i's cells. */
                    y = SKC_FADD(a[v], *(const SKC_VT *)(s1 + c));
                    a[v] = x;
                    x = SKC_FADD(a[v], vdl1);
                    x = SKC_MIN(x, y);
                    y = b[v] + vi;
                    b[v] = SKC_MIN(y, x);
                    *(SKC_VT *)(dst + c + L) = b[v];
                    u[v] = vup;
                }
            }
            if (j1 < mmax)
                for (v = 0; v < NV; v++) {
                    *(SKC_VT *)(bcol + (i + 1) * L + v * VW) = a[v];
                    *(SKC_VT *)(bcol + (i + 2) * L + v * VW) = b[v];
                }
        }
        up = dst - j0 * L;
    }
    return up;
}

/* One OCR string's distances, the last row's cell of each lane. */
SKC_ATTR static inline __attribute__((always_inline)) void SKC_CAT(SKC_NAME, _put)(
    const double *up, const double *del_tab, const int32_t *aid, ptrdiff_t n,
    const double *work, const int64_t *m, const int64_t *cols, double step, double *out) {
    ptrdiff_t k;
    (void)del_tab, (void)aid, (void)n, (void)work, (void)step;
    for (k = 0; k < SKC_LANES; k++)
        if (cols[k] >= 0) out[cols[k]] = up[m[k] * SKC_LANES + k];
}

#define SKC_T double
#define SKC_STRIP SKC_STRIP_D
#include "_lanes_each.h"
#undef SKC_STRIP
#undef SKC_T

SKC_ATTR static void SKC_NAME(const double *dense, ptrdiff_t n_ids, const double *del_tab,
                              const int32_t *xid, const uint32_t *xcp, const int32_t *xrow,
                              const int64_t *xo, ptrdiff_t nx, const int64_t *m,
                              ptrdiff_t mmax, double *work, const double *profile,
                              const int64_t *cols, double *out, ptrdiff_t ostride) {
    if (mmax <= SKC_STRIP_D)
        SKC_CAT(SKC_NAME, _each)(dense, n_ids, del_tab, xid, xcp, xrow, xo, nx, m, mmax, work,
                                 profile, cols, 0.0, out, ostride, 0);
    else
        SKC_CAT(SKC_NAME, _each)(dense, n_ids, del_tab, xid, xcp, xrow, xo, nx, m, mmax, work,
                                 profile, cols, 0.0, out, ostride, 1);
}

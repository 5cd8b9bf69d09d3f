/* Template included by _lanes.h with SKC_NAME, SKC_ATTR, SKC_VT (a vector of SKC_VW int32)
 * and SKC_MIN(y, x) (y < x ? y : x in every lane) defined: the lanes' DP on costs that
 * are whole numbers of grid steps (skc_lanes_run_i).
 *
 * Integers allow what doubles do not: subtracting potentials exactly.  With P[i] the
 * cost of deleting the OCR string's first i characters and Q[j] that of inserting the
 * truth string's first j, the DP runs on D''[i][j] = D[i][j] - P[i] - Q[j].  A deletion
 * then adds nothing (D''[i - 1][j]), nor does an insertion (D''[i][j - 1]), and a
 * substitution adds sub'' = sub - del - ins, which the profile (or the gathered row)
 * holds: a cell is min(up, left, diag + sub''), one addition and two minima instead of
 * three and two, and the chain each cell waits on (its left neighbour) is one minimum.
 * Row 0 and column 0 of D'' are 0; the distance is D''[n][m] + P[n] + Q[m], with Q the
 * group's first row as the loader fills it.  Every value lies between -(P[n] + Q[m])
 * and the largest cost, which the caller keeps below 2^31 steps.  Columns go SKC_STRIP_I
 * at a time, as in _lanes_body.h (the strips out of line, for the same reason).
 */
/* Columns j0 + 1 .. j1 of D'' of OCR string (aid, acp, arow: n characters) against the
 * loaded group, down every row; returns the buffer that holds the last row. */
SKC_ATTR static inline __attribute__((always_inline)) const int32_t *SKC_CAT(SKC_NAME, _strip)(
    const int32_t *dense, ptrdiff_t n_ids, const int32_t *del_tab, const int32_t *aid,
    const uint32_t *acp, const int32_t *arow, ptrdiff_t n, ptrdiff_t mmax, int32_t *work,
    const int32_t *profile, ptrdiff_t j0, ptrdiff_t j1) {
    enum { L = SKC_LANES, VW = SKC_VW, NV = SKC_LANES / SKC_VW };
    const ptrdiff_t w = mmax * L;
    int32_t *bufa = work + (mmax + 1) * L;
    int32_t *bufb = bufa + (mmax + 1) * L;
    int32_t *sub = bufb + (mmax + 1) * L; /* two rows of gathered substitution costs */
    const int32_t *restrict ins = skc_lanes_ins_i(work, mmax);
    const int32_t *yid = (const int32_t *)(ins + w);
    const uint32_t *ycp = (const uint32_t *)(yid + w);
    const int32_t *row0 = skc_grid_row0(work, mmax);
    int32_t *bcol = (int32_t *)skc_lanes_bcol((double *)work, mmax);
    const int32_t *up = row0;
    ptrdiff_t i, j, v;
    for (i = 0; i < n; i += 2) {
        int32_t *restrict dst = ((up == bufa) ? bufb : bufa) + j0 * L;
        const int32_t *restrict src = up + j0 * L;
        const int32_t *restrict s0 = skc_grid_srow(dense, n_ids, del_tab, profile, arow, aid, acp,
                                                   i, yid, ycp, ins, w, j0, j1, sub) +
                                     j0 * L;
        SKC_VT a[NV], b[NV], u[NV], x, y, vup;
        for (v = 0; v < NV; v++) {
            u[v] = *(const SKC_VT *)(src + v * VW);
            a[v] = b[v] = (SKC_VT){0}; /* column 0 of D'' */
        }
        if (i + 1 == n) { /* the last row of an odd count: one row */
            for (v = 0; v < NV; v++) {
                if (j0) a[v] = *(const SKC_VT *)(bcol + (i + 1) * L + v * VW);
                *(SKC_VT *)(dst + v * VW) = a[v];
            }
            for (j = 0; j < j1 - j0; j++) {
                for (v = 0; v < NV; v++) {
                    const ptrdiff_t c = j * L + v * VW;
                    vup = *(const SKC_VT *)(src + c + L);
                    x = u[v] + *(const SKC_VT *)(s0 + c);
                    x = SKC_MIN(vup, x);
                    a[v] = SKC_MIN(a[v], x);
                    *(SKC_VT *)(dst + c + L) = a[v];
                    u[v] = vup;
                }
            }
            if (j1 < mmax)
                for (v = 0; v < NV; v++) *(SKC_VT *)(bcol + (i + 1) * L + v * VW) = a[v];
        } else {
            const int32_t *restrict s1 = skc_grid_srow(dense, n_ids, del_tab, profile, arow, aid,
                                                       acp, i + 1, yid, ycp, ins, w, j0, j1,
                                                       sub + w) +
                                         j0 * L;
            for (v = 0; v < NV; v++) {
                if (j0) {
                    a[v] = *(const SKC_VT *)(bcol + (i + 1) * L + v * VW);
                    b[v] = *(const SKC_VT *)(bcol + (i + 2) * L + v * VW);
                }
                *(SKC_VT *)(dst + v * VW) = b[v];
            }
            for (j = 0; j < j1 - j0; j++) {
                for (v = 0; v < NV; v++) {
                    const ptrdiff_t c = j * L + v * VW;
                    vup = *(const SKC_VT *)(src + c + L);
                    /* Row i, column j + 1: diagonal, up, left. */
                    x = u[v] + *(const SKC_VT *)(s0 + c);
                    x = SKC_MIN(vup, x);
                    x = SKC_MIN(a[v], x);
                    /* Row i + 1, column j + 1: its diagonal and up are row i's cells. */
                    y = a[v] + *(const SKC_VT *)(s1 + c);
                    a[v] = x;
                    y = SKC_MIN(x, y);
                    b[v] = SKC_MIN(b[v], y);
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

/* One OCR string's distances: each lane's last cell of D'' plus P[n] (the cost of
 * deleting the OCR string) and Q[m] (the loader's first row), times the step. */
SKC_ATTR static inline __attribute__((always_inline)) void SKC_CAT(SKC_NAME, _put)(
    const int32_t *up, const int32_t *del_tab, const int32_t *aid, ptrdiff_t n,
    const int32_t *work, const int64_t *m, const int64_t *cols, double step, double *out) {
    const int32_t *q = work; /* the loader's first row: Q of each lane */
    int64_t p = 0;           /* P[n] */
    ptrdiff_t i, k;
    for (i = 0; i < n; i++) p += del_tab[aid[i]];
    for (k = 0; k < SKC_LANES; k++)
        if (cols[k] >= 0)
            out[cols[k]] =
                (double)((int64_t)up[m[k] * SKC_LANES + k] + p + q[m[k] * SKC_LANES + k]) * step;
}

#define SKC_T int32_t
#define SKC_STRIP SKC_STRIP_I
#include "_lanes_each.h"
#undef SKC_STRIP
#undef SKC_T

SKC_ATTR static void SKC_NAME(const int32_t *dense, ptrdiff_t n_ids, const int32_t *del_tab,
                              const int32_t *xid, const uint32_t *xcp, const int32_t *xrow,
                              const int64_t *xo, ptrdiff_t nx, const int64_t *m,
                              ptrdiff_t mmax, int32_t *work, const int32_t *profile,
                              const int64_t *cols, double step, double *out,
                              ptrdiff_t ostride) {
    /* Row 0 of D'', all 0, set once for all nx strings. */
    memset(skc_grid_row0(work, mmax), 0, (size_t)(mmax + 1) * SKC_LANES * sizeof(int32_t));
    if (mmax <= SKC_STRIP_I)
        SKC_CAT(SKC_NAME, _each)(dense, n_ids, del_tab, xid, xcp, xrow, xo, nx, m, mmax, work,
                                 profile, cols, step, out, ostride, 0);
    else
        SKC_CAT(SKC_NAME, _each)(dense, n_ids, del_tab, xid, xcp, xrow, xo, nx, m, mmax, work,
                                 profile, cols, step, out, ostride, 1);
}

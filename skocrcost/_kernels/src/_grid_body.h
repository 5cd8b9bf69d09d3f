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
/* The strip (_lanes_strip.h) on D'': a deletion and an insertion add nothing, and
 * column 0 is 0; the substitution rows hold sub''. */
#define SKC_T int32_t
#define SKC_FADD(x, y) ((x) + (y))
#define SKC_ROW0(work) skc_grid_row0(work, mmax)
#define SKC_INS_ROW(work) skc_lanes_ins_i(work, mmax)
#define SKC_BCOL(work) ((int32_t *)skc_lanes_bcol((double *)(work), mmax))
#define SKC_SROW(i, buf) \
    skc_grid_srow(dense, n_ids, del_tab, profile, arow, aid, acp, (i), yid, ycp, ins, w, j0, j1, buf)
#define SKC_ROW_PREP(i)
#define SKC_ROW2_PREP(i)
#define SKC_CELL_PREP(c)
#define SKC_UP0(x) (x)
#define SKC_UP1(x) (x)
#define SKC_LEFT(x) (x)
#define SKC_COL0(x, k) ((SKC_VT){0})
#define SKC_U_FIRST 1
#include "_lanes_strip.h"
#undef SKC_FADD

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

#define SKC_STRIP SKC_STRIP_I
#include "_lanes_each.h"

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

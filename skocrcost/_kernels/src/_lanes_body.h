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
 * the token matrix of benchmarks/run.py (2000 x 2000 tokens of 5-12 characters) took
 * 11-25% longer on AVX2, its 16 registers already full.  Longer groups run
 * the strips out of line, and each kind has its own loop over the OCR strings.
 */

/* The strip (_lanes_strip.h) on doubles: every move adds its cost. */
#define SKC_T double
#define SKC_ROW0(work) (work)
#define SKC_INS_ROW(work) skc_lanes_ins(work, mmax)
#define SKC_BCOL(work) skc_lanes_bcol(work, mmax)
#define SKC_SROW(i, buf)                                                                     \
    skc_lanes_srow(dense, n_ids, profile, profile ? arow[(i)] : 0, aid[(i)], acp[(i)], yid, \
                   ycp, w, j0, j1, buf)
#define SKC_ROW_PREP(i)                                \
    const double *restrict vins = ins + j0 * L;        \
    const SKC_VT vdl0 = (SKC_VT){0} + del_tab[aid[(i)]];
#define SKC_ROW2_PREP(i) const SKC_VT vdl1 = (SKC_VT){0} + del_tab[aid[(i)]];
#define SKC_CELL_PREP(c) const SKC_VT vi = *(const SKC_VT *)(vins + (c));
#define SKC_UP0(x) SKC_FADD((x), vdl0)
#define SKC_UP1(x) SKC_FADD((x), vdl1)
#define SKC_LEFT(x) ((x) + vi)
#define SKC_COL0(x, k) ((x) + vdl##k)
#define SKC_U_FIRST 0
#include "_lanes_strip.h"

/* One OCR string's distances, the last row's cell of each lane. */
SKC_ATTR static inline __attribute__((always_inline)) void SKC_CAT(SKC_NAME, _put)(
    const double *up, const double *del_tab, const int32_t *aid, ptrdiff_t n,
    const double *work, const int64_t *m, const int64_t *cols, double step, double *out) {
    ptrdiff_t k;
    (void)del_tab, (void)aid, (void)n, (void)work, (void)step;
    for (k = 0; k < SKC_LANES; k++)
        if (cols[k] >= 0) out[cols[k]] = up[m[k] * SKC_LANES + k];
}

#define SKC_STRIP SKC_STRIP_D
#include "_lanes_each.h"

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

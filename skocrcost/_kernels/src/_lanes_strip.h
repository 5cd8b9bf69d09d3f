/* Template included by _lanes_body.h (doubles) and _grid_body.h (int32 grid steps): the
 * strip function SKC_CAT(SKC_NAME, _strip), written once for both element types.
 *
 * Columns j0 + 1 .. j1 of the DP of OCR string (aid, acp, arow: n characters) against the
 * loaded group, down every row, two rows at a time; returns the buffer that holds the
 * last row.  Rows alternate between two buffers; the first pass reads row 0, kept intact.
 * A strip takes its left column from the strip before through bcol (row r's value at
 * bcol + r * L) and keeps it in the row buffers' column j0.
 *
 * Every cell is min(diagonal + substitution, up + deletion, left + insertion), the three
 * in that order, with y < x ? y : x (SKC_MIN) as the exact minimum.  What the two element
 * types do differently is named by the includer, as expressions of the locals below
 * (undefined again at the end of this file):
 *
 *   SKC_T                  the element type
 *   SKC_FADD(x, y)         x + y (on doubles: in whichever pipe is free)
 *   SKC_INS_ROW(work)      the interleaved insertion costs, SKC_ROW0(work) the DP's row 0,
 *   SKC_BCOL(work)         the column the strips pass on (skc_lanes_work's layout)
 *   SKC_SROW(i, buf)       row i's substitution costs for columns j0 .. j1 - 1
 *   SKC_ROW_PREP(i)        declarations per OCR character i (and SKC_ROW2_PREP for i + 1)
 *   SKC_CELL_PREP(c)       declarations per cell, at offset c of the strip
 *   SKC_UP0(x), SKC_UP1(x) the cell above plus row i's (row i + 1's) deletion cost
 *   SKC_LEFT(x)            the cell to the left plus the column's insertion cost
 *   SKC_COL0(x, k)         column 0 of row i + k, from column 0 of the row above (x)
 *   SKC_U_FIRST            1: read the row above (u) before the branch, else in each
 *                          branch once its substitution rows are in (see below)
 *
 * On doubles these add the costs.  On a grid the DP runs on potentials (_grid_body.h),
 * where a deletion and an insertion add nothing and column 0 is 0: there the hooks are
 * the bare cells, and the same code does one addition and two minima per cell.
 *
 * The two instances were tuned apart before they shared this code, and the order of
 * their statements is kept so that each compiles to the instructions it compiled to
 * then (objdump: the same for the double instances and for the grid's one-strip calls;
 * the grid's strips of long groups differ only in the order of the blocks that fill
 * column 0).  Hence SKC_U_FIRST, and SKC_CELL_PREP's two places.
 */
SKC_ATTR static inline __attribute__((always_inline)) const SKC_T *SKC_CAT(SKC_NAME, _strip)(
    const SKC_T *dense, ptrdiff_t n_ids, const SKC_T *del_tab, const int32_t *aid,
    const uint32_t *acp, const int32_t *arow, ptrdiff_t n, ptrdiff_t mmax, SKC_T *work,
    const SKC_T *profile, ptrdiff_t j0, ptrdiff_t j1) {
    enum { L = SKC_LANES, VW = SKC_VW, NV = SKC_LANES / SKC_VW };
    const ptrdiff_t w = mmax * L;
    const SKC_T *row0 = SKC_ROW0(work);
    SKC_T *bufa = work + (mmax + 1) * L; /* row 0 (in work) is kept for the next string */
    SKC_T *bufb = bufa + (mmax + 1) * L;
    SKC_T *sub = bufb + (mmax + 1) * L; /* two rows of gathered substitution costs */
    const SKC_T *restrict ins = SKC_INS_ROW(work);
    const int32_t *yid = (const int32_t *)(ins + w);
    const uint32_t *ycp = (const uint32_t *)(yid + w);
    SKC_T *bcol = SKC_BCOL(work);
    const SKC_T *up = row0;
    ptrdiff_t i, j, v;
    for (i = 0; i < n; i += 2) {
        /* src and dst are offset to the strip's column j0. */
        SKC_T *restrict dst = ((up == bufa) ? bufb : bufa) + j0 * L;
        const SKC_T *restrict src = up + j0 * L;
        SKC_ROW_PREP(i)
        const SKC_T *restrict s0 = SKC_SROW(i, sub) + j0 * L;
        SKC_VT a[NV], b[NV], u[NV], x, y, vup;
#if SKC_U_FIRST
        for (v = 0; v < NV; v++) u[v] = *(const SKC_VT *)(src + v * VW);
#endif
        if (i + 1 == n) { /* the last row of an odd count: one row */
            for (v = 0; v < NV; v++) {
#if !SKC_U_FIRST
                u[v] = *(const SKC_VT *)(src + v * VW);
#endif
                a[v] = j0 ? *(const SKC_VT *)(bcol + (i + 1) * L + v * VW) : SKC_COL0(u[v], 0);
                *(SKC_VT *)(dst + v * VW) = a[v];
            }
            for (j = 0; j < j1 - j0; j++) {
                for (v = 0; v < NV; v++) {
                    const ptrdiff_t c = j * L + v * VW;
                    vup = *(const SKC_VT *)(src + c + L);
                    x = SKC_FADD(u[v], *(const SKC_VT *)(s0 + c));
                    y = SKC_UP0(vup);
                    x = SKC_MIN(y, x);
                    SKC_CELL_PREP(c)
                    y = SKC_LEFT(a[v]);
                    a[v] = SKC_MIN(y, x);
                    *(SKC_VT *)(dst + c + L) = a[v];
                    u[v] = vup;
                }
            }
            if (j1 < mmax)
                for (v = 0; v < NV; v++) *(SKC_VT *)(bcol + (i + 1) * L + v * VW) = a[v];
        } else {
            SKC_ROW2_PREP(i + 1)
            const SKC_T *restrict s1 = SKC_SROW(i + 1, sub + w) + j0 * L;
            for (v = 0; v < NV; v++) {
#if !SKC_U_FIRST
                u[v] = *(const SKC_VT *)(src + v * VW);
#endif
                if (j0) {
                    a[v] = *(const SKC_VT *)(bcol + (i + 1) * L + v * VW);
                    b[v] = *(const SKC_VT *)(bcol + (i + 2) * L + v * VW);
                } else {
                    a[v] = SKC_COL0(u[v], 0);
                    b[v] = SKC_COL0(a[v], 1);
                }
                *(SKC_VT *)(dst + v * VW) = b[v];
            }
            for (j = 0; j < j1 - j0; j++) {
                for (v = 0; v < NV; v++) {
                    const ptrdiff_t c = j * L + v * VW;
                    vup = *(const SKC_VT *)(src + c + L);
                    SKC_CELL_PREP(c)
                    /* Row i, column j + 1: diagonal, up, left. */
                    x = SKC_FADD(u[v], *(const SKC_VT *)(s0 + c));
                    y = SKC_UP0(vup);
                    x = SKC_MIN(y, x);
                    y = SKC_LEFT(a[v]);
                    x = SKC_MIN(y, x);
                    /* Row i + 1, column j + 1: its diagonal and up are row i's cells. */
                    y = SKC_FADD(a[v], *(const SKC_VT *)(s1 + c));
                    a[v] = x;
                    x = SKC_UP1(a[v]);
                    x = SKC_MIN(x, y);
                    y = SKC_LEFT(b[v]);
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

/* The hooks are this instance's: the next includer defines its own. */
#undef SKC_U_FIRST
#undef SKC_COL0
#undef SKC_LEFT
#undef SKC_UP1
#undef SKC_UP0
#undef SKC_CELL_PREP
#undef SKC_ROW2_PREP
#undef SKC_ROW_PREP
#undef SKC_SROW
#undef SKC_BCOL
#undef SKC_INS_ROW
#undef SKC_ROW0

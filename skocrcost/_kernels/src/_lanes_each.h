/* Template included by _lanes_body.h (doubles) and _grid_body.h (int32 grid steps), each
 * after its strip function SKC_CAT(SKC_NAME, _strip) and its writer of one OCR string's
 * distances SKC_CAT(SKC_NAME, _put), with SKC_T (the element type) and SKC_STRIP (columns
 * per strip) defined: the strips of a long group and the loop over the OCR strings,
 * written once for both.  Both macros are undefined again at the end.
 */

/* The strips of a group of more than SKC_STRIP columns, out of line: inlined beside the
 * one-strip call, they changed its register allocation (two more spills in the loop,
 * on the chain, on AVX2). */
SKC_ATTR static __attribute__((noinline)) const SKC_T *SKC_CAT(SKC_NAME, _strips)(
    const SKC_T *dense, ptrdiff_t n_ids, const SKC_T *del_tab, const int32_t *aid,
    const uint32_t *acp, const int32_t *arow, ptrdiff_t n, ptrdiff_t mmax, SKC_T *work,
    const SKC_T *profile) {
    const SKC_T *up = work;
    ptrdiff_t j0;
    /* Every strip's last row pair writes the same buffer: the last row, whole. */
    for (j0 = 0; j0 < mmax; j0 += SKC_STRIP)
        up = SKC_CAT(SKC_NAME, _strip)(dense, n_ids, del_tab, aid, acp, arow, n, mmax, work,
                                       profile, j0, j0 + SKC_STRIP < mmax ? j0 + SKC_STRIP : mmax);
    return up;
}

/* The OCR strings against the group, through one strip or (striped, a constant where
 * inlined) the strips: one loop each, since testing per string which to take cost
 * strings of 4 characters 7% more time.  ``step`` is the grid step (read by the int32
 * writer only). */
SKC_ATTR static inline __attribute__((always_inline)) void SKC_CAT(SKC_NAME, _each)(
    const SKC_T *dense, ptrdiff_t n_ids, const SKC_T *del_tab, const int32_t *xid,
    const uint32_t *xcp, const int32_t *xrow, const int64_t *xo, ptrdiff_t nx,
    const int64_t *m, ptrdiff_t mmax, SKC_T *work, const SKC_T *profile,
    const int64_t *cols, double step, double *out, ptrdiff_t ostride, int striped) {
    ptrdiff_t t;
    for (t = 0; t < nx && t < SKC_PREFETCH_AHEAD; t++) skc_prefetch_out(out + t * ostride, cols);
    for (t = 0; t < nx; t++, out += ostride) {
        const int32_t *aid = xid + xo[t], *arow = xrow + xo[t];
        const uint32_t *acp = xcp + xo[t];
        const ptrdiff_t n = xo[t + 1] - xo[t];
        const SKC_T *up;
        if (t + SKC_PREFETCH_AHEAD < nx) skc_prefetch_out(out + SKC_PREFETCH_AHEAD * ostride, cols);
        up = striped ? SKC_CAT(SKC_NAME, _strips)(dense, n_ids, del_tab, aid, acp, arow, n, mmax,
                                                  work, profile)
                     : SKC_CAT(SKC_NAME, _strip)(dense, n_ids, del_tab, aid, acp, arow, n, mmax,
                                                 work, profile, 0, mmax);
        SKC_CAT(SKC_NAME, _put)(up, del_tab, aid, n, work, m, cols, step, out);
    }
}

#undef SKC_STRIP
#undef SKC_T

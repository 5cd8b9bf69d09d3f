/* SIMD across candidates: one OCR string against SKC_LANES truth strings at once.
 *
 * The single-pair DP is latency-bound: each cell waits on its left neighbour
 * (an addition and a minimum).  Here the truth strings of a group sit in
 * interleaved lanes ([column][lane]), so the inner loop carries SKC_LANES
 * independent chains that the compiler turns into vector instructions.  Every
 * lane performs exactly the additions of the scalar DP (and of the Python twin)
 * and takes exact minima, so the results are bit-for-bit the same; columns past
 * a lane's own length are padding whose values are never read.
 *
 * The body is compiled twice: for AVX2 (chosen at run time when the CPU has it)
 * and for the baseline target (SSE2 on x86-64, plain C elsewhere).
 */
#ifndef SKOCRCOST_LANES_H
#define SKOCRCOST_LANES_H

#include <stddef.h>
#include <stdint.h>

#define SKC_LANES 8 /* two vectors of four doubles: two chains in flight */
#define SKC_NO_CP 0xFFFFFFFFu /* never a code point: padding columns never match */

/* Work space, in doubles, for truth strings up to mmax characters: the first DP row,
 * two alternating rows ((mmax + 1) * L each), then substitution costs, insertion costs,
 * and the interleaved ids and code points (mmax * L each; ids and code points share one). */
static size_t skc_lanes_work(ptrdiff_t mmax) {
    return (size_t)(6 * mmax + 3) * SKC_LANES;
}

static inline double *skc_lanes_ins(double *work, ptrdiff_t mmax) {
    return work + (4 * mmax + 3) * SKC_LANES;
}

/* Interleave a group's truth strings into ``work`` and fill its first DP row. */
static void skc_lanes_load(const double *ins_tab, const int32_t *bid, const uint32_t *bcp,
                           const int64_t *off, const int64_t *m, ptrdiff_t mmax,
                           double *work) {
    /* Lane k holds the string at bid[off[k]], bcp[off[k]] of length m[k]. */
    const ptrdiff_t L = SKC_LANES;
    double *prev = work;
    double *ins = skc_lanes_ins(work, mmax);
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
                ins[j * L + k] = 0.0;
            }
        }
    }
    for (k = 0; k < L; k++) prev[k] = 0.0;
    for (j = 0; j < mmax; j++)
        for (k = 0; k < L; k++) prev[(j + 1) * L + k] = prev[j * L + k] + ins[j * L + k];
}

/* The loaded group's substitution costs for every OCR id a >= 1 (row a: mmax * L
 * doubles; 0 on a match, which for ids >= 1 is equality of ids), so that many OCR
 * strings against one group read them rather than gather them per row.  Row 0 is
 * unused: characters outside the alphabet match by code point.  ``profile`` holds
 * n_ids * mmax * L doubles. */
static void skc_lanes_profile(const double *dense, ptrdiff_t n_ids, ptrdiff_t mmax,
                              const double *work, double *profile) {
    const ptrdiff_t w = mmax * SKC_LANES;
    const int32_t *yid = (const int32_t *)(skc_lanes_ins((double *)work, mmax) + w);
    ptrdiff_t a, j;
    for (a = 1; a < n_ids; a++) {
        const double *drow = dense + a * n_ids;
        double *prow = profile + a * w;
        for (j = 0; j < w; j++) prow[j] = (yid[j] == a) ? 0.0 : drow[yid[j]];
    }
}

/* Four lanes as one vector (GCC/Clang vector extensions; split into SSE2 halves on the
 * baseline target).  aligned(8): the rows are only 8-byte aligned. */
typedef double skc_v4 __attribute__((vector_size(32), aligned(8)));
typedef long long skc_m4 __attribute__((vector_size(32), aligned(8)));

/* y < x ? y : x in every lane: the exact minimum, as the scalar DP takes it. */
static inline __attribute__((always_inline)) skc_v4 skc_vmin(skc_v4 x, skc_v4 y) {
    skc_m4 lt = y < x;
    return (skc_v4)((lt & (skc_m4)y) | (~lt & (skc_m4)x));
}

/* Distances of one OCR string to the loaded group: lane k (length m[k]) goes to
 * out[cols[k]], unless cols[k] < 0 (a padding lane). */
static inline __attribute__((always_inline)) void skc_lanes_body(
    const double *dense, ptrdiff_t n_ids, const double *del_tab, const int32_t *aid,
    const uint32_t *acp, ptrdiff_t n, const int64_t *m, ptrdiff_t mmax, double *work,
    const double *profile, const int64_t *cols, double *out) {
    enum { L = SKC_LANES };
    const double *row0 = work;
    double *bufa = work + (mmax + 1) * L; /* row 0 (in work) is kept for the next string */
    double *bufb = bufa + (mmax + 1) * L;
    double *restrict sub = bufb + (mmax + 1) * L;
    const double *restrict ins = skc_lanes_ins(work, mmax);
    const int32_t *restrict yid = (const int32_t *)(ins + mmax * L);
    const uint32_t *restrict ycp = (const uint32_t *)(yid + mmax * L);
    const double *up = row0;
    ptrdiff_t i, j, k;
    if (n == 0) {
        for (k = 0; k < L; k++)
            if (cols[k] >= 0) out[cols[k]] = row0[m[k] * L + k];
        return;
    }
    /* Rows alternate between two buffers; the first reads row 0, which stays intact. */
    for (i = 0; i < n; i++) {
        const double dl = del_tab[aid[i]];
        double *restrict dst = (i & 1) ? bufb : bufa;
        const double *restrict src = up;
        const double *restrict srow;
        skc_v4 vdl = {dl, dl, dl, dl}, d0, d1, x, y;
        if (profile != NULL && aid[i] != 0) {
            srow = profile + (ptrdiff_t)aid[i] * mmax * L;
        } else {
            /* Characters outside the alphabet (id 0) match by code point only. */
            const double *restrict drow = dense + (ptrdiff_t)aid[i] * n_ids;
            const uint32_t ca = acp[i];
            for (j = 0; j < mmax * L; j++) sub[j] = (ycp[j] == ca) ? 0.0 : drow[yid[j]];
            srow = sub;
        }
        d0 = *(const skc_v4 *)src + vdl;
        d1 = *(const skc_v4 *)(src + 4) + vdl;
        *(skc_v4 *)dst = d0;
        *(skc_v4 *)(dst + 4) = d1;
        for (j = 0; j < mmax; j++) {
            const ptrdiff_t c = j * L;
            x = *(const skc_v4 *)(src + c) + *(const skc_v4 *)(srow + c);
            y = *(const skc_v4 *)(src + c + L) + vdl;
            x = skc_vmin(x, y);
            y = d0 + *(const skc_v4 *)(ins + c);
            d0 = skc_vmin(x, y);
            *(skc_v4 *)(dst + c + L) = d0;
            x = *(const skc_v4 *)(src + c + 4) + *(const skc_v4 *)(srow + c + 4);
            y = *(const skc_v4 *)(src + c + L + 4) + vdl;
            x = skc_vmin(x, y);
            y = d1 + *(const skc_v4 *)(ins + c + 4);
            d1 = skc_vmin(x, y);
            *(skc_v4 *)(dst + c + L + 4) = d1;
        }
        up = dst;
    }
    for (k = 0; k < L; k++)
        if (cols[k] >= 0) out[cols[k]] = up[m[k] * L + k];
}

static void skc_lanes_generic(const double *dense, ptrdiff_t n_ids, const double *del_tab,
                              const int32_t *aid, const uint32_t *acp, ptrdiff_t n,
                              const int64_t *m, ptrdiff_t mmax, double *work,
                              const double *profile, const int64_t *cols, double *out) {
    skc_lanes_body(dense, n_ids, del_tab, aid, acp, n, m, mmax, work, profile, cols, out);
}

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define SKC_HAVE_AVX2_CLONE 1
__attribute__((target("avx2"))) static void skc_lanes_avx2(
    const double *dense, ptrdiff_t n_ids, const double *del_tab, const int32_t *aid,
    const uint32_t *acp, ptrdiff_t n, const int64_t *m, ptrdiff_t mmax, double *work,
    const double *profile, const int64_t *cols, double *out) {
    skc_lanes_body(dense, n_ids, del_tab, aid, acp, n, m, mmax, work, profile, cols, out);
}
#endif

/* 0 = baseline, 1 = AVX2; -1 = not decided yet (the first call asks the CPU). */
static int skc_simd = -1;

static int skc_simd_available(void) {
#ifdef SKC_HAVE_AVX2_CLONE
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? 1 : 0;
#else
    return 0;
#endif
}

static int skc_simd_level(void) {
    if (skc_simd < 0) skc_simd = skc_simd_available();
    return skc_simd;
}

/* Force a level (tests compare both); levels the CPU lacks fall back to the baseline. */
static int skc_set_simd_level(int level) {
    int old = skc_simd_level();
    skc_simd = (level > 0 && skc_simd_available()) ? 1 : 0;
    return old;
}

/* ``profile`` (from skc_lanes_profile, or NULL) saves refilling substitution costs per row. */
static void skc_lanes_run(const double *dense, ptrdiff_t n_ids, const double *del_tab,
                          const int32_t *aid, const uint32_t *acp, ptrdiff_t n,
                          const int64_t *m, ptrdiff_t mmax, double *work,
                          const double *profile, const int64_t *cols, double *out) {
#ifdef SKC_HAVE_AVX2_CLONE
    if (skc_simd_level() == 1) {
        skc_lanes_avx2(dense, n_ids, del_tab, aid, acp, n, m, mmax, work, profile, cols, out);
        return;
    }
#endif
    skc_lanes_generic(dense, n_ids, del_tab, aid, acp, n, m, mmax, work, profile, cols, out);
}

#endif

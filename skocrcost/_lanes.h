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
 * The body (_lanes_body.h) is compiled twice: with 4-double vectors for AVX2
 * (chosen at run time when the CPU has it) and with 2-double vectors for the
 * baseline target (SSE2 on x86-64, NEON on arm64).
 */
#ifndef SKOCRCOST_LANES_H
#define SKOCRCOST_LANES_H

#include <stddef.h>
#include <stdint.h>
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#endif

#define SKC_LANES 8 /* two vectors of four doubles: two chains in flight */
#define SKC_NO_CP 0xFFFFFFFFu /* never a code point: padding columns never match */
#define SKC_NO_MATCH 0xFFFFFFFEu /* never a code point, nor SKC_NO_CP: matches no column */

/* Work space, in doubles, for truth strings up to mmax characters: the first DP row,
 * two alternating rows ((mmax + 1) * L each), then two rows of substitution costs,
 * insertion costs, and the interleaved ids and code points (mmax * L each; ids and code
 * points share one). */
static size_t skc_lanes_work(ptrdiff_t mmax) {
    return (size_t)(7 * mmax + 3) * SKC_LANES;
}

/* ``raw`` (malloc'ed with SKC_ALIGN_SLACK bytes to spare) rounded up to a cache line.  A
 * column of the lanes is SKC_LANES doubles = 64 bytes, so from an aligned base no vector
 * load or store of the DP straddles two cache lines (a split access costs two). */
#define SKC_ALIGN_SLACK 64
static inline double *skc_align64(void *raw) {
    return raw == NULL ? NULL : (double *)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
}

static inline double *skc_lanes_ins(double *work, ptrdiff_t mmax) {
    return work + (5 * mmax + 3) * SKC_LANES;
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

/* Substitution costs of one OCR character (code point ca, dense row drow) against w
 * truth characters: 0 on a match (equal code points), else drow[yid[j]].  Every dense
 * row has 0 on its own id's diagonal, so ca = SKC_NO_MATCH suits an alphabet character. */
static inline void skc_gather_sub(const double *drow, uint32_t ca, const int32_t *yid,
                                  const uint32_t *ycp, ptrdiff_t w, double *out) {
    ptrdiff_t j;
    for (j = 0; j < w; j++) out[j] = (ycp[j] == ca) ? 0.0 : drow[yid[j]];
}

/* The loaded group's substitution costs per OCR character class (row r: mmax * L
 * doubles), so that many OCR strings against one group read them rather than gather
 * them per row.  Rows 1 .. n_ids - 1 are the alphabet's ids; row n_ids + k is the
 * character extra_cp[k] outside the alphabet (id 0: dense row 0, a match by code
 * point); row 0 is unused.  ``profile`` holds (n_ids + n_extra) * mmax * L doubles. */
static void skc_lanes_profile(const double *dense, ptrdiff_t n_ids, ptrdiff_t mmax,
                              const double *work, const uint32_t *extra_cp,
                              ptrdiff_t n_extra, double *profile) {
    const ptrdiff_t w = mmax * SKC_LANES;
    const int32_t *yid = (const int32_t *)(skc_lanes_ins((double *)work, mmax) + w);
    const uint32_t *ycp = (const uint32_t *)(yid + w);
    ptrdiff_t a, k;
    for (a = 1; a < n_ids; a++)
        skc_gather_sub(dense + a * n_ids, SKC_NO_MATCH, yid, ycp, w, profile + a * w);
    for (k = 0; k < n_extra; k++)
        skc_gather_sub(dense, extra_cp[k], yid, ycp, w, profile + (n_ids + k) * w);
}

/* The substitution costs of OCR character (a, ca) against the group's columns: the
 * profile's row ``row`` if there is a profile, else gathered into ``sub`` (w = mmax * L
 * doubles). */
static inline const double *skc_lanes_srow(const double *dense, ptrdiff_t n_ids,
                                           const double *profile, int32_t row, int32_t a,
                                           uint32_t ca, const int32_t *yid,
                                           const uint32_t *ycp, ptrdiff_t w, double *sub) {
    if (profile != NULL) return profile + (ptrdiff_t)row * w;
    skc_gather_sub(dense + (ptrdiff_t)a * n_ids, ca, yid, ycp, w, sub);
    return sub;
}

/* Vectors of 2 doubles (baseline: SSE2 on x86-64, NEON on arm64) and of 4 (AVX2).
 * aligned(8): the kernel accepts any row alignment (pairwise aligns its work space to a
 * cache line for speed; see skc_align64). */
typedef double skc_v2 __attribute__((vector_size(16), aligned(8)));
typedef long long skc_m2 __attribute__((vector_size(16), aligned(8)));
typedef double skc_v4 __attribute__((vector_size(32), aligned(8)));

/* y < x ? y : x in every lane.  On x86 that is exactly (v)minpd(y, x), the same for
 * equal values and signed zeros: one instruction on the chain each cell waits on,
 * where a compare and a blend cost two and cross the integer domain. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define SKC_MIN2(y, x) ((skc_v2)_mm_min_pd((__m128d)(y), (__m128d)(x)))
#else
static inline skc_v2 skc_min2_blend(skc_v2 y, skc_v2 x) {
    skc_m2 lt = y < x;
    return (skc_v2)((lt & (skc_m2)y) | (~lt & (skc_m2)x));
}
#define SKC_MIN2(y, x) skc_min2_blend((y), (x))
#endif

/* The DP over the loaded group, once per vector width (_lanes_body.h is a template). */
#define SKC_NAME skc_lanes_generic
#define SKC_ATTR
#define SKC_VT skc_v2
#define SKC_MIN SKC_MIN2
#define SKC_VW 2
#include "_lanes_body.h"
#undef SKC_NAME
#undef SKC_ATTR
#undef SKC_VT
#undef SKC_MIN
#undef SKC_VW

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define SKC_HAVE_AVX2_CLONE 1
#define SKC_NAME skc_lanes_avx2
#define SKC_ATTR __attribute__((target("avx2")))
#define SKC_VT skc_v4
#define SKC_MIN(y, x) ((skc_v4)_mm256_min_pd((__m256d)(y), (__m256d)(x)))
#define SKC_VW 4
#include "_lanes_body.h"
#undef SKC_NAME
#undef SKC_ATTR
#undef SKC_VT
#undef SKC_MIN
#undef SKC_VW
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

/* ``profile`` (from skc_lanes_profile, or NULL) saves refilling substitution costs per
 * row; ``arow`` gives each OCR character's profile row (read only with a profile). */
static void skc_lanes_run(const double *dense, ptrdiff_t n_ids, const double *del_tab,
                          const int32_t *aid, const uint32_t *acp, const int32_t *arow,
                          ptrdiff_t n, const int64_t *m, ptrdiff_t mmax, double *work,
                          const double *profile, const int64_t *cols, double *out) {
#ifdef SKC_HAVE_AVX2_CLONE
    if (skc_simd_level() == 1) {
        skc_lanes_avx2(dense, n_ids, del_tab, aid, acp, arow, n, m, mmax, work, profile, cols,
                       out);
        return;
    }
#endif
    skc_lanes_generic(dense, n_ids, del_tab, aid, acp, arow, n, m, mmax, work, profile, cols,
                      out);
}

#endif

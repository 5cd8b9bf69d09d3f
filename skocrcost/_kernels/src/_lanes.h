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
 * The body (_lanes_body.h) is compiled three times: with 8-double vectors for
 * AVX-512 and 4-double vectors for AVX2 (the best the CPU has is chosen at run
 * time), and with 2-double vectors for the baseline target (SSE2 on x86-64, NEON on
 * arm64).  Tables whose costs are whole numbers of a grid step run _grid_body.h
 * instead, on int32 lanes (8 per AVX2 vector, also at the AVX-512 level; 4 for the
 * baseline), with the same results.
 */
#ifndef SKOCRCOST_LANES_H
#define SKOCRCOST_LANES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#endif

/* Four vectors of four doubles (two of eight int32 on a grid): four chains in flight.
 * Eight lanes left the double kernel waiting on its chains once the additions off them
 * moved to the FMA pipes (SKC_FADD); sixteen take 20% fewer cycles on doubles and 8%
 * fewer on a grid for the token matrix of benchmarks/run.py (a 2000 x 2000 ``pairwise``
 * of tokens of 5-12 characters). */
#define SKC_LANES 16
#define SKC_NO_CP 0xFFFFFFFFu /* never a code point: padding columns never match */
#define SKC_NO_MATCH 0xFFFFFFFEu /* never a code point, nor SKC_NO_CP: matches no column */

/* Work space, in doubles, for truth strings up to mmax characters and OCR strings up to
 * nmax: the first DP row, two alternating rows ((mmax + 1) * L each), then two rows of
 * substitution costs, insertion costs, and the interleaved ids and code points (mmax * L
 * each; ids and code points share one), then the column strips pass on ((nmax + 1) * L,
 * skc_lanes_bcol). */
static size_t skc_lanes_work(ptrdiff_t mmax, ptrdiff_t nmax) {
    return (size_t)(7 * mmax + 3 + nmax + 1) * SKC_LANES;
}

static inline double *skc_lanes_bcol(double *work, ptrdiff_t mmax) {
    return work + (7 * mmax + 3) * SKC_LANES;
}

/* ``raw`` (malloc'ed with SKC_ALIGN_SLACK bytes to spare) rounded up to a cache line.  A
 * column of the lanes is SKC_LANES doubles = two lines, so from an aligned base no vector
 * load or store of the DP straddles two cache lines (a split access costs two). */
#define SKC_ALIGN_SLACK 64
static inline double *skc_align64(void *raw) {
    return raw == NULL ? NULL : (double *)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
}

/* The tables a group reads, once per element type (_lanes_tables.h is a template):
 * doubles for any table, and int32 multiples of the table's grid step (fixed point) for
 * tables whose costs all lie on one (see skc_lanes_run_i). */
#define SKC_CAT_(a, b) a##b
#define SKC_CAT(a, b) SKC_CAT_(a, b)
/* One query against a lexicon on doubles gathers a row of costs per OCR character and
 * group, and the gather unrolled by 8 takes that call from 28-30 M to 20-23 M user
 * cycles; on int32 (costs on a grid, where one query runs the rows kernel) the unrolled
 * gather inlined into the lanes cost their DP loop 3-9%. */
#define SKC_T double
#define SKC_TN(name) name
#define SKC_GATHER_UNROLL _Pragma("GCC unroll 8")
#include "_lanes_tables.h"
#undef SKC_GATHER_UNROLL
#undef SKC_T
#undef SKC_TN
#define SKC_T int32_t
#define SKC_TN(name) SKC_CAT(name, _i)
#define SKC_GATHER_UNROLL
#include "_lanes_tables.h"
#undef SKC_GATHER_UNROLL
#undef SKC_T
#undef SKC_TN

/* Vectors of 2 doubles or 4 int32 (baseline: SSE2 on x86-64, NEON on arm64), of 4 doubles
 * or 8 int32 (AVX2).  aligned(8): the kernel accepts any row alignment (pairwise aligns
 * its work space to a cache line for speed; see skc_align64). */
typedef double skc_v2 __attribute__((vector_size(16), aligned(8)));
typedef long long skc_m2 __attribute__((vector_size(16), aligned(8)));
typedef double skc_v4 __attribute__((vector_size(32), aligned(8)));
typedef int32_t skc_i4 __attribute__((vector_size(16), aligned(8)));
typedef int32_t skc_i8 __attribute__((vector_size(32), aligned(8)));

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
/* SSE2 has no pminsd: a compare and a blend (NEON compilers make one vmin of it). */
static inline skc_i4 skc_min_i4(skc_i4 y, skc_i4 x) {
    skc_i4 lt = y < x;
    return (lt & y) | (~lt & x);
}

/* The substitution costs of OCR character (a, ca) against the group's columns: the
 * profile's row ``row`` if there is a profile, else ``sub`` (w = mmax * L doubles), where
 * those of columns j0 .. j1 - 1 (a strip) are gathered. */
static inline const double *skc_lanes_srow(const double *dense, ptrdiff_t n_ids,
                                           const double *profile, int32_t row, int32_t a,
                                           uint32_t ca, const int32_t *yid,
                                           const uint32_t *ycp, ptrdiff_t w, ptrdiff_t j0,
                                           ptrdiff_t j1, double *sub) {
    const ptrdiff_t s = j0 * SKC_LANES;
    if (profile != NULL) return profile + (ptrdiff_t)row * w;
    skc_gather_sub(dense + (ptrdiff_t)a * n_ids, a ? SKC_NO_MATCH : ca, yid + s, ycp + s,
                   (j1 - j0) * SKC_LANES, sub + s);
    return sub;
}

/* Costs on a grid (_grid_body.h): a row of substitution costs of an OCR character
 * (deletion cost d) minus the potentials, sub'' = sub - d - ins.  The caller keeps the
 * largest cost below 2^30 steps, so no difference overflows. */
static inline void skc_grid_potentials(int32_t *row, int32_t d, const int32_t *ins,
                                       ptrdiff_t w) {
    ptrdiff_t j;
    for (j = 0; j < w; j++) row[j] -= d + ins[j];
}

/* Ask for the cache lines where the lanes will write an OCR string's distances (out is
 * its row, cols[0] the group's first column, 16 doubles from there), SKC_PREFETCH_AHEAD
 * strings ahead.  A group's calls walk down every row of the output, each a new page,
 * where the hardware prefetchers do not follow: the writes then missed the cache as the
 * memory under the output allowed, and a quarter of the runs of the token matrix on a
 * grid took 44-47 ms instead of 23-31 ms.  With the prefetch: 23.2-23.6 ms every time,
 * and AVX2 on doubles 10% less time. */
#define SKC_PREFETCH_AHEAD 3
static inline void skc_prefetch_out(double *out, const int64_t *cols) {
    __builtin_prefetch(out + cols[0], 1);
    __builtin_prefetch(out + cols[0] + 8, 1);
    __builtin_prefetch(out + cols[0] + 15, 1);
}

/* Row 0 of D'' (_grid_body.h), all 0, past the group's columns: skc_lanes_work's doubles
 * hold twice as many int32. */
static inline int32_t *skc_grid_row0(int32_t *work, ptrdiff_t mmax) {
    return work + (8 * mmax + 3) * SKC_LANES;
}

/* sub'' of OCR character i against the group's columns: the profile's row if there is
 * a profile (skc_grid_profile subtracted the potentials), else ``sub``, where those of
 * columns j0 .. j1 - 1 (a strip) are gathered. */
static inline const int32_t *skc_grid_srow(const int32_t *dense, ptrdiff_t n_ids,
                                           const int32_t *del_tab, const int32_t *profile,
                                           const int32_t *arow, const int32_t *aid,
                                           const uint32_t *acp, ptrdiff_t i,
                                           const int32_t *yid, const uint32_t *ycp,
                                           const int32_t *ins, ptrdiff_t w, ptrdiff_t j0,
                                           ptrdiff_t j1, int32_t *sub) {
    const ptrdiff_t s = j0 * SKC_LANES, ws = (j1 - j0) * SKC_LANES;
    if (profile != NULL) return profile + (ptrdiff_t)arow[i] * w;
    skc_gather_sub_i(dense + (ptrdiff_t)aid[i] * n_ids, aid[i] ? SKC_NO_MATCH : acp[i], yid + s,
                     ycp + s, ws, sub + s);
    skc_grid_potentials(sub + s, del_tab[aid[i]], ins + s, ws);
    return sub;
}

/* skc_lanes_profile_i with the potentials subtracted: row r (an alphabet id, or a
 * character outside the alphabet: id 0) holds sub - del[r] - ins of the group. */
static void skc_grid_profile(const int32_t *dense, ptrdiff_t n_ids, const int32_t *del_tab,
                             ptrdiff_t mmax, const int32_t *work, const uint32_t *extra_cp,
                             ptrdiff_t n_extra, int32_t *profile) {
    const ptrdiff_t w = mmax * SKC_LANES;
    const int32_t *ins = skc_lanes_ins_i((int32_t *)work, mmax);
    ptrdiff_t r;
    skc_lanes_profile_i(dense, n_ids, mmax, work, extra_cp, n_extra, profile);
    for (r = 1; r < n_ids + n_extra; r++)
        skc_grid_potentials(profile + r * w, del_tab[r < n_ids ? r : 0], ins, w);
}

/* The DP over the loaded group, once per vector width (_lanes_body.h and, for costs on
 * a grid, _grid_body.h are templates, which share the strip _lanes_strip.h and the loop
 * over the OCR strings _lanes_each.h), SKC_STRIP_D columns of doubles or SKC_STRIP_I of
 * int32 at a time (each template reads its own): five rows of a strip
 * (the row above, the row written, two of substitution costs and the insertion costs) in
 * 20 KiB of doubles or int32, within L1. */
#define SKC_STRIP_D 32
#define SKC_STRIP_I 64
#define SKC_ATTR
#define SKC_NAME skc_lanes_generic
#define SKC_VT skc_v2
#define SKC_MIN SKC_MIN2
#define SKC_FADD(x, y) ((x) + (y))
#define SKC_VW 2
#include "_lanes_body.h"
#undef SKC_FADD
#undef SKC_NAME
#undef SKC_VT
#undef SKC_MIN
#undef SKC_VW
#define SKC_NAME skc_lanes_generic_i
#define SKC_VT skc_i4
#define SKC_MIN skc_min_i4
#define SKC_VW 4
#include "_grid_body.h"
#undef SKC_NAME
#undef SKC_ATTR
#undef SKC_VT
#undef SKC_MIN
#undef SKC_VW

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define SKC_HAVE_AVX2_CLONE 1
/* x + y as x * 1 + y: one rounding of the exact sum, the same double.  vaddpd and vminpd
 * share two pipes on Zen 3 and the FMA unit has two more (benchmarks/fp_pipes.c measures
 * them), so the additions off a cell's chain go there. */
#define SKC_ATTR __attribute__((target("avx2,fma")))
#define SKC_NAME skc_lanes_avx2
#define SKC_VT skc_v4
#define SKC_MIN(y, x) ((skc_v4)_mm256_min_pd((__m256d)(y), (__m256d)(x)))
#define SKC_FADD(x, y) ((skc_v4)_mm256_fmadd_pd((__m256d)(x), _mm256_set1_pd(1.0), (__m256d)(y)))
#define SKC_VW 4
#include "_lanes_body.h"
#undef SKC_FADD
#undef SKC_NAME
#undef SKC_ATTR
#undef SKC_VT
#undef SKC_MIN
#undef SKC_VW
#define SKC_ATTR __attribute__((target("avx2")))
#define SKC_NAME skc_lanes_avx2_i
#define SKC_VT skc_i8
#define SKC_MIN(y, x) ((skc_i8)_mm256_min_epi32((__m256i)(y), (__m256i)(x)))
#define SKC_VW 8
#include "_grid_body.h"
#undef SKC_NAME
#undef SKC_ATTR
#undef SKC_VT
#undef SKC_MIN
#undef SKC_VW

/* AVX-512 on doubles: 8 per vector, so the 16 lanes are two vectors.  The same template;
 * avx512f has every instruction it uses.  On Zen 4, which runs a 512-bit operation as two
 * 256-bit halves, it takes 4-6% less time than the AVX2 instance for the token matrix
 * and 15% less for strings of 128 characters, with half the vector instructions; the
 * additions off the chain are FMAs here too (without: a third more time).  On a grid the
 * AVX2 instance runs at this level too: a 16-int32 instance (one vector a row, two chains
 * in flight) took 5-17% more time for the token matrix, 1-2% after the output prefetch,
 * and was not kept. */
#define SKC_HAVE_AVX512_CLONE 1
typedef double skc_v8 __attribute__((vector_size(64), aligned(8)));
#define SKC_ATTR __attribute__((target("avx512f")))
#define SKC_NAME skc_lanes_avx512
#define SKC_VT skc_v8
#define SKC_MIN(y, x) ((skc_v8)_mm512_min_pd((__m512d)(y), (__m512d)(x)))
#define SKC_FADD(x, y) ((skc_v8)_mm512_fmadd_pd((__m512d)(x), _mm512_set1_pd(1.0), (__m512d)(y)))
#define SKC_VW 8
#include "_lanes_body.h"
#undef SKC_FADD
#undef SKC_NAME
#undef SKC_ATTR
#undef SKC_VT
#undef SKC_MIN
#undef SKC_VW
#endif

/* SIMD levels: 0 = baseline, 1 = AVX2, 2 = AVX-512.  Each entry point below takes the
 * level to run as its last argument (the Python dispatcher chooses it, at most the
 * CPU's); a level runs its own kernels where it has them, else those of the level below. */

/* The highest level this CPU runs. */
static int skc_simd_available(void) {
#ifdef SKC_HAVE_AVX2_CLONE
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return 0;
    return __builtin_cpu_supports("avx512f") ? 2 : 1;
#else
    return 0;
#endif
}

/* Distances of OCR strings t < nx, at offsets xo[t] .. xo[t + 1] of xid and xcp, to the
 * loaded group, into out + t * ostride (_lanes_body.h).  ``profile`` (from
 * skc_lanes_profile, or NULL) saves refilling substitution costs per row; ``xrow`` gives
 * each OCR character's profile row (read only with a profile). */
static void skc_lanes_run(const double *dense, ptrdiff_t n_ids, const double *del_tab,
                          const int32_t *xid, const uint32_t *xcp, const int32_t *xrow,
                          const int64_t *xo, ptrdiff_t nx, const int64_t *m, ptrdiff_t mmax,
                          double *work, const double *profile, const int64_t *cols,
                          double *out, ptrdiff_t ostride, int level) {
#ifdef SKC_HAVE_AVX2_CLONE
    if (level == 2) {
        skc_lanes_avx512(dense, n_ids, del_tab, xid, xcp, xrow, xo, nx, m, mmax, work, profile,
                         cols, out, ostride);
        return;
    }
    if (level == 1) {
        skc_lanes_avx2(dense, n_ids, del_tab, xid, xcp, xrow, xo, nx, m, mmax, work, profile,
                       cols, out, ostride);
        return;
    }
#endif
    skc_lanes_generic(dense, n_ids, del_tab, xid, xcp, xrow, xo, nx, m, mmax, work, profile,
                      cols, out, ostride);
}

/* The same on costs in units of a grid step: every cost of the table is a whole number
 * of steps, and no value the DP forms reaches 2^31 steps (the caller checks both), so
 * the int32 lanes compute exactly the distances the double DP computes exactly, twice
 * as many per vector, with fewer operations per cell (_grid_body.h) on integer pipes.
 * ``profile`` comes from skc_grid_profile.  Each distance is written as its number of
 * steps times ``step``. */
static void skc_lanes_run_i(const int32_t *dense, ptrdiff_t n_ids, const int32_t *del_tab,
                            const int32_t *xid, const uint32_t *xcp, const int32_t *xrow,
                            const int64_t *xo, ptrdiff_t nx, const int64_t *m, ptrdiff_t mmax,
                            int32_t *work, const int32_t *profile, const int64_t *cols,
                            double step, double *out, ptrdiff_t ostride, int level) {
#ifdef SKC_HAVE_AVX2_CLONE
    if (level >= 1) {
        skc_lanes_avx2_i(dense, n_ids, del_tab, xid, xcp, xrow, xo, nx, m, mmax, work, profile,
                         cols, step, out, ostride);
        return;
    }
#endif
    skc_lanes_generic_i(dense, n_ids, del_tab, xid, xcp, xrow, xo, nx, m, mmax, work, profile,
                        cols, step, out, ostride);
}

#endif

/* One OCR string against many truth strings (a lexicon), on costs on a grid: the OCR
 * string's characters in the lanes (rows of the DP in a vector), the truth strings'
 * characters one column at a time.
 *
 * The lanes kernel (_grid_body.h) puts truth strings in the lanes, so every cell gathers
 * its substitution cost (each lane has its own truth character), and it groups the truth
 * strings by length first: fine for many OCR strings against one group, slow for one.
 * Here a column reads one row of the OCR string's profile (the costs of one truth
 * character against every OCR character), a plain vector load, and the truth strings are
 * read in order, as they are.  The price is the vertical moves: a running minimum down
 * the lanes.  Costs in int32 grid steps with the potentials of _grid_body.h, so the
 * results are exactly those of the other DPs.
 */
#ifndef SKOCRCOST_ROWS_H
#define SKOCRCOST_ROWS_H

#include "_lanes.h"

/* Vectors of 4 lanes per column the kernel is compiled for: OCR strings of up to 32
 * characters. */
#define SKC_ROWS_MAX_NV 8
/* Columns the kernel keeps per string in flight (_rows_body.h): a word starts from the
 * last word's column of at most SKC_ROWS_DEPTH - 2 shared characters. */
#define SKC_ROWS_DEPTH 32

/* The words' shared starts for skc_rows_run: lcp[k] characters of the nk non-empty words
 * at offsets co (code points cp) are word k - 1's (at most len(k) - 1 and
 * SKC_ROWS_DEPTH - 2; 0 for word 0), and ccum[k] (nk + 1) sums len(i) - lcp[i], i < k. */
static void skc_rows_prefixes(const int64_t *co, const uint32_t *cp, ptrdiff_t nk,
                              int64_t *lcp, int64_t *ccum) {
    ptrdiff_t k;
    ccum[0] = 0;
    for (k = 0; k < nk; k++) {
        const int64_t n = co[k + 1] - co[k];
        int64_t l = 0, lim = n - 1;
        if (k > 0) {
            if (co[k] - co[k - 1] < lim) lim = co[k] - co[k - 1];
            if (SKC_ROWS_DEPTH - 2 < lim) lim = SKC_ROWS_DEPTH - 2;
            while (l < lim && cp[co[k] + l] == cp[co[k - 1] + l]) l++;
        }
        lcp[k] = l;
        ccum[k + 1] = ccum[k] + n - l;
    }
}

/* The profile row of a truth character outside the alphabet: its own row if the OCR
 * string has that character (a match), else row 0 (rare: a short linear search). */
static inline ptrdiff_t skc_rows_extra(uint32_t cp, const uint32_t *extra, ptrdiff_t n_extra,
                                       ptrdiff_t n_ids) {
    ptrdiff_t k;
    for (k = 0; k < n_extra; k++)
        if (extra[k] == cp) return n_ids + k;
    return 0;
}

/* Split words [k0, k1) into n_s runs of about equal columns to compute (ccum, see
 * skc_rows_run), at word starts.  Stream s starts before its first word a (cw = &co[a],
 * the end of word a - 1, its position co[a]), so that its first column opens word a,
 * which it computes whole (lcp[a] more columns): ``left`` columns in all. */
static void skc_rows_streams(const int64_t *co, const int64_t *ccum, const int64_t *lcp,
                             ptrdiff_t k0, ptrdiff_t k1, ptrdiff_t n_s, const int64_t **cw,
                             ptrdiff_t *pos, ptrdiff_t *left) {
    ptrdiff_t s, a = k0, lo, hi, mid;
    for (s = 0; s < n_s; s++) {
        const int64_t target = ccum[k0] + (ccum[k1] - ccum[k0]) * (s + 1) / n_s;
        lo = a;
        hi = k1; /* the first word starting at or after target */
        while (lo < hi) {
            mid = lo + (hi - lo) / 2;
            if (ccum[mid] < target) lo = mid + 1;
            else hi = mid;
        }
        if (s == n_s - 1) lo = k1;
        cw[s] = co + a;
        pos[s] = co[a];
        left[s] = a < lo ? ccum[lo] - ccum[a] + (lcp ? lcp[a] : 0) : 0;
        a = lo;
    }
}

/* The profile of OCR string (aid, acp) of n characters, ``width`` lanes per column: row r
 * (width + 4 int32) holds sub - del - ins (the potentials of _grid_body.h) of a truth
 * character of id r against each OCR character, the last at position 0 and positions past
 * n 0, striped as the kernel's columns (_rows_body.h), then that character's insertion
 * cost 4 times (for the sum Q).  Rows n_ids + k are
 * the OCR string's own characters outside the alphabet, extra[k] (a match there costs no
 * substitution); row 0 any other such character.  Returns the number of extra rows; the
 * caller gives n_ids + n rows and n entries of ``extra``. */
static ptrdiff_t skc_rows_profile(const int32_t *gpot, ptrdiff_t n_ids, const int32_t *gdele,
                                  const int32_t *gins, const int32_t *aid, const uint32_t *acp,
                                  ptrdiff_t n, ptrdiff_t width, uint32_t *extra,
                                  int32_t *prof) {
    ptrdiff_t n_extra = 0, r, k, i;
    for (i = 0; i < n; i++) /* with n_ids 1, skc_rows_extra is 0 only for a new one */
        if (aid[i] == 0 && skc_rows_extra(acp[i], extra, n_extra, 1) == 0)
            extra[n_extra++] = acp[i];
    for (r = 0; r < n_ids + n_extra; r++) {
        int32_t *row = prof + r * (width + 4);
        for (k = 0; k < 4; k++) row[width + k] = gins[r < n_ids ? r : 0];
        for (k = 0; k < width; k++) {
            const ptrdiff_t p = (k % 4) * (width / 4) + k / 4; /* striped: see _rows_body.h */
            if (p >= n) {
                row[k] = 0;
                continue;
            }
            i = n - 1 - p;
            if (r < n_ids) row[k] = gpot[aid[i] * n_ids + r];
            else if (acp[i] == extra[r - n_ids]) row[k] = -(gdele[aid[i]] + gins[0]);
            else row[k] = gpot[aid[i] * n_ids];
        }
    }
    return n_extra;
}

#if defined(__clang__)
#define SKC_SHUFFLE(t, a, b, ...) __builtin_shufflevector(a, b, __VA_ARGS__)
#else
#define SKC_SHUFFLE(t, a, b, ...) __builtin_shuffle(a, b, (t){__VA_ARGS__})
#endif

/* Lanes down by k (lane j takes lane j + k), filled from the next vector.  Vectors of 4
 * int32 even with AVX2: a shift within 128 bits takes one cycle, one across the halves of
 * a 256-bit vector three, and the running minimum down a column is a chain of shifts. */
#define SKC_DOWN(x, hi, k)                                                                   \
    ((k) == 1 ? SKC_SHUFFLE(skc_i4, x, hi, 1, 2, 3, 4) : SKC_SHUFFLE(skc_i4, x, hi, 2, 3, 4, 5))
#define SKC_VT skc_i4
#define SKC_VW 4

/* Two sets of instances per target (_rows_set.h): with the words' shared starts kept
 * (SKC_SHARE, names ending in s) and without. */
#define SKC_ATTR
#define SKC_MIN skc_min_i4
#define SKC_SELECT(m, a, b) (((a) & (m)) | ((b) & ~(m)))
#define SKC_SHARE 0
#define SKC_SET(nv) SKC_CAT(skc_rows_generic_, nv)
#include "_rows_set.h"
#undef SKC_SET
#undef SKC_SHARE
#define SKC_SHARE 1
#define SKC_SET(nv) SKC_CAT(skc_rows_generics_, nv)
#include "_rows_set.h"
#undef SKC_SET
#undef SKC_SHARE
#undef SKC_SELECT
#undef SKC_ATTR
#undef SKC_MIN

#ifdef SKC_HAVE_AVX2_CLONE
#define SKC_ATTR __attribute__((target("avx2")))
#define SKC_MIN(y, x) ((skc_i4)_mm_min_epi32((__m128i)(y), (__m128i)(x)))
#define SKC_SELECT(m, a, b) ((skc_i4)_mm_blendv_epi8((__m128i)(b), (__m128i)(a), (__m128i)(m)))
#define SKC_SHARE 0
#define SKC_SET(nv) SKC_CAT(skc_rows_avx2_, nv)
#include "_rows_set.h"
#undef SKC_SET
#undef SKC_SHARE
#define SKC_SHARE 1
#define SKC_SET(nv) SKC_CAT(skc_rows_avx2s_, nv)
#include "_rows_set.h"
#undef SKC_SET
#undef SKC_SHARE
#undef SKC_SELECT
#undef SKC_ATTR
#undef SKC_MIN
#endif
#undef SKC_VT
#undef SKC_VW

/* Lanes per column for an OCR string of n characters: the fewest vectors that hold it
 * (1, 2, 3, 4 or 8: an instance each), or 0 if it is longer than the kernel takes. */
static ptrdiff_t skc_rows_width(ptrdiff_t n) {
    static const ptrdiff_t nvs[] = {1, 2, 3, 4, SKC_ROWS_MAX_NV};
    size_t k;
    for (k = 0; k < sizeof(nvs) / sizeof(nvs[0]); k++)
        if (nvs[k] * 4 >= n) return nvs[k] * 4;
    return 0;
}

/* out[wid[k]] (out[k] without wid) for words k0 <= k < k1 of the truth strings, whose
 * characters are yid/ycp[co[k] .. co[k + 1]) (none empty), against the OCR string whose
 * profile (skc_rows_profile, ``width`` from skc_rows_width) and P (the cost of deleting it,
 * in steps) are given.  lcp[k] (at most len(k) - 1 and SKC_ROWS_DEPTH - 2) of word k's
 * first characters are word k - 1's: the kernel keeps that column of the word before and
 * starts there, so ccum[k] = sum of len(i) - lcp[i] for i < k are the columns it computes
 * (both from skc_rows_prefixes).  Each distance is written as its number of steps times
 * ``step``.  ``res`` holds k1 - k0 int64. */
static void skc_rows_run(const int32_t *prof, ptrdiff_t width, ptrdiff_t n_ids,
                         const uint32_t *extra, ptrdiff_t n_extra, const int32_t *yid,
                         const uint32_t *ycp, const int64_t *co, const int64_t *lcp,
                         const int64_t *ccum, const int64_t *wid, ptrdiff_t k0, ptrdiff_t k1,
                         int64_t p, double step, int64_t *res, double *out, int level) {
    ptrdiff_t k;
#define SKC_ROWS_ARGS prof, n_ids, extra, n_extra, yid, ycp, co, lcp, ccum, k0, k1, res
#define SKC_ROWS_CALL(isa)                                                                   \
    do {                                                                                     \
        if (width == 4)                                                                      \
            skc_rows_##isa##_1(SKC_ROWS_ARGS);                                               \
        else if (width == 8)                                                                 \
            skc_rows_##isa##_2(SKC_ROWS_ARGS);                                               \
        else if (width == 12)                                                                \
            skc_rows_##isa##_3(SKC_ROWS_ARGS);                                               \
        else if (width == 16)                                                                \
            skc_rows_##isa##_4(SKC_ROWS_ARGS);                                               \
        else                                                                                 \
            skc_rows_##isa##_8(SKC_ROWS_ARGS);                                               \
    } while (0)
#ifdef SKC_HAVE_AVX2_CLONE
    if (level >= 1 && lcp)
        SKC_ROWS_CALL(avx2s);
    else if (level >= 1)
        SKC_ROWS_CALL(avx2);
    else
#endif
    if (lcp)
        SKC_ROWS_CALL(generics);
    else
        SKC_ROWS_CALL(generic);
#undef SKC_ROWS_CALL
#undef SKC_ROWS_ARGS
    for (k = k0; k < k1; k++)
        out[wid ? wid[k] : k] = (double)(p + *(const int32_t *)&res[k - k0]) * step;
}

#endif

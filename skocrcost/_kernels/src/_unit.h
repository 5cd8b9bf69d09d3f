/* Unit-cost Levenshtein by bit-parallelism (Myers 1999, in Hyyro's 2003 formulation).
 *
 * When every substitution, insertion and deletion costs 1 (a match 0), a DP column
 * differs from its neighbour by -1, 0 or +1 in every cell, so a whole column of a
 * pattern of m <= 64 characters fits in two bit vectors (VP: +1, VN: -1) and one text
 * character advances it in ~14 word operations instead of m cells.  The result is the
 * same integer the weighted DP computes with unit costs (sums of 1.0 are exact).
 *
 * Bits above the pattern's length hold junk that never reaches the bits below it:
 * logic operations stay in their bit, carries and shifts only move upward.  So a
 * pattern of m bits may sit in a wider word or in a 16-bit SIMD lane unmasked.
 *
 * Three kernels share the recurrence (SKC_BP_STEP): one pattern in a 64-bit word
 * (``distance``, and ``pairwise`` on strings longer than a lane), the same in several
 * words when both strings are longer than one (skc_bp_distance_blocks), and 16
 * patterns of <= 16 characters in the 16-bit lanes of one vector against two texts at
 * a time (``pairwise``; _unit_body.h, compiled for AVX2 and for the baseline target as
 * _lanes.h does).
 */
#ifndef SKOCRCOST_UNIT_H
#define SKOCRCOST_UNIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_lanes.h" /* skc_simd_available(), the SIMD levels every kernel shares */

#define SKC_BP_WORD 64 /* longest pattern of the one-word kernel */
#define SKC_BP_LANES 16 /* patterns per vector: 16-bit lanes of 256 bits */
#define SKC_BP_LANE_BITS 16 /* longest pattern in a lane */
#define SKC_BP_LOW 256 /* code points with a direct entry; the others are looked up */

/* One step of the recurrence for a text character whose pattern positions are Eq: the
 * column's +1/-1 bits VP/VN advance through the row's +1/-1 bits hp/hn.  T is the word
 * type (uint64_t or a vector of uint16_t, TOP its top bit's index).  The row's steps
 * shift in HP_IN/HN_IN at the bottom, and their top bits leave in HP_OUT/HN_OUT: for
 * the next word of a long pattern (skc_bp_distance_blocks), where a -1 carried in
 * also joins Eq.  A single word shifts in +1 (the top row of the DP grows by one per
 * text character: global distance, not search) and drops what leaves. */
#define SKC_BP_STEP(T, TOP, Eq, VP, VN, HP_IN, HN_IN, HP_OUT, HN_OUT) \
    do {                                                               \
        const T x_ = (Eq) | (HN_IN);                                   \
        const T d0_ = ((((x_) & (VP)) + (VP)) ^ (VP)) | x_ | (VN);     \
        const T hp_ = (VN) | ~(d0_ | (VP)), hn_ = d0_ & (VP);          \
        const T hp1_ = hp_ << 1 | (HP_IN), hn1_ = hn_ << 1 | (HN_IN);  \
        HP_OUT = hp_ >> (TOP);                                         \
        HN_OUT = hn_ >> (TOP);                                         \
        VP = hn1_ | ~(d0_ | hp1_);                                     \
        VN = hp1_ & d0_;                                               \
    } while (0)

/* Bits set in each 16-bit lane of v (a uint64_t of 4 lanes with R = 0x0001000100010001,
 * or a vector of uint16_t with R = 1), without the POPCNT instruction the baseline
 * target lacks (libgcc's would be a call per word). */
#define SKC_POPCOUNT16(R, v, out)                                      \
    do {                                                               \
        __typeof__(v) x_ = (v);                                        \
        x_ = x_ - ((x_ >> 1) & (0x5555u * (R)));                       \
        x_ = (x_ & (0x3333u * (R))) + ((x_ >> 2) & (0x3333u * (R)));   \
        x_ = (x_ + (x_ >> 4)) & (0x0f0fu * (R));                       \
        out = (x_ + (x_ >> 8)) & (0x001fu * (R));                      \
    } while (0)

#define SKC_LANES4 0x0001000100010001u

/* The distance after a text of n characters: the last column read from the top cell
 * (n) down its m (<= 64) vertical steps, +1 per VP bit and -1 per VN bit.  Reading it
 * once at the end spares the per-step update of a running score. */
static inline int64_t skc_bp_bottom(uint64_t vp, uint64_t vn, ptrdiff_t m, ptrdiff_t n) {
    const uint64_t mask = m >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << m) - 1;
    uint64_t up, down;
    SKC_POPCOUNT16(SKC_LANES4, vp & mask, up);
    SKC_POPCOUNT16(SKC_LANES4, vn & mask, down);
    up = (up * SKC_LANES4) >> 48; /* sum of the four lanes */
    down = (down * SKC_LANES4) >> 48;
    return (int64_t)n + (int64_t)up - (int64_t)down;
}

/* Slot of code point c (>= 256) in the list ``cps`` of *n entries, appended if absent;
 * *fresh tells the caller to clear the new slot's mask.  Few distinct characters
 * beyond Latin-1 occur in one pattern, so a list beats a hash. */
static inline int skc_ext_slot(uint32_t *cps, int *n, uint32_t c, int *fresh) {
    int e;
    for (e = 0; e < *n && cps[e] != c; e++) {
    }
    *fresh = e == *n;
    if (*fresh) cps[(*n)++] = c;
    return e;
}

/* Where each character of a pattern of <= 64 characters occurs: a direct table for
 * code points < 256 and a short list for the others (few distinct in one pattern). */
typedef struct {
    uint64_t low[SKC_BP_LOW];
    uint32_t ext_cp[SKC_BP_WORD];
    uint64_t ext_mask[SKC_BP_WORD];
    int n_ext;
} skc_peq;

static inline uint64_t skc_peq_get(const skc_peq *q, uint32_t c) {
    int k;
    if (c < SKC_BP_LOW) return q->low[c];
    for (k = 0; k < q->n_ext; k++)
        if (q->ext_cp[k] == c) return q->ext_mask[k];
    return 0;
}

/* Fill ``q`` for pattern p (m <= 64) so that it answers every character of text t.
 * Only the entries p and t read are written: clearing all 256 would cost more than a
 * short pair's whole scan. */
static inline void skc_peq_set(skc_peq *q, const uint32_t *p, ptrdiff_t m, const uint32_t *t,
                               ptrdiff_t n) {
    ptrdiff_t j;
    int k, fresh;
    for (j = 0; j < n; j++)
        if (t[j] < SKC_BP_LOW) q->low[t[j]] = 0;
    for (j = 0; j < m; j++)
        if (p[j] < SKC_BP_LOW) q->low[p[j]] = 0;
    q->n_ext = 0;
    for (j = 0; j < m; j++) {
        const uint64_t bit = (uint64_t)1 << j;
        if (p[j] < SKC_BP_LOW) {
            q->low[p[j]] |= bit;
            continue;
        }
        k = skc_ext_slot(q->ext_cp, &q->n_ext, p[j], &fresh);
        if (fresh) q->ext_mask[k] = 0;
        q->ext_mask[k] |= bit;
    }
}

/* Patterns longer than a word: W = ceil(m / 64) words per column, each step carrying
 * the row's +1/-1 bit out of the top of one word into the bottom of the next (Hyyrö
 * 2003, blocked as in Myers 1999), where a single word shifts in a constant.  The
 * addition's carry between words needs no propagation: the -1 carried in is ORed
 * into Eq, which is how Myers' blocks take their horizontal input.  Returns -1 if
 * memory runs out (the caller runs the DP). */
static int64_t skc_bp_distance_blocks(const uint32_t *p, ptrdiff_t m, const uint32_t *t,
                                      ptrdiff_t n) {
    const ptrdiff_t W = (m + SKC_BP_WORD - 1) / SKC_BP_WORD;
    /* Masks of the code points < 256, of the others (m rows at most, then a row of
     * zeros for characters outside the pattern), and the column (VP, VN). */
    uint64_t *low = (uint64_t *)calloc((size_t)(SKC_BP_LOW + m + 3) * W, sizeof(uint64_t));
    uint32_t *ext_cp = (uint32_t *)malloc((size_t)m * sizeof(uint32_t));
    uint64_t *ext, *none, *vp, *vn;
    ptrdiff_t i, j, w;
    int e, n_ext = 0, fresh;
    int64_t result = -1;
    if (low == NULL || ext_cp == NULL) goto done;
    ext = low + SKC_BP_LOW * W;
    none = ext + m * W;
    vp = none + W;
    vn = vp + W;
    for (j = 0; j < m; j++) {
        const uint64_t bit = (uint64_t)1 << (j % SKC_BP_WORD);
        if (p[j] < SKC_BP_LOW) {
            low[p[j] * W + j / SKC_BP_WORD] |= bit;
        } else {
            e = skc_ext_slot(ext_cp, &n_ext, p[j], &fresh); /* rows start zeroed */
            ext[e * W + j / SKC_BP_WORD] |= bit;
        }
    }
    for (w = 0; w < W; w++) vp[w] = ~(uint64_t)0;
    for (i = 0; i < n; i++) {
        const uint64_t *eq = none;
        uint64_t hp_in = 1, hn_in = 0;
        if (t[i] < SKC_BP_LOW) {
            eq = low + t[i] * W;
        } else {
            for (e = 0; e < n_ext; e++)
                if (ext_cp[e] == t[i]) {
                    eq = ext + e * W;
                    break;
                }
        }
        for (w = 0; w < W; w++) {
            uint64_t hp_out, hn_out;
            SKC_BP_STEP(uint64_t, 63, eq[w], vp[w], vn[w], hp_in, hn_in, hp_out, hn_out);
            hp_in = hp_out;
            hn_in = hn_out;
        }
    }
    /* The last column from its top cell (n) down, word by word. */
    result = n;
    for (w = 0; w < W; w++)
        result += skc_bp_bottom(vp[w], vn[w], w < W - 1 ? SKC_BP_WORD : m - w * SKC_BP_WORD, 0);
done:
    free(low);
    free(ext_cp);
    return result;
}

/* Unit-cost distance of a (n) and b (m).  The pattern is the longer string if it fits
 * a word, so the scan runs over the shorter one (the distance is symmetric); else the
 * shorter one, in as many words as it needs.  Returns -1 only if memory runs out. */
static int64_t skc_bp_distance(skc_peq *q, const uint32_t *a, ptrdiff_t n, const uint32_t *b,
                               ptrdiff_t m) {
    const int a_longer = n >= m;
    const uint32_t *lo = a_longer ? a : b, *sh = a_longer ? b : a, *p, *t;
    const ptrdiff_t llo = a_longer ? n : m, lsh = a_longer ? m : n;
    ptrdiff_t lp, lt, i;
    uint64_t vp = ~(uint64_t)0, vn = 0;
    if (llo <= SKC_BP_WORD) {
        p = lo, lp = llo, t = sh, lt = lsh;
    } else if (lsh <= SKC_BP_WORD) {
        p = sh, lp = lsh, t = lo, lt = llo;
    } else {
        return skc_bp_distance_blocks(sh, lsh, lo, llo);
    }
    if (lp == 0) return lt;
    skc_peq_set(q, p, lp, t, lt);
    for (i = 0; i < lt; i++) {
        uint64_t unused_hp, unused_hn;
        SKC_BP_STEP(uint64_t, 63, skc_peq_get(q, t[i]), vp, vn, 1, 0, unused_hp, unused_hn);
    }
    return skc_bp_bottom(vp, vn, lp, lt);
}

/* 16 patterns of <= 16 characters in the 16-bit lanes of one vector: per character
 * class, the lanes' match masks side by side (a block, loaded once, scanned by many
 * texts).  Block g holds strings 16g .. 16g + 15, so a text's distances go to 16
 * neighbouring cells of its output row; a string longer than a lane leaves its lane
 * inactive (the caller computes it one pair at a time).  ``low`` is all zero outside
 * the loaded block's characters: loading the next block first clears the last one's
 * entries, much less than all 8 KiB. */
typedef uint16_t skc_u16x16 __attribute__((vector_size(32), aligned(32)));
typedef struct {
    skc_u16x16 low[SKC_BP_LOW];
    skc_u16x16 ext_mask[SKC_BP_LANES * SKC_BP_LANE_BITS];
    uint32_t ext_cp[SKC_BP_LANES * SKC_BP_LANE_BITS];
    int n_ext;
    uint16_t len[SKC_BP_LANES];
    char active[SKC_BP_LANES]; /* the lane holds a string (not padding, not too long) */
    uint16_t mask[SKC_BP_LANES]; /* the lane's bits: (1 << len) - 1 */
    ptrdiff_t loaded; /* the block number held, -1 for none */
    void *raw; /* what malloc returned (the struct is aligned within it) */
} skc_bp_block;

static skc_bp_block *skc_bp_block_new(void) {
    void *raw = calloc(1, sizeof(skc_bp_block) + 32);
    skc_bp_block *blk;
    if (raw == NULL) return NULL;
    blk = (skc_bp_block *)(((uintptr_t)raw + 31) & ~(uintptr_t)31);
    blk->loaded = -1;
    blk->raw = raw;
    return blk;
}

static void skc_bp_block_free(skc_bp_block *blk) {
    if (blk != NULL) free(blk->raw);
}

/* Hold block g of the ``count`` strings at cp + off[j] (j = 0 .. count - 1), each
 * off[j + 1] - off[j] long. */
static void skc_bp_block_use(skc_bp_block *blk, ptrdiff_t g, const uint32_t *cp,
                             const int64_t *off, ptrdiff_t count) {
    int k, j, e, fresh;
    if (blk->loaded == g) return;
    /* Lengths and the like are read into locals: the stores into the masks (uint16_t)
     * may alias the block's uint16_t fields, and reloading them cost a fifth of a load.
     * The clear zeroes what each lane wrote, 16 bits per character: a load's or-ing
     * into those bits then reads a store of its own size and place, which forwards
     * without a stall (clearing whole 32-byte entries cost as much as loading). */
    for (k = 0; k < SKC_BP_LANES; k++)
        if (blk->active[k]) {
            const uint32_t *s = cp + off[blk->loaded * SKC_BP_LANES + k];
            const int len = blk->len[k];
            for (j = 0; j < len; j++)
                if (s[j] < SKC_BP_LOW) ((uint16_t *)&blk->low[s[j]])[k] = 0;
        }
    blk->loaded = g;
    blk->n_ext = 0;
    for (k = 0; k < SKC_BP_LANES; k++) {
        const ptrdiff_t y = g * SKC_BP_LANES + k;
        const ptrdiff_t full = y < count ? off[y + 1] - off[y] : 0;
        const int active = y < count && full <= SKC_BP_LANE_BITS, len = active ? (int)full : 0;
        const uint32_t *s = cp + (y < count ? off[y] : 0);
        blk->active[k] = (char)active;
        blk->len[k] = (uint16_t)len;
        blk->mask[k] = (uint16_t)((1u << len) - 1);
        for (j = 0; j < len; j++) {
            const uint32_t c = s[j];
            uint16_t *lanes;
            if (c < SKC_BP_LOW) {
                lanes = (uint16_t *)&blk->low[c];
            } else {
                e = skc_ext_slot(blk->ext_cp, &blk->n_ext, c, &fresh);
                if (fresh) memset(&blk->ext_mask[e], 0, sizeof(skc_u16x16));
                lanes = (uint16_t *)&blk->ext_mask[e];
            }
            lanes[k] |= (uint16_t)(1u << j);
        }
    }
}

/* The same vector, read from memory of any alignment (a numpy array's). */
typedef uint16_t skc_u16x16u __attribute__((vector_size(32), aligned(2)));

/* The scans of a loaded block and of a table, once per target (a template). */
#define SKC_NAME skc_bp_block_run_generic
#define SKC_TABLE_NAME skc_bp_table_run_generic
#define SKC_ATTR
#include "_unit_body.h"
#undef SKC_NAME
#undef SKC_TABLE_NAME
#undef SKC_ATTR

#ifdef SKC_HAVE_AVX2_CLONE
#define SKC_NAME skc_bp_block_run_avx2
#define SKC_TABLE_NAME skc_bp_table_run_avx2
#define SKC_ATTR __attribute__((target("avx2")))
#include "_unit_body.h"
#undef SKC_NAME
#undef SKC_TABLE_NAME
#undef SKC_ATTR
#endif

/* Distances of texts t1 and t2 (n1 and n2 characters; t2 none if row2 is NULL) to the
 * block's active lanes: string y of the block goes to row1[y] and row2[y]. */
static void skc_bp_block_run(const skc_bp_block *blk, const uint32_t *t1, ptrdiff_t n1,
                             double *row1, const uint32_t *t2, ptrdiff_t n2, double *row2,
                             int level) {
#ifdef SKC_HAVE_AVX2_CLONE
    if (level >= 1) {
        skc_bp_block_run_avx2(blk, t1, n1, row1, t2, n2, row2);
        return;
    }
#endif
    skc_bp_block_run_generic(blk, t1, n1, row1, t2, n2, row2);
}

/* Distances of a text to the strings of blocks g0 .. g1 - 1 of a lexicon of ny strings,
 * into row[0 ..] (the distance to string y at row[y - 16 g0]).  The text is given as
 * rows of ``table`` (uint16, (characters + 1) x nblocks x 16): lane k of block g of
 * row r has bit j set when string 16 g + k has the row's character at position j (row
 * 0: a character no string has).  ``lane_mask`` (nblocks x 16) holds (1 << length) - 1
 * per lane; a string longer than a lane gets a wrong value here, which the caller
 * overwrites. */
static void skc_bp_table_run(const uint16_t *table, ptrdiff_t nblocks, const uint16_t *lane_mask,
                             const int32_t *rows, ptrdiff_t n, ptrdiff_t g0, ptrdiff_t g1,
                             ptrdiff_t ny, double *row, int level) {
#ifdef SKC_HAVE_AVX2_CLONE
    if (level >= 1) {
        skc_bp_table_run_avx2(table, nblocks, lane_mask, rows, n, g0, g1, ny, row);
        return;
    }
#endif
    skc_bp_table_run_generic(table, nblocks, lane_mask, rows, n, g0, g1, ny, row);
}

#endif

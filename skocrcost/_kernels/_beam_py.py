"""Pure-Python twin of ``_beam.pyx``: the same search, the same results bit for bit."""

from __future__ import annotations

import math
from bisect import bisect_left

import numpy as np

NEVER = -3
_ABSENT = -2


class KatzTables:
    """The arrays of a fitted ``KatzBackoffLM``, one tuple per order (see ``_beam.pyx``)."""

    def __init__(self, levels, n_words):
        self.levels = [
            tuple(np.asarray(a).tolist() for a in level)  # lists: bisect and exact floats
            for level in levels
        ]
        self.n_levels = len(self.levels)
        self.w1 = n_words + 1

    def probabilities(self, words, histories):
        """``P(words[i] | histories[i])`` for each ``i`` (see ``_beam.pyx``)."""
        m = self.n_levels - 1 if self.n_levels else 0
        histories = np.asarray(histories, dtype=np.int64).reshape(len(words), m)
        return np.array(
            [
                _probability(self.levels, self.w1, int(w), _context_index(self.levels, self.w1, h))
                for w, h in zip(np.asarray(words).tolist(), histories.tolist(), strict=True)
            ],
            dtype=np.float64,
        )


def _find(keys, key):
    if not keys:
        return 0, False
    pos = min(bisect_left(keys, key), len(keys) - 1)
    return pos, keys[pos] == key


def _context_index(levels, w1, hist):
    """``{order: (context index, found)}`` for orders 2..len(levels)."""
    m, out = len(hist), {}
    for k in range(2, len(levels) + 1):
        idx, ok = 0, True
        for j in range(k - 1):
            token = hist[m - (k - 1) + j]
            ok = ok and token >= 0
            pos, hit = _find(levels[j + 1][0], idx * w1 + max(token, 0))
            ok = ok and hit
            idx = pos if ok else 0
        out[k] = (idx, ok)
    return out


def _log_prob(levels, w1, w, contexts):
    p = _probability(levels, w1, w, contexts)
    return math.log(p) if p > 0 else -math.inf


def _probability(levels, w1, w, contexts):
    if w == NEVER:
        return 0.0
    wid = max(w, 0)
    unigram = levels[0]
    p = (1.0 if w < 0 else float(unigram[6][wid])) / float(unigram[1][0])
    for k in range(2, len(levels) + 1):
        c, found = contexts[k]
        if not found:
            continue
        _, total, discount, alpha, rest, keys, counts = levels[k - 1]
        pos, seen = _find(keys, c * w1 + wid)
        if seen and w >= 0:
            p = (float(counts[pos]) - discount[c]) / float(total[c])
        else:
            p = alpha[c] * p / rest[c] if alpha[c] > 0 else 0.0
    return p


def search_lines(
    lm,
    coef,
    word_ctx,
    word_pred,
    r_start,
    r_word,
    r_score,
    r_priced,
    v_start,
    v_cost,
    v_offset,
    v_rec,
    steps,
    line_start,
    start_word,
    m,
    beam_width,
    n_threads=1,
    joins=None,
    join_cost=0.0,
):
    """The cheapest reading of each line: ``(chosen, scores, joined)`` (see
    ``_beam.search_lines``)."""
    if beam_width < 1:
        raise ValueError(f"beam_width must be at least 1, got {beam_width}")
    if m < 0:
        raise ValueError(f"m must be >= 0, got {m}")
    if len(v_rec) != len(steps):
        raise ValueError(f"v_rec must have one value per step ({len(steps)}), got {len(v_rec)}")
    n_lines = len(line_start) - 1
    if joins is None:
        joins = ([0] * (n_lines + 1), [], [], [], [], [])
    join_start, *columns = (np.asarray(a).tolist() for a in joins)
    n_sets = len(r_start) - 1
    if (
        len(join_start) != len(line_start)
        or any(len(c) != len(columns[0]) for c in columns)
        or join_start[0] != 0
        or join_start[-1] != len(columns[0])
    ):
        raise ValueError(
            "joins must be (join_start, tok, at, to, set, rec): join_start one per line and "
            "one more, from 0 to the number of joins, the others one per join"
        )
    chosen = np.full(len(steps), -1, dtype=np.int64)
    scores = np.zeros(n_lines)
    joined = np.full(len(columns[0]), -1, dtype=np.int64)
    for line in range(n_lines):
        a, b = int(line_start[line]), int(line_start[line + 1])
        if join_start[line + 1] < join_start[line]:
            raise ValueError("joins: join_start must not decrease")
        at = range(join_start[line], join_start[line + 1])
        ones = [tuple(c[i] for c in columns) for i in at]  # (tok, at, to, set, rec)
        for i, (tok, j_at, j_to, j_set, _) in zip(at, ones, strict=True):
            before = ones[i - at.start - 1] if i > at.start else None
            if (
                not 0 <= j_at <= j_to <= b - a
                or not 0 <= j_set < n_sets
                or (before is not None and (tok <= before[0] or j_at < before[1]))
            ):
                raise ValueError(
                    f"joins: join {i} lies outside its line's steps, or reads no reading "
                    f"set, or comes out of order"
                )
        scores[line] = _search_line(
            lm, coef, word_ctx, word_pred, r_start, r_word, r_score, r_priced, v_start,
            v_cost, v_offset, v_rec[a:b], steps[a:b], start_word, m, beam_width, chosen[a:b],
            ones, join_cost, joined[at.start : at.stop],
        )  # fmt: skip
    return chosen, scores, joined


def _search_line(
    lm, coef, word_ctx, word_pred, r_start, r_word, r_score, r_priced, v_start, v_cost,
    v_offset, v_rec, steps, start_word, m, beam, chosen, joins, join_cost, joined,
):  # fmt: skip
    tables = (lm, coef, word_ctx, word_pred, r_start, r_word, r_score, r_priced)
    variants = (v_start, v_cost, v_offset)
    # hypotheses: (score, state: word ids, context ids, link (parent, step, reading) or None);
    # a join's link: (parent, -1 - its index, reading)
    hyps = [(0.0, (start_word,) * m, (int(word_ctx[start_word]),) * m, None)]
    pending, e, g = {}, 0, 0
    for s in range(len(steps) + 1):
        # The boundaries before step s, in token order (see _beam.search_line).
        while True:
            merge_now = g < e and joins[g][2] == s
            emit_now = e < len(joins) and joins[e][1] == s
            if merge_now and (not emit_now or joins[g][0] + 2 <= joins[e][0]):
                hyps = _merged(pending.pop(g), hyps, beam)
                g += 1
            elif emit_now:
                _, _, _, j_set, j_rec = joins[e]
                offers = _offers(hyps, tables, variants, j_set, j_rec, m, beam, join_cost)
                pending[e] = _kept(offers, hyps, tables, j_set, -1 - e, m, beam)
                e += 1
            else:
                break
        if s == len(steps):
            break
        step = int(steps[s])
        if step < 0:
            offers = {}  # (group, word) -> [score, hypothesis, reading]; a dict keeps order
            group = _groups(hyps)
            for h, hyp in enumerate(hyps):
                _offer(offers, (group[h], -step - 1 if m else 0), hyp[0], h, -1)
        else:
            offers = _offers(hyps, tables, variants, step, float(v_rec[s]), m, beam, 0.0)
        hyps = _kept(offers, hyps, tables, step, s, m, beam)
    score, _, _, link = hyps[0]
    while link is not None:
        link, s, k = link
        if s >= 0:
            chosen[s] = k
        else:
            joined[-1 - s] = k
    return score


def _groups(hyps):
    """Each hypothesis's group: the first hypothesis with its state less the oldest word."""
    groups = {}
    return [groups.setdefault(state[1:], h) for h, (_, state, _, _) in enumerate(hyps)]


def _offers(hyps, tables, variants, step, rec, m, beam, extra):
    """Each hypothesis's readings of reading set ``step``, offered (``extra`` more each)."""
    lm, coef, _, word_pred, r_start, r_word, r_score, r_priced = tables
    v_start, v_cost, v_offset = variants
    m_lm = lm.n_levels - 1 if lm is not None else 0
    offers = {}  # (group, word) -> [score, hypothesis, reading]; a dict keeps offer order
    group = _groups(hyps)
    r0, nr = int(r_start[step]), int(r_start[step + 1] - r_start[step])
    v0, v1 = int(v_start[step]), int(v_start[step + 1])
    for h, (base, _, ctx, _) in enumerate(hyps):
        if extra != 0.0:
            base = base + extra
        if lm is not None:  # the last m_lm context ids, padded with 'absent'
            hist = [ctx[j] if j >= 0 else _ABSENT for j in range(m - m_lm, m)]
            contexts = _context_index(lm.levels, lm.w1, hist)
        ranked, lm_terms = [], []
        for k in range(nr):
            own = float(r_score[r0 + k])
            t = base + (own - rec if k == 0 else own)
            term = 0.0
            if lm is not None and r_priced[r0 + k]:
                pred = int(word_pred[r_word[r0 + k]])
                term = coef * _log_prob(lm.levels, lm.w1, pred, contexts)
                t = t + term
            lm_terms.append(term)
            ranked.append([t, k])
        if v1 > v0:
            best = min(
                (float(v_cost[v0 + k - 1]) + lm_terms[k] for k in range(1, nr)),
                default=math.inf,
            )
            t = base + ((best + float(v_offset[step])) - rec)
            ranked[0][0] = min(ranked[0][0], t)
        if nr > beam:
            ranked = sorted(ranked)[:beam]
        for t, k in ranked:
            _offer(offers, (group[h], int(r_word[r0 + k]) if m else 0), t, h, k)
    return offers


def _kept(offers, hyps, tables, step, s, m, beam):
    """The ``beam`` cheapest states offered, as hypotheses (linked at ``s``)."""
    word_ctx, r_start, r_word = tables[2], tables[4], tables[5]
    survivors = sorted(offers.items(), key=lambda item: item[1][0])[:beam]
    new = []
    for (_, _), (score, h, k) in survivors:
        _, state, ctx, link = hyps[h]
        if step < 0:
            word = -step - 1
        else:
            word = int(r_word[int(r_start[step]) + k])
            link = (link, s, k)
        if m:
            state = (*state[1:], word)
            ctx = (*ctx[1:], int(word_ctx[word]))
        new.append((score, state, ctx, link))
    return new


def _merged(joined, hyps, beam):
    """A join's hypotheses (first) and the boundary's, one per state, the ``beam``
    cheapest (see ``_beam.merge_joined``)."""
    merged = {}  # state -> [score, ctx, link]; a replaced state keeps its place
    for score, state, ctx, link in joined + hyps:
        old = merged.get(state)
        if old is None:
            merged[state] = [score, ctx, link]
        elif score < old[0]:
            old[0], old[2] = score, link
    out = [(score, state, ctx, link) for state, (score, ctx, link) in merged.items()]
    return sorted(out, key=lambda hyp: hyp[0])[:beam]


def _offer(offers, key, score, h, k):
    """Offer a next state (``key``): kept if it is new or cheaper than the one before."""
    old = offers.get(key)
    if old is None:
        offers[key] = [score, h, k]
    elif score < old[0]:
        old[:] = [score, h, k]

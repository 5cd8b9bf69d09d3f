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
):
    """The cheapest reading of each line: ``(chosen, scores)`` (see ``_beam.search_lines``)."""
    if beam_width < 1:
        raise ValueError(f"beam_width must be at least 1, got {beam_width}")
    if m < 0:
        raise ValueError(f"m must be >= 0, got {m}")
    if len(v_rec) != len(steps):
        raise ValueError(f"v_rec must have one value per step ({len(steps)}), got {len(v_rec)}")
    chosen = np.full(len(steps), -1, dtype=np.int64)
    scores = np.zeros(len(line_start) - 1)
    for line in range(len(line_start) - 1):
        a, b = int(line_start[line]), int(line_start[line + 1])
        scores[line] = _search_line(
            lm, coef, word_ctx, word_pred, r_start, r_word, r_score, r_priced, v_start,
            v_cost, v_offset, v_rec[a:b], steps[a:b], start_word, m, beam_width, chosen[a:b],
        )  # fmt: skip
    return chosen, scores


def _search_line(
    lm, coef, word_ctx, word_pred, r_start, r_word, r_score, r_priced, v_start, v_cost,
    v_offset, v_rec, steps, start_word, m, beam, chosen,
):  # fmt: skip
    m_lm = lm.n_levels - 1 if lm is not None else 0
    # hypotheses: (score, state: word ids, context ids, link (parent, step, reading) or None)
    hyps = [(0.0, (start_word,) * m, (int(word_ctx[start_word]),) * m, None)]
    for s, step in enumerate(int(x) for x in steps):
        offers = {}  # (group, word) -> [score, hypothesis, reading]; a dict keeps offer order
        groups = {}
        group = [groups.setdefault(state[1:], h) for h, (_, state, _, _) in enumerate(hyps)]
        if step < 0:
            for h, hyp in enumerate(hyps):
                _offer(offers, (group[h], -step - 1 if m else 0), hyp[0], h, -1)
        else:
            r0, nr = int(r_start[step]), int(r_start[step + 1] - r_start[step])
            v0, v1 = int(v_start[step]), int(v_start[step + 1])
            for h, (base, _, ctx, _) in enumerate(hyps):
                if lm is not None:  # the last m_lm context ids, padded with 'absent'
                    hist = [ctx[j] if j >= 0 else _ABSENT for j in range(m - m_lm, m)]
                    contexts = _context_index(lm.levels, lm.w1, hist)
                ranked, lm_terms = [], []
                for k in range(nr):
                    own = float(r_score[r0 + k])
                    t = base + (own - float(v_rec[s]) if k == 0 else own)
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
                    t = base + ((best + float(v_offset[step])) - float(v_rec[s]))
                    ranked[0][0] = min(ranked[0][0], t)
                if nr > beam:
                    ranked = sorted(ranked)[:beam]
                for t, k in ranked:
                    _offer(offers, (group[h], int(r_word[r0 + k]) if m else 0), t, h, k)
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
        hyps = new
    score, _, _, link = hyps[0]
    while link is not None:
        link, s, k = link
        chosen[s] = k
    return score


def _offer(offers, key, score, h, k):
    """Offer a next state (``key``): kept if it is new or cheaper than the one before."""
    old = offers.get(key)
    if old is None:
        offers[key] = [score, h, k]
    elif score < old[0]:
        old[:] = [score, h, k]

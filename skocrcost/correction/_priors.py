"""Priors of the corrector: word prior, real-word and mixed-case priors, out-of-lexicon spelling."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from ._cached import LeavesCachesOut
from ._tokens import mixed_case


def _real_word_counts(ocr_words, truth_words, lexicon):
    """``{word: (right, seen)}``: how often each lexicon word in ``ocr_words`` was right."""
    seen, right = Counter(), Counter()
    for o, t in zip(ocr_words, truth_words, strict=True):
        if o in lexicon:
            seen[o] += 1
            right[o] += o == t
    return {w: (right[w], n) for w, n in seen.items()}


def _mixed_case_prior(ocr_words, truth_words, lexicon):
    """The smoothed share of the OCR words in mixed case (as the decoder's ``_mixed``
    reads them: not a ``lexicon`` word as listed) that are their truth word."""
    lexicon = lexicon or ()
    right = n = 0
    for o, t in zip(ocr_words, truth_words, strict=True):
        if o not in lexicon and mixed_case(o):
            n += 1
            right += o == t
    return (right + 1) / (n + 2)


def log_probability_pairs(lm, words, contexts):
    """Unweighted ``ln P_LM(words[i] | contexts[i])`` for each ``i``: one look-up when the
    language model has one (``KatzBackoffLM``, :class:`_UnigramPrior`), else one call of
    its ``log_probabilities`` per pair."""
    pairs = getattr(lm, "_log_probability_pairs", None)
    if pairs is not None:
        return np.asarray(pairs(words, contexts), dtype=float)
    return np.array(
        [lm.log_probabilities([w], context=c)[0] for w, c in zip(words, contexts, strict=True)],
        dtype=float,
    )


class _UnigramPrior:
    """The corrector's context-free word prior, with a language model's interface."""

    order = 1  # no context

    def __init__(self, lexicon, log_prior, weight):
        self.log_prior = dict(zip((w.lower() for w in lexicon), weight * log_prior))
        self.floor = weight * float(np.min(log_prior))

    def log_probabilities(self, words, context=()):
        return np.array([self.log_prior.get(w, self.floor) for w in words])

    def _log_probability_pairs(self, words, contexts):
        return self.log_probabilities(words)

    def _log_probability_grid(self, words, contexts):
        return np.tile(self.log_probabilities(words), (len(contexts), 1))


# Bigram costs a _Spelling keeps (any text's alphabet is far smaller).
_MAX_BIGRAMS = 100_000


class _Spelling(LeavesCachesOut):
    """Character bigram model of tokens, with start and end marks, add-0.1 smoothed."""

    _CACHES = ("_costs",)  # bigram costs, computed on use

    SMOOTHING = 0.1

    def __init__(self, words):
        self.pairs, self.contexts = Counter(), Counter()
        for w in words:
            marked = "\x02" + w + "\x03"
            self.pairs.update(zip(marked, marked[1:]))
            self.contexts.update(marked[:-1])
        self.n_outcomes = len(set(self.contexts) | {"\x03"}) + 1  # + any unseen character

    def surprisal(self, x):
        """``-ln P(x)``: the bigrams of ``x`` from its start mark to its end mark."""
        # Each bigram's -ln P computed once (bounded: emptied past _MAX_BIGRAMS); the
        # sum is the same, term by term.
        costs = self.__dict__.get("_costs")
        if costs is None or len(costs) > _MAX_BIGRAMS:
            costs = self._costs = {}
        a, n = self.SMOOTHING, self.n_outcomes
        marked = "\x02" + x + "\x03"
        total = 0
        for p in zip(marked, marked[1:]):
            c = costs.get(p)
            if c is None:
                c = costs[p] = -math.log((self.pairs[p] + a) / (self.contexts[p[0]] + a * n))
            total += c
        return total

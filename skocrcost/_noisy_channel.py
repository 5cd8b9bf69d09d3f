"""Noisy-channel correction of running text: channel cost plus a word language model.

For each whitespace token of a line, the core word (without leading and trailing
punctuation) is compared with its ``n_candidates`` nearest lexicon words.  A
candidate ``w`` for the observed core ``o`` scores, in cost units (the channel
model's ``Z``, so one unit is the surprisal of a uniform edit):

    cost(o -> w) + change + lm_weight * (-ln P_LM(w | previous corrected words)) / Z

and keeping ``o`` scores ``keep + lm_weight * (-ln P_LM(o | ...)) / Z``.  For a
lexicon word (real-word errors, Mays, Damerau and Mercer 1991) the observed word
is right with prior probability ``alpha``: ``keep = -ln(alpha) / Z`` and
``change = -ln(1 - alpha) / Z``.  For a word outside the lexicon ``keep`` is the
rejection cost ``reject_cost`` (names, numbers and abbreviations stay as they are
unless a candidate is cheaper) and ``change = 0``.  The chosen word takes the
case pattern of the observed one and its punctuation; the spacing of the line
is kept.  The LM sees lower-cased cores (:func:`lm_sentence`), and a line starts
with ``<s>``.
"""

from __future__ import annotations

import math
import re
import unicodedata

import numpy as np

_SPACE = re.compile(r"(\s+)")
_CORE = re.compile(r"^(\W*)(.*?)(\W*)$", re.S)


def split_token(token):
    """``(leading punctuation, core, trailing punctuation)`` of a whitespace token."""
    lead, core, trail = _CORE.match(token).groups()
    # Combining marks (category M) are \W to the regex but belong to the letter before
    # them: "e\u0301" must not be corrected as "e" with a trailing accent.
    marks = 0
    while marks < len(trail) and unicodedata.category(trail[marks]).startswith("M"):
        marks += 1
    if core and marks:
        return lead, core + trail[:marks], trail[marks:]
    return lead, core, trail


def lm_sentence(line):
    """The words the language model sees for a line: lower-cased cores, punctuation dropped."""
    return [core.lower() for core in (split_token(t)[1] for t in line.split()) if core]


def match_case(word, observed):
    """``word`` with the case pattern of ``observed`` (all capitals, or a capital first)."""
    if len(observed) > 1 and observed.isupper():
        return word.upper()
    if observed[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


# Tokens longer than this are never corrected: no word is that long, so whatever word
# replaced such a token (merged words, a URL, garbage) would be a guess.
MAX_WORD_LENGTH = 64


def correctable(core):
    """Only words with a letter, at most MAX_WORD_LENGTH long, are corrected.

    Numbers, punctuation, symbols, emoji and lone surrogates (no letter) stay.
    """
    return len(core) <= MAX_WORD_LENGTH and any(c.isalpha() for c in core)


class NoisyChannelDecoder:
    """Greedy left-to-right noisy-channel decoding of lines (see the module docstring).

    Parameters
    ----------
    neighbors : fitted EditDistanceNeighbors
        Over the lower-cased lexicon; its distances are the channel costs.
    normaliser : float
        ``Z`` of the channel model, to put ``-ln P_LM`` in cost units.
    language_model : fitted KatzBackoffLM or None
        None, or ``lm_weight = 0``: channel-only correction.
    reject_cost : float or callable
        The cost of keeping an out-of-lexicon word, or a function of that word
        giving it.
    lower : bool, default=True
        Search the lexicon with the lower-cased word (for a lower-cased lexicon).
    """

    def __init__(
        self,
        neighbors,
        normaliser,
        language_model=None,
        *,
        lm_weight=1.0,
        real_word_prior=0.99,
        reject_cost=1.0,
        n_candidates=10,
        lower=True,
    ):
        self.neighbors = neighbors
        self.lexicon = neighbors.lexicon_ if hasattr(neighbors, "lexicon_") else None
        self.words = set(self.lexicon) if self.lexicon is not None else set()
        self.normaliser = normaliser
        self.language_model = language_model
        self.lm_weight = lm_weight
        self.real_word_prior = real_word_prior
        self.reject_cost = reject_cost
        self.n_candidates = n_candidates
        self.lower = lower
        self._cache = {}

    def candidates(self, observed):
        """Fill the cache of ``(words, costs)`` for every new lower-cased core."""
        new = [o for o in dict.fromkeys(observed) if o not in self._cache]
        if new:
            k = min(self.n_candidates, len(self.lexicon))
            dist, ind = self.neighbors.kneighbors(new, n_neighbors=k)
            for o, d, i in zip(new, dist, ind, strict=True):
                self._cache[o] = ([self.lexicon[j] for j in i], np.asarray(d))

    def _choose(self, o, context):
        words, costs = self._cache[o]
        z = self.normaliser
        if o in self.words:
            keep = -math.log(self.real_word_prior) / z
            prior = self.real_word_prior
            change = -math.log1p(-prior) / z if prior < 1 else math.inf  # 1: never change
        else:
            reject = self.reject_cost
            keep, change = (reject(o) if callable(reject) else reject), 0.0
        options = [o, *(w for w in words if w != o)]
        score = np.concatenate([[keep], [c + change for w, c in zip(words, costs) if w != o]])
        if self.language_model is not None and self.lm_weight:
            words_lm = [w.lower() for w in options]
            lm = -self.language_model.log_probabilities(words_lm, context) / z
            score = score + self.lm_weight * lm
        return options[int(np.argmin(score))]

    def correct_lines(self, lines):
        """Correct each line; punctuation, case and spacing are kept."""
        split = [_SPACE.split(line) for line in lines]
        self.candidates(
            self._key(split_token(t)[1])
            for parts in split
            for t in parts[::2]
            if correctable(split_token(t)[1])
        )
        return [self._line(parts) for parts in split]

    def _key(self, core):
        return core.lower() if self.lower else core

    def _line(self, parts):
        context = ["<s>"]
        out = list(parts)
        for i in range(0, len(parts), 2):
            lead, core, trail = split_token(parts[i])
            if not core:
                continue
            word = self._key(core)
            if correctable(core):
                chosen = self._choose(word, context)
                if chosen != word:
                    out[i] = lead + match_case(chosen, core) + trail
                word = chosen
            context.append(word.lower())
        return "".join(out)

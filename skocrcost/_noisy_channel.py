"""Noisy-channel correction of running text: channel cost plus a word language model.

Each whitespace token of a line is split into leading punctuation, a core and
trailing punctuation, and the core into words at its inner punctuation other than
apostrophes (``Russell-street`` is two words, ``George's`` one), unless it is a
lexicon word with or without its hyphens (``dining-room``, ``mer-chandise``
broken at a line end), which is left as it is.  Each word ``o``
(looked up as it is when it is a lexicon word, lower-cased otherwise) is compared
with its ``n_candidates`` nearest lexicon words.  A candidate ``w`` scores, in cost
units (the channel model's ``Z``, so one unit is the surprisal of a uniform edit):

    cost(o -> w) + change + lm_weight * (-ln P_LM(w | previous corrected words)) / Z

For a lexicon word (real-word errors, Mays, Damerau and Mercer 1991) the observed
word is right with prior probability ``alpha``: keeping it scores
``-ln(alpha) / Z + lm_weight * (-ln P_LM(o | ...)) / Z`` and ``change =
-ln(1 - alpha) / Z``.  For a word outside the lexicon keeping it scores the
rejection cost ``reject_cost`` alone (names, numbers and abbreviations stay as
they are unless a candidate is cheaper) and ``change = 0``: the rejection cost is
the surprisal of a correct out-of-lexicon word, so the language model's
unknown-word fallback (a singleton's probability, far below the real share of
such words) is not added to it.  The chosen word takes the case pattern of the
observed one; punctuation and spacing are kept.  The LM sees lower-cased words
(:func:`lm_sentence`), and a line starts with ``<s>``.
"""

from __future__ import annotations

import math
import re
import unicodedata

import numpy as np

from .metrics import WeightedLevenshtein

_SPACE = re.compile(r"(\s+)")
_CORE = re.compile(r"^(\W*)(.*?)(\W*)$", re.S)
# Inside a core, runs of punctuation other than the apostrophe separate words:
# "Russell-street", "A.D", "realities.-Galletti" are corrected word by word.
_INSIDE = re.compile(r"([^\w']+)")


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


def split_core(core):
    """``core`` cut at its inner punctuation: words at even positions, separators at odd.

    Combining marks are ``\\W`` to the regex but belong to the letter before them.
    """
    parts = _INSIDE.split(core)
    for j in range(len(parts) - 2, 0, -2):  # separators, right to left
        if all(unicodedata.category(c).startswith("M") for c in parts[j]):
            parts[j - 1 : j + 2] = [parts[j - 1] + parts[j] + parts[j + 1]]
    return parts


def lm_sentence(line):
    """The words the language model sees for a line: lower-cased words, punctuation dropped."""
    return [w.lower() for t in line.split() for w in split_core(split_token(t)[1])[::2] if w]


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


def aligned_tokens(ocr_lines, truth_lines):
    """Per line pair, the ``(OCR token, truth token)`` columns of a word-level alignment.

    Unit Levenshtein over whitespace tokens (a changed token is one
    substitution); ``None`` marks a gap (a token only one side has).
    """
    ids, inverse = {}, []

    def code(line):
        out = []
        for t in line.split():
            if t not in ids:
                ids[t] = len(ids)
                inverse.append(t)
            out.append(chr(0x10000 + ids[t]))  # past the BMP's surrogates
        return "".join(out)

    a = [code(line) for line in ocr_lines]
    b = [code(line) for line in truth_lines]
    _, src, tgt, pair = WeightedLevenshtein().align_batch(a, b, 1)
    lines = [[] for _ in a]
    for s, g, i in zip(src.tolist(), tgt.tolist(), pair.tolist(), strict=True):
        lines[i].append(
            (inverse[s - 0x10000] if s >= 0 else None, inverse[g - 0x10000] if g >= 0 else None)
        )
    return lines


def word_pairs(ocr_lines, truth_lines, max_length_change=1 / 3):
    """Token sequences for ``OCRCorrector.fit``: the aligned words of each line pair.

    Each aligned pair of tokens gives its cores, lower-cased and cut into words
    (:func:`split_core`); a pair whose word counts differ is dropped, and so is
    a pair of words whose lengths differ by more than ``max_length_change`` of
    the true word's (at least one character): those are split or merged words
    and alignment accidents, which a word-for-word channel should not learn from.

    Returns
    -------
    X, y : list of list of str
        One list of OCR words and one of true words per line pair.
    """
    X, y = [], []
    for line in aligned_tokens(ocr_lines, truth_lines):
        xs, ys = [], []
        for o, t in line:
            if o is None or t is None:
                continue
            a = split_core(split_token(o)[1].lower())[::2]
            b = split_core(split_token(t)[1].lower())[::2]
            if len(a) != len(b):
                continue
            for u, v in zip(a, b, strict=True):
                if u and v and abs(len(u) - len(v)) <= max(1, int(len(v) * max_length_change)):
                    xs.append(u)
                    ys.append(v)
        X.append(xs)
        y.append(ys)
    return X, y


class NoisyChannelDecoder:
    """Greedy left-to-right noisy-channel decoding of lines (see the module docstring).

    Parameters
    ----------
    neighbors : fitted EditDistanceNeighbors
        Over the lexicon; its distances are the channel costs.
    normaliser : float
        ``Z`` of the channel model, to put ``-ln P_LM`` in cost units.
    language_model : fitted KatzBackoffLM or None
        None, or ``lm_weight = 0``: channel-only correction.
    reject_cost : float or callable
        The cost of keeping an out-of-lexicon word, or a function of that
        (lower-cased) word giving it.
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
        self._cache = {}

    def candidates(self, observed):
        """Fill the cache of ``(words, costs)`` for every new (looked-up) word."""
        new = [o for o in dict.fromkeys(observed) if o not in self._cache]
        if new:
            k = min(self.n_candidates, len(self.lexicon))
            dist, ind = self.neighbors.kneighbors(new, n_neighbors=k)
            for o, d, i in zip(new, dist, ind, strict=True):
                self._cache[o] = ([self.lexicon[j] for j in i], np.asarray(d))

    def _choose(self, o, context):
        words, costs = self._cache[o]
        z = self.normaliser
        known = o in self.words
        if known:
            keep = -math.log(self.real_word_prior) / z
            prior = self.real_word_prior
            change = -math.log1p(-prior) / z if prior < 1 else math.inf  # 1: never change
        else:
            reject = self.reject_cost
            keep, change = (reject(o) if callable(reject) else reject), 0.0
        options = [o, *(w for w in words if w != o)]
        score = np.concatenate([[keep], [c + change for w, c in zip(words, costs) if w != o]])
        if self.language_model is not None and self.lm_weight:
            lm = -self.language_model.log_probabilities([w.lower() for w in options], context) / z
            if not known:
                lm[0] = 0.0  # the rejection cost already prices a correct unknown word
            score = score + self.lm_weight * lm
        return options[int(np.argmin(score))]

    def _key(self, word):
        """The form looked up: the word itself if it is a lexicon word, else lower-cased."""
        return word if word in self.words else word.lower()

    def _hyphenated_word(self, core):
        """Whether ``core`` is one lexicon word with hyphens (``dining-room``, ``mer-chandise``).

        Such a core is left as it is: its pieces are not words to correct.
        """
        word = core.lower()
        return word in self.words or word.replace("-", "") in self.words

    def _words(self, token):
        """The correctable words of a token, as looked up."""
        core = split_token(token)[1]
        pieces = split_core(core)
        if len(pieces) > 1 and self._hyphenated_word(core):
            return ()
        return (self._key(w) for w in pieces[::2] if correctable(w))

    def correct_tokens(self, sequences):
        """Correct each sequence of whitespace tokens (the tokens of one line each)."""
        sequences = [list(seq) for seq in sequences]
        self.candidates(w for seq in sequences for t in seq for w in self._words(t))
        return [self._sequence(seq) for seq in sequences]

    def correct_lines(self, lines):
        """Correct each line; punctuation, case and spacing are kept."""
        split = [_SPACE.split(line) for line in lines]
        for parts, tokens in zip(split, self.correct_tokens(p[::2] for p in split), strict=True):
            parts[::2] = tokens
        return ["".join(parts) for parts in split]

    def _sequence(self, tokens):
        context = ["<s>"]
        out = []
        for token in tokens:
            lead, core, trail = split_token(token)
            pieces = split_core(core)
            whole = len(pieces) > 1 and self._hyphenated_word(core)
            for j in range(0, len(pieces), 2):
                piece = pieces[j]
                if not piece:
                    continue
                word = self._key(piece)
                if correctable(piece) and not whole:
                    chosen = self._choose(word, context)
                    if chosen != word:
                        pieces[j] = match_case(chosen, piece)
                    word = chosen
                context.append(word.lower())
            out.append(lead + "".join(pieces) + trail if core else token)
        return out

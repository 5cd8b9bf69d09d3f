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
such words) is not added to it.  Keeping it may also score as a spelling
variant of a candidate ``w`` (``variant_cost``): the variant channel's cost of
``o`` given ``w`` plus the language model's score of ``w``, so that against
correcting to ``w`` only the two channels compete.  The chosen word takes the case pattern of the
observed one; punctuation and spacing are kept.  The LM sees lower-cased words
(:func:`lm_sentence`), and a line starts with ``<s>``.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter

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

    Beyond word-for-word correction, three options change how much is trusted or
    rewritten, all scored in the same cost units:

    * ``split_cost``: an out-of-lexicon word may be cut into two or three lexicon
      words (a lost space, ``ofthe`` -> ``of the``) at this cost per cut, plus
      each word's real-word prior and language-model score in context.
    * ``join_cost``: two neighbouring tokens may become one word (a spurious space
      or a line-break hyphen, ``retu rned`` and ``pro- perty``) at this cost plus
      the joined word's score, against the two tokens' scores.  Across a space
      the joined form must be a lexicon word and one of the two tokens must not
      be; after a line-break hyphen it is corrected like any word.
    * ``recurrence_weight``: keeping an out-of-lexicon word gets cheaper by this
      much per natural log of the number of times the word occurs in the text
      being corrected (a spelling the text keeps using, such as ``haue``, is
      more likely right than a misreading).
    * ``variant_cost``: keeping an out-of-lexicon word ``o`` may also be read as
      "the writer meant the candidate ``w`` and spelled it ``o``" (``vnworthy``
      for ``unworthy``): ``variant_cost(o, w) + variant_offset`` plus the
      language model's score of ``w``, the cheapest over the candidates,
      competes with the rejection cost as the score of keeping ``o``.

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
    split_cost, join_cost : float or None
        Cost units; None never splits (joins).
    recurrence_weight : float
        Cost units per natural log of an out-of-lexicon word's count.
    variant_cost : callable or None
        ``variant_cost(o, words)``: for each lexicon word ``w`` of ``words``, the
        cost (cost units) of ``o`` being a correct variant spelling of ``w``
        (``-ln P(variant) - ln P(o | w, variant)``, over ``Z``); None: off.
    variant_offset : float
        Added to every variant cost (cost units); inf: off.
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
        split_cost=None,
        join_cost=None,
        recurrence_weight=0.0,
        variant_cost=None,
        variant_offset=math.inf,
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
        self.split_cost = split_cost
        self.join_cost = join_cost
        self.recurrence_weight = recurrence_weight
        self.variant_cost = variant_cost
        self.variant_offset = variant_offset
        self._cache = {}
        self._variant_cache = {}
        self._counts = Counter()

    def candidates(self, observed):
        """Fill the cache of ``(words, costs)`` for every new (looked-up) word."""
        new = [o for o in dict.fromkeys(observed) if o not in self._cache]
        if new:
            k = min(self.n_candidates, len(self.lexicon))
            dist, ind = self.neighbors.kneighbors(new, n_neighbors=k)
            for o, d, i in zip(new, dist, ind, strict=True):
                self._cache[o] = ([self.lexicon[j] for j in i], np.asarray(d))

    def _lm(self, words, context):
        """``lm_weight * -ln P_LM`` of each word in ``context``, in cost units."""
        if self.language_model is None or not self.lm_weight:
            return np.zeros(len(words))
        lp = self.language_model.log_probabilities([w.lower() for w in words], context)
        return -self.lm_weight * lp / self.normaliser

    def _keep_known(self, word, context):
        """The score of keeping the lexicon word ``word``: its real-word prior and the LM."""
        return -math.log(self.real_word_prior) / self.normaliser + self._lm([word], context)[0]

    def _recurrence(self, o):
        """How much cheaper keeping the out-of-lexicon word ``o`` gets for its recurrences."""
        if self.recurrence_weight and self._counts[o] > 1:
            return self.recurrence_weight * math.log(self._counts[o])
        return 0.0

    def _keep_unknown(self, o):
        """The score of keeping the out-of-lexicon word ``o`` (its recurrences lower it)."""
        reject = self.reject_cost
        return (reject(o) if callable(reject) else reject) - self._recurrence(o)

    def _keep_variant(self, o, words, lm):
        """The score of keeping ``o`` as a variant spelling of one of ``words`` (LM scores ``lm``).

        ``variant_cost(o, w) + variant_offset + lm`` at its lowest over the
        candidates: the writer meant ``w`` (the language model's score, as for
        correcting to ``w``) and spelled it ``o``; its recurrences lower it as
        they lower the rejection cost; inf when variants are off.
        """
        if self.variant_cost is None or not words or self.variant_offset == math.inf:
            return math.inf
        if o not in self._variant_cache:  # the candidates of o never change
            self._variant_cache[o] = np.asarray(self.variant_cost(o, words), dtype=float)
        best = float(np.min(self._variant_cache[o] + lm))
        return best + self.variant_offset - self._recurrence(o)

    def _choose(self, o, context):
        """The best reading of the looked-up word ``o`` and its score (cost units)."""
        if o not in self._cache:  # a lexicon word reached by a join: no candidates fetched
            return o, self._keep_known(o, context)
        words, costs = self._cache[o]
        z = self.normaliser
        known = o in self.words
        if known:
            keep = -math.log(self.real_word_prior) / z
            prior = self.real_word_prior
            change = -math.log1p(-prior) / z if prior < 1 else math.inf  # 1: never change
        else:
            keep, change = self._keep_unknown(o), 0.0
        options = [o, *(w for w in words if w != o)]
        score = np.concatenate([[keep], [c + change for w, c in zip(words, costs) if w != o]])
        lm = self._lm(options, context)
        if not known:
            lm[0] = 0.0  # the rejection cost already prices a correct unknown word
            score[0] = min(score[0], self._keep_variant(o, options[1:], lm[1:]))
        score = score + lm
        best = int(np.argmin(score))
        return options[best], float(score[best])

    def _split(self, o, context):
        """The best cut of ``o`` into two or three lexicon words, and its score.

        ``(None, inf)`` when no cut gives lexicon words.
        """
        words, best = self.words, (None, math.inf)
        cuts = []
        for i in range(1, len(o)):
            if o[:i] not in words:
                continue
            rest = o[i:]
            if rest in words:
                cuts.append((o[:i], rest))
            cuts += [
                (o[:i], rest[:j], rest[j:])
                for j in range(1, len(rest))
                if rest[:j] in words and rest[j:] in words
            ]
        for parts in cuts:
            score, ctx = self.split_cost * (len(parts) - 1), list(context)
            for p in parts:
                score += self._keep_known(p, ctx)
                ctx.append(p.lower())
            if score < best[1]:
                best = (parts, score)
        return best

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

    def _joinable(self, a, b):
        """The looked-up joined word of tokens ``a`` and ``b`` if they may be joined, else None.

        ``a`` must end in its word or a line-break hyphen, ``b`` start with its word,
        and each be one correctable word; across a space the joined form must be a
        lexicon word and one of the two must not be (``a way`` stays two words).
        """
        lead_a, core_a, trail_a = split_token(a)
        lead_b, core_b, _ = split_token(b)
        if trail_a not in ("", "-") or lead_b or not (core_a and core_b):
            return None
        if len(split_core(core_a)) > 1 or len(split_core(core_b)) > 1:
            return None
        if not (correctable(core_a) and correctable(core_b)):
            return None
        joined = self._key(core_a + core_b)
        if not correctable(joined):
            return None
        if not trail_a:  # across a space: a lexicon word, from at least one non-word
            words = self.words
            if joined not in words or (self._key(core_a) in words and self._key(core_b) in words):
                return None
        return joined

    def correct_tokens(self, sequences):
        """Correct each sequence of whitespace tokens (the tokens of one line each).

        A token joined to the one before it (``join_cost``) comes back empty.
        """
        sequences = [list(seq) for seq in sequences]
        looked_up = [w for seq in sequences for t in seq for w in self._words(t)]
        self._counts = Counter(looked_up)
        if self.join_cost is not None:  # words after a line-break hyphen need candidates
            looked_up += [
                j
                for seq in sequences
                for a, b in zip(seq, seq[1:])
                if a.endswith("-") and (j := self._joinable(a, b)) is not None
            ]
        self.candidates(looked_up)
        return [self._sequence(seq) for seq in sequences]

    def correct_lines(self, lines):
        """Correct each line; punctuation, case and spacing are kept (joined tokens lose theirs)."""
        split = [_SPACE.split(line) for line in lines]
        for parts, tokens in zip(split, self.correct_tokens(p[::2] for p in split), strict=True):
            for k, token in enumerate(tokens):
                if not token and parts[2 * k]:  # joined to the token before: drop the space
                    parts[2 * k - 1] = ""
            parts[::2] = tokens
        return ["".join(parts) for parts in split]

    def _sequence(self, tokens):
        context = ["<s>"]
        out = list(tokens)
        i = 0
        while i < len(tokens):
            if self.join_cost is not None and i + 1 < len(tokens):
                joined = self._join(tokens[i], tokens[i + 1], context)
                if joined is not None:
                    out[i], out[i + 1], word = joined
                    context.append(word.lower())
                    i += 2
                    continue
            out[i], words, _ = self._token(tokens[i], context)
            context += words
            i += 1
        return out

    def _join(self, a, b, context):
        """``(joined token, "", word)`` when joining ``a`` and ``b`` scores best, else None."""
        joined = self._joinable(a, b)
        if joined is None:
            return None
        word, score = self._choose(joined, context)
        score += self.join_cost
        first, words, separate = self._token(a, context)
        if score >= separate + self._token(b, context + words)[2]:
            return None
        lead, core_a, _ = split_token(a)
        _, core_b, trail = split_token(b)
        observed = core_a + core_b
        return lead + (match_case(word, observed) if word != joined else observed) + trail, "", word

    def _token(self, token, context):
        """``(corrected token, its words for the context, its score)``."""
        lead, core, trail = split_token(token)
        pieces = split_core(core)
        whole = len(pieces) > 1 and self._hyphenated_word(core)
        words, total = [], 0.0
        for j in range(0, len(pieces), 2):
            piece = pieces[j]
            if not piece:
                continue
            word = self._key(piece)
            if correctable(piece) and not whole:
                ctx = context + words
                chosen, score = self._choose(word, ctx)
                if self.split_cost is not None and word not in self.words and piece.isalpha():
                    parts, cut = self._split(word, ctx)
                    if cut < score:
                        starts = np.cumsum([0, *map(len, parts)])
                        pieces[j] = " ".join(
                            match_case(p, piece[s:]) for p, s in zip(parts, starts, strict=False)
                        )
                        words += [p.lower() for p in parts]
                        total += cut
                        continue
                total += score
                if chosen != word:
                    pieces[j] = match_case(chosen, piece)
                word = chosen
            words.append(word.lower())
        return (lead + "".join(pieces) + trail if core else token), words, total

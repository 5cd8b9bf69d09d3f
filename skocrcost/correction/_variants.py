"""Spelling variants: how the truth spells lexicon words differently, as a second channel.

Historical text spells words that a modern lexicon holds in another way: ``u``
for ``v`` (``gouernment``), ``v`` for ``u`` (``vnworthy``), ``y`` for ``i``
(``myghty``), a final ``-e`` (``brighte``), ``-nesse`` for ``-ness``.  Such a
word is right, yet one cheap edit from a lexicon word, and a corrector that
only knows OCR errors "corrects" it.  This model learns the variation from the
truth side of the training pairs: each distinct truth word outside the lexicon
that is within a small unit edit distance of a lexicon word gives a pair
(variant, lexicon word), and an edit-cost estimator (a clone of the OCR
channel's) learns ``P(variant | word)`` from those pairs as it learns
``P(OCR | truth)`` from OCR pairs.  Where ``u -> v`` is a common spelling change
but a rare OCR error, "the word is ``unworthy``, spelled ``vnworthy``" then
explains the token better than "the word is ``unworthy``, misread".
"""

from __future__ import annotations

import math
from collections import Counter
from itertools import product

import numpy as np
from sklearn.base import clone

from .._threads import n_threads
from ..metrics import WeightedLevenshtein
from ..neighbors import EditDistanceNeighbors

_UNIT = WeightedLevenshtein()

# Early modern print: letters used for one another (old -> the modern letters it
# may stand for) and endings spelled otherwise (old, modern).
_OLD_LETTERS = {"i": "ij", "u": "uv", "v": "vu", "\u017f": "s"}
_OLD_ENDINGS = (("e", ""), ("ie", "y"), ("ck", "c"))
_ENDS = tuple(end for end, _ in _OLD_ENDINGS)


def _fold(word):
    """Each letter of ``word`` to one of the letters it may be read as: a word and its
    modern spelling fold to the same string (the converse is checked letter by letter)."""
    # (replace, not str.translate: a quarter of its time on a word)
    return word.replace("j", "i").replace("v", "u").replace("\u017f", "s")


# Words with more letters to read both ways than this are taken as they are.
_MAX_SWAPS = 8


def modern_spellings(old):
    """The spellings of which the word ``old`` is an early modern one, lower-cased.

    ``u`` and ``v`` for each other, ``i`` for ``j``, a long ``s``, and the
    endings ``-e`` (``backe``), ``-ie`` (``citie``) and ``-ck`` (``musick``),
    leaving at least two letters: ``haue`` -> ``{have, hav, ...}``.  ``old``
    itself is left out.
    """
    old = old.lower()
    out = set()
    for stem in _stems(old):
        if _swappable(stem):
            out.update("".join(p) for p in product(*(_OLD_LETTERS.get(c, c) for c in stem)))
        else:
            out.add(stem)
    out.discard(old)
    return out


def _stems(old):
    """The lower-cased ``old`` and its modern endings (none when nothing in it may be
    read otherwise)."""
    if not old.endswith(_ENDS) and _OLD_LETTERS.keys().isdisjoint(old):
        return ()  # most words: nothing to read otherwise
    return [old] + [
        old[: -len(end)] + modern
        for end, modern in _OLD_ENDINGS
        if old.endswith(end) and len(old) - len(end) + len(modern) >= 2
    ]


def _swappable(stem):
    """Whether the letters of ``stem`` are read both ways: a stem with more than
    ``_MAX_SWAPS`` such letters is taken as it is."""
    return sum(c in _OLD_LETTERS for c in stem) <= _MAX_SWAPS


def modernised(old, new):
    """Whether the word ``new`` is ``old`` with only its spelling modernised
    (:func:`modern_spellings`): ``haue``/``have``, ``vpon``/``upon``,
    ``iudge``/``judge``, ``backe``/``back``, ``citie``/``city``.  Not
    ``Thjs``/``This``: ``j`` for ``i`` is an OCR error, not a spelling.  Case
    alone is no modernisation."""
    return modernisations(old, [new])[0]


def modernisations(old, words):
    """:func:`modernised` of ``old`` and each of ``words``, ``old``'s stems read once."""
    # new.lower() in modern_spellings(old), letter by letter rather than by listing them all
    old = old.lower()
    by_fold = {}  # a stem's letters folded to one reading -> the stems that fold so
    for stem in _stems(old):
        by_fold.setdefault(_fold(stem), []).append(stem)
    out = [False] * len(words)
    if not by_fold:
        return out
    for k, new in enumerate(words):
        new = new.lower()
        # One C call and a look-up rule out nearly every candidate.
        for stem in by_fold.get(_fold(new), ()):
            if new != old and (
                all(n in _OLD_LETTERS.get(c, c) for c, n in zip(stem, new))
                if _swappable(stem)
                else stem == new
            ):
                out[k] = True
                break
    return out


def keeps_old_spellings(ocr_words, truth_words, lexicon):
    """Whether the truth of the training pairs keeps early modern spellings.

    Counts the truth words that are an early modern spelling of a lexicon word
    (``haue`` kept) against the pairs whose truth modernises the OCR's word
    (OCR ``haue``, truth ``have``): a diplomatic transcription keeps them, a
    normalised one modernises.  True unless the modernised ones are more.
    """
    known = set(lexicon)
    modernising = sum(
        o.lower() != t.lower() and modernised(o, t) for o, t in zip(ocr_words, truth_words)
    )
    counts = Counter(t.lower() for t in truth_words)
    keeping = sum(
        n for t, n in counts.items() if t not in known and not known.isdisjoint(modern_spellings(t))
    )
    return modernising <= keeping


# The most unit edits between a spelling variant and its lexicon word (_within_reach).
MAX_VARIANT_EDITS = 2


def _within_reach(variant, word):
    """Whether ``variant`` is close enough to ``word`` to be a spelling of it.

    At most two unit edits, and at most one per three characters of ``word``
    (at least one): ``redd``/``red`` and ``gouernment``/``government`` are
    pairs, ``riotise``/``iodise`` is not.
    """
    edits = _UNIT.distance(variant, word)
    return 0 < edits <= min(MAX_VARIANT_EDITS, max(1, len(word) // 3))


def _single_characters(estimator):
    """A clone of ``estimator`` that learns single-character edits only."""
    out = clone(estimator)
    if out.get_params().get("max_token_length", 1) > 1:
        out.set_params(max_token_length=1)
    return out


class SpellingVariants:
    """The channel ``P(variant spelling | lexicon word)``, learned from truth words.

    Parameters
    ----------
    estimator : EditCostEstimator
        Cloned and fitted on the (variant, lexicon word) pairs, with
        single-character edits only (``max_token_length=1``): a spelling variant
        changes letters (``vnto``, ``onely``), and the lexicon index cannot search
        by multi-character edits, so pairing every truth word by them would
        compare it with the whole lexicon.

    Attributes
    ----------
    pairs : list of (str, str)
        The (variant, lexicon word) pairs learned from.
    estimator_ : EditCostEstimator
        The fitted clone; its metric's costs are ``-ln P(edit) / Z_v``.
    metric : WeightedLevenshtein
        ``estimator_.metric_``.
    normaliser : float
        ``Z_v``, the variant channel's nats per unit of cost.
    log_share : float
        ``ln P(variant)``: the share of the truth tokens that are such variants.
    """

    def __init__(self, estimator):
        self.estimator = estimator

    def fit(self, truth_tokens, lexicon):
        """Pair the truth words outside ``lexicon`` with their nearest lexicon words.

        The truth words are lower-cased and only alphabetic ones are used.
        Pairs are found under unit costs (ties: the earlier lexicon word), the
        estimator is fitted on them, and the words are paired again under the
        learned costs and the estimator fitted again (one hard-EM step: each
        word goes to the lexicon word whose learned spelling changes explain
        it best, and is dropped when that word is out of reach, as
        ``portesse``, paired with ``porters`` under unit costs, is on ICDAR 2017).

        Returns
        -------
        self, or None when no truth word gives a pair (no model to learn).
        """
        counts = Counter(w.lower() for w in truth_tokens)
        known = set(lexicon)
        words = [w for w in counts if w.isalpha() and w not in known]
        if not words or not lexicon:
            return None
        metric = None  # unit costs first
        pairs = []
        for _ in range(2):
            neighbors = EditDistanceNeighbors(metric=metric).fit(lexicon)
            # Under unit costs a word farther than MAX_VARIANT_EDITS is never paired:
            # the search stops there (-1: none that near).
            bound = MAX_VARIANT_EDITS if metric is None else np.inf
            _, nearest = neighbors._nearest_within(words, 1, bound, n_threads(neighbors.n_jobs))
            pairs = [
                (w, lexicon[i])
                for w, i in zip(words, nearest[:, 0].tolist(), strict=True)
                if i >= 0 and _within_reach(w, lexicon[i])
            ]
            if not pairs:
                return None
            metric = _single_characters(self.estimator)
            metric.fit([v for v, _ in pairs], [w for _, w in pairs])
        self.pairs = pairs
        self.estimator_ = metric
        self.metric = metric.metric_
        channel = getattr(metric, "channel_", None)
        self.normaliser = float(channel.normaliser) if channel is not None else 1.0
        n_variants = sum(counts[v] for v, _ in pairs)
        self.log_share = math.log(n_variants / sum(counts.values()))
        return self

    def surprisal(self, x, words):
        """``-ln P(variant) - ln P(x | w, variant)`` in nats for each word ``w`` of ``words``.

        ``Z_v * cost(x, w)`` under the learned variant costs (matches cost 0, as
        in the OCR channel), plus ``-ln P(variant)``; inf when ``x`` is not
        within reach of ``w`` (more unit edits than any pair learned from had).

        Returns
        -------
        ndarray of float64, shape (len(words),)
        """
        distance, z = self.metric.distance, self.normaliser
        # Only words within reach had pairs to learn from: the others are no variants of x.
        costs = [z * distance(x, w) if _within_reach(x, w) else math.inf for w in words]
        return np.array(costs, dtype=float) - self.log_share

"""OCRCorrector: noisy-channel correction of OCR tokens against a lexicon, as an estimator."""

from __future__ import annotations

import math
import operator
import threading
from collections import Counter
from collections.abc import Mapping
from dataclasses import replace
from functools import partial
from itertools import islice
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.utils.validation import check_is_fitted

from .. import _workers
from .._gc import existing_objects_frozen
from .._sklearn_compat import HasMethods, Interval, StrOptions
from .._threads import n_threads, n_workers
from .._validation import (
    StringInputMixin,
    check_flag,
    check_number,
    check_pairs,
    check_strings,
    validate_params,
)
from ..datasets import load_english_words
from ..estimator import EditCostEstimator
from ..lm import KatzBackoffLM
from ..metrics import WeightedLevenshtein
from ..neighbors import EditDistanceNeighbors
from . import _persist
from ._align import token_pairs, training_words
from ._confidence import UNREVIEWED, ChangeConfidence, ChangeFeatures
from ._decoder import MAX_COST, NoisyChannelDecoder
from ._decoding import Decoder, decoder_as_saved
from ._layout import Layout
from ._priors import _mixed_case_prior, _real_word_counts, _Spelling, _UnigramPrior
from ._rules import SURFACE, SurfaceRules, check_rules, pop_fix_flags
from ._scoring import word_error_rate
from ._tokens import letter_digits, lm_sentence, written_forms
from ._variants import SpellingVariants, keeps_old_spellings

__all__ = ["OCRCorrector"]


class OCRCorrector(StringInputMixin, BaseEstimator):
    """Correct OCR lines: learned edit costs, a language model, a beam over each line.

    ``OCRCorrector().fit(ocr_lines, truth_lines).predict(new_ocr_lines)`` is the
    whole job.  ``fit`` aligns the tokens of each pair of lines
    (:func:`~skocrcost.correction.align_tokens`), learns the edit costs from
    the pairs of words with a clone of ``estimator``, indexes the lexicon
    (:class:`EditDistanceNeighbors`), fits the language model, the word prior,
    the out-of-lexicon model and the surface rules on the truth, and learns how
    far to trust each kind of change (``min_confidence``, below).
    :meth:`predict` and :meth:`correct` read each line as the cheapest path
    through the readings of its words (see :meth:`correct`); :meth:`score` is
    ``1 - word error rate``.

    Each candidate lexicon word ``w`` of an OCR word ``x`` is scored, in nats
    (natural-log units), by the channel and (without a language model) the
    word prior::

        score(x, w) = Z * cost(x, w) - prior_weight * ln P(w)

    The metric's costs are ``-ln P(edit) / Z`` (``Z = ln(V + 1)`` for the
    default unified model, the estimator's ``channel_.normaliser``), so
    ``Z * cost`` is the channel surprisal ``-ln P(x | w)`` of the cheapest
    alignment (matches, which cost 0, leave out their ``-ln P(s -> s | s)``,
    close to 0 for OCR) and both terms are in the same units.  ``P(w)`` is the
    frequency of ``w`` among the training truth tokens, add-one smoothed over the
    lexicon (a lexicon word never seen still has a prior).  The weights
    (``prior_weight`` and the others named below) are the ``decoder``'s
    (:class:`~skocrcost.correction.Decoder`).

    **Do no harm.** A change the decoder proposes is made only when a
    classifier learned in ``fit`` gives it a probability of at least
    ``min_confidence`` of giving the tokens their true words.  ``fit`` learns it
    from the changes that a corrector fitted on the other lines makes to
    held-out blocks spread over all the training lines (at most
    ``CONFIDENCE_LINES``: pairs from several collections all teach it),
    described by their shape (capitals, inner punctuation, digits, a
    possessive), what they do (edit and channel cost, lexicon words before and
    after, case or punctuation only), the language model's view of the old and
    the new word in context, their recurrence in the lines around them and how
    noisy those lines are.  ``correct(text, return_confidence=True)`` lists each change with
    its confidence, for a reviewer.

    **When not to correct.** Names and rare words are missing from any lexicon,
    and many such OCR tokens are already right.  The corrector weighs the best
    word against the alternative that ``x`` is a correct out-of-lexicon token::

        keep(x) = -ln P(out of lexicon) - ln P_spell(x)

    where ``P(out of lexicon)`` is the share of training truth tokens missing
    from the lexicon and ``P_spell`` a character bigram model of those missing
    tokens (names, compounds: what a correct out-of-lexicon token looks like),
    and the channel ``P(x | x)`` is 1.  ``x`` is replaced by the best word only when
    ``score(x, w) + reject_margin < keep(x)``; tune ``decoder__reject_margin``
    (nats) by cross-validation like ``estimator__k``.

    **Spelling variants.** Old texts spell lexicon words in other ways
    (``vnworthy``, ``gouernment``, ``myghty``, ``brighte``), one cheap edit from a
    modern word yet right.  ``fit`` also learns a second channel from the truth
    words outside the lexicon that are within two unit edits (one per three
    letters) of a lexicon word, paired with that word: the edit costs of
    spelling variation (``u -> v``, ``y -> i``, a final ``e``), learned by a
    clone of ``estimator`` (:attr:`variants_`).  With the decoder's
    ``variant_weight > 0``, keeping ``x`` may also mean "``x`` is a variant
    spelling of the candidate ``w``", scored::

        keep_variant(x, w) = Z_v * cost_v(x, w) - ln P(variant) - ln(variant_weight)
                             - prior_weight * ln P(w)

    (in :meth:`correct` the language model's score of ``w`` replaces the word
    prior), and ``keep(x)`` is the lower of the two keep scores.  Against
    correcting ``x`` to the same ``w`` only the two channels then compete: a
    ``u`` for ``v`` that spellings often show and OCR seldom makes is kept.

    Whatever the weight, a candidate that only modernises the spelling of
    ``x`` (``u`` and ``v`` for each other, ``i`` for ``j``, a long ``s``, the
    endings ``-e``, ``-ie``, ``-ck``: ``haue``, ``vpon``, ``iudge``, ``backe``,
    ``citie``, ``musick``) is read as that word by the language model but
    written as printed, unless the training truth modernises such spellings
    more often than it keeps them (:attr:`keep_old_spellings_`): an OCR
    corrector restores what was printed.

    Parameters
    ----------
    estimator : EditCostEstimator, optional
        The cost learner, cloned and fitted on the pairs; None means
        ``EditCostEstimator()``.  With None, scikit-learn cannot set its
        parameters (``set_params(estimator__k=...)`` raises AttributeError):
        pass ``EditCostEstimator()`` to tune ``estimator__k`` with GridSearchCV.
    lexicon : sequence of str, "english" or None, default="english"
        The words to correct to, in priority order (ties in the score go to the
        earlier word; put the most frequent first); duplicates are dropped.
        "english": the SCOWL English words shipped with the package
        (:func:`skocrcost.datasets.load_english_words`) and the words the
        training truth has at least twice, lower-cased, most frequent in the
        truth first.  None: the distinct words of the truth, most frequent first.
    decoder : Decoder or None, default=None
        The weights of the search over each line's readings (candidates, word
        priors, rejection, language-model weight, cuts and joins, recurrence,
        variants, beam width): a :class:`~skocrcost.correction.Decoder`.  None
        means ``Decoder()``.  Its weights are reached as ``decoder__<name>``
        (``set_params(decoder__lm_weight=2)``, a ``GridSearchCV`` grid), which
        also works while ``decoder`` is None.
    language_model : KatzBackoffLM, "katz" or None, default="katz"
        The word language model of the decoder.  ``fit`` fits a clone on the
        truth side, its words lower-cased and stripped of punctuation: one
        sentence per truth line (or sequence), so ``language_model__discount``
        is tuned like any parameter.  "katz": ``KatzBackoffLM(order=3)``.  Wrap
        a model fitted on other text in ``sklearn.frozen.FrozenEstimator`` to
        use it as it is.  None: the word prior (``prior_weight``) alone.
    rules : collection of str, default=("hyphens",)
        The surface rules learned from the training pairs
        (:attr:`surface_rules_`) that :meth:`correct` and :meth:`predict` on
        sequences apply; ``"hyphens"`` by default, the one that held on every
        collection measured (the others help on some collections and harm on
        others: docs/correction.md, "Tuning"); ``()`` applies none.  Any of:

        * ``"punctuation"``: replace the punctuation before and after each word
          by what the training pairs show it usually stands for (OCR ``,.``
          for ``,``, a ``.`` before a lower-case word for nothing);
        * ``"case"``: recase a word as the training pairs show that word in
          that case pattern and position usually is (OCR ``In`` inside a
          sentence for ``in``);
        * ``"spacing"``: attach a token without a letter or digit to its
          neighbours or drop it, as the training lines show such a token in
          that place usually is (a dash spaced out by the OCR, ``there - for``
          -> ``there-for``; a stray ``•``).  Learned only from whole lines
          (sequences with ``""`` for the side of a column without a token:
          :func:`skocrcost.correction.token_pairs` with ``gaps=True``); in
          :meth:`predict` a token attached to the one before or dropped comes
          back as ``""``;
        * ``"capitals"``: read a capital the OCR wrote right after a small
          letter as the training pairs mostly show it, before correcting the
          word (ICDAR 2017's OCR writes ``ll`` as ``U``: ``aU`` -> ``all``, in
          495 of 526 such training words);
        * ``"hyphens"``: close up a lexicon word the OCR kept broken by a
          line-break hyphen where a half is a word (``pre-paid``, ``alto-gether``)
          where the training pairs mostly show such words closed up (ICDAR 2017's
          truth closes up 1,720 of 1,860 whose halves are not both words); a
          compound (``to-day``: both halves are words) only if the training
          truth writes it closed up over 10 times as often as with its hyphen.
          Without it, a word broken where neither half is a word
          (``moun-tains`` -> ``mountains``) is closed up where the training
          truth closes such words up more often than it keeps them;
        * ``"mixed_case"``: price a word the OCR wrote in mixed case (``aU``,
          ``wTas``) by :attr:`mixed_case_prior_`, whatever the lexicon says of
          its lower-cased form.

        Changing them needs no refit.
    min_confidence : float in [0, 1] or None, default=0.75
        Make a proposed change only when the learned probability that it gives
        its tokens their true words is at least this (see "Do no harm"); 0
        makes every change, higher values fewer and surer ones.  Changing it
        needs no refit.  None at ``fit`` learns no confidence (a faster fit) and
        makes every change.  With fewer than ``ChangeConfidence.MIN_CHANGES``
        (20) changes on the held-out lines to learn from, every change is made.
    n_jobs : int, optional
        Workers for :meth:`predict` and :meth:`correct`: None = 1 (unless a
        joblib context sets it), -1 = all cores.  A text of at least 2,000 lines
        (its lines, or all those of the strings passed to :meth:`predict`) is
        shared among as many worker processes, 500 lines at a time, each with a
        copy of the corrector (forked where the system allows); the caller first
        counts what is read over the whole text (each word's recurrences, the
        unknown words around each line), so the output is byte for byte that of
        ``n_jobs=1``.  What the processes add to the caches ends with the call.
        A shorter text, token sequences, and a call in a daemonic process (a
        ``multiprocessing.Pool`` worker) use as many threads in the candidate
        search and the beam search only.

    Attributes
    ----------
    estimator_ : EditCostEstimator
        The fitted clone.
    lexicon_ : list of str
    neighbors_ : EditDistanceNeighbors
        The index of the lexicon under ``estimator_.metric_``.
    log_prior_ : ndarray of float64, shape (n_words,)
        ``ln P(w)`` of every word of ``lexicon_``, in its order.
    log_oov_ : float
        ``ln P(out of lexicon)``.
    spelling_ : object
        The spelling model of out-of-lexicon tokens: ``spelling_.surprisal(x)``
        is ``-ln P_spell(x)`` (character bigrams with the start and end of the
        token, each smoothed by a pseudo-count of 0.1; trained on all truth
        tokens when none is missing from the lexicon).
    scale_ : float
        ``Z``, nats per unit of edit cost.
    language_model_ : KatzBackoffLM or None
        The fitted clone of ``language_model``.
    variants_ : object or None
        The spelling-variant channel: ``variants_.pairs`` the (variant, lexicon
        word) pairs learned from, ``variants_.estimator_`` the fitted clone of
        ``estimator``, ``variants_.log_share`` ``ln P(variant)`` (the share of
        truth tokens that are such variants) and ``variants_.surprisal(x,
        words)`` ``Z_v * cost_v(x, w) - ln P(variant)`` for each ``w``.  None
        when no truth word gives a pair (then ``variant_weight`` changes nothing).
    real_word_counts_ : dict
        ``{word: (right, seen)}`` for each lexicon word in the OCR of the
        training word pairs (as looked up: lower-cased unless a lexicon word):
        how often it was seen and how often it was right; read with
        ``real_word_smoothing``.
    mixed_case_prior_ : float
        The share of the training words the OCR wrote in mixed case (a capital
        after a small letter, ``aU``; lexicon words as listed aside) that are
        right as written, smoothed as ``(right + 1) / (n + 2)``: with the
        ``"mixed_case"`` rule the decoder of :meth:`correct` and of sequences in
        :meth:`predict` keeps such a word at ``-ln mixed_case_prior_`` and changes it at ``-ln(1 -
        mixed_case_prior_)`` plus the channel cost, whatever the lexicon says
        of its lower-cased form (``aU`` for ``all`` reads as the lexicon word
        ``au``, yet 0 of 172 such OCR words of ICDAR 2017 are right).
    keep_old_spellings_ : bool
        Whether the training truth keeps early modern spellings (``haue``,
        ``vpon``, ``backe``) rather than modernising them (see "Spelling
        variants"): True unless more of its pairs modernise the OCR's spelling
        than keep such spellings.  When True, :meth:`correct` never modernises
        a spelling.
    written_forms_ : dict
        ``{word: its capitalised form}`` for the words the training truth
        writes with a capital inside a sentence (``i`` -> ``I``, ``london``
        -> ``London``; at least 5 times there, 90% of them so): a word the
        corrector puts in place of an OCR word that has no capital is written
        so.
    letter_digits_ : str
        The digits that, standing alone as an OCR word, the training pairs
        mostly had as a word (``1`` for ``I`` in early modern print; at least
        5 times, and more often than as the digit): :meth:`correct` reads such
        a digit as a word, in its context.
    confidence_ : object or None
        The learned confidence of changes (see "Do no harm"): ``n_changes_``
        labelled changes learned from, ``helpful_share_`` the share of them that
        helped, ``model_`` the classifier (scikit-learn's
        ``HistGradientBoostingClassifier``).  None when ``min_confidence`` was
        None at fit or there were too few changes to learn from.
        :meth:`fit_confidence` learns it anew from lines of the collection
        to correct.
    surface_rules_ : object
        What the punctuation and case of an OCR word stand for, learned from
        the training pairs whose cores agree ignoring case
        (:class:`skocrcost.correction.SurfaceRules`): ``.lead`` maps an OCR
        word's leading punctuation to the truth's, ``.trail`` its trailing
        punctuation and what follows it (``"end"`` of the line, a word with a
        ``"capital"``, a ``"lower"``-case word, ``"other"``), ``.case`` the
        word, its case pattern and whether it starts a sentence to the truth's
        case pattern, ``.spacing`` a token without a letter or digit, what
        precedes and what follows it to the way the truth spaces it
        (``"left"``, ``"right"``, ``"both"``: attached to those neighbours;
        ``"drop"``), ``.join`` what ends the first of two tokens that the truth
        writes as one word (``""``: a word, ``"-"``: a line-break hyphen) to
        ``"-"`` where the truth mostly writes that word with a hyphen where the
        two meet (``de sired`` for ``de-sired``), ``.capitals`` a capital after
        a small letter to what the truth has in its place (``U`` -> ``ll``),
        ``.hyphen`` a line-break hyphen the OCR kept inside a lexicon word to
        ``""`` where the truth mostly closes such words up (key ``"-"``; key
        ``"broken"``: the words neither of whose halves is a word; ``.written``:
        how often the truth writes each lexicon and hyphenated word);
        each where the truth's most frequent value differs, is the majority and
        occurs at least 3 times.  Used with the ``rules`` ``"punctuation"``,
        ``"case"`` and ``"spacing"``; ``.join`` with ``join_cost``,
        ``.capitals`` with ``"capitals"``, ``.hyphen`` with ``"hyphens"``
        (``"broken"`` always).

    Examples
    --------
    The one-call path: line pairs in, corrected lines out.

    >>> from skocrcost import OCRCorrector, word_error_rate
    >>> from skocrcost.datasets import load_icdar2017_sample
    >>> ocr, truth = load_icdar2017_sample("lines")
    >>> fixer = OCRCorrector().fit(ocr[:2000], truth[:2000])
    >>> fixed = fixer.predict(ocr[2000:2300])
    >>> word_error_rate(truth[2000:2300], fixed) < word_error_rate(truth[2000:2300], ocr[2000:2300])
    True
    >>> fixer.correct("Tbe Church of Englaud")
    'Tbe Church of England'

    Every change proposed, with its confidence: one below ``min_confidence``
    (0.75) is listed for review, not made.

    >>> text, changes = fixer.correct("Tbe Church of Englaud", return_confidence=True)
    >>> [(c.original, c.corrected, round(c.confidence, 2), c.applied) for c in changes]
    [('Tbe', 'The', 0.31, False), ('Englaud', 'England', 0.92, True)]

    Small examples, on tokens (a token is a line of one word):

    >>> from skocrcost import EditCostEstimator
    >>> ocr = ["tbe", "the", "cow", "c0w", "tbe", "Smyth"]
    >>> truth = ["the", "the", "cow", "cow", "the", "Smyth"]
    >>> fixer = OCRCorrector(EditCostEstimator(k=0.5), lexicon=["the", "cow"]).fit(ocr, truth)
    >>> fixer.predict(["tbe", "c0w", "cow", "Smyth"]).tolist()
    ['the', 'cow', 'cow', 'Smyth']
    >>> fixer.correct("Tbe c0w, thecow")
    'The cow, thecow'
    >>> fixer = fixer.set_params(decoder__split_cost=1.0, decoder__join_cost=1.0)
    >>> fixer.correct("Tbe c0w, thecow c ow")
    'The cow, the cow cow'

    A truth that keeps early modern spellings (``vnto``, ``vpon``, ``vse``, not in
    the lexicon) makes a corrector that keeps them: ``vnworthy`` stays while the
    OCR error ``unwortby`` is corrected.  The same words teach the variant channel.

    >>> ocr = ["vnto", "vpon", "vse", "tbe", "the", "unwortby", "unworthy"]
    >>> truth = ["vnto", "vpon", "vse", "the", "the", "unworthy", "unworthy"]
    >>> words = ["unto", "upon", "use", "unworthy", "the"]
    >>> fixer = OCRCorrector(EditCostEstimator(k=0.1), lexicon=words).fit(ocr, truth)
    >>> fixer.keep_old_spellings_
    True
    >>> fixer.predict(["vnworthy", "unwortby"]).tolist()
    ['vnworthy', 'unworthy']
    >>> fixer.variants_.pairs
    [('vnto', 'unto'), ('vpon', 'upon'), ('vse', 'use')]

    Fitted on the tokens of lines (one list per line, punctuation and all), it also
    learns what OCR punctuation stands for; the ``"punctuation"`` rule applies it.

    >>> ocr = [["Tbe", "cat,.", "sat"], ["tbe", "dog,.", "ran"], ["The", "hat,.", "fell"]]
    >>> truth = [["The", "cat,", "sat"], ["the", "dog,", "ran"], ["The", "hat,", "fell"]]
    >>> words = ["the", "cat", "dog", "hat", "sat", "ran", "fell"]
    >>> fixer = OCRCorrector(EditCostEstimator(k=0.5), lexicon=words).fit(ocr, truth)
    >>> fixer.surface_rules_.trail
    {(',.', 'lower'): ','}
    >>> fixer.correct("Tbe dog,. fell")
    'The dog,. fell'
    >>> fixer.set_params(rules=["punctuation"]).correct("Tbe dog,. fell")
    'The dog, fell'
    """

    _requires_y = True  # learns from (OCR, truth) pairs

    _parameter_constraints = {
        "estimator": [HasMethods(["fit"]), None],
        "lexicon": ["array-like", StrOptions({"english"}), None],
        "language_model": [HasMethods(["fit", "log_probabilities"]), StrOptions({"katz"}), None],
        "decoder": [Decoder, None],
        "rules": [list, tuple, set, frozenset],
        "min_confidence": [Interval(Real, 0, 1, closed="both"), None],
        "n_jobs": [Integral, None],
    }

    def __init__(
        self,
        estimator=None,
        *,
        lexicon="english",
        language_model="katz",
        decoder=None,
        rules=("hyphens",),
        min_confidence=0.75,
        n_jobs=None,
    ):
        self.estimator = estimator
        self.lexicon = lexicon
        self.language_model = language_model
        self.decoder = decoder
        self.rules = rules
        self.min_confidence = min_confidence
        self.n_jobs = n_jobs

    def get_params(self, deep=True):
        """The parameters; with ``deep``, the decoder's weights as ``decoder__<weight>``,
        those of ``Decoder()`` while ``decoder`` is None (what :meth:`set_params` sets)."""
        params = super().get_params(deep=deep)
        if deep and self.decoder is None:
            params.update((f"decoder__{k}", v) for k, v in Decoder().get_params().items())
        return params

    def set_params(self, **params):
        """Set the parameters; ``decoder__<weight>`` also works while ``decoder`` is
        None (it then starts from ``Decoder()``)."""
        if self.decoder is None and "decoder" not in params:
            if any(name.startswith("decoder__") for name in params):
                self.decoder = Decoder()
        return super().set_params(**params)

    def _weights(self):
        """The decoder's weights: ``decoder``, or ``Decoder()`` for None."""
        if self.decoder is None:
            return Decoder()
        if not isinstance(self.decoder, Decoder):  # (set after fit: fit validates it)
            raise TypeError(f"decoder must be a Decoder or None, got {self.decoder!r}")
        return self.decoder

    def fit(self, X, y):
        """Learn from (OCR, truth) line pairs: costs, lexicon index, language model, priors,
        rules and the confidence of changes.

        Parameters
        ----------
        X : sequence of str, or sequence of sequences of str
            OCR lines (a token is a line of one word), whose tokens ``fit``
            aligns with the truth's itself (:func:`~skocrcost.correction.align_tokens`); or token
            sequences (the tokens of one line each, one truth token per OCR
            token, ``""`` for a token only one side has).
            Lines are read as :meth:`correct` reads them: each pair of
            tokens gives the pairs of words of its cores (punctuation stripped,
            cut at inner punctuation such as hyphens), each word as it is looked
            up (lower-cased unless it is a ``lexicon`` word), and the costs and
            word prior are learned from those; a pair of tokens with more words
            on one side, or words whose lengths differ by more than a third, is
            a split or merged word and is left out
            (:func:`skocrcost.correction.training_words`).  The
            punctuation and case rules are learned from the tokens as they are.
            Last, the candidates of the ``FREQUENT_WORDS`` (20,000) most frequent
            words of the truth are searched, so that correcting new text searches
            only its rarer words (this takes 1-2 s, and saved files keep them).
        y : sequence of str, or sequence of sequences of str
            The true lines, shaped like ``X``.

        Returns
        -------
        self
        """
        return self._fit(X, y)._search_frequent_words()

    def _fit(self, X, y):
        """:meth:`fit` without searching the frequent words' candidates (for the
        correctors fitted inside a fit, which correct a few lines each)."""
        validate_params(self)
        weights = self._weights()
        validate_params(weights)
        for name in ("prior_weight", "reject_margin"):
            value = getattr(weights, name)
            if value is not None and not math.isfinite(value):
                raise ValueError(f"{name} must be finite, got {value!r}")
        self._check_correct_params()
        X_seq, y_seq = _paired_sequences(X, y)
        lexicon = in_lexicon = None
        if isinstance(self.lexicon, str):  # "english"
            lexicon = _english_lexicon(y_seq)
            in_lexicon = set(lexicon)
        elif self.lexicon is not None:
            lexicon = list(dict.fromkeys(check_strings(self.lexicon, "lexicon")))
            in_lexicon = set(lexicon)
        X, y = training_words([t for seq in X_seq for t in seq], [t for seq in y_seq for t in seq])
        if not X:
            raise ValueError(
                "X has no pair of words to learn from (tokens without a word, or "
                "only split and merged words); at least one is needed"
            )
        mixed_case_prior = _mixed_case_prior(X, y, in_lexicon)  # before lower-casing
        if lexicon is not None:
            # Each word of the sequences as correct() looks it up: lower-cased unless a
            # lexicon word, so the channel learns misread letters, not capitals.
            X, y = ([w if w in in_lexicon else w.lower() for w in z] for z in (X, y))
        truth_counts = Counter(y)
        if lexicon is None:
            # Most frequent first (ties: first seen), the tie-break convention.
            lexicon = sorted(truth_counts, key=truth_counts.get, reverse=True)
            in_lexicon = set(lexicon)
        estimator = clone(self.estimator if self.estimator is not None else EditCostEstimator())
        estimator.fit(X, y)
        language_model = None
        if self.language_model is not None:
            # A clone, so that GridSearchCV can tune language_model__discount.
            lm = self.language_model
            lm = KatzBackoffLM(order=3) if isinstance(lm, str) else clone(lm)
            sentences = [lm_sentence(" ".join(seq)) for seq in y_seq]
            language_model = lm.fit(sentences, None)

        counts = np.array([truth_counts.get(w, 0) for w in lexicon], dtype=float)
        log_prior = np.log(counts + 1.0) - math.log(counts.sum() + len(lexicon))
        n_oov = len(y) - int(counts.sum())
        outside = [w for w in y if w not in in_lexicon]
        channel = getattr(estimator, "channel_", None)
        confidence = self._fit_confidence(X_seq, y_seq) if self.min_confidence is not None else None
        return self._set_fitted(
            estimator=estimator,
            lexicon=lexicon,
            log_prior=log_prior,
            seen=np.flatnonzero(counts > 0),
            language_model=language_model,
            log_oov=math.log((n_oov + 1.0) / (len(y) + 2.0)),
            spelling=_Spelling(outside or y),  # what words missing from the lexicon look like
            variants=SpellingVariants(estimator).fit(y, lexicon),
            surface_rules=SurfaceRules(X_seq, y_seq, in_lexicon),
            real_word_counts=_real_word_counts(X, y, in_lexicon),
            mixed_case_prior=mixed_case_prior,
            keep_old_spellings=keeps_old_spellings(X, y, lexicon),
            written_forms=written_forms(y_seq),
            letter_digits=letter_digits(X_seq, y_seq),
            scale=float(channel.normaliser) if channel is not None else 1.0,
            confidence=confidence,
        )

    def _set_fitted(self, *, estimator, lexicon, log_prior, seen, confidence, **parts):
        """Set every fitted attribute, from the learned parts (by fit, or read by load);
        the lexicon's search indexes are built here.  All at the end: a failed refit
        keeps the previous state."""
        neighbors = EditDistanceNeighbors(metric=estimator, n_jobs=self.n_jobs).fit(lexicon)
        is_seen = np.zeros(len(lexicon), dtype=bool)
        is_seen[seen] = True
        candidate_indexes = self._candidate_indexes(neighbors, lexicon, is_seen)
        if candidate_indexes["seen_neighbors"] is not None:  # their priors, in cost units
            candidate_indexes["seen_priors"] = -log_prior[is_seen] / parts["scale"]
        self.estimator_ = estimator
        self.lexicon_ = lexicon
        self.neighbors_ = neighbors
        self._candidate_indexes_ = candidate_indexes
        self.log_prior_ = log_prior
        for name, value in parts.items():
            setattr(self, f"{name}_", value)
        self._caches_ = {}
        # The most frequent words of the training truth, whose candidates fit searches.
        self._frequent_words_ = seen[np.argsort(-log_prior[seen], kind="stable")][
            : self.FREQUENT_WORDS
        ]
        self._word_candidates_ = None
        if confidence is not None:
            # this corrector's parts, read as the confidence learned them
            confidence.features = self._change_features(
                confidence.relative_noise, confidence.nearby_recurrence
            )
        self.confidence_ = confidence
        return self

    # Most tokens of any text are among the most frequent words of the training truth
    # (its 20,000 most frequent hold 89-96% of the lexicon words of 500 new lines of
    # each collection in benchmarks/): fit finds their candidates once, so that a first
    # pass over new text searches only its rarer words, and worker processes share them.
    FREQUENT_WORDS = 20_000

    def _search_frequent_words(self):
        """Find the candidates of the ``FREQUENT_WORDS`` most frequent training words as
        the decoder with the fitted parameters does (``_word_candidates_``:
        the decoder's search settings and ``{word: (candidates, costs)}``)."""
        decoder = self._decoder()
        words = [self.lexicon_[i] for i in self._frequent_words_]
        decoder.candidates(words)
        found = {w: decoder._cache[w] for w in words}
        self._word_candidates_ = (self._search_settings(decoder), found)
        return self

    @staticmethod
    def _search_settings(decoder):
        """What a decoder's candidates depend on, other than the fitted indexes."""
        return (decoder.n_candidates, decoder.max_cost, decoder.real_word_max_cost)

    # Lines of the training pairs held out to learn the confidence of changes: every
    # CONFIDENCE_EVERY-th block of CONFIDENCE_BLOCK lines (a block shares a document),
    # at most CONFIDENCE_LINES of them, spread over the blocks.  More lines teach the
    # classifier more changes: with 6,000 rather than 2,000, no collection of
    # benchmarks/cross_collection.py ends with more word errors than its OCR, for the
    # same mean cut (docs/correction.md).
    CONFIDENCE_BLOCK = 50
    CONFIDENCE_EVERY = 5
    CONFIDENCE_LINES = 6000
    # Which of the CONFIDENCE_EVERY sets of blocks is held out (0: the last block of each
    # run of CONFIDENCE_EVERY).  The confidence depends on the changes it learns from:
    # benchmarks/cross_collection.py --confidence-fold measures by how much.
    CONFIDENCE_FOLD = 0

    def _fit_confidence(self, X_seq, y_seq):
        """The confidence of changes, learned from the corrections that a corrector
        fitted on the other lines makes to held-out training lines (None when there
        are too few lines to hold some out, or their corrections make fewer than
        ``ChangeConfidence.MIN_CHANGES`` changes to learn from)."""
        block, every = self.CONFIDENCE_BLOCK, self.CONFIDENCE_EVERY
        n = len(X_seq)
        if n < 2 * every:
            return None
        block = min(block, max(1, n // (2 * every)))
        fold = every - 1 - self.CONFIDENCE_FOLD % every
        held = [i for i in range(n) if (i // block) % every == fold]
        held = spread_blocks(held, self.CONFIDENCE_LINES, block)
        chosen = set(held)
        rest = [i for i in range(n) if i not in chosen]
        sub = clone(self).set_params(min_confidence=None)
        try:
            sub._fit([X_seq[i] for i in rest], [y_seq[i] for i in rest])
        except ValueError:  # nothing to learn from in the other lines
            return None
        confidence = sub._confidence_from([X_seq[i] for i in held], [y_seq[i] for i in held])
        return confidence if confidence.n_changes_ >= confidence.MIN_CHANGES else None

    def _confidence_from(self, X_seq, y_seq):
        """The confidence learned from the changes this corrector's decoder makes to the
        token sequences ``X_seq`` (every change made), labelled by ``y_seq``."""
        # The OCR tokens of the lines, each with its truth token ("" for none).
        columns = [
            [(o, t) for o, t in zip(xs, ys, strict=True) if o] for xs, ys in zip(X_seq, y_seq)
        ]
        sequences = [[o for o, _ in c] for c in columns]
        truth = [[t for _, t in c] for c in columns]
        corrected = self._decoder().correct_tokens(sequences)
        return ChangeConfidence(self._change_features()).fit(sequences, corrected, truth)

    def fit_confidence(self, X, y):
        """Learn the confidence of changes anew from line pairs of the collection to correct.

        The confidence that :meth:`fit` learns judges a change by how such
        changes fared on held-out training lines; on a collection unlike them
        it tells helpful changes from harmful ones less well, and holds back
        many that help.  A few hundred transcribed lines of the collection
        itself teach it how this corrector's changes fare there: the corrector
        corrects ``X`` (every change made), each change is labelled by whether
        it gives its tokens their true words in ``y``, and the classifier is
        learned from those changes alone.  The rest of the corrector (costs,
        lexicon, language model, rules, ``min_confidence``) is kept: fit it on
        other collections' pairs, or take a shipped one
        (:func:`~skocrcost.datasets.pretrained_corrector`), then call this.

        Parameters
        ----------
        X : sequence of str, or sequence of sequences of str
            OCR lines of the collection (or token sequences), as :meth:`fit`
            takes them; lines the corrector will not be asked to correct.
            About 500, from several documents: from fewer the classifier
            learns from too few changes and may let harmful ones through
            (the user guide's "A few hundred lines of your own" measures it).
        y : sequence of str, or sequence of sequences of str
            Their truth, shaped like ``X``.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            If the corrector makes fewer than 20 changes to ``X`` (then nothing
            is changed): give more lines.

        Examples
        --------
        >>> from skocrcost.datasets import load_icdar2017_sample, pretrained_corrector
        >>> ocr, truth = load_icdar2017_sample("lines")
        >>> fixer = pretrained_corrector().fit_confidence(ocr[:300], truth[:300])
        >>> fixer.confidence_.n_changes_ >= 20
        True
        """
        check_is_fitted(self)
        confidence = self._confidence_from(*_paired_sequences(X, y))
        if confidence.n_changes_ < confidence.MIN_CHANGES:
            raise ValueError(
                f"the corrector makes {confidence.n_changes_} changes to X, fewer than the "
                f"{confidence.MIN_CHANGES} needed to learn from: give more lines"
            )
        self.confidence_ = confidence
        return self

    def _lexicon_words(self):
        """:attr:`lexicon_` as a set, one per fitted or loaded corrector, which the decoders
        and the confidence's features share (100,000 words: 14 ms to build, 4 MB)."""
        caches = self.__dict__.setdefault("_caches_", {})
        if "words" not in caches:
            caches["words"] = set(self.lexicon_)
        return caches["words"]

    def _change_features(self, relative_noise=True, nearby_recurrence=True):
        return ChangeFeatures(
            self._lexicon_words(),
            self.language_model_,
            self.estimator_.metric_,
            self.scale_,
            self.spelling_,
            relative_noise,
            nearby_recurrence,
        )

    def _review(self, record=None, facts=None):
        """The decoder's review of its changes: those below ``min_confidence`` taken
        back, each listed in ``record`` if given (None: every change made, unlisted);
        ``facts``: as for :meth:`ChangeConfidence.review`."""
        confidence = self._confidence()
        if confidence is None:
            if record is None:
                return None
            return partial(UNREVIEWED.review, threshold=None, record=record)
        return partial(confidence.review, threshold=self.min_confidence, record=record, facts=facts)

    def _confidence(self):
        """The confidence that reviews the decoder's changes, or None."""
        return None if self.min_confidence is None else getattr(self, "confidence_", None)

    def _candidate_indexes(self, neighbors, lexicon, seen):
        """Where the running-text decoder finds its candidates (:meth:`_decoder`).

        The nearest words by edit cost alone are mostly rare words of a large
        lexicon, so the decoder also takes the likeliest of the nearest lexicon
        words seen in the training truth (``seen_priors``, set by
        :meth:`_set_fitted`).  The index cannot read multi-character edits
        (``estimator__max_token_length >= 2``) and falls back to brute force,
        so then both indexes use the costs without them (an upper bound: the
        edits only add cheaper alignments) and the decoder rescores the words
        found with the full metric, with the lexicon words each word becomes with
        one of the edits undone (``ad`` -> ``all``: OCR ``d`` for ``ll``), which
        the indexes could miss
        (:meth:`skocrcost.correction.NoisyChannelDecoder.candidates`).
        """
        metric = neighbors.metric_
        retrieval = metric
        if isinstance(metric, WeightedLevenshtein) and metric.costs.rules:
            retrieval = WeightedLevenshtein.from_tables(replace(metric.costs, rules=()))
        seen_words = [w for w, s in zip(lexicon, seen, strict=True) if s]
        index = neighbors
        if retrieval is not metric:
            index = EditDistanceNeighbors(metric=retrieval, n_jobs=self.n_jobs).fit(lexicon)
        searched = 0 < len(seen_words) < len(lexicon)
        return {
            "neighbors": index,
            "seen_neighbors": (
                EditDistanceNeighbors(metric=retrieval, n_jobs=self.n_jobs).fit(seen_words)
                if searched
                else None
            ),
            # each lexicon word's index among the seen words (kept in lexicon order)
            "seen_position": np.where(seen, np.cumsum(seen) - 1, -1) if searched else None,
            "metric": metric if retrieval is not metric else None,
        }

    def __sklearn_is_fitted__(self):
        return hasattr(self, "neighbors_")

    def _check_correct_params(self):
        """The parameters only the running-text decoder uses, checked again when it runs
        (set_params may have changed them since fit)."""
        w = self._weights()
        check_number(w.lm_weight, "lm_weight", low=0)  # also refuses NaN, inf and booleans
        check_number(w.real_word_prior, "real_word_prior", low=0, low_open=True, high=1)
        if w.real_word_smoothing is not None:
            check_number(w.real_word_smoothing, "real_word_smoothing", low=0, low_open=True)
        check_number(w.recurrence_weight, "recurrence_weight", low=0)
        check_number(w.variant_weight, "variant_weight", low=0)
        check_number(w.beam_width, "beam_width", low=1, integer=True)  # refuses booleans
        check_rules(self.rules)
        for name in ("split_cost", "join_cost"):
            if getattr(w, name) is not None:
                check_number(getattr(w, name), name)  # refuses NaN, inf and booleans
        lm = self.language_model
        if (
            lm is not None
            and lm != "katz"
            and (isinstance(lm, type) or not callable(getattr(lm, "log_probabilities", None)))
        ):
            raise TypeError(
                "language_model must be a KatzBackoffLM instance (an estimator with fit and "
                f"log_probabilities), got {lm!r}"
            )

    def _keep_score(self, x):
        """``-ln P(out of lexicon) - ln P_spell(x)``: the score of leaving ``x`` as it is."""
        return -self.log_oov_ + self.spelling_.surprisal(x)

    def _variant_offset(self):
        """``-ln(variant_weight)`` nats, inf when variants are off or were not learned."""
        w = self._weights()
        check_number(w.variant_weight, "variant_weight", low=0)  # set_params may change it
        if self.variants_ is None or w.variant_weight == 0:
            return math.inf
        return -math.log(w.variant_weight)

    def kneighbors(self, X, n_neighbors=None, return_distance=True):
        """The candidate words of each token, best first by the corrector's score.

        Parameters
        ----------
        X : sequence of str
        n_neighbors : int, optional
            Candidates per token; defaults to ``n_candidates`` (at most the lexicon size).
        return_distance : bool, default=True

        Returns
        -------
        scores : ndarray of float64, shape (n_tokens, n_neighbors)
            ``Z * cost - prior_weight * ln P(w)`` in nats, ascending; only when
            ``return_distance``.
        indices : ndarray of int64, shape (n_tokens, n_neighbors)
            Into :attr:`lexicon_`; ties by the edit cost, then lexicon order.
        """
        w = self._weights()
        check_is_fitted(self)
        X = check_strings(X, "X", allow_empty=True)
        k = w.n_candidates if n_neighbors is None else n_neighbors
        k = min(k, len(self.lexicon_)) if n_neighbors is None else k
        cost, ind = self.neighbors_.kneighbors(X, k)
        scores = self.scale_ * cost - w.prior_weight * self.log_prior_[ind]
        order = np.argsort(scores, axis=1, kind="stable")
        scores = np.take_along_axis(scores, order, axis=1)
        ind = np.take_along_axis(ind, order, axis=1)
        return (scores, ind) if return_distance else ind

    def predict(self, X):
        """The corrected lines (or token sequences).

        Parameters
        ----------
        X : sequence of str, or sequence of sequences of str
            OCR lines (a string may hold several, separated by newlines; a
            token is a line of one word), corrected as :meth:`correct`
            corrects running text, all of them read as one text (a word's
            recurrences and the noise around each line are counted over all
            of them; with ``n_jobs`` above 1, a text of 2,000 lines or more is
            shared among worker processes, with the same output); or token
            sequences (the tokens of one line each), corrected left to right
            the same way, the corrected previous tokens of the sequence as the
            language model's context.  With ``split_cost`` a token may come
            back as words separated by a space, with ``join_cost`` empty
            (joined to the token before it).

        Returns
        -------
        ndarray of str (object dtype), shape (n_samples,), or list of lists of str
            The corrected lines; for sequences, one list of tokens per sequence.

        Examples
        --------
        >>> from skocrcost.datasets import pretrained_corrector
        >>> pretrained_corrector().predict(["tbe Church of Englaud", "a"]).tolist()
        ['the Church of England', 'a']
        """
        check_is_fitted(self)
        if _is_sequences(X):
            sequences = [check_strings(s, f"X[{i}]", allow_empty=True) for i, s in enumerate(X)]
            corrected = self._decoder().correct_tokens(sequences)
            review = self._review()
            return corrected if review is None else review(sequences, corrected)
        X = check_strings(X, "X", allow_empty=True)
        return np.array(self._correct_texts(X), dtype=object)

    def _correct_texts(self, texts, record=None):
        """Each text corrected, the lines of all of them read as one text."""
        lines = [line for text in texts for line in text.split("\n")]
        corrected = iter(self._correct_lines(lines, record))
        return ["\n".join(next(corrected) for _ in text.split("\n")) for text in texts]

    def _correct_lines(self, lines, record=None):
        """The lines corrected as one text: in one batch (candidates shared), or, with
        ``n_jobs`` for more than one worker and at least ``MIN_BATCHES`` batches of
        ``BATCH_LINES`` lines (:mod:`skocrcost._workers`), a batch at a time in worker processes
        (:func:`skocrcost._workers.in_processes`).  Each batch then reads what the
        decoder and the review count over the whole text (the words' recurrences,
        the lines each core occurs on, the noise around each line), counted once before the
        batches start, by the same functions (the noise in a process of its own,
        where processes are forked, while the words are counted here): the same
        output either way.  Forked processes also start with the candidates of the
        words the text repeats, searched here.  ``record`` receives each change
        (see :meth:`correct`).
        """
        # (garbage collection skips what the process held before: _gc)
        with existing_objects_frozen(len(lines)):
            return self._correct_lines_frozen(lines, record)

    def _correct_lines_frozen(self, lines, record):
        decoder = self._decoder()  # (the parameters checked here, before any process starts)
        if (
            len(lines) < _workers.MIN_BATCHES * _workers.BATCH_LINES
            or (workers := n_workers(self.n_jobs)) == 1
            or not _workers.may_start()
        ):
            return decoder.correct_lines(lines, review=self._review(record))
        noise = None
        if self._confidence() is not None and _workers.forks():
            # counted in a process of its own meanwhile (forked, it has the lines): the
            # batches wait for both
            noise = _workers.started(_text_noise, self, None, lines)
        # (str.split: the decoder's tokens but the empty ones at a line's ends, which
        # count nothing; the lines' tokens are not all held at once)
        counts = decoder.word_counts(map(str.split, lines))
        if _workers.forks():
            # Every process meets the words the text repeats: their candidates are
            # searched here once, with every thread, and the processes start with them.
            bound = decoder.candidate_cache_size // 2
            decoder.candidates([w for w, n in counts.most_common(bound) if n > 1])
        noise = _text_noise(self, None, lines) if noise is None else noise()

        size = _workers.BATCH_LINES

        def batches():
            for a in range(0, len(lines), size):
                b = a + size
                # (the cores go to each process once: shared)
                part = None if noise is None else noise.lines(a, b)._replace(cores=None)
                yield (lines[a:b], part, record is not None), a

        shared = (counts, None if noise is None else noise.cores)
        out = []
        n_batches = -(-len(lines) // size)  # (no more processes than batches)
        run = _workers.in_processes(
            _correct_batch, self, batches(), min(workers, n_batches), shared
        )
        for (fixed, changes), a in run:
            out += fixed
            if record is not None:
                record += [change._replace(line=change.line + a) for change in changes]
        return out

    def correct(self, text, return_confidence=False):
        """Correct running text line by line, with the language model's context.

        Each whitespace token is split into leading punctuation, a core and
        trailing punctuation, and the core into words at its inner punctuation
        (hyphens, periods; not apostrophes).  Each word (as it is when it is a
        lexicon word, lower-cased otherwise) is compared with its
        ``n_candidates`` nearest lexicon words, scored in nats by
        ``Z * cost + lm_weight * -ln P_LM(w | corrected previous words of the
        line)``; an out-of-lexicon word is kept unless that score plus
        ``reject_margin`` beats ``keep(x)`` (see the class docstring),
        a lexicon word by the ``real_word_prior`` (the language model also
        scores keeping the word).
        Punctuation, case pattern and spacing are kept; words without a letter
        or longer than 64 characters are left alone.  Without a
        ``language_model`` the context-free word prior stands in for it.
        ``split_cost``, ``join_cost`` and ``recurrence_weight`` (see the
        parameters) also cut merged words, join split ones and trust spellings
        that recur in ``text``: pass a whole document at once.

        Parameters
        ----------
        text : str
            One or more lines.
        return_confidence : bool, default=False
            Also return every change the decoder proposed, with its learned
            confidence and whether it was made (``min_confidence``), so that a
            reviewer can look at the uncertain ones only.

        Returns
        -------
        str
            The corrected text.
        changes : list of Change
            Only with ``return_confidence``: each proposed change as a
            ``Change(line, start, stop, original, corrected, confidence,
            applied)``, ``line`` the index of the line in ``text`` and
            ``start:stop`` its whitespace tokens; ``confidence`` is NaN when
            the corrector learned none (``min_confidence=None`` at fit).
        """
        if not self.__sklearn_is_fitted__():  # (checked first: called once per line)
            check_is_fitted(self)
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        check_flag(return_confidence, "return_confidence")
        if not return_confidence:
            return self._correct_texts([text])[0]
        record = []
        return self._correct_texts([text], record)[0], record

    def correct_stream(self, lines, batch_size=_workers.BATCH_LINES):
        """Correct an iterable of lines lazily, a batch at a time, in order.

        For a file or a stream of any length: ``batch_size`` lines are read,
        corrected as one :meth:`predict` call and yielded before the next are
        read, as ``skocrcost correct`` reads a file.  So memory holds a batch or
        a few, a loop over a file's lines runs at the speed of ``predict`` on
        batches (nearly twice that of one :meth:`correct` call per line), and
        each line is read among the lines of its batch (their recurrences and
        noise), as ``predict`` reads a text.  With ``n_jobs`` for more than one
        worker, a stream of at least 4 batches is shared among worker processes,
        with the same output.

        Parameters
        ----------
        lines : iterable of str
            The lines, e.g. an open text file: a line's end (``"\\n"``) is kept.
        batch_size : int, default=500
            Lines per batch.

        Yields
        ------
        str
            Each line corrected.  An item that is not a str stops the stream
            with a TypeError naming it, the lines of the batches before it
            yielded.

        Examples
        --------
        >>> from skocrcost.datasets import pretrained_corrector
        >>> list(pretrained_corrector().correct_stream(["tbe Church of Englaud\\n", "a"]))
        ['the Church of England\\n', 'a']
        """
        check_is_fitted(self)
        kind = type(lines).__name__
        if isinstance(lines, (str, bytes)):  # (a str iterates over its characters)
            raise TypeError(f"lines must be an iterable of str, not a single {kind}")
        try:
            lines = iter(lines)
        except TypeError:
            raise TypeError(f"lines must be an iterable of str, got {kind}") from None
        batch_size = check_number(batch_size, "batch_size", low=1, integer=True)
        # (checked here, not at the first line: the generator below starts only then)
        return self._stream(lines, int(batch_size))

    def _stream(self, lines, size):
        batches = _checked_batches(lines, size)
        for fixed, _ in _workers.corrected(self, batches, n_workers(self.n_jobs)):
            yield from fixed

    def _decoder(self):
        """The running-text decoder with the current parameters (see :meth:`correct`),
        bound to the caches this fit's decoders share.

        Built once per thread and parameters (and kept in ``_caches_``, which a
        new fit empties), so that a loop of one :meth:`correct` call per line
        builds none: a thread's decoder keeps the state of its call while it
        runs, so threads do not share one.
        """
        caches = self.__dict__.setdefault("_caches_", {})
        # What it is built from: every attribute, the parameters and the fitted ones (a
        # new fit empties the caches, but an attribute may also be set by hand), and
        # the decoder's weights (set_params changes them in place); names and values.
        own, weights = self.__dict__, vars(self._weights())
        state = (*own, *own.values(), *weights, *weights.values())
        threads = n_threads(self.n_jobs)
        built = caches.setdefault("decoders", {})
        held = built.get(threading.get_ident())
        if (
            held is None
            or held[0] != threads
            or len(held[1]) != len(state)
            or not (  # (the same objects, as on every call but the first: the quick test)
                all(map(operator.is_, held[1], state)) or all(map(_unchanged, held[1], state))
            )
        ):
            if len(built) >= MAX_THREAD_DECODERS:  # threads come and go: bounded
                built.clear()
            held = built[threading.get_ident()] = (threads, state, self._new_decoder(threads))
        decoder = held[2]
        self._share_caches(decoder, caches)
        return decoder

    def _close_up(self):
        """The decoder's ``close_up``: words broken where neither half is a word,
        and with the ``"hyphens"`` rule the others (:meth:`SurfaceRules.close_up`);
        None when it would close nothing up."""
        rules, compounds = self.surface_rules_, "hyphens" in self.rules
        return partial(rules.close_up, compounds=compounds) if rules.closes_up(compounds) else None

    def _new_decoder(self, threads):
        """A running-text decoder with the current parameters, checked here."""
        w = self._weights()
        self._check_correct_params()
        lm = self.language_model_
        if lm is None:
            lm = _UnigramPrior(self.lexicon_, self.log_prior_, w.prior_weight)
        scale = self.scale_

        def reject(x):
            if w.reject_margin is None:
                return math.inf
            # Replace x only when score + reject_margin < keep(x), as in predict.
            return (self._keep_score(x) - w.reject_margin) / scale

        offset = self._variant_offset()
        if w.reject_margin is None:
            offset = math.inf  # never keep an out-of-lexicon word, as a variant either
        else:
            offset -= w.reject_margin  # the margin applies to every way of keeping x

        def variant(x, words):
            return self.variants_.surprisal(x, words) / scale

        decoder = NoisyChannelDecoder(
            words=self._lexicon_words(),
            normaliser=scale,
            language_model=lm,
            lm_weight=w.lm_weight if self.language_model_ is not None else 1.0,
            real_word_prior=w.real_word_prior,
            word_priors=self._word_priors(),
            reject_cost=reject,
            n_candidates=min(w.n_candidates, len(self.lexicon_)),
            split_cost=None if w.split_cost is None else w.split_cost / scale,
            join_cost=None if w.join_cost is None else w.join_cost / scale,
            recurrence_weight=w.recurrence_weight / scale,
            variant_cost=variant if self.variants_ is not None else None,
            variant_offset=offset / scale,
            beam_width=int(w.beam_width),
            mixed_case_prior=self.mixed_case_prior_ if "mixed_case" in self.rules else None,
            surface=self._surface(),
            join_hyphen=[end for end, way in self.surface_rules_.join.items() if way == "-"],
            recapitalise=self.surface_rules_.recapitalise if "capitals" in self.rules else None,
            close_up=self._close_up(),
            keep_spelling=self.keep_old_spellings_,
            written=self.written_forms_,
            letter_digits=self.letter_digits_,
            # Never keeping an unknown word: its best word is wanted however far it is.
            max_cost=MAX_COST if w.reject_margin is not None else math.inf,
            n_threads=threads,
            **self._candidate_indexes_,
        )
        for index in (decoder.neighbors, decoder.seen_neighbors):
            if index is not None:  # n_jobs set after fit (or on a loaded corrector) holds too
                index.n_jobs = self.n_jobs
        return decoder

    def _share_caches(self, decoder, caches):
        """Bind ``decoder`` to the caches of this fit (``caches``) for its parameters."""
        w = self._weights()
        # Candidates and language-model probabilities do not depend on the decoding
        # weights: every decoder of this fit shares them (per number of candidates and
        # the cost they are searched within).
        searched = self._search_settings(decoder)
        found = getattr(self, "_word_candidates_", None)
        if found is not None and found[0] == searched:
            decoder._known_candidates = found[1]
        shared = caches.get(searched)
        if shared is None or (
            10 * len(shared[0]) > 9 * decoder.candidate_cache_size
            or 10 * len(shared[2]) > 9 * decoder.lm_cache_size
        ):  # none yet, or nearly full: start afresh rather than overflow in every call
            shared = caches[searched] = (dict(decoder._known_candidates), {}, {})
        decoder._cache, decoder._variant_cache, decoder._lm_cache = shared
        # The context-free readings of words, and the words of tokens, depend on
        # parameters too: shared while these stay as they are.
        key = (
            decoder.n_candidates,
            w.real_word_prior,
            w.real_word_smoothing,
            w.reject_margin,
            "mixed_case" in self.rules,
            self.keep_old_spellings_,
            self.letter_digits_,  # (which tokens have words: the slots)
        )
        held = caches.get("readings")
        if held is None or held[0] != key or 10 * len(held[1]) > 9 * decoder.candidate_cache_size:
            held = caches["readings"] = (key, {}, {})
        decoder._readings_cache, decoder._slots_cache = held[1:]
        # And so do the compiled search's tables of them (with the language model's
        # vocabulary, and the variant costs, if any).
        laid = (key, decoder._uses_lm(), decoder.variant_offset != math.inf)
        layout = caches.get("layout")
        if layout is None or layout.key != laid:
            layout = caches["layout"] = Layout(laid)
        decoder._layout = layout

    def save(self, path):
        """Write the fitted corrector to a JSON file (gzip-compressed if ``path`` ends in ``.gz``).

        Every learned part is stored as numbers, strings and arrays: loading runs
        no code from the file (unlike a pickle), so a corrector file can be
        shared.  A lexicon built on the shipped English words (the default) is
        stored as the words the training truth added or ranked, not the whole list.

        Parameters
        ----------
        path : str or os.PathLike
        """
        check_is_fitted(self)
        _persist.save(self, path, english_words)

    @classmethod
    def load(cls, path):
        """Read a corrector written by :meth:`save`: it corrects exactly as the saved one.

        Examples
        --------
        >>> import os, tempfile
        >>> from skocrcost import OCRCorrector
        >>> from skocrcost.datasets import load_icdar2017_sample
        >>> X, y = load_icdar2017_sample("lines")
        >>> corrector = OCRCorrector(min_confidence=None).fit(X[:300], y[:300])
        >>> path = os.path.join(tempfile.mkdtemp(), "corrector.json.gz")
        >>> corrector.save(path)
        >>> back = OCRCorrector.load(path)
        >>> line = "tbe Church of Englaud"
        >>> back.correct(line) == corrector.correct(line)
        True
        """
        return _persist.load(cls, path, english_words)

    def __setstate__(self, state):
        # A corrector pickled before min_confidence existed learned no confidence.
        state.setdefault("min_confidence", None)
        state.setdefault("rules", tuple(pop_fix_flags(state)))  # pickled before rules existed
        decoder_as_saved(state, state.pop("_decoder_defaults", None))
        if "neighbors_" in state:
            state.setdefault("confidence_", None)
            state.setdefault("keep_old_spellings_", True)
            state.setdefault("written_forms_", {})  # pickled before these were learned
            state.setdefault("letter_digits_", "")
        found = state.get("_word_candidates_")
        if found is not None and not isinstance(found[1], dict):  # packed by __getstate__
            table = _persist.unpack_candidates(found[1], state["lexicon_"], "pickled corrector")
            state["_word_candidates_"] = (found[0], table)
        super().__setstate__(state)
        features = getattr(state.get("confidence_"), "features", None)
        if features is not None:  # the lexicon's set, unpickled with them: shared again
            self._caches_ = {"words": features.words}

    def __getstate__(self):
        state = dict(super().__getstate__())  # (a copy: it may be the object's __dict__)
        state.pop("_caches_", None)  # rebuilt on use
        state["_decoder_defaults"] = Decoder().get_params()  # what decoder=None stands for
        found = state.get("_word_candidates_")
        if found is not None:  # four arrays, not two per word (see pack_candidates)
            packed = _persist.pack_candidates(found[1], self.lexicon_)
            state["_word_candidates_"] = (found[0], packed)
        return state

    def _word_priors(self):
        """The decoder's real-word priors of single words (see ``real_word_smoothing``)."""
        w = self._weights()
        s, prior = w.real_word_smoothing, w.real_word_prior
        if s is None:
            return None
        return {
            w: (right + s * prior) / (seen + s)
            for w, (right, seen) in self.real_word_counts_.items()
        }

    def _surface(self):
        """The decoder's fixer of punctuation, case and spacing (None when all are off);
        the rules were checked by ``_check_correct_params``."""
        punctuation, case, spacing = (name in self.rules for name in SURFACE)
        if not (punctuation or case or spacing):
            return None
        return partial(
            self.surface_rules_.apply, punctuation=punctuation, case=case, spacing=spacing
        )

    def score(self, X, y):
        """``1 - word error rate`` of the corrected lines against the truth.

        The word error rate of :func:`skocrcost.correction.word_error_rate`,
        over all lines (token sequences are read as lines, their tokens joined
        by spaces): what users judge a correction by, so ``GridSearchCV`` and
        ``cross_val_score`` tune and measure that.

        Parameters
        ----------
        X : sequence of str, or sequence of sequences of str
            OCR lines (or token sequences), as for :meth:`predict`.
        y : sequence of str, or sequence of sequences of str
            Their truth, shaped like ``X``.

        Returns
        -------
        float
        """
        if _is_sequences(X):
            X, y = _check_sequence_pairs(X, y)
            hyp = [" ".join(t for t in seq if t) for seq in self.predict(X)]
            return 1.0 - word_error_rate([" ".join(t for t in seq if t) for seq in y], hyp)
        X, y = check_pairs(X, y)
        return 1.0 - word_error_rate(y, list(self.predict(X)))


def _text_noise(corrector, job, lines):
    """What the review reads of the whole text of ``lines`` (None: nothing)."""
    confidence = corrector._confidence()
    return None if confidence is None else confidence.text_facts([s.split() for s in lines])


def _checked_batches(lines, size):
    """``(batch, None)`` of ``size`` lines of the iterator ``lines`` at a time, as
    :func:`skocrcost._workers.corrected` takes them; TypeError at a line not a str."""
    start = 0
    while batch := list(islice(lines, size)):
        yield check_strings(batch, "lines", copy=False, first=start), None
        start += len(batch)


def _correct_batch(corrector, batch, shared):
    """Run by a worker process: ``(corrected lines, changes)`` of a batch of a text's
    lines, ``(lines, noise, recording)``: ``noise`` is the lines' part of the text's
    :class:`TextNoise` (None when nothing reviews the changes), its cores in
    ``shared`` with the text's word counts (``(counts, cores)``); ``changes`` is None
    unless ``recording``, its lines counted from the batch's first."""
    lines, noise, recording = batch
    counts, cores = shared
    record = [] if recording else None
    review = corrector._review(record, None if noise is None else noise._replace(cores=cores))
    return corrector._decoder().correct_lines(lines, review=review, counts=counts), record


def _paired_sequences(X, y):
    """``(X, y)`` checked and as paired token sequences: token sequences as they are,
    each pair of lines its tokens aligned, every column kept (``""`` for a gap), so
    that the rules see whole lines and the language model every truth token."""
    if _is_sequences(X):
        return _check_sequence_pairs(X, y)
    X, y = check_pairs(X, y)
    return token_pairs(X, y, gaps=True)


def _is_sequences(X):
    """Whether ``X`` holds token sequences (its first item is a list, tuple or array)."""
    if isinstance(X, (str, bytes, Mapping)) or not hasattr(X, "__len__") or len(X) == 0:
        return False  # (a mapping's X[0] is a key's value: check_strings refuses it)
    try:
        first = X[0] if not hasattr(X, "iloc") else X.iloc[0]
    except (TypeError, LookupError):  # not a sequence (a set): check_strings says so
        return False
    return isinstance(first, (list, tuple, np.ndarray))


def _check_sequence_pairs(X, y):
    """Token sequences ``X`` and ``y`` of matching lengths, as lists of lists of str."""
    if isinstance(y, (str, bytes)) or not hasattr(y, "__len__"):
        raise TypeError(f"y must be a sequence of token sequences like X, got {type(y).__name__}")
    if len(X) != len(y):
        raise ValueError(f"X and y must have the same length, got {len(X)} and {len(y)}")
    X_seq, y_seq = [], []
    for i, (a, b) in enumerate(zip(X, y, strict=True)):
        a = check_strings(a, f"X[{i}]", allow_empty=True)
        b = check_strings(b, f"y[{i}]", allow_empty=True)
        if len(a) != len(b):
            raise ValueError(
                f"X[{i}] and y[{i}] must have the same length, got {len(a)} and {len(b)}"
            )
        X_seq.append(a)
        y_seq.append(b)
    return X_seq, y_seq


def _english_lexicon(truth_sequences):
    """The shipped English words and the truth's words seen twice, lower-cased, most
    frequent in the truth first (ties: the word list's order)."""
    counts = Counter(w for seq in truth_sequences for w in lm_sentence(" ".join(seq)))
    frequent = [w for w, n in counts.items() if n >= 2 and any(c.isalpha() for c in w)]
    words = dict.fromkeys(english_words())
    words.update(dict.fromkeys(frequent))
    return sorted(words, key=lambda w: -counts.get(w, 0))


def english_words():
    """The shipped English words, lower-cased, each once, in the list's order."""
    return list(dict.fromkeys(w.lower() for w in load_english_words()))


def spread_blocks(indices, n, block):
    """At most ``n`` of ``indices``, in whole blocks of ``block`` consecutive ones spread
    evenly over them, from the first block to near the last: held-out lines that sample
    a whole collection (or every collection of lines that are several), a document's
    lines together."""
    indices = list(indices)
    if len(indices) <= n:
        return indices
    starts = range(0, len(indices), block)
    m = -(-n // block)  # (the blocks that hold n: at most len(starts), as n < len(indices))
    chosen = (starts[j * len(starts) // m] for j in range(m))
    return [i for s in chosen for i in indices[s : s + block]][:n]


# Threads that have corrected with one corrector, each with its own decoder (_decoder):
# more than this and the decoders are built afresh.
MAX_THREAD_DECODERS = 64


def _unchanged(before, now):
    """Whether a parameter or fitted attribute is as it was: the same object, or an
    equal number, string or tuple of the same type (True == 1.0, but
    ``lm_weight=True`` must be checked, and refused, again)."""
    return before is now or (
        type(before) is type(now) and isinstance(now, (int, float, str, tuple)) and before == now
    )

"""Decoder: the weights of the search over each line's readings, one part of OCRCorrector."""

from __future__ import annotations

from numbers import Integral, Real

from sklearn.base import BaseEstimator

from .._sklearn_compat import Interval

__all__ = ["Decoder"]


class Decoder(BaseEstimator):
    """The weights with which :class:`OCRCorrector` reads each line.

    A part of the corrector, as a pipeline's steps are parts of it: pass
    ``OCRCorrector(decoder=Decoder(lm_weight=2))``, or reach a weight as
    ``decoder__lm_weight`` in ``set_params`` and in a ``GridSearchCV`` or
    :class:`OCRCorrectorCV` grid.  Every weight but ``split_cost`` and
    ``join_cost`` is read only when the corrector decodes, so changing it needs
    no refit; set those two before ``fit``, since the confidence of changes
    learns from the cuts and joins the decoder makes.

    Parameters
    ----------
    n_candidates : int, default=5
        Nearest words (by edit cost) rescored with the prior; at most the lexicon size.
        :meth:`OCRCorrector.correct` reads each word against that many nearest lexicon
        words, and as many words seen in the training truth: the likeliest (by edit cost
        plus ``-ln P(w)``) of their 6 times as many nearest.
    prior_weight : float, default=1.0
        Weight of ``-ln P(w)``; 0 ranks by edit cost alone.
    reject_margin : float or None, default=0.0
        Nats by which the best word must beat keeping the token; None never keeps an
        out-of-lexicon token (always corrects to the best word, however far; otherwise
        the candidates are the nearest within a cost of 3 cost units, about three
        typical OCR errors, as the performance page says).
    lm_weight : float, default=1.0
        In :meth:`OCRCorrector.correct`, the weight of ``-ln P_LM(w | previous words)``
        (nats) against the channel surprisal ``Z * cost``.
    real_word_prior : float in (0, 1], default=0.99
        In :meth:`OCRCorrector.correct`, the prior probability that an OCR token which
        is a lexicon word is right (Mays, Damerau and Mercer 1991): keeping it costs
        ``-ln(prior)``, replacing it ``-ln(1 - prior)`` nats; 1 never replaces it.
    real_word_smoothing : float or None, default=None
        In :meth:`OCRCorrector.correct` and :meth:`OCRCorrector.predict` on sequences,
        give each lexicon word the OCR wrote in the training pairs a real-word prior of
        its own: ``(right + s * real_word_prior) / (seen + s)`` with ``s`` this value,
        from :attr:`OCRCorrector.real_word_counts_` (ICDAR 2017's OCR ``ad`` is ``all``
        in 51 of 55, ``hut`` is ``but`` in 128 of 137: real words, yet mostly wrong).
        ``s`` is the weight, in occurrences, of ``real_word_prior``, which words not
        seen keep.  None gives every word ``real_word_prior``.  Changing it needs no
        refit.
    split_cost : float or None, default=None
        In :meth:`OCRCorrector.correct` and :meth:`OCRCorrector.predict` on sequences,
        the nats of each cut when an out-of-lexicon word is read as two or more lexicon
        words (lost spaces: ``ofthe`` -> ``of the``, ``SirRobert`` -> ``Sir Robert``);
        the cut wins when its cost plus each word's real-word prior and language-model
        surprisal beats the best single word.  None never cuts.
    join_cost : float or None, default=3.0
        In :meth:`OCRCorrector.correct` and :meth:`OCRCorrector.predict` on sequences,
        the nats of joining two neighbouring tokens into one word (a spurious space,
        ``retu rned`` -> ``returned``, where the joined form must be a lexicon word and
        one of the two tokens must not be; or a line-break hyphen, ``pro- perty`` ->
        ``property``, where the joined form is corrected like any word), against the two
        tokens' own scores.  A joined token drops the space between them, and is written
        with a hyphen where they meet when the training lines mostly write such a join
        so (``surface_rules_.join``: ``de sired`` -> ``de-sired`` where the truth keeps
        the hyphens of the printed page's line ends); in :meth:`OCRCorrector.predict`
        the second token comes back as ``""``.  None never joins (where the ground
        truth keeps the hyphen and the space of a word broken at a line end).  Set
        ``split_cost`` and ``join_cost`` before :meth:`OCRCorrector.fit`: the
        confidence of changes learns from the cuts and joins the decoder then makes.
    recurrence_weight : float, default=0.0
        In :meth:`OCRCorrector.correct` and :meth:`OCRCorrector.predict`, the nats by
        which keeping an out-of-lexicon word gets cheaper per natural log of the number
        of times it occurs in the text being corrected (the whole ``text``, or all the
        lines or sequences passed): a spelling the text keeps using (``haue``,
        ``gouernment``, a name) may be right.  0, the default, ignores recurrences here:
        on noisy print a common word's misreading recurs too (``tlie`` for ``the``), and
        the confidence of changes already weighs how often the text repeats a word.
    variant_weight : float, default=0.0
        The weight of the spelling-variant reading of an out-of-lexicon token (see
        "Spelling variants" in :class:`OCRCorrector`): ``-ln(variant_weight)`` nats are
        added to its score, so 1 uses the learned ``P(variant)`` as it is, larger values
        keep more tokens as variants, and 0 switches variants off. Used by
        :meth:`OCRCorrector.predict` and :meth:`OCRCorrector.correct`; changing it needs
        no refit.
    beam_width : int, default=8
        In :meth:`OCRCorrector.correct` and :meth:`OCRCorrector.predict` on sequences,
        the hypotheses the search over a line's readings keeps after each word (the
        cheapest; those whose last two words agree merge first), so that a choice is
        judged by the words after it too; 1 is greedy left-to-right decoding, each word
        chosen once given the words before it.

    Examples
    --------
    >>> from skocrcost import OCRCorrector
    >>> from skocrcost.correction import Decoder
    >>> fixer = OCRCorrector(decoder=Decoder(lm_weight=2.0, reject_margin=3.0))
    >>> fixer.get_params()["decoder__lm_weight"]
    2.0
    >>> OCRCorrector().set_params(decoder__beam_width=4).decoder
    Decoder(beam_width=4)
    """

    _parameter_constraints = {
        "n_candidates": [Interval(Integral, 1, None, closed="left")],
        "prior_weight": [Interval(Real, 0, None, closed="left")],
        "reject_margin": [Interval(Real, None, None, closed="neither"), None],
        "lm_weight": [Interval(Real, 0, None, closed="left")],
        "real_word_prior": [Interval(Real, 0, 1, closed="right")],
        "real_word_smoothing": [Interval(Real, 0, None, closed="neither"), None],
        "split_cost": [Interval(Real, None, None, closed="neither"), None],
        "join_cost": [Interval(Real, None, None, closed="neither"), None],
        "recurrence_weight": [Interval(Real, 0, None, closed="left")],
        "variant_weight": [Interval(Real, 0, None, closed="left")],
        "beam_width": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        *,
        n_candidates=5,
        prior_weight=1.0,
        reject_margin=0.0,
        lm_weight=1.0,
        real_word_prior=0.99,
        real_word_smoothing=None,
        split_cost=None,
        join_cost=3.0,
        recurrence_weight=0.0,
        variant_weight=0.0,
        beam_width=8,
    ):
        self.n_candidates = n_candidates
        self.prior_weight = prior_weight
        self.reject_margin = reject_margin
        self.lm_weight = lm_weight
        self.real_word_prior = real_word_prior
        self.real_word_smoothing = real_word_smoothing
        self.split_cost = split_cost
        self.join_cost = join_cost
        self.recurrence_weight = recurrence_weight
        self.variant_weight = variant_weight
        self.beam_width = beam_width


# The weights OCRCorrector took one by one before they became a Decoder.
WEIGHTS = tuple(Decoder().get_params())


def decoder_as_saved(params, defaults):
    """Give ``params`` (a saved or pickled OCRCorrector's) the Decoder it was fitted
    with: the weights saved one by one (before they became a Decoder) moved into its
    ``"decoder"``, and a ``"decoder"`` of None made ``Decoder(**defaults)`` where
    ``defaults`` (``Decoder().get_params()`` when it was saved) are not today's, so
    that a corrector decodes as it did when saved.  ``defaults`` None: saved before
    they were stored, when ``join_cost`` was None by default."""
    now = Decoder().get_params()
    if defaults is None:
        defaults = {**now, "join_cost": None}
    saved = {name: defaults.get(name, value) for name, value in now.items()}
    flat = {name: params.pop(name) for name in WEIGHTS if name in params}
    if params.get("decoder") is None:
        decoder = Decoder(**{**saved, **flat})
        params["decoder"] = None if decoder.get_params() == now else decoder
    return params

"""EditCostEstimator: learn what each OCR character error costs from (OCR, truth) pairs."""

from __future__ import annotations

import math
import os
import warnings
from dataclasses import replace
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from . import _multichar, _persist, _smoothing
from ._counting import EditCounts
from ._kernels import GRID_BITS, EditKernel
from ._sklearn_compat import UNUSED, Hidden, Interval, StrOptions
from ._threads import n_threads
from ._validation import (
    FittedAttributesMixin,
    StringInputMixin,
    check_number,
    check_pairs,
    check_strings,
    validate_params,
)
from .edit_distance import WeightedEditDistance
from .metrics import WeightedLevenshtein

__all__ = ["EditCostEstimator"]


class _Rules(NamedTuple):
    """Multi-character edits: (source, target) pairs, their counts, their sources' counts."""

    found: list
    counts: object
    contexts: list

    def _logp(self, channel, k):
        return _multichar.rule_log_probs(self.counts, self.contexts, len(channel.vocabulary), k)

    def tables(self, channel, k):
        """The channel's cost tables with the rules' costs ``-ln P / Z``."""
        logp = self._logp(channel, k)
        costs = np.where(np.isfinite(logp), -logp / channel.normaliser, _smoothing.DEFAULT_COST)
        return replace(channel.cost_tables(), rules=self._with(costs))

    def log_tables(self, channel, k):
        """``-ln P`` of every edit, rules included (``inf`` where P = 0)."""
        return replace(channel.log_tables(), rules=self._with(-self._logp(channel, k)))

    def _with(self, costs):
        return tuple((s, t, float(c)) for (s, t), c in zip(self.found, costs, strict=True))

    def used(self):
        """The rules counted at least once (expected count > 0)."""
        keep = [i for i, c in enumerate(self.counts) if c > 0]
        return _Rules(
            [self.found[i] for i in keep],
            np.asarray(self.counts)[keep],
            [self.contexts[i] for i in keep],
        )

    def learned(self):
        as_number = int if np.issubdtype(np.asarray(self.counts).dtype, np.integer) else float
        return [(s, t, as_number(c)) for (s, t), c in zip(self.found, self.counts, strict=True)]


# transform() refuses outputs larger than this many bytes.
MAX_TRANSFORM_BYTES = 1 << 31

# EM stops when the mean log-likelihood per pair gains less than this (nats).
EM_TOL = 1e-7

ALIGNMENTS = ("viterbi", "forward")
# Deprecated names, kept working with a FutureWarning: old -> new.
RENAMED_PARAMS = {"aligner": "initial_metric", "alignment": "counting"}
RENAMED_MODELS = {"legacy": "bounded"}
DEPRECATED = "deprecated"  # the default of a renamed parameter: not passed


def check_resolution(resolution):
    """``resolution`` (a number in (0, 1], checked by the constraints) must be a power of two
    in [2**-30, 1]: on its multiples sums are exact."""
    value = resolution
    if not (value > 0 and math.frexp(value)[0] == 0.5 and 2.0**-GRID_BITS <= value <= 1):
        raise ValueError(
            f"resolution must be a power of 2 between 2**-{GRID_BITS} and 1 "
            f"(such as 2**-16), got {resolution!r}"
        )
    return value


def check_counting_aligner(aligner, name="aligner"):
    """Refuse an aligner whose alignments EditCounts cannot hold (rules, transpositions)."""
    if getattr(getattr(aligner, "costs", None), "general", False):
        raise ValueError(
            f"{name} must have single-character costs only: counting transpositions "
            "and multi-character edits is not supported"
        )


def count_edits(aligner, X, y, threads=1):
    """EditCounts of the cheapest alignments of the pairs (X[i], y[i]) under ``aligner``."""
    _, src, tgt, _ = aligner._align_batch(X, y, threads)
    return EditCounts.from_columns(src, tgt)


class EditCostEstimator(FittedAttributesMixin, StringInputMixin, TransformerMixin, BaseEstimator):
    """Learn edit costs from (OCR, truth) pairs by smoothed surprisal.

    Every pair is aligned (by default with unit-cost Levenshtein) and the
    substitutions ``s -> t``, deletions (an OCR character with no truth
    counterpart), insertions (a truth character missing from the OCR) and
    matches are counted.  With ``V`` the number of distinct characters seen on
    either side, ``c(e)`` the count of an edit and ``C(x)`` the count of its
    context character:

    * ``model="unified"`` (default), k > 0: ``P(e|x) = (c(e) + k) / (C(x) + k(V+1))``,
      where the context is the OCR character for substitutions and deletions and
      the truth character for insertions; ``cost = -ln P / ln(V+1)``.
    * ``model="bounded"``, k > 0: insertions are conditioned on the whole corpus,
      ``(c_ins(t) + k) / (C_total + kV)``, and every cost is divided by the
      largest surprisal of an unseen event, so costs lie in [0, 1] (the model of
      ocr-stringdist's earlier ``Learner``).
    * ``k=0``: maximum likelihood, ``cost = -ln(c(e)/C(x))`` without
      normalisation; an edit never seen costs the default 1.0.
    * ``smoothing="katz"`` replaces the pseudo-count ``k`` by Katz back-off with
      an absolute ``discount`` d: a seen edit gets ``(c(e) - d) / C(x)`` and the
      freed mass goes to the edits unseen in that context in proportion to how
      often their outcome occurs overall (see ``docs/katz.md``); costs are
      normalised as in the chosen ``model``.

    Parameters
    ----------
    k : float, default=1.0
        Dirichlet smoothing: the pseudo-count given to every possible edit.
    model : {"unified", "bounded"}, default="unified"
        How probabilities become costs (above).  ``"legacy"`` is a deprecated
        name of ``"bounded"``.
    smoothing : {"additive", "katz"}, default="additive"
        Dirichlet pseudo-counts ``k``, or Katz back-off with ``discount``.
    discount : float in [0, 1), default=0.5
        Katz's absolute discount; used only with ``smoothing="katz"``.
    initial_metric : WeightedLevenshtein, optional
        The metric whose cheapest alignments are counted first; None means unit
        costs.  (Formerly ``aligner``, a deprecated name.)
    max_iter : int, default=1
        ``counting="viterbi"``: with more than 1, realign with the learned
        metric and recount until the counts stop changing (at most ``max_iter``
        alignments).  ``counting="forward"``: the number of EM iterations.
    max_token_length : int, default=1
        With 2 or more, also learn multi-character edits (``rn -> m``,
        ``m -> rn``, ``li -> h``): windows of adjacent non-match columns of the
        learned alignments whose sides are 1 to ``max_token_length`` characters
        long (one side at least 2), kept when seen at least ``min_count``
        times; the pairs are realigned with them and each is counted as an
        edit of its own, smoothed in the context of its source piece (see
        ``skocrcost._multichar``).  With ``counting="forward"`` the rules are
        found on the Viterbi alignments and then re-estimated by EM with the rest.
    min_count : int, default=5
        How often a multi-character edit must be seen to be kept.
    counting : {"viterbi", "forward"}, default="viterbi"
        How the edits are counted.  ``"viterbi"`` counts the edits of one
        cheapest alignment per pair.  ``"forward"`` starts from those counts and
        re-estimates them as the expected counts over all alignments under the
        current probabilities (forward-backward, Ristad & Yianilos 1998),
        ``max_iter`` times or until the mean log-likelihood per pair gains less
        than 1e-7; counts become fractional.  It is also the default ``method``
        of :meth:`score`.  (Formerly ``alignment``, a deprecated name.)
    references : sequence of str, optional
        The columns of :meth:`transform`; None means the distinct truth strings
        seen in ``fit``, in first-seen order.
    resolution : float, optional
        Round every learned cost up to a whole multiple of this power of two
        (between ``2**-30`` and 1; ``2**-16``, about 1.5e-5, is far below what
        the counts can tell apart).  The learned metric's costs then lie on a
        grid and its :meth:`~WeightedLevenshtein.pairwise` runs on whole numbers
        of steps, about twice as fast, with exactly the distances of the rounded
        costs (see ``docs/performance.md``).  None (default) keeps the costs as
        the model gives them.  :meth:`to_weighted_edit_distance` is never rounded.
    n_jobs : int, optional
        Threads for alignment and distances: None = 1 (unless a joblib context
        sets it), -1 = all cores.
    aligner : WeightedLevenshtein, optional
        Deprecated name of ``initial_metric``: still read, with a FutureWarning.
    alignment : {"viterbi", "forward"}, optional
        Deprecated name of ``counting``: still read, with a FutureWarning.

    Attributes
    ----------
    costs_ : CostTables
        ``substitution_cost(s, t)``, ``insertion_cost(t)``, ``deletion_cost(s)``
        answer for any characters.
    metric_ : WeightedLevenshtein
        The learned metric (sparse for large alphabets).
    counts_ : EditCounts
        The edit counts of the last alignment.
    channel_ : ChannelModel
        The smoothed log-probabilities, used by :meth:`score`.
    vocabulary_ : list of str
        The V characters seen on either side, by code point.
    references_ : list of str
    n_iter_ : int
        Alignments (``"viterbi"``) or EM iterations (``"forward"``) done.
    rules_ : list of (str, str, int or float)
        The multi-character edits learned (source, target, count in the final
        alignment, or expected count with ``counting="forward"``); empty when
        ``max_token_length=1``.

    Examples
    --------
    >>> from skocrcost import EditCostEstimator
    >>> est = EditCostEstimator(k=1.0).fit(["a", "a"], ["b", "a"])
    >>> round(est.costs_.substitution_cost("a", "b"), 6)
    0.834044
    >>> est.metric_.distance("a", "b") == est.costs_.substitution_cost("a", "b")
    True
    >>> channel = est.to_weighted_edit_distance()  # weights: ln P(edit | context)
    >>> round(channel.proximity("a", "b"), 6)  # ln P(a -> b | a) = ln 2/5
    -0.916291
    >>> round(est.log_likelihood("a", "b"), 6)  # ln(2/5 + 2 * 1/5 * 1/4): three alignments
    -0.693147
    >>> fast = EditCostEstimator(k=1.0, resolution=2**-16).fit(["a", "a"], ["b", "a"])
    >>> fast.costs_.substitution_cost("a", "b") * 2**16  # rounded up to whole steps
    54660.0
    >>> fast.metric_.grid_step > 0  # pairwise runs on int32 steps
    True
    """

    _requires_y = True  # learns from (OCR, truth) pairs
    _fitted_attributes = (
        "counts_",
        "channel_",
        "costs_",
        "metric_",
        "n_iter_",
        "rules_",
        "vocabulary_",
        "references_",
    )

    # score's ``method`` is an option, not metadata: no set_score_request.
    __metadata_request__score = {"method": UNUSED}

    _parameter_constraints = {
        "k": [Interval(Real, 0, None, closed="left")],
        "model": [
            StrOptions({*_smoothing.MODELS, *RENAMED_MODELS}, deprecated=set(RENAMED_MODELS))
        ],
        "smoothing": [StrOptions(set(_smoothing.SMOOTHINGS))],
        "discount": [Interval(Real, 0, 1, closed="left")],
        "initial_metric": [WeightedLevenshtein, None],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "max_token_length": [Interval(Integral, 1, None, closed="left")],
        "min_count": [Interval(Integral, 1, None, closed="left")],
        "counting": [StrOptions(set(ALIGNMENTS))],
        "references": ["array-like", None],
        "resolution": [Interval(Real, 0, 1, closed="right"), None],
        "n_jobs": [Integral, None],
        "aligner": [WeightedLevenshtein, None, Hidden(StrOptions({DEPRECATED}))],
        "alignment": [StrOptions(set(ALIGNMENTS)), Hidden(StrOptions({DEPRECATED}))],
    }

    def __init__(
        self,
        k=1.0,
        *,
        model="unified",
        smoothing="additive",
        discount=0.5,
        initial_metric=None,
        max_iter=1,
        max_token_length=1,
        min_count=5,
        counting="viterbi",
        references=None,
        resolution=None,
        n_jobs=None,
        aligner=DEPRECATED,
        alignment=DEPRECATED,
    ):
        self.k = k
        self.model = model
        self.smoothing = smoothing
        self.discount = discount
        self.initial_metric = initial_metric
        self.max_iter = max_iter
        self.max_token_length = max_token_length
        self.min_count = min_count
        self.counting = counting
        self.references = references
        self.resolution = resolution
        self.n_jobs = n_jobs
        self.aligner = aligner
        self.alignment = alignment

    # -- the deprecated names: aligner, alignment, model="legacy" -------------------------
    def _renamed(self, new):
        """(value, name the user set) of a renamed parameter: the old name if it was passed."""
        old = next(o for o, n in RENAMED_PARAMS.items() if n == new)
        value = getattr(self, old)
        if isinstance(value, str) and value == DEPRECATED:
            return getattr(self, new), new
        return value, old

    @property
    def _initial_metric(self):
        return self._renamed("initial_metric")[0]

    @property
    def _counting(self):
        return self._renamed("counting")[0]

    @property
    def _model(self):
        return RENAMED_MODELS.get(self.model, self.model)

    def _check_deprecated(self):
        set_too = {
            "initial_metric": self.initial_metric is not None,
            "counting": self.counting != "viterbi",
        }
        for old, new in RENAMED_PARAMS.items():
            if self._renamed(new)[1] != old:
                continue
            if set_too[new]:
                raise ValueError(
                    f"{old} and {new} are both set: pass {new} only ({old} is its old name)"
                )
            warnings.warn(
                f"{old} was renamed {new} in skocrcost 0.2; {old} will be removed in 0.3",
                FutureWarning,
                stacklevel=4,
            )
        if self.model in RENAMED_MODELS:
            warnings.warn(
                f"model={self.model!r} was renamed model={self._model!r} (the same model) in "
                f"skocrcost 0.2; {self.model!r} will be removed in 0.3",
                FutureWarning,
                stacklevel=4,
            )

    def __setstate__(self, state):
        # Pickles written before the renames hold aligner, alignment and maybe
        # model="legacy" as the parameters: read them under their new names.
        if "initial_metric" not in state and "aligner" in state:
            state = dict(state)
            for old, new in RENAMED_PARAMS.items():
                state[new] = state.pop(old)
                state[old] = DEPRECATED
            state["model"] = RENAMED_MODELS.get(state.get("model"), state.get("model"))
        super().__setstate__(state)

    def _check_params(self):
        validate_params(self)
        self._check_deprecated()
        counting, name = self._renamed("counting")
        if counting == "forward" and self.smoothing != "additive":
            # Katz discounts whole counts; EM's expected counts are fractional.
            raise ValueError(
                f"{name}='forward' needs smoothing='additive' (EM counts are fractional)"
            )
        if self.resolution is not None:
            check_resolution(self.resolution)
        initial_metric, name = self._renamed("initial_metric")
        if initial_metric is not None:
            check_counting_aligner(initial_metric, name)
        references = (
            None if self.references is None else check_strings(self.references, "references")
        )
        return float(self.k), references, n_threads(self.n_jobs)

    def fit(self, X, y):
        """Align the pairs, count the edits and smooth them into costs.

        Parameters
        ----------
        X : sequence of str
            OCR output.
        y : sequence of str
            The ground truth, pair by pair.

        Returns
        -------
        self
        """
        k, references, threads = self._check_params()
        X, y = check_pairs(X, y)
        aligner = self._initial_metric
        aligner = aligner if aligner is not None else WeightedLevenshtein()
        counts = None
        viterbi_passes = 1 if self._counting == "forward" else self.max_iter
        for n_iter in range(1, viterbi_passes + 1):  # noqa: B007
            new = count_edits(aligner, X, y, threads)
            converged = counts is not None and new == counts
            counts = new
            channel, metric = self._learn(counts, k)
            if converged:
                break
            aligner = metric
        rules = _Rules([], [], [])
        if self.max_token_length > 1:
            counts, channel, rules = self._learn_rules(X, y, metric, channel, k, threads)
        if self._counting == "forward":
            counts, channel, rules, n_iter = self._em(X, y, counts, channel, rules, k, threads)
        rules = rules.used()
        metric = self._metric(rules.tables(channel, k))
        references = references if references is not None else list(dict.fromkeys(y))
        return self._set_fitted(counts, channel, metric, n_iter, references, rules)

    def fit_from_counts(self, counts):
        """Smooth edit counts gathered elsewhere into costs, as :meth:`fit` does.

        Counts add up across shards (``a + b``), so counting the pairs in parts,
        for instance on a cluster with :func:`skocrcost.dask.fit_counts`, and
        smoothing the sum here gives exactly the costs of :meth:`fit` on all the
        pairs (with the same ``aligner``).

        Parameters
        ----------
        counts : EditCounts
            The edit counts, e.g. ``sum(parts)``.

        Returns
        -------
        self
            ``references_`` is ``references`` (no truth strings are seen here:
            None gives an empty list) and ``n_iter_`` is 1.  ``max_iter`` must be 1,
            since realigning with the learned metric needs the pairs.

        Examples
        --------
        >>> from skocrcost import EditCostEstimator
        >>> part1 = EditCostEstimator().fit(["a"], ["b"]).counts_
        >>> part2 = EditCostEstimator().fit(["a"], ["a"]).counts_
        >>> est = EditCostEstimator(k=1.0).fit_from_counts(part1 + part2)
        >>> est.costs_ == EditCostEstimator(k=1.0).fit(["a", "a"], ["b", "a"]).costs_
        True
        """
        k, references, _ = self._check_params()
        if not isinstance(counts, EditCounts):
            raise TypeError(f"counts must be EditCounts, got {type(counts).__name__}")
        if self.max_iter != 1:
            raise ValueError(
                f"max_iter must be 1 in fit_from_counts, got {self.max_iter}: realigning "
                "with the learned metric needs the pairs (use fit)"
            )
        for name, value, plain in (
            (*self._renamed("counting")[::-1], "viterbi"),
            ("max_token_length", self.max_token_length, 1),
        ):
            if value != plain:
                raise ValueError(
                    f"{name} must be {plain!r} in fit_from_counts, got {value!r}: "
                    "it needs the pairs (use fit)"
                )
        channel, metric = self._learn(counts, k)
        return self._set_fitted(counts, channel, metric, 1, references or [])

    def _set_fitted(self, counts, channel, metric, n_iter, references, rules=None):
        # Every fitted attribute is set here, at the end: a failed refit keeps the previous state.
        self.counts_ = counts
        self.channel_ = channel
        self.costs_ = metric.costs
        self.metric_ = metric
        self.n_iter_ = n_iter
        rules = _Rules([], [], []) if rules is None else rules
        self.rules_ = rules.learned()
        self._rules = rules  # with the sources' occurrence counts, for save()
        self.vocabulary_ = [chr(c) for c in counts.vocabulary]
        self.references_ = references
        return self

    def _learn(self, counts, k):
        """The smoothed channel model of some counts, and the metric of its costs."""
        if self.smoothing == "katz":
            channel = _smoothing.katz(counts, float(self.discount), self._model)
        else:
            channel = _smoothing.additive(counts, k, self._model)
        return channel, self._metric(channel.cost_tables())

    def _metric(self, tables):
        """The metric of learned tables, rounded to ``resolution`` if it is set."""
        if self.resolution is not None:
            tables = tables.rounded(self.resolution)
        return WeightedLevenshtein.from_tables(tables)

    def _learn_rules(self, X, y, metric, channel, k, threads):
        """Discover multi-character edits, realign with them, count them.

        Returns (single-character counts, channel, _Rules).
        """
        op, src, tgt, pair = metric._align_batch(X, y, threads)
        found, seen = _multichar.discover(op, src, tgt, pair, self.max_token_length, self.min_count)
        if not found:
            return (*self._single(src, tgt, k), _Rules([], [], []))
        contexts = [_multichar.occurrences(X, s) for s, _ in found]
        # Realign with each rule at the cost its windows' count gives it.
        start = _Rules(found, seen, contexts)
        aligner = self._metric(start.tables(channel, k))
        op, src, tgt, pair = aligner._align_batch(X, y, threads)
        is_rule = op == _multichar.OP_RULE
        counts, channel = self._single(src[~is_rule], tgt[~is_rule], k)
        rule_counts = np.bincount(src[is_rule], minlength=len(found))
        return counts, channel, _Rules(found, rule_counts, contexts)

    def _single(self, src, tgt, k):
        counts = EditCounts.from_columns(src, tgt)
        return counts, self._learn(counts, k)[0]

    def _em(self, X, y, counts, channel, rules, k, threads):
        """Forward-backward re-estimation from ``channel``: (counts, channel, rules, iterations).

        The E-step needs a proper channel, or EM runs off to a degenerate optimum:
        conditioning insertions on the truth character (the unified model) lets
        "delete every OCR character, insert every truth character" reach
        probability 1.  So the E-step uses the memoryless transducer of Ristad
        and Yianilos, conditioned on the OCR string: at each of the n + 1 slots
        of an OCR string of length n, insert ``t`` with probability
        ``lambda_t`` (estimated per slot, smoothed by ``k``), otherwise read the
        next OCR character ``s`` as ``t``, nothing, or ``s`` itself with the
        model's ``P(. | s)`` (or stop at the end), times ``1 - sum(lambda)``.
        Multi-character edits enter with their ``P(s -> t | s)``.  The smoothing
        ``model`` then turns the expected counts into costs.
        """
        previous = -math.inf
        n_iter = 0
        slots = sum(len(a) + 1 for a in X)
        for n_iter in range(1, self.max_iter + 1):  # noqa: B007
            ins_counts = counts.matrix[[0], :].toarray().ravel().astype(float)
            ins_counts[0] = 0.0
            with np.errstate(divide="ignore"):
                lam = (ins_counts + k) / (slots + k * counts.n_chars)
                lam[0] = k / (slots + k * counts.n_chars)
                stay = math.log1p(-min(float(lam[1:].sum()), 1.0 - 1e-12))
                tables = replace(rules.log_tables(channel, k), ins=-np.log(lam))
            kernel = EditKernel(*tables.kernel_args(), *tables.edit_args())
            expected, _, rule_counts, loglik = kernel.expected_counts(X, y, 1.0, threads)
            counts = EditCounts(counts.vocabulary, expected)
            channel = self._learn(counts, k)[0]
            rules = _Rules(rules.found, rule_counts, rules.contexts)
            # ln P(truth | ocr) under the probabilities before this step: every path
            # of a pair also takes n + 1 "no insertion here" factors 1 - sum(lambda),
            # the same for all its paths, so they are left out of the E-step.
            mean = float((np.sum(loglik) + slots * stay) / len(X))
            if mean - previous < EM_TOL:
                break
            previous = mean
        return counts, channel, rules, n_iter

    def to_weighted_edit_distance(self, log_base=math.e):
        """The learned probabilities as a :class:`WeightedEditDistance` (the channel).

        Every weight is ``log P(edit | context)`` in ``log_base``, matches
        included (``log P(s -> s | s)``), so ``proximity(ocr, truth)`` is the
        log-probability of the best alignment (LingPipe's Viterbi
        approximation) and ``log_likelihood(ocr, truth)`` sums over all of them.
        Edits with probability 0 (``k=0``, never seen) get weight ``-inf``.
        """
        check_is_fitted(self)
        base = check_number(log_base, "log_base", low=0, low_open=True)
        if base == 1:
            raise ValueError("log_base must not be 1")
        scale = math.log(base)
        z = self.channel_.normaliser
        rules = tuple((s, t, c * z / scale) for s, t, c in self.metric_.costs.rules)
        tables = replace(self.channel_.log_tables(scale), rules=rules)
        return WeightedEditDistance._from_tables(tables, base)

    def log_likelihood(self, a, b):
        """Natural log of P(b | a) summed over every alignment of ``a`` (OCR) to ``b`` (truth)."""
        return self.to_weighted_edit_distance().log_likelihood(a, b)

    def score_samples(self, X, y, method=None):
        """Log-likelihood (natural log) of each pair under the learned probabilities.

        ``method="viterbi"``: the sum of ln P over the columns of the pair's
        cheapest alignment under the learned metric (matches count too, with
        ``P(s -> s | s)``).  ``method="forward"``: ln of the summed probability
        of all alignments.  None follows ``alignment``.
        """
        check_is_fitted(self)
        X, y = check_pairs(X, y)
        method = self._counting if method is None else method
        if method not in ALIGNMENTS:
            raise ValueError(f"method must be one of {ALIGNMENTS} or None, got {method!r}")
        if method == "forward":
            return self.to_weighted_edit_distance().log_likelihoods(X, y, n_jobs=self.n_jobs)
        op, src, tgt, pair = self.metric_._align_batch(X, y, n_threads(self.n_jobs))
        logp = self.channel_.log_prob(src, tgt)
        is_rule = op == _multichar.OP_RULE
        if is_rule.any():  # a multi-character edit: ln P = -cost * Z
            rule_cost = np.array([c for _, _, c in self.metric_.costs.rules])
            logp[is_rule] = -rule_cost[src[is_rule]] * self.channel_.normaliser
        return np.bincount(pair, weights=logp, minlength=len(X))

    def score(self, X, y, method=None):
        """Mean per-pair log-likelihood of held-out pairs (higher is better).

        ``GridSearchCV(EditCostEstimator(), {"k": [...]}).fit(X, y)`` picks k by
        it.  ``method`` as in :meth:`score_samples`.
        """
        return float(np.mean(self.score_samples(X, y, method)))

    def transform(self, X):
        """Learned distances from each string of X to each reference.

        Returns
        -------
        ndarray of float64, shape (n_samples, n_references)
        """
        check_is_fitted(self)
        X = check_strings(X, "X")
        if not self.references_:
            raise ValueError(
                "this estimator has no references (it was saved without them); refit with "
                "references=..., or call metric_.pairwise(X, references)"
            )
        size = len(X) * len(self.references_) * 8
        if size > MAX_TRANSFORM_BYTES:
            raise ValueError(
                f"transform would return a {len(X)} x {len(self.references_)} matrix "
                f"({size / 2**30:.1f} GiB); use EditDistanceNeighbors for nearest references, "
                "or metric_.pairwise on chunks"
            )
        return self.metric_.pairwise(X, self.references_, n_jobs=self.n_jobs)

    def get_feature_names_out(self, input_features=None):
        """The references, one per column of :meth:`transform`."""
        check_is_fitted(self)
        return np.asarray(self.references_, dtype=object)

    # -- cost models as files ------------------------------------------------------------
    def save(self, path, *, include_references=True):
        """Write the fitted model to a JSON file (gzip-compressed if ``path`` ends in ``.gz``).

        The file is ocr-stringdist's ``WeightedLevenshtein.to_dict`` layout, so
        ocr-stringdist's ``from_dict`` and :meth:`WeightedLevenshtein.load` read
        its costs, plus the key ``"skocrcost_estimator"``: the parameters, the
        vocabulary and the edit counts, from which :meth:`load` rebuilds
        ``counts_``, ``channel_`` and the metric, so :meth:`score` works after loading.

        Parameters
        ----------
        path : str or os.PathLike
        include_references : bool, default=True
            Store ``references_`` (the columns of :meth:`transform`); they can
            be large, since by default they are every distinct truth string.
        """
        _persist.write_json(self._to_json(include_references), path)

    def _to_json(self, include_references=True):
        """What :meth:`save` writes, as a dict."""
        check_is_fitted(self)
        params = self.get_params(deep=False)
        for old in RENAMED_PARAMS:  # saved under the new names
            del params[old]
        params.update(
            initial_metric=self._initial_metric, counting=self._counting, model=self._model
        )
        if params["initial_metric"] is not None:
            params["initial_metric"] = params["initial_metric"].to_dict()
        if params["references"] is not None:
            params["references"] = list(params["references"])
        state = {
            "format_version": _persist.FORMAT_VERSION,
            "params": params,
            "n_iter": self.n_iter_,
            "references": list(self.references_) if include_references else None,
            **_persist.counts_to_json(self.counts_),
        }
        if self._rules.found:  # multi-character edits: (source, target, count, C(source))
            state["rules"] = [
                [s, t, c.item() if hasattr(c, "item") else c, int(n)]
                for (s, t), c, n in zip(*self._rules, strict=True)
            ]
        return {**self.metric_.to_dict(), _persist.ESTIMATOR_KEY: state}

    @classmethod
    def load(cls, path):
        """Read a file written by :meth:`save`: a fitted estimator.

        Examples
        --------
        >>> import os, tempfile
        >>> from skocrcost import EditCostEstimator
        >>> est = EditCostEstimator(k=0.5).fit(["tbe", "cat"], ["the", "cat"])
        >>> path = os.path.join(tempfile.mkdtemp(), "model.json")
        >>> est.save(path)
        >>> back = EditCostEstimator.load(path)
        >>> back.metric_ == est.metric_, back.score(["tbe"], ["the"]) == est.score(["tbe"], ["the"])
        (True, True)
        """
        return cls._from_json(_persist.read_json(path), os.fspath(path))

    @classmethod
    def _from_json(cls, data, where):
        """The estimator of :meth:`_to_json`'s dict ``data``; ``where`` names it in errors."""
        state = data.get(_persist.ESTIMATOR_KEY)
        if not isinstance(state, dict):
            raise ValueError(
                f"{where} holds costs but no fitted estimator; "
                "read it with WeightedLevenshtein.load"
            )
        if state.get("format_version") != _persist.FORMAT_VERSION:
            raise ValueError(
                f"{where}: unsupported format_version {state.get('format_version')!r} "
                f"(this skocrcost reads {_persist.FORMAT_VERSION})"
            )
        params = _renamed_params(state.get("params"))
        known = set(cls().get_params()) - set(RENAMED_PARAMS)
        # Files from before a parameter existed lack it: it takes its default.
        if not isinstance(params, dict) or not set(_FIRST_PARAMS) <= set(params) <= known:
            raise ValueError(
                f"{where}: 'params' must hold {sorted(_FIRST_PARAMS)} and may hold "
                f"{sorted(known - set(_FIRST_PARAMS))}, nothing else"
            )
        if params["initial_metric"] is not None:
            metric = WeightedLevenshtein.from_dict(params["initial_metric"])
            params = {**params, "initial_metric": metric}
        est = cls(**params)
        k, _, _ = est._check_params()
        counts = _persist.counts_from_json(state, where)
        rules = _rules_from_json(state.get("rules", []), where)
        channel, _ = est._learn(counts, k)
        metric = est._metric(rules.tables(channel, k))
        if metric != WeightedLevenshtein.from_dict(data):
            raise ValueError(f"{where}: the costs disagree with the counts (edited by hand?)")
        n_iter = check_number(state.get("n_iter"), f"{where}: n_iter", low=1, integer=True)
        references = state.get("references")
        references = [] if references is None else check_strings(references, "references")
        return est._set_fitted(counts, channel, metric, n_iter, references, rules)

    def __sklearn_is_fitted__(self):
        return hasattr(self, "metric_")


# The parameters every saved estimator has (format version 1 as first written, with
# aligner since renamed initial_metric).
_FIRST_PARAMS = ("initial_metric", "k", "max_iter", "model", "n_jobs", "references")


def _renamed_params(params):
    """The saved parameters under today's names: files written before the renames hold
    ``aligner``, ``alignment`` and maybe ``model="legacy"``."""
    if not isinstance(params, dict):
        return params
    params = dict(params)
    for old, new in RENAMED_PARAMS.items():
        if old in params and new not in params:
            params[new] = params.pop(old)
    if params.get("model") in RENAMED_MODELS:
        params["model"] = RENAMED_MODELS[params["model"]]
    return params


def _rules_from_json(items, where):
    """The multi-character edits of a saved estimator, every field checked."""
    ok = isinstance(items, list) and all(
        isinstance(r, list)
        and len(r) == 4
        and isinstance(r[0], str)
        and isinstance(r[1], str)
        and isinstance(r[2], (int, float))
        and not isinstance(r[2], bool)
        and 0 <= r[2] < math.inf
        and isinstance(r[3], int)
        and r[3] >= 0
        for r in items
    )
    if not ok:
        raise ValueError(f"{where}: 'rules' must be a list of [source, target, count, C(source)]")
    return _Rules([(r[0], r[1]) for r in items], [r[2] for r in items], [r[3] for r in items])

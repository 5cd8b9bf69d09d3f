"""OCRCorrectorCV: the corrector with its decoding weights tuned by cross-validation in fit."""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.utils.validation import check_is_fitted

from .._progress import progress
from .._sklearn_compat import Interval
from .._validation import StringInputMixin, check_pairs, validate_params
from ._corrector import OCRCorrector, _check_sequence_pairs, _is_sequences, spread_blocks
from ._decoding import WEIGHTS

__all__ = ["OCRCorrectorCV"]

# Consecutive lines scored together in a fold's held-out sample (a document's lines).
HELD_OUT_BLOCK = 50

# The parameters a fitted corrector reads only when it decodes: changing them needs no
# refit, so every setting of a fold is scored with the one corrector fitted on it.
DECODING = frozenset({f"decoder__{name}" for name in WEIGHTS} | {"rules", "min_confidence"})


# Settings that change which kinds of changes the decoder makes (cuts, joins, the
# rules' rewrites): a fold scores them with a corrector fitted with them, so that its
# confidence has learned from such changes (one judging a kind it never saw lets poor
# ones through).  The other settings share that fit.
NEW_CHANGES = ("decoder__join_cost", "decoder__split_cost", "rules")

# The default grid: decoding weights that hold on collections the corrector was not
# fitted on.  join_cost and rules, which follow a transcription convention (and need a
# fit per value), are left to a user's own grid (docs/correction.md, "Tuning").
DEFAULT_GRID = {"decoder__lm_weight": [0.5, 1.0, 2.0], "decoder__reject_margin": [0.0, 3.0]}


class OCRCorrectorCV(StringInputMixin, BaseEstimator):
    """An :class:`OCRCorrector` whose decoding weights are chosen by cross-validation.

    As :class:`~sklearn.linear_model.RidgeCV` is to ``Ridge``: ``fit`` cuts the
    training lines into ``cv`` folds of consecutive lines (a document stays in
    one fold), fits ``corrector`` once on the other folds of each, scores every
    setting of ``param_grid`` on (at most ``max_lines`` of) the held-out fold by
    ``1 - word error rate`` (:meth:`OCRCorrector.score`), and refits the best
    setting on all lines.  The settings of ``param_grid`` are decoding weights
    only, so one fitted channel and language model serve every setting of a fold,
    and the candidates and language-model probabilities computed for one setting
    are reused by the next.  The exception: ``decoder__join_cost``,
    ``decoder__split_cost`` and ``rules`` add kinds of changes the confidence of
    changes must have learned from (``min_confidence``), so a fold is fitted once
    per combination of their values in the grid.

    Parameters
    ----------
    corrector : OCRCorrector, optional
        The corrector to tune, cloned; None means ``OCRCorrector()``.
    param_grid : dict of str to list, optional
        Decoding parameters of ``corrector`` and the values to try (a grid, as
        :class:`~sklearn.model_selection.GridSearchCV` takes).  None means
        ``{"decoder__lm_weight": [0.5, 1.0, 2.0], "decoder__reject_margin":
        [0.0, 3.0]}``; add ``"decoder__join_cost": [None, 3.0]`` to let the
        training pairs say whether their truth closes up words broken at a line
        end.  The weights of
        :class:`~skocrcost.correction.Decoder` are named ``decoder__<weight>``,
        as scikit-learn names a part's parameters.
    cv : int, default=3
        Folds (at least 2).
    max_lines : int, default=1000
        Held-out lines scored per fold (whole blocks spread over the fold).
    verbose : bool, default=False
        A progress bar on stderr over the folds' settings (tqdm's with the
        ``progress`` extra).

    Attributes
    ----------
    best_params_ : dict
        The setting with the best mean score (ties: the earlier in the grid).
    best_score_ : float
        Its mean held-out ``1 - WER``.
    best_estimator_ : OCRCorrector
        ``corrector`` with ``best_params_``, fitted on all lines.
    cv_results_ : dict of ndarray
        ``params``, ``split<k>_test_score``, ``mean_test_score``, ``std_test_score``
        and ``rank_test_score``, as GridSearchCV's.

    Examples
    --------
    >>> from skocrcost.correction import OCRCorrectorCV
    >>> from skocrcost.datasets import load_icdar2017_sample
    >>> ocr, truth = load_icdar2017_sample("lines")
    >>> search = OCRCorrectorCV(param_grid={"decoder__lm_weight": [0.5, 1.0]}, max_lines=100)
    >>> search = search.fit(ocr[:600], truth[:600])
    >>> sorted(search.best_params_)
    ['decoder__lm_weight']
    >>> search.predict(["Tbe cat sat on tbe mat."]).shape
    (1,)
    """

    _requires_y = True

    _parameter_constraints = {
        "corrector": [OCRCorrector, None],
        "param_grid": [dict, None],
        "cv": [Interval(Integral, 2, None, closed="left")],
        "max_lines": [Interval(Integral, 1, None, closed="left")],
        "verbose": ["boolean"],
    }

    def __init__(self, corrector=None, *, param_grid=None, cv=3, max_lines=1000, verbose=False):
        self.corrector = corrector
        self.param_grid = param_grid
        self.cv = cv
        self.max_lines = max_lines
        self.verbose = verbose

    def fit(self, X, y):
        """Tune the decoding weights by cross-validation, then fit the best on all lines.

        Parameters
        ----------
        X : sequence of str, or sequence of sequences of str
            OCR lines (or token sequences), as :meth:`OCRCorrector.fit` takes.
        y : sequence of str, or sequence of sequences of str
            Their truth.

        Returns
        -------
        self
        """
        validate_params(self)
        grid = DEFAULT_GRID if self.param_grid is None else self.param_grid
        unknown = sorted(set(grid) - DECODING)
        if unknown:
            raise ValueError(
                "param_grid may only hold decoding parameters (decoder__<weight>, rules, "
                f"min_confidence: changing them needs no refit), got {unknown}; tune the "
                "others with GridSearchCV"
            )
        from sklearn.model_selection import ParameterGrid  # only when fitting

        settings = list(ParameterGrid(grid))
        X, y = _check_sequence_pairs(X, y) if _is_sequences(X) else check_pairs(X, y)
        if len(X) < 2 * self.cv:
            raise ValueError(
                f"X has {len(X)} lines; cv={self.cv} folds need at least {2 * self.cv}"
            )
        base = clone(self.corrector if self.corrector is not None else OCRCorrector())
        edges = np.linspace(0, len(X), self.cv + 1).astype(int)
        scores = np.zeros((len(settings), self.cv))
        bar = progress(self.cv * len(settings), "OCRCorrectorCV", not self.verbose, "setting")
        fits = _fits_for(settings, base.min_confidence is not None)
        for k, (lo, hi) in enumerate(zip(edges, edges[1:])):
            held = spread_blocks(range(lo, hi), self.max_lines, HELD_OUT_BLOCK)
            X_held, y_held = [X[i] for i in held], [y[i] for i in held]
            for fit_params, members in fits:
                fold = clone(base).set_params(**fit_params)._fit(X[:lo] + X[hi:], y[:lo] + y[hi:])
                for s in members:
                    scores[s, k] = fold.set_params(**settings[s]).score(X_held, y_held)
                    bar.update(1)
        bar.close()
        mean = scores.mean(axis=1)
        best = int(np.argmax(mean))  # the first of equal means
        results = {"params": settings}
        results.update({f"split{k}_test_score": scores[:, k] for k in range(self.cv)})
        order = np.argsort(-mean, kind="stable")
        rank = np.empty(len(settings), dtype=np.int32)
        rank[order] = np.arange(1, len(settings) + 1)
        results.update(
            mean_test_score=mean, std_test_score=scores.std(axis=1), rank_test_score=rank
        )
        estimator = clone(base).set_params(**settings[best]).fit(X, y)
        self.cv_results_ = results
        self.best_params_ = settings[best]
        self.best_score_ = float(mean[best])
        self.best_estimator_ = estimator
        return self

    def predict(self, X):
        """The corrected lines, by :attr:`best_estimator_` (see :meth:`OCRCorrector.predict`)."""
        check_is_fitted(self)
        return self.best_estimator_.predict(X)

    def correct(self, text, return_confidence=False):
        """Correct running text (see :meth:`OCRCorrector.correct`)."""
        check_is_fitted(self)
        return self.best_estimator_.correct(text, return_confidence=return_confidence)

    def fit_confidence(self, X, y):
        """Learn :attr:`best_estimator_`'s confidence of changes anew from line pairs of
        the collection to correct (see :meth:`OCRCorrector.fit_confidence`)."""
        check_is_fitted(self)
        self.best_estimator_.fit_confidence(X, y)
        return self

    def score(self, X, y):
        """``1 - word error rate`` of the corrected lines (see :meth:`OCRCorrector.score`)."""
        check_is_fitted(self)
        return self.best_estimator_.score(X, y)


def _fits_for(settings, learns_confidence):
    """``[(parameters to fit a fold with, indices of the settings it scores)]``: one
    fit per combination of the ``NEW_CHANGES`` values of ``settings`` when the
    corrector learns a confidence of changes, else one for all."""
    if not learns_confidence:
        return [({}, list(range(len(settings))))]
    fits = {}
    for s, setting in enumerate(settings):
        fit_params = {p: setting[p] for p in NEW_CHANGES if p in setting}
        key = repr(sorted(fit_params.items()))
        fits.setdefault(key, (fit_params, []))[1].append(s)
    return list(fits.values())

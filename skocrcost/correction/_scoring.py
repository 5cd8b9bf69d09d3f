"""Word and character error rates of corrected lines, and their scikit-learn scorers."""

from __future__ import annotations

from sklearn.metrics import make_scorer

from .._validation import check_strings
from ..metrics import WeightedLevenshtein
from ._tokens import TokenCodes

_UNIT = WeightedLevenshtein()


def _lines(reference, hypothesis):
    """``(reference, hypothesis)`` as lists of lines of the same length."""
    if isinstance(reference, str) and isinstance(hypothesis, str):
        return [reference], [hypothesis]
    reference = check_strings(reference, "reference", allow_empty=True)
    hypothesis = check_strings(hypothesis, "hypothesis", allow_empty=True)
    if len(reference) != len(hypothesis):
        raise ValueError(
            "reference and hypothesis must have the same length, got "
            f"{len(reference)} and {len(hypothesis)}"
        )
    return reference, hypothesis


def word_error_rate(reference, hypothesis):
    """Word error rate of ``hypothesis`` against ``reference``, over all lines.

    The word-level Levenshtein distance between the whitespace tokens of each
    pair of lines (a token is right only when it is the same, case and
    punctuation included), summed over the lines, over the number of reference
    tokens.  The argument order is scikit-learn's ``(y_true, y_pred)``.

    Parameters
    ----------
    reference : str or sequence of str
        The true lines.
    hypothesis : str or sequence of str
        The corrected (or OCR) lines, one per reference line.

    Returns
    -------
    float
        0 for a perfect hypothesis; may exceed 1 (insertions count).

    Examples
    --------
    >>> from skocrcost.correction import word_error_rate
    >>> word_error_rate(["the cat sat"], ["tbe cat sat"])
    0.333...
    """
    ref, hyp = _lines(reference, hypothesis)
    codes = TokenCodes()
    errors = sum(
        _UNIT.distance(codes(h.split()), codes(r.split())) for h, r in zip(hyp, ref, strict=True)
    )
    n = sum(len(r.split()) for r in ref)
    return errors / n if n else float(errors > 0)


def character_error_rate(reference, hypothesis):
    """Character error rate: unit Levenshtein distance over the reference's characters.

    Summed over the lines, as :func:`word_error_rate`.

    Examples
    --------
    >>> from skocrcost.correction import character_error_rate
    >>> character_error_rate(["the cat"], ["tbe cat"])
    0.142...
    """
    ref, hyp = _lines(reference, hypothesis)
    errors = sum(_UNIT.distance(h, r) for h, r in zip(hyp, ref, strict=True))
    n = sum(len(r) for r in ref)
    return errors / n if n else float(errors > 0)


#: Scorer of :func:`word_error_rate` for ``GridSearchCV(scoring=...)`` and
#: ``cross_val_score``: the negated rate, so that greater is better.
word_error_rate_scorer = make_scorer(word_error_rate, greater_is_better=False)
#: Scorer of :func:`character_error_rate`, negated likewise.
character_error_rate_scorer = make_scorer(character_error_rate, greater_is_better=False)

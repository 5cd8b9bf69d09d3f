"""Input checks shared by every public entry point: clear errors that name the argument."""

import math
import numbers

import numpy as np
from sklearn.exceptions import NotFittedError

from ._kernels import first_not_exact_str
from ._sklearn_compat import Interval


def check_strings(X, name="X", *, allow_empty=False, copy=True, first=0):
    """Return ``X`` as a list of ``str``; TypeError/ValueError naming ``name`` otherwise.

    Accepts a list, tuple, 1-D array or pandas Series of strings; a bare string
    is refused, since it would silently be read as a sequence of characters.
    With ``copy=False`` a list of ``str`` comes back as it is (for callers that
    only read it during the call: a copy of a 100k-word lexicon costs 0.5 ms).
    ``first``: the index in ``name`` of ``X``'s first item, when ``X`` is a part
    of it (a batch of a stream), so that an error names the item where it is.
    """
    if isinstance(X, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of strings, not a single {type(X).__name__}")
    if isinstance(X, (set, frozenset, dict)):
        # Unordered: the pairing with y (or the order of the rows) would be arbitrary.
        raise TypeError(f"{name} must be an ordered sequence of strings, not a {type(X).__name__}")
    if isinstance(X, np.ndarray):
        if X.ndim != 1:
            raise ValueError(f"{name} must be one-dimensional, got an array of shape {X.shape}")
        X = X.tolist()
    elif getattr(X, "ndim", 1) == 2 and hasattr(X, "columns"):  # a pandas DataFrame
        column = repr(X.columns[0]) if len(X.columns) else "'text'"
        raise ValueError(
            f"{name} is a DataFrame with {len(X.columns)} column(s); pass one column of "
            f"strings, e.g. {name}[{column}]"
        )
    elif hasattr(X, "to_numpy") and not isinstance(X, (list, tuple)):
        X = list(X.to_numpy())
    try:
        X = X if not copy and type(X) is list else list(X)
    except TypeError:
        raise TypeError(f"{name} must be a sequence of strings, got {type(X).__name__}") from None
    if X and first_not_exact_str(X) < 0:
        return X  # the common case, checked in compiled code
    for i, x in enumerate(X, first):
        if not isinstance(x, str):
            raise TypeError(
                f"{name} must contain only strings; {name}[{i}] is {type(x).__name__}: {x!r}"
            )
    if not X and not allow_empty:
        raise ValueError(f"{name} is empty; at least one string is needed")
    return [str(x) if type(x) is not str else x for x in X]


def check_pairs(X, y):
    """Check (OCR, truth) pairs: two string sequences of the same, non-zero length."""
    X = check_strings(X, "X")
    y = check_strings(y, "y")
    if len(X) != len(y):
        raise ValueError(f"X and y must have the same length, got {len(X)} and {len(y)}")
    return X, y


def check_number(value, name, *, low=None, high=None, integer=False, low_open=False):
    """Return ``value`` if it is a finite number in range, else raise naming ``name``."""
    kind = numbers.Integral if integer else numbers.Real
    if isinstance(value, bool) or not isinstance(value, kind):
        what = "an integer" if integer else "a number"
        raise TypeError(f"{name} must be {what}, got {type(value).__name__}: {value!r}")
    if not integer and not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if low is not None and (value < low or (low_open and value == low)):
        raise ValueError(f"{name} must be {'>' if low_open else '>='} {low}, got {value!r}")
    if high is not None and value > high:
        raise ValueError(f"{name} must be <= {high}, got {value!r}")
    return value


def check_flag(value, name):
    """Return ``value`` if it is a boolean; a string like "false" would be read as True."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a bool, got {type(value).__name__}: {value!r}")
    return bool(value)


def validate_params(estimator):
    """Check every parameter of ``estimator`` against its ``_parameter_constraints``, once.

    scikit-learn's checks (types, ranges, options; each error names the
    parameter), and one it lacks: a boolean is refused where a number is
    expected, although ``bool`` is an ``int`` to Python (``k=True`` is a slip,
    not a 1).
    """
    estimator._validate_params()
    for name, constraints in estimator._parameter_constraints.items():
        value = getattr(estimator, name)
        intervals = [c for c in constraints if isinstance(c, Interval)]
        if isinstance(value, (bool, np.bool_)) and intervals:
            integer = all(issubclass(c.type, numbers.Integral) for c in intervals)
            what = "an integer" if integer else "a number"
            raise TypeError(f"{name} must be {what}, got {type(value).__name__}: {value!r}")


class FittedAttributesMixin:
    """``NotFittedError``, scikit-learn's error, for a fitted attribute read before ``fit``.

    List the attributes ``fit`` sets in ``_fitted_attributes``.  ``NotFittedError``
    is an ``AttributeError``, so ``hasattr`` and ``getattr(est, name, default)`` work
    as before.
    """

    _fitted_attributes = ()

    def __getattr__(self, name):
        # Called only when normal lookup fails: the attribute is not set.
        if name in type(self)._fitted_attributes:
            raise NotFittedError(
                f"This {type(self).__name__} instance is not fitted yet: {name} is set by "
                "'fit'. Call 'fit' with appropriate arguments before using this attribute."
            )
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


class StringInputMixin:
    """scikit-learn tags of an estimator whose X is a sequence of strings.

    Set ``_requires_y = True`` in estimators that learn from (X, y) pairs.
    """

    _requires_y = False

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.two_d_array = False
        tags.target_tags.required = self._requires_y
        return tags

    def _more_tags(self):  # scikit-learn < 1.6
        return {"X_types": ["string"], "requires_y": self._requires_y}

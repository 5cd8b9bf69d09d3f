"""Every private scikit-learn name skocrcost uses, imported in this one place.

scikit-learn does not promise to keep its ``_``-prefixed modules stable; when
one moves, this is the only module to change.  Public names (``BaseEstimator``,
``check_is_fitted``, ``NotFittedError``...) are imported from scikit-learn
directly where they are used.
"""

from sklearn.utils._metadata_requests import UNUSED
from sklearn.utils._param_validation import HasMethods, Hidden, Interval, StrOptions

__all__ = ["UNUSED", "HasMethods", "Hidden", "Interval", "StrOptions"]

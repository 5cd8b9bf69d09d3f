"""Boosted trees as plain arrays: the confidence model's predictions without pickle.

scikit-learn's ``HistGradientBoostingClassifier`` learns the confidence of changes;
its fitted object holds compiled loss and binning objects that only pickle can
store.  :class:`BoostedTrees` keeps what prediction reads (each tree's nodes, the
baseline) as arrays, predicts exactly as the classifier does (same sums in the same
order), and is written to a corrector file as arrays of numbers.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

# The node fields prediction reads (sklearn's PREDICTOR_RECORD_DTYPE has more).
FIELDS = ("value", "feature_idx", "num_threshold", "missing_go_to_left", "left", "right", "is_leaf")


class BoostedTrees:
    """A binary classifier's trees: ``P(class 1) = expit(baseline + sum of leaf values)``.

    Parameters
    ----------
    baseline : float
        The raw prediction before any tree.
    trees : list of dict
        One dict of arrays per tree, keyed by :data:`FIELDS` (node ``i``'s fields at ``[i]``).
    """

    def __init__(self, baseline, trees):
        self.baseline = float(baseline)
        self.trees = trees

    @classmethod
    def from_classifier(cls, model):
        """The trees of a fitted binary ``HistGradientBoostingClassifier`` on numeric features."""
        if model.n_trees_per_iteration_ != 1 or np.any(model.is_categorical_ or False):
            raise ValueError("only binary classifiers on numeric features are supported")
        nodes = [predictors[0].nodes for predictors in model._predictors]
        trees = [{name: np.ascontiguousarray(n[name]) for name in FIELDS} for n in nodes]
        return cls(model._baseline_prediction.item(), trees)

    def predict_proba(self, X):
        """``P(class 1)`` of each row of ``X``, shape (n_samples,)."""
        X = np.asarray(X, dtype=np.float64)
        rows = np.arange(len(X))
        raw = np.zeros(len(X)) + self.baseline
        for tree in self.trees:
            node = np.zeros(len(X), dtype=np.intp)
            active = ~tree["is_leaf"][node].astype(bool)
            while active.any():
                at = node[active]
                x = X[rows[active], tree["feature_idx"][at]]
                left = np.where(
                    np.isnan(x),
                    tree["missing_go_to_left"][at].astype(bool),
                    x <= tree["num_threshold"][at],
                )
                node[active] = np.where(left, tree["left"][at], tree["right"][at])
                active = ~tree["is_leaf"][node].astype(bool)
            raw += tree["value"][node]
        return expit(raw)

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

from .._kernels import tree_sums

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

    def __getstate__(self):
        # Each field of all trees in one array: a pickle then holds a handful of
        # out-of-band buffers (each one a frame of a Dask message), not seven per
        # tree.  (The walk's tables, _flat, are derived: left out.)
        sizes = np.array([len(t["value"]) for t in self.trees], dtype=np.intp)
        fields = {
            name: np.concatenate([t[name] for t in self.trees]) if self.trees else None
            for name in FIELDS
        }
        return {"baseline": self.baseline, "sizes": sizes, "fields": fields}

    def __setstate__(self, state):
        if "fields" not in state:  # pickled with one array per tree and field
            self.__dict__.update(state)
            return
        cuts = np.cumsum(state["sizes"])[:-1]
        fields = {
            name: [] if joined is None else np.split(joined, cuts)
            for name, joined in state["fields"].items()
        }
        self.baseline = state["baseline"]
        self.trees = [
            {name: fields[name][i] for name in FIELDS} for i in range(len(state["sizes"]))
        ]

    def _walk_tables(self):
        """Every tree's nodes in one array per field, node ids offset by tree, as
        ``_kernels.tree_sums`` reads them."""
        flat = self.__dict__.get("_flat")
        if flat is None:
            roots = np.cumsum([0] + [len(t["value"]) for t in self.trees[:-1]]).astype(np.intp)

            def joined(name, kind, shift=False):
                parts = [np.asarray(t[name], kind) for t in self.trees]
                if not parts:
                    return np.zeros(0, kind)
                return np.concatenate([p + r for p, r in zip(parts, roots)] if shift else parts)

            flat = self._flat = (
                roots[: len(self.trees)],
                joined("feature_idx", np.intp),
                joined("num_threshold", np.float64),
                joined("missing_go_to_left", bool).view(np.uint8),
                joined("left", np.intp, True),
                joined("right", np.intp, True),
                joined("value", np.float64),
                joined("is_leaf", bool).view(np.uint8),
            )
        return flat

    def predict_proba(self, X):
        """``P(class 1)`` of each row of ``X``, shape (n_samples,)."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        return expit(tree_sums(X, *self._walk_tables(), self.baseline))

"""Pure-Python (numpy) twin of ``_trees.pyx``: the same sums, the same doubles."""

from __future__ import annotations

import numpy as np


def tree_sums(X, roots, feature, threshold, missing_left, left, right, value, is_leaf, baseline):
    """See ``_trees.pyx``: all rows through all trees at once, a level at a time."""
    X = np.asarray(X, dtype=np.float64)
    missing_left = np.asarray(missing_left, dtype=bool)
    is_leaf = np.asarray(is_leaf, dtype=bool)
    node = np.repeat(np.asarray(roots)[None, :], len(X), axis=0)  # each row's node per tree
    cells, row = X.ravel(), (np.arange(len(X)) * X.shape[1])[:, None]
    while len(X) and not is_leaf[node].all():
        inner = ~is_leaf[node]
        x = cells[row + np.where(inner, feature[node], 0)]
        go_left = np.where(np.isnan(x), missing_left[node], x <= threshold[node])
        node = np.where(inner, np.where(go_left, left[node], right[node]), node)
    # Tree by tree, as the classifier sums them: a running sum along each row
    # (np.cumsum adds in order, one term after another).
    raw = np.column_stack([np.full(len(X), float(baseline)), value[node]])
    return np.cumsum(raw, axis=1)[:, -1] if len(X) else np.zeros(0)

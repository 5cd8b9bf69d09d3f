# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The sums of boosted trees' leaf values: what a gradient-boosted classifier's
prediction adds up, row by row.

``tree_sums`` walks every tree for every row (a row goes left at a node when its
feature is at most the node's threshold, or is NaN and the node sends missing
values left) and adds the leaf values to ``baseline`` tree by tree, in order: the
sums scikit-learn's ``HistGradientBoostingClassifier`` makes, the same doubles.
The corrector's confidence asks for a few rows per line, where a walk in numpy
would pay its fixed cost per call at every level of the trees.  ``_trees_py.py``
is its pure-Python (numpy) twin: the tests hold them equal.
"""

import numpy as np

from libc.math cimport isnan
from libc.stdint cimport uint8_t


def tree_sums(const double[:, ::1] X, const Py_ssize_t[::1] roots,
              const Py_ssize_t[::1] feature, const double[::1] threshold,
              const uint8_t[::1] missing_left, const Py_ssize_t[::1] left,
              const Py_ssize_t[::1] right, const double[::1] value,
              const uint8_t[::1] is_leaf, double baseline):
    """``baseline`` plus the leaf value each tree gives each row of ``X``, summed in
    the trees' order; one float64 per row.  The node arrays hold every tree's nodes,
    node ids offset by tree, and ``roots`` each tree's root."""
    cdef Py_ssize_t n = X.shape[0], n_trees = roots.shape[0], r, t, v
    cdef double s, x
    out = np.empty(n, dtype=np.float64)
    cdef double[::1] out_v = out
    with nogil:
        for r in range(n):
            s = baseline
            for t in range(n_trees):
                v = roots[t]
                while not is_leaf[v]:
                    x = X[r, feature[v]]
                    if (missing_left[v] != 0) if isnan(x) else x <= threshold[v]:
                        v = left[v]
                    else:
                        v = right[v]
                s = s + value[v]
            out_v[r] = s
    return out

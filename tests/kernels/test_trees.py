"""The compiled sums of boosted trees against their numpy twin and the classifier."""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.ensemble import HistGradientBoostingClassifier

from skocrcost._kernels import _trees, _trees_py
from skocrcost.correction._trees import FIELDS, BoostedTrees


@st.composite
def forests(draw):
    """A fitted classifier's trees (with missing values, some features constant) and
    rows to walk, some with NaN and some beyond every threshold."""
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    n_features = draw(st.integers(1, 6))
    X = rng.normal(size=(200, n_features)).round(draw(st.integers(0, 3)))
    y = (X[:, 0] + rng.normal(scale=0.5, size=200)) > 0
    if y.all() or not y.any():
        y[0] = not y[0]
    X[rng.random(X.shape) < draw(st.sampled_from([0.0, 0.1, 0.4]))] = np.nan
    model = HistGradientBoostingClassifier(
        max_iter=draw(st.integers(1, 30)), max_leaf_nodes=draw(st.integers(2, 15)), random_state=0
    ).fit(X, y)
    rows = rng.normal(scale=3, size=(draw(st.integers(0, 20)), n_features))
    rows[rng.random(rows.shape) < 0.2] = np.nan
    rows[rng.random(rows.shape) < 0.1] = np.inf
    return model, rows


@settings(max_examples=60, deadline=None)
@given(forests())
def test_tree_sums_equal_their_twin_and_the_classifier(forest):
    model, rows = forest
    trees = BoostedTrees.from_classifier(model)
    tables = trees._walk_tables()
    got = _trees.tree_sums(rows, *tables, trees.baseline)
    np.testing.assert_array_equal(got, _trees_py.tree_sums(rows, *tables, trees.baseline))
    if len(rows):  # bit for bit the classifier's raw sums
        np.testing.assert_array_equal(got, model.decision_function(rows))


@settings(max_examples=20, deadline=None)
@given(forests())
def test_trees_pickle_as_a_few_arrays_and_predict_the_same(forest):
    model, rows = forest
    trees = BoostedTrees.from_classifier(model)
    trees.predict_proba(rows)  # (its walk's tables are derived: not pickled)
    buffers = []
    data = pickle.dumps(trees, protocol=5, buffer_callback=buffers.append)
    assert len(buffers) <= 1 + len(FIELDS)  # the sizes, and one array per field
    back = pickle.loads(data, buffers=buffers)
    assert "_flat" not in vars(back) and back.baseline == trees.baseline
    assert len(back.trees) == len(trees.trees)
    for old, new in zip(trees.trees, back.trees, strict=True):
        assert list(new) == list(old)
        for name in old:
            assert new[name].dtype == old[name].dtype
            np.testing.assert_array_equal(new[name], old[name])
    np.testing.assert_array_equal(back.predict_proba(rows), trees.predict_proba(rows))
    empty = pickle.loads(pickle.dumps(BoostedTrees(0.25, [])))
    assert empty.trees == [] and empty.baseline == 0.25


def test_no_trees_sum_to_the_baseline():
    empty = BoostedTrees(0.25, [])
    rows = np.zeros((3, 2))
    for module in (_trees, _trees_py):
        np.testing.assert_array_equal(module.tree_sums(rows, *empty._walk_tables(), 0.25), 0.25)


def test_tree_sums_refuse_arrays_of_the_wrong_kind():
    trees = BoostedTrees(0.0, [])
    with pytest.raises(ValueError):
        _trees.tree_sums(np.zeros((2, 2, 2)), *trees._walk_tables(), 0.0)

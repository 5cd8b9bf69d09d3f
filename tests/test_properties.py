"""Properties of the metric and the estimator on random Unicode strings and random costs.

The kernel against its twin and a textbook reference is in test_dp.py (short
strings); here: the heap path against the twin, identities of the distance,
pairwise as the loop, independence from n_jobs, round trips through pickle and
JSON, and the triangle inequality (with the cases where it does not hold).
"""

import json
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import METRIC_ALPHABET, cost_dicts, metric_cost_dicts, symmetric_cost_dicts, text

from skocrcost import CostTables, EditCostEstimator, WeightedLevenshtein, _dp_py

long_text = st.text(alphabet=st.sampled_from("abcrnm01lIO\ud800\U0001f600é"), max_size=150)
texts = st.lists(text, max_size=6)


def twin(metric):
    return _dp_py.CostKernel(*metric.costs.kernel_args())


@settings(max_examples=25, deadline=None)
@given(cost_dicts(), long_text, long_text)
def test_heap_path_equals_twin_bit_for_bit(costs, a, b):
    # Strings over 64 characters take heap rows and release the GIL in distance().
    wl = WeightedLevenshtein(**costs)
    assert wl.distance(a, b) == twin(wl).distance(a, b)


@settings(max_examples=200, deadline=None)
@given(cost_dicts(), text)
def test_distance_to_itself_is_zero(costs, a):
    wl = WeightedLevenshtein(**costs)
    assert wl.distance(a, a) == 0.0
    assert all(op.kind == "match" for op in wl.explain(a, a))


@settings(max_examples=200, deadline=None)
@given(symmetric_cost_dicts(), text, text)
def test_symmetric_costs_give_a_symmetric_distance(costs, a, b):
    wl = WeightedLevenshtein(**costs)
    # Each path's costs are added in the same order both ways: exactly equal.
    assert wl.distance(a, b) == wl.distance(b, a)
    m = wl.pairwise([a, b])
    np.testing.assert_array_equal(m, m.T)


@settings(max_examples=60, deadline=None)
@given(cost_dicts(), texts, texts)
def test_pairwise_is_the_loop_whatever_n_jobs(costs, X, Y):
    wl = WeightedLevenshtein(**costs)
    loop = np.array([[wl.distance(x, y) for y in Y] for x in X]).reshape(len(X), len(Y))
    for n_jobs in (None, 1, 2, -1):
        np.testing.assert_array_equal(wl.pairwise(X, Y, n_jobs=n_jobs), loop)


@settings(max_examples=60, deadline=None)
@given(cost_dicts(), texts)
def test_alignments_do_not_depend_on_threads(costs, X):
    wl = WeightedLevenshtein(**costs)
    Y = X[::-1]
    one = wl.align_batch(X, Y, 1, True)
    for n_threads in (2, 4):
        for got, want in zip(wl.align_batch(X, Y, n_threads, True), one, strict=True):
            np.testing.assert_array_equal(got, want)


@settings(max_examples=100, deadline=None)
@given(cost_dicts(), texts)
def test_pickle_and_json_round_trips_give_identical_results(costs, X):
    wl = WeightedLevenshtein(**costs)
    want = wl.pairwise(X + ["\u4e2d", "x"])  # also characters outside the alphabet
    for back in (
        pickle.loads(pickle.dumps(wl)),
        WeightedLevenshtein.from_dict(json.loads(json.dumps(wl.to_dict()))),
    ):
        assert back == wl
        np.testing.assert_array_equal(back.pairwise(X + ["\u4e2d", "x"]), want)
    assert pickle.loads(pickle.dumps(wl.costs)) == wl.costs


pairs = st.lists(st.tuples(text, text), min_size=1, max_size=8)


@settings(max_examples=25, deadline=None)
@given(pairs, st.sampled_from([0.0, 0.1, 1.0]), st.sampled_from(["unified", "legacy"]), texts)
def test_learned_metric_round_trips_and_ignores_n_jobs(pairs, k, model, probes):
    X, y = [p[0] for p in pairs], [p[1] for p in pairs]
    est = EditCostEstimator(k=k, model=model).fit(X, y)
    probes = probes + ["\u4e2d", "a\U0001f600"]  # and characters never seen in training
    want = est.metric_.pairwise(probes)
    parallel = EditCostEstimator(k=k, model=model, n_jobs=2).fit(X, y)
    assert parallel.costs_ == est.costs_
    np.testing.assert_array_equal(parallel.transform(probes), est.transform(probes))
    back = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(back.transform(probes), est.transform(probes))
    np.testing.assert_array_equal(back.score_samples(X, y), est.score_samples(X, y))
    loaded = WeightedLevenshtein.from_dict(json.loads(json.dumps(est.metric_.to_dict())))
    assert loaded == est.metric_
    np.testing.assert_array_equal(loaded.pairwise(probes), want)


metric_text = st.text(alphabet=st.sampled_from(METRIC_ALPHABET), max_size=8)


@settings(max_examples=300, deadline=None)
@given(metric_cost_dicts(), metric_text, metric_text, metric_text)
def test_triangle_inequality_when_the_costs_form_a_metric(costs, x, y, z):
    # Costs are L1 distances between grid points (the gap is a point too), in quarters:
    # every sum is exact, so the inequality is checked without a tolerance.
    wl = WeightedLevenshtein(**costs)
    assert wl.distance(x, z) <= wl.distance(x, y) + wl.distance(y, z)
    assert wl.distance(x, y) == wl.distance(y, x)


def _maximum_likelihood_metric():
    # k = 0: a -> b seen once in two, b -> c always, a -> c never (the default cost 1.0).
    return EditCostEstimator(k=0).fit(["a", "a", "b"], ["b", "a", "c"]).metric_


# Costs that are not a metric, and the strings that break the triangle with them.
# The neighbours of a string cannot be pruned by the triangle inequality with these.
TRIANGLE_COUNTEREXAMPLES = {
    "cheap detour through b": (
        lambda: WeightedLevenshtein({("a", "b"): 0.1, ("b", "c"): 0.1}),
        "a",
        "b",
        "c",
    ),
    "deletion dearer than substitute + delete": (
        lambda: WeightedLevenshtein({("a", "b"): 0.1}, deletion_costs={"b": 0.1}),
        "a",
        "b",
        "",
    ),
    "insertion dearer than insert + substitute": (
        lambda: WeightedLevenshtein({("b", "c"): 0.1}, insertion_costs={"b": 0.1}),
        "",
        "b",
        "c",
    ),
    "maximum-likelihood costs (k=0)": (_maximum_likelihood_metric, "a", "b", "c"),
}


@pytest.mark.parametrize(
    ("make", "x", "y", "z"), TRIANGLE_COUNTEREXAMPLES.values(), ids=TRIANGLE_COUNTEREXAMPLES
)
def test_triangle_inequality_fails_when_the_costs_are_not_a_metric(make, x, y, z):
    wl = make()
    assert wl.distance(x, z) > wl.distance(x, y) + wl.distance(y, z)


def test_costtables_pickle_goes_through_validation():
    tables = WeightedLevenshtein({("a", "b"): 0.5}).costs
    reduced = tables.__reduce__()
    assert reduced[0] is CostTables
    bad = list(reduced[1])
    bad[3] = np.array([-0.5])  # a tampered pickle with a negative cost
    with pytest.raises(ValueError, match=">= 0"):
        reduced[0](*bad)


def test_pickled_corrector_and_neighbours_give_identical_results():
    from skocrcost import EditDistanceNeighbors, OCRCorrector
    from skocrcost.datasets import load_icdar2017_sample

    X, y = load_icdar2017_sample("tokens")
    fixer = OCRCorrector(EditCostEstimator(k=0.1), n_jobs=2).fit(X[:3000], y[:3000])
    queries = X[3000:3500] + ["", "\ud800", "\U0001f600"]
    back = pickle.loads(pickle.dumps(fixer))
    np.testing.assert_array_equal(back.predict(queries), fixer.predict(queries))
    for a, b in zip(back.kneighbors(queries, 3), fixer.kneighbors(queries, 3), strict=True):
        np.testing.assert_array_equal(a, b)
    single = OCRCorrector(EditCostEstimator(k=0.1), n_jobs=1).fit(X[:3000], y[:3000])
    np.testing.assert_array_equal(single.predict(queries), fixer.predict(queries))
    nn = EditDistanceNeighbors(4, metric=fixer.estimator_).fit(fixer.lexicon_)
    for a, b in zip(
        pickle.loads(pickle.dumps(nn)).radius_neighbors(queries, 1.5),
        nn.radius_neighbors(queries, 1.5),
    ):
        for x, z in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, z)


@settings(max_examples=60, deadline=None)
@given(cost_dicts(), st.lists(text, min_size=1, max_size=10), texts, st.integers(1, 4))
def test_index_on_the_sparse_layout_equals_brute_force(costs, words, queries, k):
    # Alphabets over 1,024 characters get CSR tables; force that layout on small ones.
    from skocrcost import _dp, _index

    args = CostTables.from_dicts(**costs).kernel_args()
    sparse = _dp.CostKernel(*args[:-1], False)
    k = min(k, len(words))
    D = sparse.pairwise(queries, words, 2)
    order = np.argsort(D, axis=1, kind="stable")[:, :k]
    dist, ind = _index.LexiconIndex(sparse, words).kneighbors(queries, k, 2)
    np.testing.assert_array_equal(ind, order)
    np.testing.assert_array_equal(dist, np.take_along_axis(D, order, axis=1))
    np.testing.assert_array_equal(D, _dp.CostKernel(*args[:-1], True).pairwise(queries, words))

"""Properties of the metrics, the estimator and the LM on random Unicode strings and costs.

The kernel against its twin and a textbook reference is in kernels/test_cost_kernel.py (short
strings) and kernels/test_edit_kernel.py (the general kernel on a small alphabet); here: the
heap path against the twin, the general kernel (rules, transpositions, match
costs) against its twin on any code point and any thread count, identities of
the distance, explain() summing to distance() for WeightedEditDistance, pairwise
as the loop, independence from n_jobs, round trips through pickle and JSON
(metrics, estimator, WeightedEditDistance, KatzBackoffLM), and the triangle
inequality (with the cases where it does not hold).
"""

import json
import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import (
    METRIC_ALPHABET,
    cost_dicts,
    edit_dicts,
    metric_cost_dicts,
    symmetric_cost_dicts,
    text,
)

from skocrcost import (
    CostTables,
    EditCostEstimator,
    KatzBackoffLM,
    WeightedEditDistance,
    WeightedLevenshtein,
)
from skocrcost._kernels import _cost_kernel_py as _dp_py
from skocrcost._kernels import _edit_kernel as _edit
from skocrcost._kernels import _edit_kernel_py as _edit_py

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
    one = wl._align_batch(X, Y, 1, True)
    for n_threads in (2, 4):
        for got, want in zip(wl._align_batch(X, Y, n_threads, True), one, strict=True):
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
@given(pairs, st.sampled_from([0.0, 0.1, 1.0]), st.sampled_from(["unified", "bounded"]), texts)
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
    from skocrcost._kernels import _cost_kernel as _dp
    from skocrcost._kernels import _lexicon_index as _index

    args = CostTables.from_dicts(**costs).kernel_args()
    sparse = _dp.CostKernel(*args[:-1], False)
    k = min(k, len(words))
    D = sparse.pairwise(queries, words, 2)
    order = np.argsort(D, axis=1, kind="stable")[:, :k]
    dist, ind = _index.LexiconIndex(sparse, words).kneighbors(queries, k, 2)
    np.testing.assert_array_equal(ind, order)
    np.testing.assert_array_equal(dist, np.take_along_axis(D, order, axis=1))
    np.testing.assert_array_equal(D, _dp.CostKernel(*args[:-1], True).pairwise(queries, words))


# -- the general kernel (rules, transpositions, match costs), WeightedEditDistance, the LM --
# Rule pieces and transpositions over the core letters, so that they apply, mixed with any
# code point at all (lone surrogates, combining marks, astral characters, NUL).
unicode_text = st.text(
    alphabet=st.one_of(st.sampled_from("rnmcl1Id\ud800\U0001f600"), st.characters()),
    max_size=14,
)
long_unicode_text = st.text(
    alphabet=st.sampled_from("rnmcl1Idab\ud800\u0301\U0001f600"), max_size=90
)


def general_twins(costs, match=None):
    tables = CostTables.from_dicts(**costs)
    args = [*tables.kernel_args(), *tables.edit_args()]
    if match is not None:
        args[9] = match
    return _edit.EditKernel(*args), _edit_py.EditKernel(*args)


@settings(max_examples=150, deadline=None)
@given(
    edit_dicts(), unicode_text | long_unicode_text, unicode_text | long_unicode_text, st.booleans()
)
def test_general_kernel_equals_its_twin_on_any_unicode(costs, a, b, with_match):
    tables = CostTables.from_dicts(**costs)
    match = np.linspace(0.0, 0.5, len(tables.chars) + 1) if with_match else None
    compiled, twin = general_twins(costs, match)
    d = compiled.distance(a, b)
    assert d == twin.distance(a, b)
    for x, y in zip(compiled.align(a, b), twin.align(a, b), strict=True):
        np.testing.assert_array_equal(x, y)
    assert compiled.soft_distance(a, b, 0.9) == pytest.approx(
        twin.soft_distance(a, b, 0.9), rel=1e-12, abs=1e-12
    )


@settings(max_examples=40, deadline=None)
@given(edit_dicts(), st.lists(unicode_text, max_size=5), st.lists(unicode_text, max_size=5))
def test_general_batches_equal_the_twin_whatever_the_threads(costs, X, Y):
    compiled, twin = general_twins(costs)
    n = min(len(X), len(Y))
    want_pairwise = twin.pairwise(X, Y)
    want_align = twin.align_batch(X[:n], Y[:n], 1, True)
    want_soft = twin.soft_distance_batch(X[:n], Y[:n], 1.0)
    want_counts = twin.expected_counts(X[:n], Y[:n], 1.0)
    for threads in (1, 2, 4):
        np.testing.assert_array_equal(compiled.pairwise(X, Y, threads), want_pairwise)
        for x, y in zip(compiled.align_batch(X[:n], Y[:n], threads, True), want_align):
            np.testing.assert_array_equal(x, y)
        got_soft = compiled.soft_distance_batch(X[:n], Y[:n], 1.0, threads)
        np.testing.assert_allclose(got_soft, want_soft, rtol=1e-12)
        for x, y in zip(compiled.expected_counts(X[:n], Y[:n], 1.0, threads), want_counts):
            np.testing.assert_allclose(x, y, rtol=1e-9, atol=1e-12)


def _negated(d):
    return {k: -v for k, v in d.items()}


@st.composite
def edit_weights(draw):
    """WeightedEditDistance arguments: the negated costs of edit_dicts, and match weights."""
    c = draw(edit_dicts())
    return {
        "substitute_weights": {k: -v for k, v in c["substitution_costs"].items() if all(k)},
        "insert_weights": _negated(c["insertion_costs"]),
        "delete_weights": _negated(c["deletion_costs"]),
        "transpose_weights": _negated(c["transposition_costs"]),
        "match_weights": draw(
            st.dictionaries(st.sampled_from("rnmc1\ud800"), st.floats(-1.0, 0.0), max_size=4)
        ),
        "default_substitute_weight": -c["default_substitution_cost"],
        "default_insert_weight": -c["default_insertion_cost"],
        "default_delete_weight": -c["default_deletion_cost"],
        "default_transpose_weight": -c["default_transposition_cost"],
        "log_base": draw(st.sampled_from([2.0, math.e, 10.0])),
    }


@settings(max_examples=100, deadline=None)
@given(edit_weights(), unicode_text, unicode_text)
def test_weighted_edit_distance_explain_sums_to_distance(weights, a, b):
    wed = WeightedEditDistance(**weights)
    d = wed.distance(a, b)
    ops = wed.explain(a, b)
    assert ("".join(op.source for op in ops), "".join(op.target for op in ops)) == (a, b)
    total = sum(op.cost for op in ops)
    if math.isinf(d):
        assert total == math.inf
    else:
        assert total == pytest.approx(d, rel=1e-12, abs=1e-12)
    assert wed.proximity(a, b) == -d
    assert wed.log_likelihood(a, b) >= -d - 1e-9  # every alignment counts: at least the best


@settings(max_examples=40, deadline=None)
@given(edit_weights(), st.lists(unicode_text, min_size=1, max_size=70))
def test_expected_counts_do_not_depend_on_threads(weights, X):
    # Forward-backward sums floats: the counts are the same only if the additions are.
    kernel = WeightedEditDistance(**weights)._kernel  # what EditCostEstimator's EM calls
    Y = X[::-1]
    one = kernel.expected_counts(X, Y, 0.7, 1)
    for n_threads in (2, 3):
        for got, want in zip(kernel.expected_counts(X, Y, 0.7, n_threads), one, strict=True):
            np.testing.assert_array_equal(got, want)


@settings(max_examples=40, deadline=None)
@given(edit_weights(), st.lists(unicode_text, max_size=6), st.lists(unicode_text, max_size=6))
def test_weighted_edit_distance_ignores_n_jobs_and_survives_pickle(weights, X, Y):
    wed = WeightedEditDistance(**weights)
    n = min(len(X), len(Y))
    want = wed.pairwise(X, Y, n_jobs=1)
    want_ll = wed.log_likelihoods(X[:n], Y[:n], n_jobs=1)
    loop = np.array([[wed.distance(x, y) for y in Y] for x in X]).reshape(len(X), len(Y))
    np.testing.assert_array_equal(want, loop)
    for n_jobs in (None, 2, -1):
        np.testing.assert_array_equal(wed.pairwise(X, Y, n_jobs=n_jobs), want)
        np.testing.assert_array_equal(wed.log_likelihoods(X[:n], Y[:n], n_jobs=n_jobs), want_ll)
    back = pickle.loads(pickle.dumps(wed))
    assert back == wed
    np.testing.assert_array_equal(back.pairwise(X, Y), want)
    np.testing.assert_array_equal(back.log_likelihoods(X[:n], Y[:n]), want_ll)


word = st.sampled_from(["the", "a", "cat", "sat", "on", "mat", "\ud800", "\U0001f600", "e\u0301"])
sentences = st.lists(st.lists(word, max_size=6), min_size=1, max_size=8)


@settings(max_examples=40, deadline=None)
@given(sentences, st.integers(1, 4), st.sampled_from([0.0, 0.3, 0.9]), sentences)
def test_language_model_survives_pickle(train, order, discount, held_out):
    lm = KatzBackoffLM(order=order, discount=discount).fit(train)
    back = pickle.loads(pickle.dumps(lm))
    words = [*lm.vocabulary_, "unseen"]
    for context in ((), ("<s>",), ("the", "cat"), ("\ud800", "unseen", "a")):
        np.testing.assert_array_equal(
            back.log_probabilities(words, context), lm.log_probabilities(words, context)
        )
    np.testing.assert_array_equal(back.score_samples(held_out), lm.score_samples(held_out))
    assert back.get_params() == lm.get_params() and back.n_ngrams_ == lm.n_ngrams_


@settings(max_examples=40, deadline=None)
@given(
    edit_weights(),
    st.lists(unicode_text, min_size=1, max_size=8),
    st.lists(unicode_text, max_size=5),
    st.integers(1, 3),
)
def test_neighbours_under_a_weighted_edit_distance_equal_brute_force_and_pickle(
    weights, words, queries, k
):
    from skocrcost import EditDistanceNeighbors

    wed = WeightedEditDistance(**weights)
    k = min(k, len(words))
    nn = EditDistanceNeighbors(k, metric=wed).fit(words)
    dist, ind = nn.kneighbors(queries)
    brute = wed.pairwise(queries, words).reshape(len(queries), len(words))
    order = np.argsort(brute, axis=1, kind="stable")[:, :k]
    np.testing.assert_array_equal(ind, order)
    np.testing.assert_array_equal(dist, np.take_along_axis(brute, order, axis=1))
    back = pickle.loads(pickle.dumps(nn))
    for x, y in zip(back.kneighbors(queries), (dist, ind), strict=True):
        np.testing.assert_array_equal(x, y)

"""EditDistanceNeighbors against bad input, and valid edge cases.

Never an index left half-built.  Each row: what is called, the exception, a regex its
message must match (the rules of every table: tests/bad_inputs.py).
"""

import math

import numpy as np
import pytest
from bad_inputs import EDGE_CASES, GENERAL_WED, NN, UNIT, fitted_state
from sklearn.exceptions import NotFittedError

from skocrcost import EditCostEstimator, EditDistanceNeighbors, WeightedLevenshtein

# -- nearest neighbours (test_neighbors.py has n_neighbors 0 / too large, a missing or
# negative radius, a string X, a bad mode, an unfitted estimator as metric) -----------
NEIGHBOR_CASES = {
    "n_neighbors bool": (
        lambda: EditDistanceNeighbors(True).fit(["a"]),
        TypeError,
        "n_neighbors must be an integer",
    ),
    "n_neighbors 1.5": (lambda: EditDistanceNeighbors(1.5).fit(["a"]), ValueError, "'n_neighbors'"),
    "n_neighbors negative": (
        lambda: EditDistanceNeighbors(-1).fit(["a"]),
        ValueError,
        "'n_neighbors'",
    ),
    "n_neighbors NaN": (
        lambda: NN.kneighbors(["a"], n_neighbors=math.nan),
        TypeError,
        "n_neighbors must be an integer",
    ),
    "n_neighbors a string": (
        lambda: NN.kneighbors(["a"], n_neighbors="2"),
        TypeError,
        "n_neighbors",
    ),
    "n_neighbors beyond the lexicon": (
        lambda: NN.kneighbors(["a"], n_neighbors=3),
        ValueError,
        "n_neighbors must be <= 2",
    ),
    "empty lexicon": (lambda: EditDistanceNeighbors(1).fit([]), ValueError, "X is empty"),
    "lexicon None": (lambda: EditDistanceNeighbors(1).fit(None), TypeError, "X must be"),
    "bytes in lexicon": (
        lambda: EditDistanceNeighbors(1).fit(["a", b"b"]),
        TypeError,
        r"X\[1\] is bytes",
    ),
    "lexicon a set": (lambda: EditDistanceNeighbors(1).fit({"a"}), TypeError, "ordered"),
    "None among queries": (lambda: NN.kneighbors(["a", None]), TypeError, r"X\[1\]"),
    "NaN among queries": (lambda: NN.kneighbors([math.nan]), TypeError, r"X\[0\] is float"),
    "radius NaN": (
        lambda: NN.radius_neighbors(["a"], radius=math.nan),
        ValueError,
        "radius must be finite",
    ),
    "radius inf": (lambda: NN.radius_neighbors(["a"], radius=math.inf), ValueError, "radius"),
    "radius a string": (lambda: NN.radius_neighbors(["a"], radius="1"), TypeError, "radius"),
    "radius NaN in the constructor": (
        lambda: EditDistanceNeighbors(radius=math.nan).fit(["a"]),
        ValueError,
        "'radius'",
    ),
    "n_jobs 0": (lambda: EditDistanceNeighbors(n_jobs=0).fit(["a"]), ValueError, "n_jobs"),
    "metric a number": (lambda: EditDistanceNeighbors(metric=5).fit(["a"]), ValueError, "'metric'"),
    "transform None": (lambda: NN.transform(None), TypeError, "X must be"),
    # The trie's limit (unit costs search by bit-parallel brute force, which has none).
    "index search beyond the memory limit": (
        lambda: (
            EditDistanceNeighbors(1, metric=WeightedLevenshtein({("x", "y"): 0.5}))
            .fit(["x" * 40_000])
            .kneighbors(["y" * 40_000])
        ),
        ValueError,
        "split long lines",
    ),
}


@pytest.mark.parametrize(("call", "error", "match"), NEIGHBOR_CASES.values(), ids=NEIGHBOR_CASES)
def test_bad_input_to_the_neighbours(call, error, match):
    with pytest.raises(error, match=match):
        call()


UNFITTED_NEIGHBORS = {
    "kneighbors": lambda nn: nn.kneighbors(["a"]),
    "radius_neighbors": lambda nn: nn.radius_neighbors(["a"], 1.0),
    "kneighbors_graph": lambda nn: nn.kneighbors_graph(["a"]),
    "radius_neighbors_graph": lambda nn: nn.radius_neighbors_graph(["a"], 1.0),
    "transform": lambda nn: nn.transform(["a"]),
}


@pytest.mark.parametrize("call", UNFITTED_NEIGHBORS.values(), ids=UNFITTED_NEIGHBORS)
def test_unfitted_neighbours_raise_not_fitted(call):
    with pytest.raises(NotFittedError, match="not fitted yet"):
        call(EditDistanceNeighbors(1))


@pytest.mark.parametrize(
    ("bad", "error", "match"),
    [
        ({"n_neighbors": True}, TypeError, "n_neighbors must be an integer, got bool"),
        ({"n_jobs": 0}, ValueError, "n_jobs must be None or a non-zero integer, got 0"),
        ({"metric": EditCostEstimator()}, NotFittedError, "metric: This EditCostEstimator"),
    ],
    ids=str,
)
def test_a_failed_neighbours_refit_keeps_the_index(bad, error, match):
    nn = EditDistanceNeighbors(1).fit(["the", "cow"])
    before = fitted_state(nn)
    nn.set_params(**bad)
    with pytest.raises(error, match=match):
        nn.fit(["x", "y", "z"])
    after = fitted_state(nn)
    assert after.keys() == before.keys() and all(after[k] is before[k] for k in before)
    assert nn.set_params(n_neighbors=1, n_jobs=None, metric=None).kneighbors(["tbe"])[1][0, 0] == 0


def test_edge_case_strings_as_queries_and_lexicon():
    words = [b for _, b, _ in EDGE_CASES]
    nn = EditDistanceNeighbors(2).fit(words)
    queries = [a for a, _, _ in EDGE_CASES] + [""]
    dist, ind = nn.kneighbors(queries)
    brute = UNIT.pairwise(queries, words)
    np.testing.assert_array_equal(dist, np.sort(brute, axis=1, kind="stable")[:, :2])


# -- EditDistanceNeighbors over a WeightedEditDistance (the general DP, no trie) -----------------
NN_WED = EditDistanceNeighbors(2, metric=GENERAL_WED).fit(["modern", "the", "teh"])
NN_WED_CASES = {
    "None query": (lambda: NN_WED.kneighbors(["rnodern", None]), TypeError, r"X\[1\] is NoneType"),
    "bytes query": (lambda: NN_WED.kneighbors([b"the"]), TypeError, r"X\[0\] is bytes"),
    "a string of queries": (lambda: NN_WED.kneighbors("the"), TypeError, "not a single str"),
    "n_neighbors beyond the lexicon": (
        lambda: NN_WED.kneighbors(["the"], n_neighbors=4),
        ValueError,
        "n_neighbors must be <= 3",
    ),
    "radius NaN": (lambda: NN_WED.radius_neighbors(["the"], math.nan), ValueError, "radius"),
    "empty lexicon": (
        lambda: EditDistanceNeighbors(1, metric=GENERAL_WED).fit([]),
        ValueError,
        "X is empty",
    ),
    "None in the lexicon": (
        lambda: EditDistanceNeighbors(1, metric=GENERAL_WED).fit(["a", None]),
        TypeError,
        r"X\[1\]",
    ),
    "unfitted": (
        lambda: EditDistanceNeighbors(1, metric=GENERAL_WED).kneighbors(["a"]),
        NotFittedError,
        "not fitted yet",
    ),
}


@pytest.mark.parametrize(("call", "error", "match"), NN_WED_CASES.values(), ids=NN_WED_CASES)
def test_bad_input_to_neighbours_under_a_weighted_edit_distance(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_neighbours_under_a_weighted_edit_distance_equal_brute_force():
    queries = ["rnodern", "hte", "", "\ud800", "\U0001f600the"]
    dist, ind = NN_WED.kneighbors(queries)
    brute = GENERAL_WED.pairwise(queries, NN_WED.lexicon_)
    np.testing.assert_array_equal(ind, np.argsort(brute, axis=1, kind="stable")[:, :2])
    np.testing.assert_array_equal(dist, np.take_along_axis(brute, ind, axis=1))

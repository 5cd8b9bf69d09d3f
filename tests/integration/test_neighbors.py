"""EditDistanceNeighbors and the metric inside scikit-learn: exact search, graphs, pipelines."""

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.metrics import pairwise_distances
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import Pipeline

from skocrcost import EditCostEstimator, EditDistanceNeighbors, WeightedLevenshtein
from skocrcost.datasets import load_icdar2017_sample
from skocrcost.neighbors import lexicon_index


@pytest.fixture(scope="module")
def tokens():
    X, y = load_icdar2017_sample("tokens")
    return X[:3000], y[:3000]


@pytest.fixture(scope="module")
def learned(tokens):
    return EditCostEstimator(k=0.1).fit(*tokens)


def brute(metric, Q, words, k):
    D = metric.pairwise(Q, words)
    order = np.argsort(D, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(D, order, axis=1), order


def test_kneighbors_is_exact_with_learned_costs(tokens, learned):
    X, y = tokens
    lexicon = list(dict.fromkeys(y))
    queries = [a for a, b in zip(X, y) if a != b][:60]
    nn = EditDistanceNeighbors(4, metric=learned).fit(lexicon)
    assert nn.metric_ is learned.metric_
    got = nn.kneighbors(queries)
    for a, b in zip(got, brute(learned.metric_, queries, lexicon, 4), strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(nn.kneighbors(queries, 2, return_distance=False), got[1][:, :2])
    for n_jobs in (2, -1):
        nn.set_params(n_jobs=n_jobs)
        np.testing.assert_array_equal(nn.kneighbors(queries)[1], got[1])


def test_no_query_means_the_lexicon_without_itself():
    words = ["the", "thc", "tbe", "cow", "the"]
    nn = EditDistanceNeighbors(2).fit(words)
    dist, ind = nn.kneighbors()
    D = WeightedLevenshtein().pairwise(words)
    for q in range(len(words)):
        others = [j for j in np.argsort(D[q], kind="stable") if j != q][:2]
        assert ind[q].tolist() == others
        np.testing.assert_array_equal(dist[q], D[q, others])
    assert 4 not in ind[4] and ind[4, 0] == 0  # a duplicate at distance 0
    dist, ind = nn.radius_neighbors(radius=1.0)
    assert ind[0].tolist() == [4, 1, 2] and dist[0].tolist() == [0.0, 1.0, 1.0]


def test_radius_neighbors_and_graphs():
    wl = WeightedLevenshtein({("b", "h"): 0.2}, insertion_costs={"e": 0.5})
    words = ["the", "th", "tie", "bee"]
    nn = EditDistanceNeighbors(2, radius=0.6, metric=wl).fit(words)
    dist, ind = nn.radius_neighbors(["tb", "xyz"])
    assert ind[0].tolist() == [1] and dist[0].tolist() == pytest.approx([0.2])
    D = wl.pairwise(["tb", "xyz"], words)
    for q in range(2):
        want = [j for j in np.argsort(D[q], kind="stable") if D[q, j] <= 0.6]
        assert ind[q].tolist() == want
    assert len(ind[1]) == 0
    G = nn.kneighbors_graph(["tb"], mode="distance")
    assert G.shape == (1, 4) and G.nnz == 2
    d, i = nn.kneighbors(["tb"])
    np.testing.assert_array_equal(G.toarray()[0, i[0]], d[0])
    C = nn.radius_neighbors_graph(["tb", "xyz"])
    assert C.shape == (2, 4) and C.toarray()[0].tolist() == [0.0, 1.0, 0.0, 0.0]


def test_transform_follows_kneighbors_transformer(tokens):
    X, _ = tokens
    words = list(dict.fromkeys(X))[:300]
    nn = EditDistanceNeighbors(3)
    G = nn.fit_transform(words)
    assert G.shape == (300, 300)
    assert (np.diff(G.indptr) == 4).all()  # n_neighbors + 1: each string is its own neighbour
    assert (G.indices.reshape(300, 4)[:, 0] == np.arange(300)).all()
    assert (G.data.reshape(300, 4)[:, 0] == 0).all()
    H = nn.transform(["tbe", "c0w"])
    assert H.shape == (2, 300) and (np.diff(H.indptr) == 4).all()


def test_pipeline_with_kneighbors_classifier_on_real_strings(tokens):
    """Correct OCR tokens by the truth of the nearest training OCR token."""
    X, y = tokens
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=0)
    pipe = Pipeline(
        [
            ("nn", EditDistanceNeighbors(3)),
            ("knn", KNeighborsClassifier(1, metric="precomputed")),
        ]
    ).fit(X_train, y_train)
    pred = pipe.predict(X_test)
    nearest = EditDistanceNeighbors(1).fit(X_train).kneighbors(X_test, return_distance=False)
    assert pred.tolist() == [y_train[i] for i in nearest[:, 0]]
    seen = np.isin(X_test, X_train)  # an OCR form seen in training: its truth comes back
    assert seen.sum() > 300 and np.mean(pred[seen] == np.array(y_test)[seen]) > 0.9
    assert clone(pipe).fit(X_train, y_train).score(X_test, y_test) == pipe.score(X_test, y_test)


def test_fitted_estimator_pickles_and_refit_failure_keeps_state(learned):
    nn = EditDistanceNeighbors(2, metric=learned).fit(["the", "cow", "thc"])
    back = pickle.loads(pickle.dumps(nn))
    for a, b in zip(back.kneighbors(["tbe"]), nn.kneighbors(["tbe"]), strict=True):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="X is empty"):
        nn.fit([])
    assert nn.lexicon_ == ["the", "cow", "thc"]


def test_bad_inputs_are_named():
    with pytest.raises(NotFittedError):
        EditDistanceNeighbors().kneighbors(["a"])
    with pytest.raises(NotFittedError, match="metric"):
        EditDistanceNeighbors(metric=EditCostEstimator()).fit(["a"])
    with pytest.raises(ValueError, match="n_neighbors"):
        EditDistanceNeighbors(0).fit(["a"])
    nn = EditDistanceNeighbors(3).fit(["a", "b"])
    with pytest.raises(ValueError, match="n_neighbors must be <= 2"):
        nn.kneighbors(["a"])
    with pytest.raises(ValueError, match="n_neighbors must be <= 1"):
        nn.kneighbors(n_neighbors=2)
    with pytest.raises(ValueError, match="n_neighbors"):
        nn.transform(["a"])  # 3 + 1 neighbours of 2 words
    with pytest.raises(ValueError, match="radius"):
        nn.radius_neighbors(["a"])
    with pytest.raises(ValueError, match="radius"):
        nn.radius_neighbors(["a"], radius=-1)
    with pytest.raises(TypeError, match="X"):
        nn.kneighbors("abc", 1)
    with pytest.raises(ValueError, match="mode"):
        nn.kneighbors_graph(["a"], 1, mode="weights")
    with pytest.raises(ValueError, match="metric"):
        EditDistanceNeighbors(metric="levenshtein").fit(["a"])


class _Unit:
    """A metric the trie cannot read: only pairwise (as a richer edit model would be)."""

    def pairwise(self, X, Y, n_jobs=None):
        return WeightedLevenshtein().pairwise(X, Y)


def test_other_metrics_plug_in_by_exact_brute_force():
    words = ["the", "thc", "tbe", "cow", "then"]
    index = lexicon_index(_Unit(), words)
    assert type(index).__name__ == "_BruteIndex"
    nn = EditDistanceNeighbors(3, metric=_Unit()).fit(words)
    trie = EditDistanceNeighbors(3).fit(words)
    for a, b in zip(nn.kneighbors(["th", "c0w"]), trie.kneighbors(["th", "c0w"]), strict=True):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(nn.radius_neighbors(["th"], 1.5), trie.radius_neighbors(["th"], 1.5)):
        np.testing.assert_array_equal(a[0], b[0])


# -- sklearn.metrics.pairwise_distances -----------------------------------------------------
ASYM = WeightedLevenshtein({("a", "b"): 0.1}, deletion_costs={"c": 0.3})


@pytest.mark.parametrize("metric", [ASYM, "learned"])
@pytest.mark.parametrize("kind", ["list", "object1d", "column"])
def test_pairwise_distances_accepts_the_metric(metric, kind, learned):
    metric = learned.metric_ if metric == "learned" else metric
    X, Y = ["ab", "ba", "abc", "", "tbe"], ["b", "the", "cab"]
    conv = {
        "list": list,
        "object1d": lambda v: np.array(v, dtype=object),
        "column": lambda v: np.array(v, dtype=object).reshape(-1, 1),
    }[kind]
    got = pairwise_distances(conv(X), conv(Y), metric=metric)
    np.testing.assert_array_equal(got, metric.pairwise(X, Y))
    np.testing.assert_array_equal(
        pairwise_distances(conv(X), conv(Y), metric=metric, n_jobs=2), got
    )


def test_pairwise_distances_mirrors_the_upper_triangle_when_y_is_none():
    """The trap: scikit-learn assumes symmetry when Y is None; our pairwise does not."""
    X = ["a", "b"]
    assert ASYM.distance("a", "b") == pytest.approx(0.1) and ASYM.distance("b", "a") == 1.0
    mirrored = pairwise_distances(X, metric=ASYM)
    assert mirrored[1, 0] == mirrored[0, 1] == pytest.approx(0.1)  # wrong for d(b, a)
    np.testing.assert_array_equal(pairwise_distances(X, X, metric=ASYM), ASYM.pairwise(X))
    assert ASYM.pairwise(X)[1, 0] == 1.0


def test_metric_call_still_refuses_non_strings():
    with pytest.raises(TypeError, match="a must be a string"):
        ASYM(3, "a")
    with pytest.raises(TypeError, match="b must be a string"):
        ASYM("a", np.array(["x", "y"], dtype=object))
    assert ASYM(np.str_("a"), "b") == ASYM.distance("a", "b")
    assert hash(ASYM) == hash(WeightedLevenshtein.from_dict(ASYM.to_dict()))

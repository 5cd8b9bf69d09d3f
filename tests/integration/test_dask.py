"""skocrcost.dask on a real LocalCluster of two worker processes: the single-process results."""

import os
import pickle
from pathlib import Path

import numpy as np
import pytest
from conftest import require_module

require_module("dask")
require_module("distributed")

import dask  # noqa: E402
import dask.array as da  # noqa: E402
import dask.bag as db  # noqa: E402
import joblib  # noqa: E402
from distributed import Client, LocalCluster, get_task_stream  # noqa: E402
from sklearn.exceptions import NotFittedError  # noqa: E402
from sklearn.model_selection import GridSearchCV  # noqa: E402

import skocrcost  # noqa: E402
from skocrcost import (  # noqa: E402
    EditCostEstimator,
    EditDistanceNeighbors,
    KatzBackoffLM,
    OCRCorrector,
)
from skocrcost import dask as skdask  # noqa: E402
from skocrcost.correction import Decoder  # noqa: E402
from skocrcost.datasets import load_icdar2017_sample  # noqa: E402


@pytest.fixture(scope="module")
def sample():
    ocr, truth = load_icdar2017_sample("tokens")
    return ocr[:3000], truth[:3000]


@pytest.fixture(scope="module")
def learned(sample):
    return EditCostEstimator(k=0.1).fit(*sample).metric_


def test_local_scheduler_without_a_cluster(sample, learned):
    # Runs before the cluster starts (tests run in file order): the graph-node path.
    assert skdask._client() is None
    X, Y = sample[0][:40], sorted(set(sample[1][:300]))
    got = skdask.pairwise(db.from_sequence(X, npartitions=3), Y, learned).compute()
    assert np.array_equal(got, learned.pairwise(X, Y))
    counts = skdask.fit_counts(list(zip(*sample)), block_size=700)
    assert counts == EditCostEstimator().fit(*sample).counts_


@pytest.fixture(scope="module")
def client():
    root = Path(skocrcost.__file__).resolve().parents[1]
    with pytest.MonkeyPatch.context() as mp:
        if (root / "pyproject.toml").exists():
            # Built in place (not pip-installed): the worker processes must import this
            # source tree, whatever start method distributed uses.
            mp.setenv(
                "PYTHONPATH", os.pathsep.join(filter(None, [str(root), os.getenv("PYTHONPATH")]))
            )
        # No active memory manager: it may drop the broadcast copies of a model between
        # pairwise() and compute() (no task waits for them yet); a worker then fetches
        # its copy once, which test_pairwise_ships_the_metric_once_per_worker cannot
        # tell from a missing broadcast.
        amm_off = dask.config.set({"distributed.scheduler.active-memory-manager.start": False})
        with (
            amm_off,
            LocalCluster(
                n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
            ) as cluster,
            Client(cluster) as client,
        ):
            yield client


def test_workers_import_the_package_under_test(client):
    files = client.run(lambda: __import__("skocrcost").__file__)
    assert len(files) == 2
    assert set(files.values()) == {skocrcost.__file__}


@pytest.mark.parametrize("kind", ["list", "bag", "array"])
def test_pairwise_equals_the_single_process_result(client, sample, learned, kind):
    X, Y = sample[0][:200], sorted(set(sample[1]))[:500]
    rows = {
        "list": X,
        "bag": db.from_sequence(X, npartitions=4),
        "array": da.from_array(np.array(X, dtype=object), chunks=37),
    }[kind]
    result = skdask.pairwise(rows, Y, learned, block_size=64)
    assert result.dtype == np.float64
    got = result.compute()
    assert got.shape == (200, 500)
    assert np.array_equal(got, learned.pairwise(X, Y))


def _fetched(dask_worker):
    """Keys this worker fetched from other workers (not those sent by the client)."""
    return [str(key) for entry in dask_worker.transfer_incoming_log for key in entry["keys"]]


def test_pairwise_ships_the_metric_once_per_worker(client, sample, learned):
    X, Y = sample[0][:160], sorted(set(sample[1]))[:100]
    before = client.run(_fetched)
    with get_task_stream(client) as stream:
        result = skdask.pairwise(X, db.from_sequence(Y, npartitions=2), learned, block_size=20)
        got = result.compute()
    assert np.array_equal(got, learned.pairwise(X, Y))
    blocks = [t for t in stream.data if isinstance(t["key"], tuple) and t["key"][0] == result.name]
    assert len(blocks) == 8  # every row block ran on the cluster
    # The (metric, Y) pickle was sent to every worker up front: no worker had to fetch
    # it from another (without broadcast=True one of them does, once).
    after = client.run(_fetched)
    new = [key for w in after for key in after[w][len(before[w]) :]]
    assert not [key for key in new if key.startswith("_Shipped-")]


def _shipped(dask_worker):
    """The shipped models this worker holds: {key: (loaded, the size of a copy's pickle
    beyond its bytes)}."""
    return {
        str(key): (value._model is not None, len(pickle.dumps(value)) - len(value.blob))
        for key, value in dask_worker.data.items()
        if type(value).__name__ == "_Shipped"
    }


def test_each_worker_loads_its_own_copy_of_the_model(client, sample, corrector):
    X = sample[0][:300]
    before = client.run(_shipped)
    result = skdask.correct(X, corrector, block_size=25)

    def ours():  # worker -> (loaded, size) of this call's model
        now = client.run(_shipped)
        return {
            w: [v for key, v in held.items() if key not in before[w]] for w, held in now.items()
        }

    # Sent before computing, and held as bytes by every worker.
    sent = ours()
    assert len(sent) == 2
    assert all(len(held) == 1 and not held[0][0] for held in sent.values())
    assert result.compute().tolist() == corrector.predict(X).tolist()
    # Both workers ran blocks, each with its own copy, loaded; a copy pickles as its
    # bytes and a few dozen bytes of framing, never with the loaded model.
    after = ours()
    assert len(after) == 2
    for held in after.values():
        assert len(held) == 1 and held[0][0]
        assert held[0][1] < 200


def test_pairwise_refuses_bad_input(client, learned):
    with pytest.raises(TypeError, match="metric"):
        skdask.pairwise(["a"], ["b"], "levenshtein")
    with pytest.raises(ValueError, match="block_size"):
        skdask.pairwise(["a"], ["b"], learned, block_size=0)
    with pytest.raises(ValueError, match="X must be one-dimensional"):
        skdask.pairwise(da.from_array(np.array([["a"]], dtype=object), chunks=1), ["b"], learned)
    with pytest.raises(TypeError, match="Y must be a sequence of strings"):
        skdask.pairwise(["a"], "abc", learned)
    with pytest.raises(ValueError, match="n_jobs"):
        skdask.pairwise(["a"], ["b"], learned, n_jobs=0)
    with pytest.raises(TypeError, match=r"X must contain only strings"):
        skdask.pairwise(db.from_sequence(["a", 3]), ["b"], learned).compute()
    empty = skdask.pairwise([], ["b"], learned)
    assert empty.compute().shape == (0, 1)


@pytest.fixture(scope="module")
def index(sample, learned):
    lexicon = list(dict.fromkeys(sample[1]))  # truth tokens, first seen first
    return EditDistanceNeighbors(4, metric=learned).fit(lexicon)


@pytest.mark.parametrize("kind", ["list", "bag", "array"])
def test_kneighbors_equals_the_single_process_result(client, sample, index, kind):
    queries = [a for a, b in zip(*sample) if a != b][:150]
    rows = {
        "list": queries,
        "bag": db.from_sequence(queries, npartitions=3),
        "array": da.from_array(np.array(queries, dtype=object), chunks=40),
    }[kind]
    dist, ind = skdask.kneighbors(rows, index, block_size=64)
    assert (dist.dtype, ind.dtype) == (np.float64, np.int64)
    dist, ind = dask.compute(dist, ind)
    want_dist, want_ind = index.kneighbors(queries)
    assert np.array_equal(dist, want_dist) and np.array_equal(ind, want_ind)
    only = skdask.kneighbors(queries, index, 2, return_distance=False).compute()
    assert np.array_equal(only, index.kneighbors(queries, 2, return_distance=False))


def test_kneighbors_refuses_bad_input(client, index):
    with pytest.raises(TypeError, match="index"):
        skdask.kneighbors(["a"], ["the", "cat"])
    with pytest.raises(NotFittedError):
        skdask.kneighbors(["a"], EditDistanceNeighbors())
    with pytest.raises(ValueError, match="n_neighbors"):
        skdask.kneighbors(["a"], index, index.n_samples_fit_ + 1)
    with pytest.raises(ValueError, match="block_size"):
        skdask.kneighbors(["a"], index, block_size=-1)
    with pytest.raises(TypeError, match="queries must contain only strings"):
        skdask.kneighbors(db.from_sequence(["a", None]), index)[1].compute()


@pytest.fixture(scope="module")
def corrector(sample):
    return OCRCorrector(EditCostEstimator(k=0.1)).fit(*sample)


@pytest.mark.parametrize("kind", ["list", "bag", "array"])
def test_correct_equals_the_single_process_result(client, sample, corrector, kind):
    ocr, truth = load_icdar2017_sample("tokens")
    texts = ocr[3000:3400]  # held out from the corrector's training pairs
    want = corrector.predict(texts)
    assert (want != np.array(texts, dtype=object)).any()  # it does correct something
    rows = {
        "list": texts,
        "bag": db.from_sequence(texts, npartitions=3),
        "array": da.from_array(np.array(texts, dtype=object), chunks=90),
    }[kind]
    fixed = skdask.correct(rows, corrector, block_size=128)
    assert isinstance(fixed, db.Bag if kind == "bag" else da.Array)
    assert list(fixed.compute()) == want.tolist()


def test_correct_refuses_bad_input(client, corrector):
    with pytest.raises(TypeError, match="corrector"):
        skdask.correct(["tbe"], EditDistanceNeighbors)
    with pytest.raises(NotFittedError):
        skdask.correct(["tbe"], OCRCorrector())
    with pytest.raises(ValueError, match="block_size"):
        skdask.correct(["tbe"], corrector, block_size=0)
    with pytest.raises(TypeError, match="texts must contain only strings"):
        skdask.correct(db.from_sequence(["tbe", 1]), corrector).compute()
    with pytest.raises(TypeError, match="texts must be a sequence of strings"):
        skdask.correct("tbe", corrector)


@pytest.mark.parametrize("model", ["unified", "bounded"])
def test_fit_counts_learns_the_single_machine_costs_exactly(client, sample, model):
    X, y = sample
    whole = EditCostEstimator().fit(X, y)
    counts = skdask.fit_counts(db.from_sequence(list(zip(X, y)), npartitions=5))
    assert counts == whole.counts_
    for k in (0.0, 0.03, 1.0):
        alone = EditCostEstimator(k=k, model=model).fit(X, y)
        merged = EditCostEstimator(k=k, model=model).fit_from_counts(counts)
        assert merged.costs_ == alone.costs_
        assert np.array_equal(merged.channel_.logp, alone.channel_.logp)
        assert merged.score(X[:500], y[:500]) == alone.score(X[:500], y[:500])


def test_fit_counts_with_a_learned_aligner(client, sample, learned):
    X, y = sample
    counts = skdask.fit_counts(list(zip(X, y)), aligner=learned, block_size=400)
    assert counts == EditCostEstimator(initial_metric=learned).fit(X, y).counts_


def test_fit_counts_refuses_bad_pairs(client, learned):
    with pytest.raises(TypeError, match="pairs"):
        skdask.fit_counts("tbe the")
    with pytest.raises(ValueError, match="pairs is empty"):
        skdask.fit_counts([])
    with pytest.raises(TypeError, match="aligner"):
        skdask.fit_counts([("a", "b")], aligner=EditCostEstimator())
    with pytest.raises(TypeError, match="pairs"):
        skdask.fit_counts(da.from_array(np.array(["a"], dtype=object), chunks=1))
    with pytest.raises(TypeError, match=r"\(ocr, truth\) pairs"):
        skdask.fit_counts(db.from_sequence([("a", "b"), ("c",)]))
    with pytest.raises(TypeError, match="y must contain only strings"):
        skdask.fit_counts([("a", None)])


def test_grid_search_runs_on_the_cluster_with_the_same_results(client, sample):
    X, y = sample[0][:1500], sample[1][:1500]
    grid = {"k": [0.01, 0.1, 1.0], "model": ["unified", "bounded"]}
    alone = GridSearchCV(EditCostEstimator(), grid, cv=3).fit(X, y)
    with get_task_stream(client) as stream, joblib.parallel_config(backend="dask"):
        spread = GridSearchCV(EditCostEstimator(), grid, cv=3, n_jobs=-1).fit(X, y)
    assert len(stream.data) > 0  # the fits ran on the workers
    assert spread.best_params_ == alone.best_params_
    for key in ("mean_test_score", *(f"split{i}_test_score" for i in range(3))):
        assert np.array_equal(spread.cv_results_[key], alone.cv_results_[key])
    assert spread.best_estimator_.costs_ == alone.best_estimator_.costs_


def test_grid_search_over_the_corrector_runs_on_the_cluster(client, sample):
    X, y = sample[0][:1200], sample[1][:1200]
    grid = {"estimator__k": [0.03, 1.0], "decoder__reject_margin": [0.0, None]}
    base = OCRCorrector(EditCostEstimator(), decoder=Decoder(n_candidates=3))
    alone = GridSearchCV(base, grid, cv=3).fit(X, y)
    with get_task_stream(client) as stream, joblib.parallel_config(backend="dask"):
        spread = GridSearchCV(base, grid, cv=3, n_jobs=-1).fit(X, y)
    assert len(stream.data) > 0
    assert spread.best_params_ == alone.best_params_
    assert np.array_equal(
        spread.cv_results_["mean_test_score"], alone.cv_results_["mean_test_score"]
    )
    assert np.array_equal(spread.predict(X[:200]), alone.predict(X[:200]))


def test_grid_search_over_the_language_model_discount_runs_on_the_cluster(client):
    sentences = load_icdar2017_sample("lines")[1][:1500]
    grid = {"discount": [0.3, 0.6, 0.9], "order": [1, 2]}
    alone = GridSearchCV(KatzBackoffLM(), grid, cv=3).fit(sentences)
    with get_task_stream(client) as stream, joblib.parallel_config(backend="dask"):
        spread = GridSearchCV(KatzBackoffLM(), grid, cv=3, n_jobs=-1).fit(sentences)
    assert len(stream.data) > 0  # the fits ran on the workers
    assert spread.best_params_ == alone.best_params_
    assert np.array_equal(
        spread.cv_results_["mean_test_score"], alone.cv_results_["mean_test_score"]
    )

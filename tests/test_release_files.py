"""Files written by release 0.1.0 (tests/data/release-0.1.0, see make_release_files.py)
load with today's code and give the answers written beside them, bit for bit."""

import json
import pickle
from pathlib import Path

import numpy as np
import pytest

from skocrcost import EditCostEstimator, WeightedLevenshtein
from skocrcost.correction import Decoder

RELEASE = Path(__file__).resolve().parent / "data" / "release-0.1.0"


@pytest.fixture(scope="module")
def answers():
    with open(RELEASE / "answers.json") as f:
        return json.load(f)


@pytest.fixture(scope="module")
def objects():
    with open(RELEASE / "objects.pkl", "rb") as f:
        return pickle.load(f)


def test_the_pickles_name_the_modules_of_release_0_1_0():
    # What the file asks for: the alias modules must keep answering these names.
    seen = set()

    class Recording(pickle.Unpickler):
        def find_class(self, module, name):
            seen.add((module, name))
            return super().find_class(module, name)

    with open(RELEASE / "objects.pkl", "rb") as f:
        Recording(f).load()
    assert ("skocrcost._index", "_rebuild") in seen
    assert ("skocrcost.metrics", "WeightedLevenshtein") in seen


@pytest.mark.parametrize("name", ["metric", "general", "unit", "on_grid"])
def test_pickled_metrics_give_the_same_distances(objects, answers, name):
    metric = objects[name]
    assert isinstance(metric, WeightedLevenshtein)
    got = metric.pairwise(answers["queries"], answers["truths"])
    np.testing.assert_array_equal(got, np.array(answers[name]))


def test_pickled_weighted_edit_distance(objects, answers):
    wed = objects["wed"]
    got = [wed.distance(a, b) for a, b in zip(answers["queries"], answers["truths"])]
    assert got == answers["wed"]


@pytest.mark.parametrize("name", ["neighbors", "neighbors_unit"])
def test_pickled_neighbours_find_the_same_words(objects, answers, name):
    dist, ind = objects[name].kneighbors(answers["queries"])
    np.testing.assert_array_equal(dist, np.array(answers[name][0]))
    np.testing.assert_array_equal(ind, np.array(answers[name][1]))


def test_pickled_corrector_and_estimator(objects, answers):
    from skocrcost.datasets import load_icdar2017_sample

    # Since 0.2 every string is a line read by the decoder, which reads "0CR" as "OR" (was
    # "I"); and its candidates lie within a cost of 3 (MAX_COST): "Smyth" and "hiftory"
    # have none, and stay (were "with" and "tore").
    changed = {"Smyth": "Smyth", "0CR": "OR", "hiftory": "hiftory"}
    expected = [changed.get(q, a) for q, a in zip(answers["queries"], answers["corrector"])]
    assert objects["corrector"].predict(answers["queries"]).tolist() == expected
    # Its weights were pickled as its own parameters: they are its decoder's now, and
    # it reads no joins, as when it was pickled (join_cost defaults to 3 since).
    was = Decoder(n_candidates=10, join_cost=None)
    assert objects["corrector"].decoder.get_params() == was.get_params()
    assert "n_candidates" not in vars(objects["corrector"])
    X, y = load_icdar2017_sample("tokens")
    assert objects["estimator"].score(X[1500:1600], y[1500:1600]) == answers["estimator"]
    assert float(objects["lm"].score(y[1500:1600])) == answers["lm"]


def test_saved_json_files_load(objects, answers):
    est = EditCostEstimator.load(RELEASE / "estimator.json")
    metric = WeightedLevenshtein.load(RELEASE / "metric.json")
    general = WeightedLevenshtein.load(RELEASE / "general.json")
    assert metric == objects["metric"] and general == objects["general"]
    for name, got in (("metric", metric), ("metric", est.metric_), ("general", general)):
        np.testing.assert_array_equal(
            got.pairwise(answers["queries"], answers["truths"]), np.array(answers[name])
        )

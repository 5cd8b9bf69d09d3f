"""Cost models as files: save/load round trips, ocr-stringdist reading them, bad files."""

import gzip
import json
import pickle
import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import require_module
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from skocrcost import EditCostEstimator, WeightedLevenshtein
from skocrcost.datasets import load_icdar2017_sample


@pytest.fixture(scope="module")
def fitted():
    X, y = load_icdar2017_sample("tokens")
    return EditCostEstimator(k=0.1).fit(X[:4000], y[:4000]), (X[4000:4300], y[4000:4300])


@pytest.mark.parametrize("name", ["costs.json", "costs.json.gz"])
def test_metric_round_trip(tmp_path, fitted, name):
    est, (X, y) = fitted
    path = tmp_path / name
    est.metric_.save(path)
    back = WeightedLevenshtein.load(str(path))
    assert back == est.metric_
    np.testing.assert_array_equal(
        back.pairwise(X[:50], y[:50]), est.metric_.pairwise(X[:50], y[:50])
    )
    if name.endswith(".gz"):
        with gzip.open(path, "rt") as f:
            assert "substitution_costs" in json.load(f)


def test_ocr_stringdist_reads_our_files_and_we_read_theirs(tmp_path, fitted):
    ocrsd = require_module("ocr_stringdist")
    est, (X, y) = fitted
    path = tmp_path / "costs.json"
    est.save(path)  # an estimator file: ocr-stringdist must read its costs too
    with open(path) as f:
        theirs = ocrsd.WeightedLevenshtein.from_dict(json.load(f))
    alphabet = set(est.vocabulary_)
    pairs = [(a, b) for a, b in zip(X, y) if set(a + b) <= alphabet and a != b]
    assert len(pairs) > 3
    pairs += [(b, a) for a, b in pairs]
    pairs += [(a, b) for a, b in zip(X[:30], y[30:60]) if set(a + b) <= alphabet]
    for a, b in pairs:
        assert theirs.distance(a, b) == pytest.approx(est.metric_.distance(a, b), abs=1e-9)
    # ...and theirs, written by them, read by us.
    mine = ocrsd.WeightedLevenshtein(
        {("0", "O"): 0.1, ("l", "1"): 0.4}, insertion_costs={"e": 0.5}, deletion_costs={"-": 0.2}
    )
    with open(tmp_path / "theirs.json", "w") as f:
        json.dump(mine.to_dict(), f)
    ours = WeightedLevenshtein.load(tmp_path / "theirs.json")
    for a, b in [("0CR", "OCR"), ("O1", "0l"), ("th", "the"), ("ab-", "ba")]:
        assert ours.distance(a, b) == pytest.approx(mine.distance(a, b))


@pytest.mark.parametrize("name", ["model.json", "model.json.gz"])
def test_estimator_round_trip_keeps_score_and_transform(tmp_path, fitted, name):
    est, (X, y) = fitted
    est.save(tmp_path / name)
    back = EditCostEstimator.load(tmp_path / name)
    assert back.get_params() == est.get_params()
    assert back.metric_ == est.metric_
    assert back.counts_ == est.counts_
    assert back.vocabulary_ == est.vocabulary_ and back.n_iter_ == est.n_iter_
    assert back.score(X, y) == est.score(X, y)
    assert back.references_ == est.references_
    np.testing.assert_array_equal(back.transform(X[:3]), est.transform(X[:3]))
    # A loaded estimator refits like a new one.
    assert back.fit(X, y).score(X, y) == pytest.approx(
        EditCostEstimator(k=0.1).fit(X, y).score(X, y)
    )


def test_estimator_with_initial_metric_and_bounded_model(tmp_path):
    aligner = WeightedLevenshtein({("b", "h"): 0.2})
    est = EditCostEstimator(
        k=0.5, model="bounded", initial_metric=aligner, references=["the", "cat"]
    )
    est.fit(["tbe", "cat", "dog"], ["the", "cat", "dog"])
    est.save(tmp_path / "m.json")
    back = EditCostEstimator.load(tmp_path / "m.json")
    assert back.initial_metric == aligner and back.references == ["the", "cat"]
    assert back.model == "bounded"
    assert back.metric_ == est.metric_
    assert back.score(["tbe"], ["the"]) == est.score(["tbe"], ["the"])


def test_the_deprecated_names_are_saved_under_the_new_ones(tmp_path):
    aligner = WeightedLevenshtein({("b", "h"): 0.2})
    with pytest.warns(FutureWarning):
        est = EditCostEstimator(k=0.5, model="legacy", aligner=aligner, alignment="forward")
        est.fit(["tbe", "cat", "dog"], ["the", "cat", "dog"])
    est.save(tmp_path / "m.json")
    params = json.loads((tmp_path / "m.json").read_text())["skocrcost_estimator"]["params"]
    assert "aligner" not in params and "alignment" not in params
    assert params["model"] == "bounded" and params["counting"] == "forward"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing deprecated is read back
        back = EditCostEstimator.load(tmp_path / "m.json")
    assert back.initial_metric == aligner and back.aligner == "deprecated"
    assert back.metric_ == est.metric_


# Files written by skocrcost 0.1.0 (the release before initial_metric, counting and
# model="bounded" had these names), with what they answered then: they load and
# answer the same.
RELEASE = Path(__file__).resolve().parents[1] / "data" / "release-0.1.0"


def _answers(est, expected):
    Q, T = ["tbe", "c0w", "rnay"], ["the", "cow", "may"]
    assert est.score(Q, T) == expected["score"]
    if "transform" in expected:
        np.testing.assert_array_equal(est.transform(Q), expected["transform"])
    if "pairwise" in expected:
        np.testing.assert_array_equal(est.metric_.pairwise(Q, T), expected["pairwise"])


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("legacy_aligner", {"model": "bounded", "counting": "viterbi", "k": 0.5}),
        ("forward_rules", {"model": "unified", "counting": "forward", "max_token_length": 2}),
    ],
)
def test_json_written_by_the_previous_release_loads(name, params):
    expected = json.loads((RELEASE / "expected.json").read_text())[name]
    file = {"legacy_aligner": "estimator_legacy_aligner.json"}.get(
        name, "estimator_forward_rules.json"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # old names in a file are read silently
        est = EditCostEstimator.load(RELEASE / file)
    assert {k: est.get_params()[k] for k in params} == params
    assert est.aligner == "deprecated" and est.alignment == "deprecated"
    if name == "legacy_aligner":
        assert est.initial_metric == WeightedLevenshtein({("b", "h"): 0.2})
    _answers(est, expected)


def test_pickles_written_by_the_previous_release_load():
    expected = json.loads((RELEASE / "expected.json").read_text())
    with open(RELEASE / "estimators.pkl", "rb") as f:
        old = pickle.load(f)  # noqa: S301 - a file of this repository
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in ("legacy_aligner", "forward_rules"):
            _answers(old[name], expected[name])
    a = old["legacy_aligner"]
    assert a.get_params()["model"] == "bounded"
    assert a.initial_metric == WeightedLevenshtein({("b", "h"): 0.2})
    assert old["forward_rules"].counting == "forward"
    unfitted = old["unfitted"]
    assert (unfitted.model, unfitted.counting, unfitted.aligner) == (
        "bounded",
        "forward",
        "deprecated",
    )
    # They refit and clone like estimators made today.
    assert clone(a).get_params() == a.get_params()
    refit = clone(a).fit(["tbe", "cat"], ["the", "cat"])
    assert (
        refit.metric_
        == EditCostEstimator(
            k=0.5, model="bounded", initial_metric=a.initial_metric, references=["the", "cow"]
        )
        .fit(["tbe", "cat"], ["the", "cat"])
        .metric_
    )


def test_saved_without_references(tmp_path, fitted):
    est, (X, y) = fitted
    est.save(tmp_path / "m.json", include_references=False)
    assert len(json.loads((tmp_path / "m.json").read_text())["skocrcost_estimator"]["vocabulary"])
    back = EditCostEstimator.load(tmp_path / "m.json")
    assert back.score(X, y) == est.score(X, y)
    with pytest.raises(ValueError, match="no references"):
        back.transform(X[:2])


def test_unfitted_estimator_cannot_be_saved(tmp_path):
    with pytest.raises(NotFittedError):
        EditCostEstimator().save(tmp_path / "m.json")


def _tamper(path, change):
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda d: d["substitution_costs"][0].update(cost=0.0), "disagree with the counts"),
        (lambda d: d["skocrcost_estimator"].update(format_version=99), "format_version"),
        (lambda d: d["skocrcost_estimator"]["params"].update(k=-1), "'k'"),
        (lambda d: d["skocrcost_estimator"]["params"].pop("k"), "params"),
        (lambda d: d["skocrcost_estimator"]["counts"].append(-3), "'counts'"),
        (lambda d: d["skocrcost_estimator"]["rows"].append(10**6), "same length"),
        (lambda d: d["skocrcost_estimator"]["rows"].__setitem__(0, 10**6), "ids must be"),
        (lambda d: d["skocrcost_estimator"]["vocabulary"].reverse(), "sorted"),
        (lambda d: d["skocrcost_estimator"].update(n_iter=0), "n_iter"),
        (lambda d: d.pop("skocrcost_estimator"), "WeightedLevenshtein.load"),
    ],
)
def test_bad_estimator_files_are_refused_naming_the_problem(tmp_path, change, match):
    est = EditCostEstimator(k=0.5).fit(["tbe", "cat"], ["the", "cat"])
    path = tmp_path / "m.json"
    est.save(path)
    _tamper(path, change)
    with pytest.raises((ValueError, TypeError), match=match):
        EditCostEstimator.load(path)


def test_files_that_are_not_cost_models(tmp_path):
    (tmp_path / "bad.json").write_text("{not json")
    (tmp_path / "list.json").write_text("[1, 2]")
    (tmp_path / "bad.json.gz").write_bytes(b"plain, not gzip")
    for name in ("bad.json", "bad.json.gz"):
        with pytest.raises(ValueError, match="not a JSON cost model"):
            WeightedLevenshtein.load(tmp_path / name)
    with pytest.raises(ValueError, match="not an object"):
        EditCostEstimator.load(tmp_path / "list.json")
    with pytest.raises(FileNotFoundError):
        WeightedLevenshtein.load(tmp_path / "missing.json")
    with pytest.raises(TypeError, match="path"):
        WeightedLevenshtein().save(3)

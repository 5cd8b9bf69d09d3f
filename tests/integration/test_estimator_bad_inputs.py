"""EditCostEstimator against bad parameters and data, and valid edge cases.

Never an estimator left half-fitted.  Each row: what is called, the exception, a regex
its message must match (the rules of every table: tests/bad_inputs.py).
"""

import math
import pickle

import numpy as np
import pytest
from bad_inputs import EDGE_CASES, PAIRS, fitted_state
from sklearn.exceptions import NotFittedError

from skocrcost import EditCostEstimator, WeightedEditDistance, WeightedLevenshtein

# -- the estimator ---------------------------------------------------------------------
BAD_PARAMS = {
    "k negative": ({"k": -1}, ValueError, "'k'"),
    "k NaN": ({"k": math.nan}, ValueError, "'k'"),
    "k inf": ({"k": math.inf}, ValueError, "'k'"),
    "k string": ({"k": "1"}, TypeError, "'k'"),
    "k None": ({"k": None}, TypeError, "'k'"),
    "k bool": ({"k": True}, TypeError, "k must be a number"),
    "unknown model": ({"model": "bayes"}, ValueError, "'model'"),
    "model None": ({"model": None}, ValueError, "'model'"),
    "max_iter 0": ({"max_iter": 0}, ValueError, "'max_iter'"),
    "max_iter 1.5": ({"max_iter": 1.5}, TypeError, "'max_iter'"),
    "max_iter bool": ({"max_iter": True}, TypeError, "max_iter must be an integer"),
    "aligner a string": ({"aligner": "unit"}, TypeError, "'aligner'"),
    "n_jobs 0": ({"n_jobs": 0}, ValueError, "n_jobs"),
    "n_jobs 1.5": ({"n_jobs": 1.5}, TypeError, "'n_jobs'"),
    "references empty": ({"references": []}, ValueError, "references is empty"),
    "references with None": ({"references": ["a", None]}, TypeError, r"references\[1\]"),
    "references a string": ({"references": "abc"}, ValueError, "'references'"),
}
BAD_DATA = {
    "lengths differ": ((["a", "b"], ["a"]), ValueError, "X and y must have the same length"),
    "empty X": (([], []), ValueError, "X is empty"),
    "None in X": ((["a", None], ["a", "b"]), TypeError, r"X\[1\] is NoneType"),
    "NaN in X": (([math.nan], ["a"]), TypeError, r"X\[0\] is float"),
    "int in y": ((["a"], [3]), TypeError, r"y\[0\] is int"),
    "bytes in y": ((["a"], [b"a"]), TypeError, r"y\[0\] is bytes"),
    "X a string": (("ab", "ab"), TypeError, "X must be a sequence of strings, not a single str"),
    "X None": ((None, ["a"]), TypeError, "X must be a sequence"),
    "y None": ((["a"], None), TypeError, "y must be a sequence"),
    "X 2-D": ((np.array([["a"]]), ["a"]), ValueError, "one-dimensional"),
    "X a set": (({"a", "b"}, ["a", "b"]), TypeError, "X must be an ordered sequence"),
    "a pair beyond the alignment limit": (
        (["a", "x" * 40_000], ["a", "y" * 40_000]),
        ValueError,
        r"aligning X\[1\] and Y\[1\]",
    ),
}


@pytest.mark.parametrize(("params", "error", "match"), BAD_PARAMS.values(), ids=BAD_PARAMS)
def test_bad_parameters_are_refused_in_fit_and_a_refit_keeps_the_fit(params, error, match):
    with pytest.raises(error, match=match):
        EditCostEstimator(**params).fit(*PAIRS)
    est = EditCostEstimator().fit(*PAIRS)
    before = fitted_state(est)
    est.set_params(**params)
    with pytest.raises(error, match=match):
        est.fit(["x", "y"], ["x", "z"])
    after = fitted_state(est)
    assert after.keys() == before.keys()
    assert all(after[k] is before[k] for k in before)  # the same objects: nothing replaced


@pytest.mark.parametrize(("data", "error", "match"), BAD_DATA.values(), ids=BAD_DATA)
def test_bad_data_is_refused_and_a_failed_refit_keeps_the_fit(data, error, match):
    est = EditCostEstimator().fit(*PAIRS)
    before = fitted_state(est)
    with pytest.raises(error, match=match):
        est.fit(*data)
    after = fitted_state(est)
    assert all(after[k] is before[k] for k in before) and after.keys() == before.keys()
    if data[1] is not None and not isinstance(data[1], str):
        with pytest.raises(error, match=match):
            est.score(*data)


UNFITTED = {
    "score": lambda est: est.score(["a"], ["a"]),
    "score_samples": lambda est: est.score_samples(["a"], ["a"]),
    "transform": lambda est: est.transform(["a"]),
    "get_feature_names_out": lambda est: est.get_feature_names_out(),
}


@pytest.mark.parametrize("call", UNFITTED.values(), ids=UNFITTED)
def test_unfitted_estimator_raises_not_fitted(call):
    with pytest.raises(NotFittedError, match="not fitted yet"):
        call(EditCostEstimator())


FITTED_BAD = {
    "score_samples beyond the alignment limit": (
        lambda est: est.score_samples(["a", "x" * 40_000], ["a", "y" * 40_000]),
        ValueError,
        r"aligning X\[1\] and Y\[1\]",
    ),
    "transform None": (lambda est: est.transform(None), TypeError, "X must be a sequence"),
    "transform empty": (lambda est: est.transform([]), ValueError, "X is empty"),
    "transform None item": (lambda est: est.transform(["a", None]), TypeError, r"X\[1\]"),
    "score_samples bytes": (
        lambda est: est.score_samples([b"a"], ["a"]),
        TypeError,
        r"X\[0\] is bytes",
    ),
}


@pytest.mark.parametrize(("call", "error", "match"), FITTED_BAD.values(), ids=FITTED_BAD)
def test_bad_input_to_a_fitted_estimator(call, error, match):
    est = EditCostEstimator().fit(*PAIRS)
    with pytest.raises(error, match=match):
        call(est)


def test_edge_case_strings_in_learned_costs():
    X = [a for a, _, _ in EDGE_CASES]
    y = [b for _, b, _ in EDGE_CASES]
    est = EditCostEstimator().fit(X, y)
    assert "\ud800" in est.vocabulary_ and "\U0010ffff" in est.vocabulary_
    assert np.all(np.isfinite(est.score_samples(X, y)))
    assert est.metric_.distance("\ud800", "\udc00") < 1.0  # seen once: cheaper than unseen
    back = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(back.transform(X), est.transform(X))


@pytest.mark.parametrize(
    "params",
    [{"k": 0.0}, {"k": 0.1}, {"smoothing": "katz"}, {"smoothing": "katz", "discount": 0.9}],
)
def test_legacy_insertions_outnumbering_the_ocr_characters(params):
    # The legacy model divides insertion counts by the number of OCR characters:
    # here 1 / 0 (k = 0) and 1.1 / 0.1 (k = 0.1), "probabilities" of inf and 11 that
    # gave costs of -inf and -3.46 (Katz: (1 - d) / 0).  They are capped at probability 1.
    est = EditCostEstimator(model="legacy", **params).fit([""], ["0"])
    assert est.costs_.insertion_cost("0") == 0.0
    assert est.metric_.distance("", "0") == 0.0
    assert est.score([""], ["0"]) == 0.0
    assert np.all(est.costs_.ins >= 0)


# -- EditCostEstimator's multi-character and alignment parameters ------------------------------
MULTI_PARAMS = {
    "max_token_length 0": ({"max_token_length": 0}, ValueError, "'max_token_length'"),
    "max_token_length 2.5": ({"max_token_length": 2.5}, ValueError, "'max_token_length'"),
    "max_token_length None": ({"max_token_length": None}, ValueError, "'max_token_length'"),
    "max_token_length bool": (
        {"max_token_length": True},
        TypeError,
        "max_token_length must be an integer",
    ),
    "min_count 0": ({"min_count": 0}, ValueError, "'min_count'"),
    "min_count NaN": ({"min_count": math.nan}, ValueError, "'min_count'"),
    "min_count bool": ({"min_count": True}, TypeError, "min_count must be an integer"),
    "unknown alignment": ({"alignment": "em"}, ValueError, "'alignment'"),
    "forward with Katz": (
        {"alignment": "forward", "smoothing": "katz"},
        ValueError,
        "alignment='forward' needs smoothing='additive'",
    ),
    "aligner with a rule": (
        {"aligner": WeightedLevenshtein({("rn", "m"): 0.1})},
        ValueError,
        "aligner must have single-character costs only",
    ),
    "aligner with transpositions": (
        {"aligner": WeightedLevenshtein(default_transposition_cost=1.0)},
        ValueError,
        "aligner must have single-character costs only",
    ),
    "aligner a WeightedEditDistance": (
        {"aligner": WeightedEditDistance()},
        ValueError,
        "'aligner'",
    ),
}


@pytest.mark.parametrize(("params", "error", "match"), MULTI_PARAMS.values(), ids=MULTI_PARAMS)
def test_bad_multi_character_parameters_keep_the_fit(params, error, match):
    est = EditCostEstimator().fit(*PAIRS)
    before = fitted_state(est)
    with pytest.raises(error, match=match):
        est.set_params(**params).fit(["rn", "a"], ["m", "b"])
    after = fitted_state(est)
    assert after.keys() == before.keys() and all(after[k] is before[k] for k in before)

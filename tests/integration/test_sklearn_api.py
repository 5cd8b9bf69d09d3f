"""The scikit-learn API contract of the estimators that take strings.

scikit-learn's ``check_estimator`` feeds numeric arrays, which these estimators
refuse by design (X is a sequence of strings).  So the individual checks that
do not fit on data run as scikit-learn wrote them, and those that fit on
numeric data are run here again on strings, doing what the check does.
"""

import pickle

import joblib
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils import estimator_checks as checks
from sklearn.utils.validation import check_is_fitted

from skocrcost import EditCostEstimator, EditDistanceNeighbors, KatzBackoffLM, OCRCorrector

OCR = ["tbe", "c0w", "Tlie", "aud", "the", "cow", "1t", "of"]
TRUTH = ["the", "cow", "The", "and", "the", "cow", "It", "of"]


def _fit(est):
    """Fit on strings: (OCR, truth) pairs, a lexicon, or sentences."""
    if isinstance(est, EditCostEstimator):
        return est.fit(OCR, TRUTH)
    if isinstance(est, KatzBackoffLM):
        return est.fit(["the cow", "the house", "his cow"])
    if isinstance(est, OCRCorrector):
        return est.fit(OCR, TRUTH)
    return est.fit(TRUTH)


def _outputs(est):
    """What a fitted estimator answers, to compare two of them."""
    if isinstance(est, EditCostEstimator):
        return est.transform(OCR), est.score(OCR, TRUTH)
    if isinstance(est, KatzBackoffLM):
        return (est.score_samples(["the cow", "his house"]),)
    if isinstance(est, OCRCorrector):
        return est.predict(["Tbe c0w aud tbe house", *OCR]), est.score(OCR, TRUTH)
    return est.kneighbors(OCR, 2)


ESTIMATORS = [
    EditCostEstimator(k=0.5),
    EditCostEstimator(k=0.5, resolution=2**-16, max_token_length=2, min_count=1),
    EditDistanceNeighbors(2),
    KatzBackoffLM(order=3),
    OCRCorrector(lexicon=None),
]
IDS = [
    "EditCostEstimator",
    "EditCostEstimator-rules",
    "EditDistanceNeighbors",
    "KatzBackoffLM",
    "OCRCorrector",
]

# scikit-learn's own checks that need no numeric data: parameters, cloning, repr, tags.
SKLEARN_CHECKS = [
    checks.check_get_params_invariance,
    checks.check_set_params,
    checks.check_no_attributes_set_in_init,
    checks.check_parameters_default_constructible,
    checks.check_estimators_unfitted,  # predict/transform before fit: NotFittedError
    checks.check_estimator_cloneable,
    checks.check_estimator_repr,
    checks.check_estimator_tags_renamed,
    checks.check_valid_tag_types,
    checks.check_mixin_order,
    checks.check_do_not_raise_errors_in_init_or_set_params,
    checks.check_param_validation,  # every constraint refuses a value that breaks it
]
# Not run as written, because they fit on numeric arrays (make_blobs) that these
# estimators refuse: check_fit_check_is_fitted, check_estimators_overwrite_params,
# check_dont_overwrite_parameters and check_estimators_pickle are done on strings
# below.  check_n_features_in does not apply: a sequence of strings has no
# features, so there is no n_features_in_.  check_set_output_transform and
# check_transformer_get_feature_names_out skip estimators whose input is not a
# 2-D array; test_set_output_gives_a_dataframe_named_by_the_references does it.


@pytest.mark.parametrize("check", SKLEARN_CHECKS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_sklearn_check(est, check):
    check(type(est).__name__, clone(est))


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_fit_check_is_fitted(est):
    est = clone(est)
    with pytest.raises(NotFittedError):
        check_is_fitted(est)
    check_is_fitted(_fit(est))


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_fit_does_not_change_the_parameters(est):
    # check_estimators_overwrite_params: every parameter is the same object, or
    # an equal one, after fit.
    est = clone(est)
    before = {k: joblib.hash(v) for k, v in est.get_params().items()}
    _fit(est)
    after = {k: joblib.hash(v) for k, v in est.get_params().items()}
    assert after == before


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_fit_adds_only_private_or_fitted_attributes(est):
    # check_dont_overwrite_parameters: fit adds no public attribute without a
    # trailing underscore.
    est = clone(est)
    before = set(vars(est))
    _fit(est)
    added = set(vars(est)) - before
    assert added and all(a.startswith("_") or a.endswith("_") for a in added), added


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_pickle_round_trip_answers_the_same(est):
    # check_estimators_pickle, on strings.
    fitted = _fit(clone(est))
    back = pickle.loads(pickle.dumps(fitted))
    expected, got = _outputs(fitted), _outputs(back)
    for a, b in zip(expected, got, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    ("est", "attribute"),
    [
        (EditCostEstimator(), "metric_"),
        (EditCostEstimator(), "costs_"),
        (EditDistanceNeighbors(), "lexicon_"),
        (KatzBackoffLM(), "vocabulary_"),
    ],
)
def test_a_fitted_attribute_before_fit_raises_not_fitted(est, attribute):
    with pytest.raises(NotFittedError, match=f"not fitted yet: {attribute} is set by 'fit'"):
        getattr(est, attribute)
    # NotFittedError is an AttributeError: hasattr and getattr with a default still work.
    assert not hasattr(est, attribute)
    assert getattr(est, attribute, None) is None
    with pytest.raises(AttributeError) as info:
        getattr(est, "no_such_attribute_")  # noqa: B009 - the lookup is what is tested
    assert not isinstance(info.value, NotFittedError)


class _FrameLike:
    """The parts of a pandas DataFrame that input checks look at."""

    ndim = 2
    columns = ("ocr", "truth")

    def to_numpy(self):
        return np.array([["tbe", "the"], ["c0w", "cow"]], dtype=object)


def test_a_dataframe_as_x_asks_for_one_column():
    with pytest.raises(ValueError, match=r"X is a DataFrame with 2 column\(s\); pass one column"):
        EditCostEstimator().fit(_FrameLike(), ["the", "cow"])
    with pytest.raises(ValueError, match=r"X is a DataFrame .* e\.g\. X\['ocr'\]"):
        EditDistanceNeighbors(1).fit(_FrameLike())


def test_a_pandas_dataframe_as_x_asks_for_one_column_and_a_column_works():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"ocr": ["tbe", "c0w"], "truth": ["the", "cow"]})
    with pytest.raises(ValueError, match=r"X is a DataFrame with 2 column\(s\).*X\['ocr'\]"):
        EditCostEstimator().fit(frame, frame["truth"])
    est = EditCostEstimator().fit(frame["ocr"], frame["truth"])
    assert est.references_ == ["the", "cow"]


def test_set_output_gives_a_dataframe_named_by_the_references():
    pd = pytest.importorskip("pandas")
    est = EditCostEstimator(k=0.5, references=["the", "cow"]).fit(OCR, TRUTH)
    plain = est.transform(["tbe", "c0w"])
    frame = est.set_output(transform="pandas").transform(["tbe", "c0w"])
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == ["the", "cow"]
    np.testing.assert_array_equal(frame.to_numpy(), plain)
    both = est.fit_transform(OCR, TRUTH)  # TransformerMixin: fit(X, y).transform(X)
    assert isinstance(both, pd.DataFrame) and both.shape == (len(OCR), 2)


def test_set_output_default_keeps_arrays_and_the_neighbours_name_their_columns():
    est = EditCostEstimator(k=0.5, references=["the", "cow"]).fit(OCR, TRUTH)
    assert isinstance(est.set_output(transform="default").transform(["tbe"]), np.ndarray)
    nn = EditDistanceNeighbors(1).fit(["the", "cow", "and"])
    assert list(nn.get_feature_names_out()) == ["the", "cow", "and"]
    assert nn.transform(["tbe"]).shape[1] == len(nn.get_feature_names_out())
    assert nn.set_output(transform="default") is nn
    with pytest.raises(NotFittedError):
        EditDistanceNeighbors(1).get_feature_names_out()


def test_estimator_types_in_the_tags():
    assert KatzBackoffLM().__sklearn_tags__().estimator_type == "density_estimator"
    for est in (EditCostEstimator(), EditDistanceNeighbors()):
        tags = est.__sklearn_tags__()
        assert tags.transformer_tags is not None
        assert tags.input_tags.string and not tags.input_tags.two_d_array
    assert EditCostEstimator().__sklearn_tags__().target_tags.required
    assert not EditDistanceNeighbors().__sklearn_tags__().target_tags.required


def test_the_corrector_declares_no_estimator_type_so_cv_splits_lines_plainly():
    # Its score is 1 - WER, but a "classifier" type would make cross-validation
    # stratify the folds by the truth lines, each of which occurs once.
    from sklearn.model_selection import cross_val_score

    tags = OCRCorrector().__sklearn_tags__()
    assert tags.estimator_type is None and tags.input_tags.string and tags.target_tags.required
    lines = ["tbe cow", "the c0w", "aud the", "tbe house", "a cow", "c0w and"] * 2
    truth = ["the cow", "the cow", "and the", "the house", "a cow", "cow and"] * 2
    scores = cross_val_score(OCRCorrector(lexicon=None, min_confidence=None), lines, truth, cv=3)
    assert scores.shape == (3,) and np.all((scores > 0.5) & (scores <= 1.0))

"""OCRCorrector against bad parameters and input, and the tokens it must keep.

Never a corrector left half-fitted.  Each row: what is called, the exception, a regex
its message must match (the rules of every table: tests/bad_inputs.py).
"""

import math

import pytest
from bad_inputs import FIXER, TOKENS, fitted_state
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from skocrcost import EditCostEstimator, KatzBackoffLM, OCRCorrector, OCRCorrectorCV
from skocrcost.correction import Decoder

# -- the corrector -----------------------------------------------------------------------
CORRECTOR_PARAMS = {
    "n_candidates 0": ({"decoder__n_candidates": 0}, ValueError, "'n_candidates'"),
    "n_candidates bool": (
        {"decoder__n_candidates": True},
        TypeError,
        "n_candidates must be an integer",
    ),
    "empty lexicon": ({"lexicon": []}, ValueError, "lexicon is empty"),
    "None in lexicon": ({"lexicon": ["the", None]}, TypeError, r"lexicon\[1\]"),
    "lexicon a string": ({"lexicon": "the"}, ValueError, "'lexicon'"),
    "prior_weight NaN": ({"decoder__prior_weight": math.nan}, ValueError, "'prior_weight'"),
    "prior_weight negative": ({"decoder__prior_weight": -1.0}, ValueError, "'prior_weight'"),
    "reject_margin inf": ({"decoder__reject_margin": math.inf}, ValueError, "'reject_margin'"),
    "min_confidence above 1": ({"min_confidence": 1.5}, ValueError, "'min_confidence'"),
    "unknown language model": ({"language_model": "kenlm"}, ValueError, "'language_model'"),
    "estimator a number": ({"estimator": 5}, ValueError, "'estimator'"),
    "estimator with a bad k": ({"estimator": EditCostEstimator(k=-1)}, ValueError, "'k'"),
    "n_jobs 0": ({"n_jobs": 0}, ValueError, "n_jobs"),
}


@pytest.mark.parametrize(
    ("params", "error", "match"), CORRECTOR_PARAMS.values(), ids=CORRECTOR_PARAMS
)
def test_bad_corrector_parameters_and_a_failed_refit_keeps_the_fit(params, error, match):
    fixer = OCRCorrector(lexicon=["the", "cow"]).fit(*TOKENS)
    before = fitted_state(fixer)
    fixer.set_params(**params)
    with pytest.raises(error, match=match):
        fixer.fit(*TOKENS)
    after = fitted_state(fixer)
    assert after.keys() == before.keys() and all(after[k] is before[k] for k in before)


CORRECTOR_CASES = {
    "fit lengths differ": (
        lambda: OCRCorrector().fit(["a"], ["a", "b"]),
        ValueError,
        "same length",
    ),
    "fit empty": (lambda: OCRCorrector().fit([], []), ValueError, "X is empty"),
    "predict None item": (lambda: FIXER.predict([None]), TypeError, r"X\[0\] is NoneType"),
    "predict a string": (lambda: FIXER.predict("tbe"), TypeError, "not a single str"),
    # Unordered, or a mapping whose X[0] would be read as a line's tokens: refused as X.
    "predict a set": (lambda: FIXER.predict({"tbe"}), TypeError, "X must be an ordered"),
    "predict a dict": (lambda: FIXER.predict({"tbe": 1}), TypeError, "X must be an ordered"),
    "predict a dict of token lists": (
        lambda: FIXER.predict({0: ["tbe"]}),
        TypeError,
        "X must be an ordered sequence of strings, not a dict",
    ),
    "fit a dict": (lambda: OCRCorrector().fit({0: ["a"]}, [["a"]]), TypeError, "not a dict"),
    "cv fit a set": (lambda: OCRCorrectorCV().fit({"a"}, ["a"]), TypeError, "not a set"),
    "score a dict": (lambda: FIXER.score({"a": 1}, ["a"]), TypeError, "X must be an ordered"),
    "kneighbors beyond the lexicon": (
        lambda: FIXER.kneighbors(["a"], n_neighbors=5),
        ValueError,
        "n_neighbors must be <= 2",
    ),
    "kneighbors bool": (
        lambda: FIXER.kneighbors(["a"], n_neighbors=True),
        TypeError,
        "n_neighbors must be an integer",
    ),
    "score lengths differ": (lambda: FIXER.score(["a"], ["a", "b"]), ValueError, "same length"),
    "correct_stream a string": (
        lambda: FIXER.correct_stream("tbe"),
        TypeError,
        "lines must be an iterable of str, not a single str",
    ),
    "correct_stream a number": (
        lambda: FIXER.correct_stream(5),
        TypeError,
        "lines must be an iterable of str, got int",
    ),
    "correct_stream None line": (
        lambda: list(FIXER.correct_stream(iter(["tbe", "a", None]), batch_size=2)),
        TypeError,
        r"lines\[2\] is NoneType",
    ),
    "correct_stream batch_size 0": (
        lambda: FIXER.correct_stream(["a"], batch_size=0),
        ValueError,
        "batch_size must be >= 1",
    ),
    "correct_stream batch_size float": (
        lambda: FIXER.correct_stream(["a"], batch_size=2.0),
        TypeError,
        "batch_size must be an integer",
    ),
}


@pytest.mark.parametrize(("call", "error", "match"), CORRECTOR_CASES.values(), ids=CORRECTOR_CASES)
def test_bad_input_to_the_corrector(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize(
    "call",
    [
        lambda f: f.predict(["a"]),
        lambda f: f.kneighbors(["a"]),
        lambda f: f.score(["a"], ["a"]),
        lambda f: f.correct_stream(["a"]),  # (at the call, not at the first line)
    ],
    ids=["predict", "kneighbors", "score", "correct_stream"],
)
def test_unfitted_corrector_raises_not_fitted(call):
    with pytest.raises(NotFittedError, match="not fitted yet"):
        call(OCRCorrector())


def test_corrector_edge_case_tokens():
    tokens = ["", "\ud800", "e\u0301", "\U0001f600", "tbe", "x" * 100_000]
    out = FIXER.predict(tokens)
    assert out.shape == (6,) and all(isinstance(w, str) for w in out)
    assert out[0] == "" and out[4] == "the"  # an empty token stays empty
    assert FIXER.predict([]).shape == (0,)
    # A line of 10^5 characters (25,000 words) is decoded word by word, in linear time.
    # (Without recurrences: "tbe" 12,500 times over would read as the text's spelling.)
    long = clone(FIXER).set_params(decoder__recurrence_weight=0.0)
    long.__dict__.update({k: v for k, v in FIXER.__dict__.items() if k.endswith("_")})
    assert long.predict(["tbe c0w " * 12_500])[0] == "the cow " * 12_500


# -- the corrector's running-text API and its language model ---------------------------------
SENTENCE_LM = KatzBackoffLM().fit(["the cow", "the the"])
CORRECT_PARAMS = {
    "lm_weight negative": ({"decoder__lm_weight": -1.0}, ValueError, "lm_weight"),
    "lm_weight NaN": ({"decoder__lm_weight": math.nan}, ValueError, "lm_weight"),
    "lm_weight inf": ({"decoder__lm_weight": math.inf}, ValueError, "lm_weight"),
    "lm_weight bool": ({"decoder__lm_weight": True}, TypeError, "lm_weight must be a number"),
    "real_word_prior 0": ({"decoder__real_word_prior": 0.0}, ValueError, "real_word_prior"),
    "real_word_prior above 1": ({"decoder__real_word_prior": 1.5}, ValueError, "real_word_prior"),
    "real_word_prior negative": ({"decoder__real_word_prior": -0.1}, ValueError, "real_word_prior"),
    "real_word_prior NaN": ({"decoder__real_word_prior": math.nan}, ValueError, "real_word_prior"),
    "real_word_prior bool": ({"decoder__real_word_prior": True}, TypeError, "real_word_prior"),
    "real_word_smoothing 0": (
        {"decoder__real_word_smoothing": 0.0},
        ValueError,
        "real_word_smoothing",
    ),
    "real_word_smoothing negative": (
        {"decoder__real_word_smoothing": -1.0},
        ValueError,
        "real_word_smoothing",
    ),
    "real_word_smoothing NaN": (
        {"decoder__real_word_smoothing": math.nan},
        ValueError,
        "real_word_smoothing",
    ),
    "real_word_smoothing inf": (
        {"decoder__real_word_smoothing": math.inf},
        ValueError,
        "real_word_smoothing",
    ),
    "real_word_smoothing bool": (
        {"decoder__real_word_smoothing": True},
        TypeError,
        "real_word_smoothing",
    ),
    "rules a string": ({"rules": "hyphens"}, TypeError, "rules"),
    "rules a bool": ({"rules": True}, TypeError, "rules"),
    "rules with an unknown name": ({"rules": ["hyphens", "commas"]}, ValueError, "rules"),
    "rules with a non-string": ({"rules": ("case", 1)}, ValueError, "rules"),
    "split_cost NaN": ({"decoder__split_cost": math.nan}, ValueError, "split_cost"),
    "split_cost inf": ({"decoder__split_cost": math.inf}, ValueError, "split_cost"),
    "split_cost a string": ({"decoder__split_cost": "3"}, (TypeError, ValueError), "split_cost"),
    "join_cost NaN": ({"decoder__join_cost": math.nan}, ValueError, "join_cost"),
    "join_cost bool": ({"decoder__join_cost": True}, TypeError, "join_cost must be a number"),
    "recurrence_weight negative": (
        {"decoder__recurrence_weight": -1.0},
        ValueError,
        "recurrence_weight",
    ),
    "recurrence_weight inf": (
        {"decoder__recurrence_weight": math.inf},
        ValueError,
        "recurrence_weight",
    ),
    "recurrence_weight None": (
        {"decoder__recurrence_weight": None},
        (TypeError, ValueError),
        "recurrence",
    ),
    "variant_weight negative": ({"decoder__variant_weight": -1.0}, ValueError, "variant_weight"),
    "variant_weight NaN": ({"decoder__variant_weight": math.nan}, ValueError, "variant_weight"),
    "variant_weight inf": ({"decoder__variant_weight": math.inf}, ValueError, "variant_weight"),
    "variant_weight bool": (
        {"decoder__variant_weight": True},
        TypeError,
        "variant_weight must be a number",
    ),
    "variant_weight None": (
        {"decoder__variant_weight": None},
        (TypeError, ValueError),
        "variant_weight",
    ),
    "beam_width 0": ({"decoder__beam_width": 0}, ValueError, "beam_width"),
    "beam_width negative": ({"decoder__beam_width": -2}, ValueError, "beam_width"),
    "beam_width a float": ({"decoder__beam_width": 1.5}, (TypeError, ValueError), "beam_width"),
    "beam_width inf": ({"decoder__beam_width": math.inf}, (TypeError, ValueError), "beam_width"),
    "beam_width bool": ({"decoder__beam_width": True}, (TypeError, ValueError), "beam_width"),
    "beam_width None": ({"decoder__beam_width": None}, (TypeError, ValueError), "beam_width"),
    "beam_width a string": ({"decoder__beam_width": "8"}, (TypeError, ValueError), "beam_width"),
    "language model a string": (
        {"language_model": "kenlm"},
        (TypeError, ValueError),
        "language_model",
    ),
    "language model an estimator without log_probabilities": (
        {"language_model": EditCostEstimator()},
        (TypeError, ValueError),
        "language_model",
    ),
    "language model the class": (
        {"language_model": KatzBackoffLM},
        TypeError,
        "language_model must be a KatzBackoffLM instance",
    ),
}


@pytest.mark.parametrize(("params", "error", "match"), CORRECT_PARAMS.values(), ids=CORRECT_PARAMS)
def test_bad_correct_parameters_in_fit_and_when_set_after_fit(params, error, match):
    fixer = OCRCorrector(lexicon=["the", "cow"], language_model=SENTENCE_LM).fit(*TOKENS)
    before = fitted_state(fixer)
    fixer.set_params(**params)
    with pytest.raises(error, match=match):  # set after fit: correct() checks them itself
        fixer.correct("tbe c0w")
    with pytest.raises(error, match=match):
        fixer.fit(*TOKENS)
    after = fitted_state(fixer)
    assert after.keys() == before.keys() and all(after[k] is before[k] for k in before)


@pytest.mark.parametrize(
    ("value", "error"),
    [(-1.0, ValueError), (math.nan, ValueError), (math.inf, ValueError), (True, TypeError)],
    ids=["negative", "NaN", "inf", "bool"],
)
def test_a_bad_variant_weight_set_after_fit_is_refused_by_predict(value, error):
    # The truth spells "cow" as "kow" (outside the lexicon): a variant model is learned,
    # and predict on isolated tokens reads variant_weight itself.
    fixer = OCRCorrector(lexicon=["the", "cow"]).fit(["tbe", "kow", "cow"], ["the", "kow", "cow"])
    assert fixer.variants_ is not None
    fixer.set_params(decoder__variant_weight=value)
    with pytest.raises(error, match="variant_weight"):
        fixer.predict(["tbe"])


def test_fit_fits_a_clone_of_the_language_model_and_a_frozen_one_is_kept():
    from sklearn.base import clone
    from sklearn.frozen import FrozenEstimator

    fixer = OCRCorrector(lexicon=["the", "cow"], language_model=SENTENCE_LM).fit(*TOKENS)
    # fit refits a clone on the truth tokens (so GridSearchCV can tune it), never the
    # estimator passed in; clone() of the corrector therefore works as well.
    assert fixer.language_model_ is not SENTENCE_LM
    assert clone(fixer).fit(*TOKENS).correct("tbe c0w") == "the cow"
    # A language model fitted on other text is kept as it is when frozen.
    frozen = clone(fixer.set_params(language_model=FrozenEstimator(SENTENCE_LM))).fit(*TOKENS)
    assert frozen.language_model_.estimator is SENTENCE_LM
    assert frozen.correct("tbe c0w") == "the cow"


@pytest.mark.parametrize("text", [None, b"tbe", 3, ["tbe"], math.nan], ids=repr)
def test_correct_refuses_what_is_not_text(text):
    with pytest.raises(TypeError, match="text must be a str"):
        FIXER.correct(text)


def test_correct_unfitted_raises_not_fitted():
    with pytest.raises(NotFittedError, match="not fitted yet"):
        OCRCorrector().correct("tbe")


@pytest.mark.parametrize("X", [[None], [b"tbe"], [3], ["tbe", 3.5]], ids=repr)
def test_predict_refuses_what_is_not_a_token(X):
    with pytest.raises(TypeError, match=r"X\[\d\] is"):
        FIXER.predict(X)


# Tokens no lexicon word is near: no letter, or longer than any word could be.
KEPT_TOKENS = [
    "x" * 100_000,
    "x" * 65,
    "\ud800",
    "\ud800\udc00",
    "12345",
    "...",
    "\U0001f600",
    "\u0301",
]


def test_tokens_without_a_letter_or_too_long_are_kept_by_predict_and_correct():
    # These became "the" (the only nearby word in a two-word lexicon): the reject rule
    # compared two long sums of surprisals of characters never seen.
    for fixer in (
        FIXER,
        OCRCorrector(lexicon=["the", "cow"], decoder=Decoder(reject_margin=None)).fit(*TOKENS),
    ):
        assert fixer.predict(KEPT_TOKENS).tolist() == KEPT_TOKENS
        for token in KEPT_TOKENS:
            assert fixer.correct(token) == token
        assert fixer.correct("tbe " + "x" * 100_000 + " c0w") == "the " + "x" * 100_000 + " cow"
    # At the limit, a token is still corrected when a word is cheaper than keeping it.
    always = OCRCorrector(lexicon=["the", "cow"], decoder=Decoder(reject_margin=None)).fit(*TOKENS)
    assert always.predict(["x" * 64, "tbe"]).tolist() == ["the", "the"]


def test_combining_marks_stay_with_their_letter_in_correct():
    from skocrcost._noisy_channel import split_token

    # A combining mark is \W to a regex; it used to be split off as trailing punctuation,
    # so "e\u0301" was corrected as "e" and came out as "the\u0301" ("thé").
    assert split_token("(cafe\u0301).") == ("(", "cafe\u0301", ").")
    assert split_token("\u0301") == ("\u0301", "", "")
    # Both tokens are lexicon words, kept whole: split off as punctuation, the mark
    # would leave "e" (no lexicon word) to be corrected, and come back on another word.
    fixer = OCRCorrector(lexicon=["the", "cow", "cafe\u0301", "e\u0301"]).fit(*TOKENS)
    assert fixer.correct("cafe\u0301, e\u0301") == "cafe\u0301, e\u0301"
    assert fixer.correct("(e\u0301).") == "(e\u0301)."

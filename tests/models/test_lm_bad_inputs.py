"""KatzBackoffLM against bad input.

Never a language model left half-fitted.  Each row: what is called, the exception, a
regex its message must match (the rules of every table: tests/bad_inputs.py).
"""

import math

import numpy as np
import pytest
from bad_inputs import BAD_STRINGS, fitted_state
from sklearn.exceptions import NotFittedError

from skocrcost import KatzBackoffLM

# -- the language model -----------------------------------------------------------------
# (test_lm.py has order 0 / 1.5 / True, discount 1 / -0.1 / NaN / "0.5", a single string,
# an empty X, ints and bad tokens among the sentences, reserved tokens.)
LM_SEED = ["the book", "his house", "the house"]
LM_PARAMS = {
    "order beyond the limit": ({"order": 11}, ValueError, "'order'"),
    "order huge": ({"order": 10**9}, ValueError, "'order'"),
    "order None": ({"order": None}, ValueError, "'order'"),
    "order a string": ({"order": "2"}, ValueError, "'order'"),
    "discount inf": ({"discount": math.inf}, ValueError, "'discount'"),
    "discount None": ({"discount": None}, ValueError, "'discount'"),
    "discount bool": ({"discount": True}, ValueError, "'discount'"),
}
LM_DATA = {
    "X None": (None, TypeError, "X must be a sequence of sentences"),
    "X an int": (3, TypeError, "X must be a sequence of sentences"),
    "X bytes": (b"the book", TypeError, "not a single bytes"),
    "bytes sentence": ([b"the book"], TypeError, r"X\[0\] must be a string or a list of tokens"),
    "None sentence": (["a", None], TypeError, r"X\[1\] must be a string or a list of tokens"),
    "int sentence": ([3], TypeError, r"X\[0\]"),
    "bytes token": ([["the", b"book"]], TypeError, r"X\[0\]\[1\] is bytes"),
    "None token": ([[None]], TypeError, r"X\[0\]\[0\] is NoneType"),
    "empty X": ([], ValueError, "X is empty"),
    "2-D X": (np.array([["a"]]), ValueError, "one-dimensional"),
}


@pytest.mark.parametrize(
    ("params", "X", "error", "match"),
    [(p, LM_SEED, e, m) for p, e, m in LM_PARAMS.values()]
    + [({}, X, e, m) for X, e, m in LM_DATA.values()],
    ids=list(LM_PARAMS) + list(LM_DATA),
)
def test_bad_language_model_fits_keep_the_previous_fit(params, X, error, match):
    lm = KatzBackoffLM().fit(LM_SEED)
    before = fitted_state(lm), lm._levels
    with pytest.raises(error, match=match):
        lm.set_params(**params).fit(X)
    after = fitted_state(lm), lm._levels
    assert after[0].keys() == before[0].keys()
    assert all(after[0][k] is before[0][k] for k in before[0]) and after[1] is before[1]


LM = KatzBackoffLM().fit(LM_SEED)
LM_QUERIES = {
    **{
        f"{method} word {name}": (
            lambda method=method, v=v: getattr(LM, method)(v, ["the"]),
            TypeError,
            r"words\[0\] must be a string",
        )
        for method in ("probability", "log_probability")
        for name, v in {**BAD_STRINGS, "NaN": math.nan}.items()
    },
    **{
        f"{method} context {name}": (
            lambda method=method, v=v: getattr(LM, method)("book", v),
            TypeError,
            "context must be a string or a sequence of words",
        )
        for method in ("probability", "log_probability")
        for name, v in {**BAD_STRINGS, "a set": {"the"}}.items()
    },
    "context with None": (
        lambda: LM.probability("book", ["the", None]),
        TypeError,
        r"context\[1\]",
    ),
    "context with bytes": (lambda: LM.probability("book", [b"the"]), TypeError, r"context\[0\]"),
    "context with a space": (lambda: LM.probability("book", ["a b"]), ValueError, r"context\[0\]"),
    "log_probabilities None": (lambda: LM.log_probabilities(None), TypeError, "words must be"),
    "log_probabilities a string": (lambda: LM.log_probabilities("book"), TypeError, "words"),
    **{
        f"{method} {name}": (lambda method=method, X=X: getattr(LM, method)(X), error, match)
        for method in ("score", "perplexity", "score_samples")
        for name, (X, error, match) in {
            "None": (None, TypeError, "X must be a sequence of sentences"),
            "a string": ("the book", TypeError, "not a single str"),
            "bytes sentence": ([b"the"], TypeError, r"X\[0\]"),
            "int sentence": ([3], TypeError, r"X\[0\]"),
            "empty": ([], ValueError, "X is empty"),
        }.items()
    },
}


@pytest.mark.parametrize(("call", "error", "match"), LM_QUERIES.values(), ids=LM_QUERIES)
def test_bad_language_model_queries(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize(
    "call",
    [
        lambda lm: lm.probability("a"),
        lambda lm: lm.log_probability("a", ["b"]),
        lambda lm: lm.log_probabilities(["a"]),
        lambda lm: lm.score(["a"]),
        lambda lm: lm.perplexity(["a"]),
        lambda lm: lm.score_samples(["a"]),
    ],
    ids=[
        "probability",
        "log_probability",
        "log_probabilities",
        "score",
        "perplexity",
        "score_samples",
    ],
)
def test_unfitted_language_model_raises_not_fitted(call):
    with pytest.raises(NotFittedError, match="not fitted yet"):
        call(KatzBackoffLM())

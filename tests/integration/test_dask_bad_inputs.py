"""skocrcost.dask against bad input: refused before any task runs.

Never a task graph built on bad input.  Each row: what is called, the exception, a regex
its message must match (the rules of every table: tests/bad_inputs.py).
"""

import math

import pytest
from bad_inputs import FIXER, GENERAL_WL, NN, WL
from conftest import skip_or_fail
from sklearn.exceptions import NotFittedError

from skocrcost import EditDistanceNeighbors, OCRCorrector

# -- skocrcost.dask: refused before any task runs (test_dask.py runs them on a cluster) ---------
try:
    import skocrcost.dask as sd
except ImportError:  # the optional dask extra is absent: no rows
    sd = None

DASK_CASES = (
    {
        "pairwise metric None": (lambda: sd.pairwise(["a"], ["a"], None), TypeError, "metric"),
        "pairwise Y None": (lambda: sd.pairwise(["a"], None, WL), TypeError, "Y must be"),
        "pairwise Y empty": (lambda: sd.pairwise(["a"], [], WL), ValueError, "Y is empty"),
        "pairwise bytes in Y": (lambda: sd.pairwise(["a"], [b"a"], WL), TypeError, r"Y\[0\]"),
        "pairwise X a string": (lambda: sd.pairwise("abc", ["a"], WL), TypeError, "single str"),
        "pairwise block_size 0": (
            lambda: sd.pairwise(["a"], ["a"], WL, block_size=0),
            ValueError,
            "block_size",
        ),
        "pairwise block_size NaN": (
            lambda: sd.pairwise(["a"], ["a"], WL, block_size=math.nan),
            TypeError,
            "block_size",
        ),
        "pairwise n_jobs 0": (
            lambda: sd.pairwise(["a"], ["a"], WL, n_jobs=0),
            ValueError,
            "n_jobs",
        ),
        "kneighbors index None": (lambda: sd.kneighbors(["a"], None), TypeError, "index"),
        "kneighbors unfitted": (
            lambda: sd.kneighbors(["a"], EditDistanceNeighbors(1)),
            NotFittedError,
            "not fitted",
        ),
        "kneighbors n_neighbors 3": (
            lambda: sd.kneighbors(["a"], NN, 3),
            ValueError,
            "n_neighbors must be <= 2",
        ),
        "kneighbors None query": (lambda: sd.kneighbors([None], NN), TypeError, r"queries\[0\]"),
        "correct corrector None": (lambda: sd.correct(["a"], None), TypeError, "corrector"),
        "correct unfitted": (lambda: sd.correct(["a"], OCRCorrector()), NotFittedError, "fitted"),
        "correct int token": (lambda: sd.correct([3], FIXER), TypeError, r"texts\[0\] is int"),
        "fit_counts None": (lambda: sd.fit_counts(None), TypeError, "pairs"),
        "fit_counts empty": (lambda: sd.fit_counts([]), ValueError, "pairs is empty"),
        "fit_counts a string": (lambda: sd.fit_counts("ab"), TypeError, "pairs"),
        "fit_counts aligner 5": (
            lambda: sd.fit_counts([("a", "b")], aligner=5),
            TypeError,
            "aligner",
        ),
        # Rules and transpositions would be dropped or miscounted: refused, as in fit.
        "fit_counts aligner with a rule": (
            lambda: sd.fit_counts([("rn", "m")], aligner=GENERAL_WL),
            ValueError,
            "aligner must have single-character costs only",
        ),
        "fit_counts block_size 0": (
            lambda: sd.fit_counts([("a", "b")], block_size=0),
            ValueError,
            "block_size",
        ),
    }
    if sd is not None
    else {"the dask extra": (None, None, None)}  # absent: one row, skipped (or failed)
)


@pytest.mark.parametrize(("call", "error", "match"), DASK_CASES.values(), ids=DASK_CASES)
def test_bad_input_to_the_dask_functions(call, error, match):
    if sd is None:
        skip_or_fail("dask is not installed: pip install '.[test]'")
    with pytest.raises(error, match=match):
        call()

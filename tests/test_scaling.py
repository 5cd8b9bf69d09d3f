"""How work grows with the input: counted, never timed.

Each call runs on inputs of size n and 4n, counting the Python lines it executes
(``sys.settrace``: every pure-Python pass, however hidden) and the work of the compiled
kernels (DP cells of the alignments, trie columns of the search).  Linear growth does at
most 4 times the work plus fixed costs; a pass quadratic in the input would do 16 times
as much, so it fails here on small data.  What the counters cannot see is work done in
one C call (a builtin such as ``x in some_list`` inside a loop counts one line per call).
"""

import sys

import numpy as np
import pytest

from skocrcost import EditCostEstimator, EditDistanceNeighbors, WeightedLevenshtein
from skocrcost import neighbors as neighbors_module
from skocrcost._kernels import _cost_kernel_py as _dp_py
from skocrcost._kernels import _lexicon_index_py as _index_py
from skocrcost.datasets import load_icdar2017_sample

GROWTH = 4  # the input grows 4 times ...
SLACK = 1.25  # ... and the work at most 5 times


def python_lines(call):
    """``call()``'s result and the number of Python lines it executed (every frame)."""
    count = 0

    def local(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
        return local

    def start(frame, event, arg):
        return local

    old = sys.gettrace()
    sys.settrace(start)
    try:
        result = call()
    finally:
        sys.settrace(old)
    return result, count


@pytest.fixture
def dp_cells(monkeypatch):
    """The DP cells of every alignment a WeightedLevenshtein computes (len(a) * len(b))."""
    cells = [0]
    align_batch = WeightedLevenshtein._align_batch

    def counting(self, X, Y, *args, **kwargs):
        cells[0] += sum((len(a) + 1) * (len(b) + 1) for a, b in zip(X, Y))
        return align_batch(self, X, Y, *args, **kwargs)

    monkeypatch.setattr(WeightedLevenshtein, "_align_batch", counting)
    return cells


@pytest.fixture(scope="module")
def tokens():
    X, y = load_icdar2017_sample("tokens")
    return X[: 1600 * GROWTH], y[: 1600 * GROWTH]


def assert_linear(small, large, what):
    assert large <= GROWTH * SLACK * small, f"{what}: {small} -> {large}"


def test_estimator_fit_and_score_samples_grow_linearly(tokens, dp_cells):
    X, y = tokens
    work = {}
    for n in (len(X) // GROWTH, len(X)):
        dp_cells[0] = 0
        est, lines = python_lines(lambda n=n: EditCostEstimator(k=0.5).fit(X[:n], y[:n]))
        fit_cells = dp_cells[0]
        dp_cells[0] = 0
        _, score_lines = python_lines(lambda n=n, est=est: est.score_samples(X[:n], y[:n]))
        work[n] = (lines, fit_cells, score_lines, dp_cells[0])
    small, large = work.values()
    for name, a, b in zip(("fit lines", "fit cells", "score lines", "score cells"), small, large):
        assert a > 0, name
        assert_linear(a, b, name)


def twin_index(kernel, words):
    """The pure-Python twin of the trie search over the compiled ``kernel``'s tables."""
    return _index_py.LexiconIndex(_dp_py.CostKernel(*kernel._kernel_args()), words)


@pytest.fixture(scope="module")
def learned(tokens):
    X, y = tokens
    return EditCostEstimator(k=0.5).fit(X[:2000], y[:2000]).metric_


@pytest.mark.parametrize("twin", [False, True], ids=["compiled", "twin"])
def test_neighbours_fit_grows_linearly_with_the_lexicon(tokens, learned, twin, monkeypatch):
    if twin:
        monkeypatch.setattr(neighbors_module, "LexiconIndex", twin_index)
    lexicon = list(dict.fromkeys(tokens[1]))
    lines = []
    for n in (len(lexicon) // (4 * GROWTH), len(lexicon) // 4):
        index, count = python_lines(
            lambda n=n: EditDistanceNeighbors(3, metric=learned).fit(lexicon[:n])
        )
        assert isinstance(index.index_, _index_py.LexiconIndex) == twin
        lines.append(count)
    assert_linear(*lines, "fit lines")


@pytest.mark.parametrize("twin", [False, True], ids=["compiled", "twin"])
def test_neighbours_kneighbors_grows_linearly_with_the_queries(tokens, learned, twin, monkeypatch):
    X, y = tokens
    lexicon = list(dict.fromkeys(y))[:1500]
    queries = [x for x, t in zip(X, y) if x != t]
    compiled = EditDistanceNeighbors(3, metric=learned).fit(lexicon)
    index = compiled
    if twin:
        monkeypatch.setattr(neighbors_module, "LexiconIndex", twin_index)
        index = EditDistanceNeighbors(3, metric=learned).fit(lexicon)
    n = 20 if twin else 200
    work = []
    for size in (n, GROWTH * n):
        if twin:  # the twin's answer is the compiled one's; it counts its DP columns
            got = index.kneighbors(queries[:size])
            for a, b in zip(got, compiled.kneighbors(queries[:size]), strict=True):
                np.testing.assert_array_equal(a, b)
            work.append(index.index_.visited)
        else:
            work.append(python_lines(lambda size=size: index.kneighbors(queries[:size]))[1])
    assert_linear(*work, "trie columns" if twin else "kneighbors lines")


class _NoWalk(dict):
    """A cache that may be looked up but not walked: a walk would make every call's
    work grow with what all earlier calls put in the cache."""

    def _walked(self, *args):
        raise AssertionError("a call walked the whole cache")

    keys = values = items = __iter__ = _walked


def test_correcting_line_by_line_does_each_calls_own_work(monkeypatch):
    """A loop over a file's lines calls ``correct`` once per line: each call's work must
    not grow with the caches the earlier calls filled (nor the tables laid out for the
    compiled search).  A walk over a cache is one C call, which the line counter above
    cannot see: here the caches refuse walks, and the arrays filled are counted."""
    from skocrcost.correction import _layout
    from skocrcost.datasets import pretrained_corrector

    lines = load_icdar2017_sample("lines")[0][:330]
    fixer = pretrained_corrector()
    for line in lines[:300]:
        fixer.correct(line)
    features = fixer.confidence_.features
    assert len(features._token_counts[0]) > 300  # (each token's core, words, unknown words)
    features._token_counts = tuple(map(_NoWalk, features._token_counts))

    filled = []

    class CountingNumpy:
        def __getattr__(self, name):
            return getattr(np, name)

        @staticmethod
        def full(shape, value, *args, **kwargs):
            filled.append(int(np.prod(shape)))
            return np.full(shape, value, *args, **kwargs)

    monkeypatch.setattr(_layout, "np", CountingNumpy())
    sets = len(fixer._caches_["layout"].readings)
    for line in lines[300:]:
        fixer.correct(line)  # new tokens and old ones: looked up, never walked
    assert all(isinstance(kept, _NoWalk) for kept in features._token_counts)
    assert len(features._token_counts[0]) > 300
    # Every call reads an offset for every reading set laid out (thousands by now): the
    # array is kept and grown by doubling, not filled anew by each of the 30 calls.
    assert sets > 1000
    assert sum(filled) <= 2 * len(fixer._caches_["layout"].readings), filled

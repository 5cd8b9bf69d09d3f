"""Threads follow scikit-learn's n_jobs convention; chunked pairwise streams its output."""

import tracemalloc
from concurrent.futures import ThreadPoolExecutor

import joblib
import numpy as np
import pytest
from conftest import read_pairs, shared_path
from joblib import parallel_config
from threadpoolctl import threadpool_limits

from skocrcost import EditCostEstimator, WeightedLevenshtein
from skocrcost._kernels import _cost_kernel as _dp
from skocrcost._threads import n_threads, n_workers


def random_words(n, seed=0, lo=1, hi=10):
    rng = np.random.default_rng(seed)
    letters = list("abcdefghijklmnopqrstuvwxyz01lIO")
    return ["".join(rng.choice(letters, rng.integers(lo, hi))) for _ in range(n)]


def learned_metric():
    X, y = read_pairs(shared_path("icdar2017_engmono", "tokens.tsv"), limit=20_000)
    return EditCostEstimator().fit(X, y).metric_


# -- the convention ---------------------------------------------------------------------
def test_none_means_one_thread_and_minus_one_all_cores():
    assert n_threads(None) == 1
    assert n_threads(1) == 1
    assert n_threads(-1) == min(_dp.openmp_max_threads(), n_threads(10_000))
    assert n_threads(-1) >= 1


def test_threadpool_limits_caps_every_request():
    with threadpool_limits(1):
        assert _dp.openmp_max_threads() == 1
        assert n_threads(-1) == 1
        assert n_threads(8) == 1
    assert n_threads(-1) == _dp.openmp_max_threads()


def test_joblib_parallel_config_sets_the_default():
    with parallel_config(n_jobs=2):
        assert n_threads(None) == min(2, _dp.openmp_max_threads())
    with parallel_config(n_jobs=-1):
        assert n_threads(None) == n_threads(-1)
    assert n_threads(None) == 1


def test_none_gets_joblibs_answer_in_every_context_and_thread():
    # n_workers answers None itself outside a parallel_config: the same as joblib's.
    def both():
        return n_workers(None), joblib.effective_n_jobs(None)

    seen = [both()]
    with parallel_config(n_jobs=2):
        seen.append(both())
        with parallel_config(backend="threading", n_jobs=-1):
            seen.append(both())
            worker = ThreadPoolExecutor(1)  # a thread of its own: joblib's config is per thread
            seen.append(worker.submit(both).result())
            worker.shutdown()
        seen.append(both())
    seen.append(both())
    assert [ours for ours, _ in seen] == [max(1, theirs) for _, theirs in seen]
    assert [ours for ours, _ in seen] == [1, 2, n_workers(-1), 1, 2, 1]


@pytest.mark.parametrize("bad", [0, 1.5, "2", True])
def test_bad_n_jobs_is_refused_by_name(bad):
    with pytest.raises(ValueError, match="n_jobs"):
        n_threads(bad)


# -- results do not depend on the thread count ---------------------------------------------
def test_pairwise_is_the_same_for_every_n_jobs():
    wl = learned_metric()
    X, Y = random_words(70, 1), random_words(90, 2)
    want = wl.pairwise(X, Y, n_jobs=1)
    for n_jobs in (2, -1, None):
        np.testing.assert_array_equal(wl.pairwise(X, Y, n_jobs=n_jobs), want)
    with parallel_config(n_jobs=2):
        np.testing.assert_array_equal(wl.pairwise(X, Y), want)


def test_fit_is_the_same_for_every_n_jobs_and_passes_them_to_the_kernel():
    X, y = read_pairs(shared_path("icdar2017_engmono", "tokens.tsv"), limit=30_000)

    class Recording(WeightedLevenshtein):
        """The default aligner, noting the thread count each alignment gets."""

        seen = []

        def _align_batch(self, X, Y, n_threads=1, costs=False):
            Recording.seen.append(n_threads)
            return super()._align_batch(X, Y, n_threads, costs)

    one = EditCostEstimator(initial_metric=Recording(), n_jobs=1).fit(X, y)
    two = EditCostEstimator(initial_metric=Recording(), n_jobs=2).fit(X, y)
    with parallel_config(n_jobs=2):
        ctx = EditCostEstimator(initial_metric=Recording()).fit(X, y)
    assert Recording.seen == [1, n_threads(2), n_threads(2)]
    for est in (two, ctx):
        assert est.costs_ == one.costs_
        assert est.counts_ == one.counts_
    assert one.score(X[:500], y[:500]) == two.score(X[:500], y[:500])


# -- memory: chunks ----------------------------------------------------------------------
@pytest.mark.parametrize("working_memory", [0.01, 1, None])
def test_pairwise_chunked_equals_pairwise(working_memory):
    wl = learned_metric()
    X, Y = random_words(123, 3), random_words(77, 4)
    blocks = list(wl.pairwise_chunked(X, Y, working_memory=working_memory, n_jobs=2))
    np.testing.assert_array_equal(np.vstack(blocks), wl.pairwise(X, Y))
    if working_memory == 0.01:  # 10,485 bytes: 17 rows of 77 doubles
        assert [len(b) for b in blocks] == [17] * 7 + [4]
    blocks = list(wl.pairwise_chunked(X, working_memory=working_memory))
    np.testing.assert_array_equal(np.vstack(blocks), wl.pairwise(X))


def test_pairwise_chunked_refuses_bad_arguments_at_the_call():
    wl = WeightedLevenshtein()
    with pytest.raises(ValueError, match="working_memory"):
        wl.pairwise_chunked(["a"], working_memory=0)
    with pytest.raises(TypeError, match="working_memory"):
        wl.pairwise_chunked(["a"], working_memory="1")
    with pytest.raises(TypeError, match="Y"):
        wl.pairwise_chunked(["a"], "ab")
    with pytest.raises(ValueError, match="n_jobs"):
        wl.pairwise_chunked(["a"], n_jobs=0)
    assert list(wl.pairwise_chunked([], ["a"])) == []


def test_chunked_20000_squared_streams_within_a_bound():
    # The full output would take 3.2 GB; the blocks take 8 MiB each.  Bound: two
    # blocks alive at once (the consumer's and the next) plus 8 MiB for the encoded
    # strings and per-call arrays.
    wl = WeightedLevenshtein()
    X = random_words(20_000, 5, lo=1, hi=2)  # one character: the test stays short
    working_memory = 8
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        rows = 0
        checksum = 0.0
        for block in wl.pairwise_chunked(X, working_memory=working_memory, n_jobs=-1):
            rows += block.shape[0]
            checksum += float(block[:, 0].sum())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert rows == 20_000
    assert checksum == float(wl.pairwise(X, X[:1]).sum())
    assert peak <= (2 * working_memory + 8) * 2**20, f"peak {peak / 2**20:.1f} MiB"

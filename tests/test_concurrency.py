"""One metric and one fitted estimator shared by many Python threads; the kernels release the GIL.

How the GIL test works, without measuring time: a worker thread reads a counter,
runs a kernel and reads the counter again, all in C (``map`` over ``partial``
objects), so no Python bytecode runs in the worker between the two reads and the
interpreter never gets a chance to hand the GIL over, except where C code releases
it on purpose.  Meanwhile the main thread increments the counter in a Python
loop.  If the kernel held the GIL, the two reads would be equal, always; if it
releases it, the main thread counts while the kernel runs.  The same harness
around ``sorted`` (which holds the GIL) must count zero: that shows it can fail.
"""

import functools
import gc
import operator
import random
import threading

import numpy as np
import pytest

from skocrcost import (
    EditCostEstimator,
    EditDistanceNeighbors,
    KatzBackoffLM,
    OCRCorrector,
    WeightedEditDistance,
    WeightedLevenshtein,
)
from skocrcost._kernels import _cost_kernel as _dp
from skocrcost._kernels import _edit_kernel as _edit
from skocrcost._kernels import _lexicon_index as _index
from skocrcost._noisy_channel import lm_sentence
from skocrcost.datasets import load_icdar2017_sample

N_THREADS = 8


def run_in_threads(work, n=N_THREADS):
    """Run ``work(i)`` in ``n`` threads started together; return the results in order."""
    barrier = threading.Barrier(n)
    results, errors = [None] * n, []

    def target(i):
        try:
            barrier.wait()
            results[i] = work(i)
        except BaseException as exc:  # reported below, in the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=target, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


def random_words(n, alphabet, max_len, seed):
    rng = np.random.default_rng(seed)
    return ["".join(rng.choice(list(alphabet), rng.integers(0, max_len))) for _ in range(n)]


def test_threads_share_one_metric_safely():
    wl = WeightedLevenshtein({("a", "b"): 0.1, ("c", "d"): 0.7}, insertion_costs={"\u4e2d": 0.2})
    words = random_words(200, "abcd\u4e2d\U0001f600", 120, seed=0)  # short and heap-path lengths
    rev = words[::-1]

    def everything():
        return (
            wl.pairwise(words, rev[:50], n_jobs=2),
            [wl.distance(a, b) for a, b in zip(words, rev)],
            [wl.explain(a, b) for a, b in zip(words[:40], rev[:40])],
            wl._align_batch(words, rev, 2, True),
        )

    want = everything()
    for got in run_in_threads(lambda i: everything()):
        np.testing.assert_array_equal(got[0], want[0])
        assert got[1] == want[1]
        assert got[2] == want[2]
        for x, y in zip(got[3], want[3], strict=True):
            np.testing.assert_array_equal(x, y)


def test_threads_share_one_fitted_estimator_safely():
    X, y = load_icdar2017_sample("tokens")
    est = EditCostEstimator(k=0.1, references=y[:300]).fit(X[:2000], y[:2000])
    queries, truths = X[2000:2300], y[2000:2300]
    want = est.transform(queries), est.score_samples(queries, truths)
    for got in run_in_threads(
        lambda i: (est.transform(queries), est.score_samples(queries, truths))
    ):
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])


def test_threads_share_one_fitted_index_safely():
    X, y = load_icdar2017_sample("tokens")
    nn = EditDistanceNeighbors(3, metric=EditCostEstimator(k=0.1).fit(X[:2000], y[:2000]))
    nn.fit(list(dict.fromkeys(y))[:2000])
    queries = X[2000:2400]

    def search(i):
        return nn.kneighbors(queries, n_neighbors=1 + i % 3), nn.radius_neighbors(queries, 1.0)

    want = [search(i) for i in range(3)]
    for i, got in enumerate(run_in_threads(search)):
        (d, ind), (rd, rind) = got
        (wd, wind), (wrd, wrind) = want[i % 3]
        np.testing.assert_array_equal(d, wd)
        np.testing.assert_array_equal(ind, wind)
        for a, b, c, e in zip(rd, wrd, rind, wrind, strict=True):
            np.testing.assert_array_equal(a, b)
            np.testing.assert_array_equal(c, e)


# Multi-character rules, transpositions and match weights: the general kernel (_edit.pyx).
GENERAL = WeightedLevenshtein(
    {("rn", "m"): 0.2, ("a", "b"): 0.5, ("li", "h"): 0.3, ("\u4e2d", "cd"): 0.4},
    insertion_costs={"ll": 0.4, "\U0001f600": 0.1},
    deletion_costs={"\ud800": 0.2},
    transposition_costs={("a", "b"): 0.3, ("c", "d"): 0.6},
    default_transposition_cost=0.9,
)
WED = WeightedEditDistance(
    match_weights={"a": -0.1, "m": -0.05},
    substitute_weights={("rn", "m"): -0.2, ("cl", "d"): -0.7, ("a", "b"): -1.5},
    insert_weights={"ll": -0.4},
    default_transpose_weight=-1.2,
)


def test_threads_share_the_general_edit_kernels_safely():
    assert type(GENERAL._kernel) is _edit.EditKernel  # the general DP, not the fast one
    words = random_words(160, "abcdmrnlih\u4e2d\ud800\U0001f600", 90, seed=1)
    rev = words[::-1]
    pairs = list(zip(words[:60], rev[:60]))

    def everything():
        return (
            GENERAL.pairwise(words[:60], rev[:40], n_jobs=2),
            [GENERAL.distance(a, b) for a, b in pairs],
            [GENERAL.explain(a, b) for a, b in pairs[:30]],
            GENERAL._align_batch(words, rev, 2, True),
            GENERAL._kernel.soft_distance_batch(words, rev, 1.3, 2),  # forward
            GENERAL._kernel.expected_counts(words[:50], rev[:50], 0.7, 2),
            WED.pairwise(words[:40], rev[:40], n_jobs=2),
            WED.log_likelihoods(words, rev, n_jobs=2),
            [WED.log_likelihood(a, b) for a, b in pairs],
            [WED.explain(a, b) for a, b in pairs[:30]],
        )

    want = everything()
    for got in run_in_threads(lambda i: everything()):
        for g, w in zip(got, want, strict=True):
            if isinstance(w, list):
                assert g == w
            else:
                for x, y in zip(g if isinstance(g, tuple) else (g,),
                                w if isinstance(w, tuple) else (w,), strict=True):  # fmt: skip
                    np.testing.assert_array_equal(x, y)


def test_threads_share_one_fitted_corrector_safely():
    X, y = load_icdar2017_sample("tokens")
    lines_ocr, lines_truth = load_icdar2017_sample("lines")
    lm = KatzBackoffLM(order=2).fit([lm_sentence(t) for t in lines_truth[:1500]])
    fixer = OCRCorrector(EditCostEstimator(k=0.1), language_model=lm, n_jobs=2)
    fixer.fit(X[:3000], y[:3000])
    tokens = X[3000:3300] + ["", "\ud800", "\U0001f600", "12", "x" * 100]
    text = "\n".join(lines_ocr[1500:1540])

    def both():
        return fixer.predict(tokens), fixer.correct(text)

    want = both()
    assert want[1] != text  # it corrects something: the comparison below is not vacuous
    for got in run_in_threads(lambda i: both()):
        np.testing.assert_array_equal(got[0], want[0])
        assert got[1] == want[1]
    # A decoder holds the state of the call it runs: each thread corrected with its own.
    assert len(fixer._caches_["decoders"]) == N_THREADS + 1


def count_while_running(call):
    """Iterations of a Python loop in this thread while ``call()`` ran in another thread."""
    counter = [0]
    done = []
    snaps = []
    read = functools.partial(operator.getitem, counter, 0)
    chain = (read, call, read)  # called from C: no bytecode, no GIL hand-over between them
    go = threading.Event()

    def worker():
        go.wait()
        snaps.extend(map(operator.methodcaller("__call__"), chain))
        done.append(True)

    enabled = gc.isenabled()
    gc.disable()  # a collection could run Python finalizers inside the chain
    try:
        thread = threading.Thread(target=worker)
        thread.start()
        go.set()
        while not done:
            counter[0] += 1
        thread.join()
    finally:
        if enabled:
            gc.enable()
    return snaps[2] - snaps[0], snaps[1]


def test_the_harness_counts_zero_around_code_that_holds_the_gil():
    rng = random.Random(0)
    data = [rng.random() for _ in range(200_000)]
    counted, result = count_while_running(functools.partial(sorted, data))
    assert result[0] <= result[-1]
    assert counted == 0


def test_the_harness_counts_zero_for_short_strings_which_keep_the_gil_by_design():
    # Up to 64 characters distance() uses stack buffers and keeps the GIL: releasing
    # and retaking it would cost more than the DP of two OCR tokens.
    counted, _ = count_while_running(functools.partial(WL.distance, "ab" * 32, "ba" * 32))
    assert counted == 0


LONG_A, LONG_B = "ab" * 3000, "ba" * 3000  # 36M cells: ~0.3 s, ample time to be seen
WL = WeightedLevenshtein({("a", "b"): 0.5})
UNIT = WeightedLevenshtein()
# A lexicon of short words as EditDistanceNeighbors holds it, and long queries.
UNIT_Y = UNIT._kernel._encode_list(["abcdefgh"] * 20_000, "Y", False)
UNIT_TABLE = _dp.unit_table(UNIT_Y[0], UNIT_Y[2])


@pytest.mark.parametrize(
    ("name", "call"),
    [
        ("distance", functools.partial(WL.distance, LONG_A, LONG_B)),
        # the compiled methods themselves, not the Python wrapper (which runs bytecode)
        (
            "pairwise",
            functools.partial(_dp.CostKernel.pairwise, WL._kernel, [LONG_A] * 2, [LONG_B] * 2, 1),
        ),
        (
            "align_batch",
            functools.partial(
                _dp.CostKernel.align_batch, WL._kernel, [LONG_A] * 2, [LONG_B] * 2, 1
            ),
        ),
        (
            "unit pairwise through a lexicon's match table",
            functools.partial(
                UNIT._kernel._pairwise_unit_table,
                [LONG_A[:3000]] * 8,  # 30M vector steps
                *UNIT_TABLE,
                UNIT_Y[0],
                UNIT_Y[2],
                0,
                np.empty((8, 20_000)),
            ),
        ),
        (
            "top-k merge of brute-force distances",
            functools.partial(
                _index.topk_update,
                np.tile(np.arange(2e6, 0, -1), (4, 1)),  # each a new best: ~0.08 s
                0,
                np.empty((4, 10)),
                np.empty((4, 10), dtype=np.int64),
                0,
            ),
        ),
        (
            "general distance",
            functools.partial(
                _edit.EditKernel.distance, GENERAL._kernel, LONG_A[:3000], LONG_B[:3000]
            ),
        ),
        (
            "general pairwise",
            functools.partial(
                _edit.EditKernel.pairwise, GENERAL._kernel, [LONG_A[:2000]], [LONG_B[:2000]]
            ),
        ),
        (
            "general align_batch",
            functools.partial(
                _edit.EditKernel.align_batch, GENERAL._kernel, [LONG_A[:2000]], [LONG_B[:2000]]
            ),
        ),
        (
            "general forward",
            functools.partial(
                _edit.EditKernel.soft_distance, GENERAL._kernel, LONG_A[:1200], LONG_B[:1200]
            ),
        ),
        (
            "general forward-backward",
            functools.partial(
                _edit.EditKernel.expected_counts,
                GENERAL._kernel,
                [LONG_A[:800]],
                [LONG_B[:800]],
                1.0,
            ),
        ),
        (
            "LexiconIndex.kneighbors",
            functools.partial(
                EditDistanceNeighbors(1, metric=WL).fit([LONG_B[:1500], "ab"]).index_.kneighbors,
                [LONG_A[:1500]] * 3,
                1,
                1,
            ),
        ),
    ],
)
def test_kernels_release_the_gil(name, call):
    counted, _ = count_while_running(call)
    assert counted > 0, f"{name} held the GIL: no Python thread ran while it computed"

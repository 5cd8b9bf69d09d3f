"""The Y of ``pairwise`` encoded once (``CostKernel._encode_y``) and reused.

``pairwise_chunked`` and the brute-force neighbour search encode their Y once for
all chunks, and a metric keeps the last large Y list it encoded, reusing it when
the next call passes a list of the same str objects.  Every answer must be the
pure-Python twin's, whatever happened to the list in between, on every kernel
path, in threads, after pickling; and only the last Y may be kept.
"""

import copy
import gc
import pickle
import weakref

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import CORE, EXOTIC, cost_dicts, edit_dicts, metric_cost_dicts, text
from test_concurrency import run_in_threads

from skocrcost import (
    EditDistanceNeighbors,
    WeightedEditDistance,
    WeightedLevenshtein,
    kernel_config,
    neighbors,
)
from skocrcost._kernels import _cost_kernel as _dp
from skocrcost._kernels import _cost_kernel_py as _dp_py
from skocrcost._kernels import _edit_kernel_py as _edit_py

KEEP = _dp.KEEP_MIN_Y
LEVELS = _dp.simd_levels()


def twin(metric):
    """The pure-Python twin of a metric's kernel (the general one for rules and transpositions)."""
    args = metric._kernel._kernel_args()
    return (_dp_py.CostKernel if len(args) == 9 else _edit_py.EditKernel)(*args)


def words(n, seed, letters=CORE + EXOTIC + "xyz", hi=12):
    """Random words, empty ones and characters outside any cost table included."""
    rng = np.random.default_rng(seed)
    return ["".join(rng.choice(list(letters), rng.integers(0, hi))) for _ in range(n)]


def chunked(metric, X, Y, rows=1, **kw):
    """``pairwise_chunked`` with blocks of ``rows`` rows, stacked."""
    memory = rows * 8 * max(len(Y), 1) / 2**20
    blocks = list(metric.pairwise_chunked(X, Y, working_memory=memory, **kw))
    assert all(b.shape[0] <= rows for b in blocks)
    return np.vstack(blocks) if blocks else np.empty((0, len(Y)))


class S(str):
    """A str that can be watched with a weak reference."""


# -- pairwise_chunked: Y encoded once --------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(
    st.one_of(cost_dicts(), metric_cost_dicts(), edit_dicts(), st.just({})),
    st.lists(text, max_size=8),
    st.lists(text, max_size=30),
    st.integers(1, 3),
)
def test_chunked_equals_pairwise_and_twin(costs, X, Y, rows):
    metric = WeightedLevenshtein(**costs)
    want = twin(metric).pairwise(X, Y)
    np.testing.assert_array_equal(metric.pairwise(X, Y), want)
    np.testing.assert_array_equal(chunked(metric, X, Y, rows), want)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(
    "costs",
    [
        {},  # unit costs: bit-parallel
        {"substitution_costs": {("a", "b"): 0.1, ("c", "r"): 0.7}},  # double lanes
        {"substitution_costs": {("a", "b"): 0.25}, "default_insertion_cost": 1.5},  # int32
        {"substitution_costs": {("rn", "m"): 0.2}, "transposition_costs": {("a", "b"): 0.5}},
    ],
    ids=["unit", "doubles", "grid", "general"],
)
@pytest.mark.parametrize("threads", [1, 2])
def test_chunked_on_every_path_with_a_kept_lexicon(level, costs, threads):
    # A Y of more than KEEP strings is kept; chunks of 1 and 5 rows take the rows
    # kernel on a grid, 40 rows the lanes; each switch turns a fast path off.
    metric = WeightedLevenshtein(**costs)
    X, Y = words(40, 1, hi=20), words(KEEP + 60, 2)
    want = twin(metric).pairwise(X, Y)
    with kernel_config(simd=level):
        for rows in (1, 5, 40):
            np.testing.assert_array_equal(chunked(metric, X, Y, rows, n_jobs=threads), want)
        for switch in ("bitparallel", "grid", "rows"):
            with kernel_config(**{switch: False}):
                np.testing.assert_array_equal(chunked(metric, X, Y, 5), want)
                np.testing.assert_array_equal(metric.pairwise(X, Y), want)


def test_chunked_edge_cases():
    metric = WeightedLevenshtein({("a", "b"): 0.25})
    for X, Y in [([], words(KEEP, 3)), (["", "ab"], []), (["", "\U0001f600"], ["", "", "x"])]:
        want = twin(metric).pairwise(X, Y)
        np.testing.assert_array_equal(chunked(metric, X, Y), want)
        assert chunked(metric, X, Y).shape == (len(X), len(Y))


def test_chunked_blocks_do_not_see_later_changes_to_y():
    metric = WeightedLevenshtein({("a", "b"): 0.25})
    X, Y = words(6, 4), words(KEEP + 10, 5)
    want = twin(metric).pairwise(X, Y)
    blocks = metric.pairwise_chunked(X, Y, working_memory=8 * len(Y) / 2**20)
    Y[0], Y[-1] = "zzzz", ""
    np.testing.assert_array_equal(np.vstack(list(blocks)), want)


def test_sparse_tables_take_an_encoded_y():
    costs = {"substitution_costs": {("a", "b"): 0.1}, "default_deletion_cost": 0.7}
    args = list(WeightedLevenshtein(**costs)._kernel._kernel_args())
    args[-1] = False  # CSR layout: one pair at a time
    kernel, ref = _dp.CostKernel(*args), _dp_py.CostKernel(*args)
    X, Y = words(7, 6), words(KEEP, 7)
    enc = kernel._encode_y(Y)
    for part in (X[:3], X[3:]):
        np.testing.assert_array_equal(kernel.pairwise(part, enc), ref.pairwise(part, Y))


# -- the last Y kept -------------------------------------------------------------------------
@pytest.mark.parametrize(
    "costs",
    [{}, {"substitution_costs": {("a", "b"): 0.1}}, {"substitution_costs": {("a", "b"): 0.25}}],
    ids=["unit", "doubles", "grid"],
)
def test_a_list_changed_in_place_is_encoded_again(costs):
    metric = WeightedLevenshtein(**costs)
    ref = twin(metric)
    X, Y = words(3, 8), words(KEEP + 5, 9)
    np.testing.assert_array_equal(metric.pairwise(X, Y), ref.pairwise(X, Y))
    kept = metric._encode_y(Y)
    assert metric._encode_y(Y) is kept and metric._encode_y(list(Y)) is kept  # same objects
    changes = [
        lambda Y: Y.__setitem__(7, "abracadabra"),
        lambda Y: Y.__setitem__(0, Y[1]),  # another (identical) object in a slot
        lambda Y: Y.append("ab"),
        lambda Y: Y.pop(3),
        lambda Y: Y.reverse(),
        lambda Y: Y.sort(key=len),
        lambda Y: Y.__setitem__(
            slice(None),
            [w.encode("utf-8", "surrogatepass").decode("utf-8", "surrogatepass") for w in Y],
        ),  # equal, new
    ]
    for change in changes:
        change(Y)
        np.testing.assert_array_equal(metric.pairwise(X, Y), ref.pairwise(X, Y))
        np.testing.assert_array_equal(chunked(metric, X, Y), ref.pairwise(X, Y))


def test_only_the_last_large_y_is_kept():
    metric = WeightedLevenshtein({("a", "b"): 0.25})
    X = words(2, 10)
    first = [S(w) for w in words(KEEP, 11)]
    watch = [weakref.ref(w) for w in first]
    metric.pairwise(X, first)
    kept = metric._encode_y(first)
    del first
    gc.collect()
    assert all(r() is not None for r in watch)  # the metric holds them: identity stays sound
    metric.pairwise(X, words(KEEP - 1, 12))  # fewer than KEEP: encoded, not kept
    assert metric._encode_y([r() for r in watch]) is kept
    del kept
    second = words(KEEP, 13)
    metric.pairwise(X, second)
    gc.collect()
    assert all(r() is None for r in watch)  # replaced: the first lexicon is released
    assert metric._encode_y(second) is metric._encode_y(second)


def test_encoded_y_is_tied_to_its_kernel_and_not_pickled():
    a = WeightedLevenshtein({("a", "b"): 0.25})
    b = WeightedLevenshtein({("a", "b"): 0.25})
    enc = a._encode_y(words(KEEP, 14))
    assert len(enc) == KEEP and not enc.offsets.flags.writeable and not enc.cps.flags.writeable
    with pytest.raises(ValueError, match="another kernel"):
        b._pairwise(["ab"], enc, 1)
    with pytest.raises(TypeError, match="not picklable"):
        pickle.dumps(enc)
    with pytest.raises(TypeError, match="Y must"):
        a._pairwise(["ab"], ("ab", "b"), 1)


@pytest.mark.parametrize(
    "costs", [{("a", "b"): 0.25}, {("rn", "m"): 0.2}], ids=["single", "general"]
)
def test_pickled_and_copied_metrics_start_without_the_kept_y(costs):
    metric = WeightedLevenshtein(costs)
    X, Y = words(4, 15), words(KEEP + 3, 16)
    size = len(pickle.dumps(metric))
    want = metric.pairwise(X, Y)
    assert len(pickle.dumps(metric)) == size
    for other in (pickle.loads(pickle.dumps(metric)), copy.deepcopy(metric), copy.copy(metric)):
        np.testing.assert_array_equal(other.pairwise(X, Y), want)
        Y2 = Y[::-1]
        np.testing.assert_array_equal(other.pairwise(X, Y2), want[:, ::-1])


def test_threads_passing_different_lexicons_to_one_metric():
    # Each thread alternates between three lexicons, so the kept Y is replaced under
    # the others' feet; every answer must still be its own lexicon's.
    metric = WeightedLevenshtein({("a", "b"): 0.25, ("c", "r"): 0.5})
    X = words(3, 17)
    lexicons = [words(KEEP + 10 * k, 18 + k) for k in range(3)]
    want = [twin(metric).pairwise(X, Y) for Y in lexicons]

    def work(i):
        for r in range(30):
            k = (i + r) % 3
            if not np.array_equal(metric.pairwise(X, lexicons[k], n_jobs=1 + r % 2), want[k]):
                return False
            if r % 5 == 0 and not np.array_equal(chunked(metric, X, lexicons[k], 2), want[k]):
                return False
        return True

    assert all(run_in_threads(work))


# -- the brute-force neighbour search: the lexicon encoded once per search -------------------
@pytest.mark.parametrize(
    "metric",
    [
        WeightedLevenshtein({("rn", "m"): 0.2}, transposition_costs={("a", "b"): 0.5}),
        WeightedEditDistance(),
    ],
    ids=["general", "WeightedEditDistance"],
)
def test_brute_force_search_in_chunks(metric, monkeypatch):
    lexicon, queries = words(KEEP + 20, 19), words(9, 20)
    monkeypatch.setattr(neighbors, "_CHUNK_CELLS", 2 * len(lexicon))  # 2 queries per chunk
    nn = EditDistanceNeighbors(n_neighbors=4, metric=metric).fit(lexicon)
    assert type(nn.index_).__name__ == "_BruteIndex"
    D = np.array([[metric.distance(q, w) for w in lexicon] for q in queries])
    order = np.argsort(D, axis=1, kind="stable")[:, :4]
    dist, ind = nn.kneighbors(queries)
    np.testing.assert_array_equal(ind, order)
    np.testing.assert_array_equal(dist, np.take_along_axis(D, order, axis=1))
    got = nn.radius_neighbors(queries, radius=2.0)[1]
    for row, want in zip(got, D, strict=True):
        assert sorted(row.tolist()) == np.flatnonzero(want <= 2.0).tolist()

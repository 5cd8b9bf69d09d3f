"""Unit costs: kneighbors by bit-parallel brute force gives exactly the trie's answer."""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from skocrcost._kernels._lexicon_index import LexiconIndex, topk_update
from strategies import CORE, EXOTIC

from skocrcost import EditCostEstimator, EditDistanceNeighbors, WeightedLevenshtein, kernel_config
from skocrcost import neighbors as nb
from skocrcost._kernels import _cost_kernel as _dp
from skocrcost._kernels import _cost_kernel_py as _dp_py
from skocrcost._kernels import _lexicon_index_py as _index_py

# Few characters and short words: many equal distances, so the order of ties matters.
few = st.text(alphabet="ab" + EXOTIC[2:5], max_size=6)
longer = st.text(alphabet=CORE + EXOTIC, max_size=20)  # past a 16-bit lane too
lexicons = st.lists(st.one_of(few, longer), min_size=1, max_size=60)
queries = st.lists(st.one_of(few, longer), min_size=1, max_size=25)


def trie(index, queries, k, n_threads=1):
    return LexiconIndex.kneighbors(index, queries, k, n_threads)


def stable_brute(words, queries, k):
    D = WeightedLevenshtein().pairwise(queries, words)
    order = np.argsort(D, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(D, order, axis=1), order


@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks of 3 queries x 16 words."""
    monkeypatch.setattr(nb, "_UNIT_CHUNK_ROWS", 3)
    monkeypatch.setattr(nb, "_UNIT_CHUNK_CELLS", 40)


@settings(max_examples=150, deadline=None)
@given(lexicons, queries, st.integers(1, 60), st.sampled_from([1, 2]))
def test_brute_force_is_the_trie_ties_included(words, qs, k, n_jobs):
    k = min(k, len(words))
    nn = EditDistanceNeighbors(k, n_jobs=n_jobs).fit(words)
    index = nn.index_
    assert isinstance(index, nb._UnitIndex)
    want = trie(index, qs, k)
    for rows, cells in ((256, 1 << 21), (3, 40), (1, 1)):  # one chunk, many of both kinds
        old = nb._UNIT_CHUNK_ROWS, nb._UNIT_CHUNK_CELLS
        nb._UNIT_CHUNK_ROWS, nb._UNIT_CHUNK_CELLS = rows, cells
        try:
            got = index.kneighbors(qs, k, n_jobs)
        finally:
            nb._UNIT_CHUNK_ROWS, nb._UNIT_CHUNK_CELLS = old
        for a, b, c in zip(got, want, stable_brute(words, qs, k), strict=True):
            np.testing.assert_array_equal(a, b)
            np.testing.assert_array_equal(a, c)


@settings(max_examples=150, deadline=None)
@given(lexicons, queries, st.integers(1, 60), st.sampled_from([0.0, 1.0, 2.0, 2.5, 3.0]))
def test_a_bounded_search_is_the_brute_force_within_the_bound(words, qs, k, bound):
    """Within 2 unit edits the index answers by the trie, beyond by brute force: the
    k nearest of the brute force either way, those beyond the bound -1 and inf."""
    k = min(k, len(words))
    nn = EditDistanceNeighbors(k).fit(words)
    assert isinstance(nn.index_, nb._UnitIndex)
    dist, ind = nn._nearest_within(qs, k, bound, 1)
    want_dist, want_ind = stable_brute(words, qs, k)
    beyond = want_dist > bound
    np.testing.assert_array_equal(ind, np.where(beyond, -1, want_ind))
    np.testing.assert_array_equal(dist, np.where(beyond, np.inf, want_dist))


def test_many_ties_keep_lexicon_order(small_chunks):
    # 40 words at distance 1 of "ab" and duplicates at 0: only the index orders them.
    words = ["ab"] + [c + "b" for c in "cdefghijklmnopqrstuvwxyz"] + ["ab", "a", "b"] * 5
    qs = ["ab", "zb", "ba", "é"] * 3
    nn = EditDistanceNeighbors(30, n_jobs=2).fit(words)
    got = nn.kneighbors(qs)
    want = trie(nn.index_, qs, 30)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)
    assert got[1][0, :7].tolist() == [0, 25, 28, 31, 34, 37, 1]  # the six "ab", then "cb"


def test_non_ascii_and_long_words(small_chunks):
    words = ["Straße", "strasse", "naïve", "naive", "日本語", "日本", "🙂🙃", "x" * 70, "ſ" * 17]
    qs = ["Strasse", "naive", "日本人", "🙂", "x" * 69, "ſ" * 16, "", "z" * 30]
    nn = EditDistanceNeighbors(4).fit(words)
    for a, b in zip(nn.kneighbors(qs), stable_brute(words, qs, 4), strict=True):
        np.testing.assert_array_equal(a, b)


def test_the_lexicon_against_itself_excludes_each_word(small_chunks):
    words = ["the", "thc", "tbe", "cow", "the", "then", "them", "tho"]
    got = EditDistanceNeighbors(3).fit(words).kneighbors()
    D = WeightedLevenshtein().pairwise(words)
    for q in range(len(words)):
        others = [j for j in np.argsort(D[q], kind="stable") if j != q][:3]
        assert got[1][q].tolist() == others
        np.testing.assert_array_equal(got[0][q], D[q, others])


def test_too_many_neighbours_are_refused(small_chunks):
    nn = EditDistanceNeighbors(2).fit(["ab", "cd", "ef"])
    with pytest.raises(ValueError, match="n_neighbors must be <= 3"):
        nn.kneighbors(["ab"] * 10, n_neighbors=4)
    with pytest.raises(ValueError, match=r"k must be in \[1, 3\]"):
        nn.index_.kneighbors(["ab"] * 10, 4, 1)
    with pytest.raises(TypeError, match=r"X\[1\] is int"):
        nn.index_.kneighbors(["ab", 3], 1, 1)


def test_routing_by_costs_and_alphabet(monkeypatch):
    words = ["the", "thc", "tbe", "cow", "then"]
    assert type(EditDistanceNeighbors(2).fit(words).index_) is nb._UnitIndex
    # Learned (not unit) costs search the trie.
    learned = WeightedLevenshtein({("b", "h"): 0.2})
    assert not learned._kernel.unit
    got = EditDistanceNeighbors(2, metric=learned).fit(words)
    assert type(got.index_) is LexiconIndex
    assert got.kneighbors(["tbe"] * 9)[0][0].tolist() == [0.0, 0.2]  # "tbe", then "the"
    est = EditCostEstimator(k=0.1).fit(["tbe", "cow"], ["the", "cow"])
    assert type(EditDistanceNeighbors(2, metric=est).fit(words).index_) is LexiconIndex
    # So do unit costs whose match table would be too large: 2 bytes x 9 rows (8
    # characters and "none") x 16 columns (5 words padded to a block) here.
    monkeypatch.setattr(nb, "_UNIT_TABLE_BYTES", 2 * 9 * 16)
    assert type(EditDistanceNeighbors(2).fit(words).index_) is nb._UnitIndex
    monkeypatch.setattr(nb, "_UNIT_TABLE_BYTES", 2 * 9 * 16 - 1)
    assert type(EditDistanceNeighbors(2).fit(words).index_) is LexiconIndex


def test_unit_index_pickles(small_chunks):
    words = ["the", "thc", "tbe", "cow", "then"]
    nn = EditDistanceNeighbors(3).fit(words)
    back = pickle.loads(pickle.dumps(nn))
    assert type(back.index_) is nb._UnitIndex
    for a, b in zip(back.kneighbors(["th", "c0w"]), nn.kneighbors(["th", "c0w"]), strict=True):
        np.testing.assert_array_equal(a, b)


def test_table_scan_equals_pairwise():
    unit = WeightedLevenshtein()
    words = ["Straße", "", "a" * 17, "ab", "日本", "x" * 70, "abcdefghijklmnop"] * 7
    qs = ["strasse", "", "a" * 16, "日本語", "q", "abcdefghijklmnopq"]
    off, ids, cps = unit._kernel._encode_list(words, "Y", False)
    assert ids is None
    table = _dp.unit_table(off, cps)
    assert table[1].shape == (len(set("".join(w for w in words if len(w) <= 16))) + 1, 64)
    want = unit.pairwise(qs, words)
    for level in _dp.simd_levels():
        with kernel_config(simd=level):
            for g0, ncols in ((0, len(words)), (1, 30), (2, 1), (3, 0), (1, 33)):
                out = np.full((len(qs), ncols), -1.0)
                unit._kernel._pairwise_unit_table(qs, *table, off, cps, g0, out, 2)
                np.testing.assert_array_equal(out, want[:, 16 * g0 : 16 * g0 + ncols])
    out = np.empty((len(qs), len(words)))
    with pytest.raises(ValueError, match="columns within the lexicon"):
        unit._kernel._pairwise_unit_table(qs, *table, off, cps, 1, out)
    with pytest.raises(ValueError, match="does not match the lexicon"):
        unit._kernel._pairwise_unit_table(qs, *table, off[:-16], cps, 0, out[:, 16:].copy())
    with pytest.raises(ValueError, match="unit costs"):
        WeightedLevenshtein(default_insertion_cost=2.0)._kernel._pairwise_unit_table(
            qs, *table, off, cps, 0, out
        )


@settings(max_examples=100, deadline=None)
@given(lexicons, queries, st.integers(0, 3), st.integers(0, 60))
def test_table_scan_equals_its_twin(words, qs, g0, ncols):
    # The twin reads each short string's match masks from the table and scans them
    # with the query, so the table's layout and the scan are both held to it.
    unit = WeightedLevenshtein()
    twin = _dp_py.CostKernel(*unit.costs.kernel_args())
    off, _, cps = unit._kernel._encode_list(words, "Y", False)
    table = _dp.unit_table(off, cps)
    ncols = max(0, min(ncols, len(words) - 16 * g0))
    if 16 * g0 > len(words):
        return
    got, want = np.full((len(qs), ncols), -1.0), np.full((len(qs), ncols), -2.0)
    unit._kernel._pairwise_unit_table(qs, *table, off, cps, g0, got, 2)
    twin._pairwise_unit_table(qs, *table, off, cps, g0, want)
    np.testing.assert_array_equal(got, want)


@settings(max_examples=100, deadline=None)
@given(
    st.integers(0, 6),
    st.integers(0, 30),
    st.integers(0, 8),
    st.integers(0, 40),
    st.randoms(use_true_random=False),
)
def test_topk_update_equals_its_twin(n, m, k, first, rnd):
    D = np.array([[rnd.randint(0, 3) / 2 for _ in range(m)] for _ in range(n)]).reshape(n, m)
    have = rnd.randint(0, k)
    # The best so far: sorted, from words before ``first`` (indices below it).
    seen = sorted((rnd.randint(0, 3) / 2, i) for i in rnd.sample(range(first + 50), have))
    seen = [(d, i - 50) for d, i in seen]  # indices may run below 0 here, which is fine
    dist = np.zeros((n, k))
    ind = np.zeros((n, k), dtype=np.int64)
    for r in range(n):
        dist[r, :have] = [d for d, _ in seen]
        ind[r, :have] = [i for _, i in seen]
    d2, i2 = dist.copy(), ind.copy()
    got = topk_update(np.ascontiguousarray(D), first, dist, ind, have, 2)
    assert got == _index_py.topk_update(D, first, d2, i2, have) == min(k, have + m)
    np.testing.assert_array_equal(dist, d2)
    np.testing.assert_array_equal(ind, i2)


def test_topk_update_merges_in_the_tries_order():
    rng = np.random.default_rng(0)
    D = rng.integers(0, 4, size=(7, 50)).astype(float)
    for k in (1, 5, 50):
        dist, ind = np.empty((7, k)), np.empty((7, k), dtype=np.int64)
        have = 0
        for c in range(0, 50, 13):
            have = topk_update(np.ascontiguousarray(D[:, c : c + 13]), c, dist, ind, have, 2)
        order = np.argsort(D, axis=1, kind="stable")[:, :k]
        np.testing.assert_array_equal(ind, order)
        np.testing.assert_array_equal(dist, np.take_along_axis(D, order, axis=1))
    with pytest.raises(ValueError, match="have <= k"):
        topk_update(D, 0, np.empty((7, 2)), np.empty((7, 2), dtype=np.int64), 3)


def test_long_lines_need_no_search_buffers():
    # The trie refuses this pair (its DP columns would take 12.8 GB); brute force does not.
    nn = EditDistanceNeighbors(1).fit(["x" * 40_000, "y" * 39_990 + "x"])
    assert nn.kneighbors(["y" * 40_000])[0].tolist() == [[10.0]]


@settings(max_examples=100, deadline=None)
@given(lexicons, queries, st.integers(1, 60), st.integers(0, 4))
def test_every_index_cuts_the_nearest_at_max_distance_as_the_trie(words, qs, k, max_distance):
    """Unit costs (bit-parallel brute force), the trie, and brute force by pairwise (a
    metric the trie cannot read) keep the same k nearest within the distance."""
    k = min(k, len(words))
    unit = EditDistanceNeighbors(k).fit(words)
    assert isinstance(unit.index_, nb._UnitIndex)
    want = trie(unit.index_, qs, k)
    beyond = want[0] > max_distance
    want[0][beyond], want[1][beyond] = np.inf, -1
    got = unit._nearest_within(qs, k, max_distance, 1)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)
    brute = EditDistanceNeighbors(k, metric=_PairwiseOnly()).fit(words)
    assert isinstance(brute.index_, nb._BruteIndex)
    for a, b in zip(brute._nearest_within(qs, k, max_distance, 1), want, strict=True):
        np.testing.assert_array_equal(a, b)


class _PairwiseOnly:
    """Unit costs behind pairwise alone, as a richer edit model would offer them."""

    def pairwise(self, X, Y, n_jobs=None):
        return WeightedLevenshtein().pairwise(X, Y)


@pytest.mark.parametrize("bad", [-1.0, float("nan")])
def test_brute_force_refuses_a_bad_max_distance_before_searching(bad):
    words = ["the", "tie", "bee"]
    calls = []

    class Counting(_PairwiseOnly):
        def pairwise(self, X, Y=None, n_jobs=None):
            calls.append(len(X))
            return super().pairwise(X, Y, n_jobs=n_jobs)

    for nn in (
        EditDistanceNeighbors(1).fit(words),
        EditDistanceNeighbors(1, metric=Counting()).fit(words),
    ):
        with pytest.raises(ValueError, match="max_distance"):
            nn._nearest_within(["tbe"], 1, bad, 1)
    assert calls == []

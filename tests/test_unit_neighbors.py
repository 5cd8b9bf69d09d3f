"""Unit costs: kneighbors by bit-parallel brute force gives exactly the trie's answer."""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from skocrcost._index import LexiconIndex, topk_update
from strategies import CORE, EXOTIC

from skocrcost import EditCostEstimator, EditDistanceNeighbors, WeightedLevenshtein
from skocrcost import neighbors as nb

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
    """Brute force for every query count, chunks of 3 queries x 16 or more words."""
    monkeypatch.setattr(nb, "_UNIT_BRUTE_QUERIES", 1)
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
    for rows, cells in ((256, 1 << 21), (3, 40), (1, 1)):  # one chunk, and many of both kinds
        old = nb._UNIT_CHUNK_ROWS, nb._UNIT_CHUNK_CELLS
        nb._UNIT_CHUNK_ROWS, nb._UNIT_CHUNK_CELLS = rows, cells
        try:
            got = index._brute_kneighbors(qs, k, n_jobs)
        finally:
            nb._UNIT_CHUNK_ROWS, nb._UNIT_CHUNK_CELLS = old
        for a, b, c in zip(got, want, stable_brute(words, qs, k), strict=True):
            np.testing.assert_array_equal(a, b)
            np.testing.assert_array_equal(a, c)


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
    nb._UNIT_BRUTE_QUERIES = 10**9  # the trie
    want = EditDistanceNeighbors(3).fit(words).kneighbors()
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)


def test_too_many_neighbours_are_refused(small_chunks):
    nn = EditDistanceNeighbors(2).fit(["ab", "cd", "ef"])
    with pytest.raises(ValueError, match="n_neighbors must be <= 3"):
        nn.kneighbors(["ab"] * 10, n_neighbors=4)
    with pytest.raises(ValueError, match=r"k must be in \[1, 3\]"):
        nn.index_._brute_kneighbors(["ab"] * 10, 4, 1)
    with pytest.raises(TypeError, match=r"X\[1\] is int"):
        nn.index_._brute_kneighbors(["ab", 3], 1, 1)


def test_routing_by_query_count_and_costs(monkeypatch):
    def refuse(*args):
        raise AssertionError("brute force ran")

    words = ["the", "thc", "tbe", "cow", "then"]
    few, many = ["tbe"], ["tbe"] * nb._UNIT_BRUTE_QUERIES
    nn = EditDistanceNeighbors(2).fit(words)
    want = nn.kneighbors(many)
    monkeypatch.setattr(nb._UnitIndex, "_brute_kneighbors", refuse)
    nn.kneighbors(few)  # the trie
    with pytest.raises(AssertionError, match="brute force ran"):
        nn.kneighbors(many)
    # Learned (not unit) costs always search the trie.
    learned = WeightedLevenshtein({("b", "h"): 0.2})
    assert not learned.unit
    got = EditDistanceNeighbors(2, metric=learned).fit(words)
    assert type(got.index_) is LexiconIndex
    assert got.kneighbors(many)[0][0].tolist() == [0.0, 0.2]  # "tbe", then "the"
    est = EditCostEstimator(k=0.1).fit(["tbe", "cow"], ["the", "cow"])
    assert type(EditDistanceNeighbors(2, metric=est).fit(words).index_) is LexiconIndex
    np.testing.assert_array_equal(want[1][0], [2, 0])


def test_unit_index_pickles(small_chunks):
    words = ["the", "thc", "tbe", "cow", "then"]
    nn = EditDistanceNeighbors(3).fit(words)
    back = pickle.loads(pickle.dumps(nn))
    assert type(back.index_) is nb._UnitIndex
    for a, b in zip(back.kneighbors(["th", "c0w"]), nn.kneighbors(["th", "c0w"]), strict=True):
        np.testing.assert_array_equal(a, b)


def test_pairwise_into_preencoded_chunks_equals_pairwise():
    unit = WeightedLevenshtein()
    words = ["Straße", "", "a" * 17, "ab", "日本", "x" * 70] * 7
    qs = ["strasse", "", "a" * 16, "日本語"]
    off, ids, cps = unit._encode_list(words, "Y", False)
    assert ids is None
    want = unit.pairwise(qs, words)
    for a, b in ((0, len(words)), (5, 23), (17, 18), (40, 42)):
        out = np.full((len(qs), b - a), -1.0)
        unit._pairwise_unit_into(qs, off[a : b + 1], cps, out, 2)
        np.testing.assert_array_equal(out, want[:, a:b])
    with pytest.raises(ValueError, match="out must have shape"):
        unit._pairwise_unit_into(qs, off, cps, np.empty((1, len(words))))
    with pytest.raises(ValueError, match="point into ycp"):
        unit._pairwise_unit_into(qs, off + 1, cps, np.empty((len(qs), len(words))))
    with pytest.raises(ValueError, match="unit costs"):
        WeightedLevenshtein(default_insertion_cost=2.0)._pairwise_unit_into(qs, off, cps, want)


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

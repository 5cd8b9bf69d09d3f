"""The trie index against its pure-Python twin and against brute force."""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import CORE, EXOTIC, cost_dicts, text

from skocrcost import WeightedLevenshtein
from skocrcost._costs import CostTables
from skocrcost._kernels import _cost_kernel_py as _dp_py
from skocrcost._kernels import _lexicon_index as _index
from skocrcost._kernels import _lexicon_index_py as _index_py

lexicons = st.lists(text, min_size=1, max_size=12)
queries = st.lists(text, max_size=5)
# More characters than a node's 64-bit character mask has bits.
WIDE = CORE + EXOTIC + "".join(map(chr, range(0x21, 0x7F)))
wide_text = st.text(alphabet=st.sampled_from(WIDE), max_size=8)


def brute_kneighbors(metric, Q, words, k):
    D = metric.pairwise(Q, words)
    order = np.argsort(D, axis=1, kind="stable")[:, :k]  # ties: lexicon order
    return np.take_along_axis(D, order, axis=1), order


def both(costs, words, split=None):
    tables = CostTables.from_dicts(**costs)
    kernel = WeightedLevenshtein.from_tables(tables)._kernel
    compiled = _index.LexiconIndex(kernel, words, split)
    twin = _index_py.LexiconIndex(_dp_py.CostKernel(*tables.kernel_args()), words, split)
    return compiled, twin


# Searches within a largest distance are split unless told otherwise: both ways.
split_or_not = pytest.mark.parametrize("split", [False, True], ids=["one-pass", "split"])


@split_or_not
@settings(max_examples=150, deadline=None)
@given(cost_dicts(), lexicons, queries, st.integers(1, 12), st.integers(1, 3))
def test_kneighbors_equal_twin_and_brute_force(split, costs, words, Q, k, threads):
    k = min(k, len(words))
    compiled, twin = both(costs, words, split)
    got = compiled.kneighbors(Q, k, threads)
    for x, y in zip(got, twin.kneighbors(Q, k), strict=True):
        np.testing.assert_array_equal(x, y)
    for x, y in zip(got, brute_kneighbors(compiled.kernel, Q, words, k), strict=True):
        np.testing.assert_array_equal(x, y)  # bit for bit, ties by lexicon index


def brute_within(metric, Q, words, k, max_distance):
    dist, ind = brute_kneighbors(metric, Q, words, k)
    beyond = dist > max_distance
    dist[beyond], ind[beyond] = np.inf, -1
    return dist, ind


@split_or_not
@settings(max_examples=150, deadline=None)
@given(cost_dicts(), lexicons, queries, st.integers(1, 12), st.floats(0, 4), st.integers(1, 3))
def test_kneighbors_within_a_distance_equal_twin_and_brute_force(
    split, costs, words, Q, k, max_distance, threads
):
    """The k nearest within ``max_distance``: the k nearest, those beyond it dropped."""
    k = min(k, len(words))
    compiled, twin = both(costs, words, split)
    got = compiled.kneighbors(Q, k, threads, max_distance)
    for x, y in zip(got, twin.kneighbors(Q, k, 1, max_distance), strict=True):
        np.testing.assert_array_equal(x, y)
    want = brute_within(compiled.kernel, Q, words, k, max_distance)
    for x, y in zip(got, want, strict=True):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("impl", ["compiled", "twin"])
@pytest.mark.parametrize("bad", [-1.0, float("nan")])
def test_kneighbors_refuses_a_bad_max_distance(impl, bad):
    index = dict(zip(["compiled", "twin"], both({}, ["ab", "b"]), strict=True))[impl]
    with pytest.raises(ValueError, match="max_distance"):
        index.kneighbors(["a"], 1, 1, bad)


@settings(max_examples=100, deadline=None)
@given(cost_dicts(), lexicons, queries, st.floats(0, 4), st.integers(1, 3))
def test_radius_neighbors_equal_twin_and_brute_force(costs, words, Q, radius, threads):
    compiled, twin = both(costs, words)
    got = compiled.radius_neighbors(Q, radius, threads)
    for x, y in zip(got, twin.radius_neighbors(Q, radius), strict=True):
        np.testing.assert_array_equal(x, y)
    offsets, dist, ind = got
    D = compiled.kernel.pairwise(Q, words)
    for q in range(len(Q)):
        within = np.flatnonzero(D[q] <= radius)
        want = within[np.argsort(D[q, within], kind="stable")]
        np.testing.assert_array_equal(ind[offsets[q] : offsets[q + 1]], want)
        np.testing.assert_array_equal(dist[offsets[q] : offsets[q + 1]], D[q, want])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(max_size=8), max_size=20))
def test_build_trie_equals_twin(words):
    for x, y in zip(_index.build_trie(words), _index_py.build_trie(words), strict=True):
        np.testing.assert_array_equal(x, y)


@settings(max_examples=100, deadline=None)
@given(st.lists(wide_text, min_size=1, max_size=30))
def test_char_masks_equal_twin(words):
    trie = _index.build_trie(words)
    for x, y in zip(
        _index.char_masks(trie[0], trie[2]), _index_py.char_masks(trie[0], trie[2]), strict=True
    ):
        np.testing.assert_array_equal(x, y)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(max_size=8), min_size=1, max_size=30))
def test_breadth_first_keeps_each_nodes_children_side_by_side(words):
    cp, depth, size, *_ = _index.build_trie(words)
    order, first, n_children = _index.breadth_first(size)
    assert sorted(order.tolist()) == list(range(len(cp))) and order[0] == 0
    assert (np.diff(depth[order]) >= 0).all()  # breadth first: level by level
    for i, v in enumerate(order.tolist()):
        children, u = [], v + 1
        while u < v + size[v]:  # the preorder children, each past its sibling's subtree
            children.append(u)
            u += size[u]
        assert order[first[i] : first[i] + n_children[i]].tolist() == children


def test_char_masks_give_the_rarest_characters_one_shared_bit():
    words = ["".join(map(chr, range(0x100, 0x100 + 70))), "ab", "b"]
    cp, depth, size, *_ = _index.build_trie(words)
    masks, chars, bits = _index.char_masks(cp, size)
    assert len(chars) == 72
    assert bits[chars.tolist().index(ord("b"))] == 1  # the most frequent character
    assert bits[chars.tolist().index(ord("a"))] == 2  # then by code point
    assert (bits == np.uint64(1 << 63)).sum() == 72 - 63
    assert masks[0] == np.bitwise_or.reduce(bits)  # the root has every character below it
    assert masks[cp.tolist().index(ord("b"), 1)] == 0  # "b" ends a word: nothing below


@settings(max_examples=150, deadline=None)
@given(
    cost_dicts(alphabet=CORE + EXOTIC + "!~"),
    st.lists(wide_text, min_size=1, max_size=10),
    st.lists(wide_text, min_size=1, max_size=3),
)
def test_every_subtree_bound_is_at_most_its_nearest_word(costs, words, Q):
    """The pruning bound of every node (lengths and characters below) never exceeds the
    distance of any word below it: pruning is exact for any non-negative costs.  So
    in the trie of the reversed words, for the reversed query (a split search's
    backward pass): the same distances, summed the other way."""
    tables = CostTables.from_dicts(**costs)
    twin = _index_py.LexiconIndex(_dp_py.CostKernel(*tables.kernel_args()), words)
    D = WeightedLevenshtein.from_tables(tables).pairwise(Q, words)
    for tr, way in ((twin._forward, 1), (twin._backward, -1)):
        _, _, size, _, _, end_ptr, ends = tr.trie
        for q, query in enumerate(Q):
            state = twin._start(tr, query[::way])
            for v in range(1, len(size)):  # preorder: the parent's column is ready
                bound = twin._column(tr, v, query[::way], *state)
                below = ends[end_ptr[v] : end_ptr[v + size[v]]]
                assert bound <= D[q, below].min()


@split_or_not
@settings(max_examples=60, deadline=None)
@given(
    cost_dicts(alphabet=CORE + EXOTIC + "!~"),
    st.lists(wide_text, min_size=1, max_size=40),
    st.lists(wide_text, max_size=4),
    st.integers(1, 5),
    st.floats(0, 6),
)
def test_kneighbors_with_more_characters_than_mask_bits(split, costs, words, Q, k, max_distance):
    k = min(k, len(words))
    compiled, twin = both(costs, words, split)
    for bound in (np.inf, max_distance):
        got = compiled.kneighbors(Q, k, 1, bound)
        for x, y in zip(got, twin.kneighbors(Q, k, 1, bound), strict=True):
            np.testing.assert_array_equal(x, y)
        want = brute_within(compiled.kernel, Q, words, k, bound)
        for x, y in zip(got, want, strict=True):
            np.testing.assert_array_equal(x, y)


def test_character_bound_with_a_shared_bit_and_cheap_substitutions():
    # 120 characters (57 share the last mask bit), substitutions far cheaper than
    # deletions, queries with characters no word has and characters outside the costs.
    rng = np.random.default_rng(11)
    alphabet = [chr(c) for c in range(0x21, 0x21 + 120)]
    subs = {(a, b): float(rng.uniform(0.05, 2)) for a in alphabet[:40] for b in alphabet[:60]}
    subs = {k: v for k, v in subs.items() if k[0] != k[1]}
    wl = WeightedLevenshtein(subs, {c: 1.5 for c in alphabet[:30]}, {c: 2.5 for c in alphabet})

    def rs(chars, lo, hi):
        return "".join(rng.choice(chars, rng.integers(lo, hi)))

    words = [rs(alphabet, 1, 9) for _ in range(400)]
    Q = [rs(alphabet, 0, 10) for _ in range(30)]
    Q += [rs(alphabet[:10] + ["\u4e2d", "\U0001f600"], 1, 9) for _ in range(10)]
    index = _index.LexiconIndex(wl._kernel, words)
    assert len(set("".join(words))) > 63 and index.char_masks[0] >> np.uint64(63) == 1
    for k in (1, 7):
        for x, y in zip(index.kneighbors(Q, k), brute_kneighbors(wl, Q, words, k), strict=True):
            np.testing.assert_array_equal(x, y)
    for k, bound in ((1, 3.0), (7, 5.0), (7, 9.0)):  # (split searches)
        want = brute_within(wl, Q, words, k, bound)
        for x, y in zip(index.kneighbors(Q, k, 1, bound), want, strict=True):
            np.testing.assert_array_equal(x, y)
    offsets, dist, ind = index.radius_neighbors(Q, 2.0)
    D = wl.pairwise(Q, words)
    assert offsets[-1] == (D <= 2.0).sum()


def test_trie_shares_prefixes_and_keeps_duplicates():
    words = ["the", "then", "they", "the", "a"]
    cp, depth, size, lo, hi, end_ptr, ends = _index.build_trie(words)
    assert len(cp) == 1 + 1 + 3 + 2  # root, "a", "t-h-e", "n", "y"
    assert size[0] == len(cp)
    assert ends.tolist() == [4, 0, 3, 1, 2]  # sorted by word, then index
    index = _index.LexiconIndex(WeightedLevenshtein()._kernel, words)
    dist, ind = index.kneighbors(["the"], 3)
    assert ind.tolist() == [[0, 3, 1]] and dist.tolist() == [[0.0, 0.0, 1.0]]


def test_pruning_skips_most_of_a_real_lexicon(shared_lexicon):
    """Exact and far cheaper than a DP per word: the twin counts the columns it computes."""
    words = shared_lexicon[::10]
    tables = CostTables.from_dicts()
    twin = _index_py.LexiconIndex(_dp_py.CostKernel(*tables.kernel_args()), words)
    compiled = _index.LexiconIndex(WeightedLevenshtein()._kernel, words)
    Q = ["tbe", "recieve", "Cambridgo"]
    dist, ind = twin.kneighbors(Q, 5)
    brute_columns = sum(len(w) for w in words) * len(Q)  # one DP column per word character
    assert twin.visited < 0.25 * brute_columns
    for x, y in zip(
        compiled.kneighbors(Q, 5), brute_kneighbors(compiled.kernel, Q, words, 5), strict=True
    ):
        np.testing.assert_array_equal(x, y)


def test_split_search_of_real_ocr_words_computes_fewer_columns_for_the_same_words(
    shared_lexicon,
):
    """Learned costs, the words of a real lexicon and misread words: the split search
    (the default) finds the same nearest words within the corrector's bounds as one
    pass and as brute force, computing fewer DP columns (the twin counts them)."""
    from skocrcost import EditCostEstimator
    from skocrcost.datasets import load_icdar2017_sample

    X, y = load_icdar2017_sample("tokens")
    metric = EditCostEstimator(k=0.5).fit(X[:3000], y[:3000]).metric_
    words = shared_lexicon
    known = set(words)
    Q = list(dict.fromkeys(x for x in X[3000:] if x not in known and x.isalpha()))[:40]
    compiled = _index.LexiconIndex(metric._kernel, words)
    assert compiled.split
    one_pass = _index.LexiconIndex(metric._kernel, words, split=False)
    for k, bound in ((5, 3.0), (5, 2.0), (30, 3.0)):
        got = compiled.kneighbors(Q, k, 1, bound)
        for x, y in zip(got, one_pass.kneighbors(Q, k, 1, bound), strict=True):
            np.testing.assert_array_equal(x, y)
        want = brute_within(compiled.kernel, Q[:10], words, k, bound)
        for x, y in zip((a[:10] for a in got), want, strict=True):
            np.testing.assert_array_equal(x, y)
    kernel = _dp_py.CostKernel(*metric._kernel._kernel_args())
    columns = []
    for split in (False, True):
        twin = _index_py.LexiconIndex(kernel, words[::4], split)
        got = twin.kneighbors(Q[:6], 5, 1, 3.0)
        want = _index.LexiconIndex(metric._kernel, words[::4], split=False).kneighbors(
            Q[:6], 5, 1, 3.0
        )
        for x, y in zip(got, want, strict=True):
            np.testing.assert_array_equal(x, y)
        columns.append(twin.visited)
    assert columns[1] < 0.8 * columns[0]


def test_index_pickles_and_rejects_bad_input():
    index = _index.LexiconIndex(
        WeightedLevenshtein({("0", "O"): 0.1})._kernel, ["OCR", "ORC", "cow"]
    )
    clone = pickle.loads(pickle.dumps(index))
    for x, y in zip(clone.kneighbors(["0CR"], 2), index.kneighbors(["0CR"], 2), strict=True):
        np.testing.assert_array_equal(x, y)
    one_pass = pickle.loads(pickle.dumps(_index.LexiconIndex(index.kernel, ["OCR", "cow"], False)))
    assert clone.split and not one_pass.split  # (the reversed words, spelled from the trie)
    assert clone.kneighbors(["0CR"], 2, 1, 5.0)[1].tolist() == [[0, 1]]
    assert clone.kneighbors(["0CR"], 1)[0][0, 0] == pytest.approx(0.1)
    with pytest.raises(ValueError, match="empty"):
        _index.LexiconIndex(WeightedLevenshtein()._kernel, [])
    with pytest.raises(ValueError, match="k must be"):
        index.kneighbors(["a"], 4)
    with pytest.raises(ValueError, match="radius"):
        index.radius_neighbors(["a"], -1.0)


def test_words_longer_than_the_node_records_length_fields():
    # Nodes keep the word lengths below them minus their depth in one byte, capped at
    # 255 (a weaker bound, never a wrong one): words and queries of 250-600 characters.
    rng = np.random.default_rng(7)

    def rs(lo, hi):
        return "".join(rng.choice(list("abc"), rng.integers(lo, hi)))

    wl = WeightedLevenshtein({("a", "b"): 0.3}, {"c": 0.2}, {"a": 0.4})
    for _ in range(8):
        base = rs(250, 300)
        words = [base + rs(0, 300) for _ in range(6)] + [rs(0, 5) for _ in range(6)]
        words += [base[: rng.integers(1, 280)] for _ in range(4)]
        Q = [base[: rng.integers(200, 300)] + rs(0, 40), rs(0, 600), rs(260, 270)]
        index = _index.LexiconIndex(wl._kernel, words)
        for k in (1, 5, len(words)):
            d, ind = index.kneighbors(Q, k)
            want_d, want_ind = brute_kneighbors(wl, Q, words, k)
            np.testing.assert_array_equal(ind, want_ind)
            np.testing.assert_array_equal(d, want_d)


def test_a_word_longer_than_the_index_holds_is_refused():
    with pytest.raises(ValueError, match="word of 70000 characters.*up to 65535"):
        _index.LexiconIndex(WeightedLevenshtein()._kernel, ["a" * 70_000])


@pytest.fixture(scope="module")
def shared_lexicon():
    from conftest import shared_path

    with open(shared_path("lexicon", "american-english"), encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def test_csr_tables_and_queries_too_long_for_the_row_cache():
    """Large alphabets (CSR tables) and long queries take the uncached path: still exact."""
    rng = np.random.default_rng(0)
    letters = [chr(0x4E00 + i) for i in range(1100)] + list("abcde")  # > 1024: CSR
    subs = {(letters[i], letters[i + 1]): float(rng.uniform(0, 2)) for i in range(0, 1099, 2)}
    wl = WeightedLevenshtein(subs, insertion_costs={c: 0.5 for c in "abc"})
    assert not wl._kernel.dense
    words = ["".join(rng.choice(letters, size=rng.integers(0, 6))) for _ in range(200)]
    long_query = "".join(rng.choice(letters, size=70))  # 1101 ids x 70 rows > the cache
    Q = [words[0], words[5][:2] + "ab", long_query, "", "abcde" * 20]
    index = _index.LexiconIndex(wl._kernel, words)
    for x, y in zip(index.kneighbors(Q, 7, 2), brute_kneighbors(wl, Q, words, 7), strict=True):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize(
    ("query", "words", "visited"),
    [
        # Words longer than the query: at node "abc" (column 3, 2, 1, 0) five more
        # characters must be inserted below, so its bound is 5 > 2 and "abc", "ab"
        # and "a" (the query's prefixes, always computed) end the search.
        ("abc", ["abcdefgh"], 3),
        # Words shorter than the query: at node "b" (column 1, 1, 2, ..., 8) at most two
        # more characters follow, so 8 - i - 2 query characters are deleted after row i:
        # the bound is 6 at every row, and "b" alone is computed.
        ("aaaaaaaa", ["baa", "bab"], 1),
        # Characters no word has: below node "a" (column 1, 1, 2, 3) nothing holds x, y
        # or z, each deleted or substituted at cost 1: the bound is 3.
        ("xyz", ["abcd", "abce"], 1),
    ],
)
def test_each_pruning_bound_stops_the_search_where_it_must(query, words, visited):
    """The twin counts the trie columns it computes: each part of the bound (lengths
    from above and below, characters) prunes a subtree no word of which is within 2."""
    tables = CostTables.from_dicts()
    twin = _index_py.LexiconIndex(_dp_py.CostKernel(*tables.kernel_args()), words)
    offsets, dist, ind = twin.radius_neighbors([query], 2.0)
    assert offsets.tolist() == [0, 0]  # no word within 2 (brute force below agrees)
    assert WeightedLevenshtein().pairwise([query], words).min() > 2
    assert twin.visited == visited


unit_text = st.text(alphabet="ab", max_size=5)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(unit_text, min_size=1, max_size=12),
    st.lists(unit_text, min_size=1, max_size=4),
    st.integers(1, 4),
    st.integers(0, 3),
)
def test_twin_search_with_ties_at_the_bound_equals_brute_force(words, Q, k, radius):
    """Unit costs on two letters: distances tie, and many a word lies exactly at the
    k-th distance or at the radius, where a bound a little too high prunes it.  A
    split search also meets a word in both passes: it is kept once."""
    k = min(k, len(words))
    tables = CostTables.from_dicts()
    twin = _index_py.LexiconIndex(_dp_py.CostKernel(*tables.kernel_args()), words)
    metric = WeightedLevenshtein()
    for x, y in zip(twin.kneighbors(Q, k), brute_kneighbors(metric, Q, words, k), strict=True):
        np.testing.assert_array_equal(x, y)
    within = brute_within(metric, Q, words, k, radius)
    for index in (
        twin,
        _index_py.LexiconIndex(_dp_py.CostKernel(*tables.kernel_args()), words, split=False),
        _index.LexiconIndex(metric._kernel, words),
    ):
        for x, y in zip(index.kneighbors(Q, k, 1, float(radius)), within, strict=True):
            np.testing.assert_array_equal(x, y)  # a word exactly at max_distance is kept
    offsets, dist, ind = twin.radius_neighbors(Q, float(radius))
    D = metric.pairwise(Q, words)
    for q in range(len(Q)):
        within = np.flatnonzero(D[q] <= radius)
        want = within[np.argsort(D[q, within], kind="stable")]
        np.testing.assert_array_equal(ind[offsets[q] : offsets[q + 1]], want)

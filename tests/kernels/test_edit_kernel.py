"""The general edit kernel: twin, references, ocr-stringdist, transpositions, pieces."""

import json
import math
import pickle

import numpy as np
import pytest
from conftest import require_module
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import reference_general
from sklearn.metrics import pairwise_distances
from skocrcost._kernels._lexicon_index import LexiconIndex
from strategies import cost_dicts, edit_dicts, text

from skocrcost import EditDistanceNeighbors, EditOperation, WeightedLevenshtein
from skocrcost._costs import CostTables
from skocrcost._kernels import _cost_kernel as _dp
from skocrcost._kernels import _edit_kernel as _edit
from skocrcost._kernels import _edit_kernel_py as _edit_py

letters = st.text(alphabet=st.sampled_from("rnmcl1Idab\u4e2d"), max_size=9)


def both(tables, match=None):
    args = [*tables.kernel_args(), *tables.edit_args()]
    if match is not None:
        args[9] = match
    return _edit.EditKernel(*args), _edit_py.EditKernel(*args)


@settings(max_examples=200, deadline=None)
@given(edit_dicts(), letters, letters, st.booleans())
def test_distance_and_alignment_equal_twin_and_reference(costs, a, b, with_match):
    tables = CostTables.from_dicts(**costs)
    match = None
    if with_match:  # match costs too (LingPipe's match weights)
        match = np.linspace(0.0, 0.5, len(tables.chars) + 1)
    compiled, twin = both(tables, match)
    d = compiled.distance(a, b)
    assert d == twin.distance(a, b)
    if match is None:
        assert d == pytest.approx(reference_general(a, b, **costs), rel=1e-12, abs=1e-12)
    got, want = compiled.align(a, b), twin.align(a, b)
    for x, y in zip(got, want, strict=True):
        np.testing.assert_array_equal(x, y)
    assert got[3].sum() == pytest.approx(d, rel=1e-12, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(edit_dicts(), letters, letters, st.sampled_from([1.0, math.log(2), 3.0]))
def test_forward_and_expected_counts_equal_twin(costs, a, b, scale):
    compiled, twin = both(CostTables.from_dicts(**costs))
    assert compiled.soft_distance(a, b, scale) == pytest.approx(
        twin.soft_distance(a, b, scale), rel=1e-12, abs=1e-12
    )
    assert compiled.soft_distance(a, b, scale) <= compiled.distance(a, b) + 1e-12
    got = compiled.expected_counts([a], [b], scale)
    want = twin.expected_counts([a], [b], scale)
    for x, y in zip(got, want, strict=True):
        np.testing.assert_allclose(x, y, rtol=1e-9, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    edit_dicts(), st.lists(letters, max_size=5), st.lists(letters, max_size=5), st.integers(1, 3)
)
def test_pairwise_and_batches_equal_twin(costs, X, Y, threads):
    compiled, twin = both(CostTables.from_dicts(**costs))
    np.testing.assert_array_equal(compiled.pairwise(X, Y, threads), twin.pairwise(X, Y))
    n = min(len(X), len(Y))
    for x, y in zip(
        compiled.align_batch(X[:n], Y[:n], threads, True), twin.align_batch(X[:n], Y[:n], 1, True)
    ):
        np.testing.assert_array_equal(x, y)
    np.testing.assert_allclose(
        compiled.soft_distance_batch(X[:n], Y[:n], 1.0, threads),
        twin.soft_distance_batch(X[:n], Y[:n], 1.0),
        rtol=1e-12,
    )


@settings(max_examples=100, deadline=None)
@given(cost_dicts(), text, text)
def test_single_character_tables_give_the_fast_kernel_s_results(costs, a, b):
    tables = CostTables.from_dicts(**costs)
    fast = _dp.CostKernel(*tables.kernel_args())
    general = _edit.EditKernel(*tables.kernel_args(), *tables.edit_args())
    assert general.distance(a, b) == fast.distance(a, b)


def test_expected_counts_sum_to_the_string_lengths():
    # Every OCR character is consumed exactly once on every path, so the posterior
    # counts of the edits that consume one sum to len(a) (and likewise for b).
    tables = CostTables.from_dicts({("a", "b"): 0.5}, default_transposition_cost=0.7)
    compiled = _edit.EditKernel(*tables.kernel_args(), *tables.edit_args())
    single, trans, _, loglik = compiled.expected_counts(["abba", "ba"], ["bab", "ab"], 1.3, 2)
    consumed_a = single[1:, :].sum() + 2 * trans.sum()
    consumed_b = single[:, 1:].sum() + 2 * trans.sum()
    assert consumed_a == pytest.approx(6)
    assert consumed_b == pytest.approx(5)
    assert np.all(loglik <= 0)


# -- WeightedLevenshtein with transpositions and multi-character edits ------------------


@settings(max_examples=100, deadline=None)
@given(edit_dicts(), letters, letters)
def test_weighted_levenshtein_matches_the_definition(costs, a, b):
    wl = WeightedLevenshtein(**costs)
    d = wl.distance(a, b)
    assert d == pytest.approx(reference_general(a, b, **costs), rel=1e-12, abs=1e-12)
    assert wl(a, b) == d
    ops = wl.explain(a, b)
    assert sum(op.cost for op in ops) == pytest.approx(d, rel=1e-12, abs=1e-12)
    # The operations spell out both strings.
    spelled_a = "".join(op.source for op in ops)
    spelled_b = "".join(op.target for op in ops)
    assert (spelled_a, spelled_b) == (a, b)


def test_multi_character_edits_as_in_ocr_stringdist():
    wl = WeightedLevenshtein({("rn", "m"): 0.2, ("m", "rn"): 0.2, ("cl", "d"): 0.3})
    assert wl.distance("rn", "m") == pytest.approx(0.2)
    assert wl.distance("m", "rn") == pytest.approx(0.2)
    assert wl.distance("clear", "dear") == pytest.approx(0.3)
    assert wl.distance("modem", "modern") == pytest.approx(0.2)  # OCR m for truth rn
    assert WeightedLevenshtein({("rn", "m"): 0.2}).distance("modem", "modern") == 2.0
    assert wl.explain("corn", "com") == [
        EditOperation("match", "c", "c", 0.0),
        EditOperation("match", "o", "o", 0.0),
        EditOperation("substitute", "rn", "m", 0.2),
    ]
    ins = WeightedLevenshtein(insertion_costs={"ll": 0.4}, deletion_costs={"--": 0.1})
    assert ins.distance("fa", "fall") == pytest.approx(0.4)
    assert ins.distance("a--b", "ab") == pytest.approx(0.1)
    assert [op.kind for op in ins.explain("a--b", "ab")] == ["match", "delete", "match"]


def test_transpositions_are_single_operations():
    wl = WeightedLevenshtein(transposition_costs={("e", "h"): 0.3})
    assert wl.distance("teh", "the") == pytest.approx(0.3)
    assert wl.distance("hte", "the") == 2.0  # ("h", "t") not listed and the default is inf
    assert wl.explain("teh", "the")[1] == EditOperation("transpose", "eh", "he", 0.3)
    assert wl.transposition_cost("e", "h") == 0.3
    assert wl.transposition_cost("h", "e") == math.inf
    osa = WeightedLevenshtein(default_transposition_cost=1.0)
    assert osa.distance("ca", "abc") == 3.0  # optimal string alignment, not Damerau: 2
    assert osa.distance("abcd", "badc") == 2.0


def test_ocr_stringdist_agrees_on_random_multi_character_costs():
    ocrsd = require_module("ocr_stringdist")
    rng = np.random.default_rng(5)
    alphabet = list("rnmclidh1")
    for _ in range(40):
        subs = {}
        for _ in range(rng.integers(1, 6)):
            s = "".join(rng.choice(alphabet, rng.integers(1, 4)))
            t = "".join(rng.choice(alphabet, rng.integers(0, 3)))
            if s != t:
                subs[(s, t)] = float(np.round(rng.random(), 3))
        ins = {"".join(rng.choice(alphabet, 2)): float(np.round(rng.random(), 3))}
        dele = {"".join(rng.choice(alphabet, 2)): float(np.round(rng.random(), 3))}
        kwargs = dict(insertion_costs=ins, deletion_costs=dele, default_substitution_cost=0.9)
        theirs = ocrsd.WeightedLevenshtein(subs, symmetric_substitution=False, **kwargs)
        ours = WeightedLevenshtein(subs, **kwargs)
        words = ["".join(rng.choice(alphabet, rng.integers(0, 8))) for _ in range(12)]
        for a, b in zip(words, words[::-1], strict=True):
            assert ours.distance(a, b) == pytest.approx(theirs.distance(a, b), abs=1e-9)
        # and each reads the other's dictionaries
        again = ocrsd.WeightedLevenshtein.from_dict(ours.to_dict())
        back = WeightedLevenshtein.from_dict(theirs.to_dict())
        for a, b in zip(words, words[1:], strict=False):
            assert again.distance(a, b) == pytest.approx(ours.distance(a, b), abs=1e-9)
            assert back.distance(a, b) == pytest.approx(ours.distance(a, b), abs=1e-9)


def test_general_tables_round_trip_json_pickle_and_equality():
    wl = WeightedLevenshtein(
        {("rn", "m"): 0.2, ("0", "O"): 0.1},
        insertion_costs={"ll": 0.4},
        deletion_costs={"--": 0.1},
        transposition_costs={("e", "h"): 0.3},
        default_transposition_cost=0.9,
    )
    data = json.loads(json.dumps(wl.to_dict()))
    assert {"from": "rn", "to": "m", "cost": 0.2} in data["substitution_costs"]
    assert data["insertion_costs"]["ll"] == 0.4
    assert data["skocrcost"]["default_transposition_cost"] == 0.9
    back = WeightedLevenshtein.from_dict(data)
    assert back == wl
    assert back != WeightedLevenshtein({("rn", "m"): 0.2, ("0", "O"): 0.1})
    for other in (back, pickle.loads(pickle.dumps(wl))):
        assert type(other) is type(wl)
        assert other.distance("cornteh--", "comthe") == wl.distance("cornteh--", "comthe")
    assert "multi-character" in repr(wl) and "transpositions" in repr(wl)


def test_pairwise_and_align_batch_on_general_tables():
    wl = WeightedLevenshtein({("rn", "m"): 0.2}, default_transposition_cost=0.5)
    X = ["corn", "teh", "", "barn"]
    Y = ["com", "the", "bam", "x"]
    want = np.array([[wl.distance(x, y) for y in Y] for x in X])
    for n_jobs in (1, 2):
        np.testing.assert_array_equal(wl.pairwise(X, Y, n_jobs=n_jobs), want)
    op, src, tgt, pair = wl._align_batch(X, Y)
    # corn -> com: c, o, rn->m; teh -> the: t, eh->he; "" -> bam: 3 insertions;
    # barn -> x: one substitution and three deletions.
    assert np.bincount(pair, minlength=4).tolist() == [3, 2, 3, 4]
    assert (op == 5).sum() == 1 and (op == 4).sum() == 1


def test_single_character_tables_keep_the_fast_methods():
    wl = WeightedLevenshtein({("a", "b"): 0.1})
    assert type(wl._kernel) is _dp.CostKernel
    assert wl.distance == wl._kernel.distance  # the compiled method, no frame in between
    general = WeightedLevenshtein({("ab", "b"): 0.1})
    assert type(general._kernel) is _edit.EditKernel
    assert general.distance == general._kernel.distance
    assert type(general) is WeightedLevenshtein


class Mine(WeightedLevenshtein):
    """A user's subclass."""


def test_subclasses_stay_subclasses():
    general = Mine({("rn", "m"): 0.2})
    assert isinstance(general, Mine) and type(general).__name__ == "Mine"
    assert general.distance("corn", "com") == pytest.approx(0.2)
    assert type(pickle.loads(pickle.dumps(general))).__name__ == "Mine"


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"transposition_costs": {("a", "a"): 1.0}}, ValueError, "transposition_costs"),
        ({"transposition_costs": {("ab", "c"): 1.0}}, ValueError, "transposition_costs"),
        ({"transposition_costs": {"ab": 1.0}}, TypeError, "transposition_costs"),
        ({"transposition_costs": {("a", "b"): -1}}, ValueError, "transposition_costs"),
        ({"transposition_costs": {("a", "b"): math.nan}}, ValueError, "transposition_costs"),
        ({"default_transposition_cost": -1}, ValueError, "default_transposition_cost"),
        ({"default_transposition_cost": "x"}, TypeError, "default_transposition_cost"),
        ({"substitution_costs": {("rn", "m"): math.inf}}, ValueError, "substitution_costs"),
        ({"substitution_costs": {("rn", 5): 1.0}}, TypeError, "substitution_costs"),
        ({"insertion_costs": {"ll": -0.5}}, ValueError, "insertion_costs"),
        ({"deletion_costs": {"": 0.5}}, ValueError, "deletion_costs"),
    ],
)
def test_bad_general_costs_are_refused_with_the_argument_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        WeightedLevenshtein(**kwargs)


def test_neighbors_use_the_trie_only_for_single_character_tables():
    lexicon = ["modern", "corn", "com", "the", "then"]
    fast = EditDistanceNeighbors(1).fit(lexicon)
    assert isinstance(fast.index_, LexiconIndex)
    general = WeightedLevenshtein({("rn", "m"): 0.1}, default_transposition_cost=0.2)
    nn = EditDistanceNeighbors(1, metric=general).fit(lexicon)
    assert not isinstance(nn.index_, LexiconIndex)
    dist, ind = nn.kneighbors(["teh", "corn"])
    assert [lexicon[i] for i in ind[:, 0]] == ["the", "corn"]
    assert dist[0, 0] == pytest.approx(0.2)
    # and scikit-learn's pairwise_distances calls the general distance
    got = pairwise_distances(
        np.array(["corn"], dtype=object)[:, None],
        np.array(["com"], dtype=object)[:, None],
        metric=general,
    )
    assert got[0, 0] == pytest.approx(0.1)


def test_long_strings_keep_only_the_rows_the_rules_need():
    wl = WeightedLevenshtein({("rn", "m"): 0.25, ("m", "rn"): 0.5}, default_transposition_cost=0.5)
    # three DP rows for thousands of characters
    assert wl.distance("rn" * 3_000, "m" * 3_000) == pytest.approx(750.0)
    assert wl.distance("m" * 3_000, "rn" * 3_000) == pytest.approx(1_500.0)
    assert wl.distance("abc" * 2_000, "bac" * 2_000) == pytest.approx(1_000.0)
    with pytest.raises(ValueError, match="use distance"):
        wl._align("rn" * 5_000, "m" * 5_000)


def test_impossible_edits_give_infinite_distance_and_still_explain():
    from skocrcost import WeightedEditDistance

    none = WeightedEditDistance(
        default_substitute_weight=-math.inf, default_insert_weight=-math.inf
    )
    ops = none.explain("a", "b")
    assert sum(op.cost for op in ops) == math.inf
    assert none.pairwise(["a"], ["b", ""]).tolist() == [[math.inf, 1.0]]


def test_chunked_pairwise_uses_the_general_dp():
    wl = WeightedLevenshtein({("rn", "m"): 0.1})
    X, Y = ["corn", "barn", "teh"], ["com", "bam", "the"]
    blocks = list(wl.pairwise_chunked(X, Y))
    np.testing.assert_array_equal(np.vstack(blocks), wl.pairwise(X, Y))
    assert np.vstack(blocks)[0, 0] == pytest.approx(0.1)

"""WeightedEditDistance: LingPipe's documented properties, the forward algorithm, bad weights."""

import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import brute_force_log_likelihood, reference_distance, reference_osa

from skocrcost import WeightedEditDistance

words = st.text(alphabet=st.sampled_from("abcde\u4e2d"), max_size=8)
weight = st.floats(min_value=-4.0, max_value=-0.01)


@settings(max_examples=150, deadline=None)
@given(words, words)
def test_unit_weights_give_osa_and_levenshtein(a, b):
    osa = WeightedEditDistance(default_transpose_weight=-1.0)
    lev = WeightedEditDistance()
    assert osa.distance(a, b) == reference_osa(a, b)
    assert lev.distance(a, b) == reference_distance(a, b)
    assert osa.proximity(a, b) == -osa.distance(a, b)


@settings(max_examples=100, deadline=None)
@given(words, st.dictionaries(st.sampled_from("abcde"), weight, max_size=5))
def test_distance_to_itself_is_zero_with_zero_match_weights(s, deletes):
    wed = WeightedEditDistance(delete_weights=deletes, default_transpose_weight=-0.5)
    assert wed.distance(s, s) == 0.0
    # with a match weight below 0 it is not
    if "a" in s:
        assert WeightedEditDistance(match_weights={"a": -0.5}).distance(s, s) > 0


@st.composite
def symmetric_weights(draw):
    letters = st.sampled_from("abcde")
    subs = draw(st.dictionaries(st.tuples(letters, letters), weight, max_size=10))
    trans = draw(st.dictionaries(st.tuples(letters, letters), weight, max_size=6))

    def mirrored(table):
        one = {tuple(sorted(k)): v for k, v in table.items() if k[0] != k[1]}
        return {**one, **{(t, s): v for (s, t), v in one.items()}}

    subs, trans = mirrored(subs), mirrored(trans)
    indel = draw(st.dictionaries(letters, weight, max_size=5))
    return {
        "substitute_weights": subs,
        "transpose_weights": trans,
        "insert_weights": indel,
        "delete_weights": indel,
        "match_weights": draw(st.dictionaries(letters, weight, max_size=3)),
        "default_transpose_weight": draw(st.one_of(weight, st.just(-math.inf))),
    }


@settings(max_examples=150, deadline=None)
@given(symmetric_weights(), words, words)
def test_symmetric_weights_give_a_symmetric_distance(weights, a, b):
    wed = WeightedEditDistance(**weights)
    assert wed.distance(a, b) == pytest.approx(wed.distance(b, a), rel=1e-12, abs=1e-12)


def test_asymmetric_weights_can_give_an_asymmetric_distance():
    wed = WeightedEditDistance(insert_weights={"x": -0.1}, delete_weights={"x": -1.5})
    assert wed.distance("a", "ax") == pytest.approx(0.1)
    assert wed.distance("ax", "a") == pytest.approx(1.5)


def test_weights_are_log_probabilities_of_the_best_edit_sequence():
    wed = WeightedEditDistance(
        match_weights={"a": -0.25},
        substitute_weights={("l", "h"): -0.5},
        transpose_weights={("e", "h"): -1.5},
        default_transpose_weight=-math.inf,
    )
    # t, l->h, e: matches t (0), e (0); l -> h
    assert wed.proximity("tle", "the") == pytest.approx(-0.5)
    assert wed.proximity("aa", "aa") == pytest.approx(-0.5)
    assert wed.proximity("teh", "the") == pytest.approx(-1.5)
    assert wed.proximity("hte", "the") == pytest.approx(-2.0)  # no (h, t): two substitutions
    assert wed.match_weight("a") == -0.25 and wed.match_weight("z") == 0.0
    assert wed.substitute_weight("l", "h") == -0.5
    assert wed.transpose_weight("e", "h") == -1.5
    assert wed.transpose_weight("h", "e") == -math.inf
    assert wed.insert_weight("q") == -1.0 and wed.delete_weight("q") == -1.0
    assert [op.kind for op in wed.explain("teh", "the")] == ["match", "transpose"]


def test_minus_infinity_forbids_an_edit():
    wed = WeightedEditDistance(default_substitute_weight=-math.inf)
    assert wed.distance("a", "b") == 2.0  # delete and insert instead
    none = WeightedEditDistance(
        default_substitute_weight=-math.inf,
        default_insert_weight=-math.inf,
    )
    assert none.distance("a", "b") == math.inf
    assert none.proximity("a", "b") == -math.inf
    assert none.log_likelihood("a", "b") == -math.inf
    assert none.distance("ab", "a") == 1.0


@settings(max_examples=80, deadline=None)
@given(
    st.text(alphabet=st.sampled_from("abc"), max_size=4),
    st.text(alphabet=st.sampled_from("abc"), max_size=4),
    st.dictionaries(st.sampled_from("abc"), weight, max_size=3),
    st.dictionaries(st.tuples(st.sampled_from("abc"), st.sampled_from("abc")), weight, max_size=6),
    st.sampled_from([2.0, math.e, 10.0]),
)
def test_log_likelihood_sums_every_alignment(a, b, match, subs, base):
    subs = {k: v for k, v in subs.items() if k[0] != k[1]}
    wed = WeightedEditDistance(
        match_weights=match,
        substitute_weights=subs,
        default_insert_weight=-1.5,
        log_base=base,
    )

    def w(kind, s, t):
        if kind == "match":
            return match.get(s, 0.0)
        if kind == "sub":
            return subs.get((s, t), -1.0)
        return -1.5 if kind == "ins" else -1.0

    want = brute_force_log_likelihood(a, b, w, base)
    assert wed.log_likelihood(a, b) == pytest.approx(want, rel=1e-9, abs=1e-9)
    assert wed.log_likelihood(a, b) >= wed.proximity(a, b) - 1e-12
    np.testing.assert_allclose(wed.log_likelihoods([a, b], [b, a]), [
        wed.log_likelihood(a, b), wed.log_likelihood(b, a)
    ], rtol=1e-12)  # fmt: skip


def test_pairwise_pickle_equality():
    wed = WeightedEditDistance(substitute_weights={("0", "O"): -0.1}, log_base=math.e)
    X, Y = ["0CR", "OCR", ""], ["OCR", "x"]
    np.testing.assert_array_equal(wed.pairwise(X, Y), [[wed.distance(x, y) for y in Y] for x in X])
    back = pickle.loads(pickle.dumps(wed))
    assert back == wed and back.log_base == math.e
    assert back != WeightedEditDistance(substitute_weights={("0", "O"): -0.1})
    assert "log_base=2.71828" in repr(wed)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"default_match_weight": 0.5}, ValueError, "default_match_weight"),
        ({"default_delete_weight": math.nan}, ValueError, "default_delete_weight"),
        ({"default_insert_weight": "1"}, TypeError, "default_insert_weight"),
        ({"default_substitute_weight": True}, TypeError, "default_substitute_weight"),
        ({"default_transpose_weight": 1.0}, ValueError, "default_transpose_weight"),
        ({"match_weights": {"a": 0.1}}, ValueError, "match_weights"),
        ({"match_weights": {"ab": -0.1}}, ValueError, "match_weights"),
        ({"match_weights": {3: -0.1}}, TypeError, "match_weights"),
        ({"match_weights": [("a", -0.1)]}, TypeError, "match_weights"),
        ({"delete_weights": {"a": None}}, TypeError, "delete_weights"),
        ({"insert_weights": {"": -1.0}}, ValueError, "insert_weights"),
        ({"substitute_weights": {("a", "b"): math.nan}}, ValueError, "substitute_weights"),
        ({"substitute_weights": {("a", "a"): -1.0}}, ValueError, "substitute_weights"),
        ({"substitute_weights": {("", "a"): -1.0}}, ValueError, "substitute_weights"),
        ({"substitute_weights": {"ab": -1.0}}, TypeError, "substitute_weights"),
        ({"transpose_weights": {("a", "a"): -1.0}}, ValueError, "transpose_weights"),
        ({"transpose_weights": {("a", "b"): 2.0}}, ValueError, "transpose_weights"),
        ({"log_base": 1.0}, ValueError, "log_base"),
        ({"log_base": -2.0}, ValueError, "log_base"),
        ({"log_base": "e"}, TypeError, "log_base"),
    ],
)
def test_bad_weights_are_refused_with_the_argument_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        WeightedEditDistance(**kwargs)


def test_positional_arguments_are_refused():
    with pytest.raises(TypeError):
        WeightedEditDistance({"a": -1.0})

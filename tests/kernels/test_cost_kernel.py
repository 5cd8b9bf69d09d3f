"""The compiled kernel against its pure-Python twin and a textbook reference."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import reference_distance
from strategies import anything, cost_dicts, text

from skocrcost import WeightedLevenshtein
from skocrcost._costs import CostTables
from skocrcost._kernels import _cost_kernel as _dp
from skocrcost._kernels import _cost_kernel_py as _dp_py


def both(tables, dense=None):
    args = list(tables.kernel_args())
    if dense is not None:
        args[-1] = dense
    return _dp.CostKernel(*args), _dp_py.CostKernel(*args)


@settings(max_examples=300, deadline=None)
@given(cost_dicts(), text, text, st.booleans())
def test_distance_equals_twin_and_reference(costs, a, b, dense):
    compiled, twin = both(CostTables.from_dicts(**costs), dense)
    d = compiled.distance(a, b)
    assert d == twin.distance(a, b)  # same operations in the same order: bit-for-bit
    assert d == pytest.approx(reference_distance(a, b, **costs), rel=1e-12, abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(cost_dicts(), text, text, st.booleans())
def test_alignment_equals_twin_and_sums_to_distance(costs, a, b, dense):
    compiled, twin = both(CostTables.from_dicts(**costs), dense)
    got, want = compiled.align(a, b), twin.align(a, b)
    for x, y in zip(got, want, strict=True):
        np.testing.assert_array_equal(x, y)
    op, src, tgt, cost = got
    assert cost.sum() == pytest.approx(compiled.distance(a, b), rel=1e-12, abs=1e-12)
    # The columns spell out both strings.
    assert "".join(chr(c) for c in src if c >= 0) == a
    assert "".join(chr(c) for c in tgt if c >= 0) == b


@settings(max_examples=50, deadline=None)
@given(cost_dicts(), st.lists(text, max_size=6), st.lists(text, max_size=6), st.integers(1, 3))
def test_pairwise_and_batch_equal_twin(costs, X, Y, threads):
    compiled, twin = both(CostTables.from_dicts(**costs))
    np.testing.assert_array_equal(compiled.pairwise(X, Y, threads), twin.pairwise(X, Y))
    n = min(len(X), len(Y))
    got = compiled.align_batch(X[:n], Y[:n], threads)
    want = twin.align_batch(X[:n], Y[:n])
    for x, y in zip(got, want, strict=True):
        np.testing.assert_array_equal(x, y)


@settings(max_examples=100, deadline=None)
@given(anything, anything)
def test_any_code_point_with_unit_costs(a, b):
    compiled, twin = both(CostTables.from_dicts())
    assert compiled.distance(a, b) == twin.distance(a, b)


def test_sparse_and_dense_layouts_agree_on_learned_style_tables():
    rng = np.random.default_rng(1)
    chars = np.arange(ord("a"), ord("a") + 20, dtype=np.uint32)
    n = len(chars) + 1
    src, tgt = np.nonzero(rng.random((n, n)) < 0.3)
    keep = (src > 0) & (tgt > 0) & (src != tgt)
    args = (
        chars,
        src[keep],
        tgt[keep],
        rng.random(keep.sum()) * 2,
        rng.random(n) + 0.5,
        rng.random(n) * 0.3,
        rng.random(n) + 0.1,
        rng.random(n) + 0.1,
    )
    dense, sparse = _dp.CostKernel(*args, True), _dp.CostKernel(*args, False)
    words = [
        "".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz"), rng.integers(0, 10)))
        for _ in range(40)
    ]
    np.testing.assert_array_equal(dense.pairwise(words, words), sparse.pairwise(words, words))
    np.testing.assert_array_equal(
        dense.pairwise(words, words), _dp_py.CostKernel(*args, False).pairwise(words, words)
    )


def test_match_does_not_hide_a_cheaper_path():
    # weighted-levenshtein 0.2.2 returns 1.0 here; substitute a->b then delete b is 0.2.
    wl = WeightedLevenshtein({("a", "b"): 0.1}, deletion_costs={"b": 0.1})
    assert wl.distance("ab", "b") == pytest.approx(0.2)
    assert [op.kind for op in wl.explain("ab", "b")] == ["substitute", "delete"]


def test_unknown_characters_never_match_each_other():
    wl = WeightedLevenshtein({("a", "b"): 0.5}, default_substitution_cost=0.7)
    assert wl.distance("x", "y") == pytest.approx(0.7)  # both outside the alphabet
    assert wl.distance("x", "x") == 0.0
    assert wl.distance("\U0001f600", "\U0001f601") == pytest.approx(0.7)


def test_openmp_reports_threads():
    assert _dp.openmp_max_threads() >= 1
    assert isinstance(_dp.have_openmp(), bool)

"""The bit-parallel unit-cost path (_unit.h) against its twin and the plain DP.

Unit-cost tables (every edit 1, a match 0) take the bit-parallel kernels: one
64-bit word per pattern in ``distance`` (several when both strings exceed 64
characters), 16 patterns of <= 16 characters in the lanes of a vector in
``pairwise``.
Each must give exactly the DP's numbers; a table that is almost unit must not
take that path.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import CORE, EXOTIC

from skocrcost import WeightedLevenshtein, kernel_config
from skocrcost._costs import CostTables
from skocrcost._kernels import _cost_kernel as _dp
from skocrcost._kernels import _cost_kernel_py as _dp_py

LEVELS = _dp.simd_levels()

# Few letters, so that matches and repeated characters are common; Latin-1 above
# ASCII, BMP above Latin-1 (the kernels' lookup beyond their 256-entry table), astral.
letters = st.sampled_from("ab" + CORE[:4] + EXOTIC + "ÿĀ€")
# Lengths around the word (64) and lane (16) limits, and beyond two words.
lengths = st.one_of(st.integers(0, 20), st.sampled_from([63, 64, 65, 130]))


@st.composite
def strings(draw):
    n = draw(lengths)
    if draw(st.booleans()):  # one character repeated: long runs of matches
        return draw(letters) * n
    return "".join(draw(st.lists(letters, min_size=n, max_size=n)))


def unit_kernels():
    args = CostTables.from_dicts().kernel_args()
    compiled = _dp.CostKernel(*args)
    assert compiled.unit
    return compiled, _dp_py.CostKernel(*args)


def on_the_dp(method, *args):
    """The compiled DP's answer, with the bit-parallel path turned off."""
    with kernel_config(bitparallel=False):
        return method(*args)


def dp_pairwise(kernel, X, Y, threads=1):
    return on_the_dp(kernel.pairwise, X, Y, threads)


@pytest.fixture(params=LEVELS)
def simd(request):
    with kernel_config(simd=request.param):
        yield request.param


@settings(max_examples=300, deadline=None)
@given(strings(), strings())
def test_distance_equals_twin_and_dp(a, b):
    compiled, twin = unit_kernels()
    d = compiled.distance(a, b)
    assert d == _dp_py.bitparallel_distance(a, b)
    assert d == twin._table(a, b)[0][len(a)][len(b)]  # the twin's DP
    assert d == on_the_dp(compiled.distance, a, b)  # the compiled DP
    assert d == dp_pairwise(compiled, [a], [b])[0, 0]  # the compiled DP lanes
    assert d == compiled.distance(b, a)  # unit costs: symmetric, whichever is the pattern


@settings(max_examples=40, deadline=None)
@given(st.lists(strings(), max_size=5), st.lists(strings(), min_size=1, max_size=40),
       st.integers(1, 3))  # fmt: skip
def test_pairwise_equals_twin_and_dp(X, Y, threads):
    compiled, twin = unit_kernels()
    want = dp_pairwise(compiled, X, Y)
    np.testing.assert_array_equal(want, twin.pairwise(X, Y))
    for level in LEVELS:
        with kernel_config(simd=level):
            np.testing.assert_array_equal(compiled.pairwise(X, Y, threads), want)


def test_many_blocks_and_threads(simd):
    # Several blocks of 16 lanes per thread, loaded and cleared in turn, with lengths
    # 0 .. 70 on both sides (lanes, padding, one pair at a time, blocks beyond 64).
    rng = np.random.default_rng(4)
    pool = list("abcé€\U0001f600")
    X = ["".join(rng.choice(pool, rng.integers(0, 71))) for _ in range(30)]
    Y = ["".join(rng.choice(pool, rng.integers(0, 71))) for _ in range(150)]
    compiled, _ = unit_kernels()
    want = dp_pairwise(compiled, X, Y)
    for threads in (1, 2):
        np.testing.assert_array_equal(compiled.pairwise(X, Y, threads), want)
        np.testing.assert_array_equal(compiled.pairwise(Y, X, threads), want.T)


@settings(max_examples=60, deadline=None)
@given(st.integers(65, 300), st.integers(65, 300), st.sampled_from(["ab", "abcé€\U0001f600"]),
       st.integers(0, 2**32 - 1))  # fmt: skip
def test_both_longer_than_a_word_run_in_blocks(n, m, pool, seed):
    # Several 64-bit words per column: the carries between words must match the DP.
    rng = np.random.default_rng(seed)
    a = "".join(rng.choice(list(pool), n))
    b = "".join(rng.choice(list(pool), m))
    compiled, twin = unit_kernels()
    d = compiled.distance(a, b)
    assert d == dp_pairwise(compiled, [a], [b])[0, 0]
    assert d == _dp_py.bitparallel_distance(a, b)
    np.testing.assert_array_equal(compiled.pairwise([a, b], [b, a], 2), [[d, 0], [0, d]])


def test_texts_far_longer_than_the_lanes(simd):
    # 16-bit lanes against a text of 70,000 characters: nothing may wrap or overflow.
    text = "ab" * 35_000
    Y = ["", "a", "ab" * 8, "b" * 16, "\U0001f600" * 3]
    compiled, _ = unit_kernels()
    got = compiled.pairwise([text, text[:-1]], Y, 1)
    want = [[_dp_py.bitparallel_distance(x, y) for y in Y] for x in (text, text[:-1])]
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got, dp_pairwise(compiled, [text, text[:-1]], Y))


def test_known_distances():
    compiled, _ = unit_kernels()
    assert compiled.distance("kitten", "sitting") == 3.0
    assert compiled.distance("", "\U0001f600" * 65) == 65.0
    assert compiled.distance("a" * 130, "a" * 64 + "b" + "a" * 65) == 1.0
    np.testing.assert_array_equal(
        compiled.pairwise(["flaw", ""], ["lawn", "a" * 17, ""]), [[2, 16, 4], [4, 17, 0]]
    )


@pytest.mark.parametrize(
    "costs, unit",
    [
        ({}, True),
        ({"substitution_costs": {("a", "b"): 1.0}, "insertion_costs": {"x": 1}}, True),
        ({"substitution_costs": {("a", "b"): 0.5}}, False),
        ({"insertion_costs": {"x": 2.0}}, False),
        ({"deletion_costs": {"x": 0.0}}, False),
        ({"default_substitution_cost": 2.0}, False),
        ({"default_insertion_cost": 1.0 + 2**-52}, False),
    ],
)
def test_only_exactly_unit_tables_take_the_path(costs, unit):
    tables = CostTables.from_dicts(**costs)
    args = tables.kernel_args()
    compiled, twin = _dp.CostKernel(*args), _dp_py.CostKernel(*args)
    assert compiled.unit == twin.unit == unit
    X = ["ab", "xax", "", "bbbb" * 5, "\U0001f600x"]
    Y = ["ba", "x", "", "ab" * 40, "aaxb"]
    want = np.array([[twin._table(x, y)[0][len(x)][len(y)] for y in Y] for x in X])
    np.testing.assert_array_equal(compiled.pairwise(X, Y), want)
    assert [compiled.distance(x, y) for x, y in zip(X, Y, strict=True)] == list(np.diag(want))


def test_metric_routes_unit_costs():
    assert WeightedLevenshtein()._kernel.unit
    assert not WeightedLevenshtein({("a", "b"): 0.5})._kernel.unit
    assert WeightedLevenshtein().pairwise(["abc"], ["abd", "b"]).tolist() == [[1.0, 2.0]]


def test_unit_check_reads_every_default():
    # A row default that is not 1 for one character must be seen, also in a sparse table.
    args = list(CostTables.from_dicts(substitution_costs={("a", "b"): 1.0}).kernel_args())
    rowdef = np.array(args[4], dtype=float)
    rowdef[2] = 0.75
    args[4] = rowdef
    for dense in (True, False):
        args[-1] = dense
        compiled, twin = _dp.CostKernel(*args), _dp_py.CostKernel(*args)
        assert not compiled.unit and not twin.unit
        assert compiled.distance("bc", "ac") == twin.distance("bc", "ac") == 0.75

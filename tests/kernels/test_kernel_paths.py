"""Every fast path of the kernel against the pure-Python twin, bit for bit.

``pairwise`` runs one of several code paths (SIMD lanes with a substitution
profile or with per-row gathers, AVX-512, AVX2 or the baseline target, one pair at a time
for CSR tables); each must give exactly the twin's numbers.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import cost_dicts, text

from skocrcost import kernel_config
from skocrcost._costs import CostTables
from skocrcost._kernels import _cost_kernel as _dp
from skocrcost._kernels import _cost_kernel_py as _dp_py

LEVELS = _dp.simd_levels()


@pytest.fixture(params=LEVELS)
def simd(request):
    with kernel_config(simd=request.param):
        yield request.param


def kernels(tables, dense=True):
    args = list(tables.kernel_args())
    args[-1] = dense
    return _dp.CostKernel(*args), _dp_py.CostKernel(*args)


def learned_style(rng, n_chars=30):
    """Random dense-ish costs: most pairs listed, per-row and per-column defaults."""
    chars = np.arange(ord("a"), ord("a") + n_chars, dtype=np.uint32)
    n = n_chars + 1
    src, tgt = np.nonzero(rng.random((n, n)) < 0.6)
    keep = (src > 0) & (tgt > 0) & (src != tgt)
    return CostTables(
        chars=chars,
        sub_src=src[keep].astype(np.int32),
        sub_tgt=tgt[keep].astype(np.int32),
        sub_cost=rng.random(keep.sum()) * 2,
        rowdef=rng.random(n) + 0.5,
        coldef=rng.random(n) * 0.3,
        ins=rng.random(n) + 0.1,
        dele=rng.random(n) + 0.1,
    )


def words(rng, n, letters, lo=0, hi=14):
    return ["".join(rng.choice(list(letters), rng.integers(lo, hi))) for _ in range(n)]


@settings(max_examples=60, deadline=None)
@given(cost_dicts(), st.lists(text, max_size=12), st.lists(text, min_size=1, max_size=20))
def test_lanes_equal_twin_on_random_tables(costs, X, Y):
    compiled, twin = kernels(CostTables.from_dicts(**costs))
    for level in LEVELS:
        with kernel_config(simd=level):
            # Repeating X makes the profile path pay off (many OCR characters per group).
            for rows in (X, X * 8):
                want = twin.pairwise(rows, Y)
                np.testing.assert_array_equal(compiled.pairwise(rows, Y, 1), want)


@pytest.mark.parametrize("threads", [1, 3])
def test_profile_and_gather_paths_equal_twin(simd, threads):
    rng = np.random.default_rng(7)
    tables = learned_style(rng)
    compiled, twin = kernels(tables)
    letters = "abcdefghijklmnopqrstuvwxyzABCD\u00e9\U0001f600"  # last two outside the alphabet
    Y = words(rng, 37, letters)  # 37: the last group of lanes is partly padding
    many = words(rng, 60, letters)  # enough characters for the profile
    one = words(rng, 1, letters, lo=3)  # too few: per-row gathers
    for X in (many, one, [""], ["\u00e9\U0001f600\u00e9"]):
        np.testing.assert_array_equal(compiled.pairwise(X, Y, threads), twin.pairwise(X, Y))


@pytest.fixture(scope="module")
def longer_than_a_strip():
    """(kernel, [(X, the twin's answer)], Y): truth strings of 0 to 3 strips and a bit."""
    S = _dp.LANES_STRIP
    rng = np.random.default_rng(11)
    compiled, twin = kernels(learned_style(rng))
    letters = "abcdefghijklmnopqrstuvwxyzABCD\u00e9"
    lengths = [0, 1, S - 1, S, S + 1, 2 * S, 2 * S + 3, 3 * S + 5]
    Y = [w for m in lengths for w in words(rng, 2, letters, m, m + 1)] + words(rng, 5, letters)
    many = [
        w for n in (0, 1, 2, S + 1, 2 * S + 2, 3 * S + 7) for w in words(rng, 2, letters, n, n + 1)
    ]
    few = words(rng, 1, letters, 9, 10)  # fewer characters than profile rows: per-row gathers
    assert few and len(few[0]) < len(letters)
    return compiled, [(X, twin.pairwise(X, Y)) for X in (many, few)], Y


@pytest.mark.parametrize("threads", [1, 2])
def test_strings_longer_than_a_strip(simd, threads, longer_than_a_strip):
    # The lanes run LANES_STRIP columns at a time down every row, each strip taking its
    # left column from the one before; OCR strings of odd and even lengths end a strip
    # on one row or two, through the profile and the per-row gathers.
    compiled, cases, Y = longer_than_a_strip
    for X, want in cases:
        np.testing.assert_array_equal(compiled.pairwise(X, Y, threads), want)


@pytest.mark.parametrize("grid", [False, True])
def test_a_group_of_empty_strings(simd, grid):
    # A group whose every truth string is empty has no column but column 0: the
    # distance is the cost of deleting the OCR string, on doubles and on a grid.
    tables = CostTables.from_dicts({("a", "b"): 0.25}, {"c": 0.5}, {"a": 0.75, "x": 1.5})
    compiled, twin = kernels(tables)
    assert compiled.grid_step == 0.25
    X = ["abc", "", "x" * 70, "ba"] * 5  # enough characters for the profile, and few
    Y = [""] * 20 + ["ab"]
    with kernel_config(grid=grid):
        with_grid = compiled.pairwise(X, Y, 1)
        few = compiled.pairwise(X[:2], Y, 1)
    np.testing.assert_array_equal(with_grid, twin.pairwise(X, Y))
    np.testing.assert_array_equal(few, twin.pairwise(X[:2], Y))


def test_sparse_layout_takes_the_pair_path_and_agrees():
    rng = np.random.default_rng(3)
    tables = learned_style(rng, 12)
    dense, twin = kernels(tables, True)
    sparse, _ = kernels(tables, False)
    X = words(rng, 20, "abcdefghijklm")
    Y = words(rng, 25, "abcdefghijklm")
    want = twin.pairwise(X, Y)
    np.testing.assert_array_equal(dense.pairwise(X, Y, 2), want)
    np.testing.assert_array_equal(sparse.pairwise(X, Y, 2), want)


def test_lengths_far_apart_in_one_group(simd):
    # One long string among short ones: the short lanes are mostly padding.
    tables = CostTables.from_dicts({("a", "b"): 0.25}, {"c": 0.5}, {"a": 0.75})
    compiled, twin = kernels(tables)
    Y = ["", "a", "ab" * 40, "cab", "b", "ba", "c", "abc", "x"]
    X = ["abc", "", "ba" * 30, "ccc"] * 10
    np.testing.assert_array_equal(compiled.pairwise(X, Y, 2), twin.pairwise(X, Y))


@pytest.mark.parametrize("threads", [1, 2])
def test_profile_rows_for_characters_outside_the_alphabet(simd, threads):
    # Unit costs have no alphabet: every OCR character gets a profile row of its own
    # code point (matched by code point, any other costs the default).  So do the
    # characters a learned table does not know.  Both must equal the twin.
    rng = np.random.default_rng(9)
    letters = "abcdefgh\u00e9\u0416\U0001f600"
    X = words(rng, 120, letters, lo=1)  # enough characters for the profile
    Y = words(rng, 45, letters)
    unit = CostTables.from_dicts()
    learned = CostTables.from_dicts({("a", "b"): 0.25, ("c", "d"): 0.5}, {"e": 0.75}, {"f": 0.3})
    for tables in (unit, learned):
        compiled, twin = kernels(tables)
        np.testing.assert_array_equal(compiled.pairwise(X, Y, threads), twin.pairwise(X, Y))
        np.testing.assert_array_equal(compiled.pairwise(X[:1], Y, threads), twin.pairwise(X[:1], Y))


@pytest.mark.parametrize("threads", [1, 2])
def test_columns_return_to_y_order(simd, threads):
    # The lanes fill the output in Y's length order and put each row back: Y given
    # shuffled, sorted by length (nothing to move) or reversed must all agree with
    # the twin.  X mixes odd and even lengths: rows go two at a time, then one.
    rng = np.random.default_rng(5)
    compiled, twin = kernels(learned_style(rng))
    letters = "abcdefghijklmnopqrstuvwxyzABCD\u00e9"
    X = words(rng, 40, letters) + ["", "a", "ab", "abc"]
    Y = words(rng, 29, letters)
    by_length = sorted(Y, key=len)
    for cols in (Y, by_length, by_length[::-1]):
        np.testing.assert_array_equal(compiled.pairwise(X, cols, threads), twin.pairwise(X, cols))


def test_simd_level_names():
    levels = _dp.simd_levels()
    assert levels == list(_dp.SIMD_LEVELS[: len(levels)])
    assert _dp.simd_level() == levels[-1]  # the CPU's best, chosen at import
    with kernel_config(simd="baseline"):
        assert _dp.simd_level() == "baseline"
        for level in _dp.SIMD_LEVELS:  # a level the CPU lacks falls back to its best
            with kernel_config(simd=level):
                want = levels[min(_dp.SIMD_LEVELS.index(level), len(levels) - 1)]
                assert _dp.simd_level() == want
        assert _dp.simd_level() == "baseline"
        with pytest.raises(ValueError, match="simd must be 'auto' or one of"):
            with kernel_config(simd="sse9"):
                pass
        with kernel_config(simd="auto"):
            assert _dp.simd_level() == levels[-1]
    assert _dp.simd_level() == levels[-1]


def test_distance_two_rows_at_a_time_equals_twin():
    # Dense rows of alphabet characters go two at a time; characters outside the
    # alphabet (and odd lengths) take the one-row path in between.
    rng = np.random.default_rng(11)
    compiled, twin = kernels(learned_style(rng))
    letters = "abcdefghijklmnopqrstuvwxyzABCD\u00e9"
    A = words(rng, 300, letters, hi=20)
    B = words(rng, 300, letters, hi=20)
    for a, b in zip(A, B, strict=True):
        assert compiled.distance(a, b) == twin.distance(a, b)
        assert compiled.distance(b, a) == twin.distance(b, a)

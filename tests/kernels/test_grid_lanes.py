"""Costs on a grid: ``pairwise`` on int32 numbers of steps against the twin and the double lanes.

A dense table whose costs are all whole multiples of a power of two ``2**-s``
(integer costs, halves, or learned costs rounded with
``EditCostEstimator(resolution=...)``) runs its SIMD lanes on int32 numbers of
steps.  On such costs the double DP is exact too, so every result must equal
the pure-Python twin's and the double lanes' bit for bit, near the int32 limit
as well; past it, the double lanes must take over.
"""

import itertools
import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import CORE, EXOTIC

from skocrcost import EditCostEstimator, WeightedLevenshtein, kernel_config
from skocrcost._costs import CostTables
from skocrcost._kernels import _cost_kernel as _dp
from skocrcost._kernels import _cost_kernel_py as _dp_py

LEVELS = _dp.simd_levels()
LETTERS = CORE + EXOTIC


def kernels(tables):
    args = tables.kernel_args()
    return _dp.CostKernel(*args), _dp_py.CostKernel(*args)


def on_doubles(method, *args):
    """The compiled kernel's answer with the int32 DPs turned off."""
    with kernel_config(grid=False):
        return method(*args)


def double_lanes(kernel, X, Y, threads=1):
    return on_doubles(kernel.pairwise, X, Y, threads)


def offsets(X, Y):
    return (np.cumsum([0, *map(len, strings)]) for strings in (X, Y))


@st.composite
def grid_tables(draw):
    """Random costs that are whole multiples of 2**-bits (up to 40 steps)."""
    bits = draw(st.sampled_from([0, 1, 4, 16, 30]))
    steps = st.integers(0, 40)
    letters = st.sampled_from(LETTERS[:8])

    def costs(keys):
        return {k: draw(steps) / 2**bits for k in keys}

    subs = costs(draw(st.sets(st.tuples(letters, letters), max_size=30)))
    return bits, CostTables.from_dicts(
        {k: v for k, v in subs.items() if k[0] != k[1]},
        costs(draw(st.sets(letters, max_size=6))),
        costs(draw(st.sets(letters, max_size=6))),
        default_substitution_cost=draw(steps) / 2**bits,
        default_insertion_cost=draw(st.integers(1, 40)) / 2**bits,  # not all unit
        default_deletion_cost=draw(steps) / 2**bits,
    )


text = st.text(alphabet=st.sampled_from(LETTERS), max_size=14)


@settings(max_examples=80, deadline=None)
@given(grid_tables(), st.lists(text, max_size=10), st.lists(text, min_size=1, max_size=20))
def test_int_lanes_equal_twin_and_double_lanes(case, X, Y):
    bits, tables = case
    compiled, twin = kernels(tables)
    if compiled.unit:  # the bit-parallel path's business
        return
    assert compiled.grid_step >= 2.0**-bits  # the coarsest grid, maybe coarser than drawn
    assert math.log2(compiled.grid_step).is_integer()
    for level in LEVELS:
        with kernel_config(simd=level):
            for rows in (X, X * 8):  # X * 8: enough OCR characters for the profile
                want = twin.pairwise(rows, Y)
                np.testing.assert_array_equal(compiled.pairwise(rows, Y, 1), want)
                # Up to 64 OCR strings take the rows kernel unless it is turned off.
                np.testing.assert_array_equal(lanes(compiled, rows, Y), want)
                np.testing.assert_array_equal(double_lanes(compiled, rows, Y), want)
    for x in X:  # distance: the scalar int32 DP
        for y in Y[:5]:
            want = twin.distance(x, y)
            assert compiled.distance(x, y) == want == on_doubles(compiled.distance, x, y)


def fine_grid():
    """A kernel on the grid of 2**-24 whose costs are up to 2 (2**25 steps)."""
    tables = CostTables.from_dicts(
        {("a", "b"): 0.5 + 2.0**-24},
        default_substitution_cost=2.0,
        default_insertion_cost=1.0,
        default_deletion_cost=1.0,
    )
    return _dp.CostKernel(*tables.kernel_args())


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("threads", [1, 2])
def test_values_near_the_int32_limit(level, threads):
    # One cost is 2**24 steps: 60 + 60 deletions and insertions (the distance of two
    # strings with nothing in common) is 120 * 2**24 steps, 94% of 2**31: still int32.
    # 64 + 64 would reach 2**31 steps: the double lanes take over.  Both must be exact.
    tables = CostTables.from_dicts(
        {("a", "b"): 0.5},
        default_substitution_cost=2.0,
        default_insertion_cost=1.0,
        default_deletion_cost=1.0,
    ).rounded(2.0**-24)
    compiled, twin = kernels(tables)
    assert compiled.grid_step == 0.5  # the coarsest grid of 0.5, 1 and 2
    fine = fine_grid()
    assert fine.grid_step == 2.0**-24
    with kernel_config(simd=level):
        for n, fits in ((60, True), (64, False)):
            X = ["x" * n, "a" * n, "ab" * (n // 2), ""]
            Y = ["y" * n, "b" * n, "", "ba" * (n // 2)]
            assert fine._grid_fits(*offsets(X, Y)) is fits
            want = np.array([[twin_distance(fine, x, y) for y in Y] for x in X])
            assert want[0, 0] == 2.0 * n  # nothing in common: delete and insert everything
            np.testing.assert_array_equal(fine.pairwise(X, Y, threads), want)
            np.testing.assert_array_equal(double_lanes(fine, X, Y, threads), want)


@pytest.fixture(scope="module")
def longer_than_a_strip():
    """(kernel on a grid, [(X, the twin's answer)], Y): truth strings of 0 to 3 strips."""
    S = _dp.GRID_STRIP
    rng = np.random.default_rng(12)
    tables = CostTables.from_dicts(
        {(a, b): float(rng.integers(1, 9)) / 4 for a in "abcde" for b in "abcdef" if a != b},
        {c: 0.75 for c in "abc"},
        {c: 1.25 for c in "def"},
    )
    compiled, twin = kernels(tables)
    assert compiled.grid_step == 0.25

    def word(n):
        return "".join(rng.choice(list("abcdefgh\u00e9"), n))

    Y = [word(m) for m in (0, 1, S - 1, S, S + 1, 2 * S + 3, 3 * S + 5) for _ in range(2)]
    many = [word(n) for n in (0, 1, 2, S + 1, 2 * S + 2, 3 * S + 7) for _ in range(2)]
    few = [word(5)]  # fewer characters than profile rows: per-row gathers
    return compiled, [(X, twin.pairwise(X, Y)) for X in (many, few)], Y


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("threads", [1, 2])
def test_strings_longer_than_a_strip(level, threads, longer_than_a_strip):
    # The int32 lanes run GRID_STRIP columns at a time, as the double lanes do theirs.
    compiled, cases, Y = longer_than_a_strip
    with kernel_config(simd=level):
        for X, want in cases:
            np.testing.assert_array_equal(compiled.pairwise(X, Y, threads), want)
            np.testing.assert_array_equal(double_lanes(compiled, X, Y, threads), want)


@pytest.mark.parametrize("n, m", [(30, 30), (31, 31), (0, 61), (100, 5)])
def test_distance_near_the_int32_limit(n, m):
    # distance takes the int32 DP while (n + m + 2) times the largest cost (2 = 2**25
    # steps) stays below 2**31: up to 30 + 30 characters here, not 31 + 31.
    fine = fine_grid()
    for x, y in (("x" * n, "y" * m), ("a" * n, "b" * m), ("ab" * (n // 2), "ba" * (m // 2))):
        want = twin_distance(fine, x, y)
        assert fine.distance(x, y) == want == on_doubles(fine.distance, x, y)
    assert fine.distance("x" * n, "y" * m) == n + m


def twin_distance(kernel, x, y):
    return _dp_py.CostKernel(*kernel._kernel_args()).distance(x, y)


def test_grid_tables_finds_the_coarsest_step():
    def grid(*costs):
        found = _dp_py.grid_tables(np.array([costs]), np.array([0.0]), np.array([0.0]))
        return None if found is None else found[0]

    assert grid(0.0, 2.0, 3.0) == 1.0
    assert grid(0.5, 0.25) == 0.25
    assert grid(0.75, 2.0**-30) == 2.0**-30
    assert grid(0.1) is None  # not a dyadic fraction
    assert grid(1.0, math.inf) is None  # a forbidden edit: the double lanes
    assert grid(2.0**-30, 1.0) is None  # 1 is 2**30 steps of 2**-30: too large
    assert grid(1.0, 2.0**30 - 1) == 1.0 and grid(1.0, 2.0**30) is None
    assert grid(0.5, 2.0**29 - 1) == 0.5 and grid(0.5, 2.0**29) is None
    step, dense, ins, dele = _dp_py.grid_tables(np.array([[0.0, 0.75]]), [0.5], [1.25])
    assert step == 0.25 and dense.dtype == np.int32
    assert dense.tolist() == [[0, 3]] and ins.tolist() == [2] and dele.tolist() == [5]


def test_only_dense_tables_on_a_grid_take_the_int_lanes():
    on = CostTables.from_dicts({("a", "b"): 0.25}, {"c": 3.0})
    off = CostTables.from_dicts({("a", "b"): 0.2}, {"c": 3.0})
    assert _dp.CostKernel(*on.kernel_args()).grid_step == 0.25
    assert _dp.CostKernel(*off.kernel_args()).grid_step == 0.0
    args = list(on.kernel_args())
    args[-1] = False  # the sparse layout: one pair at a time, no lanes
    assert _dp.CostKernel(*args).grid_step == 0.0
    assert WeightedLevenshtein({("a", "b"): 0.25}, {"c": 3.0}).grid_step == 0.25


def test_rounded_tables():
    tables = CostTables.from_dicts(
        {("a", "b"): 0.3, ("b", "a"): math.inf},
        {"c": 1.1},
        {"d": 0.7},
        default_transposition_cost=0.45,
        allow_infinite=True,
    )
    tables = replace(tables, rules=(("rn", "m", 0.35),))
    step = 2.0**-4
    up = tables.rounded(step)
    for name in ("sub_cost", "ins", "dele", "rowdef", "coldef", "trans_cost"):
        old, new = getattr(tables, name), getattr(up, name)
        finite = np.isfinite(old)
        assert np.array_equal(np.isfinite(new), finite)
        assert np.all(new[finite] / step == np.round(new[finite] / step))
        assert np.all((new[finite] >= old[finite]) & (new[finite] < old[finite] + step))
    assert up.substitution_cost("a", "b") == 0.3125
    assert up.substitution_cost("b", "a") == math.inf
    assert up.trans_default == 0.5 and up.rules == (("rn", "m", 0.375),)


PAIRS = (["tbe", "cat", "rn", "fhip", "tlie"] * 4, ["the", "cat", "m", "ship", "the"] * 4)


def test_estimator_resolution_rounds_the_learned_costs():
    exact = EditCostEstimator(k=0.5).fit(*PAIRS)
    rounded = EditCostEstimator(k=0.5, resolution=2**-16).fit(*PAIRS)
    assert exact.metric_.grid_step == 0.0
    assert rounded.metric_.grid_step > 0 and rounded.metric_.grid_step >= 2**-16
    chars = "tbehcarnmfsilp"
    for s in chars:
        for t in chars:
            want = exact.costs_.substitution_cost(s, t)
            got = rounded.costs_.substitution_cost(s, t)
            assert want <= got < want + 2**-16
            assert got * 2**16 == round(got * 2**16)
    # Not rounded: the channel's log-probabilities.
    a = exact.to_weighted_edit_distance().proximity("tbe", "the")
    assert rounded.to_weighted_edit_distance().proximity("tbe", "the") == a
    X, Y = ["tbe", "fhip", "cat", "rn"] * 3, ["the", "ship", "cart", "m", "tlie"]
    got = rounded.metric_.pairwise(X, Y)
    compiled, twin = kernels(rounded.costs_)
    np.testing.assert_array_equal(got, twin.pairwise(X, Y))
    np.testing.assert_array_equal(got, double_lanes(compiled, X, Y))
    assert np.abs(got - exact.metric_.pairwise(X, Y)).max() < 10 * 2**-16


def test_estimator_resolution_survives_save_and_load(tmp_path):
    est = EditCostEstimator(resolution=2**-10).fit(*PAIRS)
    est.save(tmp_path / "m.json")
    back = EditCostEstimator.load(tmp_path / "m.json")
    assert back.resolution == 2**-10 and back.metric_ == est.metric_
    assert back.metric_.grid_step == est.metric_.grid_step > 0


@pytest.mark.parametrize("bad", [0.001, 3 * 2**-10, 2**-31, 0, -1, 2.0, math.nan, "x", True])
def test_estimator_refuses_a_resolution_that_is_no_power_of_two(bad):
    with pytest.raises((TypeError, ValueError), match="resolution"):
        EditCostEstimator(resolution=bad).fit(*PAIRS)


# -- few OCR strings against many: the rows kernel (_rows.h) --------------------------------
def lanes(kernel, X, Y, threads=1):
    """The compiled kernel's answer through the lanes rather than the rows kernel."""
    with kernel_config(rows=False):
        return kernel.pairwise(X, Y, threads)


def rows_plain_and_shared(kernel, X, Y, threads=1):
    """The rows kernel's answers without and with the words' shared starts.

    Y encoded once and passed twice: the first call finds nothing shared yet (a Y seen
    once does not pay for it), the second shares whatever it can (ROWS_SHARE at 1).
    """
    enc = kernel._encode_y(Y)
    with kernel_config(rows_share=0.0):
        plain = kernel.pairwise(X, enc, threads)
    with kernel_config(rows_share=1.0):
        return plain, kernel.pairwise(X, enc, threads)


def takes_rows(kernel, X, Y):
    return bool(kernel._rows_fit(*offsets(X, Y)))


ocr = st.text(alphabet=st.sampled_from(LETTERS), max_size=32)  # 1, 2, 4 or 8 vectors of 4


@settings(max_examples=60, deadline=None)
@given(
    grid_tables(),
    st.lists(ocr, min_size=1, max_size=4),
    st.lists(st.text(alphabet=st.sampled_from(LETTERS), max_size=12), min_size=1, max_size=60),
    st.integers(1, 90),
)
def test_rows_kernel_equals_twin_and_lanes(case, X, Y, copies):
    # Y * copies: up to 5,400 truth strings, past a work item's 4,096 (ROWS_CHUNK), so that
    # items end mid-list and the interleaved strings of one item end at different words.
    _, tables = case
    compiled, twin = kernels(tables)
    if compiled.unit:
        return
    Y = Y * copies
    assert takes_rows(compiled, X, Y)
    want = twin.pairwise(X, Y[: len(Y) // copies])
    want = np.tile(want, (1, copies))
    # Sorted, words share their starts with the word before (equal words all but the
    # last character), which the kernel does not compute again.
    order = sorted(range(len(Y)), key=Y.__getitem__)
    for level in LEVELS:
        with kernel_config(simd=level):
            for threads in (1, 2):
                np.testing.assert_array_equal(compiled.pairwise(X, Y, threads), want)
                for got in rows_plain_and_shared(compiled, X, [Y[k] for k in order], threads):
                    np.testing.assert_array_equal(got, want[:, order])
            np.testing.assert_array_equal(lanes(compiled, X, Y), want)


def rows_kernels():
    """Compiled and twin kernels on a grid of 0.25, with characters outside the table."""
    tables = CostTables.from_dicts(
        {("a", "b"): 0.25, ("r", "m"): 0.5, ("x", "y"): 0.5, ("\u4e2d", "a"): 0.75},
        {"b": 0.5, "r": 0.5},
        {"\U0001f600": 1.25},
        default_substitution_cost=1.5,
    )
    compiled, twin = kernels(tables)
    assert compiled.grid_step == 0.25
    return compiled, twin


def shared_starts(rng):
    """A sorted lexicon whose words share long starts: all words over "ab" up to 6
    characters, runs of words sharing 25 to 45 characters (past the 30 the kernel keeps),
    equal words, characters outside the cost table, and empty words among them."""
    words = ["".join(w) for n in range(7) for w in itertools.product("ab", repeat=n)]
    for stem in ("x" * 25, "x" * 31, "xy" * 20 + "\u4e2d", "\U0001f600r" * 15):
        words += [
            stem + "".join(rng.choice(list("abr\u4e2d"), rng.integers(0, 5))) for _ in range(40)
        ]
        words += [stem[: rng.integers(1, len(stem))] for _ in range(10)]
    words += ["abba"] * 5 + [""] * 7
    return sorted(words)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("threads", [1, 2])
def test_rows_kernel_on_words_sharing_their_starts(level, threads):
    # The rows kernel starts each word from the column it kept of the word before, for
    # the characters they share (at most 30); repeated 20 times, the lexicon spans two
    # work items of 4,096 words, which start without any column kept.
    compiled, twin = rows_kernels()
    Y = shared_starts(np.random.default_rng(11))
    X = ["", "ab", "xxxxy", "x" * 30 + "ab", "\U0001f600rab", "ba" * 6, "y" * 32]
    assert takes_rows(compiled, X, Y)
    want = twin.pairwise(X, Y)
    with kernel_config(simd=level):
        for got in rows_plain_and_shared(compiled, X, Y, threads):
            np.testing.assert_array_equal(got, want)
        for got in rows_plain_and_shared(compiled, X, sorted(Y * 20), threads):
            np.testing.assert_array_equal(got, np.repeat(want, 20, axis=1))


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("threads", [1, 2])
def test_rows_kernel_every_width(level, threads):
    # 32 OCR strings of 0 to 31 characters, then one of 32: every instance
    # of the kernel (1, 2, 3, 4 and 8 vectors of 4 lanes) in one call, against the twin.
    rng = np.random.default_rng(7)
    compiled, twin = rows_kernels()

    def word(n):
        return "".join(rng.choice(list(LETTERS + "xyz"), n))

    Y = [word(rng.integers(0, 14)) for _ in range(150)]
    with kernel_config(simd=level):
        for X in ([word(n) for n in range(32)], [word(32)]):
            assert takes_rows(compiled, X, Y)
            np.testing.assert_array_equal(compiled.pairwise(X, Y, threads), twin.pairwise(X, Y))


@pytest.mark.parametrize("level", LEVELS)
def test_rows_kernel_near_the_int32_limit(level):
    # Costs up to 2 = 2**25 steps: 32 + 90 deletions and insertions are 122 * 2**24 steps,
    # 95% of 2**31, still on the rows kernel.
    fine = fine_grid()
    X = ["x" * 32, "a" * 32, "ab" * 16, "", "b" * 5]
    Y = ["y" * 90, "b" * 90, "", "ba" * 45, "a"]
    assert takes_rows(fine, X, Y)
    with kernel_config(simd=level):
        want = np.array([[twin_distance(fine, x, y) for y in Y] for x in X])
        assert want[0, 0] == 122.0
        np.testing.assert_array_equal(fine.pairwise(X, Y), want)
        np.testing.assert_array_equal(lanes(fine, X, Y), want)


def test_rows_kernel_takes_only_few_short_ocr_strings():
    kernel = fine_grid()
    Y = ["ab", "ba"]
    assert takes_rows(kernel, ["a" * 32] * 64, Y)
    assert not takes_rows(kernel, ["a" * 33], Y)  # longer than 8 vectors of 4
    assert not takes_rows(kernel, ["a"] * 65, Y)  # many: the lanes' profile pays off
    with kernel_config(grid=False):
        assert not takes_rows(kernel, ["a"], Y)

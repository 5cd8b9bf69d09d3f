"""kernel_config: the options it holds, and the paths the dispatcher chooses from them."""

import threading

import numpy as np
import pytest

from skocrcost import WeightedLevenshtein, get_kernel_config, kernel_config
from skocrcost._costs import CostTables
from skocrcost._kernels import _cost_kernel, _dispatch
from skocrcost._kernels._constants import (
    PATH_BITPARALLEL,
    PATH_LANES,
    PATH_PAIRS,
    PATH_ROWS,
    SIMD_LEVELS,
)

DEFAULTS = {"simd": "auto", "bitparallel": True, "grid": True, "rows": True, "rows_share": 0.4}
CPU = len(_cost_kernel.simd_levels()) - 1


def plan(kernel, nx=1, xlongest=5, ylongest=5):
    return _dispatch.pairwise_plan(kernel, nx, xlongest, ylongest, CPU)


def kernel(costs=None, dense=True, **kwargs):
    args = list(CostTables.from_dicts(costs or {}, **kwargs).kernel_args())
    args[-1] = dense
    return _cost_kernel.CostKernel(*args)


def test_defaults_and_a_block_that_restores_them():
    assert get_kernel_config() == DEFAULTS
    with kernel_config(grid=False, rows_share=1):
        assert get_kernel_config() == {**DEFAULTS, "grid": False, "rows_share": 1.0}
        with kernel_config(simd="baseline", grid=None):  # None leaves an option as it is
            assert get_kernel_config() == {
                **DEFAULTS,
                "grid": False,
                "rows_share": 1.0,
                "simd": "baseline",
            }
        assert get_kernel_config()["simd"] == "auto"
    assert get_kernel_config() == DEFAULTS
    with pytest.raises(RuntimeError), kernel_config(bitparallel=False):
        raise RuntimeError
    assert get_kernel_config() == DEFAULTS


def test_get_kernel_config_returns_a_copy():
    get_kernel_config()["grid"] = False
    assert get_kernel_config()["grid"] is True


@pytest.mark.parametrize(
    "option, value",
    [("simd", "sse9"), ("simd", 2), ("bitparallel", "yes"), ("grid", 2), ("rows", 0.5),
     ("rows_share", 1.5), ("rows_share", -0.1), ("rows_share", float("nan")),
     ("rows_share", True), ("rows_share", "0.4")],
)  # fmt: skip
def test_bad_values_are_refused_and_change_nothing(option, value):
    with pytest.raises(ValueError, match=option), kernel_config(**{option: value}):
        pass
    assert get_kernel_config() == DEFAULTS


def test_a_block_holds_in_its_own_thread_only():
    seen = []
    with kernel_config(grid=False):
        thread = threading.Thread(target=lambda: seen.append(get_kernel_config()["grid"]))
        thread.start()
        thread.join()
        assert get_kernel_config()["grid"] is False
    assert seen == [True]


def test_unit_costs_take_the_bit_vectors_unless_turned_off():
    unit = kernel()
    assert unit.unit
    assert plan(unit)[0] == PATH_BITPARALLEL
    with kernel_config(bitparallel=False):
        assert plan(unit)[0] == PATH_ROWS  # unit costs lie on a grid
        with kernel_config(rows=False):
            assert plan(unit)[:3:2] == (PATH_LANES, True)
            with kernel_config(grid=False):
                assert plan(unit)[:3:2] == (PATH_LANES, False)


def test_grid_rows_lanes_and_pairs():
    on_grid = kernel({("a", "b"): 0.25})
    off_grid = kernel({("a", "b"): 0.1})
    sparse = kernel({("a", "b"): 0.25}, dense=False)
    assert plan(on_grid)[:3] == (PATH_ROWS, CPU, True)
    assert plan(on_grid, nx=_dispatch.ROWS_MAX_X + 1)[::2] == (PATH_LANES, True)
    assert plan(on_grid, xlongest=33)[::2] == (PATH_LANES, True)
    with kernel_config(rows=False):
        assert plan(on_grid)[::2] == (PATH_LANES, True)
    with kernel_config(grid=False):
        assert plan(on_grid)[::2] == (PATH_LANES, False)
    assert plan(off_grid)[::2] == (PATH_LANES, False)
    assert plan(sparse)[::2] == (PATH_PAIRS, False)
    with kernel_config(rows_share=0.0):
        assert plan(on_grid)[3] == 0.0


def test_the_simd_level_passed_is_at_most_the_cpus():
    k = kernel({("a", "b"): 0.25})
    for name in SIMD_LEVELS:
        with kernel_config(simd=name):
            assert plan(k)[1] == min(SIMD_LEVELS.index(name), CPU)
            assert _cost_kernel.simd_level() == SIMD_LEVELS[min(SIMD_LEVELS.index(name), CPU)]


def test_the_metric_answers_the_same_on_every_path():
    metric = WeightedLevenshtein({("a", "b"): 0.25, ("c", "d"): 0.5})
    X, Y = ["abcd", "", "dcba", "aaaa"], ["bbdd", "abcd", "", "x" * 40] * 3
    want = metric.pairwise(X, Y)
    for options in ({"rows": False}, {"grid": False}, {"simd": "baseline"}, {"rows_share": 1}):
        with kernel_config(**options):
            np.testing.assert_array_equal(metric.pairwise(X, Y), want)
            assert [metric.distance(x, y) for x, y in zip(X, Y)] == list(np.diag(want))


def test_the_docstring_example_runs():
    import doctest

    from skocrcost._kernels import _config

    result = doctest.testmod(_config, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_distance_reads_the_options_of_its_own_thread():
    # distance reads a C copy of this thread's options (src/_options.h), kept in step.
    assert _cost_kernel._thread_options() == (True, True)
    seen = []

    def in_a_thread():
        seen.append(_cost_kernel._thread_options())
        with kernel_config(grid=False):
            seen.append(_cost_kernel._thread_options())
        seen.append(_cost_kernel._thread_options())

    with kernel_config(bitparallel=False):
        assert _cost_kernel._thread_options() == (False, True)
        thread = threading.Thread(target=in_a_thread)
        thread.start()
        thread.join()
        with kernel_config(grid=False, bitparallel=True):
            assert _cost_kernel._thread_options() == (True, False)
        assert _cost_kernel._thread_options() == (False, True)
    assert _cost_kernel._thread_options() == (True, True)
    assert seen == [(True, True), (True, False), (True, True)]

"""The compiled kernels' own entry points against bad input.

The kernels read str buffers directly, so they check every item themselves; a huge
thread count is capped, never a crash.  Each row: what is called, the exception, a
regex its message must match (the rules of every table: tests/bad_inputs.py).
"""

import math
import subprocess
import sys

import pytest
from bad_inputs import BAD_STRINGS, GENERAL_WL, NN, WL
from conftest import package_env

from skocrcost._kernels import _cost_kernel_py as _dp_py

KERNEL_CASES = {
    # align_batch is compiled and reads the str buffers directly: it checks every item.
    "align_batch int in X": (
        lambda: WL._kernel.align_batch([1], ["a"]),
        TypeError,
        r"X\[0\] is int",
    ),
    "align_batch None in Y": (lambda: WL._kernel.align_batch(["a"], [None]), TypeError, r"Y\[0\]"),
    "align_batch bytes in X": (
        lambda: WL._kernel.align_batch(["a", b"b"], ["a", "b"]),
        TypeError,
        r"X\[1\] is bytes",
    ),
    "align_batch lengths": (lambda: WL._kernel.align_batch(["a"], []), ValueError, "same length"),
    "twin lengths": (
        lambda: _dp_py.CostKernel(*WL.costs.kernel_args()).align_batch(["a"], []),
        ValueError,
        "same length",
    ),
    # The compiled index reads str buffers directly: it checks every item itself.
    "index int query": (lambda: NN.index_.kneighbors([3], 1, 1), TypeError, r"X\[0\] is int"),
    "index radius NaN": (
        lambda: NN.index_.radius_neighbors(["a"], math.nan, 1),
        ValueError,
        "radius",
    ),
    **{
        f"WL align_batch {side} {name}": (
            lambda side=side, v=v: (
                GENERAL_WL._kernel.align_batch([v], ["a"])
                if side == "X"
                else GENERAL_WL._kernel.align_batch(["a"], [v])
            ),
            TypeError,
            rf"{side}\[0\] is {type(v).__name__}",
        )
        for side in ("X", "Y")
        for name, v in BAD_STRINGS.items()
    },
    "WL align_batch lengths": (
        lambda: GENERAL_WL._kernel.align_batch(["a"], []),
        ValueError,
        "same length",
    ),
}


@pytest.mark.parametrize(("call", "error", "match"), KERNEL_CASES.values(), ids=KERNEL_CASES)
def test_bad_input_to_the_compiled_kernels(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_a_huge_thread_count_is_capped_not_a_crash(tmp_path):
    # n_threads=10**6 made OpenMP fail to start threads and killed the process (SIGSEGV);
    # the kernels now cap it at OpenMP's maximum.  In a subprocess: a crash fails this test
    # instead of ending the run.
    code = """
from skocrcost import EditDistanceNeighbors, WeightedLevenshtein
from skocrcost._kernels import _cost_kernel as _dp
from skocrcost._kernels import _edit_kernel as _edit
fast, general = WeightedLevenshtein({("a", "b"): 0.5}), WeightedLevenshtein({("rn", "m"): 0.1})
X, Y = ["abc", "rnx", ""] * 3, ["abd", "mx", "a"] * 3
for m in (fast, general):
    align = m._kernel.align_batch
    for got, want in zip(align(X, Y, 10**6, True), align(X, Y, 1, True)):
        assert (got == want).all()
assert (_dp.CostKernel.pairwise(fast._kernel, X, Y, 10**6) == fast.pairwise(X, Y)).all()
assert (_edit.EditKernel.pairwise(general._kernel, X, Y, 10**6) == general.pairwise(X, Y)).all()
soft = general._kernel.soft_distance_batch
assert (soft(X, Y, 1.0, 10**6) == soft(X, Y, 1.0)).all()
assert general._kernel.expected_counts(X, Y, 1.0, 10**6)[0].sum() > 0
index = EditDistanceNeighbors(1).fit(Y).index_
assert (index.kneighbors(X, 1, 10**6)[1] == index.kneighbors(X, 1, 1)[1]).all()
print("ok")
"""
    run = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=package_env(),
    )
    assert run.returncode == 0 and run.stdout == "ok\n", (run.returncode, run.stderr[-2000:])

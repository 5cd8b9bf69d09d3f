"""CostTables built by hand against bad input: these reach the kernel's raw pointers.

Never tables the kernel would read out of bounds.  Each row: what is called, the
exception, a regex its message must match (the rules of every table:
tests/bad_inputs.py).
"""

import math

import pytest

from skocrcost import CostTables, WeightedLevenshtein


def tables(**changes):
    """A valid two-letter CostTables with some fields replaced."""
    fields = {
        "chars": [97, 98],
        "sub_src": [1],
        "sub_tgt": [2],
        "sub_cost": [0.5],
        "rowdef": [1.0, 1.0, 1.0],
        "coldef": [0.0, 0.0, 0.0],
        "ins": [1.0, 1.0, 1.0],
        "dele": [1.0, 1.0, 1.0],
    }
    fields.update(changes)
    return CostTables(**fields)


def test_the_valid_tables_helper_is_valid():
    assert WeightedLevenshtein.from_tables(tables()).distance("a", "b") == 0.5


# -- CostTables by hand: these reach the kernel's raw pointers -----------------------------
TABLES_CASES = {
    "tables unsorted alphabet": (lambda: tables(chars=[98, 97]), ValueError, "chars"),
    "tables float alphabet": (lambda: tables(chars=[97.0, 98.0]), TypeError, "chars"),
    "tables id out of range": (lambda: tables(sub_tgt=[7]), ValueError, "sub_tgt"),
    "tables negative id": (lambda: tables(sub_src=[-1]), ValueError, "sub_src"),
    "tables unsorted pairs": (
        lambda: tables(sub_src=[2, 1], sub_tgt=[1, 2], sub_cost=[0.5, 0.5]),
        ValueError,
        "sorted and unique",
    ),
    "tables short rowdef": (lambda: tables(rowdef=[1.0, 1.0]), ValueError, "rowdef"),
    "tables ragged pairs": (lambda: tables(sub_cost=[0.5, 0.5]), ValueError, "sub_cost"),
    "tables NaN insertion": (lambda: tables(ins=[1.0, math.nan, 1.0]), ValueError, "ins"),
    "tables negative cost": (lambda: tables(sub_cost=[-0.5]), ValueError, ">= 0"),
    "tables negative unseen": (lambda: tables(coldef=[0.0, -2.0, 0.0]), ValueError, "coldef"),
    "tables 2-D": (lambda: tables(dele=[[1.0, 1.0, 1.0]]), ValueError, "dele"),
}


@pytest.mark.parametrize(("call", "error", "match"), TABLES_CASES.values(), ids=TABLES_CASES)
def test_bad_cost_tables_raise_a_clear_error(call, error, match):
    with pytest.raises(error, match=match):
        call()

"""The metrics against bad input, and the valid edge cases they must handle.

Never a metric half-built.  Each row: what is called, the exception, a regex its message
must match (the rules of every table: tests/bad_inputs.py).
"""

import decimal
import math

import numpy as np
import pytest
from bad_inputs import BAD_STRINGS, EDGE_CASES, GENERAL_WED, GENERAL_WL, NOT_STRINGS, UNIT, WL

from skocrcost import WeightedEditDistance, WeightedLevenshtein
from skocrcost._kernels import _cost_kernel_py as _dp_py

# -- the metric: construction, from_dict, from_tables ------------------------------------
COST_CASES = {
    "negative default": (
        lambda: WeightedLevenshtein(default_substitution_cost=-1),
        ValueError,
        "default_substitution_cost must be a finite number >= 0",
    ),
    "NaN default": (
        lambda: WeightedLevenshtein(default_insertion_cost=math.nan),
        ValueError,
        "default_insertion_cost",
    ),
    "inf default": (
        lambda: WeightedLevenshtein(default_deletion_cost=math.inf),
        ValueError,
        "default_deletion_cost",
    ),
    "string default": (
        lambda: WeightedLevenshtein(default_deletion_cost="1"),
        TypeError,
        "default_deletion_cost must be a number",
    ),
    "negative cost": (
        lambda: WeightedLevenshtein({("a", "b"): -0.1}),
        ValueError,
        r"substitution_costs\[\('a', 'b'\)\]",
    ),
    "None cost": (
        lambda: WeightedLevenshtein({("a", "b"): None}),
        TypeError,
        r"substitution_costs\[\('a', 'b'\)\] must be a number",
    ),
    "float32 NaN cost": (
        lambda: WeightedLevenshtein({("a", "b"): np.float32("nan")}),
        ValueError,
        "substitution_costs",
    ),
    "bool cost": (lambda: WeightedLevenshtein({("a", "b"): True}), TypeError, "got bool"),
    "complex cost": (lambda: WeightedLevenshtein({("a", "b"): 1j}), TypeError, "complex"),
    "Decimal cost": (
        lambda: WeightedLevenshtein({("a", "b"): decimal.Decimal(1)}),
        TypeError,
        "Decimal",
    ),
    "('', '') key": (lambda: WeightedLevenshtein({("", ""): 1.0}), ValueError, r"\('', ''\)"),
    "string key": (
        lambda: WeightedLevenshtein({"ab": 1.0}),
        TypeError,
        r"\(source, target\) pairs",
    ),
    "1-tuple key": (lambda: WeightedLevenshtein({("a",): 1.0}), TypeError, "pairs"),
    "int in key": (
        lambda: WeightedLevenshtein({(1, "b"): 1.0}),
        TypeError,
        "keys of substitution_costs must be strings",
    ),
    "None in key": (lambda: WeightedLevenshtein({("a", None): 1.0}), TypeError, "strings"),
    "NaN insertion": (
        lambda: WeightedLevenshtein(insertion_costs={"x": math.nan}),
        ValueError,
        "insertion_costs",
    ),
    "int insertion key": (
        lambda: WeightedLevenshtein(insertion_costs={5: 1.0}),
        TypeError,
        "keys of insertion_costs must be strings",
    ),
    # Multi-character keys are edits of their own ({"ab": 1.0}); transpositions are not.
    "two-char transposition key": (
        lambda: WeightedLevenshtein(transposition_costs={("ab", "c"): 1.0}),
        ValueError,
        "keys of transposition_costs must be single characters",
    ),
    "negative transposition": (
        lambda: WeightedLevenshtein(transposition_costs={("a", "b"): -1.0}),
        ValueError,
        r"transposition_costs\[\('a', 'b'\)\]",
    ),
    "NaN default transposition": (
        lambda: WeightedLevenshtein(default_transposition_cost=math.nan),
        ValueError,
        "default_transposition_cost",
    ),
    "empty deletion key": (
        lambda: WeightedLevenshtein(deletion_costs={"": 1.0}),
        ValueError,
        "deletion_costs has an empty-string key",
    ),
    "list of deletions": (
        lambda: WeightedLevenshtein(deletion_costs=[("a", 1.0)]),
        TypeError,
        "deletion_costs must be a dict",
    ),
    "int costs": (lambda: WeightedLevenshtein(5), TypeError, "substitution_costs must be a dict"),
    "string flag": (
        lambda: WeightedLevenshtein(symmetric_substitution="no"),
        TypeError,
        "symmetric_substitution must be a bool",
    ),
    # from_dict: a JSON file is data from outside, so every part of it is checked.
    "from_dict list": (lambda: WeightedLevenshtein.from_dict([]), TypeError, "data must be a dict"),
    "from_dict entries not a list": (
        lambda: WeightedLevenshtein.from_dict({"substitution_costs": 5}),
        TypeError,
        "substitution_costs must be a list",
    ),
    "from_dict entry without cost": (
        lambda: WeightedLevenshtein.from_dict({"substitution_costs": [{"from": "a", "to": "b"}]}),
        ValueError,
        "'from', 'to' and 'cost'",
    ),
    "from_dict string cost": (
        lambda: WeightedLevenshtein.from_dict(
            {"substitution_costs": [{"from": "a", "to": "b", "cost": "0.5"}]}
        ),
        TypeError,
        "must be a number",
    ),
    "from_dict null default": (
        lambda: WeightedLevenshtein.from_dict({"default_substitution_cost": None}),
        TypeError,
        "default_substitution_cost",
    ),
    "from_dict string flag": (
        lambda: WeightedLevenshtein.from_dict({"symmetric_substitution": "false"}),
        TypeError,
        "symmetric_substitution must be a bool",
    ),
    "from_dict extension not a dict": (
        lambda: WeightedLevenshtein.from_dict({"skocrcost": 5}),
        TypeError,
        "'skocrcost'",
    ),
    "from_dict extension row a list": (
        lambda: WeightedLevenshtein.from_dict({"skocrcost": {"unseen_substitution_row": [1]}}),
        TypeError,
        "unseen_substitution_row must be a dict",
    ),
    "from_dict negative unseen cost": (
        lambda: WeightedLevenshtein.from_dict(
            {"skocrcost": {"unseen_substitution_row": {"a": -1}}}
        ),
        ValueError,
        r"rowdef\[s\] \+ coldef\[t\]\) must be >= 0",
    ),
    "from_dict NaN unseen cost": (
        lambda: WeightedLevenshtein.from_dict(
            {"skocrcost": {"unseen_substitution_col": {"b": math.nan}}}
        ),
        ValueError,
        "unseen col cost 'b' must be finite",
    ),
    "from_tables None": (
        lambda: WeightedLevenshtein.from_tables(None),
        TypeError,
        "tables must be CostTables",
    ),
}


# -- the metric's methods ---------------------------------------------------------------
METHOD_CASES = {
    **{
        f"distance {arg} {name}": (
            (lambda v=v: WL.distance(v, "a")) if arg == "a" else (lambda v=v: WL.distance("a", v)),
            TypeError,
            f"'{arg}' has incorrect type",
        )
        for name, v in NOT_STRINGS.items()
        for arg in ("a", "b")
    },
    "call None": (lambda: WL(None, "a"), TypeError, "a must be a string"),
    "explain None": (lambda: WL.explain("a", None), TypeError, "'b'"),
    "explain beyond the alignment limit": (
        lambda: WL.explain("a" * 40_000, "b" * 40_000),
        ValueError,
        "use distance",
    ),
    "pairwise None in X": (lambda: WL.pairwise(["a", None]), TypeError, r"X\[1\] is NoneType"),
    "pairwise NaN in X": (lambda: WL.pairwise([math.nan]), TypeError, r"X\[0\] is float"),
    "pairwise bytes in Y": (lambda: WL.pairwise(["a"], [b"a"]), TypeError, r"Y\[0\] is bytes"),
    "pairwise int in Y": (lambda: WL.pairwise(["a"], ["b", 7]), TypeError, r"Y\[1\] is int"),
    "pairwise X None": (lambda: WL.pairwise(None), TypeError, "X must be a sequence"),
    "pairwise X a string": (lambda: WL.pairwise("abc"), TypeError, "not a single str"),
    "pairwise X a set": (lambda: WL.pairwise({"a", "b"}), TypeError, "X must be an ordered"),
    "pairwise 2-D": (lambda: WL.pairwise(np.array([["a"]])), ValueError, "one-dimensional"),
    "pairwise n_jobs 0": (lambda: WL.pairwise(["a"], n_jobs=0), ValueError, "n_jobs"),
    "pairwise n_jobs 1.5": (lambda: WL.pairwise(["a"], n_jobs=1.5), ValueError, "n_jobs"),
    "pairwise n_jobs True": (lambda: WL.pairwise(["a"], n_jobs=True), ValueError, "n_jobs"),
    "substitution_cost two letters": (
        lambda: WL.substitution_cost("ab", "c"),
        TypeError,
        "source must be a single character",
    ),
    "insertion_cost None": (lambda: WL.insertion_cost(None), TypeError, "target"),
    "deletion_cost int": (lambda: WL.deletion_cost(5), TypeError, "source"),
    "metric re-initialised": (lambda: WL.__init__(), RuntimeError, "already set"),
    "metric costs assigned": (lambda: setattr(WL, "costs", None), AttributeError, "costs"),
}


@pytest.mark.parametrize(
    ("call", "error", "match"),
    list(COST_CASES.values()) + list(METHOD_CASES.values()),
    ids=list(COST_CASES) + list(METHOD_CASES),
)
def test_bad_input_raises_a_clear_error(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_the_shared_metric_survived_the_table():
    # Rows above try to re-initialise WL and overwrite its costs: both were refused.
    assert WL.distance("a", "b") == 0.5
    assert WL.costs == WeightedLevenshtein({("a", "b"): 0.5}).costs


# -- valid edge cases (EDGE_CASES in tests/bad_inputs.py) ------------------------------
@pytest.mark.parametrize(("a", "b", "want"), EDGE_CASES)
def test_edge_case_strings(a, b, want):
    twin = _dp_py.CostKernel(*UNIT.costs.kernel_args())
    assert UNIT.distance(a, b) == want == twin.distance(a, b)
    assert UNIT.pairwise([a], [b])[0, 0] == want
    ops = UNIT.explain(a, b)
    assert "".join(op.source for op in ops) == a and "".join(op.target for op in ops) == b
    assert sum(op.cost for op in ops) == want


def test_a_100000_character_string_against_a_10_character_one():
    long = "ab" * 50_000
    short = "abcabcabca"
    # Every character of ``short`` can be matched, except that 'c' never occurs in
    # ``long``: 7 matches of a/b, 3 c's substituted, the rest of ``long`` deleted.
    assert UNIT.distance(long, short) == 100_000 - 7
    assert UNIT.distance(short, long) == 100_000 - 7
    assert UNIT.pairwise([long, short], [short], n_jobs=2)[:, 0].tolist() == [99_993, 0.0]
    ops = UNIT.explain(short, long)  # 11 x 100,001 cells: well within the alignment limit
    assert sum(op.cost for op in ops) == 99_993


def test_two_20000_character_strings_use_heap_rows():
    a = "x" * 20_000
    assert UNIT.distance(a, a) == 0.0
    assert UNIT.distance(a, "y" * 20_000) == 20_000


@pytest.mark.parametrize("n", [63, 64, 65])
def test_the_stack_to_heap_boundary(n):
    # distance() uses fixed 64-entry stack buffers up to 64 characters, the heap beyond.
    wl = WeightedLevenshtein({("a", "b"): 0.25}, insertion_costs={"c": 0.5})
    twin = _dp_py.CostKernel(*wl.costs.kernel_args())
    a, b = ("ab" * n)[:n], ("bc" * n)[: n + 1]
    for x, y in ((a, b), (b, a), (a, a[: n - 1]), ("", b)):
        assert wl.distance(x, y) == twin.distance(x, y)


def test_costs_that_overflow_give_inf_not_nan():
    wl = WeightedLevenshtein(
        default_substitution_cost=1e308, default_insertion_cost=1e308, default_deletion_cost=1e308
    )
    assert wl.distance("aa", "bb") == math.inf  # the IEEE sum of two costs near DBL_MAX


# -- WeightedEditDistance: weights are log probabilities (<= 0, -inf forbids) --------------
# (test_edit_distance.py has the single-character weights and log_base.)
def wed(**kwargs):
    return WeightedEditDistance(**kwargs)


WED_CASES = {
    "positive rule weight": (
        lambda: wed(substitute_weights={("rn", "m"): 0.5}),
        ValueError,
        r"substitute_weights\[\('rn', 'm'\)\] must be a log probability <= 0",
    ),
    "NaN rule weight": (
        lambda: wed(substitute_weights={("rn", "m"): math.nan}),
        ValueError,
        r"substitute_weights\[\('rn', 'm'\)\]",
    ),
    "string rule weight": (
        lambda: wed(substitute_weights={("rn", "m"): "-1"}),
        TypeError,
        r"substitute_weights\[\('rn', 'm'\)\] must be a number",
    ),
    "None rule weight": (lambda: wed(insert_weights={"ll": None}), TypeError, "insert_weights"),
    "NaN multi-character deletion": (
        lambda: wed(delete_weights={"li": math.nan}),
        ValueError,
        r"delete_weights\['li'\]",
    ),
    "('', '') rule": (
        lambda: wed(substitute_weights={("", ""): -1.0}),
        ValueError,
        "two non-empty strings",
    ),
    "int in a rule key": (
        lambda: wed(substitute_weights={(1, "m"): -1.0}),
        TypeError,
        "keys of substitute_weights must be pairs of strings",
    ),
    "bytes in a rule key": (
        lambda: wed(substitute_weights={(b"rn", "m"): -1.0}),
        TypeError,
        "pairs of strings",
    ),
    "3-tuple rule key": (
        lambda: wed(substitute_weights={("r", "n", "m"): -1.0}),
        TypeError,
        r"\(source, target\) pairs",
    ),
    "bytes insertion key": (
        lambda: wed(insert_weights={b"l": -1.0}),
        TypeError,
        "keys of insert_weights must be strings",
    ),
    "rules a list": (
        lambda: wed(substitute_weights=[(("rn", "m"), -1.0)]),
        TypeError,
        "substitute_weights must be a dict",
    ),
    "positive transposition": (
        lambda: wed(transpose_weights={("a", "b"): 0.1}),
        ValueError,
        r"transpose_weights\[\('a', 'b'\)\]",
    ),
    "NaN transposition": (
        lambda: wed(transpose_weights={("a", "b"): math.nan}),
        ValueError,
        "transpose_weights",
    ),
    "None transposition": (
        lambda: wed(transpose_weights={("a", "b"): None}),
        TypeError,
        r"transpose_weights\[\('a', 'b'\)\] must be a number",
    ),
    "('', '') transposition": (
        lambda: wed(transpose_weights={("", ""): -1.0}),
        ValueError,
        "two different characters",
    ),
    "two-character transposition": (
        lambda: wed(transpose_weights={("ab", "c"): -1.0}),
        ValueError,
        "single characters",
    ),
    "int in a transposition key": (
        lambda: wed(transpose_weights={(1, "c"): -1.0}),
        TypeError,
        "keys of transpose_weights must be strings",
    ),
    "transpositions not a dict": (
        lambda: wed(transpose_weights=5),
        TypeError,
        "transpose_weights must be a dict",
    ),
    "multi-character match": (
        lambda: wed(match_weights={"ab": -1.0}),
        ValueError,
        "keys of match_weights must be single characters",
    ),
    "log_base NaN": (lambda: wed(log_base=math.nan), ValueError, "log_base"),
    "log_base inf": (lambda: wed(log_base=math.inf), ValueError, "log_base"),
}

GENERAL_METHOD_CASES = {
    **{
        f"{metric} {method} {arg} {name}": (
            lambda m=m, method=method, arg=arg, v=v: getattr(m, method)(
                *((v, "a") if arg == "a" else ("a", v))
            ),
            TypeError,
            f"'{arg}' has incorrect type",
        )
        for metric, m in (("WL", GENERAL_WL), ("WED", GENERAL_WED))
        for method in ("distance", "explain")
        for arg in ("a", "b")
        for name, v in BAD_STRINGS.items()
    },
    **{
        f"{metric} pairwise {side} {name}": (
            lambda m=m, side=side, v=v: (
                m.pairwise(["a", v]) if side == "X" else m.pairwise(["a"], [v])
            ),
            TypeError,
            rf"{side}\[{1 if side == 'X' else 0}\] is {type(v).__name__}",
        )
        for metric, m in (("WL", GENERAL_WL), ("WED", GENERAL_WED))
        for side in ("X", "Y")
        for name, v in BAD_STRINGS.items()
    },
    "WL explain beyond the alignment limit": (
        lambda: GENERAL_WL.explain("a" * 40_000, "b" * 40_000),
        ValueError,
        "use distance",
    ),
    "WED pairwise X None": (lambda: GENERAL_WED.pairwise(None), TypeError, "X must be a sequence"),
    "WED pairwise n_jobs 0": (lambda: GENERAL_WED.pairwise(["a"], n_jobs=0), ValueError, "n_jobs"),
    "WED log_likelihood None": (
        lambda: GENERAL_WED.log_likelihood(None, "a"),
        TypeError,
        "'a' has incorrect type",
    ),
    "WED log_likelihoods bytes in Y": (
        lambda: GENERAL_WED.log_likelihoods(["a"], [b"a"]),
        TypeError,
        r"Y\[0\] is bytes",
    ),
    "WED log_likelihoods lengths": (
        lambda: GENERAL_WED.log_likelihoods(["a"], []),
        ValueError,
        "same length",
    ),
    "WED substitute_weight None": (
        lambda: GENERAL_WED.substitute_weight(None, "a"),
        TypeError,
        "deleted must be a single character",
    ),
    "WED insert_weight two letters": (
        lambda: GENERAL_WED.insert_weight("ab"),
        TypeError,
        "char must be a single character",
    ),
    "WED delete_weight int": (lambda: GENERAL_WED.delete_weight(3), TypeError, "char"),
    "WED transpose_weight bytes": (
        lambda: GENERAL_WED.transpose_weight(b"a", "b"),
        TypeError,
        "first must be a single character",
    ),
}


@pytest.mark.parametrize(
    ("call", "error", "match"),
    list(WED_CASES.values()) + list(GENERAL_METHOD_CASES.values()),
    ids=list(WED_CASES) + list(GENERAL_METHOD_CASES),
)
def test_bad_input_to_the_general_metrics(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_general_metrics_on_edge_case_strings():
    for a, b, _ in EDGE_CASES:
        for metric in (GENERAL_WL, GENERAL_WED):
            d = metric.distance(a, b)
            assert d == metric.pairwise([a], [b])[0, 0]
            assert sum(op.cost for op in metric.explain(a, b)) == pytest.approx(d)
    assert GENERAL_WL.distance("rn" * 50_000, "m" * 10) == pytest.approx(49_990 * 2 + 1.0)

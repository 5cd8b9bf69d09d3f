"""Every public entry point against bad input, and the valid edge cases it must handle.

A bad input is answered by TypeError or ValueError (NotFittedError before fit)
whose message names the argument and what was expected: never a crash, a hang,
a silently wrong number, or an estimator left half-fitted.  Each row of the
tables is (what is called, the exception, a regex the message must match).
"""

import decimal
import json
import math
import pickle
import subprocess
import sys

import numpy as np
import pytest
from conftest import package_env, skip_or_fail
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from skocrcost import (
    CostTables,
    EditCostEstimator,
    EditCounts,
    EditDistanceNeighbors,
    KatzBackoffLM,
    OCRCorrector,
    WeightedEditDistance,
    WeightedLevenshtein,
)
from skocrcost._kernels import _cost_kernel_py as _dp_py
from skocrcost.datasets import load_icdar2017_sample, pretrained

WL = WeightedLevenshtein({("a", "b"): 0.5})
PAIRS = (["a", "a"], ["b", "a"])


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


# -- the metric: construction, from_dict, from_tables, CostTables -------------------------
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
    # CostTables by hand: these reach the kernel's raw pointers.
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


# -- the metric's methods ---------------------------------------------------------------
NOT_STRINGS = {"None": None, "int": 3, "NaN": math.nan, "bytes": b"ab", "list": ["a"]}
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
    # align_batch is compiled and reads the str buffers directly: it checks every item.
    "align_batch int in X": (lambda: WL.align_batch([1], ["a"]), TypeError, r"X\[0\] is int"),
    "align_batch None in Y": (lambda: WL.align_batch(["a"], [None]), TypeError, r"Y\[0\]"),
    "align_batch bytes in X": (
        lambda: WL.align_batch(["a", b"b"], ["a", "b"]),
        TypeError,
        r"X\[1\] is bytes",
    ),
    "align_batch lengths": (lambda: WL.align_batch(["a"], []), ValueError, "same length"),
    "substitution_cost two letters": (
        lambda: WL.substitution_cost("ab", "c"),
        TypeError,
        "source must be a single character",
    ),
    "insertion_cost None": (lambda: WL.insertion_cost(None), TypeError, "target"),
    "deletion_cost int": (lambda: WL.deletion_cost(5), TypeError, "source"),
    "metric re-initialised": (lambda: WL.__init__(), RuntimeError, "already set"),
    "metric costs assigned": (lambda: setattr(WL, "costs", None), AttributeError, "costs"),
    "twin lengths": (
        lambda: _dp_py.CostKernel(*WL.costs.kernel_args()).align_batch(["a"], []),
        ValueError,
        "same length",
    ),
    # EditCounts from columns of code points (-1 = a gap).
    "counts other negative": (lambda: EditCounts.from_columns([-5], [97]), ValueError, "src"),
    "counts beyond Unicode": (lambda: EditCounts.from_columns([97], [2**40]), ValueError, "tgt"),
    "counts float": (lambda: EditCounts.from_columns([97.5], [97]), TypeError, "src"),
    "counts lengths": (lambda: EditCounts.from_columns([97], [97, 98]), ValueError, "same length"),
    "counts unsorted vocabulary": (
        lambda: EditCounts([98, 97], np.zeros((3, 3))),
        ValueError,
        "vocabulary",
    ),
    "counts matrix shape": (lambda: EditCounts([97], np.zeros((3, 3))), ValueError, "matrix"),
    "counts negative": (lambda: EditCounts([97], -np.ones((2, 2))), ValueError, "counts >= 0"),
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


# -- the estimator ---------------------------------------------------------------------
BAD_PARAMS = {
    "k negative": ({"k": -1}, ValueError, "'k'"),
    "k NaN": ({"k": math.nan}, ValueError, "'k'"),
    "k inf": ({"k": math.inf}, ValueError, "'k'"),
    "k string": ({"k": "1"}, TypeError, "'k'"),
    "k None": ({"k": None}, TypeError, "'k'"),
    "k bool": ({"k": True}, TypeError, "k must be a number"),
    "unknown model": ({"model": "bayes"}, ValueError, "'model'"),
    "model None": ({"model": None}, ValueError, "'model'"),
    "max_iter 0": ({"max_iter": 0}, ValueError, "'max_iter'"),
    "max_iter 1.5": ({"max_iter": 1.5}, TypeError, "'max_iter'"),
    "max_iter bool": ({"max_iter": True}, TypeError, "max_iter must be an integer"),
    "aligner a string": ({"aligner": "unit"}, TypeError, "'aligner'"),
    "n_jobs 0": ({"n_jobs": 0}, ValueError, "n_jobs"),
    "n_jobs 1.5": ({"n_jobs": 1.5}, TypeError, "'n_jobs'"),
    "references empty": ({"references": []}, ValueError, "references is empty"),
    "references with None": ({"references": ["a", None]}, TypeError, r"references\[1\]"),
    "references a string": ({"references": "abc"}, ValueError, "'references'"),
}
BAD_DATA = {
    "lengths differ": ((["a", "b"], ["a"]), ValueError, "X and y must have the same length"),
    "empty X": (([], []), ValueError, "X is empty"),
    "None in X": ((["a", None], ["a", "b"]), TypeError, r"X\[1\] is NoneType"),
    "NaN in X": (([math.nan], ["a"]), TypeError, r"X\[0\] is float"),
    "int in y": ((["a"], [3]), TypeError, r"y\[0\] is int"),
    "bytes in y": ((["a"], [b"a"]), TypeError, r"y\[0\] is bytes"),
    "X a string": (("ab", "ab"), TypeError, "X must be a sequence of strings, not a single str"),
    "X None": ((None, ["a"]), TypeError, "X must be a sequence"),
    "y None": ((["a"], None), TypeError, "y must be a sequence"),
    "X 2-D": ((np.array([["a"]]), ["a"]), ValueError, "one-dimensional"),
    "X a set": (({"a", "b"}, ["a", "b"]), TypeError, "X must be an ordered sequence"),
    "a pair beyond the alignment limit": (
        (["a", "x" * 40_000], ["a", "y" * 40_000]),
        ValueError,
        r"aligning X\[1\] and Y\[1\]",
    ),
}


def _fitted_state(est):
    return {k: v for k, v in vars(est).items() if k.endswith("_")}


@pytest.mark.parametrize(("params", "error", "match"), BAD_PARAMS.values(), ids=BAD_PARAMS)
def test_bad_parameters_are_refused_in_fit_and_a_refit_keeps_the_fit(params, error, match):
    with pytest.raises(error, match=match):
        EditCostEstimator(**params).fit(*PAIRS)
    est = EditCostEstimator().fit(*PAIRS)
    before = _fitted_state(est)
    est.set_params(**params)
    with pytest.raises(error, match=match):
        est.fit(["x", "y"], ["x", "z"])
    after = _fitted_state(est)
    assert after.keys() == before.keys()
    assert all(after[k] is before[k] for k in before)  # the same objects: nothing replaced


@pytest.mark.parametrize(("data", "error", "match"), BAD_DATA.values(), ids=BAD_DATA)
def test_bad_data_is_refused_and_a_failed_refit_keeps_the_fit(data, error, match):
    est = EditCostEstimator().fit(*PAIRS)
    before = _fitted_state(est)
    with pytest.raises(error, match=match):
        est.fit(*data)
    after = _fitted_state(est)
    assert all(after[k] is before[k] for k in before) and after.keys() == before.keys()
    if data[1] is not None and not isinstance(data[1], str):
        with pytest.raises(error, match=match):
            est.score(*data)


UNFITTED = {
    "score": lambda est: est.score(["a"], ["a"]),
    "score_samples": lambda est: est.score_samples(["a"], ["a"]),
    "transform": lambda est: est.transform(["a"]),
    "get_feature_names_out": lambda est: est.get_feature_names_out(),
}


@pytest.mark.parametrize("call", UNFITTED.values(), ids=UNFITTED)
def test_unfitted_estimator_raises_not_fitted(call):
    with pytest.raises(NotFittedError, match="not fitted yet"):
        call(EditCostEstimator())


FITTED_BAD = {
    "score_samples beyond the alignment limit": (
        lambda est: est.score_samples(["a", "x" * 40_000], ["a", "y" * 40_000]),
        ValueError,
        r"aligning X\[1\] and Y\[1\]",
    ),
    "transform None": (lambda est: est.transform(None), TypeError, "X must be a sequence"),
    "transform empty": (lambda est: est.transform([]), ValueError, "X is empty"),
    "transform None item": (lambda est: est.transform(["a", None]), TypeError, r"X\[1\]"),
    "score_samples bytes": (
        lambda est: est.score_samples([b"a"], ["a"]),
        TypeError,
        r"X\[0\] is bytes",
    ),
}


@pytest.mark.parametrize(("call", "error", "match"), FITTED_BAD.values(), ids=FITTED_BAD)
def test_bad_input_to_a_fitted_estimator(call, error, match):
    est = EditCostEstimator().fit(*PAIRS)
    with pytest.raises(error, match=match):
        call(est)


# -- valid edge cases ------------------------------------------------------------------
UNIT = WeightedLevenshtein()
EDGE_CASES = [
    ("", "", 0.0),
    ("", "abc", 3.0),
    ("abc", "", 3.0),
    ("\ud800", "\udc00", 1.0),  # lone surrogates are code points like any other
    ("\ud83d\ude00", "\U0001f600", 2.0),  # a surrogate pair is two code points, not one emoji
    ("\U0001f600", "\U0001f601", 1.0),  # astral plane, beyond the lookup table
    ("e\u0301", "\u00e9", 2.0),  # combining accent vs precomposed: not normalised
    ("\U0001f469\u200d\U0001f4bb", "\U0001f469", 2.0),  # a ZWJ sequence is three code points
    ("\x00", "", 1.0),  # NUL is a character, not a terminator
    ("a\x00b", "ab", 1.0),
    ("\U0010ffff", "\U0010fffe", 1.0),  # the last code points
]


@pytest.mark.parametrize(("a", "b", "want"), EDGE_CASES)
def test_edge_case_strings(a, b, want):
    twin = _dp_py.CostKernel(*UNIT.costs.kernel_args())
    assert UNIT.distance(a, b) == want == twin.distance(a, b)
    assert UNIT.pairwise([a], [b])[0, 0] == want
    ops = UNIT.explain(a, b)
    assert "".join(op.source for op in ops) == a and "".join(op.target for op in ops) == b
    assert sum(op.cost for op in ops) == want


def test_edge_case_strings_in_learned_costs():
    X = [a for a, _, _ in EDGE_CASES]
    y = [b for _, b, _ in EDGE_CASES]
    est = EditCostEstimator().fit(X, y)
    assert "\ud800" in est.vocabulary_ and "\U0010ffff" in est.vocabulary_
    assert np.all(np.isfinite(est.score_samples(X, y)))
    assert est.metric_.distance("\ud800", "\udc00") < 1.0  # seen once: cheaper than unseen
    back = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(back.transform(X), est.transform(X))


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


# -- nearest neighbours (test_neighbors.py has n_neighbors 0 / too large, a missing or
# negative radius, a string X, a bad mode, an unfitted estimator as metric) -----------
NN = EditDistanceNeighbors(1).fit(["the", "cow"])
NEIGHBOR_CASES = {
    "n_neighbors bool": (
        lambda: EditDistanceNeighbors(True).fit(["a"]),
        TypeError,
        "n_neighbors must be an integer",
    ),
    "n_neighbors 1.5": (lambda: EditDistanceNeighbors(1.5).fit(["a"]), ValueError, "'n_neighbors'"),
    "n_neighbors negative": (
        lambda: EditDistanceNeighbors(-1).fit(["a"]),
        ValueError,
        "'n_neighbors'",
    ),
    "n_neighbors NaN": (
        lambda: NN.kneighbors(["a"], n_neighbors=math.nan),
        TypeError,
        "n_neighbors must be an integer",
    ),
    "n_neighbors a string": (
        lambda: NN.kneighbors(["a"], n_neighbors="2"),
        TypeError,
        "n_neighbors",
    ),
    "n_neighbors beyond the lexicon": (
        lambda: NN.kneighbors(["a"], n_neighbors=3),
        ValueError,
        "n_neighbors must be <= 2",
    ),
    "empty lexicon": (lambda: EditDistanceNeighbors(1).fit([]), ValueError, "X is empty"),
    "lexicon None": (lambda: EditDistanceNeighbors(1).fit(None), TypeError, "X must be"),
    "bytes in lexicon": (
        lambda: EditDistanceNeighbors(1).fit(["a", b"b"]),
        TypeError,
        r"X\[1\] is bytes",
    ),
    "lexicon a set": (lambda: EditDistanceNeighbors(1).fit({"a"}), TypeError, "ordered"),
    "None among queries": (lambda: NN.kneighbors(["a", None]), TypeError, r"X\[1\]"),
    "NaN among queries": (lambda: NN.kneighbors([math.nan]), TypeError, r"X\[0\] is float"),
    "radius NaN": (
        lambda: NN.radius_neighbors(["a"], radius=math.nan),
        ValueError,
        "radius must be finite",
    ),
    "radius inf": (lambda: NN.radius_neighbors(["a"], radius=math.inf), ValueError, "radius"),
    "radius a string": (lambda: NN.radius_neighbors(["a"], radius="1"), TypeError, "radius"),
    "radius NaN in the constructor": (
        lambda: EditDistanceNeighbors(radius=math.nan).fit(["a"]),
        ValueError,
        "'radius'",
    ),
    "n_jobs 0": (lambda: EditDistanceNeighbors(n_jobs=0).fit(["a"]), ValueError, "n_jobs"),
    "metric a number": (lambda: EditDistanceNeighbors(metric=5).fit(["a"]), ValueError, "'metric'"),
    "transform None": (lambda: NN.transform(None), TypeError, "X must be"),
    # The compiled index reads str buffers directly: it checks every item itself.
    "index int query": (lambda: NN.index_.kneighbors([3], 1, 1), TypeError, r"X\[0\] is int"),
    "index radius NaN": (
        lambda: NN.index_.radius_neighbors(["a"], math.nan, 1),
        ValueError,
        "radius",
    ),
    # The trie's limit (unit costs search by bit-parallel brute force, which has none).
    "index search beyond the memory limit": (
        lambda: (
            EditDistanceNeighbors(1, metric=WeightedLevenshtein({("x", "y"): 0.5}))
            .fit(["x" * 40_000])
            .kneighbors(["y" * 40_000])
        ),
        ValueError,
        "split long lines",
    ),
}


@pytest.mark.parametrize(("call", "error", "match"), NEIGHBOR_CASES.values(), ids=NEIGHBOR_CASES)
def test_bad_input_to_the_neighbours(call, error, match):
    with pytest.raises(error, match=match):
        call()


UNFITTED_NEIGHBORS = {
    "kneighbors": lambda nn: nn.kneighbors(["a"]),
    "radius_neighbors": lambda nn: nn.radius_neighbors(["a"], 1.0),
    "kneighbors_graph": lambda nn: nn.kneighbors_graph(["a"]),
    "radius_neighbors_graph": lambda nn: nn.radius_neighbors_graph(["a"], 1.0),
    "transform": lambda nn: nn.transform(["a"]),
}


@pytest.mark.parametrize("call", UNFITTED_NEIGHBORS.values(), ids=UNFITTED_NEIGHBORS)
def test_unfitted_neighbours_raise_not_fitted(call):
    with pytest.raises(NotFittedError, match="not fitted yet"):
        call(EditDistanceNeighbors(1))


@pytest.mark.parametrize(
    ("bad", "error", "match"),
    [
        ({"n_neighbors": True}, TypeError, "n_neighbors must be an integer, got bool"),
        ({"n_jobs": 0}, ValueError, "n_jobs must be None or a non-zero integer, got 0"),
        ({"metric": EditCostEstimator()}, NotFittedError, "metric: This EditCostEstimator"),
    ],
    ids=str,
)
def test_a_failed_neighbours_refit_keeps_the_index(bad, error, match):
    nn = EditDistanceNeighbors(1).fit(["the", "cow"])
    before = _fitted_state(nn)
    nn.set_params(**bad)
    with pytest.raises(error, match=match):
        nn.fit(["x", "y", "z"])
    after = _fitted_state(nn)
    assert after.keys() == before.keys() and all(after[k] is before[k] for k in before)
    assert nn.set_params(n_neighbors=1, n_jobs=None, metric=None).kneighbors(["tbe"])[1][0, 0] == 0


def test_edge_case_strings_as_queries_and_lexicon():
    words = [b for _, b, _ in EDGE_CASES]
    nn = EditDistanceNeighbors(2).fit(words)
    queries = [a for a, _, _ in EDGE_CASES] + [""]
    dist, ind = nn.kneighbors(queries)
    brute = UNIT.pairwise(queries, words)
    np.testing.assert_array_equal(dist, np.sort(brute, axis=1, kind="stable")[:, :2])


# -- the corrector -----------------------------------------------------------------------
TOKENS = (["tbe", "the", "cow", "c0w"], ["the", "the", "cow", "cow"])
CORRECTOR_PARAMS = {
    "n_candidates 0": ({"n_candidates": 0}, ValueError, "'n_candidates'"),
    "n_candidates bool": ({"n_candidates": True}, TypeError, "n_candidates must be an integer"),
    "empty lexicon": ({"lexicon": []}, ValueError, "lexicon is empty"),
    "None in lexicon": ({"lexicon": ["the", None]}, TypeError, r"lexicon\[1\]"),
    "lexicon a string": ({"lexicon": "the"}, ValueError, "'lexicon'"),
    "prior_weight NaN": ({"prior_weight": math.nan}, ValueError, "'prior_weight'"),
    "prior_weight negative": ({"prior_weight": -1.0}, ValueError, "'prior_weight'"),
    "reject_margin inf": ({"reject_margin": math.inf}, ValueError, "'reject_margin'"),
    "min_confidence above 1": ({"min_confidence": 1.5}, ValueError, "'min_confidence'"),
    "unknown language model": ({"language_model": "kenlm"}, ValueError, "'language_model'"),
    "estimator a number": ({"estimator": 5}, ValueError, "'estimator'"),
    "estimator with a bad k": ({"estimator": EditCostEstimator(k=-1)}, ValueError, "'k'"),
    "n_jobs 0": ({"n_jobs": 0}, ValueError, "n_jobs"),
}


@pytest.mark.parametrize(
    ("params", "error", "match"), CORRECTOR_PARAMS.values(), ids=CORRECTOR_PARAMS
)
def test_bad_corrector_parameters_and_a_failed_refit_keeps_the_fit(params, error, match):
    fixer = OCRCorrector(lexicon=["the", "cow"]).fit(*TOKENS)
    before = _fitted_state(fixer)
    fixer.set_params(**params)
    with pytest.raises(error, match=match):
        fixer.fit(*TOKENS)
    after = _fitted_state(fixer)
    assert after.keys() == before.keys() and all(after[k] is before[k] for k in before)


FIXER = OCRCorrector(lexicon=["the", "cow"]).fit(*TOKENS)
CORRECTOR_CASES = {
    "fit lengths differ": (
        lambda: OCRCorrector().fit(["a"], ["a", "b"]),
        ValueError,
        "same length",
    ),
    "fit empty": (lambda: OCRCorrector().fit([], []), ValueError, "X is empty"),
    "predict None item": (lambda: FIXER.predict([None]), TypeError, r"X\[0\] is NoneType"),
    "predict a string": (lambda: FIXER.predict("tbe"), TypeError, "not a single str"),
    "kneighbors beyond the lexicon": (
        lambda: FIXER.kneighbors(["a"], n_neighbors=5),
        ValueError,
        "n_neighbors must be <= 2",
    ),
    "kneighbors bool": (
        lambda: FIXER.kneighbors(["a"], n_neighbors=True),
        TypeError,
        "n_neighbors must be an integer",
    ),
    "score lengths differ": (lambda: FIXER.score(["a"], ["a", "b"]), ValueError, "same length"),
}


@pytest.mark.parametrize(("call", "error", "match"), CORRECTOR_CASES.values(), ids=CORRECTOR_CASES)
def test_bad_input_to_the_corrector(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize(
    "call",
    [lambda f: f.predict(["a"]), lambda f: f.kneighbors(["a"]), lambda f: f.score(["a"], ["a"])],
    ids=["predict", "kneighbors", "score"],
)
def test_unfitted_corrector_raises_not_fitted(call):
    with pytest.raises(NotFittedError, match="not fitted yet"):
        call(OCRCorrector())


def test_corrector_edge_case_tokens():
    tokens = ["", "\ud800", "e\u0301", "\U0001f600", "tbe", "x" * 100_000]
    out = FIXER.predict(tokens)
    assert out.shape == (6,) and all(isinstance(w, str) for w in out)
    assert out[0] == "" and out[4] == "the"  # an empty token stays empty
    assert FIXER.predict([]).shape == (0,)
    # A line of 10^5 characters (25,000 words) is decoded word by word, in linear time.
    # (Without recurrences: "tbe" 12,500 times over would read as the text's spelling.)
    long = clone(FIXER).set_params(recurrence_weight=0.0)
    long.__dict__.update({k: v for k, v in FIXER.__dict__.items() if k.endswith("_")})
    assert long.predict(["tbe c0w " * 12_500])[0] == "the cow " * 12_500


@pytest.mark.parametrize(
    "params",
    [{"k": 0.0}, {"k": 0.1}, {"smoothing": "katz"}, {"smoothing": "katz", "discount": 0.9}],
)
def test_legacy_insertions_outnumbering_the_ocr_characters(params):
    # The legacy model divides insertion counts by the number of OCR characters:
    # here 1 / 0 (k = 0) and 1.1 / 0.1 (k = 0.1), "probabilities" of inf and 11 that
    # gave costs of -inf and -3.46 (Katz: (1 - d) / 0).  They are capped at probability 1.
    est = EditCostEstimator(model="legacy", **params).fit([""], ["0"])
    assert est.costs_.insertion_cost("0") == 0.0
    assert est.metric_.distance("", "0") == 0.0
    assert est.score([""], ["0"]) == 0.0
    assert np.all(est.costs_.ins >= 0)


# -- cost model files (save/load: JSON, validated; see docs/security.md) --------------------
def _edited(path, edit):
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))
    return path


FILE_CASES = {
    "not JSON": (lambda p: p.write_text("{not json"), ValueError, "is not a JSON cost model"),
    "a JSON list": (lambda p: p.write_text("[1, 2]"), ValueError, "holds a JSON list"),
    "not UTF-8": (lambda p: p.write_bytes(b"\xff\xfe\x00"), ValueError, "utf-8"),
    "negative count": (
        lambda p: _edited(p, lambda d: d["skocrcost_estimator"]["counts"].__setitem__(0, -1)),
        ValueError,
        "'counts' must be a list of integers >= 0",
    ),
    "k negative": (
        lambda p: _edited(p, lambda d: d["skocrcost_estimator"]["params"].__setitem__("k", -1)),
        ValueError,
        "'k'",
    ),
    "a cost edited by hand": (
        lambda p: _edited(p, lambda d: d["substitution_costs"][0].__setitem__("cost", 0.123)),
        ValueError,
        "the costs disagree with the counts",
    ),
    "a negative cost": (
        lambda p: _edited(p, lambda d: d["substitution_costs"][0].__setitem__("cost", -1)),
        ValueError,
        r"substitution_costs\[.*\] must be a finite number >= 0",
    ),
    "code point beyond Unicode": (
        lambda p: _edited(p, lambda d: d["skocrcost_estimator"].__setitem__("vocabulary", [2**40])),
        ValueError,
        "'vocabulary' must hold sorted, distinct code points",
    ),
}


@pytest.mark.parametrize(("write", "error", "match"), FILE_CASES.values(), ids=FILE_CASES)
def test_bad_model_files_are_refused(tmp_path, write, error, match):
    path = tmp_path / "model.json"
    EditCostEstimator(k=0.5).fit(["tbe", "cat"], ["the", "cat"]).save(path)
    write(path)
    with pytest.raises(error, match=match):
        EditCostEstimator.load(path)
    if not any(key in match for key in ("counts", "'k'", "vocabulary")):
        with pytest.raises(error):  # a broken cost part: the metric reader refuses it too
            WeightedLevenshtein.load(path)


def test_model_file_paths_are_checked():
    with pytest.raises(TypeError, match="path must be a str or os.PathLike"):
        EditCostEstimator.load(None)
    with pytest.raises(TypeError, match="path"):
        WL.save(3)
    with pytest.raises(NotFittedError):
        EditCostEstimator().save("never-written.json")


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

GENERAL_WL = WeightedLevenshtein({("rn", "m"): 0.1}, transposition_costs={("a", "b"): 0.5})
GENERAL_WED = WeightedEditDistance(
    substitute_weights={("rn", "m"): -0.1}, default_transpose_weight=-1.0
)
BAD_STRINGS = {"None": None, "bytes": b"ab", "int": 3}
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
    **{
        f"WL align_batch {side} {name}": (
            lambda side=side, v=v: (
                GENERAL_WL.align_batch([v], ["a"])
                if side == "X"
                else GENERAL_WL.align_batch(["a"], [v])
            ),
            TypeError,
            rf"{side}\[0\] is {type(v).__name__}",
        )
        for side in ("X", "Y")
        for name, v in BAD_STRINGS.items()
    },
    "WL align_batch lengths": (
        lambda: GENERAL_WL.align_batch(["a"], []),
        ValueError,
        "same length",
    ),
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
    for got, want in zip(m.align_batch(X, Y, 10**6, True), m.align_batch(X, Y, 1, True)):
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


# -- the language model -----------------------------------------------------------------
# (test_lm.py has order 0 / 1.5 / True, discount 1 / -0.1 / NaN / "0.5", a single string,
# an empty X, ints and bad tokens among the sentences, reserved tokens.)
LM_SEED = ["the book", "his house", "the house"]
LM_PARAMS = {
    "order beyond the limit": ({"order": 11}, ValueError, "'order'"),
    "order huge": ({"order": 10**9}, ValueError, "'order'"),
    "order None": ({"order": None}, ValueError, "'order'"),
    "order a string": ({"order": "2"}, ValueError, "'order'"),
    "discount inf": ({"discount": math.inf}, ValueError, "'discount'"),
    "discount None": ({"discount": None}, ValueError, "'discount'"),
    "discount bool": ({"discount": True}, ValueError, "'discount'"),
}
LM_DATA = {
    "X None": (None, TypeError, "X must be a sequence of sentences"),
    "X an int": (3, TypeError, "X must be a sequence of sentences"),
    "X bytes": (b"the book", TypeError, "not a single bytes"),
    "bytes sentence": ([b"the book"], TypeError, r"X\[0\] must be a string or a list of tokens"),
    "None sentence": (["a", None], TypeError, r"X\[1\] must be a string or a list of tokens"),
    "int sentence": ([3], TypeError, r"X\[0\]"),
    "bytes token": ([["the", b"book"]], TypeError, r"X\[0\]\[1\] is bytes"),
    "None token": ([[None]], TypeError, r"X\[0\]\[0\] is NoneType"),
    "empty X": ([], ValueError, "X is empty"),
    "2-D X": (np.array([["a"]]), ValueError, "one-dimensional"),
}


@pytest.mark.parametrize(
    ("params", "X", "error", "match"),
    [(p, LM_SEED, e, m) for p, e, m in LM_PARAMS.values()]
    + [({}, X, e, m) for X, e, m in LM_DATA.values()],
    ids=list(LM_PARAMS) + list(LM_DATA),
)
def test_bad_language_model_fits_keep_the_previous_fit(params, X, error, match):
    lm = KatzBackoffLM().fit(LM_SEED)
    before = _fitted_state(lm), lm._levels
    with pytest.raises(error, match=match):
        lm.set_params(**params).fit(X)
    after = _fitted_state(lm), lm._levels
    assert after[0].keys() == before[0].keys()
    assert all(after[0][k] is before[0][k] for k in before[0]) and after[1] is before[1]


LM = KatzBackoffLM().fit(LM_SEED)
LM_QUERIES = {
    **{
        f"{method} word {name}": (
            lambda method=method, v=v: getattr(LM, method)(v, ["the"]),
            TypeError,
            r"words\[0\] must be a string",
        )
        for method in ("probability", "log_probability")
        for name, v in {**BAD_STRINGS, "NaN": math.nan}.items()
    },
    **{
        f"{method} context {name}": (
            lambda method=method, v=v: getattr(LM, method)("book", v),
            TypeError,
            "context must be a string or a sequence of words",
        )
        for method in ("probability", "log_probability")
        for name, v in {**BAD_STRINGS, "a set": {"the"}}.items()
    },
    "context with None": (
        lambda: LM.probability("book", ["the", None]),
        TypeError,
        r"context\[1\]",
    ),
    "context with bytes": (lambda: LM.probability("book", [b"the"]), TypeError, r"context\[0\]"),
    "context with a space": (lambda: LM.probability("book", ["a b"]), ValueError, r"context\[0\]"),
    "log_probabilities None": (lambda: LM.log_probabilities(None), TypeError, "words must be"),
    "log_probabilities a string": (lambda: LM.log_probabilities("book"), TypeError, "words"),
    **{
        f"{method} {name}": (lambda method=method, X=X: getattr(LM, method)(X), error, match)
        for method in ("score", "perplexity", "score_samples")
        for name, (X, error, match) in {
            "None": (None, TypeError, "X must be a sequence of sentences"),
            "a string": ("the book", TypeError, "not a single str"),
            "bytes sentence": ([b"the"], TypeError, r"X\[0\]"),
            "int sentence": ([3], TypeError, r"X\[0\]"),
            "empty": ([], ValueError, "X is empty"),
        }.items()
    },
}


@pytest.mark.parametrize(("call", "error", "match"), LM_QUERIES.values(), ids=LM_QUERIES)
def test_bad_language_model_queries(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize(
    "call",
    [
        lambda lm: lm.probability("a"),
        lambda lm: lm.log_probability("a", ["b"]),
        lambda lm: lm.log_probabilities(["a"]),
        lambda lm: lm.score(["a"]),
        lambda lm: lm.perplexity(["a"]),
        lambda lm: lm.score_samples(["a"]),
    ],
    ids=[
        "probability",
        "log_probability",
        "log_probabilities",
        "score",
        "perplexity",
        "score_samples",
    ],
)
def test_unfitted_language_model_raises_not_fitted(call):
    with pytest.raises(NotFittedError, match="not fitted yet"):
        call(KatzBackoffLM())


# -- the corrector's running-text API and its language model ---------------------------------
SENTENCE_LM = KatzBackoffLM().fit(["the cow", "the the"])
CORRECT_PARAMS = {
    "lm_weight negative": ({"lm_weight": -1.0}, ValueError, "lm_weight"),
    "lm_weight NaN": ({"lm_weight": math.nan}, ValueError, "lm_weight"),
    "lm_weight inf": ({"lm_weight": math.inf}, ValueError, "lm_weight"),
    "lm_weight bool": ({"lm_weight": True}, TypeError, "lm_weight must be a number"),
    "real_word_prior 0": ({"real_word_prior": 0.0}, ValueError, "real_word_prior"),
    "real_word_prior above 1": ({"real_word_prior": 1.5}, ValueError, "real_word_prior"),
    "real_word_prior negative": ({"real_word_prior": -0.1}, ValueError, "real_word_prior"),
    "real_word_prior NaN": ({"real_word_prior": math.nan}, ValueError, "real_word_prior"),
    "real_word_prior bool": ({"real_word_prior": True}, TypeError, "real_word_prior"),
    "real_word_smoothing 0": ({"real_word_smoothing": 0.0}, ValueError, "real_word_smoothing"),
    "real_word_smoothing negative": (
        {"real_word_smoothing": -1.0},
        ValueError,
        "real_word_smoothing",
    ),
    "real_word_smoothing NaN": (
        {"real_word_smoothing": math.nan},
        ValueError,
        "real_word_smoothing",
    ),
    "real_word_smoothing inf": (
        {"real_word_smoothing": math.inf},
        ValueError,
        "real_word_smoothing",
    ),
    "real_word_smoothing bool": ({"real_word_smoothing": True}, TypeError, "real_word_smoothing"),
    "fix_capitals a string": ({"fix_capitals": "yes"}, (TypeError, ValueError), "fix_capitals"),
    "fix_hyphens a string": ({"fix_hyphens": "yes"}, (TypeError, ValueError), "fix_hyphens"),
    "split_cost NaN": ({"split_cost": math.nan}, ValueError, "split_cost"),
    "split_cost inf": ({"split_cost": math.inf}, ValueError, "split_cost"),
    "split_cost a string": ({"split_cost": "3"}, (TypeError, ValueError), "split_cost"),
    "join_cost NaN": ({"join_cost": math.nan}, ValueError, "join_cost"),
    "join_cost bool": ({"join_cost": True}, TypeError, "join_cost must be a number"),
    "recurrence_weight negative": ({"recurrence_weight": -1.0}, ValueError, "recurrence_weight"),
    "recurrence_weight inf": ({"recurrence_weight": math.inf}, ValueError, "recurrence_weight"),
    "recurrence_weight None": ({"recurrence_weight": None}, (TypeError, ValueError), "recurrence"),
    "variant_weight negative": ({"variant_weight": -1.0}, ValueError, "variant_weight"),
    "variant_weight NaN": ({"variant_weight": math.nan}, ValueError, "variant_weight"),
    "variant_weight inf": ({"variant_weight": math.inf}, ValueError, "variant_weight"),
    "variant_weight bool": ({"variant_weight": True}, TypeError, "variant_weight must be a number"),
    "variant_weight None": ({"variant_weight": None}, (TypeError, ValueError), "variant_weight"),
    "beam_width 0": ({"beam_width": 0}, ValueError, "beam_width"),
    "beam_width negative": ({"beam_width": -2}, ValueError, "beam_width"),
    "beam_width a float": ({"beam_width": 1.5}, (TypeError, ValueError), "beam_width"),
    "beam_width inf": ({"beam_width": math.inf}, (TypeError, ValueError), "beam_width"),
    "beam_width bool": ({"beam_width": True}, (TypeError, ValueError), "beam_width"),
    "beam_width None": ({"beam_width": None}, (TypeError, ValueError), "beam_width"),
    "beam_width a string": ({"beam_width": "8"}, (TypeError, ValueError), "beam_width"),
    "language model a string": (
        {"language_model": "kenlm"},
        (TypeError, ValueError),
        "language_model",
    ),
    "language model an estimator without log_probabilities": (
        {"language_model": EditCostEstimator()},
        (TypeError, ValueError),
        "language_model",
    ),
    "language model the class": (
        {"language_model": KatzBackoffLM},
        TypeError,
        "language_model must be a KatzBackoffLM instance",
    ),
}


@pytest.mark.parametrize(("params", "error", "match"), CORRECT_PARAMS.values(), ids=CORRECT_PARAMS)
def test_bad_correct_parameters_in_fit_and_when_set_after_fit(params, error, match):
    fixer = OCRCorrector(lexicon=["the", "cow"], language_model=SENTENCE_LM).fit(*TOKENS)
    before = _fitted_state(fixer)
    fixer.set_params(**params)
    with pytest.raises(error, match=match):  # set after fit: correct() checks them itself
        fixer.correct("tbe c0w")
    with pytest.raises(error, match=match):
        fixer.fit(*TOKENS)
    after = _fitted_state(fixer)
    assert after.keys() == before.keys() and all(after[k] is before[k] for k in before)


@pytest.mark.parametrize(
    ("value", "error"),
    [(-1.0, ValueError), (math.nan, ValueError), (math.inf, ValueError), (True, TypeError)],
    ids=["negative", "NaN", "inf", "bool"],
)
def test_a_bad_variant_weight_set_after_fit_is_refused_by_predict(value, error):
    # The truth spells "cow" as "kow" (outside the lexicon): a variant model is learned,
    # and predict on isolated tokens reads variant_weight itself.
    fixer = OCRCorrector(lexicon=["the", "cow"]).fit(["tbe", "kow", "cow"], ["the", "kow", "cow"])
    assert fixer.variants_ is not None
    fixer.set_params(variant_weight=value)
    with pytest.raises(error, match="variant_weight"):
        fixer.predict(["tbe"])


def test_fit_fits_a_clone_of_the_language_model_and_a_frozen_one_is_kept():
    from sklearn.base import clone
    from sklearn.frozen import FrozenEstimator

    fixer = OCRCorrector(lexicon=["the", "cow"], language_model=SENTENCE_LM).fit(*TOKENS)
    # fit refits a clone on the truth tokens (so GridSearchCV can tune it), never the
    # estimator passed in; clone() of the corrector therefore works as well.
    assert fixer.language_model_ is not SENTENCE_LM
    assert clone(fixer).fit(*TOKENS).correct("tbe c0w") == "the cow"
    # A language model fitted on other text is kept as it is when frozen.
    frozen = clone(fixer.set_params(language_model=FrozenEstimator(SENTENCE_LM))).fit(*TOKENS)
    assert frozen.language_model_.estimator is SENTENCE_LM
    assert frozen.correct("tbe c0w") == "the cow"


@pytest.mark.parametrize("text", [None, b"tbe", 3, ["tbe"], math.nan], ids=repr)
def test_correct_refuses_what_is_not_text(text):
    with pytest.raises(TypeError, match="text must be a str"):
        FIXER.correct(text)


def test_correct_unfitted_raises_not_fitted():
    with pytest.raises(NotFittedError, match="not fitted yet"):
        OCRCorrector().correct("tbe")


@pytest.mark.parametrize("X", [[None], [b"tbe"], [3], ["tbe", 3.5]], ids=repr)
def test_predict_refuses_what_is_not_a_token(X):
    with pytest.raises(TypeError, match=r"X\[\d\] is"):
        FIXER.predict(X)


# Tokens no lexicon word is near: no letter, or longer than any word could be.
KEPT_TOKENS = [
    "x" * 100_000,
    "x" * 65,
    "\ud800",
    "\ud800\udc00",
    "12345",
    "...",
    "\U0001f600",
    "\u0301",
]


def test_tokens_without_a_letter_or_too_long_are_kept_by_predict_and_correct():
    # These became "the" (the only nearby word in a two-word lexicon): the reject rule
    # compared two long sums of surprisals of characters never seen.
    for fixer in (FIXER, OCRCorrector(lexicon=["the", "cow"], reject_margin=None).fit(*TOKENS)):
        assert fixer.predict(KEPT_TOKENS).tolist() == KEPT_TOKENS
        for token in KEPT_TOKENS:
            assert fixer.correct(token) == token
        assert fixer.correct("tbe " + "x" * 100_000 + " c0w") == "the " + "x" * 100_000 + " cow"
    # At the limit, a token is still corrected when a word is cheaper than keeping it.
    always = OCRCorrector(lexicon=["the", "cow"], reject_margin=None).fit(*TOKENS)
    assert always.predict(["x" * 64, "tbe"]).tolist() == ["the", "the"]


# -- EditCostEstimator's multi-character and alignment parameters ------------------------------
MULTI_PARAMS = {
    "max_token_length 0": ({"max_token_length": 0}, ValueError, "'max_token_length'"),
    "max_token_length 2.5": ({"max_token_length": 2.5}, ValueError, "'max_token_length'"),
    "max_token_length None": ({"max_token_length": None}, ValueError, "'max_token_length'"),
    "max_token_length bool": (
        {"max_token_length": True},
        TypeError,
        "max_token_length must be an integer",
    ),
    "min_count 0": ({"min_count": 0}, ValueError, "'min_count'"),
    "min_count NaN": ({"min_count": math.nan}, ValueError, "'min_count'"),
    "min_count bool": ({"min_count": True}, TypeError, "min_count must be an integer"),
    "unknown alignment": ({"alignment": "em"}, ValueError, "'alignment'"),
    "forward with Katz": (
        {"alignment": "forward", "smoothing": "katz"},
        ValueError,
        "alignment='forward' needs smoothing='additive'",
    ),
    "aligner with a rule": (
        {"aligner": WeightedLevenshtein({("rn", "m"): 0.1})},
        ValueError,
        "aligner must have single-character costs only",
    ),
    "aligner with transpositions": (
        {"aligner": WeightedLevenshtein(default_transposition_cost=1.0)},
        ValueError,
        "aligner must have single-character costs only",
    ),
    "aligner a WeightedEditDistance": (
        {"aligner": WeightedEditDistance()},
        ValueError,
        "'aligner'",
    ),
}


@pytest.mark.parametrize(("params", "error", "match"), MULTI_PARAMS.values(), ids=MULTI_PARAMS)
def test_bad_multi_character_parameters_keep_the_fit(params, error, match):
    est = EditCostEstimator().fit(*PAIRS)
    before = _fitted_state(est)
    with pytest.raises(error, match=match):
        est.set_params(**params).fit(["rn", "a"], ["m", "b"])
    after = _fitted_state(est)
    assert after.keys() == before.keys() and all(after[k] is before[k] for k in before)


# -- EditDistanceNeighbors over a WeightedEditDistance (the general DP, no trie) -----------------
NN_WED = EditDistanceNeighbors(2, metric=GENERAL_WED).fit(["modern", "the", "teh"])
NN_WED_CASES = {
    "None query": (lambda: NN_WED.kneighbors(["rnodern", None]), TypeError, r"X\[1\] is NoneType"),
    "bytes query": (lambda: NN_WED.kneighbors([b"the"]), TypeError, r"X\[0\] is bytes"),
    "a string of queries": (lambda: NN_WED.kneighbors("the"), TypeError, "not a single str"),
    "n_neighbors beyond the lexicon": (
        lambda: NN_WED.kneighbors(["the"], n_neighbors=4),
        ValueError,
        "n_neighbors must be <= 3",
    ),
    "radius NaN": (lambda: NN_WED.radius_neighbors(["the"], math.nan), ValueError, "radius"),
    "empty lexicon": (
        lambda: EditDistanceNeighbors(1, metric=GENERAL_WED).fit([]),
        ValueError,
        "X is empty",
    ),
    "None in the lexicon": (
        lambda: EditDistanceNeighbors(1, metric=GENERAL_WED).fit(["a", None]),
        TypeError,
        r"X\[1\]",
    ),
    "unfitted": (
        lambda: EditDistanceNeighbors(1, metric=GENERAL_WED).kneighbors(["a"]),
        NotFittedError,
        "not fitted yet",
    ),
}


@pytest.mark.parametrize(("call", "error", "match"), NN_WED_CASES.values(), ids=NN_WED_CASES)
def test_bad_input_to_neighbours_under_a_weighted_edit_distance(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_neighbours_under_a_weighted_edit_distance_equal_brute_force():
    queries = ["rnodern", "hte", "", "\ud800", "\U0001f600the"]
    dist, ind = NN_WED.kneighbors(queries)
    brute = GENERAL_WED.pairwise(queries, NN_WED.lexicon_)
    np.testing.assert_array_equal(ind, np.argsort(brute, axis=1, kind="stable")[:, :2])
    np.testing.assert_array_equal(dist, np.take_along_axis(brute, ind, axis=1))


# -- datasets ------------------------------------------------------------------------------------
DATASET_CASES = {
    "unknown kind": (lambda: load_icdar2017_sample("Lines"), ValueError, "kind must be one of"),
    "kind None": (lambda: load_icdar2017_sample(None), TypeError, "kind must be one of"),
    "kind a list": (lambda: load_icdar2017_sample(["lines"]), TypeError, "kind"),
    "unknown model": (lambda: pretrained("fr-modern"), ValueError, "name must be one of"),
    "model None": (lambda: pretrained(None), TypeError, "name must be one of"),
    "model a list": (lambda: pretrained(["en-historical"]), TypeError, "name"),
}


@pytest.mark.parametrize(("call", "error", "match"), DATASET_CASES.values(), ids=DATASET_CASES)
def test_bad_dataset_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()


# -- the command line: one clear line on stderr and a non-zero exit, never a traceback --------
def _cli_files(tmp_path):
    (tmp_path / "pairs.tsv").write_text("tbe\tthe\ncow\tcow\n", encoding="utf-8")
    (tmp_path / "words.txt").write_text("the\ncow\n", encoding="utf-8")
    (tmp_path / "dir").mkdir()
    (tmp_path / "latin1.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    (tmp_path / "empty.txt").write_text("\n")
    WeightedLevenshtein().save(tmp_path / "costs.json")


# (arguments, exit status, what stderr must say); paths are relative to tmp_path.
CLI_CASES = {
    "fit: pairs a directory": (["fit", "dir", "-o", "m.json", "--k", "0.1"], 1, "dir"),
    "fit: missing pairs": (["fit", "nope.tsv", "-o", "m.json", "--k", "0.1"], 1, "nope.tsv"),
    "fit: output a directory": (["fit", "pairs.tsv", "-o", "dir", "--k", "0.1"], 1, "dir"),
    "fit: output in a missing folder": (
        ["fit", "pairs.tsv", "-o", "no/such/m.json", "--k", "0.1"],
        1,
        "no/such/m.json",
    ),
    "fit: pairs not UTF-8": (["fit", "latin1.txt", "-o", "m.json", "--k", "0.1"], 1, "UTF-8"),
    "fit: k negative": (["fit", "pairs.tsv", "-o", "m.json", "--k", "-1"], 2, "--k"),
    "fit: k inf": (["fit", "pairs.tsv", "-o", "m.json", "--k", "inf"], 2, "--k"),
    "fit: unknown model": (["fit", "pairs.tsv", "-o", "m.json", "--model", "x"], 2, "--model"),
    "fit: cv 1": (["fit", "pairs.tsv", "-o", "m.json", "--cv", "1"], 2, "--cv"),
    "fit: n-jobs 0": (["fit", "pairs.tsv", "-o", "m.json", "--n-jobs", "0"], 2, "--n-jobs"),
    "fit: n-jobs a word": (["fit", "pairs.tsv", "-o", "m.json", "--n-jobs", "all"], 2, "--n-jobs"),
    "fit: no output": (["fit", "pairs.tsv"], 2, "--output"),
    "distance: model a directory": (["distance", "a", "b", "--model", "dir"], 1, "dir"),
    "distance: missing model": (["distance", "a", "b", "--model", "nope.json"], 1, "nope.json"),
    "distance: model not JSON": (
        ["distance", "a", "b", "--model", "pairs.tsv"],
        1,
        "not a JSON cost model",
    ),
    "distance: one string": (["distance", "a"], 2, "B"),
    "neighbors: lexicon a directory": (["neighbors", "a", "--lexicon", "dir"], 1, "dir"),
    "neighbors: missing lexicon": (["neighbors", "a", "--lexicon", "nope.txt"], 1, "nope.txt"),
    "neighbors: empty lexicon": (["neighbors", "a", "--lexicon", "empty.txt"], 1, "no lines"),
    "neighbors: lexicon not UTF-8": (["neighbors", "a", "--lexicon", "latin1.txt"], 1, "UTF-8"),
    "neighbors: n 0": (["neighbors", "a", "--lexicon", "words.txt", "-n", "0"], 2, "--n-neighbors"),
    "neighbors: n a word": (["neighbors", "a", "--lexicon", "words.txt", "-n", "x"], 2, "-n"),
    "neighbors: n-jobs 0": (
        ["neighbors", "a", "--lexicon", "words.txt", "--n-jobs", "0"],
        2,
        "--n-jobs",
    ),
    "neighbors: no lexicon": (["neighbors", "a"], 2, "--lexicon"),
    "correct: text a directory": (["correct", "dir", "--lexicon", "words.txt"], 1, "dir"),
    "correct: missing text": (["correct", "nope.txt", "--lexicon", "words.txt"], 1, "nope.txt"),
    "correct: missing pairs": (
        ["correct", "words.txt", "--lexicon", "words.txt", "--pairs", "nope.tsv"],
        1,
        "nope.tsv",
    ),
    "correct: costs-only model": (
        ["correct", "words.txt", "--lexicon", "words.txt", "--model", "costs.json"],
        1,
        "holds costs only",
    ),
    "correct: n-jobs -0": (
        ["correct", "words.txt", "--lexicon", "words.txt", "--n-jobs", "-0"],
        2,
        "--n-jobs",
    ),
    "unknown command": (["bogus"], 2, "invalid choice"),
    "no command": ([], 2, "COMMAND"),
}


@pytest.mark.parametrize(("argv", "status", "match"), CLI_CASES.values(), ids=CLI_CASES)
def test_bad_command_lines_exit_non_zero_with_one_clear_message(
    tmp_path, monkeypatch, capsys, argv, status, match
):
    from skocrcost import cli

    _cli_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    if status == 2:  # argparse: usage and the error, exit status 2
        with pytest.raises(SystemExit) as exc:
            cli.main(argv)
        assert exc.value.code == 2
    else:
        assert cli.main([*argv, "-q"] if argv[0] != "correct" else argv) == 1
    err = capsys.readouterr().err
    assert match in err and "Traceback" not in err
    assert err.rstrip("\n").splitlines()[-1].startswith(("skocrcost: error:", "skocrcost "))
    assert not (tmp_path / "m.json").exists()


# -- skocrcost.dask: refused before any task runs (test_dask.py runs them on a cluster) ---------
try:
    import skocrcost.dask as sd
except ImportError:  # the optional dask extra is absent: no rows
    sd = None

DASK_CASES = (
    {
        "pairwise metric None": (lambda: sd.pairwise(["a"], ["a"], None), TypeError, "metric"),
        "pairwise Y None": (lambda: sd.pairwise(["a"], None, WL), TypeError, "Y must be"),
        "pairwise Y empty": (lambda: sd.pairwise(["a"], [], WL), ValueError, "Y is empty"),
        "pairwise bytes in Y": (lambda: sd.pairwise(["a"], [b"a"], WL), TypeError, r"Y\[0\]"),
        "pairwise X a string": (lambda: sd.pairwise("abc", ["a"], WL), TypeError, "single str"),
        "pairwise block_size 0": (
            lambda: sd.pairwise(["a"], ["a"], WL, block_size=0),
            ValueError,
            "block_size",
        ),
        "pairwise block_size NaN": (
            lambda: sd.pairwise(["a"], ["a"], WL, block_size=math.nan),
            TypeError,
            "block_size",
        ),
        "pairwise n_jobs 0": (
            lambda: sd.pairwise(["a"], ["a"], WL, n_jobs=0),
            ValueError,
            "n_jobs",
        ),
        "kneighbors index None": (lambda: sd.kneighbors(["a"], None), TypeError, "index"),
        "kneighbors unfitted": (
            lambda: sd.kneighbors(["a"], EditDistanceNeighbors(1)),
            NotFittedError,
            "not fitted",
        ),
        "kneighbors n_neighbors 3": (
            lambda: sd.kneighbors(["a"], NN, 3),
            ValueError,
            "n_neighbors must be <= 2",
        ),
        "kneighbors None query": (lambda: sd.kneighbors([None], NN), TypeError, r"queries\[0\]"),
        "correct corrector None": (lambda: sd.correct(["a"], None), TypeError, "corrector"),
        "correct unfitted": (lambda: sd.correct(["a"], OCRCorrector()), NotFittedError, "fitted"),
        "correct int token": (lambda: sd.correct([3], FIXER), TypeError, r"texts\[0\] is int"),
        "fit_counts None": (lambda: sd.fit_counts(None), TypeError, "pairs"),
        "fit_counts empty": (lambda: sd.fit_counts([]), ValueError, "pairs is empty"),
        "fit_counts a string": (lambda: sd.fit_counts("ab"), TypeError, "pairs"),
        "fit_counts aligner 5": (
            lambda: sd.fit_counts([("a", "b")], aligner=5),
            TypeError,
            "aligner",
        ),
        # Rules and transpositions would be dropped or miscounted: refused, as in fit.
        "fit_counts aligner with a rule": (
            lambda: sd.fit_counts([("rn", "m")], aligner=GENERAL_WL),
            ValueError,
            "aligner must have single-character costs only",
        ),
        "fit_counts block_size 0": (
            lambda: sd.fit_counts([("a", "b")], block_size=0),
            ValueError,
            "block_size",
        ),
    }
    if sd is not None
    else {"the dask extra": (None, None, None)}  # absent: one row, skipped (or failed)
)


@pytest.mark.parametrize(("call", "error", "match"), DASK_CASES.values(), ids=DASK_CASES)
def test_bad_input_to_the_dask_functions(call, error, match):
    if sd is None:
        skip_or_fail("dask is not installed: pip install '.[test]'")
    with pytest.raises(error, match=match):
        call()


def test_combining_marks_stay_with_their_letter_in_correct():
    from skocrcost._noisy_channel import split_token

    # A combining mark is \W to a regex; it used to be split off as trailing punctuation,
    # so "e\u0301" was corrected as "e" and came out as "the\u0301" ("thé").
    assert split_token("(cafe\u0301).") == ("(", "cafe\u0301", ").")
    assert split_token("\u0301") == ("\u0301", "", "")
    # Both tokens are lexicon words, kept whole: split off as punctuation, the mark
    # would leave "e" (no lexicon word) to be corrected, and come back on another word.
    fixer = OCRCorrector(lexicon=["the", "cow", "cafe\u0301", "e\u0301"]).fit(*TOKENS)
    assert fixer.correct("cafe\u0301, e\u0301") == "cafe\u0301, e\u0301"
    assert fixer.correct("(e\u0301).") == "(e\u0301)."


def test_check_strings_copies_unless_told_not_to():
    from skocrcost._validation import check_strings

    words = ["ab", "c", ""]
    assert check_strings(words, allow_empty=True) == words
    assert check_strings(words) is not words  # a fitted attribute must not follow the caller's list
    assert check_strings(words, copy=False) is words  # pairwise only reads it during the call
    assert check_strings(("ab", "c"), copy=False) == ["ab", "c"]
    with pytest.raises(TypeError, match=r"Y must contain only strings; Y\[1\] is int"):
        check_strings(["a", 1], "Y", copy=False)

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

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from skocrcost import (
    CostTables,
    EditCostEstimator,
    EditCounts,
    EditDistanceNeighbors,
    OCRCorrector,
    WeightedLevenshtein,
    _dp_py,
)

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
    "index search beyond the memory limit": (
        lambda: EditDistanceNeighbors(1).fit(["x" * 40_000]).kneighbors(["y" * 40_000]),
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
    "bad", [{"n_neighbors": True}, {"n_jobs": 0}, {"metric": EditCostEstimator()}], ids=str
)
def test_a_failed_neighbours_refit_keeps_the_index(bad):
    nn = EditDistanceNeighbors(1).fit(["the", "cow"])
    before = _fitted_state(nn)
    nn.set_params(**bad)
    with pytest.raises((TypeError, ValueError, NotFittedError)):
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
    "keep_known a string": ({"keep_known": "yes"}, ValueError, "'keep_known'"),
    "unknown language model": ({"language_model": "katz"}, ValueError, "'language_model'"),
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

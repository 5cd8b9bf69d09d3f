"""What the bad-input tables share (tests/*/test_*_bad_inputs.py, one file per owner).

Every public entry point is held to this: a bad input is answered by TypeError or
ValueError (NotFittedError before fit) whose message names the argument and what was
expected; never a crash, a hang, a silently wrong number, or an object left half-fitted.
Each owner's table sits beside that owner's other tests, each row (what is called, the
exception, a regex the message must match).  Here: the small objects several tables
call, and the valid edge cases every string entry point must handle.
"""

import math

from skocrcost import EditDistanceNeighbors, OCRCorrector, WeightedEditDistance, WeightedLevenshtein

WL = WeightedLevenshtein({("a", "b"): 0.5})
PAIRS = (["a", "a"], ["b", "a"])
UNIT = WeightedLevenshtein()
NN = EditDistanceNeighbors(1).fit(["the", "cow"])
TOKENS = (["tbe", "the", "cow", "c0w"], ["the", "the", "cow", "cow"])
FIXER = OCRCorrector(lexicon=["the", "cow"]).fit(*TOKENS)
GENERAL_WL = WeightedLevenshtein({("rn", "m"): 0.1}, transposition_costs={("a", "b"): 0.5})
GENERAL_WED = WeightedEditDistance(
    substitute_weights={("rn", "m"): -0.1}, default_transpose_weight=-1.0
)
BAD_STRINGS = {"None": None, "bytes": b"ab", "int": 3}
NOT_STRINGS = {"None": None, "int": 3, "NaN": math.nan, "bytes": b"ab", "list": ["a"]}
# Valid edge cases: (OCR string, truth string, unit-cost distance).
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


def fitted_state(est):
    """The fitted attributes: a refused refit must leave these very objects in place."""
    return {k: v for k, v in vars(est).items() if k.endswith("_")}

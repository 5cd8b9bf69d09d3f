"""Cost model files against bad content and bad paths.

Never a model loaded from a broken file.  Each row: what is called, the exception, a
regex its message must match (the rules of every table: tests/bad_inputs.py).
"""

import json

import pytest
from bad_inputs import WL
from sklearn.exceptions import NotFittedError

from skocrcost import EditCostEstimator, WeightedLevenshtein


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

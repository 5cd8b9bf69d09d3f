"""The measures of benchmarks/cross_collection.py, which the docs' tables come from: each
OCR token judged against the truth it is aligned with, split and merged words included."""

import argparse
import importlib.util
import sys
from pathlib import Path

import pytest

from skocrcost.correction._confidence import Change

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def measures():
    sys.path.insert(0, str(BENCHMARKS))  # (its own imports: _pairs)
    try:
        spec = importlib.util.spec_from_file_location(
            "cross_collection", BENCHMARKS / "cross_collection.py"
        )
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCHMARKS))
    return module


OCR = "Tbe cat retu rned home"
TRUTH = "The cat returned home"  # "retu rned" is one column of the alignment


def change(start, stop, corrected):
    original = " ".join(OCR.split()[start:stop])
    return Change(0, start, stop, original, corrected, 0.5, True)


def test_a_change_is_judged_against_the_truth_of_its_tokens(measures):
    span = measures._judged_span
    assert span(change(0, 1, "The"), OCR, TRUTH) == (["Tbe"], ["The"], ["The"])
    # after the split word: the token's own truth, not the column its index would name
    assert span(change(4, 5, "house"), OCR, TRUTH) == (["home"], ["house"], ["home"])
    # one half of a split word: judged with the whole word
    assert span(change(3, 4, "turned"), OCR, TRUTH) == (
        ["retu", "rned"],
        ["retu", "turned"],
        ["returned"],
    )
    assert span(change(2, 4, "returned"), OCR, TRUTH) == (
        ["retu", "rned"],
        ["returned"],
        ["returned"],
    )


def test_right_tokens_changed_counts_tokens_not_columns(measures):
    changed = measures.right_tokens_changed
    # right: "cat" and "home"; the split word's column is no right token
    assert changed([OCR], ["The cat returned home"], [TRUTH]) == 0.0
    assert changed([OCR], ["Tbe cat returned house"], [TRUTH]) == 0.5
    assert changed([OCR], ["Tbe cut retu rned house"], [TRUTH]) == 1.0
    assert changed([OCR], [OCR], [TRUTH]) == 0.0


def test_the_ceiling_gives_each_misread_lexicon_word_its_truth(measures):
    words = {"the", "cat", "returned", "home"}
    assert measures.ceiling(["Tbe cat hame, xyz"], ["The cat home, Smith"], words) == [
        "The cat home, xyz"  # (a word outside the lexicon stays)
    ]
    assert measures.lines_made_worse(["Tbe cat"], ["Tbe cot"], ["The cat"]) == 1.0
    assert measures.lines_made_worse(["Tbe cat"], ["The cat"], ["The cat"]) == 0.0


def test_error_rates_are_over_the_truth(measures):
    # A truth of three words; the OCR has two errors in four words, the correction one.
    q = measures.quality(["a x c d"], ["a b c d"], ["a b c"])
    assert q["wer_before"] == pytest.approx(2 / 3)  # not 2 / 4: over the truth's words
    assert q["wer_after"] == pytest.approx(1 / 3)
    assert q["cer_before"] == pytest.approx(3 / 5)  # "x" for "b", " d" extra
    assert q["lines_worse"] == 0.0


def test_per_line_runs_a_call_per_line_and_judges_no_changes(measures):
    from skocrcost.correction import word_error_rate
    from skocrcost.datasets import pretrained_corrector

    fixer = pretrained_corrector()
    lines, truth = (
        ["tbe Church of Englaud", "witb tbe cat"],
        ["the Church of England", "with the cat"],
    )
    alone = [fixer.correct(line) for line in lines]
    result = measures.evaluate(fixer, lines, truth, fixer.correct)
    assert result["wer_after"] == pytest.approx(word_error_rate(truth, alone))
    assert result["wer_after"] < result["wer_before"]
    # the lines are what the given function made of them, not what predict makes
    unchanged = measures.evaluate(fixer, lines, truth, lambda line: line)
    assert unchanged["wer_after"] == unchanged["wer_before"]
    per_line = measures._line_by_line(argparse.Namespace(per_line=True), fixer)
    assert per_line == fixer.correct
    assert measures._line_by_line(argparse.Namespace(per_line=False), fixer) is None
    # --changes judges the changes of one call over all the lines: refused beside it
    with pytest.raises(SystemExit):
        measures.main(["--per-line", "--changes"])


def test_applying_makes_the_chosen_changes_only(measures):
    changes = [change(0, 1, "The"), change(2, 4, "returned"), change(4, 5, "house")]
    apply = measures.applying
    assert apply([OCR], changes, [True, True, False]) == ["The cat returned home"]
    assert apply([OCR], changes, [False, True, True]) == ["Tbe cat returned house"]
    assert apply([OCR], changes, [False] * 3) == [OCR]
    assert apply(["a  b"], [], []) == ["a b"]  # (single-spaced)


def test_the_best_review_makes_the_helpful_changes_and_no_other(measures):
    from skocrcost.datasets import pretrained_corrector

    fixer = pretrained_corrector().set_params(min_confidence=1.0)  # applies nothing
    lines = ["tbe Church of Englaud", "witb tbe cat"]
    truth = ["the Church of England", "with the cat"]
    hyp = list(fixer.predict(lines))
    assert hyp == lines
    result = measures.proposed_changes(fixer, lines, truth, hyp)
    assert result["helpful_applied"] == 0 < result["helpful"]
    best = result["best_review"]
    assert best["wer_before"] == pytest.approx(measures.quality(lines, hyp, truth)["wer_before"])
    assert best["wer_after"] < best["wer_before"]
    assert best["lines_worse"] == 0.0

"""OCRCorrector.fit_confidence: the confidence of changes learned anew from line pairs
of the collection to correct, on real newspaper OCR that the shipped corrector never saw."""

import pytest
from conftest import read_pairs, shared_path
from sklearn.exceptions import NotFittedError

from skocrcost import OCRCorrector, OCRCorrectorCV, word_error_rate
from skocrcost.datasets import load_icdar2017_sample, pretrained_corrector


@pytest.fixture(scope="module")
def newspapers():
    """BLN600 lines: 600 to learn from, and 300 held out from other articles."""
    X, y = read_pairs(shared_path("bln600", "train.lines.tsv"))
    return X[:600], y[:600], X[3000:3300], y[3000:3300]


def test_the_confidence_learned_on_the_collection_lets_more_helpful_changes_through(
    newspapers,
):
    X, y, X_test, y_test = newspapers
    shipped = pretrained_corrector()
    before = shipped.predict(X_test).tolist()
    fixer = pretrained_corrector()
    parts = {k: v for k, v in vars(fixer).items() if k.endswith("_") and k != "confidence_"}
    old = fixer.confidence_
    assert fixer.fit_confidence(X, y) is fixer
    # A new confidence, learned from this corrector's changes to X (880 of them, fewer
    # than the shipped confidence learned from); all else kept.
    assert fixer.confidence_ is not old
    assert 20 <= fixer.confidence_.n_changes_ < old.n_changes_
    assert all(getattr(fixer, k) is v for k, v in parts.items())
    assert fixer.min_confidence == shipped.min_confidence
    after = fixer.predict(X_test).tolist()
    # On held-out lines of the same collection it corrects more than the shipped
    # confidence lets it (which learned from other print), for a lower word error rate.
    raw = word_error_rate(y_test, X_test)
    assert word_error_rate(y_test, after) < word_error_rate(y_test, before) < raw
    changed = sum(a != o for a, o in zip(after, X_test))
    assert changed > sum(b != o for b, o in zip(before, X_test))


def test_too_few_changes_to_learn_from_are_refused_and_the_confidence_kept():
    fixer = pretrained_corrector()
    old = fixer.confidence_
    ocr, truth = load_icdar2017_sample("lines")
    with pytest.raises(ValueError, match="fewer than the 20 needed"):
        fixer.fit_confidence(truth[:20], truth[:20])  # right lines: next to no change
    assert fixer.confidence_ is old


@pytest.mark.parametrize(
    ("X", "y", "error", "match"),
    [
        (["tbe cat"], ["the cat", "a"], ValueError, "same length"),
        ([None], ["the"], TypeError, r"X\[0\]"),
        (["tbe"], [3], TypeError, r"y\[0\]"),
        ([], [], ValueError, "X is empty"),
    ],
)
def test_bad_pairs_are_refused_by_name(X, y, error, match):
    fixer = pretrained_corrector()
    old = fixer.confidence_
    with pytest.raises(error, match=match):
        fixer.fit_confidence(X, y)
    assert fixer.confidence_ is old


def test_an_unfitted_corrector_has_no_confidence_to_learn_anew():
    with pytest.raises(NotFittedError):
        OCRCorrector().fit_confidence(["tbe"], ["the"])
    with pytest.raises(NotFittedError):
        OCRCorrectorCV().fit_confidence(["tbe"], ["the"])


def test_the_searched_corrector_learns_its_best_estimators_confidence(tmp_path):
    ocr, truth = load_icdar2017_sample("lines")
    search = OCRCorrectorCV(param_grid={"decoder__lm_weight": [1.0]}, cv=2, max_lines=50)
    search.fit(ocr[:400], truth[:400])
    old = search.best_estimator_.confidence_
    assert search.fit_confidence(ocr[1000:1600], truth[1000:1600]) is search
    assert search.best_estimator_.confidence_ is not old
    # Saved and loaded, the corrector keeps the confidence it learned last.
    path = tmp_path / "fixer.json.gz"
    search.best_estimator_.save(path)
    lines = ocr[1600:1700]
    assert OCRCorrector.load(path).predict(lines).tolist() == search.predict(lines).tolist()


def test_the_command_learns_the_confidence_from_confidence_pairs(newspapers, tmp_path, capsys):
    from skocrcost import cli

    X, y, X_test, _ = newspapers
    pairs = tmp_path / "mine.tsv"
    pairs.write_text("".join(f"{a}\t{b}\n" for a, b in zip(X, y)), encoding="utf-8")
    page = tmp_path / "page.txt"
    lines = X_test[:150]
    page.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert cli.main(["correct", str(page), "--confidence-pairs", str(pairs)]) == 0
    captured = capsys.readouterr()
    adapted = pretrained_corrector().fit_confidence(X, y)
    assert captured.out == "\n".join(adapted.predict([*lines, ""]))
    assert captured.out != "\n".join(pretrained_corrector().predict([*lines, ""]))
    n = adapted.confidence_.n_changes_
    assert f"from the corrector's {n} changes to {pairs}" in captured.err
    # Too few changes to learn from: one clear line, nothing written.
    few = tmp_path / "few.tsv"
    few.write_text("the cat\tthe cat\n", encoding="utf-8")
    assert cli.main(["correct", str(page), "--confidence-pairs", str(few)]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "fewer than the 20 needed" in captured.err

"""A lone digit is read as a word (``1`` for ``I``), and a word put in place of an OCR
word is written as the training truth writes it inside a sentence (``I``, ``London``)."""

import json
import pickle

import pytest

from skocrcost import EditCostEstimator, OCRCorrector
from skocrcost.correction._tokens import letter_digits, written_forms


@pytest.fixture(scope="module")
def fitted(icdar_lines):
    X, y = icdar_lines
    return OCRCorrector().fit(X[:1500], y[:1500])


def test_the_digits_read_as_words_are_those_the_pairs_mostly_have_as_words():
    def pairs(*columns):
        return [[o for o, _ in columns]], [[t for _, t in columns]]

    # 1 is I five times and 1 once; 0 is O five times and 0 five times; 6 is "a" once.
    ocr, truth = pairs(*[("1", "I")] * 5, ("1", "1"), *[("0,", "O,"), ("0", "0")] * 5)
    ocr[0] += ["6", "(1)"]
    truth[0] += ["a", "(I)"]
    assert letter_digits(ocr, truth) == "1"
    assert letter_digits(*pairs(*[("1", "I")] * 4)) == ""  # too few
    # Only lone digits count: numbers, and digits in words, are not words misread.
    assert letter_digits(*pairs(*[("12", "I")] * 9, *[("t1me", "time")] * 9)) == ""
    # A gap in the truth (the OCR's digit is noise) is neither.
    assert letter_digits(*pairs(*[("1", "")] * 9, *[("1", "I")] * 5)) == "1"


def test_written_forms_are_the_capitals_the_truth_keeps_inside_sentences():
    lines = [["and", "I", "said", "to", "London."]] * 5
    assert written_forms(lines) == {"i": "I", "london": "London"}
    # At a line's or a sentence's start a capital says nothing of the word.
    assert written_forms([["I", "went."], ["London", "said."]] * 9) == {}
    assert written_forms([["so.", "London", "fell"]] * 9) == {}
    # Too few, a mixed use, all capitals or inner capitals: no form.
    assert written_forms([["and", "I"]] * 4) == {}
    assert written_forms([["and", "I"]] * 9 + [["and", "i"]] * 2) == {}
    assert written_forms([["the", "ROYAL", "McGregor"]] * 9) == {}
    assert written_forms([["and", "I"]] * 9 + [["and", "i"]]) == {"i": "I"}  # 90 %
    # Words inside a token count: a possessive's word, both halves of a compound.
    assert written_forms([["at", "London's", "New-York"]] * 5) == {
        "london": "London",
        "new": "New",
        "york": "York",
    }


def test_the_corrector_reads_1_as_I_in_context_and_keeps_numbers(fitted):
    # The embedded monographs' OCR has "1" for the pronoun 188 times, for 1 once.
    assert fitted.written_forms_["i"] == "I" and fitted.letter_digits_ == "1"
    line = "but 1 will not , and 1 know it"
    out, changes = fitted.correct(line, return_confidence=True)
    proposed = [(c.original, c.corrected) for c in changes]
    assert proposed == [("1", "I"), ("1", "I")]
    assert out == ("but I will not , and I know it" if changes[0].applied else line)
    # A number among numbers stays, and other digits are never read as words.
    for numbers in ("in 1 s. 6 d.", "1 2 3 4", "Chap. 1", "a 6 d", "the 0 and"):
        assert fitted.correct(numbers) == numbers
    before = pickle.loads(pickle.dumps(fitted))
    before.letter_digits_ = ""  # as a corrector fitted on pairs without them
    assert before.correct(line) == line


def test_a_corrected_word_takes_its_written_form_unless_the_ocr_shows_the_case():
    ocr = ["tbe", "the", "Lond0n", "london", "to", "I", "tbe"] * 4
    truth = ["the", "the", "London", "London", "to", "I", "the"] * 4
    fixer = OCRCorrector(
        EditCostEstimator(k=0.5), lexicon=["the", "london", "to", "i"], min_confidence=None
    ).fit([" ".join(ocr)] * 3, [" ".join(truth)] * 3)
    assert fixer.written_forms_ == {"london": "London", "i": "I"}
    assert fixer.correct("to londou tbe") == "to London the"
    assert fixer.correct("to LONDOU") == "to LONDON"  # all capitals: kept so
    assert fixer.correct("to london") == "to london"  # unchanged words are not recased


def test_both_are_saved_and_older_files_and_pickles_have_none(fitted, tmp_path):
    path = tmp_path / "c.json"
    fitted.save(path)
    back = OCRCorrector.load(path)
    assert back.written_forms_ == fitted.written_forms_
    assert back.letter_digits_ == fitted.letter_digits_ == "1"
    line = "but 1 will not"
    assert back.correct(line) == fitted.correct(line)
    data = json.loads(path.read_text())
    del data["written_forms"], data["letter_digits"]
    path.write_text(json.dumps(data))
    old = OCRCorrector.load(path)
    assert old.written_forms_ == {} and old.letter_digits_ == ""
    assert old.correct(line) == line
    bad_parts = (("written_forms", {"i": 1}), ("written_forms", ["I"]), ("letter_digits", "1a"))
    for name, bad in bad_parts:
        broken = dict(data, **{name: bad})
        path.write_text(json.dumps(broken))
        with pytest.raises(ValueError, match=name):
            OCRCorrector.load(path)
    state = pickle.loads(pickle.dumps(fitted)).__getstate__()
    del state["written_forms_"], state["letter_digits_"]
    old = OCRCorrector.__new__(OCRCorrector)
    old.__setstate__(state)
    assert old.written_forms_ == {} and old.letter_digits_ == ""
    assert old.correct(line) == line

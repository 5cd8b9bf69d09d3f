"""Early modern spellings: read by the language model as the modern word, written as printed."""

import os
import tempfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skocrcost import EditCostEstimator, EditDistanceNeighbors, OCRCorrector
from skocrcost.correction._decoder import NoisyChannelDecoder
from skocrcost.correction._variants import (
    keeps_old_spellings,
    modern_spellings,
    modernisations,
    modernised,
)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("haue", "have"),  # u for v
        ("vpon", "upon"),  # v for u
        ("iudge", "judge"),  # i for j
        ("iniuries", "injuries"),
        ("conueyed", "conveyed"),
        ("backe", "back"),  # a final e
        ("shee", "she"),
        ("citie", "city"),  # -ie for -y
        ("musick", "music"),  # -ck for -c
        ("\u017faid", "said"),  # long s
        ("Haue", "have"),  # whatever the case
        ("haue", "Have"),
        ("have", "haue"),  # u and v stand for each other both ways
    ],
)
def test_old_spellings_are_modernised(old, new):
    assert modernised(old, new)
    assert new.lower() in modern_spellings(old)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Thjs", "This"),  # j for i is an OCR error, not a spelling
        ("Jt", "It"),
        ("tbe", "the"),  # OCR errors
        ("aud", "and"),
        ("thy", "the"),
        ("owne", "one"),
        ("de", "d"),  # an ending leaves at least two letters
        ("have", "Have"),  # case alone
        ("have", "have"),
        ("colour", "color"),
    ],
)
def test_other_changes_are_not_modernisations(old, new):
    assert not modernised(old, new)


def test_modern_spellings_leave_the_word_out_and_bound_long_words():
    assert "haue" not in modern_spellings("haue")
    assert modern_spellings("haue") >= {"have", "hav", "hau"}
    # A word with many letters read both ways is taken as it is (no 2^n blow-up).
    many = "iuiuiuiuiuiuiuiu"
    assert len(modern_spellings(many)) <= 4


old_letters = st.text(alphabet="iIjuUvVsS\u017febcky", max_size=12)


@settings(max_examples=500, deadline=None)
@given(old_letters, old_letters)
def test_modernised_is_membership_of_the_modern_spellings(old, new):
    """The letter-by-letter test gives what listing every modern spelling gives."""
    assert modernised(old, new) == (new.lower() in modern_spellings(old))
    words = [new, *modern_spellings(old), old]
    assert modernisations(old, words) == [w.lower() in modern_spellings(old) for w in words]
    for modern in list(modern_spellings(old))[:20]:
        assert modernised(old, modern)
        if modern.upper().lower() == modern:  # (not so for a long s: "ſ" -> "S" -> "s")
            assert modernised(old, modern.upper())


def test_the_truth_tells_whether_old_spellings_are_kept():
    lexicon = ["have", "upon", "the", "back"]
    # A diplomatic transcription: the truth keeps "haue" and "vpon".
    ocr = ["haue", "vpon", "tbe", "haue", "backe"]
    assert keeps_old_spellings(ocr, ["haue", "vpon", "the", "haue", "backe"], lexicon)
    # A normalised one: the truth modernises them.
    assert not keeps_old_spellings(ocr, ["have", "upon", "the", "have", "back"], lexicon)
    # No evidence either way: old spellings are kept.
    assert keeps_old_spellings(["tbe"], ["the"], lexicon)


def _decoder(keep):
    neighbors = EditDistanceNeighbors().fit(["i", "have", "hare", "the", "cow"])
    return NoisyChannelDecoder(neighbors, 1.0, n_candidates=2, reject_cost=5.0, keep_spelling=keep)


def test_the_decoder_reads_an_old_spelling_as_the_modern_word_and_writes_it_as_printed():
    kept, modern = _decoder(True), _decoder(False)
    assert modern.correct_lines(["I haue the cow"]) == ["I have the cow"]
    assert kept.correct_lines(["I haue the cow", "Haue tbe"]) == ["I haue the cow", "Haue the"]
    readings = kept._choose("haue")
    # The reading of "have" stays: the language model sees "have", the line keeps "haue".
    k = readings.lower.index("have")
    assert readings.words[k] == "haue"
    assert modern._choose("haue").words[k] == "have"


def test_old_spellings_are_looked_for_only_among_the_readings_a_line_picks(monkeypatch):
    # A text's new words each get their readings; only a picked reading is written
    # out, so only the picked words' candidates are checked for old spellings.
    from skocrcost.correction import _decoder as decoder_module

    checked = []

    def counted(old, words):
        checked.append(old)
        return modernisations(old, words)

    monkeypatch.setattr(decoder_module, "modernisations", counted)
    words = ["i", "have", "hare", "the", "tho", "cow", "cod"]
    neighbors = EditDistanceNeighbors().fit(words)
    kept = NoisyChannelDecoder(neighbors, 1.0, n_candidates=2, reject_cost=5.0, keep_spelling=True)
    assert kept.correct_lines(["I haue tbe cow", "the cow"]) == ["I haue the cow", "the cow"]
    # Every word has candidates ("the": "tho", "cow": "cod"), and is read.
    assert all(len(kept._choose(w).meant) > 1 for w in ["haue", "tbe", "the", "cow"])
    # The two read otherwise: "haue" read as "have" (written as printed), "tbe" as "the".
    assert sorted(checked) == ["haue", "tbe"]


def _pairs(normalised):
    ocr = "I haue seene the cow vpon the hill and tbe man"
    truth = ocr.replace("tbe", "the")
    if normalised:
        truth = truth.replace("haue", "have").replace("vpon", "upon").replace("seene", "seen")
    return [ocr] * 30, [truth] * 30


@pytest.mark.parametrize("normalised", [False, True])
def test_the_corrector_keeps_or_modernises_as_its_truth_does(normalised):
    X, y = _pairs(normalised)
    lexicon = ["i", "have", "seen", "the", "cow", "upon", "hill", "and", "man"]
    fixer = OCRCorrector(EditCostEstimator(k=0.1), lexicon=lexicon, min_confidence=None)
    fixer.fit(X, y)
    assert fixer.keep_old_spellings_ is not normalised
    line = "I haue seene the hill and tbe cow"
    expected = "I haue seene the hill and the cow"
    if normalised:
        expected = "I have seen the hill and the cow"
    assert fixer.correct(line) == expected
    path = os.path.join(tempfile.mkdtemp(), "fixer.json.gz")
    fixer.save(path)
    again = OCRCorrector.load(path)
    assert again.keep_old_spellings_ is fixer.keep_old_spellings_
    assert again.correct(line) == expected

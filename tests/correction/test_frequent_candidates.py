"""fit finds the candidates of the training truth's most frequent words once: the
decoder then searches only the other words, and corrects exactly as without them."""

import gzip
import json
import pickle
from importlib import resources

import numpy as np
import pytest

from skocrcost import OCRCorrector, OCRCorrectorCV
from skocrcost.datasets import (
    PRETRAINED_CORRECTORS,
    pretrained_corrector,
)
from skocrcost.neighbors import EditDistanceNeighbors


@pytest.fixture(scope="module")
def fitted(icdar_lines):
    X, y = icdar_lines
    return OCRCorrector().fit(X[:1200], y[:1200])


@pytest.fixture
def searched(monkeypatch):
    """Every word the lexicon indexes were asked for."""
    asked = []
    nearest = EditDistanceNeighbors._nearest_within

    def spy(self, queries, *args):
        asked.extend(queries)
        return nearest(self, queries, *args)

    monkeypatch.setattr(EditDistanceNeighbors, "_nearest_within", spy)
    return asked


def cold(corrector):
    """A copy of ``corrector`` without its caches (they are not pickled)."""
    return pickle.loads(pickle.dumps(corrector))


def without_table(corrector):
    """A cold copy of ``corrector`` that never found its frequent words' candidates."""
    copy = cold(corrector)
    copy._word_candidates_ = None
    return copy


def same_table(a, b):
    assert list(a) == list(b)
    for word in a:
        assert a[word][0] == b[word][0]
        np.testing.assert_array_equal(a[word][1], b[word][1])


def test_fit_finds_the_candidates_a_first_search_finds(fitted):
    settings, table = fitted._word_candidates_
    words = [fitted.lexicon_[i] for i in fitted._frequent_words_]
    assert list(table) == words and 1000 < len(words) <= OCRCorrector.FREQUENT_WORDS
    # The most frequent first: every word in the table is at least as likely as any
    # training word left out of it.
    priors = fitted.log_prior_[fitted._frequent_words_]
    assert (np.diff(priors) <= 0).all()
    fresh = without_table(fitted)._decoder()
    fresh.candidates(words)
    same_table(table, {w: fresh._cache[w] for w in words})
    assert settings == OCRCorrector._search_settings(fresh)


def test_a_first_pass_searches_only_words_outside_the_table(fitted, icdar_lines, searched):
    X, _ = icdar_lines
    lines = X[1200:1500]
    want = without_table(fitted).predict(lines)
    n_without = len(searched)
    searched.clear()
    got = cold(fitted).predict(lines)
    assert list(got) == list(want)
    table = fitted._word_candidates_[1]
    assert searched and not set(searched) & set(table)
    assert len(searched) < 0.8 * n_without  # frequent words are most of a text's words


def test_per_line_corrections_and_their_confidences_are_unchanged(fitted, icdar_lines):
    X, _ = icdar_lines
    text = "\n".join(X[1500:1600])
    assert fitted.correct(text, return_confidence=True) == without_table(fitted).correct(
        text, return_confidence=True
    )
    copy, plain = cold(fitted), without_table(fitted)
    assert [copy.correct(x) for x in X[1600:1650]] == [plain.correct(x) for x in X[1600:1650]]


def test_other_search_settings_search_afresh(fitted, icdar_lines, searched):
    X, _ = icdar_lines
    lines = X[1200:1300]
    other = cold(fitted).set_params(decoder__n_candidates=7)
    want = without_table(fitted).set_params(decoder__n_candidates=7).predict(lines)
    assert list(other.predict(lines)) == list(want)
    assert set(searched) & set(fitted._word_candidates_[1])  # the table was not read


def test_the_table_outlives_a_cache_that_starts_afresh(fitted, searched):
    copy = cold(fitted)
    decoder = copy._decoder()
    table = copy._word_candidates_[1]
    assert decoder._known_candidates is table
    decoder.candidate_cache_size = len(table) + 5
    rare = ["qzxv", "wrrong", "tbeir", "Englaud", "hoase", "plcase"]
    decoder.candidates(rare)  # the cache overflows: it starts again from the table
    assert len(decoder._cache) == len(table) + len(rare)
    searched.clear()
    decoder.candidates(list(table)[:50])
    assert searched == []


def test_saved_files_keep_the_table_and_old_files_find_it_again(fitted, tmp_path):
    path = tmp_path / "c.json"
    fitted.save(path)
    back = OCRCorrector.load(path)
    assert back._word_candidates_[0] == fitted._word_candidates_[0]
    same_table(back._word_candidates_[1], fitted._word_candidates_[1])
    data = json.loads(path.read_text())
    del data["word_candidates"]  # a file written before fit searched them
    path.write_text(json.dumps(data))
    old = OCRCorrector.load(path)
    same_table(old._word_candidates_[1], fitted._word_candidates_[1])


def test_pickles_hold_the_table_in_a_few_arrays(fitted, icdar_lines):
    # Two arrays per word would be thousands of out-of-band buffers: Dask sends each
    # as a frame, which made sending a corrector to its workers take a second.
    X, _ = icdar_lines
    expected = fitted.predict(X[1200:1300]).tolist()
    buffers = []
    data = pickle.dumps(fitted, protocol=5, buffer_callback=buffers.append)
    assert len(buffers) < 200 < 2 * len(fitted._word_candidates_[1])
    # Pickling leaves the corrector as it was (its table and its caches).
    assert isinstance(fitted._word_candidates_[1], dict) and fitted._caches_
    back = pickle.loads(data, buffers=buffers)
    assert back._word_candidates_[0] == fitted._word_candidates_[0]
    same_table(back._word_candidates_[1], fitted._word_candidates_[1])
    assert back.predict(X[1200:1300]).tolist() == expected


def test_an_inconsistent_table_is_refused(fitted, tmp_path):
    path = tmp_path / "c.json"
    fitted.save(path)
    data = json.loads(path.read_text())
    counts = data["word_candidates"]["counts"]
    data["word_candidates"]["counts"] = data["word_candidates"]["words"]  # word indices
    assert counts != data["word_candidates"]["counts"]
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="c.json: inconsistent candidates"):
        OCRCorrector.load(path)


def test_only_the_returned_corrector_searches_its_frequent_words(icdar_lines, monkeypatch):
    """The correctors fitted inside a fit (to learn the confidence, or one per fold)
    correct a few lines each: searching all their frequent words would be waste."""
    calls = []
    search = OCRCorrector._search_frequent_words

    def spy(self):
        calls.append(self)
        return search(self)

    monkeypatch.setattr(OCRCorrector, "_search_frequent_words", spy)
    X, y = icdar_lines
    fixer = OCRCorrector().fit(X[:1200], y[:1200])
    assert fixer.confidence_ is not None and calls == [fixer]
    calls.clear()
    cv = OCRCorrectorCV(param_grid={"decoder__lm_weight": [0.5, 1.0]}, cv=2, max_lines=20)
    cv.fit(X[:200], y[:200])
    assert calls == [cv.best_estimator_]


def test_the_shipped_file_holds_what_the_search_finds_today():
    """A file keeps the candidates its fit found: the shipped one must be refitted
    (scripts/make_pretrained_corrector.py) when the search changes."""
    path = resources.files("skocrcost.datasets") / "data" / PRETRAINED_CORRECTORS["en-historical"]
    with resources.as_file(path) as p, gzip.open(p, "rt", encoding="utf-8") as f:
        assert json.load(f)["word_candidates"] is not None  # not searched at each load
    shipped = pretrained_corrector()
    settings, table = shipped._word_candidates_
    fresh = without_table(shipped)._decoder()
    assert settings == OCRCorrector._search_settings(fresh) and len(table) > 5000
    fresh.candidates(list(table))
    same_table(table, {w: fresh._cache[w] for w in table})

"""OCRCorrector on whole lines: error rates, token alignment, confidence, CV, linear fit."""

import copy
import pickle

import numpy as np
import pytest
from conftest import read_pairs, shared_path
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.model_selection import cross_val_score

from skocrcost import OCRCorrector, OCRCorrectorCV, character_error_rate, word_error_rate
from skocrcost.correction import (
    Decoder,
    _rules,
    align_tokens,
    character_error_rate_scorer,
    word_error_rate_scorer,
)
from skocrcost.correction._confidence import change_spans
from skocrcost.correction._cv import _fits_for
from skocrcost.correction._rules import SurfaceRules
from skocrcost.datasets import load_icdar2017_sample


def _levenshtein(a, b):
    """Unit edit distance between two sequences, by the textbook DP."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


LINE = st.lists(st.sampled_from(["the", "tbe", "cat", "c,at", "a", "-"]), max_size=6).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(LINE, LINE), min_size=1, max_size=5))
def test_error_rates_are_the_textbook_edit_distances(pairs):
    ref, hyp = [r for r, _ in pairs], [h for _, h in pairs]
    words = sum(_levenshtein(h.split(), r.split()) for h, r in pairs)
    chars = sum(_levenshtein(h, r) for h, r in pairs)
    n_words, n_chars = sum(len(r.split()) for r in ref), sum(len(r) for r in ref)
    assert word_error_rate(ref, hyp) == pytest.approx(
        words / n_words if n_words else float(words > 0)
    )
    assert character_error_rate(ref, hyp) == pytest.approx(
        chars / n_chars if n_chars else float(chars > 0)
    )


def test_error_rates_take_one_line_and_name_bad_input():
    assert word_error_rate("the cat sat", "tbe cat sat") == pytest.approx(1 / 3)
    assert character_error_rate("the", "tbe") == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match="same length"):
        word_error_rate(["a", "b"], ["a"])
    with pytest.raises(TypeError, match="hypothesis"):
        word_error_rate(["a"], [3])


@settings(max_examples=60, deadline=None)
@given(LINE, LINE)
def test_align_tokens_keeps_every_token_in_order(ocr, truth):
    columns = align_tokens(ocr, truth)
    assert " ".join(o for o, _ in columns if o is not None).split() == ocr.split()
    assert " ".join(t for _, t in columns if t is not None).split() == truth.split()


def test_align_tokens_groups_split_and_merged_words():
    assert align_tokens("Tbe cat retu rned", "The cat returned") == [
        ("Tbe", "The"),
        ("cat", "cat"),
        ("retu rned", "returned"),
    ]
    assert align_tokens("ofthe book", "of the book") == [("ofthe", "of the"), ("book", "book")]
    # A word missing from the OCR is a gap, not part of its neighbour.
    assert align_tokens("the fox", "the quick fox") == [
        ("the", "the"),
        (None, "quick"),
        ("fox", "fox"),
    ]
    with pytest.raises(TypeError, match="truth_line"):
        align_tokens("a", None)


@pytest.fixture(scope="module")
def sample():
    X, y = load_icdar2017_sample("lines")
    return X[:1200], y[:1200], X[1200:1500], y[1200:1500]


@pytest.fixture(scope="module")
def fitted(sample):
    # Every sample line but the held-out block (1200:1500): the confidence learned from
    # the 80-odd changes of 1,200 lines lets next to nothing through.
    X, y = load_icdar2017_sample("lines")
    return OCRCorrector().fit(X[:1200] + X[1500:], y[:1200] + y[1500:])  # the defaults


def test_the_one_call_path_corrects_lines(fitted, sample):
    _, _, X_test, y_test = sample
    hyp = fitted.predict(X_test)
    assert hyp.shape == (len(X_test),) and all(isinstance(h, str) for h in hyp)
    # score is 1 - WER, checked against the textbook distance, not through predict's path.
    errors = sum(_levenshtein(h.split(), t.split()) for h, t in zip(hyp, y_test))
    assert fitted.score(X_test, y_test) == pytest.approx(
        1 - errors / sum(len(t.split()) for t in y_test)
    )
    raw = word_error_rate(y_test, X_test)
    assert word_error_rate(y_test, list(hyp)) < raw  # it corrects, on held-out lines
    # correct() of the same lines as one text is predict() of them (the text is the
    # batch whose recurrences and noise the decoder and the confidence read).
    assert fitted.correct("\n".join(X_test)).split("\n") == list(hyp)
    # The scorers are the negated rates, for GridSearchCV and cross_val_score.
    assert word_error_rate_scorer(fitted, X_test, y_test) == pytest.approx(
        -word_error_rate(y_test, list(hyp))
    )
    assert character_error_rate_scorer(fitted, X_test, y_test) == pytest.approx(
        -character_error_rate(y_test, list(hyp))
    )
    assert fitted.lexicon_[0] == "the"  # the truth's most frequent word first
    assert "government" in set(fitted.lexicon_)  # and the shipped English words


def test_the_confidence_threshold_moves_the_changes_made(fitted, sample):
    _, _, X_test, _ = sample
    text = "\n".join(X_test[:150])
    fixer = clone(fitted)
    fixer.__dict__.update(fitted.__dict__)  # the same fitted state, its own parameters
    out, changes = fixer.correct(text, return_confidence=True)
    assert fitted.confidence_ is not None and changes
    assert all(0.0 <= c.confidence <= 1.0 for c in changes)
    assert [c.applied for c in changes] == [c.confidence >= fitted.min_confidence for c in changes]
    # The changes listed are the output's: each applied one is in its line.
    lines = out.split("\n")
    for c in changes:
        assert (c.corrected in lines[c.line]) or not c.applied
    made = {}
    for threshold in (0.0, 0.5, 0.9, 1.0):
        fixer.set_params(min_confidence=threshold)
        _, listed = fixer.correct(text, return_confidence=True)
        made[threshold] = {(c.line, c.start) for c in listed if c.applied}
    assert made[1.0] <= made[0.9] <= made[0.5] <= made[0.0]
    assert len(made[0.9]) < len(made[0.0])  # the threshold takes some back
    # 0 makes every change: the output of the decoder without a review.
    fixer.set_params(min_confidence=0.0)
    everything = fixer.correct(text)
    assert fixer.set_params(min_confidence=None).correct(text) == everything
    # 1 makes none (no probability reaches it) where the learned ones are below 1.
    fixer.set_params(min_confidence=1.0)
    kept = fixer.correct(text).split("\n")
    assert all(c.confidence < 1.0 for c in changes)
    assert kept == text.split("\n")


def test_change_spans_take_the_tokens_a_change_emptied():
    tokens = ["retu", "rned", "the", "cat", "•"]
    assert change_spans(tokens, ["returned", "", "the", "cat", "•"]) == [(0, 2)]
    assert change_spans(tokens, ["retu", "rned", "tbe", "cat", ""]) == [(2, 3), (4, 5)]
    assert change_spans(tokens, list(tokens)) == []


def test_possessives_and_numbers_are_not_misread_as_other_words():
    X = ["the prisoner was here", "tbe prisoner was there", "the wife was here"] * 10
    y = ["the prisoner was here", "the prisoner was there", "the wife was here"] * 10
    fixer = OCRCorrector(lexicon=["the", "prisoner", "prisoners", "was", "here", "there", "wife"])
    fixer.fit(X, y)
    # The possessive's 's is no part of the word: "prisoner" is kept, and so is the 's.
    assert fixer.correct("tbe prisoner's wife") == "the prisoner's wife"
    assert fixer.correct("tbe wife's prisoner") == "the wife's prisoner"
    # A word with two digits or more (a price, a date, an ordinal) is left alone.
    assert fixer.correct("tbe 1,000,OOOf 57th") == "the 1,000,OOOf 57th"


def test_flat_token_pairs_are_lines_of_one_word_and_fit_in_linear_work(monkeypatch):
    """100,000 token pairs fit as one-word lines: no pass over them is quadratic.

    The spacing rules' word-level distances are counted in DP cells: on n and 4n
    pairs the work must grow at most linearly (a pass over the whole input per
    token, as a flat list read as one running text once made it, fails both)."""
    X, y = load_icdar2017_sample("tokens")
    X, y = (X * 4)[:100_000], (y * 4)[:100_000]
    cells = []

    class Counting:
        def distance(self, a, b):
            cells[-1] += (len(a) + 1) * (len(b) + 1)
            return _rules.WeightedLevenshtein().distance(a, b)

    monkeypatch.setattr(_rules, "_UNIT", Counting())
    fixer = OCRCorrector(language_model=None, min_confidence=None)
    for n in (25_000, 100_000):
        cells.append(0)
        fixer.fit(X[:n], y[:n])
    assert cells[0] > 0
    assert cells[1] <= 5 * cells[0]
    assert cells[1] <= 200 * 100_000  # a bound a quadratic pass (10^10 cells) breaks
    assert fixer.predict(["tbe"]).tolist() == ["the"]


def test_a_long_line_costs_the_spacing_rules_linear_work(monkeypatch):
    cells = []

    class Counting:
        def distance(self, a, b):
            cells[-1] += (len(a) + 1) * (len(b) + 1)
            return 0

    monkeypatch.setattr(_rules, "_UNIT", Counting())
    for n in (200, 800):
        cells.append(0)
        line = ["word", "-", "other"] * n
        SurfaceRules([line], [line])
    assert 0 < cells[1] <= 5 * cells[0]


def test_pickles_without_their_caches_and_predict_the_same(fitted, sample):
    _, _, X_test, _ = sample
    want = fitted.predict(X_test[:40]).tolist()
    assert fitted._caches_  # filled by the predictions above
    back = pickle.loads(pickle.dumps(fitted))
    # Nothing the predictions filled: only the lexicon's set, the one its confidence's
    # features were pickled with (shared again, not built anew).
    assert getattr(back, "_caches_", {}) == {"words": back.confidence_.features.words}
    assert back._caches_["words"] is back.confidence_.features.words
    assert back.predict(X_test[:40]).tolist() == want


def test_the_cv_corrector_scores_joins_with_a_fold_fitted_with_them():
    # (a confidence learned without joins judges them poorly: the score would mislead)
    X, y = read_pairs(shared_path("bln600", "train.lines.tsv"), limit=600)
    grid = {"decoder__join_cost": [None, 3.0], "decoder__lm_weight": [1.0, 2.0]}
    search = OCRCorrectorCV(param_grid=grid, cv=2, max_lines=100).fit(X, y)
    held = list(range(0, 50)) + list(range(150, 200))  # whole blocks, one in three
    X_held, y_held = [X[i] for i in held], [y[i] for i in held]
    results = search.cv_results_
    for s in (0, 2):  # lm_weight=1 without and with joins
        setting = results["params"][s]
        join_cost = setting["decoder__join_cost"]
        fold = OCRCorrector(decoder=Decoder(join_cost=join_cost)).fit(X[300:], y[300:])
        assert fold.set_params(**setting).score(X_held, y_held) == pytest.approx(
            results["split0_test_score"][s]
        )
    # without a confidence to learn, one fit per fold serves every setting
    assert len(_fits_for(results["params"], False)) == 1


def test_the_cv_corrector_tunes_decoding_weights_inside_fit(sample):
    X, y, X_test, y_test = sample
    X, y = X[:600], y[:600]
    grid = {"decoder__lm_weight": [0.0, 1.0]}
    base = OCRCorrector(min_confidence=None)
    search = OCRCorrectorCV(base, param_grid=grid, cv=2, max_lines=100).fit(X, y)
    results = search.cv_results_
    assert [p["decoder__lm_weight"] for p in results["params"]] == [0.0, 1.0]
    best = int(np.argmax(results["mean_test_score"]))
    assert search.best_params_ == results["params"][best]
    assert search.best_score_ == results["mean_test_score"][best]
    lm_weight = search.best_estimator_.decoder.lm_weight
    assert lm_weight == search.best_params_["decoder__lm_weight"]
    # A fold's score is that of a corrector fitted on the other fold, as computed here.
    fold = clone(base).set_params(decoder__lm_weight=1.0).fit(X[300:], y[300:])
    held = list(range(0, 50)) + list(range(150, 200))  # whole blocks, one in three
    assert results["split0_test_score"][1] == pytest.approx(
        fold.score([X[i] for i in held], [y[i] for i in held])
    )
    assert (
        search.predict(X_test[:5]).tolist() == search.best_estimator_.predict(X_test[:5]).tolist()
    )
    with pytest.raises(ValueError, match="param_grid"):
        OCRCorrectorCV(param_grid={"estimator__k": [0.1]}).fit(X, y)
    with pytest.raises(ValueError, match="cv=2"):
        OCRCorrectorCV(cv=2).fit(X[:3], y[:3])


def test_cross_val_score_runs_on_lines(sample):
    X, y, _, _ = sample
    scores = cross_val_score(
        OCRCorrector(min_confidence=None, language_model=None), X[:300], y[:300], cv=2
    )
    assert scores.shape == (2,) and np.all(scores <= 1.0)


def test_decoding_weights_move_the_documented_way():
    from skocrcost import EditCostEstimator

    X = ["tbe cat sat", "the cat sat", "the cst sat"] * 10
    y = ["the cat sat"] * 30
    fixer = OCRCorrector(
        EditCostEstimator(k=0.5),
        lexicon=["the", "cat", "sat"],
        language_model=None,
        min_confidence=None,
        decoder=Decoder(recurrence_weight=0.0),
    ).fit(X, y)
    tokens = ["tbe", "cst", "tlie", "thc", "sst"]

    def changed():
        return sum(a != b for a, b in zip(tokens, fixer.predict(tokens)))

    # reject_margin: the nats by which the best word must beat keeping an unknown word.
    counts = []
    for margin in (-5.0, 0.0, 5.0, 50.0):
        fixer.set_params(decoder__reject_margin=margin)
        counts.append(changed())
    assert counts == sorted(counts, reverse=True) and counts[0] > counts[-1] == 0
    # recurrence_weight: a spelling the text repeats is kept once the weight is large.
    fixer.set_params(decoder__reject_margin=0.0)
    text = " ".join(["tbe"] * 8)
    assert fixer.correct(text) == " ".join(["the"] * 8)
    assert fixer.set_params(decoder__recurrence_weight=20.0).correct(text) == text
    # real_word_prior: a lexicon word is kept at -ln(prior); 1 never replaces it.
    fixer.set_params(decoder__recurrence_weight=0.0, decoder__real_word_prior=1.0)
    assert fixer.correct("the cat") == "the cat"


def test_a_larger_variant_weight_keeps_more_spelling_variants():
    from skocrcost import EditCostEstimator

    ocr = ["vnto", "vpon", "vse", "tbe", "the", "unwortby", "unworthy"] * 2
    truth = ["vnto", "vpon", "vse", "the", "the", "unworthy", "unworthy"] * 2
    words = ["unto", "upon", "use", "unworthy", "the"]
    fixer = OCRCorrector(
        EditCostEstimator(k=0.1), lexicon=words, language_model=None, min_confidence=None
    ).fit(ocr, truth)
    tokens = ["vnworthy", "vntil", "vsed", "vpper", "unwortby"]
    kept = []
    for weight in (0.0, 1e-3, 1.0, 1e3):
        fixer.set_params(decoder__variant_weight=weight)
        kept.append(sum(a == b for a, b in zip(tokens, fixer.predict(tokens))))
    # -ln(variant_weight) nats are added to the variant reading: larger keeps more.
    assert kept == sorted(kept) and kept[-1] > kept[0]
    # At weight 1 the learned P(variant) as it is: the variant kept, the OCR error not.
    fixer.set_params(decoder__variant_weight=1.0)
    assert fixer.predict(["vnworthy", "unwortby"]).tolist() == ["vnworthy", "unworthy"]


def test_noise_is_read_relative_to_the_text():
    """A line's share of unknown words, and its neighbours', as a multiple of the whole
    text's: a text twice as noisy in every line reads the same."""
    from skocrcost.correction._confidence import ChangeFeatures

    words = {"the", "cow", "is", "here", "a", "b", "c", "d"}
    text = [["the", "cow", "is", "xq"], ["is", "here", "a", "b"], ["zz", "qq", "c", "d"]]
    noisier = [["the", "cow", "yy", "xq"], ["is", "here", "a", "b"], ["zz", "qq", "ww", "vv"]]
    absolute = ChangeFeatures(words, None, None, 1.0, None, relative_noise=False)
    relative = ChangeFeatures(words, None, None, 1.0, None)
    _, line, near, _ = absolute._text_facts(text)
    np.testing.assert_allclose(line, [1 / 4, 0, 2 / 4])
    _, rel_line, rel_near, _ = relative._text_facts(text)
    np.testing.assert_allclose(rel_line, [1, 0, 2])  # the text's share: 3 in 12
    np.testing.assert_allclose(rel_near, near / (3 / 12))
    _, noisy_line, noisy_near, _ = absolute._text_facts(noisier)
    np.testing.assert_allclose(noisy_line, 2 * line)
    _, rel_noisy_line, rel_noisy_near, _ = relative._text_facts(noisier)
    np.testing.assert_allclose(rel_noisy_line, rel_line)
    np.testing.assert_allclose(rel_noisy_near, rel_near)
    # Every word known: a clean text, no division by zero.
    assert relative._text_facts([["the", "cow"]])[1].tolist() == [0.0]


def test_recurrences_are_counted_near_the_change():
    """A word's recurrence is counted on the lines within ``NEARBY`` of the change's:
    the same in a text of any length.  A confidence learned before reads the whole
    text's count."""
    from skocrcost.correction._confidence import ChangeFeatures

    nearby = ChangeFeatures(set(), None, None, 1.0, None)
    whole = ChangeFeatures(set(), None, None, 1.0, None, nearby_recurrence=False)
    n = nearby.NEARBY
    text = [["xq", "a"] if i % 10 == 0 else ["b"] for i in range(200)]
    cores, _, _, first = nearby._text_facts(text)
    assert cores["xq"] == list(range(0, 200, 10)) and first == 0
    for line in (0, 30, 100, 199):
        want = sum(abs(i - line) <= n for i in range(0, 200, 10))
        assert nearby._recurrence(cores["xq"], line) == want
        assert whole._recurrence(cores["xq"], line) == 20
    assert nearby._recurrence(cores.get("zz", ()), 5) == 0
    # Part of a text (as a worker process reads its batch) keeps its lines' places.
    facts = nearby._text_facts(text).lines(100, 150)
    assert facts.first == 100 and len(facts.line) == 50


def test_the_lines_of_some_cores_are_those_all_cores_are_read_with(fitted, sample):
    """A call's review reads the lines of its changes' cores only: the same lists as
    over every core, the same shares of unknown words, and the same rows."""
    from skocrcost.correction._confidence import _all_spans

    _, _, X, _ = sample
    sequences = [line.split() for line in X[:200]]
    corrected = fitted._decoder().correct_tokens(sequences)
    spans = _all_spans(sequences, corrected)
    features = fitted.confidence_.features
    every = features._text_facts(sequences)
    # By their definitions, a line and a token at a time (an empty token has no core).
    from skocrcost.correction._tokens import correctable, split_token, token_words

    text = [*sequences[:100], ["", "Tbe", "tbe,", ""], [], *sequences[100:]]
    want, unknown, total = {}, [], []
    for i, seq in enumerate(text):
        words = [w for t in seq for w in token_words(t) if correctable(w)]
        unknown.append(
            sum(w not in features.words and w.lower() not in features.words for w in words)
        )
        total.append(len(words))
        for token in filter(None, seq):
            want.setdefault(split_token(token)[1].lower(), []).append(i)
    facts = features._text_facts(text)
    assert facts.cores == want and list(facts.cores) == list(want)  # (and in the same order)
    share = max(sum(unknown) / sum(total), features.CLEAN) if features.relative_noise else 1.0
    np.testing.assert_array_equal(
        facts.line, [u / max(t, 1) / share for u, t in zip(unknown, total)]
    )
    rng = np.random.default_rng(0)
    wanted = set(rng.choice(sorted(every.cores), 40, replace=False)) | {"not in the text"}
    some = features._text_facts(sequences, wanted)
    assert some.cores == {core: every.cores[core] for core in wanted if core in every.cores}
    assert len(some.cores) == 40
    np.testing.assert_array_equal(some.line, every.line)
    np.testing.assert_array_equal(some.nearby, every.nearby)
    assert len(spans) >= 5
    np.testing.assert_array_equal(
        features.rows(sequences, corrected, spans),
        features.rows(sequences, corrected, spans, every),
    )


def test_a_change_is_judged_alike_in_a_short_text_and_a_long_one(fitted, sample):
    """The same lines corrected alone and within a text four times as long: their
    changes have the same confidence (the count of a word over the whole text grew
    with it, so a confidence learned on long texts of held-out lines held back most
    changes of a short one)."""
    _, _, X, _ = sample
    lines = X[:150]
    _, alone = fitted.correct("\n".join(lines), return_confidence=True)
    _, within = fitted.correct("\n".join(lines * 4), return_confidence=True)
    margin = fitted.confidence_.features.NEARBY
    middle = [c for c in alone if margin <= c.line < len(lines) - margin]
    assert len(middle) >= 5
    same = {(c.line, c.start): c.confidence for c in within if c.line < len(lines)}
    assert [c.confidence for c in middle] == [same[c.line, c.start] for c in middle]


def test_what_a_change_does_is_described_once_and_read_the_same(fitted, sample):
    """The features of what a kind of change does are kept across calls (changes
    repeat); the rows read from them are the rows described afresh, a line at a time
    or all at once, and only the features of a change's place differ between two
    places of one kind."""
    from skocrcost.correction._confidence import _FLOOR, ChangeFeatures, _all_spans, _joined

    _, _, X, _ = sample
    decoder = fitted._decoder()
    sequences = [line.split() for line in X[:200]]
    corrected = decoder.correct_tokens(sequences)
    spans = _all_spans(sequences, corrected)
    features = fitted.confidence_.features
    facts = features._text_facts(sequences)
    rows = features.rows(sequences, corrected, spans, facts)
    fresh = copy.copy(features)  # (caches are left out, as from a pickle)
    assert "_described" in features.__dict__ and "_described" not in fresh.__dict__
    np.testing.assert_array_equal(fresh.rows(sequences, corrected, spans, facts), rows)
    assert len(fresh._described) < len(spans)  # changes repeat
    for k, span in enumerate(spans):  # one change a call, each described afresh
        again = copy.copy(features)
        np.testing.assert_array_equal(again.rows(sequences, corrected, [span], facts)[0], rows[k])
    np.testing.assert_array_equal(fresh.rows(sequences, corrected, spans[::-1], facts), rows[::-1])
    place = ("sentence_start", "recurrence", "line_unknown", "nearby_unknown")
    place += ("lm_context_original", "lm_context_corrected")
    what = [j for j, name in enumerate(ChangeFeatures.NAMES) if name not in place]
    seen = {}
    for (i, a, b), row in zip(spans, rows, strict=True):
        key = (" ".join(sequences[i][a:b]), " ".join(corrected[i][a:b]))
        np.testing.assert_array_equal(seen.setdefault(key, row)[what], row[what])
    # Its language-model features without context (filled in once per kind) are the
    # language model's log-probabilities of its core and of its first new word.
    unigrams = [ChangeFeatures.NAMES.index(name) for name in ("lm_original", "lm_corrected")]
    for (i, a, b), row in zip(spans, rows, strict=True):
        key = (b - a, _joined(sequences[i][a:b]), _joined(corrected[i][a:b]))
        _, low, first_new = fresh._described[key]
        expected = [
            max(features.lm.log_probability(w), _FLOOR) if w else 0.0 for w in (low, first_new)
        ]
        assert row[unigrams].tolist() == expected


def test_a_loop_of_correct_calls_builds_one_decoder_and_follows_set_params(
    fitted, sample, monkeypatch
):
    """A loop over a file's lines calls ``correct`` once per line: the decoder is built
    once for the parameters, and again only when ``set_params`` changes them."""
    from skocrcost.correction._decoder import NoisyChannelDecoder

    _, _, X_test, _ = sample
    fixer = pickle.loads(pickle.dumps(fitted))  # (no caches: the module's fixture is kept)
    built = []
    init = NoisyChannelDecoder.__init__

    def counted(self, **kwargs):
        built.append(kwargs)
        init(self, **kwargs)

    monkeypatch.setattr(NoisyChannelDecoder, "__init__", counted)
    default = [fixer.correct(line) for line in X_test[:60]]
    assert len(built) == 1
    fixer.set_params(decoder__reject_margin=None)  # never keep an unknown word
    changed = [fixer.correct(line) for line in X_test[:60]]
    assert len(built) == 2
    fresh = clone(fitted).set_params(decoder__reject_margin=None)
    fresh.__dict__.update({k: v for k, v in vars(fitted).items() if k.endswith("_")})
    fresh._caches_ = {}
    assert changed == [fresh.correct(line) for line in X_test[:60]]
    assert changed != default  # the parameter took effect: the comparison is not vacuous
    assert len(built) == 3  # (fresh's)
    fixer.set_params(decoder__reject_margin=fitted._weights().reject_margin)
    assert [fixer.correct(line) for line in X_test[:60]] == default
    assert len(built) == 4


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), max_size=120),
    st.integers(0, 30),
)
def test_the_noise_shares_are_the_shares_of_each_line_and_the_lines_around_it(counts, nearby):
    """Exactly: sums of whole counts; on a text at least as long as the window, numpy's
    convolution gives the same (on a shorter one, its "same" mode is off centre)."""
    from skocrcost.correction._confidence import noise_shares

    unknown = [min(u, t) for u, t in counts]
    total = [t for _, t in counts]
    line, near = noise_shares(unknown, total, nearby)
    assert line.tolist() == [u / max(t, 1) for u, t in zip(unknown, total, strict=True)]
    around = [slice(max(0, i - nearby), i + nearby + 1) for i in range(len(unknown))]
    assert near.tolist() == [sum(unknown[w]) / max(sum(total[w]), 1) for w in around]
    if len(unknown) >= 2 * nearby + 1:
        u, t = np.array(unknown, dtype=float), np.array(total, dtype=float)
        kernel = np.ones(2 * nearby + 1)
        want = np.convolve(u, kernel, "same") / np.maximum(np.convolve(t, kernel, "same"), 1)
        np.testing.assert_array_equal(near, want)

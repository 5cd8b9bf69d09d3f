"""Noisy-channel correction with a Katz language model: context, real words, and the text."""

import math
from collections import Counter

import pytest
from conftest import read_pairs, shared_path

from skocrcost import EditCostEstimator, EditDistanceNeighbors, KatzBackoffLM, WeightedLevenshtein
from skocrcost._noisy_channel import NoisyChannelDecoder, lm_sentence, match_case, split_token

TRUTH = ["the book", "his house", "his book", "the house", "in his house"]


def decoder(lexicon, **params):
    nn = EditDistanceNeighbors(metric=WeightedLevenshtein({("l", "i"): 0.3})).fit(lexicon)
    lm = KatzBackoffLM(order=2, discount=0.5).fit([lm_sentence(t) for t in TRUTH])
    return NoisyChannelDecoder(nn, 1.0, lm, n_candidates=3, **params)


def test_tokens_keep_punctuation_case_and_spacing():
    assert split_token('"Tbe,') == ('"', "Tbe", ",")
    assert split_token("pro-") == ("", "pro", "-")
    assert split_token("...") == ("...", "", "")
    assert match_case("his", "HLS") == "HIS"
    assert match_case("his", "Hls") == "His"
    assert match_case("his", "hls") == "his"
    assert lm_sentence('  "The book," he said.') == ["the", "book", "he", "said"]
    dec = decoder(["the", "his", "house", "book"], reject_cost=2.0)
    out = dec.correct_lines(["  Tbe  book, HLS house!\t12 ...", ""])
    assert out == ["  The  book, HIS house!\t12 ...", ""]


def test_out_of_lexicon_words_stay_unless_a_candidate_is_cheaper_than_rejecting():
    text = ["Tbe Zanzibar"]
    for reject_cost, expected in ((0.5, "Tbe Zanzibar"), (1.5, "The Zanzibar")):
        dec = decoder(["the", "his"], reject_cost=reject_cost, lm_weight=0.0)
        assert dec.correct_lines(text) == [expected]


def test_real_word_errors_are_corrected_in_context():
    lexicon = ["the", "his", "house", "book", "in", "bis"]  # "bis" is a word, never seen here
    # After "in", "his" is far more probable than "bis" (never seen): the OCR word is a
    # lexicon word, yet the prior alpha that it is right is outweighed by the context.
    line = ["in bis house"]
    assert decoder(lexicon, real_word_prior=0.7, lm_weight=1.0).correct_lines(line) == [
        "in his house"
    ]
    # With no LM, or a prior of 1 that the observed word is right, it stays.
    assert decoder(lexicon, real_word_prior=0.7, lm_weight=0.0).correct_lines(line) == line
    assert decoder(lexicon, real_word_prior=1.0, lm_weight=1.0).correct_lines(line) == line
    # The units: keeping costs -ln(0.7) + LM, changing -ln(0.3) + cost(b -> h) + LM; the
    # unknown "bis" gets the LM's singleton fallback after "in".
    lm = decoder(lexicon).language_model
    keep = -math.log(0.7) - lm.log_probability("bis", ["<s>", "in"])
    change = -math.log(0.3) + 1.0 - lm.log_probability("his", ["<s>", "in"])
    assert change < keep < change + 1


def _word_errors(hyp, ref):
    enc = {}

    def code(line):
        return "".join(chr(0x10000 + enc.setdefault(t, len(enc))) for t in line.split())

    unit = WeightedLevenshtein()
    return sum(unit.distance(code(h), code(r)) for h, r in zip(hyp, ref, strict=True))


def test_context_aware_correction_beats_channel_only_on_bln600():
    X, y = read_pairs(shared_path("bln600", "train.lines.tsv"))
    scowl = shared_path("lexicon", "british-english").read_text(encoding="utf-8").split()
    train, test = slice(0, 8000), slice(len(X) - 200, len(X))
    est = EditCostEstimator(k=0.03).fit(X[:3000], y[:3000])
    lm_text = [lm_sentence(t) for t in y[train]]
    lm = KatzBackoffLM(order=3, discount=0.7).fit(lm_text)
    freq = Counter(w for s in lm_text for w in s)
    lexicon = sorted(dict.fromkeys(w.lower() for w in scowl), key=lambda w: -freq[w])
    nn = EditDistanceNeighbors(metric=est).fit(lexicon)
    dec = NoisyChannelDecoder(nn, est.channel_.normaliser, lm)
    raw = _word_errors(X[test], y[test])
    errors = {}
    # The parameters benchmarks/noisy_channel_wer.py tuned on other lines (channel only:
    # the best with lm_weight = 0; with the LM: the best overall); only lm_weight differs.
    dec.real_word_prior, dec.reject_cost = 0.99, 2.0
    for name, lm_weight in (("channel", 0.0), ("context", 1.0)):
        dec.lm_weight = lm_weight
        errors[name] = _word_errors(dec.correct_lines(X[test]), y[test])
    assert errors["context"] < errors["channel"] < raw
    assert errors["context"] < 0.9 * raw


@pytest.mark.parametrize("prior", [0.5, 0.999])
def test_the_prior_only_matters_for_lexicon_words(prior):
    dec = decoder(["the", "his"], real_word_prior=prior, reject_cost=10.0, lm_weight=0.0)
    assert dec.correct_lines(["tbe the"]) == ["the the"]


def test_ocr_corrector_corrects_running_text_with_the_language_model():
    from skocrcost import OCRCorrector

    ocr = ["tbe", "the", "his", "bis", "house", "book", "in", "Smyth"] * 3
    truth = ["the", "the", "his", "his", "house", "book", "in", "Smyth"] * 3
    lexicon = ["the", "his", "house", "book", "in", "bis"]
    lm = KatzBackoffLM(order=2).fit([lm_sentence(t) for t in TRUTH])
    fixer = OCRCorrector(
        EditCostEstimator(k=0.5), lexicon=lexicon, language_model=lm, real_word_prior=0.7
    ).fit(ocr, truth)
    text = "In bis house,  Tbe book.\nSmyth 12"
    assert fixer.correct(text) == "In his house,  The book.\nSmyth 12"
    # A prior of 1 that a lexicon word is right keeps "bis"; without a language model
    # the corrector's context-free word prior stands in for it.
    fixer.set_params(real_word_prior=1.0).fit(ocr, truth)
    assert fixer.correct(text) == "In bis house,  The book.\nSmyth 12"
    plain = OCRCorrector(EditCostEstimator(k=0.5), lexicon=lexicon).fit(ocr, truth)
    assert plain.correct("Tbe book") == "The book"
    with pytest.raises(TypeError, match="text"):
        fixer.correct(["a line"])
    from sklearn.utils._param_validation import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="real_word_prior"):
        OCRCorrector(real_word_prior=0.0).fit(ocr, truth)

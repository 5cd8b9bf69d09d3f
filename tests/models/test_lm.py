"""KatzBackoffLM: the formulas of docs/katz.md, normalisation everywhere, sklearn conventions."""

import itertools
import math
import pickle

import numpy as np
import pytest
from conftest import read_pairs, shared_path
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV, KFold

from skocrcost import KatzBackoffLM

SEED = ["the book", "his house"]
SMALL = ["a b", "a c", "b c"]  # the trigram hand computation below


def test_seed_exercise():
    lm = KatzBackoffLM(order=2, discount=0.5).fit(SEED)
    assert lm.probability("book", ("his",)) == pytest.approx(0.1, abs=1e-15)
    assert lm.probability("house", ("his",)) == pytest.approx(0.5)  # (1 - 0.5) / 1
    assert set(lm.vocabulary_) == {"the", "book", "his", "house", "</s>"}
    assert lm.n_tokens_ == 6


def test_bigram_by_hand():
    lm = KatzBackoffLM(order=2, discount=0.5).fit(SMALL)
    # N = 9: a, b, c twice each, </s> three times.  After <s>: a a b (c = 3).
    assert lm.probability("a", ["<s>"]) == pytest.approx(1.5 / 3)
    assert lm.probability("b", ["<s>"]) == pytest.approx(0.5 / 3)
    alpha = 0.5 * 2 / 3
    assert lm.probability("c", ["<s>"]) == pytest.approx(alpha * (2 / 9) / (5 / 9))
    assert lm.probability("</s>", ["<s>"]) == pytest.approx(alpha * (3 / 9) / (5 / 9))
    assert lm.probability("a", ()) == pytest.approx(2 / 9)  # no context: the unigram
    assert lm.probability("<s>", ["a"]) == 0.0  # start symbols are never predicted


def test_trigram_backs_off_to_the_bigram_by_hand():
    lm = KatzBackoffLM(order=3, discount=0.5).fit(SMALL)
    # q2(. | a): b, c seen once each -> 0.25; alpha(a) = 0.5 over B(a) = {a, </s>}
    # (unigram 2/9 and 3/9): q2(a | a) = 0.2, q2(</s> | a) = 0.3.
    assert lm.probability("a", ["a"]) == pytest.approx(0.2)
    # (<s>, a) was followed by b and c: 0.25 each; alpha = 0.5 over B = {a, </s>},
    # whose bigram mass is 0.2 + 0.3 = 0.5.
    ctx = ["<s>", "a"]
    assert lm.probability("b", ctx) == pytest.approx(0.25)
    assert lm.probability("a", ctx) == pytest.approx(0.5 * 0.2 / 0.5)
    assert lm.probability("</s>", ctx) == pytest.approx(0.5 * 0.3 / 0.5)
    # (b, c) was followed by </s> once: alpha = 0.5; q2(. | c): </s> 1.5/2, alpha(c) = 0.25,
    # q2(a | c) = 0.25 (2/9) / (6/9) = 1/12; B(b, c) = {a, b, c} has bigram mass 0.25.
    assert lm.probability("a", ["b", "c"]) == pytest.approx(0.5 * (1 / 12) / 0.25)
    assert lm.probability("</s>", ["b", "c"]) == pytest.approx(0.5)
    # A trigram context never seen backs off whole to the bigram.
    assert lm.probability("a", ["c", "a"]) == lm.probability("a", ["a"])
    # Sentence start: (<s>, <s>) was followed by a a b.
    assert lm.probability("c", ["<s>", "<s>"]) == pytest.approx((1 / 3) * (2 / 15) / (1 / 3))
    # Longer contexts use their last two words only.
    assert lm.probability("a", ["x", "y", "<s>", "a"]) == lm.probability("a", ctx)


def test_unknown_words_get_the_fallback_of_a_singleton():
    lm = KatzBackoffLM(order=3, discount=0.5).fit(SMALL)
    assert lm.probability("zebra", ()) == pytest.approx(1 / 9)
    # Bigram context a: alpha(a) = 0.5, B(a) unigram mass 5/9.
    assert lm.probability("zebra", ["a"]) == pytest.approx(0.5 * (1 / 9) / (5 / 9))
    assert lm.probability("zebra", ["<s>", "a"]) == pytest.approx(0.5 * 0.1 / 0.5)
    # An unknown word in the context backs off past it.
    assert lm.probability("b", ["zebra", "a"]) == lm.probability("b", ["a"])
    assert lm.probability("b", ["zebra"]) == lm.probability("b", ())


def test_a_context_followed_by_every_word_is_not_discounted():
    lm = KatzBackoffLM(order=2, discount=0.5).fit(["a a", "a"])
    # After a: a once, </s> twice; B(a) is empty, so maximum likelihood.
    assert lm.probability("a", ["a"]) == pytest.approx(1 / 3)
    assert lm.probability("</s>", ["a"]) == pytest.approx(2 / 3)
    assert lm.probability("a", ["<s>"]) == pytest.approx(1.5 / 2)  # discounted as usual
    assert lm.probability("</s>", ["<s>"]) == pytest.approx(0.25)


CORPORA = [
    SEED,
    SMALL,
    ["a a", "a"],
    ["a b a b", "b a", "", "a"],
    ["x y z", "z z y x", "y", "x x x"],
    [["one", "two"], ["two", "one", "two"], ["three"]],
]


@pytest.mark.parametrize("corpus", CORPORA)
@pytest.mark.parametrize("order", [1, 2, 3])
@pytest.mark.parametrize("discount", [0.0, 0.1, 0.5, 0.9])
def test_probabilities_sum_to_one_in_every_context(corpus, order, discount):
    lm = KatzBackoffLM(order=order, discount=discount).fit(corpus)
    words = list(lm.vocabulary_)
    contexts = ["<s>", "unseen", *words]
    for n in range(order):
        for context in itertools.product(contexts, repeat=n):
            p = np.exp(lm.log_probabilities(words, context))
            assert math.fsum(p) == pytest.approx(1.0, abs=1e-12), context
            if discount > 0:
                assert np.all(p > 0)


def test_sums_to_one_on_real_sentences():
    _, truth = read_pairs(shared_path("bln600", "train.lines.tsv"), limit=300)
    lm = KatzBackoffLM(order=3).fit(truth)
    words = list(lm.vocabulary_)
    rng = np.random.default_rng(0)
    sentence = truth[7].split()
    contexts = [("<s>", "<s>"), tuple(sentence[:2]), tuple(sentence[3:5])]
    contexts += [tuple(rng.choice(words, 2)) for _ in range(5)]
    for context in contexts:
        assert math.fsum(np.exp(lm.log_probabilities(words, context))) == pytest.approx(1, 1e-12)


@pytest.mark.parametrize("order", [1, 2, 3])
def test_decoder_look_ups_equal_log_probabilities(order):
    # The noisy-channel decoder's batched look-ups: every word after every context
    # (_log_probability_grid, each looked up once) and word i after context i
    # (_log_probability_pairs) give exactly log_probabilities, one context at a time.
    _, truth = read_pairs(shared_path("bln600", "train.lines.tsv"), limit=300)
    lm = KatzBackoffLM(order=order).fit(truth)
    rng = np.random.default_rng(order)
    known = list(lm.vocabulary_)
    words = [*rng.choice(known, 40), "qqzzx", "<s>", "</s>", "the"]
    contexts = [(), ("<s>",), ("<s>", "<s>"), ("qqzzx", "the"), ("the", "<s>")]
    contexts += [tuple(rng.choice(known, int(rng.integers(1, 4)))) for _ in range(8)]
    want = np.array([lm.log_probabilities(words, c) for c in contexts])
    np.testing.assert_array_equal(lm._log_probability_grid(words, contexts), want)
    pairs = lm._log_probability_pairs(words * len(contexts), [c for c in contexts for _ in words])
    np.testing.assert_array_equal(pairs, want.ravel())
    assert lm._log_probability_grid(words, []).shape == (0, len(words))
    assert lm._log_probability_grid([], contexts).shape == (len(contexts), 0)


def test_score_and_perplexity():
    lm = KatzBackoffLM(order=2).fit(SEED)
    # "his book </s>": P(his|<s>) = 0.25 (0.5 of 2 seen), P(book|his) = 0.1,
    # P(</s>|book) = 0.5; "zebra" is left out but cuts the context.
    expected = [math.log(0.25), math.log(0.1), math.log(0.5)]
    assert lm.score(["his book"]) == pytest.approx(np.mean(expected))
    np.testing.assert_allclose(lm.score_samples(["his book", ""]), [sum(expected), math.log(0.25)])
    assert lm.perplexity(["his book"]) == pytest.approx(math.exp(-np.mean(expected)))
    assert lm.score([["his", "zebra"]]) == pytest.approx(
        np.mean([math.log(0.25), math.log(lm.probability("</s>", ()))])
    )
    assert lm.score(["his book"]) == lm.score([["his", "book"]])


def test_grid_search_tunes_the_discount_on_real_sentences():
    _, truth = read_pairs(shared_path("bln600", "train.lines.tsv"), limit=3000)
    grid = [0.1, 0.5, 0.7, 0.95]
    search = GridSearchCV(KatzBackoffLM(order=2), {"discount": grid}, cv=KFold(3)).fit(truth)
    scores = search.cv_results_["mean_test_score"]
    # The same folds by hand: each discount fitted on two thirds, scored on the third.
    folds = [
        ([truth[i] for i in fit], [truth[i] for i in held]) for fit, held in KFold(3).split(truth)
    ]
    by_hand = [
        np.mean([KatzBackoffLM(order=2, discount=d).fit(a).score(b) for a, b in folds])
        for d in grid
    ]
    np.testing.assert_allclose(scores, by_hand, rtol=1e-12)
    # Held-out likelihood has an interior optimum (0.7 on these sentences): too small a
    # discount starves unseen bigrams, too large a one robs the seen ones.
    assert search.best_params_ == {"discount": 0.7}
    assert max(scores[0], scores[-1]) < scores.max()
    # The bigram's and trigram's held-out perplexities beat the unigram's.
    train, test = truth[:2500], truth[2500:]
    pp = [KatzBackoffLM(order=n, discount=0.7).fit(train).perplexity(test) for n in (1, 2, 3)]
    assert pp[1] < pp[0] and pp[2] < pp[0]


def test_clone_pickle_and_tags():
    lm = KatzBackoffLM(order=3, discount=0.3)
    assert clone(lm).get_params() == {"order": 3, "discount": 0.3}
    lm.fit(SMALL)
    back = pickle.loads(pickle.dumps(lm))
    assert back.probability("a", ["<s>", "a"]) == lm.probability("a", ["<s>", "a"])
    tags = lm.__sklearn_tags__()
    assert tags.input_tags.string and not tags.target_tags.required


@pytest.mark.parametrize("method", ["probability", "log_probability", "score", "perplexity"])
def test_unfitted_model_raises(method):
    with pytest.raises(NotFittedError):
        getattr(KatzBackoffLM(), method)(["a"])


@pytest.mark.parametrize(
    ("params", "X", "error", "match"),
    [
        ({"order": 0}, SEED, ValueError, "'order'"),
        ({"order": 1.5}, SEED, TypeError, "'order'"),
        ({"order": True}, SEED, TypeError, "order must be an integer"),
        ({"discount": 1.0}, SEED, ValueError, "'discount'"),
        ({"discount": -0.1}, SEED, ValueError, "'discount'"),
        ({"discount": math.nan}, SEED, ValueError, "discount"),
        ({"discount": "0.5"}, SEED, TypeError, "'discount'"),
        ({}, "the book", TypeError, "single str"),
        ({}, [], ValueError, "empty"),
        ({}, ["a", 3], TypeError, r"X\[1\]"),
        ({}, [["a", 3]], TypeError, r"X\[0\]\[1\]"),
        ({}, [["a b"]], ValueError, r"X\[0\]\[0\]"),
        ({}, [["a", ""]], ValueError, r"X\[0\]\[1\]"),
        ({}, ["a </s> b"], ValueError, "reserved"),
        ({}, ["<s> a"], ValueError, "reserved"),
        ({}, None, TypeError, "X"),
    ],
)
def test_bad_input_is_refused_and_a_failed_refit_keeps_the_fit(params, X, error, match):
    lm = KatzBackoffLM().fit(SEED)
    before = lm.probability("book", ["his"])
    with pytest.raises(error, match=match):
        lm.set_params(**params).fit(X)
    assert lm.probability("book", ["his"]) == before


def test_bad_queries_are_refused():
    lm = KatzBackoffLM().fit(SEED)
    with pytest.raises(TypeError, match="word"):
        lm.probability(3, ["his"])
    with pytest.raises(TypeError, match="context"):
        lm.probability("book", [3])
    with pytest.raises(TypeError, match="words"):
        lm.log_probabilities("book", ["his"])
    assert lm.probability("book", "his") == lm.probability("book", ["his"])


def test_scores_are_the_sums_of_the_words_log_probabilities():
    # The first word of the vocabulary has id 0: it is scored like any other.
    lm = KatzBackoffLM(order=3, discount=0.5).fit(["the cow sat", "the cow ate", "a cow sat"])
    assert lm.vocabulary_["the"] == 0
    sentences = ["the cow", "the the sat", "cow zzz the"]
    for sentence, got in zip(sentences, lm.score_samples(sentences), strict=True):
        words = [*sentence.split(), "</s>"]
        want = sum(
            lm.log_probability(w, ["<s>", "<s>", *words[:i]])
            for i, w in enumerate(words)
            if w != "zzz"
        )  # unknown words are left out
        assert got == pytest.approx(want, rel=1e-12)
    # Unigrams: the, cow, sat, ate, a, </s>.  Bigrams: <s> the, the cow, cow sat, sat </s>,
    # cow ate, ate </s>, <s> a, a cow.  Trigrams: those with <s> <s> the, <s> <s> a, a cow sat.
    assert lm.n_ngrams_ == [6, 8, 9]
    # A one-dimensional array of sentences is a sequence of sentences.
    again = KatzBackoffLM(order=3, discount=0.5).fit(
        np.array(["the cow sat", "the cow ate", "a cow sat"])
    )
    assert again.score_samples(sentences).tolist() == lm.score_samples(sentences).tolist()


def test_unknown_words_and_unknown_context_words_back_off():
    lm = KatzBackoffLM(order=3, discount=0.5).fit(["the cow sat", "the cow ate", "a cow sat"])
    # An unknown word is no word of the vocabulary, even after a context where word 0
    # ("the") was seen.
    for context in (["<s>"], ["<s>", "<s>"]):
        p_unknown = lm.log_probability("zzz", context)
        assert p_unknown == lm.log_probability("yyy", context) < lm.log_probability("the", context)
    # A trigram context with an unknown or absent older word is not a context: the
    # bigram's answer, P(sat | cow) = (2 - 0.5) / 3 (not the trigram (the cow)'s 1/4).
    for context in (["zzz", "cow"], ["cow"]):
        assert lm.log_probability("sat", context) == pytest.approx(math.log(1.5 / 3), rel=1e-15)
    for w in ("ate", "cow", "zzz"):
        assert lm.log_probability(w, ["zzz", "cow"]) == lm.log_probability(w, ["cow"])


def test_defaults_and_a_message():
    assert KatzBackoffLM().get_params() == {"order": 2, "discount": 0.5}
    lm = KatzBackoffLM().fit(["the cow"])
    with pytest.raises(TypeError, match=r"^words\[0\] must be a string, got int: 3$"):
        lm.log_probability(3)

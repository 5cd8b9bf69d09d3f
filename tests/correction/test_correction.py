"""OCRCorrector: the corrector as an estimator, its prior and rejection rule, real-data quality."""

import importlib.util
import pickle
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.utils._param_validation import InvalidParameterError

from skocrcost import EditCostEstimator, OCRCorrector, WeightedLevenshtein, word_error_rate
from skocrcost.correction import Decoder
from skocrcost.correction._align import token_pairs, training_words
from skocrcost.datasets import load_icdar2017_sample


@pytest.fixture(scope="module")
def tokens():
    X, y = load_icdar2017_sample("tokens")
    return X[:4000], y[:4000]


def test_fit_predict_score_and_ranked_candidates(tokens):
    X, y = tokens
    fixer = OCRCorrector(
        EditCostEstimator(k=0.1), lexicon=None, decoder=Decoder(reject_margin=None)
    ).fit(X, y)
    # lexicon=None: the truth words fit learns from (cut at punctuation), most frequent
    # first.
    X_seq, y_seq = token_pairs(X, y, gaps=True)
    _, truth_words = training_words(sum(X_seq, []), sum(y_seq, []))
    words = Counter(truth_words)
    assert set(fixer.lexicon_) == set(words)
    assert [words[w] for w in fixer.lexicon_] == sorted(words.values(), reverse=True)
    assert fixer.estimator_.k == 0.1 and fixer.neighbors_.metric_ is fixer.estimator_.metric_
    pred = fixer.predict(X)
    assert pred.shape == (len(X),)
    assert fixer.score(X, y) > 1 - word_error_rate(y, X)  # it corrects something
    scores, ind = fixer.kneighbors(["tbe", "aud"], 4)
    assert (np.diff(scores, axis=1) >= 0).all()
    cost = fixer.estimator_.metric_.pairwise(["tbe"], [fixer.lexicon_[i] for i in ind[0]])[0]
    want = fixer.scale_ * cost - fixer.log_prior_[ind[0]]
    np.testing.assert_allclose(scores[0], want, rtol=1e-12)
    assert fixer.lexicon_[ind[0, 0]] == "the" and fixer.predict(["tbe"])[0] == "the"


def test_word_prior_breaks_what_costs_cannot():
    # Both words are one unseen substitution away from "xat"; "bat" is far more frequent.
    X = ["cat", "bat", "bat", "bat", "bat"]
    y = ["cat", "bat", "bat", "bat", "bat"]
    base = OCRCorrector(
        EditCostEstimator(),
        lexicon=["cat", "bat"],
        language_model=None,
        min_confidence=None,
        decoder=Decoder(reject_margin=None),
    )
    assert base.fit(X, y).predict(["xat"])[0] == "bat"
    flat = clone(base).set_params(decoder__prior_weight=0.0).fit(X, y)
    assert flat.predict(["xat"])[0] == "cat"  # a tie in cost: lexicon order decides
    assert flat.scale_ == pytest.approx(np.log(len(flat.estimator_.vocabulary_) + 1))


def test_rejection_keeps_plausible_out_of_lexicon_tokens():
    X = ["tbe", "the", "Smyth", "Jones", "tlie", "Brown", "the", "c0w", "cow"]
    y = ["the", "the", "Smyth", "Jones", "the", "Brown", "the", "cow", "cow"]
    words = ["the", "cow"]
    fixer = OCRCorrector(
        EditCostEstimator(k=0.5), lexicon=words, language_model=None, min_confidence=None
    ).fit(X, y)
    assert fixer.predict(["tbe", "Smith", "c0w"]).tolist() == ["the", "Smith", "cow"]
    assert fixer._keep_score("Smith") < fixer._keep_score("Sx#q!")  # looks like a name
    eager = clone(fixer).set_params(decoder__reject_margin=None).fit(X, y)
    assert eager.predict(["Smith"])[0].lower() in words
    timid = clone(fixer).set_params(decoder__reject_margin=1e6).fit(X, y)  # must win by 1e6 nats
    assert timid.predict(["tbe", "tlie"]).tolist() == ["tbe", "tlie"]


def test_grid_search_tunes_k_on_plain_lists(tokens):
    X, y = tokens[0][:1500], tokens[1][:1500]
    words = sorted(set(y), key=y.count, reverse=True)
    base = OCRCorrector(EditCostEstimator(), lexicon=words, min_confidence=None)
    search = GridSearchCV(
        base, {"estimator__k": [0.1, 1.0], "decoder__reject_margin": [0.0, None]}, cv=KFold(3)
    ).fit(X, y)
    results = search.cv_results_
    best = int(np.argmax(results["mean_test_score"]))
    assert search.best_params_ == results["params"][best]
    # A split's score is the corrector's score, fitted on the other folds, recomputed here.
    train, test = next(KFold(3).split(X))
    fold = clone(base).set_params(**search.best_params_)
    fold.fit([X[i] for i in train], [y[i] for i in train])
    assert results["split0_test_score"][best] == pytest.approx(
        fold.score([X[i] for i in test], [y[i] for i in test])
    )
    assert search.best_estimator_.lexicon_ == words
    # With the default estimator=None there is no estimator__k to set (as documented).
    with pytest.raises(AttributeError, match="'NoneType' object has no attribute 'set_params'"):
        GridSearchCV(OCRCorrector(), {"estimator__k": [0.1]}, cv=KFold(2)).fit(X[:40], y[:40])


def test_pickles_and_failed_refit_keeps_state():
    X, y = load_icdar2017_sample("lines")
    fixer = OCRCorrector(EditCostEstimator(k=0.3), decoder=Decoder(n_candidates=3)).fit(
        X[:1500], y[:1500]
    )
    assert fixer.confidence_ is not None  # pickled with the rest
    back = pickle.loads(pickle.dumps(fixer))
    assert back.predict(X[2000:2200]).tolist() == fixer.predict(X[2000:2200]).tolist()
    lexicon = fixer.lexicon_
    with pytest.raises(ValueError, match="same length"):
        fixer.fit(X[:10], y[:9])
    assert fixer.lexicon_ is lexicon


def test_bad_inputs_are_named():
    X, y = ["tbe", "cow"], ["the", "cow"]
    with pytest.raises(InvalidParameterError, match="language_model"):
        OCRCorrector(language_model="kneser-ney").fit(X, y)
    with pytest.raises(InvalidParameterError, match="n_candidates"):
        OCRCorrector(decoder=Decoder(n_candidates=0)).fit(X, y)
    with pytest.raises(InvalidParameterError, match="prior_weight"):
        OCRCorrector(decoder=Decoder(prior_weight=-1)).fit(X, y)
    with pytest.raises(ValueError, match="reject_margin"):
        OCRCorrector(decoder=Decoder(reject_margin=float("nan"))).fit(X, y)
    with pytest.raises(ValueError, match="lexicon is empty"):
        OCRCorrector(lexicon=[]).fit(X, y)
    with pytest.raises(TypeError, match="lexicon"):
        OCRCorrector(lexicon=["a", 3]).fit(X, y)
    with pytest.raises(TypeError, match="X"):
        OCRCorrector().fit(X, y).predict("tbe")
    with pytest.raises(ValueError, match="X is empty"):
        OCRCorrector().fit([], [])


# -- quality on real OCR (BLN600, SCOWL); protocol in benchmarks/correction_quality.py -------
def _protocol():
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "correction_quality.py"
    spec = importlib.util.spec_from_file_location("correction_quality", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_learned_costs_correct_more_than_unit_costs_on_bln600():
    from conftest import shared_path

    q = _protocol()
    X_train, y_train, X_test, y_test, lexicon = q.load_split(shared_path())
    X_train, y_train = X_train[:60000], y_train[:60000]
    known = set(lexicon)
    oov = [(x, t) for x, t in zip(X_test, y_test) if x not in known][::4]  # every 4th: ~900
    X_oov, y_oov = [x for x, _ in oov], np.array([t for _, t in oov], dtype=object)
    unit = q.nearest_word_predictions(WeightedLevenshtein(), X_oov, lexicon, -1)
    peer = q.nearest_word_predictions(q.ocr_stringdist_metric(X_train, y_train), X_oov, lexicon, -1)
    # Isolated tokens, each a line of one word: the word prior without a language model.
    fixer = OCRCorrector(
        EditCostEstimator(k=1.0),
        lexicon=lexicon,
        language_model=None,
        min_confidence=None,
        n_jobs=-1,
        decoder=Decoder(prior_weight=1.5),
    ).fit(X_train, y_train)
    acc = {
        "unit": np.mean(unit == y_oov),
        "ocr-stringdist": np.mean(peer == y_oov),
        "corrector": np.mean(fixer.predict(X_oov) == y_oov),
    }
    print(acc)
    assert acc["corrector"] > acc["unit"] + 0.1, acc  # a wide margin, not a tie
    assert acc["corrector"] > acc["ocr-stringdist"] + 0.1, acc

"""A fitted OCRCorrector saved as JSON and read back corrects exactly as before."""

import gzip
import json
import math
import pickle
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.ensemble import HistGradientBoostingClassifier

from skocrcost import EditCostEstimator, KatzBackoffLM, OCRCorrector
from skocrcost.correction import Decoder
from skocrcost.correction._persist import decode, encode
from skocrcost.correction._trees import BoostedTrees
from skocrcost.datasets import pretrained_corrector


@pytest.fixture(scope="module")
def fitted(icdar_lines):
    X, y = icdar_lines
    return OCRCorrector(decoder=Decoder(variant_weight=1.0)).fit(X[:1500], y[:1500])


def held_out_text(icdar_lines):
    X, y = icdar_lines
    return "\n".join(x for x, t in zip(X[1500:], y[1500:], strict=True) if x != t)


def test_a_saved_corrector_corrects_as_the_fitted_one(fitted, icdar_lines, tmp_path):
    assert fitted.confidence_ is not None and fitted.confidence_.model_ is not None
    assert fitted.variants_ is not None and fitted.language_model_ is not None
    path = tmp_path / "corrector.json.gz"
    fitted.save(path)
    back = OCRCorrector.load(path)
    text = held_out_text(icdar_lines)
    got, changes = back.correct(text, return_confidence=True)
    want, want_changes = fitted.correct(text, return_confidence=True)
    assert got == want and changes == want_changes  # confidences equal bit for bit
    assert sum(c.applied for c in changes) > 10 and not all(c.applied for c in changes)
    assert back.lexicon_ == fitted.lexicon_
    np.testing.assert_array_equal(back.log_prior_, fitted.log_prior_)
    assert back.get_params()["lexicon"] == "english"
    assert back.language_model_.n_ngrams_ == fitted.language_model_.n_ngrams_
    # The shipped words are not stored: only the ones the truth ranked first.
    with gzip.open(path, "rt", encoding="utf-8") as f:
        stored = json.load(f)["lexicon"]
    assert set(stored) == {"english_after"} and len(stored["english_after"]) < 20_000


def test_the_decoder_and_the_confidence_share_one_set_of_the_lexicon(fitted, tmp_path):
    """Fitted, pickled or saved, a corrector holds its lexicon as one set, which its
    decoder and its confidence's features read (not one each: 4 MB and 14 ms)."""
    fitted.save(tmp_path / "corrector.json.gz")
    for corrector in (
        fitted,
        pickle.loads(pickle.dumps(fitted)),
        OCRCorrector.load(tmp_path / "corrector.json.gz"),
    ):
        words = corrector.confidence_.features.words
        assert words == set(corrector.lexicon_)
        assert corrector._decoder().words is words


@pytest.mark.parametrize(
    "params",
    [
        {"lexicon": None, "language_model": None, "min_confidence": None},
        {
            "language_model": KatzBackoffLM(order=2, discount=0.7),
            "decoder": Decoder(reject_margin=None),
        },
        {
            "estimator": EditCostEstimator(max_token_length=2, min_count=2),
            "rules": ("punctuation", "case", "spacing", "hyphens", "capitals", "mixed_case"),
            "decoder": Decoder(split_cost=1.0, join_cost=1.0, variant_weight=1.0),
            "min_confidence": None,
        },
    ],
    ids=["truth lexicon, no LM, no confidence", "bigram LM", "rules and every fix"],
)
def test_every_kind_of_corrector_round_trips(icdar_lines, params, tmp_path):
    X, y = icdar_lines
    corrector = OCRCorrector(**params).fit(X[:600], y[:600])
    path = tmp_path / "c.json"
    corrector.save(path)
    back = OCRCorrector.load(path)
    lines = X[600:700]
    assert list(back.predict(lines)) == list(corrector.predict(lines))
    assert repr(back.get_params(deep=False)) == repr(corrector.get_params(deep=False))


def test_a_word_list_lexicon_is_stored_whole(tmp_path):
    words = ["the", "cat", "sat", "mat", "hat"]
    corrector = OCRCorrector(lexicon=words, min_confidence=None).fit(
        ["tbe cat", "sat on tbe mat"], ["the cat", "sat on the mat"]
    )
    corrector.save(tmp_path / "c.json")
    back = OCRCorrector.load(tmp_path / "c.json")
    assert back.lexicon == back.lexicon_ == corrector.lexicon_
    assert back.correct("tbe hat") == corrector.correct("tbe hat") == "the hat"


def test_bad_files_are_refused_naming_them(fitted, tmp_path):
    path = tmp_path / "c.json"
    fitted.save(path)
    data = json.loads(path.read_text())
    for change, match in (
        (lambda d: d.update(skocrcost_corrector=2), "not a corrector file of format 1"),
        (lambda d: d.pop("language_model"), "bad part"),
        (lambda d: d.update(log_prior={"$array": ["|O", [1], "AA=="]}), "unexpected array"),
        (lambda d: d.update(real_word_counts={"$pickle": "x"}), "unexpected tag"),
        (lambda d: d["params"]["$dict"].append(["colour", 1]), "unknown parameters"),
    ):
        bad = json.loads(json.dumps(data))
        change(bad)
        (tmp_path / "bad.json").write_text(json.dumps(bad))
        with pytest.raises(ValueError, match=match) as exc:
            OCRCorrector.load(tmp_path / "bad.json")
        assert "bad.json" in str(exc.value) or match.startswith("unexpected")
    (tmp_path / "text.json").write_text("not json")
    with pytest.raises(ValueError, match="text.json"):
        OCRCorrector.load(tmp_path / "text.json")
    with pytest.raises(TypeError, match="path"):
        fitted.save(3)


plain = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.floats(allow_nan=False)
    | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=3) | st.tuples(st.text(max_size=2)), inner, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(plain)
def test_plain_data_survives_json(value):
    assert decode(json.loads(json.dumps(encode(value)))) == value


@pytest.mark.parametrize(
    "array",
    [
        np.array([3, 3, 7, 2**40], dtype=np.int64),  # sorted: stored as steps
        np.array([5, -1, 2], dtype=np.int64),
        np.array([0.5, -np.inf, np.nan]),
        np.array([[1, 0], [0, 1]], dtype=np.uint8),
        np.array([], dtype=np.float64),
        np.array([7], dtype=np.uint32),
    ],
)
def test_arrays_survive_json_with_their_dtype(array):
    back = decode(json.loads(json.dumps(encode(array))))
    assert back.dtype == array.dtype and back.shape == array.shape
    np.testing.assert_array_equal(back, array)


def test_special_floats_and_counters_survive_json():
    value = [math.inf, -math.inf, Counter({("a", "b"): 2}), {1, 2}]
    back = decode(json.loads(json.dumps(encode(value))))
    assert back[:2] == [math.inf, -math.inf] and back[2] == value[2] and back[3] == {1, 2}
    assert isinstance(back[2], Counter)
    assert math.isnan(decode(json.loads(json.dumps(encode(math.nan)))))
    with pytest.raises(TypeError, match="cannot save a object"):
        encode(object())


def test_boosted_trees_predict_as_the_classifier():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 5))
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0.3) ^ (rng.random(600) < 0.1)
    X[rng.random(X.shape) < 0.1] = np.nan  # missing values take the learned side
    model = HistGradientBoostingClassifier(max_iter=60, random_state=0).fit(X, y)
    trees = BoostedTrees.from_classifier(model)
    X_test = rng.normal(size=(400, 5))
    X_test[rng.random(X_test.shape) < 0.1] = np.nan
    np.testing.assert_array_equal(trees.predict_proba(X_test), model.predict_proba(X_test)[:, 1])
    assert trees.predict_proba(X_test[:0]).shape == (0,)
    for row in X_test[:3]:  # one change at a time, as correct(line) asks
        np.testing.assert_array_equal(trees.predict_proba([row]), model.predict_proba([row])[:, 1])
    back = pickle.loads(pickle.dumps(trees))  # its walk tables are derived, not stored
    assert "_flat" in trees.__dict__ and "_flat" not in back.__dict__
    np.testing.assert_array_equal(back.predict_proba(X_test), model.predict_proba(X_test)[:, 1])
    three = HistGradientBoostingClassifier(max_iter=5).fit(X, rng.integers(0, 3, 600))
    with pytest.raises(ValueError, match="only binary"):
        BoostedTrees.from_classifier(three)


def test_the_shipped_corrector():
    corrector = pretrained_corrector()
    assert corrector.correct("tbe Church of Englaud") == "the Church of England"
    assert corrector.confidence_ is not None and corrector.language_model_.order == 3
    with pytest.raises(ValueError, match="name must be one of"):
        pretrained_corrector("en-modern")
    with pytest.raises(TypeError, match="name must be one of"):
        pretrained_corrector(1)


def test_files_and_pickles_with_one_flag_per_rule_load_with_rules(icdar_lines, tmp_path):
    # Correctors saved before ``rules`` held fix_punctuation, fix_case, ... flags.
    X, y = icdar_lines
    fixer = OCRCorrector(min_confidence=None, rules=("hyphens", "case")).fit(X[:300], y[:300])
    path = tmp_path / "corrector.json"
    fixer.save(path)
    data = json.loads(path.read_text())
    params = decode(data["params"])
    del params["rules"]
    params.update(fix_hyphens=True, fix_case=True, fix_punctuation=False)
    data["params"] = encode(params)
    path.write_text(json.dumps(data))
    again = OCRCorrector.load(path)
    assert sorted(again.rules) == ["case", "hyphens"]
    text = "Tbe Church of Englaud, con-\ntinued In the house"
    assert again.correct(text) == fixer.correct(text)
    state = fixer.__getstate__()
    del state["rules"]
    state.update(fix_hyphens=True, fix_case=True, fix_spacing=False)
    old = OCRCorrector.__new__(OCRCorrector)
    old.__setstate__(state)
    assert sorted(old.rules) == ["case", "hyphens"] and "fix_case" not in vars(old)
    assert old.correct(text) == fixer.correct(text)


def test_confidences_learned_on_whole_text_recurrences_load_reading_them_so(
    fitted, icdar_lines, tmp_path
):
    """Files and pickles written before recurrences were counted near each change keep
    the whole text's count, which their trees learned; new ones count nearby."""
    confidence = fitted.confidence_
    assert confidence.nearby_recurrence and confidence.features.nearby_recurrence
    path = tmp_path / "corrector.json"
    fitted.save(path)
    data = json.loads(path.read_text())
    assert data["confidence"]["nearby_recurrence"] is True
    assert OCRCorrector.load(path).confidence_.features.nearby_recurrence
    del data["confidence"]["nearby_recurrence"]
    path.write_text(json.dumps(data))
    old = OCRCorrector.load(path)
    assert not old.confidence_.nearby_recurrence and not old.confidence_.features.nearby_recurrence
    text = "\n".join([held_out_text(icdar_lines)] * 4)  # (recurring far apart)
    cores = fitted.confidence_.features._text_facts([t.split() for t in text.split("\n")]).cores
    where = max(cores.values(), key=len)
    assert fitted.confidence_.features._recurrence(where, where[0]) < len(where)
    assert old.confidence_.features._recurrence(where, where[0]) == len(where)
    _, before = old.correct(text, return_confidence=True)
    again = pickle.loads(pickle.dumps(fitted))
    del again.confidence_.nearby_recurrence, again.confidence_.features.nearby_recurrence
    assert not again.confidence_.features.nearby_recurrence
    assert again.correct(text, return_confidence=True)[1] == before


def test_confidences_learned_on_absolute_noise_load_reading_it_so(fitted, icdar_lines, tmp_path):
    """Files and pickles written before the noise features became relative to the
    text keep the meaning their trees learned; new ones read noise as relative."""
    assert fitted.confidence_.relative_noise and fitted.confidence_.features.relative_noise
    path = tmp_path / "corrector.json"
    fitted.save(path)
    data = json.loads(path.read_text())
    assert data["confidence"]["relative_noise"] is True
    del data["confidence"]["relative_noise"]
    path.write_text(json.dumps(data))
    old = OCRCorrector.load(path)
    assert not old.confidence_.relative_noise and not old.confidence_.features.relative_noise
    text = held_out_text(icdar_lines)
    _, now = fitted.correct(text, return_confidence=True)
    _, before = old.correct(text, return_confidence=True)
    assert [c.confidence for c in now] != [c.confidence for c in before]
    # A pickle of an old corrector: neither object has the attribute.
    again = pickle.loads(pickle.dumps(fitted))
    del again.confidence_.relative_noise, again.confidence_.features.relative_noise
    assert again.correct(text, return_confidence=True)[1] == before

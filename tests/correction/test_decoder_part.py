"""The decoder's weights as a part of OCRCorrector: reached as ``decoder__<weight>``,
read afresh when changed in place, and loaded from pickles and files written while
they were the corrector's own parameters."""

import json
import pickle

import pytest
from bad_inputs import TOKENS
from sklearn.base import clone

from skocrcost import OCRCorrector, OCRCorrectorCV
from skocrcost.correction import Decoder
from skocrcost.correction._decoding import WEIGHTS, decoder_as_saved
from skocrcost.correction._persist import decode, encode

LEXICON = ["the", "cow"]


def test_the_corrector_takes_a_handful_of_parameters_and_the_decoder_the_weights():
    assert sorted(OCRCorrector().get_params(deep=False)) == [
        "decoder",
        "estimator",
        "language_model",
        "lexicon",
        "min_confidence",
        "n_jobs",
        "rules",
    ]
    assert set(WEIGHTS) == set(Decoder().get_params())
    deep = OCRCorrector(decoder=Decoder(lm_weight=2.0)).get_params()
    assert {f"decoder__{w}" for w in WEIGHTS} <= set(deep)
    assert deep["decoder__lm_weight"] == 2.0
    # listed while decoder is None too, at Decoder()'s values: what a grid may name
    deep = OCRCorrector().get_params()
    assert {k: v for k, v in deep.items() if k.startswith("decoder__")} == {
        f"decoder__{w}": v for w, v in Decoder().get_params().items()
    }
    assert "decoder__lm_weight" not in OCRCorrector().get_params(deep=False)


def test_set_params_reaches_the_weights_while_the_decoder_is_none():
    fixer = OCRCorrector()
    assert fixer.set_params(decoder__beam_width=4) is fixer
    assert fixer.decoder.get_params() == Decoder(beam_width=4).get_params()
    # a new Decoder each time: no other corrector (nor the default) sees the change
    assert OCRCorrector().decoder is None
    other = OCRCorrector().set_params(decoder__lm_weight=0.5)
    assert other.decoder is not fixer.decoder and other.decoder.beam_width == 8
    # a decoder passed along with its weights is the one set
    mine = Decoder(join_cost=3.0)
    both = OCRCorrector().set_params(decoder=mine, decoder__lm_weight=2.0)
    assert both.decoder is mine and (mine.join_cost, mine.lm_weight) == (3.0, 2.0)
    with pytest.raises(ValueError, match="lm_weight"):
        OCRCorrector().set_params(lm_weight=2.0)  # the old flat name is no parameter


def test_a_weight_changed_after_fit_is_read_by_the_next_call():
    fixer = OCRCorrector(lexicon=LEXICON, decoder=Decoder()).fit(*TOKENS)
    before = fixer._decoder()
    assert fixer._decoder() is before  # kept while nothing changes
    fixer.decoder.lm_weight = 0.25  # in place, as set_params does to a part
    after = fixer._decoder()
    assert after is not before and after.lm_weight == 0.25
    fixer.set_params(decoder__beam_width=1)
    assert fixer._decoder().beam_width == 1
    # and the weights reach what the decoder does: with no rejection an unknown word
    # is always replaced by its nearest word
    assert fixer.correct("kat") == "kat"
    assert fixer.set_params(decoder__reject_margin=None).correct("kat") == "the"


def test_a_decoder_that_is_not_one_is_refused_by_name():
    with pytest.raises(ValueError, match="'decoder'"):
        OCRCorrector(decoder=5).fit(*TOKENS)
    with pytest.raises(ValueError, match="'lm_weight' parameter of Decoder"):
        OCRCorrector(decoder=Decoder(lm_weight=-1.0)).fit(*TOKENS)
    fixer = OCRCorrector(lexicon=LEXICON).fit(*TOKENS)
    fixer.decoder = {"lm_weight": 2.0}  # set after fit: correct checks it itself
    with pytest.raises(TypeError, match="decoder must be a Decoder or None"):
        fixer.correct("tbe cow")


def test_a_pipeline_reaches_the_weights_of_its_corrector():
    from sklearn.pipeline import Pipeline

    pipe = Pipeline([("fix", OCRCorrector(lexicon=LEXICON))])
    assert pipe.get_params()["fix__decoder__beam_width"] == 8
    pipe.set_params(fix__decoder__beam_width=2)
    assert pipe.named_steps["fix"].decoder.beam_width == 2


def test_the_cv_grid_names_the_weights_as_parameters_of_the_decoder():
    with pytest.raises(ValueError, match=r"decoder__<weight>.*\['lm_weight'\]"):
        OCRCorrectorCV(param_grid={"lm_weight": [1.0, 2.0]}).fit(TOKENS[0] * 3, TOKENS[1] * 3)


def test_flat_weights_of_older_pickles_and_files_become_a_decoder():
    now = Decoder().get_params()
    params = {"lexicon": LEXICON, "lm_weight": 2.0, "beam_width": 4, "rules": ()}
    decoder_as_saved(params, now)
    assert set(params) == {"lexicon", "rules", "decoder"}
    assert params["decoder"].get_params() == Decoder(lm_weight=2.0, beam_width=4).get_params()
    defaults = dict(now, lexicon=None)
    assert decoder_as_saved(defaults, now) == {"lexicon": None, "decoder": None}

    fixer = OCRCorrector(lexicon=LEXICON, decoder=Decoder(lm_weight=2.0)).fit(*TOKENS)
    old = fixer.__getstate__()  # as pickled before the weights became a Decoder
    del old["decoder"], old["_decoder_defaults"]
    old.update(lm_weight=2.0, reject_margin=None)
    back = OCRCorrector.__new__(OCRCorrector)
    back.__setstate__(old)
    was = Decoder(lm_weight=2.0, reject_margin=None, join_cost=None)  # joins were off then
    assert back.decoder.get_params() == was.get_params()
    assert back.correct("kat") == "the"
    assert pickle.loads(pickle.dumps(fixer)).decoder.get_params() == fixer.decoder.get_params()


def test_saved_files_keep_the_decoder_and_older_flat_files_load(tmp_path):
    fixer = OCRCorrector(lexicon=LEXICON, decoder=Decoder(reject_margin=None)).fit(*TOKENS)
    path = tmp_path / "fixer.json"
    fixer.save(path)
    loaded = OCRCorrector.load(path)
    assert loaded.decoder.get_params() == fixer.decoder.get_params()
    assert loaded.correct("kat") == fixer.correct("kat") == "the"

    data = json.loads(path.read_text())  # the file as written before Decoder existed
    params = decode(data["params"])
    params.update(params.pop("decoder")["Decoder"])
    data["params"] = encode(params)
    path.write_text(json.dumps(data))
    flat = OCRCorrector.load(path)
    assert flat.decoder.get_params() == fixer.decoder.get_params()
    assert clone(flat).get_params()["decoder__reject_margin"] is None


def test_a_corrector_saved_with_the_default_decoder_keeps_decoding_as_it_did(tmp_path):
    # decoder=None stands for the Decoder defaults of the version that saved it: a
    # file or pickle from before join_cost defaulted to 3 keeps reading without joins,
    # one saved now keeps decoder=None, and one saved under other defaults keeps them.
    fixer = OCRCorrector(lexicon=LEXICON).fit(*TOKENS)
    path = tmp_path / "fixer.json"
    fixer.save(path)
    assert OCRCorrector.load(path).decoder is None
    assert pickle.loads(pickle.dumps(fixer)).decoder is None

    data = json.loads(path.read_text())
    del data["decoder_defaults"]  # as written before the defaults were stored
    path.write_text(json.dumps(data))
    assert OCRCorrector.load(path).decoder.get_params() == dict(
        Decoder().get_params(), join_cost=None
    )
    data["decoder_defaults"] = dict(Decoder().get_params(), beam_width=3)
    path.write_text(json.dumps(data))
    assert OCRCorrector.load(path).decoder.beam_width == 3
    data["decoder_defaults"] = ["not", "a", "dict"]
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="bad part"):
        OCRCorrector.load(path)

    state = fixer.__getstate__()
    del state["_decoder_defaults"]  # pickled before the defaults were stored
    back = OCRCorrector.__new__(OCRCorrector)
    back.__setstate__(state)
    assert back.decoder.join_cost is None


@pytest.mark.parametrize(
    "check",
    [
        "check_get_params_invariance",
        "check_set_params",
        "check_no_attributes_set_in_init",
        "check_parameters_default_constructible",
        "check_estimator_cloneable",
        "check_estimator_repr",
        "check_do_not_raise_errors_in_init_or_set_params",
    ],
)
def test_the_decoder_passes_scikit_learns_checks_of_a_part(check):
    # (the checks that fit do not apply: a Decoder is fitted as part of its corrector)
    from sklearn.utils import estimator_checks

    getattr(estimator_checks, check)("Decoder", Decoder())

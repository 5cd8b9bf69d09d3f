"""A fitted OCRCorrector as one JSON file: numbers, strings and arrays, never pickle.

Loading runs no code from the file: each part is rebuilt by its own class from
plain data (lists, dicts, base64 arrays of a stated dtype), so a corrector file
from an untrusted source can at worst be refused.  What can be recomputed fast
from the rest (the lexicon's search indexes, the word prior) is recomputed; the
candidates fit found for the most frequent words are stored, since searching
them again takes seconds.

Layout: ``{"skocrcost_corrector": FORMAT_VERSION, "params", "estimator", "lexicon",
"prior_counts", "language_model", "spelling", "variants", "surface_rules",
"confidence", "word_candidates", ...}``; gzip-compressed when the path ends in ``.gz``.
"""

from __future__ import annotations

import base64
import math
import os
from collections import Counter

import numpy as np

from .. import _persist
from ..estimator import EditCostEstimator
from ..lm import KatzBackoffLM, _Level
from ._confidence import ChangeConfidence
from ._decoding import Decoder, decoder_as_saved
from ._priors import _Spelling
from ._rules import SurfaceRules, pop_fix_flags
from ._trees import FIELDS, BoostedTrees
from ._variants import SpellingVariants

KEY = "skocrcost_corrector"
FORMAT_VERSION = 1
_DTYPES = ("<f8", "<i8", "<i4", "<u4", "|u1", "|b1")  # the only dtypes an array may have
_STEP_DTYPES = ("|u1", "<u2", "<u4", "<u8")


def _b64(array):
    """``[dtype, shape, base64 of the little-endian bytes]``."""
    array = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<"))
    return [array.dtype.str, list(array.shape), base64.b64encode(array.tobytes()).decode("ascii")]


# -- plain data, tagged where JSON has no type of its own ----------------------------------
def encode(value):
    """``value`` (None, bool, int, float, str, list, tuple, set, dict, Counter,
    ndarray, nested) as JSON-ready data; TypeError for anything else."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"$float": repr(value)}
    if isinstance(value, np.generic):
        return encode(value.item())
    if isinstance(value, np.ndarray):
        dtype = value.dtype.newbyteorder("<") if value.dtype.byteorder == ">" else value.dtype
        if dtype.str not in _DTYPES:
            raise TypeError(f"cannot save an array of dtype {value.dtype}")
        if dtype.kind in "iu" and value.ndim == 1 and len(value) > 1:
            steps = np.diff(value.astype(np.int64))
            if steps.min() >= 0:  # sorted keys: their steps are small and compress well
                small = np.min_scalar_type(int(steps.max()))
                return {"$steps": [dtype.str, int(value[0]), _b64(steps.astype(small))]}
        return {"$array": _b64(value.astype(dtype))}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, tuple):
        return {"$tuple": [encode(v) for v in value]}
    if isinstance(value, (set, frozenset)):
        return {"$set": [encode(v) for v in value]}
    if isinstance(value, Counter):
        return {"$counter": [[encode(k), encode(v)] for k, v in value.items()]}
    if isinstance(value, dict):
        return {"$dict": [[encode(k), encode(v)] for k, v in value.items()]}
    raise TypeError(f"cannot save a {type(value).__name__}")


def decode(data):
    """The value :func:`encode` gave ``data`` for; ValueError for anything else."""
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    if isinstance(data, list):
        return [decode(v) for v in data]
    if not isinstance(data, dict) or len(data) != 1:
        raise ValueError(f"unexpected {type(data).__name__} in a corrector file")
    ((tag, body),) = data.items()
    if tag == "$float" and body in ("inf", "-inf", "nan"):
        return float(body)
    if tag == "$array":
        dtype, shape, text = body
        if dtype not in _DTYPES:
            raise ValueError(f"unexpected array dtype {dtype!r} in a corrector file")
        return np.frombuffer(base64.b64decode(text), dtype=dtype).reshape(shape).copy()
    if tag == "$steps":
        dtype, first, (step_dtype, _, text) = body[0], body[1], body[2]
        if dtype not in _DTYPES or step_dtype not in _STEP_DTYPES:
            raise ValueError(f"unexpected array dtype {dtype!r} in a corrector file")
        steps = np.frombuffer(base64.b64decode(text), dtype=step_dtype).astype(np.int64)
        return np.concatenate([[first], first + np.cumsum(steps)]).astype(dtype)
    if tag == "$tuple":
        return tuple(decode(v) for v in body)
    if tag == "$set":
        return {decode(v) for v in body}
    if tag in ("$counter", "$dict"):
        pairs = ((decode(k), decode(v)) for k, v in body)
        return Counter(dict(pairs)) if tag == "$counter" else dict(pairs)
    raise ValueError(f"unexpected tag {tag!r} in a corrector file")


def _unfrozen(estimator):
    """The estimator inside a ``sklearn.frozen.FrozenEstimator`` (costs used as they are)."""
    inner = getattr(estimator, "estimator", None)
    return inner if isinstance(inner, EditCostEstimator) else estimator


def _state(obj, names):
    return {name: encode(getattr(obj, name)) for name in names}


def _rebuilt(cls, state, names):
    """An instance of ``cls`` with the attributes ``names`` taken from ``state``."""
    obj = cls.__new__(cls)
    for name in names:
        setattr(obj, name, decode(state[name]))
    return obj


# -- the parts -------------------------------------------------------------------------------
RULE_TABLES = (
    "lead", "trail", "_trail_seen", "trail_any", "case", "_case_seen", "case_any", "spacing",
    "_spacing_seen", "spacing_any", "join", "capitals", "hyphen", "written",
)  # fmt: skip
LM_FIELDS = ("context_keys", "total", "discount", "alpha", "rest", "keys", "counts")


def _lm_to_json(lm):
    if lm is None:
        return None
    words = sorted(lm.vocabulary_, key=lm.vocabulary_.get)
    return {
        "params": lm.get_params(),
        "words": words,
        "n_tokens": lm.n_tokens_,
        "levels": [_state(level, LM_FIELDS) for level in lm._levels],
    }


def _lm_from_json(state):
    if state is None:
        return None
    levels = [_Level(**{f: decode(level[f]) for f in LM_FIELDS}) for level in state["levels"]]
    vocabulary = {w: i for i, w in enumerate(state["words"])}
    return KatzBackoffLM(**state["params"])._set_fitted(vocabulary, levels, int(state["n_tokens"]))


def _variants_to_json(variants):
    if variants is None:
        return None
    return {
        "estimator": _unfrozen(variants.estimator_)._to_json(include_references=False),
        **_state(variants, ("pairs", "normaliser", "log_share")),
    }


def _variants_from_json(state, where):
    if state is None:
        return None
    variants = _rebuilt(SpellingVariants, state, ("pairs", "normaliser", "log_share"))
    variants.estimator_ = EditCostEstimator._from_json(state["estimator"], where)
    variants.estimator = EditCostEstimator(**variants.estimator_.get_params())
    variants.metric = variants.estimator_.metric_
    return variants


def _confidence_to_json(confidence):
    if confidence is None:
        return None
    model = confidence.model_
    trees = None if model is None else [_state_of_tree(t) for t in model.trees]
    return {
        "n_changes": confidence.n_changes_,
        "helpful_share": encode(confidence.helpful_share_),
        "relative_noise": bool(confidence.relative_noise),
        "nearby_recurrence": bool(confidence.nearby_recurrence),
        "baseline": None if model is None else model.baseline,
        "trees": trees,
    }


def _state_of_tree(tree):
    return {name: encode(tree[name]) for name in FIELDS}


def _confidence_from_json(state):
    if state is None:
        return None
    confidence = ChangeConfidence(None)  # its features: the corrector's parts, set on load
    confidence.n_changes_ = int(state["n_changes"])
    confidence.helpful_share_ = decode(state["helpful_share"])
    confidence.relative_noise = bool(state.get("relative_noise", False))  # older files: absolute
    # older files: recurrences over the whole text
    confidence.nearby_recurrence = bool(state.get("nearby_recurrence", False))
    confidence.model_ = None
    if state["trees"] is not None:
        trees = [{name: decode(t[name]) for name in FIELDS} for t in state["trees"]]
        confidence.model_ = BoostedTrees(state["baseline"], trees)
    return confidence


def _candidates_to_json(corrector):
    """The candidates fit found for the most frequent words (``_word_candidates_``),
    as arrays of lexicon indices: searching them again would make loading slow."""
    found = corrector._word_candidates_
    if found is None:
        return None
    settings, table = found
    arrays = pack_candidates(table, corrector.lexicon_)
    return {"settings": encode(settings)} | {
        name: encode(array) for name, array in zip(PACKED, arrays, strict=True)
    }


def _candidates_from_json(state, lexicon, where):
    """``_word_candidates_`` of :func:`_candidates_to_json`'s ``state``."""
    arrays = [decode(state[name]) for name in PACKED]
    return tuple(decode(state["settings"])), unpack_candidates(arrays, lexicon, where)


# The arrays of a packed candidates table.
PACKED = ("words", "counts", "candidates", "costs")


def pack_candidates(table, lexicon):
    """A table ``{word: (candidates, costs)}`` of lexicon words as four flat arrays
    (:data:`PACKED`): the words and their candidates as int32 lexicon indices, the
    number of candidates of each word, and all costs (float64), in the table's order.

    Files store it so; so do pickles, where two small arrays per word would be
    20,000 out-of-band buffers (each one a frame of a Dask message).
    """
    index = {w: i for i, w in enumerate(lexicon)}
    return (
        np.array([index[w] for w in table], dtype=np.int32),
        np.array([len(c) for c, _ in table.values()], dtype=np.int32),
        np.array([index[w] for c, _ in table.values() for w in c], dtype=np.int32),
        np.concatenate([d for _, d in table.values()] or [np.zeros(0)]),
    )


def unpack_candidates(arrays, lexicon, where):
    """The table :func:`pack_candidates` packed; ValueError naming ``where`` for
    arrays that do not describe one over ``lexicon``."""
    words, counts, candidates, costs = arrays
    n = len(lexicon)
    if (
        len(words) != len(counts)
        or counts.sum() != len(candidates)
        or len(costs) != len(candidates)
        or (counts < 0).any()
        or not ((0 <= words) & (words < n)).all()
        or not ((0 <= candidates) & (candidates < n)).all()
        or not (costs >= 0).all()
    ):
        raise ValueError(f"{where}: inconsistent candidates of frequent words")
    ends = np.cumsum(counts).tolist()
    table = {}
    for w, lo, hi in zip(words.tolist(), [0, *ends], ends):
        table[lexicon[w]] = (tuple(lexicon[c] for c in candidates[lo:hi].tolist()), costs[lo:hi])
    return table


# -- the corrector ---------------------------------------------------------------------------
def corrector_to_json(corrector, english_words):
    """The fitted ``corrector`` as JSON-ready data (see the module docstring).

    ``english_words``: a function giving the shipped word list, lower-cased and
    deduplicated in order; a lexicon built on it (``lexicon="english"``) is stored
    as the words that come before the list's own order, not as the whole list.
    """
    params = corrector.get_params(deep=False)
    params["estimator"] = None if params["estimator"] is None else "clone of estimator_"
    lm = params["language_model"]
    if lm is not None and not isinstance(lm, str):
        params["language_model"] = {"KatzBackoffLM": lm.get_params()}
    if params["decoder"] is not None:
        params["decoder"] = {"Decoder": params["decoder"].get_params()}
    lexicon = corrector.lexicon_
    if params["lexicon"] is not None and not isinstance(params["lexicon"], str):
        params["lexicon"] = "lexicon_"
    stored = {"words": lexicon}
    if params["lexicon"] == "english":
        english = english_words()
        head = _head(lexicon, english)
        if _english_lexicon_from(head, english) == lexicon:
            stored = {"english_after": head}
    return {
        KEY: FORMAT_VERSION,
        "params": encode(params),
        # What decoder=None stood for: a later version's defaults do not change it.
        "decoder_defaults": Decoder().get_params(),
        "estimator": _unfrozen(corrector.estimator_)._to_json(include_references=False),
        "lexicon": stored,
        "log_prior": encode(corrector.log_prior_),
        # Whether the decoder also searches the lexicon words the truth had (those
        # above the least prior, which every word the truth lacked has).
        "seen_index": corrector._candidate_indexes_["seen_neighbors"] is not None,
        "log_oov": corrector.log_oov_,
        "language_model": _lm_to_json(corrector.language_model_),
        "spelling": _state(corrector.spelling_, ("pairs", "contexts", "n_outcomes")),
        "variants": _variants_to_json(corrector.variants_),
        "surface_rules": _state(corrector.surface_rules_, RULE_TABLES),
        "real_word_counts": encode(corrector.real_word_counts_),
        "mixed_case_prior": corrector.mixed_case_prior_,
        "keep_old_spellings": corrector.keep_old_spellings_,
        "written_forms": corrector.written_forms_,
        "letter_digits": corrector.letter_digits_,
        "scale": corrector.scale_,
        "confidence": _confidence_to_json(corrector.confidence_),
        "word_candidates": _candidates_to_json(corrector),
    }


def _head(lexicon, english_words):
    """The words of ``lexicon`` before its longest end that follows the order of
    ``english_words`` (the words the truth did not have, in a lexicon built on them)."""
    j = len(lexicon) - 1
    for word in reversed(english_words):
        if j >= 0 and lexicon[j] == word:
            j -= 1
    return lexicon[: j + 1]


def _english_lexicon_from(head, english_words):
    """``head`` (the lexicon words the truth had, most frequent first), then the
    rest of the English words in their order."""
    first = set(head)
    return list(head) + [w for w in english_words if w not in first]


def corrector_from_json(cls, data, where, english_words):
    """The fitted corrector of :func:`corrector_to_json`'s ``data``."""
    if not isinstance(data, dict) or data.get(KEY) != FORMAT_VERSION:
        found = data.get(KEY) if isinstance(data, dict) else None
        raise ValueError(
            f"{where} is not a corrector file of format {FORMAT_VERSION} "
            f"(found {KEY}={found!r}); write one with OCRCorrector.save"
        )
    try:
        return _corrector(cls, data, where, english_words)
    except (KeyError, TypeError, IndexError, AttributeError) as exc:
        raise ValueError(f"{where}: a corrector file with a bad part ({exc!r})") from None


def _corrector(cls, data, where, english_words):
    params = decode(data["params"])
    params.setdefault("rules", pop_fix_flags(params))  # files written before rules existed
    if isinstance(params.get("decoder"), dict):
        params["decoder"] = Decoder(**params["decoder"]["Decoder"])
    decoder_as_saved(params, data.get("decoder_defaults"))
    estimator = EditCostEstimator._from_json(data["estimator"], where)
    stored = data["lexicon"]
    if "english_after" in stored:
        lexicon = _english_lexicon_from(stored["english_after"], english_words())
    else:
        lexicon = list(stored["words"])
    if params["estimator"] is not None:
        params["estimator"] = EditCostEstimator(**estimator.get_params())
    if isinstance(params["language_model"], dict):
        params["language_model"] = KatzBackoffLM(**params["language_model"]["KatzBackoffLM"])
    if params["lexicon"] == "lexicon_":
        params["lexicon"] = lexicon
    unknown = set(params) - set(cls().get_params(deep=False))
    if unknown:
        raise ValueError(f"{where}: unknown parameters {sorted(unknown)}")
    corrector = cls(**params)
    log_prior = decode(data["log_prior"])
    if len(log_prior) != len(lexicon):
        raise ValueError(f"{where}: {len(log_prior)} word priors for {len(lexicon)} words")
    if data["seen_index"]:
        seen = np.flatnonzero(log_prior > log_prior.min())
    else:
        seen = np.arange(len(lexicon))
    corrector._set_fitted(
        estimator=estimator,
        lexicon=lexicon,
        log_prior=log_prior,
        seen=seen,
        language_model=_lm_from_json(data["language_model"]),
        log_oov=float(data["log_oov"]),
        spelling=_rebuilt(_Spelling, data["spelling"], ("pairs", "contexts", "n_outcomes")),
        variants=_variants_from_json(data["variants"], where),
        surface_rules=_rebuilt(SurfaceRules, data["surface_rules"], RULE_TABLES),
        real_word_counts=decode(data["real_word_counts"]),
        mixed_case_prior=float(data["mixed_case_prior"]),
        keep_old_spellings=bool(data.get("keep_old_spellings", True)),
        written_forms=_written_forms(data.get("written_forms", {}), where),
        letter_digits=_letter_digits(data.get("letter_digits", ""), where),
        scale=float(data["scale"]),
        confidence=_confidence_from_json(data["confidence"]),
    )
    found = data.get("word_candidates")  # files written before fit searched them: now
    if found is not None:
        corrector._word_candidates_ = _candidates_from_json(found, lexicon, where)
    else:
        corrector._search_frequent_words()
    return corrector


def _written_forms(state, where):
    """The ``written_forms`` of a file: ``{word: form}``, strings (older files: none)."""
    if not isinstance(state, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in state.items()
    ):
        raise ValueError(f"{where}: written_forms must map words to words")
    return dict(state)


def _letter_digits(state, where):
    """The ``letter_digits`` of a file: a string of digits (older files: none)."""
    if not isinstance(state, str) or not all(c.isdigit() for c in state):
        raise ValueError(f"{where}: letter_digits must be a string of digits")
    return state


def save(corrector, path, english_words):
    _persist.write_json(corrector_to_json(corrector, english_words), path)


def load(cls, path, english_words):
    data = _persist.read_json(path)
    return corrector_from_json(cls, data, os.fspath(path), english_words)

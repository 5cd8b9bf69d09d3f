"""Correction of OCR text: the corrector and its parts.

The parts, one idea each: ``_tokens`` (punctuation, case, what may be
corrected), ``_align`` (token alignment of OCR lines with their truth),
``_rules`` (surface rules), ``_decoding`` (the decoder's weights, a part of the
estimator), ``_decoder`` (the beam over each line), ``_priors`` and
``_variants`` (what keeping a word is worth), ``_scoring`` (word and character
error rates), ``_corrector`` (the estimator).
"""

from ._align import align_tokens
from ._corrector import OCRCorrector
from ._cv import OCRCorrectorCV
from ._decoding import Decoder
from ._priors import _Spelling, _UnigramPrior  # noqa: F401  (pickles written before the split)
from ._scoring import (
    character_error_rate,
    character_error_rate_scorer,
    word_error_rate,
    word_error_rate_scorer,
)

__all__ = [
    "Decoder",
    "OCRCorrector",
    "OCRCorrectorCV",
    "align_tokens",
    "character_error_rate",
    "character_error_rate_scorer",
    "word_error_rate",
    "word_error_rate_scorer",
]

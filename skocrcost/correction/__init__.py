"""Correction of OCR text: the corrector and its parts.

The parts, one idea each: ``_tokens`` (punctuation, case, what may be
corrected), ``_align`` (token alignment of OCR lines with their truth),
``_rules`` (surface rules), ``_decoder`` (the beam over each line),
``_priors`` and ``_variants`` (what keeping a word is worth), ``_corrector``
(the estimator).
"""

from ._corrector import OCRCorrector
from ._priors import _Spelling, _UnigramPrior  # noqa: F401  (pickles written before the split)

__all__ = ["OCRCorrector"]

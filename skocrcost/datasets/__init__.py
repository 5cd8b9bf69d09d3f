"""Real OCR data to start from: a small sample of the ICDAR 2017 post-OCR corpus.

The sample is embedded in the package (under 1 MB of text), so examples, the
``skocrcost demo`` command and the tests run without downloads.
"""

import gzip
from importlib import resources

__all__ = ["load_english_words", "load_icdar2017_sample", "pretrained", "pretrained_corrector"]

_KINDS = ("lines", "tokens")

# Shipped cost models: name -> file under data/ (scripts/make_pretrained.py writes them).
PRETRAINED = {"en-historical": "en-historical.json.gz"}
# Shipped correctors (scripts/make_pretrained_corrector.py writes them).
PRETRAINED_CORRECTORS = {"en-historical": "en-historical-corrector.json.gz"}


def load_icdar2017_sample(kind="lines"):
    """Load (OCR, ground truth) pairs from the ICDAR 2017 English monographs.

    A deterministic sample of the training part of the ICDAR 2017 Competition on
    Post-OCR Text Correction (English monographs): every 12th pseudo-line of about
    80 characters (3,537 pairs, character error rate about 2%) or every 24th
    token pair (25,414 pairs, about 5% of them differ).

    Chiron, Doucet, Coustaty, Moreux: "ICDAR2017 Competition on Post-OCR Text
    Correction", ICDAR 2017, doi:10.1109/ICDAR.2017.232.  Published for research;
    redistributed here as a small sample with this citation.

    Parameters
    ----------
    kind : {"lines", "tokens"}, default="lines"

    Returns
    -------
    X : list of str
        OCR output.
    y : list of str
        The ground truth, pair by pair.

    Examples
    --------
    >>> from skocrcost.datasets import load_icdar2017_sample
    >>> X, y = load_icdar2017_sample("tokens")
    >>> len(X), len(y)
    (25414, 25414)
    """
    if not isinstance(kind, str):
        raise TypeError(f"kind must be one of {_KINDS}, got {type(kind).__name__}: {kind!r}")
    if kind not in _KINDS:
        raise ValueError(f"kind must be one of {_KINDS}, got {kind!r}")
    path = resources.files(__name__).joinpath("data", f"icdar2017_{kind}.tsv.gz")
    with path.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8", newline="\n") as f:
        pairs = [line.rstrip("\n").split("\t") for line in f]
    X = [p[0] for p in pairs]
    y = [p[1] for p in pairs]
    return X, y


def load_english_words():
    """English words to correct to: the SCOWL lists of American and British English.

    106,160 words (the union of the lists Debian ships as ``wamerican`` and
    ``wbritish``, in their order, possessives and proper names included): the
    default lexicon of :class:`skocrcost.OCRCorrector`.  SCOWL (Spell Checker
    Oriented Word Lists) is Copyright 2000-2011 by Kevin Atkinson and others,
    redistributed with its permission notice (``data/COPYRIGHT-SCOWL`` in this
    package).

    Returns
    -------
    list of str

    Examples
    --------
    >>> from skocrcost.datasets import load_english_words
    >>> words = load_english_words()
    >>> len(words), "government" in words
    (106160, True)
    """
    path = resources.files(__name__).joinpath("data", "scowl_english.txt.gz")
    with path.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8", newline="\n") as f:
        return f.read().split()


def pretrained(name="en-historical"):
    """A fitted cost model shipped with the package, to start from without ground truth.

    ``"en-historical"``: English printed books of the 16th to 20th century, learned
    from 38,194 (OCR, truth) pseudo-lines of the ICDAR 2017 English monographs
    (the first 90% in corpus order; the rest is held out), k = 0.003 chosen by
    5-fold cross-validation.  The file holds the learned costs and edit counts,
    derived statistics, not the corpus text.  See the docs page "Pretrained
    models" for how well it does on held-out and out-of-domain OCR.

    Parameters
    ----------
    name : {"en-historical"}

    Returns
    -------
    EditCostEstimator
        Fitted (``score`` works); ``.metric_`` is the :class:`WeightedLevenshtein`.
        It holds no references, so ``transform`` needs a refit.

    Examples
    --------
    >>> from skocrcost import pretrained
    >>> metric = pretrained("en-historical").metric_
    >>> metric.distance("1t", "It") < 0.5 < 1.0 < metric.distance("Qt", "It")
    True
    """
    from ..estimator import EditCostEstimator

    return _load_shipped(EditCostEstimator, PRETRAINED, name)


def pretrained_corrector(name="en-historical"):
    """A fitted :class:`~skocrcost.OCRCorrector` shipped with the package: correct
    English historical print without any ground truth of your own.

    ``"en-historical"``: the learned costs of :func:`pretrained` (38,194 pseudo-lines
    of the ICDAR 2017 English monographs); the language model, word prior and
    rules learned from the embedded ICDAR 2017 sample (:func:`load_icdar2017_sample`,
    3,537 lines); the shipped English words (:func:`load_english_words`) and the
    sample's words seen twice as the lexicon; the confidence of changes learned
    (:meth:`~skocrcost.OCRCorrector.fit_confidence`) from its 26,167 changes to
    41,130 lines of the ICDAR 2017 monographs and periodicals, made at
    ``min_confidence=0.7``.  It neither joins tokens nor closes up words with a
    half that is a word (``Decoder(join_cost=None)``, ``rules=()``): whether a
    collection's ground truth closes up words broken at a line end differs from
    one collection to the next.  The file holds derived statistics only.  The docs
    page "Pretrained models" gives what it does to collections (word error rate
    before and after, lines made worse); ``skocrcost correct FILE`` uses it by
    default.

    Parameters
    ----------
    name : {"en-historical"}

    Returns
    -------
    OCRCorrector
        Fitted; :meth:`~skocrcost.OCRCorrector.correct` and ``predict`` work.

    Examples
    --------
    >>> from skocrcost.datasets import pretrained_corrector
    >>> corrector = pretrained_corrector()
    >>> corrector.correct("tbe Church of Englaud")
    'the Church of England'
    """
    from ..correction import OCRCorrector

    return _load_shipped(OCRCorrector, PRETRAINED_CORRECTORS, name)


def _load_shipped(cls, files, name):
    if not isinstance(name, str):
        raise TypeError(f"name must be one of {sorted(files)}, got {type(name).__name__}")
    if name not in files:
        raise ValueError(f"name must be one of {sorted(files)}, got {name!r}")
    with resources.as_file(resources.files(__name__).joinpath("data", files[name])) as path:
        return cls.load(path)

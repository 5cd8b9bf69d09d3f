"""Real OCR data to start from: a small sample of the ICDAR 2017 post-OCR corpus.

The sample is embedded in the package (under 1 MB of text), so examples, the
``skocrcost demo`` command and the tests run without downloads.
"""

import gzip
from importlib import resources

__all__ = ["load_icdar2017_sample"]

_KINDS = ("lines", "tokens")


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
    if kind not in _KINDS:
        raise ValueError(f"kind must be one of {_KINDS}, got {kind!r}")
    path = resources.files(__name__).joinpath("data", f"icdar2017_{kind}.tsv.gz")
    with path.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8", newline="\n") as f:
        pairs = [line.rstrip("\n").split("\t") for line in f]
    X = [p[0] for p in pairs]
    y = [p[1] for p in pairs]
    return X, y

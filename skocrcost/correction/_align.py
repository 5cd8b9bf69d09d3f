"""Token alignment of OCR lines with their truth, and the word pairs a channel learns from."""

from __future__ import annotations

from ..metrics import WeightedLevenshtein
from ._tokens import TokenCodes, token_words


def aligned_tokens(ocr_lines, truth_lines):
    """Per line pair, the ``(OCR token, truth token)`` columns of a word-level alignment.

    Unit Levenshtein over whitespace tokens (a changed token is one
    substitution); ``None`` marks a gap (a token only one side has).
    """
    codes = TokenCodes()
    a = [codes(line.split()) for line in ocr_lines]
    b = [codes(line.split()) for line in truth_lines]
    _, src, tgt, pair = WeightedLevenshtein()._align_batch(a, b, 1)
    lines = [[] for _ in a]
    for s, g, i in zip(src.tolist(), tgt.tolist(), pair.tolist(), strict=True):
        lines[i].append((codes.token(s) if s >= 0 else None, codes.token(g) if g >= 0 else None))
    return lines


def token_pairs(ocr_lines, truth_lines, gaps=False):
    """Token sequences for ``OCRCorrector.fit``: the aligned tokens of each line pair.

    The columns of :func:`aligned_tokens` that have a token on both sides, as
    they are (punctuation and case kept): ``fit`` cuts them into words for the
    channel and learns the punctuation rules from them.  With ``gaps`` every
    column is kept, ``""`` standing for the side without a token, so that the
    lines are whole: ``fit`` then also learns the spacing rules (a spaced-out
    ``-`` attached to its neighbours, a stray ``•`` dropped) and the language
    model reads every truth token.

    Returns
    -------
    X, y : list of list of str
        One list of OCR tokens and one of truth tokens per line pair.
    """
    X, y = [], []
    for line in aligned_tokens(ocr_lines, truth_lines):
        if gaps:
            pairs = [(o or "", t or "") for o, t in line]
        else:
            pairs = [(o, t) for o, t in line if o is not None and t is not None]
        X.append([o for o, _ in pairs])
        y.append([t for _, t in pairs])
    return X, y


def training_words(ocr_tokens, truth_tokens, max_length_change=1 / 3):
    """The word pairs a word-for-word channel learns from, out of aligned tokens.

    Each pair of tokens gives its cores cut into words (:func:`token_words`); a
    pair whose word counts differ is dropped, and so is a pair of words whose
    lengths differ by more than ``max_length_change`` of the true word's (at
    least one character): those are split or merged words and alignment
    accidents, which a word-for-word channel should not learn from.
    """
    xs, ys = [], []
    for o, t in zip(ocr_tokens, truth_tokens, strict=True):
        a, b = token_words(o), token_words(t)
        if len(a) != len(b):
            continue
        for u, v in zip(a, b, strict=True):
            if u and v and abs(len(u) - len(v)) <= max(1, int(len(v) * max_length_change)):
                xs.append(u)
                ys.append(v)
    return xs, ys


def align_tokens(ocr_line, truth_line):
    """The word alignment of one OCR line with its truth, split and merged words grouped.

    The whitespace tokens of the two lines are aligned by unit Levenshtein
    (a changed token is one substitution).  Where the OCR split a word
    (``retu rned`` for ``returned``) or merged two (``thecat`` for ``the cat``),
    the substitution and the token beside it are one column, its tokens joined
    by a space: a token missing on one side is grouped with its neighbour when
    the two, closed up, are nearer in characters to the other side than apart.

    Parameters
    ----------
    ocr_line, truth_line : str

    Returns
    -------
    list of (str or None, str or None)
        The columns in reading order: ``(OCR tokens, truth tokens)``, None for
        the side without a token (an extra or missing word).

    Examples
    --------
    >>> from skocrcost.correction import align_tokens
    >>> align_tokens("Tbe cat retu rned", "The cat returned")
    [('Tbe', 'The'), ('cat', 'cat'), ('retu rned', 'returned')]
    >>> align_tokens("ofthe book", "of the book")
    [('ofthe', 'of the'), ('book', 'book')]
    """
    for name, value in (("ocr_line", ocr_line), ("truth_line", truth_line)):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a str, got {type(value).__name__}")
    return _grouped(aligned_tokens([ocr_line], [truth_line])[0])


def _grouped(columns):
    """``columns`` with each gap grouped with a neighbouring substitution that it
    completes (see :func:`align_tokens`)."""
    out = []
    for o, t in columns:
        if out and (o is None or t is None):
            po, pt = out[-1]
            if po is not None and pt is not None and po != pt and _completes(po, pt, o, t):
                out[-1] = (_join(po, o), _join(pt, t))
                continue
        elif out and o is not None and t is not None and o != t:
            po, pt = out[-1]
            if (po is None) != (pt is None) and _completes(o, t, po, pt, before=True):
                out[-1] = (_join(po, o), _join(pt, t))
                continue
        out.append((o, t))
    return out


def _join(a, b):
    return b if a is None else a if b is None else a + " " + b


def _completes(o, t, extra_o, extra_t, before=False):
    """Whether the gap's token (``extra_o`` or ``extra_t``) closed up with the
    substitution ``(o, t)`` is nearer to the other side than the two apart."""
    extra = extra_o if extra_o is not None else extra_t
    if extra_o is not None:
        o2, t2 = (extra + o, t) if before else (o + extra, t)
    else:
        o2, t2 = (o, extra + t) if before else (o, t + extra)
    apart = _UNIT.distance(o, t) + len(extra)
    return _UNIT.distance(o2, t2) < apart / 2


_UNIT = WeightedLevenshtein()

"""Multi-character edits learned from aligned pairs: discovery, counting, smoothing.

OCR reads ``m`` as ``rn`` or ``h`` as ``li``; a single-character alignment shows
that as a run of adjacent non-match columns (``r -> m`` then ``n -> ""``).
:func:`discover` collects the runs' windows whose two sides are at most
``max_length`` characters (one side at least two, neither empty) and keeps
those seen at least ``min_count`` times.  After realigning with them as
rules, :func:`rule_log_probs` smooths each rule's count in the context of its
source piece, as the single-character model does for a character:

    P(s -> t | s) = (c(s -> t) + k) / (C(s) + k (V + 1)),   cost = -ln P / Z

where ``C(s)`` is the number of times the piece ``s`` occurs in the OCR
strings (overlaps included) and ``Z`` the single-character model's normaliser
(``k = 0``: ``c / C`` and no normalisation).  A rule is one more outcome of its
context, so probabilities of a context that has rules sum to slightly more
than one; the costs stay comparable with the single-character ones.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

OP_MATCH, OP_RULE = 0, 5


def discover(op, src, tgt, pair, max_length, min_count):
    """Frequent confusions from single-character alignment columns.

    Returns ``(rules, counts)``: the sorted (source, target) pairs and how often
    each was seen.
    """
    found = Counter()
    edits = np.flatnonzero(op != OP_MATCH)
    if len(edits) == 0:
        return [], []
    # Split the non-match columns into runs of adjacent columns of one pair.
    breaks = np.flatnonzero((np.diff(edits) != 1) | (np.diff(pair[edits]) != 0)) + 1
    for run in np.split(edits, breaks):
        if len(run) < 2:
            continue
        s_run = src[run].tolist()
        t_run = tgt[run].tolist()
        for i in range(len(run)):
            for j in range(i + 2, min(len(run), i + 2 * max_length) + 1):
                s = "".join(chr(c) for c in s_run[i:j] if c >= 0)
                t = "".join(chr(c) for c in t_run[i:j] if c >= 0)
                if 0 < len(s) <= max_length and 0 < len(t) <= max_length and len(s + t) > 2:
                    found[(s, t)] += 1
    rules = sorted(key for key, n in found.items() if n >= min_count)
    return rules, [found[key] for key in rules]


def occurrences(strings, piece):
    """How many times ``piece`` occurs in the strings, overlapping occurrences included."""
    total = 0
    for s in strings:
        start = s.find(piece)
        while start >= 0:
            total += 1
            start = s.find(piece, start + 1)
    return total


def rule_log_probs(rule_counts, contexts, n_chars, k):
    """ln P(s -> t | s) of every rule from its count and its source's occurrences."""
    c = np.asarray(rule_counts, dtype=float)
    C = np.asarray(contexts, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        if k > 0:
            return np.log(c + k) - np.log(C + k * (n_chars + 1))
        return np.where(c > 0, np.log(c) - np.log(np.maximum(C, c)), -np.inf)

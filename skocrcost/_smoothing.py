"""From edit counts to probabilities and costs: the seed's smoothing models.

Every model gives, per context, the log-probability of each outcome: for an OCR
character ``s`` the outcomes are "read as t" (t = s is a match) and "deleted";
for insertions the context is the truth character (``unified``) or the whole
corpus (``legacy``).  Outcomes never seen share one value per context
(``unseen_row``, plus ``unseen_col`` for models whose unseen mass depends on the
outcome), so the result stays sparse for any alphabet.

Models (``c`` counts, ``C(x)`` context totals, ``V`` distinct characters):

* ``unified``, k > 0: ``P(e|x) = (c(e) + k) / (C(x) + k(V+1))``; ``Z = ln(V+1)``.
* ``legacy``, k > 0: substitutions and deletions as above; insertions
  ``(c_ins(t) + k) / (C_total + kV)``; ``Z`` = the largest surprisal of an
  unseen event over all contexts, so every cost lies in [0, 1].
* k = 0: maximum likelihood ``c(e) / C(x)``, no normalisation; unseen edits
  get the default cost.

A cost is ``-ln P / Z``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._costs import CostTables

MODELS = ("unified", "legacy")

DEFAULT_COST = 1.0


@dataclass(frozen=True, eq=False)
class ChannelModel:
    """Log-probabilities (natural log) of single-character edits.

    ``keys`` are ``row * (V + 1) + col`` of seen events in the counts' layout
    (see :mod:`skocrcost._counting`), sorted, with ``logp`` their log-probabilities.
    Unseen events: ``unseen_row[s] + unseen_col[t]`` for substitutions, matches
    and deletions (``t = 0``) in OCR context ``s``, ``unseen_ins[t]`` for
    insertions.  Id 0 as a context stands for characters never seen in training.
    """

    vocabulary: np.ndarray
    keys: np.ndarray
    logp: np.ndarray
    unseen_row: np.ndarray
    unseen_col: np.ndarray
    unseen_ins: np.ndarray
    normaliser: float  # Z; 1.0 for maximum likelihood (no normalisation)

    @property
    def width(self):
        return len(self.vocabulary) + 1

    def ids(self, code_points):
        """Ids of code points (-1, the gap, and unknown characters give 0)."""
        cps = np.asarray(code_points, dtype=np.int64)
        pos = np.searchsorted(self.vocabulary, np.maximum(cps, 0))
        pos = np.minimum(pos, max(len(self.vocabulary) - 1, 0))
        known = (cps >= 0) & (len(self.vocabulary) > 0)
        if len(self.vocabulary):
            known &= self.vocabulary[pos] == cps
        return np.where(known, pos + 1, 0)

    def log_prob(self, src, tgt):
        """Log-probability of each aligned column (code points, -1 for a gap)."""
        src = np.asarray(src, dtype=np.int64)
        tgt = np.asarray(tgt, dtype=np.int64)
        r, c = self.ids(src), self.ids(tgt)
        unknown_tgt = (tgt >= 0) & (c == 0)
        # A character never seen in training is a context (or outcome) of its own:
        # never look it up among the seen events, whose id 0 means the gap.
        unknown = ((src >= 0) & (r == 0)) | unknown_tgt
        key = r * self.width + c
        pos = np.minimum(np.searchsorted(self.keys, key), max(len(self.keys) - 1, 0))
        seen = ~unknown
        seen &= (self.keys[pos] == key) if len(self.keys) else False
        col = np.where((r > 0) & ~unknown_tgt, self.unseen_col[c], 0.0)
        unseen = np.where(src < 0, self.unseen_ins[c], self.unseen_row[r] + col)
        return np.where(seen, self.logp[pos] if len(self.logp) else 0.0, unseen)

    def cost_tables(self):
        """Costs ``-ln P / Z``; unseen edits with probability 0 (k = 0) get the default cost."""
        z = self.normaliser
        rows, cols = np.divmod(self.keys, self.width)
        cost = -self.logp / z
        rowdef = -self.unseen_row / z
        coldef = -self.unseen_col / z
        dele = rowdef + coldef[0]
        ins = -self.unseen_ins / z
        rowdef, dele, ins = (np.where(np.isfinite(x), x, DEFAULT_COST) for x in (rowdef, dele, ins))
        coldef = np.where(np.isfinite(coldef), coldef, 0.0)
        rowdef[0] = dele[0] = ins[0] = DEFAULT_COST  # characters never seen in training
        is_del = (cols == 0) & (rows > 0)
        is_ins = (rows == 0) & (cols > 0)
        is_sub = (rows > 0) & (cols > 0) & (rows != cols)
        dele[rows[is_del]] = cost[is_del]
        ins[cols[is_ins]] = cost[is_ins]
        return CostTables(
            chars=self.vocabulary,
            sub_src=rows[is_sub].astype(np.int32),
            sub_tgt=cols[is_sub].astype(np.int32),
            sub_cost=cost[is_sub],
            rowdef=rowdef,
            coldef=coldef,
            ins=ins,
            dele=dele,
        )


def additive(counts, k, model="unified"):
    """The seed's additive (Dirichlet) smoothing, or maximum likelihood when ``k == 0``."""
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}, got {model!r}")
    V = counts.n_chars
    w = V + 1
    coo = counts.matrix.tocoo()
    rows, cols, c = coo.row.astype(np.int64), coo.col.astype(np.int64), coo.data.astype(float)
    ocr_total = counts.ocr_totals().astype(float)
    truth_total = counts.truth_totals().astype(float)
    ocr_total[0] = 0.0  # the gap row holds insertions, not OCR characters
    truth_total[0] = 0.0
    corpus_total = ocr_total.sum()

    with np.errstate(divide="ignore"):
        # substitutions, matches and deletions: context = the OCR character
        row_denom = ocr_total + k * (V + 1)
        if model == "unified":
            ins_denom = truth_total + k * (V + 1)
        else:
            ins_denom = np.full(w, corpus_total + k * V)
        is_ins = rows == 0
        denom = np.where(is_ins, ins_denom[cols], row_denom[rows])
        logp = np.log(c + k) - np.log(denom)
        unseen_row = np.log(k) - np.log(row_denom) if k > 0 else np.full(w, -np.inf)
        unseen_ins = np.log(k) - np.log(ins_denom) if k > 0 else np.full(w, -np.inf)

    if k == 0:
        z = 1.0
    elif model == "unified":
        z = float(np.log(V + 1))
    else:
        # the largest surprisal of an unseen event over every context seen
        z = float(max(np.max(-unseen_row[1:], initial=0.0), -unseen_ins[0]))
    if not z > 0:  # V = 0 (no characters at all) leaves nothing to normalise
        z = 1.0
    order = np.argsort(rows * w + cols, kind="stable")
    return ChannelModel(
        vocabulary=counts.vocabulary,
        keys=(rows * w + cols)[order],
        logp=logp[order],
        unseen_row=unseen_row,
        unseen_col=np.zeros(w),
        unseen_ins=unseen_ins,
        normaliser=z,
    )

"""From edit counts to probabilities and costs: the smoothing models of the cost learners.

Every model gives, per context, the log-probability of each outcome: for an OCR
character ``s`` the outcomes are "read as t" (t = s is a match) and "deleted";
for insertions the context is the truth character (``unified``) or the whole
corpus (``bounded``).  Outcomes never seen share one value per context
(``unseen_row``, plus ``unseen_col`` for models whose unseen mass depends on the
outcome), so the result stays sparse for any alphabet.

Models (``c`` counts, ``C(x)`` context totals, ``V`` distinct characters):

* ``unified``, k > 0: ``P(e|x) = (c(e) + k) / (C(x) + k(V+1))``; ``Z = ln(V+1)``.
* ``bounded``, k > 0: substitutions and deletions as above; insertions
  ``(c_ins(t) + k) / (C_total + kV)``; ``Z`` = the largest surprisal of an
  unseen event over all contexts, so every cost lies in [0, 1].
* k = 0: maximum likelihood ``c(e) / C(x)``, no normalisation; unseen edits
  get the default cost.

:func:`katz` replaces the pseudo-counts by Katz back-off with an absolute
discount ``d`` (see its docstring); ``Z`` is as in the chosen model.

A cost is ``-ln P / Z``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ._costs import CostTables

MODELS = ("unified", "bounded")
SMOOTHINGS = ("additive", "katz")

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
    # Added to unseen_row[s] for a truth character never seen in training (additive: 0).
    unknown_col: float = 0.0

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
        col = np.where(unknown_tgt, self.unknown_col, self.unseen_col[c])
        unseen = np.where(src < 0, self.unseen_ins[c], self.unseen_row[r] + col)
        return np.where(seen, self.logp[pos] if len(self.logp) else 0.0, unseen)

    def cost_tables(self):
        """Costs ``-ln P / Z``; unseen edits with probability 0 (k = 0) get the default cost."""
        return self._tables(self.normaliser, DEFAULT_COST)

    def log_tables(self, scale=1.0):
        """Costs ``-ln P / scale`` of every edit, matches included; ``inf`` where P = 0.

        These are negated log-probabilities in base ``exp(scale)``: the tables of
        the probabilistic channel (:class:`WeightedEditDistance`).
        """
        return self._tables(scale, None)

    def _tables(self, z, unseen_default):
        rows, cols = np.divmod(self.keys, self.width)
        cost = -self.logp / z
        rowdef = -self.unseen_row / z
        coldef = -self.unseen_col / z
        dele = rowdef + coldef[0]  # column 0 of the model is the gap ...
        coldef[0] = -self.unknown_col / z  # ... and of the kernel, a character not in the alphabet
        ins = -self.unseen_ins / z
        match = None
        if unseen_default is None:
            match = rowdef + coldef  # an unseen match s -> s in context s
            match[0] = rowdef[0]
            is_match = (rows == cols) & (rows > 0)
            match[rows[is_match]] = cost[is_match]
        else:
            rowdef, dele, ins = (
                np.where(np.isfinite(x), x, unseen_default) for x in (rowdef, dele, ins)
            )
            coldef = np.where(np.isfinite(coldef), coldef, 0.0)
            rowdef[0] = dele[0] = ins[0] = unseen_default  # characters never seen in training
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
            match=match,
        )


def additive(counts, k, model="unified"):
    """Additive (Dirichlet) smoothing, as ocr-stringdist's ``CostLearner`` and earlier
    ``Learner`` do, or maximum likelihood when ``k == 0``."""
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
    if model == "bounded":
        # This model conditions insertions on the number of OCR characters: a rate, which
        # exceeds 1 when the truth has more insertions than the OCR has characters (and
        # is c/0 when the OCR side is empty), giving negative or -inf costs.  Cap it at
        # probability 1: cost 0, log-probability 0.
        logp = np.minimum(logp, 0.0)
        # With no character at all (V = 0, no OCR side), k / (0 + k V) is k / 0: cap it too.
        unseen_ins = np.minimum(unseen_ins, 0.0)

    if k == 0:
        z = 1.0
    elif model == "unified":
        z = float(np.log(V + 1))
    else:
        # the largest surprisal of an unseen event over every context seen
        z = float(max(np.max(-unseen_row[1:], initial=0.0), -unseen_ins[0]))
    return _channel(counts, rows, cols, logp, unseen_row, np.zeros(w), unseen_ins, z)


def _channel(counts, rows, cols, logp, unseen_row, unseen_col, unseen_ins, z):
    """The ChannelModel of per-event log-probabilities given in the counts' COO order."""
    if not z > 0:  # V = 0 (no characters at all) leaves nothing to normalise
        z = 1.0
    w = counts.n_chars + 1
    order = np.argsort(rows * w + cols, kind="stable")
    return ChannelModel(
        vocabulary=counts.vocabulary,
        keys=(rows * w + cols)[order],
        logp=logp[order],
        unseen_row=unseen_row,
        unseen_col=unseen_col,
        unseen_ins=unseen_ins,
        normaliser=z,
    )


def katz(counts, discount, model="unified"):
    """Katz back-off (Katz 1987) with an absolute discount ``d``, applied to edit counts.

    In a context ``x`` with ``C(x)`` events, an outcome ``e`` seen ``c(e)`` times gets
    ``(c(e) - d) / C(x)``; the freed mass ``alpha(x) = d |A(x)| / C(x)`` (``A(x)``
    the outcomes seen in ``x``) goes to the unseen outcomes in proportion to their
    overall frequency ``f``: ``alpha(x) f(e) / sum_{e' unseen in x} f(e')``.  A
    context with no unseen outcome is not discounted (maximum likelihood); a
    context never seen (``C(x) = 0``) backs off whole to ``f(e) / sum f``.

    Overall frequencies, each at least 1 so that no edit has probability 0:

    * OCR contexts ``s`` (outcomes: read as ``t``, or deleted): ``f(t)`` = how
      often ``t`` appears on the truth side; ``f(deletion)`` = the number of deletions.
    * Insertion contexts, ``unified`` (the truth character ``t``, whose outcomes are
      "produced by OCR character ``s``" or "by nothing"): ``g(s)`` = how often ``s``
      appears on the OCR side; ``g(nothing)`` = the number of insertions.
    * Insertions, ``bounded`` (the corpus of OCR characters): ``(c_ins(t) - d) / C_total``
      for an inserted ``t`` seen, ``alpha f(t) / sum_{t' never inserted} f(t')`` else.

    A truth character never seen in training gets ``f = 1``, outside the distribution.
    ``Z`` is ``ln(V + 1)`` (unified) or the largest surprisal of any event (bounded).
    """
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}, got {model!r}")
    d = float(discount)
    V = counts.n_chars
    w = V + 1
    coo = counts.matrix.tocoo()
    rows, cols, c = coo.row.astype(np.int64), coo.col.astype(np.int64), coo.data.astype(float)
    ocr_total = counts.ocr_totals().astype(float)  # index 0: the insertions
    truth_total = counts.truth_totals().astype(float)  # index 0: the deletions
    f = np.maximum(truth_total, 1.0)  # outcomes of OCR contexts; f[0] = deletions
    g = np.maximum(ocr_total, 1.0)  # outcomes of insertion contexts; g[0] = insertions
    ocr_total[0] = truth_total[0] = 0.0
    is_ins = rows == 0
    r, rc, rcnt = rows[~is_ins], cols[~is_ins], c[~is_ins]  # OCR contexts
    k, kcnt = cols[is_ins], c[is_ins]  # insertions, by truth character

    def back_off(context, n_contexts, outcome_freq, freq, total, n_outcomes):
        """Discount per context, alpha and sum of ``freq`` over the unseen outcomes."""
        seen = np.bincount(context, minlength=n_contexts)
        disc = np.where(seen < n_outcomes, d, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            alpha = np.where(total > 0, disc * seen / total, 1.0)
        rest = freq.sum() - np.bincount(context, weights=outcome_freq, minlength=n_contexts)
        return disc, alpha, rest

    row_disc, row_alpha, row_rest = back_off(r, w, f[rc], f, ocr_total, w)
    with np.errstate(divide="ignore", invalid="ignore"):
        row_logp = np.log(rcnt - row_disc[r]) - np.log(ocr_total[r])
        # Split alpha f(t) / rest as (alpha fmax / rest) (f(t) / fmax): the column part is
        # then <= 0 in log, so every column default cost (coldef) is >= 0.
        log_fmax = np.log(f.max())
        unseen_row = np.where(
            row_alpha > 0, np.log(row_alpha) - np.log(row_rest) + log_fmax, -np.inf
        )
        unseen_col = np.log(f) - log_fmax
        if model == "unified":
            # Column contexts t >= 1: every entry of column t is an outcome of t.
            col_ctx = cols[cols > 0]
            col_disc, col_alpha, col_rest = back_off(
                col_ctx, w, g[rows[cols > 0]], g, truth_total, w
            )
            ins_logp = np.log(kcnt - col_disc[k]) - np.log(truth_total[k])
            unseen_ins = np.where(
                col_alpha > 0, np.log(col_alpha) + np.log(g[0]) - np.log(col_rest), -np.inf
            )
            unseen_ins[0] = np.log(g[0]) - np.log(g.sum())  # a truth character never seen
        else:
            corpus = ocr_total.sum()
            inserted = np.zeros(w, dtype=bool)
            inserted[k] = True
            inserted[0] = False
            n_seen = int(inserted.sum())
            ins_disc = d if n_seen < V else 0.0
            alpha = ins_disc * n_seen / corpus if corpus > 0 else 1.0
            rest = f[1:][~inserted[1:]].sum()
            ins_logp = np.log(kcnt - ins_disc) - np.log(corpus)
            unseen_ins = np.full(w, -np.inf)
            if alpha > 0:
                unseen_ins = np.log(alpha) + np.log(f) - np.log(rest)
                unseen_ins[0] = np.log(alpha) - np.log(rest)  # f = 1: a character never seen
            # As in `additive`: a corpus-conditioned insertion "probability" can exceed 1
            # (or divide by an empty OCR side); cap it at 1, cost 0.
            ins_logp = np.minimum(ins_logp, 0.0)
            unseen_ins = np.minimum(unseen_ins, 0.0)
    # Where the most frequent outcome is seen in a context and alpha f_max > rest,
    # that row part exceeds probability 1 (a negative default cost): write the
    # context's unseen outcomes out one by one, exactly, and cap its row part at 1,
    # which then only prices a truth character never seen (outside the distribution,
    # as always): at 1 / f_max, less than its share alpha / rest.
    dense = np.flatnonzero(unseen_row[1:] > -1e-12) + 1
    if len(dense):
        seen = np.zeros((len(dense), w), dtype=bool)
        where = np.searchsorted(dense, r)
        hit = (where < len(dense)) & (dense[np.minimum(where, len(dense) - 1)] == r)
        seen[where[hit], rc[hit]] = True
        i, t = np.nonzero(~seen)
        rows = np.concatenate([rows, dense[i]])
        cols = np.concatenate([cols, t])
        c = np.concatenate([c, np.zeros(len(t))])
        is_ins = np.concatenate([is_ins, np.zeros(len(t), dtype=bool)])
        row_logp = np.concatenate([row_logp, unseen_row[dense[i]] + unseen_col[t]])
        unseen_row[dense] = np.minimum(unseen_row[dense], 0.0)
    logp = np.empty(len(c))
    logp[~is_ins] = row_logp
    logp[is_ins] = ins_logp
    if model == "unified":
        z = float(np.log(V + 1))
    else:
        # The largest surprisal of any event: seen, unseen in an OCR context (bounded by
        # the rarest outcome) or an insertion never seen, so every cost lies in [0, 1].
        # Contexts written out whole (above) have no unseen outcome left.
        unseen = -(np.delete(unseen_row, np.append(dense, 0)) + unseen_col.min())
        candidates = np.concatenate([-logp, unseen, -unseen_ins])
        z = float(np.max(candidates[np.isfinite(candidates)], initial=0.0))
    # A truth character never seen in training: f = 1.
    model = _channel(counts, rows, cols, logp, unseen_row, unseen_col, unseen_ins, z)
    return replace(model, unknown_col=-float(log_fmax))

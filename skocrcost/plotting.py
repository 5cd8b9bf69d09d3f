"""Pictures of what was learned (needs matplotlib: ``pip install "skocrcost[plot]"``)."""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ._validation import check_number

__all__ = ["plot_costs"]

# How characters that are hard to see are drawn in labels; the empty side of an
# insertion or deletion is drawn by mathtext, since monospace fonts draw ∅ like ø.
_SHOWN = {" ": "␣", "\t": "⇥", "\n": "↵", "": r"$\emptyset$", "$": r"\$"}
# Monospace tells I, l and 1 (and O and 0) apart, which OCR errors are all about.
_CHAR_FONT = {"fontfamily": "monospace", "fontsize": 11}
# At most this many characters per heatmap axis, so every label stays legible.
MAX_HEATMAP_CHARS = 24


def cheapest_confusions(estimator, n=10):
    """The ``n`` cheapest learned errors seen in training: (source, target, cost, count)."""
    counts = estimator.counts_
    coo = counts.matrix.tocoo()
    costs = estimator.costs_
    rows = []
    for r, c, count in zip(coo.row, coo.col, coo.data, strict=True):
        if r == c:
            continue
        s, t = counts._letter(r), counts._letter(c)
        if s and t:
            cost = costs.substitution_cost(s, t)
        elif s:
            cost = costs.deletion_cost(s)
        else:
            cost = costs.insertion_cost(t)
        rows.append((s, t, cost, int(count)))
    rows.sort(key=lambda row: (row[2], -row[3]))
    return rows[:n]


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError(
            'plot_costs needs matplotlib: pip install "skocrcost[plot]" (or pip install matplotlib)'
        ) from None
    return plt


def _show(c):
    return _SHOWN.get(c, c)


def _heatmap_chars(estimator, top):
    """OCR and truth characters of the ``top`` most frequent errors, most frequent first."""
    ocr, truth = {}, {}
    for s, t, count in estimator.counts_.most_common(top):
        ocr[s] = ocr.get(s, 0) + count
        truth[t] = truth.get(t, 0) + count

    def pick(chars):
        chars = sorted(chars, key=lambda c: (c == "", -chars[c], c))[:MAX_HEATMAP_CHARS]
        return [c for c in chars if c] + [""]  # the gap last

    return pick(ocr), pick(truth)


def _cost(costs, s, t):
    if s and t:
        return costs.substitution_cost(s, t)
    if s:
        return costs.deletion_cost(s)
    return costs.insertion_cost(t) if t else np.nan


def plot_costs(estimator, top=30, *, min_count=3):
    """Draw the learned confusion costs as a heatmap and the cheapest confusions as bars.

    Left: the cost of reading each OCR character (rows) for each truth
    character (columns), over the characters of the ``top`` most frequent
    errors; the last row and column (∅) are insertions and deletions; the
    number in a cell is how often that error was seen.  Right: the ``top``
    cheapest errors seen at least ``min_count`` times in training, with their counts.

    Parameters
    ----------
    estimator : EditCostEstimator
        Fitted (it needs ``counts_`` and ``costs_``), e.g. ``pretrained("en-historical")``.
    top : int, default=30
        How many errors each panel shows.
    min_count : int, default=3
        Errors seen fewer times are left out of the bar chart (their costs
        rest on one or two examples).

    Returns
    -------
    matplotlib.figure.Figure
        Save it with ``fig.savefig("costs.png")``.

    Examples
    --------
    >>> from skocrcost import EditCostEstimator, plot_costs
    >>> est = EditCostEstimator(k=0.1).fit(["tbe", "c0w", "cat"], ["the", "cow", "cat"])
    >>> fig = plot_costs(est, top=5)
    >>> len(fig.axes)
    3
    """
    from .estimator import EditCostEstimator

    if not isinstance(estimator, EditCostEstimator):
        raise TypeError(
            f"estimator must be a fitted EditCostEstimator, got {type(estimator).__name__}"
        )
    top = int(check_number(top, "top", low=1, integer=True))
    min_count = int(check_number(min_count, "min_count", low=1, integer=True))
    check_is_fitted(estimator)
    plt = _pyplot()
    ocr_chars, truth_chars = _heatmap_chars(estimator, top)
    everything = cheapest_confusions(estimator, estimator.counts_.matrix.nnz)
    rows = [row for row in everything if row[3] >= min_count][:top]
    fig, (heat_ax, bar_ax) = plt.subplots(
        1, 2, figsize=(15, 7.5), gridspec_kw={"width_ratios": [1.25, 1]}, layout="constrained"
    )
    _draw_heatmap(fig, heat_ax, estimator, ocr_chars, truth_chars)
    _draw_bars(bar_ax, rows, min_count)
    fig.suptitle(
        f"Learned OCR error costs ({estimator.model} model, k = {estimator.k:g}, "
        f"V = {len(estimator.vocabulary_)} characters)",
        fontsize=13,
    )
    return fig


def _draw_heatmap(fig, ax, estimator, ocr_chars, truth_chars):
    costs, counts = estimator.costs_, estimator.counts_
    seen = {(s, t): n for s, t, n in counts.most_common(counts.matrix.nnz)}
    table = np.array([[_cost(costs, s, t) for t in truth_chars] for s in ocr_chars])
    for i, s in enumerate(ocr_chars):
        for j, t in enumerate(truth_chars):
            if s == t:
                table[i, j] = np.nan  # a match, or gap to gap: no error
    image = ax.imshow(table, cmap="magma", vmin=0, vmax=max(1.0, np.nanmax(table)))
    fig.colorbar(image, ax=ax, shrink=0.8, label="cost (1 = an edit as rare as chance)")
    small = len(ocr_chars) * len(truth_chars) <= 26 * 26
    for i, s in enumerate(ocr_chars):
        for j, t in enumerate(truth_chars):
            n = seen.get((s, t))
            if n and s != t and small:
                light = table[i, j] < 0.6 * image.norm.vmax
                ax.text(j, i, str(n), ha="center", va="center", fontsize=7,
                        color="white" if light else "black")  # fmt: skip
    ax.set_xticks(range(len(truth_chars)), [_show(c) for c in truth_chars], **_CHAR_FONT)
    ax.set_yticks(range(len(ocr_chars)), [_show(c) for c in ocr_chars], **_CHAR_FONT)
    ax.set_xlabel("truth character (∅: the OCR has an extra character)")
    ax.set_ylabel("OCR character (∅: the OCR lost a character)")
    ax.set_title("Costs of the most frequent errors (numbers: times seen)")


def _draw_bars(ax, rows, min_count):
    labels = [f"{_show(s)} → {_show(t)}" for s, t, _, _ in rows]
    values = [cost for _, _, cost, _ in rows]
    y = np.arange(len(rows))
    ax.barh(y, values, color="#3b7dd8")
    ax.set_yticks(y, labels, **_CHAR_FONT)
    ax.invert_yaxis()
    for i, (_, _, cost, count) in enumerate(rows):
        ax.text(cost, i, f"  {count}×", va="center", fontsize=8, color="#444444")
    ax.set_xlim(0, max(values, default=1.0) * 1.2 or 1.0)
    ax.set_xlabel("learned cost (OCR → truth)")
    ax.set_title(f"The {len(rows)} cheapest errors seen ≥ {min_count} times (× times seen)")
    ax.grid(axis="x", alpha=0.3)

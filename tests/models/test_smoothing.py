"""Every smoothing model is a distribution over each context's outcomes, in every edge case.

The channel's log-probabilities are held to a direct computation from the dense count
matrix (loops over the formulas of :mod:`skocrcost._smoothing`'s docstrings), on count
matrices drawn by hypothesis (contexts seen with every outcome, with none, one
character, no character at all) and on string pairs fitted by the estimator.
"""

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from skocrcost import EditCostEstimator, EditCounts

UNKNOWN = ord("\u2603")  # a character in no vocabulary below


def context_sums(channel):
    """Sum over every outcome (the gap, every character) of P(. | s), for every OCR
    context s (every character, and one never seen); and the unknown outcome's P."""
    chars = [int(c) for c in channel.vocabulary]
    outcomes = np.array([-1, *chars])
    sums = {}
    for s in [*chars, UNKNOWN]:
        p = np.exp(channel.log_prob(np.full(len(outcomes), s), outcomes))
        sums[s] = math.fsum(p)
    return sums


def additive_reference(M, k, model):
    """P(t | s) for OCR contexts s = 0..V (0: a character never seen), outcomes t = 0..V
    (0: deletion), and the insertion probabilities P_ins(t), t = 0..V (0: never seen)."""
    n = M.shape[0]
    V = n - 1
    P = np.zeros((n, n))
    for s in range(n):
        C = M[s].sum() if s > 0 else 0.0
        for t in range(n):
            c = M[s, t] if s > 0 else 0.0
            denom = C + k * (V + 1)
            P[s, t] = (c + k) / denom if denom > 0 else 0.0
    ins = np.zeros(n)
    corpus = M[1:].sum()
    for t in range(n):
        c = M[0, t] if t > 0 else 0.0
        if model == "unified":
            denom = (M[:, t].sum() if t > 0 else 0.0) + k * (V + 1)
        else:
            denom = corpus + k * V
        ins[t] = (c + k) / denom if denom > 0 else (math.inf if c + k > 0 else 0.0)
    if model == "legacy":
        ins = np.minimum(ins, 1.0)
    return P, ins


def katz_distribution(counts, freq, d):
    """Katz back-off of one context: ``counts`` of each outcome, ``freq`` their overall
    frequencies.  Seen outcomes are discounted unless every outcome was seen."""
    total = counts.sum()
    if total == 0:
        return freq / freq.sum()
    seen = counts > 0
    disc = d if not seen.all() else 0.0
    p = np.where(seen, (counts - disc) / total, 0.0)
    if not seen.all():
        alpha = disc * seen.sum() / total
        p[~seen] = alpha * freq[~seen] / freq[~seen].sum()
    return p


def katz_reference(M, d, model):
    n = M.shape[0]
    f = np.maximum(M.sum(axis=0), 1.0)  # truth side; f[0] = deletions
    g = np.maximum(M.sum(axis=1), 1.0)  # OCR side; g[0] = insertions
    P = np.zeros((n, n))
    P[0] = f / f.sum()  # a character never seen backs off whole
    for s in range(1, n):
        P[s] = katz_distribution(M[s].astype(float), f, d)
    ins = np.zeros(n)
    if model == "unified":
        ins[0] = g[0] / g.sum()
        for t in range(1, n):
            ins[t] = katz_distribution(M[:, t].astype(float), g, d)[0]
    else:
        corpus = M[1:].sum()
        c = M[0, 1:].astype(float)
        seen = c > 0
        disc = d if not seen.all() else 0.0
        alpha = disc * seen.sum() / corpus if corpus > 0 else 1.0
        rest = f[1:][~seen].sum()
        with np.errstate(divide="ignore", invalid="ignore"):
            ins[1:] = np.where(seen, (c - disc) / corpus, alpha * f[1:] / rest)
            ins[0] = alpha / rest if alpha > 0 else 0.0
        ins = np.minimum(ins, 1.0)
    return P, ins


def normaliser_reference(M, smoothing, parameter, model):
    """Z: ln(V + 1) (unified), 1 (maximum likelihood), or under ``legacy`` the largest
    surprisal of an event: unseen in an OCR context (additive), or any event,
    seen or unseen, an unseen outcome of context s counted with the rarest f (Katz)."""
    n = M.shape[0]
    V = n - 1
    if smoothing == "additive" and parameter == 0:
        return 1.0
    if model == "unified":
        return math.log(V + 1) if V else 1.0
    if smoothing == "additive":
        k = parameter
        rows = M[1:].sum(axis=1)
        surprisals = [-math.log(k / (C + k * (V + 1))) for C in rows]
        surprisals.append(-math.log(min(k / (M[1:].sum() + k * V), 1.0)) if V else 0.0)
        z = max(surprisals, default=0.0)
        return z if z > 0 else 1.0
    P, ins = katz_reference(M, parameter, model)
    f = np.maximum(M.sum(axis=0), 1.0)
    with np.errstate(divide="ignore"):
        candidates = [-np.log(P[s][M[s] > 0]) for s in range(1, n)]  # seen
        candidates.append(-np.log(ins))  # insertions, seen or not (t = 0: never seen)
        for s in range(1, n):
            seen, total = M[s] > 0, M[s].sum()
            if total == 0:
                alpha, rest = 1.0, f.sum()
            else:
                alpha = parameter * seen.sum() / total if not seen.all() else 0.0
                rest = f[~seen].sum()
            if alpha > 0:  # the rarest outcome, seen or not: a bound on the unseen ones
                candidates.append([-np.log(alpha * f.min() / rest)])
    values = np.concatenate([np.atleast_1d(c) for c in candidates])
    z = max(values[np.isfinite(values)], default=0.0)
    return z if z > 0 else 1.0


def unknown_reference(M, est):
    """P(a truth character never seen | s) for every OCR context s of the alphabet."""
    n = M.shape[0]
    p = np.zeros(n - 1)
    if est.smoothing == "additive":
        for s in range(1, n):
            denom = M[s].sum() + est.k * n
            p[s - 1] = est.k / denom if denom > 0 else 0.0
        return p
    f = np.maximum(M.sum(axis=0), 1.0)
    for s in range(1, n):
        seen, total = M[s] > 0, M[s].sum()
        if total == 0:
            p[s - 1] = 1 / f.sum()
        elif not seen.all():
            # Capped at 1 / f_max where the row part of the unseen share exceeds 1.
            share = est.discount * seen.sum() / total / f[~seen].sum()
            p[s - 1] = min(share, 1 / f.max())
    return p


def check_tables(channel, costs, P, ins, unknown, z):
    """The kernels' tables against the reference: ``log_tables()`` holds -ln P of every
    edit (inf where P = 0), ``cost_tables()`` -ln P / Z (the default 1 where P = 0;
    under Katz, at least 1)."""
    with np.errstate(divide="ignore"):
        surprisal, ins_surprisal, unknown_surprisal = -np.log(P), -np.log(ins), -np.log(unknown)
    ids = np.arange(1, P.shape[0])
    off = ids[:, None] != ids[None, :]
    log_tables = channel.log_tables()
    got = {
        "match": (log_tables.match[ids], surprisal[ids, ids]),
        "substitution": (log_tables.substitution_matrix()[1:, 1:][off], surprisal[1:, 1:][off]),
        "deletion": (log_tables.dele[ids], surprisal[ids, 0]),
        "insertion": (log_tables.ins[ids], ins_surprisal[ids]),
        "to a character never seen": (log_tables.substitution_matrix()[ids, 0], unknown_surprisal),
    }
    scaled = {name: np.where(np.isfinite(want), want / z, 1.0) for name, (_, want) in got.items()}
    cost_matrix = costs.substitution_matrix()[1:, 1:]
    got |= {
        "cost of a substitution": (cost_matrix[off], scaled["substitution"]),
        "cost of a deletion": (costs.dele[ids], scaled["deletion"]),
        "cost of an insertion": (costs.ins[ids], scaled["insertion"]),
    }
    for name, (have, want) in got.items():
        if name.startswith("cost of a substitution") and not channel.unknown_col == 0:
            # Katz with discount 0: an unseen substitution (P = 0) costs the default for
            # its row plus its column's part (f(t) / f_max), at least the default 1.
            zero = ~np.isfinite(got["substitution"][1])
            assert np.all(have[zero] >= 1.0), name
            have, want = have[~zero], want[~zero]
        np.testing.assert_allclose(have, want, rtol=1e-12, atol=1e-15, err_msg=name)


def channel_table(channel, vocabulary):
    """The channel's P(t | s) and P_ins(t) in the layout of the references."""
    cps = [UNKNOWN, *[int(c) for c in vocabulary]]
    n = len(cps)
    src = np.repeat(cps, n)
    tgt = np.tile([-1, *cps[1:]], n)
    P = np.exp(channel.log_prob(src, tgt)).reshape(n, n)
    ins = np.exp(channel.log_prob(np.full(n, -1), np.array(cps)))
    return P, ins


@st.composite
def count_matrices(draw):
    """Counts of up to three characters: rows seen with every outcome, with none, ..."""
    V = draw(st.integers(0, 3))
    n = V + 1
    cells = st.integers(0, 3) | st.just(0)
    M = np.array(draw(st.lists(cells, min_size=n * n, max_size=n * n)), dtype=np.int64)
    M = M.reshape(n, n)
    M[0, 0] = 0  # the gap aligned to the gap is no column
    full = draw(st.lists(st.integers(1, V), max_size=V)) if V else []
    for s in full:
        M[s] = np.maximum(M[s], 1)  # a context seen with every outcome
    # NUL (code point 0) is a character like any other, not the gap (-1).
    vocabulary = np.array([ord(c) for c in "\x00ab"[:V]], dtype=np.uint32)
    return EditCounts(vocabulary, M), M


SMOOTHINGS = st.sampled_from(
    [("additive", 1.0), ("additive", 0.1), ("additive", 0.0), ("katz", 0.0), ("katz", 0.1),
     ("katz", 0.5), ("katz", 0.9)]
)  # fmt: skip
MODELS = st.sampled_from(["unified", "legacy"])


def estimator(smoothing, parameter, model):
    if smoothing == "katz":
        return EditCostEstimator(smoothing="katz", discount=parameter, model=model)
    return EditCostEstimator(k=parameter, model=model)


def check(est, M):
    """The fitted channel against the reference, and each OCR context's total."""
    smoothing, model = est.smoothing, est.model
    channel = est.channel_
    n = M.shape[0]
    if smoothing == "katz":
        P_ref, ins_ref = katz_reference(M, est.discount, model)
    else:
        P_ref, ins_ref = additive_reference(M, est.k, model)
    P, ins = channel_table(channel, channel.vocabulary)
    np.testing.assert_allclose(P, P_ref, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(ins, ins_ref, rtol=1e-12, atol=1e-15)
    # A truth character never seen: its share of context s (f = 1 under Katz; 0 when the
    # context's mass is spent on outcomes all seen), outside the distribution.
    unknown = np.exp(channel.log_prob(channel.vocabulary.astype(np.int64), [UNKNOWN] * (n - 1)))
    np.testing.assert_allclose(unknown, unknown_reference(M, est), rtol=1e-12, atol=1e-15)
    if 0 not in channel.vocabulary:  # NUL never seen is unknown like any other character
        cps = np.array([-1, UNKNOWN, *channel.vocabulary.astype(np.int64)])
        nul, other = np.zeros(len(cps), dtype=np.int64), np.full(len(cps), UNKNOWN)
        log_prob = channel.log_prob
        np.testing.assert_array_equal(log_prob(cps, nul), log_prob(cps, other))  # as the truth
        np.testing.assert_array_equal(log_prob(nul, cps), log_prob(other, cps))  # as the OCR
    parameter = est.k if smoothing == "additive" else est.discount
    z = normaliser_reference(M, smoothing, parameter, model)
    assert channel.normaliser == pytest.approx(z, rel=1e-12)
    check_tables(channel, est.costs_, P_ref, ins_ref, unknown_reference(M, est), z)
    maximum_likelihood = smoothing == "additive" and est.k == 0  # not normalised
    # Katz with discount 0 leaves unseen edits probability 0: costs >= 1 (check_tables).
    if model == "legacy" and not maximum_likelihood and parameter > 0:  # costs <= 1
        # Within the alphabet: under Katz a truth character never seen (column 0, f = 1)
        # lies outside the distribution, and its cost can exceed 1.
        tables = est.costs_
        for costs in (tables.substitution_matrix()[:, 1:], tables.ins, tables.dele):
            assert costs.max(initial=0.0) <= 1 + 1e-12
    # Each OCR context's outcomes (the gap and every character) share probability 1;
    # under maximum likelihood, only the contexts seen (the rest have no distribution).
    totals = context_sums(channel)
    row_totals = dict(zip([int(c) for c in channel.vocabulary], M[1:].sum(axis=1)))
    for s, total in totals.items():
        expected = 1.0
        if smoothing == "additive" and est.k == 0 and row_totals.get(s, 0) == 0:
            expected = 0.0
        assert total == pytest.approx(expected, abs=1e-12), (chr(s), total)
    if model == "unified" and smoothing == "katz":
        # The insertion context t: its reference distribution sums to 1, and the
        # channel's insertion probability is its "produced by nothing" share.
        g = np.maximum(M.sum(axis=1), 1.0)
        for t in range(1, M.shape[0]):
            assert katz_distribution(M[:, t].astype(float), g, est.discount).sum() == (
                pytest.approx(1.0, abs=1e-12)
            )


@settings(max_examples=300, deadline=None)
@given(count_matrices(), SMOOTHINGS, MODELS)
# A context seen with every outcome (a -> a, a deleted): Katz must not discount it.
@example((EditCounts([97], [[0, 0], [1, 1]]), np.array([[0, 0], [1, 1]])), ("katz", 0.5), "unified")
def test_every_smoothing_is_a_distribution_in_every_context(counts_and_matrix, smoothing, model):
    counts, M = counts_and_matrix
    est = estimator(*smoothing, model).fit_from_counts(counts)
    check(est, M)


def test_katz_row_default_above_probability_one():
    # 'b' read as 'a' once (C = 1, alpha = 0.9), 'a' inserted twice: f(a) = 3 is the
    # largest frequency, seen in context 'b'; the unseen outcomes b and deletion have
    # rest = 2, so alpha f_max / rest = 1.35: that context's unseen outcomes are written
    # out one by one, and the tables keep every cost >= 0.
    est = EditCostEstimator(smoothing="katz", discount=0.9).fit(["b"], ["aaa"])
    p = np.exp(est.channel_.log_prob([98] * 3, [97, 98, -1]))
    np.testing.assert_allclose(p, [0.1, 0.45, 0.45], rtol=1e-12)
    costs = est.costs_
    for table in (costs.rowdef, costs.coldef, costs.dele, costs.ins, costs.sub_cost):
        assert np.all(table >= 0)
    b, a = (int(np.flatnonzero(costs.chars == ord(ch))[0]) + 1 for ch in "ba")
    z = est.channel_.normaliser
    matrix = costs.substitution_matrix()
    np.testing.assert_allclose(matrix[b, a], -np.log(0.1) / z, rtol=1e-12)
    np.testing.assert_allclose(costs.dele[b], -np.log(0.45) / z, rtol=1e-12)


pair_text = st.text(alphabet="\x00ab", max_size=3)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(pair_text, pair_text), min_size=1, max_size=5), SMOOTHINGS, MODELS)
@example([("aa", "a"), ("a", "a")], ("katz", 0.5), "unified")  # 'a' read as 'a' and deleted
@example([("aa", "a"), ("a", "a")], ("katz", 0.5), "legacy")
@example([("", "")], ("additive", 1.0), "unified")  # no character at all
@example([("a", "")], ("katz", 0.5), "legacy")  # one character, only deleted
@example([("", "ab")], ("katz", 0.5), "unified")  # only insertions: no OCR context seen
@example([("ab", "ba"), ("a", ""), ("b", "")], ("katz", 0.1), "unified")
# Row part exactly 1 (alpha f_max = rest = 1), once refused by rounding.
@example([("", "bb")] * 4 + [("aa", "abb")], ("katz", 0.1), "unified")
def test_fitted_channels_are_distributions_on_string_pairs(pairs, smoothing, model):
    X, y = map(list, zip(*pairs))
    est = estimator(*smoothing, model).fit(X, y)
    check(est, est.counts_.matrix.toarray())


@pytest.mark.parametrize("model", ["unified", "legacy"])
def test_katz_on_the_reported_pairs_sums_to_one(model):
    # "aa" -> "a" and "a" -> "a": context 'a' is read as 'a' and deleted, every outcome
    # of V = 1 seen; a discount there would lose mass (0.667 at d = 0.5).
    est = EditCostEstimator(smoothing="katz", discount=0.5, model=model).fit(["aa", "a"], ["a"] * 2)
    p = np.exp(est.channel_.log_prob([97, 97], [97, -1]))
    np.testing.assert_allclose(p, [2 / 3, 1 / 3], rtol=1e-12)


def test_the_default_model_is_unified():
    from skocrcost import _smoothing

    counts = EditCostEstimator().fit(["ab", "b"], ["b", "bc"]).counts_
    for smooth, parameter in ((_smoothing.additive, 0.5), (_smoothing.katz, 0.5)):
        default, unified = smooth(counts, parameter), smooth(counts, parameter, "unified")
        assert default.normaliser == unified.normaliser == pytest.approx(math.log(4))
        np.testing.assert_array_equal(default.logp, unified.logp)
        np.testing.assert_array_equal(default.unseen_ins, unified.unseen_ins)
        with pytest.raises(ValueError, match=r"model must be one of \('unified', 'bounded'\)"):
            smooth(counts, parameter, "seed")

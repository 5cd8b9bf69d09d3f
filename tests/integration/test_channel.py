"""The probabilistic channel of a fitted estimator: weights, forward likelihood, EM."""

import math
import pickle

import numpy as np
import pytest
from reference import brute_force_log_likelihood
from sklearn.base import clone

from skocrcost import EditCostEstimator, EditCounts, WeightedEditDistance, WeightedLevenshtein

ALPHA = "abcd"


def channel_data(n_pairs, seed=0):
    """Pairs from known probabilities: each OCR character s is read as t, deleted or kept
    with P(. | s); after each one a random character is inserted with probability 0.1."""
    rng = np.random.default_rng(seed)
    V = len(ALPHA)
    P = np.full((V, V + 1), 0.05)  # outcomes: the V characters, then deletion
    P[np.arange(V), np.arange(V)] = 0.70
    P[:, V] = 0.15
    X, y = [], []
    for _ in range(n_pairs):
        ocr = rng.choice(V, 10)
        truth = []
        for s in ocr:
            o = rng.choice(V + 1, p=P[s])
            if o < V:
                truth.append(ALPHA[o])
            if rng.random() < 0.1:
                truth.append(ALPHA[rng.integers(V)])
        X.append("".join(ALPHA[s] for s in ocr))
        y.append("".join(truth))
    return X, y, P


def error(est, P):
    """Mean L1 distance between learned and true P(. | s) over the OCR characters."""
    V = len(ALPHA)
    src = np.repeat([ord(c) for c in ALPHA], V + 1)
    tgt = np.tile([ord(c) for c in ALPHA] + [-1], V)
    Q = np.exp(est.channel_.log_prob(src, tgt)).reshape(V, V + 1)
    return float(np.abs(Q - P).sum() / V)


def test_em_recovers_known_probabilities_more_closely_than_viterbi_counting():
    X, y, P = channel_data(1500)
    viterbi = EditCostEstimator(k=0.01).fit(X, y)
    realigned = EditCostEstimator(k=0.01, max_iter=5).fit(X, y)
    em = EditCostEstimator(k=0.01, counting="forward", max_iter=20).fit(X, y)
    assert em.n_iter_ > 1
    assert error(em, P) < 0.5 * error(viterbi, P)
    assert error(em, P) < 0.5 * error(realigned, P)
    assert em.counts_.matrix.dtype == np.float64
    # EM raises the held-out likelihood of new pairs from the same channel
    Xt, yt, _ = channel_data(300, seed=1)
    assert em.score(Xt, yt, method="forward") > viterbi.score(Xt, yt, method="forward")


def test_weights_are_the_learned_log_probabilities():
    X, y, _ = channel_data(200, seed=2)
    est = EditCostEstimator(k=0.5).fit(X, y)
    natural = est.to_weighted_edit_distance()
    two = est.to_weighted_edit_distance(log_base=2.0)
    assert natural.log_base == math.e and two.log_base == 2.0
    ch = est.channel_
    a, b = ord("a"), ord("b")
    assert natural.match_weight("a") == pytest.approx(ch.log_prob([a], [a])[0])
    assert natural.substitute_weight("a", "b") == pytest.approx(ch.log_prob([a], [b])[0])
    assert natural.delete_weight("a") == pytest.approx(ch.log_prob([a], [-1])[0])
    assert natural.insert_weight("b") == pytest.approx(ch.log_prob([-1], [b])[0])
    assert two.match_weight("a") == pytest.approx(natural.match_weight("a") / math.log(2))
    # proximity is the log-probability of the best alignment, in the chosen base
    for ocr, truth in zip(X[:20], y[:20], strict=True):
        prox = natural.proximity(ocr, truth)
        ops = natural.explain(ocr, truth)
        assert -sum(op.cost for op in ops) == pytest.approx(prox)
        assert two.proximity(ocr, truth) == pytest.approx(prox / math.log(2))
        # at least the metric's cheapest alignment, at most the sum over all of them
        viterbi = est.score_samples([ocr], [truth], method="viterbi")[0]
        assert prox >= viterbi - 1e-9
        assert est.log_likelihood(ocr, truth) >= prox - 1e-9
    with pytest.raises(ValueError, match="log_base"):
        est.to_weighted_edit_distance(log_base=0)


def test_estimator_log_likelihood_sums_every_alignment():
    est = EditCostEstimator(k=1.0).fit(["ab", "a", "ba"], ["b", "a", "ab"])
    wed = est.to_weighted_edit_distance()

    def weight(kind, s, t):
        if kind == "match":
            return wed.match_weight(s)
        if kind == "sub":
            return wed.substitute_weight(s, t)
        return wed.delete_weight(s) if kind == "del" else wed.insert_weight(t)

    for a, b in [("ab", "b"), ("ba", "ab"), ("", "a"), ("abc", "")]:
        want = brute_force_log_likelihood(a, b, weight, math.e)
        assert est.log_likelihood(a, b) == pytest.approx(want, rel=1e-9)
    scores = est.score_samples(["ab", "ba"], ["b", "ab"], method="forward")
    assert scores == pytest.approx([est.log_likelihood("ab", "b"), est.log_likelihood("ba", "ab")])
    assert est.score(["ab"], ["b"], method="forward") >= est.score(["ab"], ["b"])


def test_forward_estimator_follows_sklearn_conventions():
    X, y, _ = channel_data(100, seed=3)
    est = EditCostEstimator(counting="forward", max_iter=3)
    assert clone(est).get_params()["counting"] == "forward"
    est.fit(X, y)
    back = pickle.loads(pickle.dumps(est))
    assert back.score(X, y) == est.score(X, y)
    assert est.score(X, y) == est.score(X, y, method="forward")  # follows counting
    with pytest.raises(ValueError, match="'counting'"):
        EditCostEstimator(counting="beam").fit(X, y)
    with pytest.raises(ValueError, match="method"):
        est.score(X, y, method="beam")
    with pytest.raises(ValueError, match="initial_metric must have single-character costs"):
        EditCostEstimator(initial_metric=WeightedLevenshtein({("rn", "m"): 0.2})).fit(X, y)
    assert isinstance(est.to_weighted_edit_distance(), WeightedEditDistance)


def test_fractional_counts_stay_additive():
    whole = EditCounts.from_columns([97, 98], [97, -1])
    part = EditCounts(whole.vocabulary, whole.matrix.astype(float) * 0.5)
    total = whole + part
    assert total.matrix.dtype == np.float64
    assert total.most_common(1, errors_only=False)[0] == ("a", "a", 1.5)
    assert (part + part) == EditCounts(whole.vocabulary, whole.matrix.astype(float))
    assert whole.matrix.dtype == np.int64


def test_em_needs_additive_smoothing():
    X, y, _ = channel_data(20)
    with pytest.raises(ValueError, match="counting='forward' needs smoothing='additive'"):
        EditCostEstimator(counting="forward", smoothing="katz").fit(X, y)

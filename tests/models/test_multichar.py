"""Learning multi-character edits (rn -> m, li -> h) from aligned pairs."""

import numpy as np
import pytest
from conftest import read_pairs, shared_path

from skocrcost import EditCostEstimator


def rn_pairs(n_rn, n_li, seed=0):
    """Truth words with m and h; the OCR reads m as rn n_rn times and h as li n_li times."""
    rng = np.random.default_rng(seed)
    words = ["time", "summer", "the", "which", "moment", "home", "other", "much"]
    X, y = [], []
    for i in range(400):
        w = words[rng.integers(len(words))]
        ocr = w
        if i < n_rn and "m" in w:
            ocr = ocr.replace("m", "rn", 1)
        if n_rn <= i < n_rn + n_li and "h" in w:
            ocr = ocr.replace("h", "li", 1)
        X.append(ocr)
        y.append(w)
    return X, y


def test_frequent_confusions_become_single_edits():
    X, y = rn_pairs(60, 3)
    single = EditCostEstimator(k=0.1).fit(X, y)
    multi = EditCostEstimator(k=0.1, max_token_length=2, min_count=5).fit(X, y)
    assert single.rules_ == []
    learned = {(s, t): n for s, t, n in multi.rules_}
    assert learned.get(("rn", "m"), 0) >= 30  # counted as an edit of its own
    assert ("li", "h") not in learned  # seen fewer than min_count times
    ops = multi.metric_.explain("tirne", "time")
    assert [(op.kind, op.source, op.target) for op in ops if op.kind != "match"] == [
        ("substitute", "rn", "m")
    ]
    assert multi.metric_.distance("tirne", "time") < single.metric_.distance("tirne", "time")
    # the rule also enters the channel: weights, likelihoods and scores
    wed = multi.to_weighted_edit_distance()
    assert wed.proximity("tirne", "time") == pytest.approx(
        multi.score_samples(["tirne"], ["time"], method="viterbi")[0]
    )
    assert multi.log_likelihood("tirne", "time") >= wed.proximity("tirne", "time")
    lower = EditCostEstimator(k=0.1, max_token_length=2, min_count=2).fit(X, y)
    assert ("li", "h") in {(s, t) for s, t, _ in lower.rules_}


def test_em_re_estimates_the_multi_character_edits_too():
    X, y = rn_pairs(60, 3)
    em = EditCostEstimator(k=0.1, max_token_length=2, counting="forward", max_iter=5).fit(X, y)
    learned = {(s, t): n for s, t, n in em.rules_}
    assert isinstance(learned[("rn", "m")], float)
    # every OCR "rn" stands for a truth "m": nearly all the posterior mass goes to the rule
    assert learned[("rn", "m")] == pytest.approx(sum("rn" in a for a in X), abs=0.01)
    assert [op.kind for op in em.metric_.explain("tirne", "time")] == [
        "match",
        "match",
        "substitute",
        "match",
    ]
    assert em.score(X, y) > EditCostEstimator(k=0.1, counting="forward", max_iter=5).fit(
        X, y
    ).score(X, y)


def test_bad_multi_character_parameters_are_refused():
    X, y = rn_pairs(10, 0)
    with pytest.raises(ValueError, match="min_count"):
        EditCostEstimator(max_token_length=2, min_count=0).fit(X, y)
    with pytest.raises(ValueError, match="max_token_length"):
        EditCostEstimator(max_token_length=0).fit(X, y)


def test_learned_multi_character_edits_lower_held_out_cost_on_real_ocr():
    X, y = read_pairs(shared_path("icdar2017_engmono", "tokens.tsv"), limit=80_000)
    Xtr, ytr, Xte, yte = X[:60_000], y[:60_000], X[60_000:], y[60_000:]
    single = EditCostEstimator(k=0.1).fit(Xtr, ytr)
    multi = EditCostEstimator(k=0.1, max_token_length=2, min_count=5).fit(Xtr, ytr)
    assert len(multi.rules_) > 0
    cost_single = np.mean([single.metric_.distance(a, b) for a, b in zip(Xte, yte)])
    cost_multi = np.mean([multi.metric_.distance(a, b) for a, b in zip(Xte, yte)])
    assert cost_multi < cost_single
    assert multi.score(Xte, yte) > single.score(Xte, yte)


@pytest.mark.parametrize("counting", ["viterbi", "forward"])
def test_models_with_rules_or_expected_counts_save_and_load(tmp_path, counting):
    X, y = rn_pairs(60, 3)
    est = EditCostEstimator(k=0.1, max_token_length=2, counting=counting, max_iter=3).fit(X, y)
    path = tmp_path / "model.json.gz"
    est.save(path)
    back = EditCostEstimator.load(path)
    assert back.metric_ == est.metric_
    assert back.rules_ == est.rules_
    assert back.score(X, y) == est.score(X, y)
    assert back.metric_.distance("tirne", "time") == est.metric_.distance("tirne", "time")


def test_fit_from_counts_refuses_what_needs_the_pairs():
    counts = EditCostEstimator().fit(["a"], ["b"]).counts_
    with pytest.raises(ValueError, match="counting must be 'viterbi' in fit_from_counts"):
        EditCostEstimator(counting="forward").fit_from_counts(counts)
    with pytest.raises(ValueError, match="max_token_length"):
        EditCostEstimator(max_token_length=2).fit_from_counts(counts)

"""EditCostEstimator: the formulas of docs/model.md, the asymptote, and scikit-learn conventions."""

import math
import pickle
import warnings

import numpy as np
import pytest
from conftest import read_pairs, shared_path
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, KFold

from skocrcost import EditCostEstimator, WeightedLevenshtein
from skocrcost import estimator as estimator_module
from skocrcost._kernels import _cost_kernel as _dp
from skocrcost.datasets import load_icdar2017_sample

PAIRS = (["a", "a"], ["b", "a"])  # OCR "a" read for truth "b" once, correct once


def test_unified_model_by_hand():
    est = EditCostEstimator(k=1.0).fit(*PAIRS)
    costs = est.costs_
    # V = 2 (a, b); C(a) = 2 on the OCR side; c(a->b) = 1: P = 2/5.
    assert costs.substitution_cost("a", "b") == pytest.approx(-math.log(0.4) / math.log(3))
    assert round(costs.substitution_cost("a", "b"), 6) == 0.834044
    assert costs.deletion_cost("a") == pytest.approx(math.log(5) / math.log(3))  # unseen: 1/5
    # Insertions are conditioned on the truth character: C(b) = 1 -> P = 1/(1 + 3).
    assert costs.insertion_cost("b") == pytest.approx(math.log(4) / math.log(3))
    # 'b' never appears on the OCR side: C(b) = 0, P = 1/3, cost exactly 1.
    assert costs.substitution_cost("b", "a") == pytest.approx(1.0)
    # Characters never seen take the default cost, which equals the unseen-context cost.
    assert costs.substitution_cost("x", "a") == 1.0
    assert est.vocabulary_ == ["a", "b"]
    assert est.metric_.distance("a", "b") == pytest.approx(0.834044, abs=1e-6)


def test_bounded_model_by_hand():
    est = EditCostEstimator(k=1.0, model="bounded").fit(*PAIRS)
    z = math.log(5)  # largest unseen surprisal: context 'a', -ln(1/5) > ln 4 > ln 3
    costs = est.costs_
    assert costs.substitution_cost("a", "b") == pytest.approx(-math.log(0.4) / z)
    assert costs.deletion_cost("a") == pytest.approx(1.0)
    # Insertions conditioned on the corpus: (0 + 1) / (C_total + kV) = 1/4.
    assert costs.insertion_cost("b") == pytest.approx(math.log(4) / z)
    assert costs.insertion_cost("a") == pytest.approx(math.log(4) / z)
    table = costs.substitution_matrix()
    assert table.max() <= 1.0 and costs.ins.max() <= 1.0 and costs.dele.max() <= 1.0


def test_bounded_insertion_context_is_the_corpus():
    X, y = ["abc", "abc"], ["abxc", "abc"]
    est = EditCostEstimator(k=0.5, model="bounded").fit(X, y)
    V, total = 4, 6  # a b c x; six OCR characters
    p_ins_x = (1 + 0.5) / (total + 0.5 * V)
    unseen = [0.5 / (2 + 0.5 * (V + 1))] + [0.5 / (total + 0.5 * V)]  # context a (=b=c), corpus
    z = max(-math.log(p) for p in unseen)
    assert est.costs_.insertion_cost("x") == pytest.approx(-math.log(p_ins_x) / z)


def test_maximum_likelihood_when_k_is_zero():
    est = EditCostEstimator(k=0).fit(*PAIRS)
    assert est.costs_.substitution_cost("a", "b") == pytest.approx(math.log(2))
    assert est.costs_.deletion_cost("a") == 1.0  # never seen: the default
    assert est.costs_.substitution_cost("b", "a") == 1.0
    X, y = ["ab"] * 3 + ["a"], ["a"] * 3 + ["a"]
    est = EditCostEstimator(k=0).fit(X, y)
    assert est.costs_.deletion_cost("b") == pytest.approx(0.0)  # every OCR 'b' deleted


@pytest.mark.parametrize("k", [0.1, 1.0, 10.0])
def test_cost_of_a_stable_error_rate_converges_whatever_k(k):
    rng = np.random.default_rng(0)
    X, y = [], []
    for _ in range(400):
        truth = np.where(rng.random(1000) < 0.1, "b", "a")
        X.append("a" * 1000)
        y.append("".join(truth))
    est = EditCostEstimator(k=k).fit(X, y)
    share = (np.array(list("".join(y))) == "b").mean()
    V = 2
    assert est.costs_.substitution_cost("a", "b") == pytest.approx(
        -math.log(share) / math.log(V + 1), abs=2e-4
    )


def test_score_is_the_mean_log_likelihood_of_the_alignment():
    est = EditCostEstimator(k=1.0).fit(*PAIRS)
    per_pair = est.score_samples(["a", "a"], ["b", "a"])
    # (a, b): substitution, P = 2/5; (a, a): match, P(a -> a | a) = (1 + 1)/5.
    np.testing.assert_allclose(per_pair, [math.log(0.4), math.log(0.4)])
    assert est.score(["a", "a"], ["b", "a"]) == pytest.approx(math.log(0.4))
    # A character never seen is its own context: P = k / (k (V + 1)) = 1/3 for any outcome.
    assert est.score_samples(["z"], ["z"])[0] == pytest.approx(math.log(1 / 3))
    assert est.score_samples([""], ["b"])[0] == pytest.approx(math.log(1 / 4))


def test_grid_search_picks_k_by_held_out_likelihood():
    X, y = load_icdar2017_sample("tokens")
    X, y = X[:6000], y[:6000]
    grid = [0.001, 0.1, 1.0, 100.0]
    search = GridSearchCV(EditCostEstimator(), {"k": grid}, cv=KFold(3)).fit(X, y)
    scores = search.cv_results_["mean_test_score"]
    # The same folds by hand: each k fitted on two thirds, scored on the third.
    X, y = np.array(X, dtype=object), np.array(y, dtype=object)
    by_hand = [
        np.mean(
            [
                EditCostEstimator(k=k)
                .fit(list(X[fit]), list(y[fit]))
                .score_samples(list(X[held]), list(y[held]))
                for fit, held in KFold(3).split(X)
            ]
        )
        for k in grid
    ]
    np.testing.assert_allclose(scores, by_hand, rtol=1e-12)
    # On this sample the held-out likelihood falls as the smoothing grows: the
    # smallest k wins, and heavy smoothing loses by far.
    assert np.all(np.diff(scores) < 0)
    assert search.best_params_ == {"k": 0.001}
    assert scores[-1] < scores[0] - 5


def test_transform_and_feature_names():
    X, y = ["tbe", "c0w", "the"], ["the", "cow", "the"]
    est = EditCostEstimator().fit(X, y)
    assert est.references_ == ["the", "cow"]
    out = est.transform(["tho", "cw"])
    np.testing.assert_array_equal(out, est.metric_.pairwise(["tho", "cw"], ["the", "cow"]))
    assert list(est.get_feature_names_out()) == ["the", "cow"]
    est = EditCostEstimator(references=["a", "b", "c"]).fit(X, y)
    assert est.transform(["a"]).shape == (1, 3)


def test_transform_refuses_outputs_too_large(monkeypatch):
    est = EditCostEstimator().fit(["ab"], ["ab"])
    monkeypatch.setattr(estimator_module, "MAX_TRANSFORM_BYTES", 100)
    with pytest.raises(ValueError, match="EditDistanceNeighbors"):
        est.transform(["x"] * 20)


def test_realignment_converges():
    X, y = load_icdar2017_sample("tokens")
    est = EditCostEstimator(max_iter=6).fit(X[:3000], y[:3000])
    assert 2 <= est.n_iter_ <= 6
    if est.n_iter_ < 6:  # converged: one more alignment with the learned metric changes nothing
        again = EditCostEstimator(initial_metric=est.metric_).fit(X[:3000], y[:3000])
        assert again.counts_ == est.counts_


def test_large_alphabets_stay_sparse():
    rng = np.random.default_rng(0)
    cjk = [chr(0x4E00 + i) for i in range(1500)]
    y = ["".join(rng.choice(cjk, 6)) for _ in range(3000)]
    X = [w[:2] + cjk[(cjk.index(w[2]) + 1) % 1500] + w[3:] for w in y]
    est = EditCostEstimator().fit(X, y)
    assert len(est.vocabulary_) > 1024
    assert not est.metric_._kernel.dense
    assert len(est.costs_.sub_cost) == len(est.counts_.matrix.nonzero()[0]) - sum(
        1 for r, c in zip(*est.counts_.matrix.nonzero()) if r == c or r == 0 or c == 0
    )
    dense = _dp.CostKernel(*est.costs_.kernel_args()[:-1], True)
    for a, b in zip(X[:50], y[:50]):
        assert est.metric_.distance(a, b) == dense.distance(a, b)


def test_clone_pickle_and_tags():
    est = EditCostEstimator(k=0.5, model="bounded")
    assert clone(est).get_params() == est.get_params()
    est.fit(["abc", "abd"], ["abc", "abe"])
    back = pickle.loads(pickle.dumps(est))
    assert back.metric_ == est.metric_
    assert back.score(["abd"], ["abe"]) == est.score(["abd"], ["abe"])
    tags = est.__sklearn_tags__()
    assert tags.input_tags.string and not tags.input_tags.two_d_array


def test_real_ocr_confusions_are_cheap():
    X, y = read_pairs(shared_path("icdar2017_engmono", "tokens.tsv"), limit=200_000)
    est = EditCostEstimator(k=0.1).fit(X, y)
    costs = est.costs_
    # Common OCR confusions cost less than a confusion never seen.
    assert costs.substitution_cost("1", "I") < 0.5
    assert costs.substitution_cost("1", "I") < costs.substitution_cost("1", "Q")
    unit = WeightedLevenshtein()
    held_X, held_y = X[-2000:], y[-2000:]
    wrong = [(a, b) for a, b in zip(held_X, held_y) if a != b]
    learned = np.mean([est.metric_.distance(a, b) for a, b in wrong])
    assert learned < np.mean([unit.distance(a, b) for a, b in wrong])


@pytest.mark.parametrize("model", ["unified", "bounded"])
@pytest.mark.parametrize("k", [0.0, 0.1, 1.0])
def test_fit_from_counts_of_shards_equals_fit_on_all_pairs(model, k):
    X, y = load_icdar2017_sample("tokens")
    X, y = X[:4000], y[:4000]
    cuts = [0, 1300, 2600, len(X)]
    shards = [EditCostEstimator().fit(X[a:b], y[a:b]).counts_ for a, b in zip(cuts, cuts[1:])]
    alone = EditCostEstimator(k=k, model=model).fit(X, y)
    merged = EditCostEstimator(k=k, model=model, references=["the"]).fit_from_counts(sum(shards))
    assert merged.counts_ == alone.counts_
    assert merged.costs_ == alone.costs_
    assert merged.score(X[:300], y[:300]) == alone.score(X[:300], y[:300])
    assert merged.vocabulary_ == alone.vocabulary_
    assert merged.n_iter_ == 1 and merged.references_ == ["the"]
    assert EditCostEstimator().fit_from_counts(alone.counts_).references_ == []


def test_fit_from_counts_refuses_bad_input_and_keeps_the_fit():
    est = EditCostEstimator().fit(*PAIRS)
    metric = est.metric_
    with pytest.raises(TypeError, match="counts must be EditCounts"):
        est.fit_from_counts({("a", "b"): 1})
    with pytest.raises(ValueError, match="max_iter must be 1"):
        EditCostEstimator(max_iter=3).fit_from_counts(est.counts_)
    with pytest.raises(ValueError, match="'k'"):
        EditCostEstimator(k=-1).fit_from_counts(est.counts_)
    assert est.metric_ is metric


# -- Katz back-off smoothing of the edit counts -------------------------------------------


def test_katz_smoothing_by_hand():
    est = EditCostEstimator(smoothing="katz", discount=0.5).fit(*PAIRS)
    costs, z = est.costs_, math.log(3)  # unified: Z = ln(V + 1), V = 2
    # Context 'a' (C = 2): a -> b and a -> a seen once each: (1 - 0.5) / 2 = 0.25 each;
    # alpha = 0.5 * 2 / 2 goes to the one unseen outcome, deletion.
    assert costs.substitution_cost("a", "b") == pytest.approx(-math.log(0.25) / z)
    assert costs.deletion_cost("a") == pytest.approx(-math.log(0.5) / z)
    # Context 'b' never seen on the OCR side: backs off whole to the overall frequencies
    # (deletions 0 -> 1, a 1, b 1 on the truth side): 1/3.
    assert costs.substitution_cost("b", "a") == pytest.approx(1.0)
    # Insertion of b: column 'b' holds a -> b only (C = 1), alpha = 0.5, and the unseen
    # outcomes {nothing (0 insertions -> 1), b (never on the OCR side -> 1)}: 0.5 * 1 / 2.
    assert costs.insertion_cost("b") == pytest.approx(-math.log(0.25) / z)
    np.testing.assert_allclose(
        est.score_samples(["a", "a", "", "z"], ["b", "a", "b", "z"]),
        [math.log(0.25), math.log(0.25), math.log(0.25), math.log(1 / 3)],
    )


@pytest.mark.parametrize("model", ["unified", "bounded"])
@pytest.mark.parametrize("discount", [0.1, 0.5, 0.9])
def test_katz_sums_to_one_in_every_ocr_context(model, discount):
    X, y = load_icdar2017_sample("tokens")
    est = EditCostEstimator(smoothing="katz", discount=discount, model=model).fit(
        X[:3000], y[:3000]
    )
    channel = est.channel_
    chars = [int(c) for c in channel.vocabulary]
    outcomes = np.array([-1, *chars, ord("\u2603")])  # the gap, every character, an unknown
    for s in [*chars, ord("\u2601")]:  # every context, and a character never seen
        p = np.exp(channel.log_prob(np.full(len(outcomes), s), outcomes))
        assert math.fsum(p[:-1]) == pytest.approx(1.0, abs=1e-12), chr(s)
        assert 0 < p[-1] <= 1  # the unknown character's fallback, outside the sum
    tables = est.costs_
    for arr in (tables.substitution_matrix(), tables.ins, tables.dele):
        assert np.all(np.isfinite(arr)) and np.all(arr >= 0)
    if model == "bounded":
        assert tables.substitution_matrix().max() <= 1 + 1e-12 and tables.ins.max() <= 1 + 1e-12


def test_katz_insertion_probabilities_by_hand_bounded():
    X, y = ["abc", "abc"], ["abxc", "abc"]
    est = EditCostEstimator(smoothing="katz", discount=0.5, model="bounded").fit(X, y)
    # Six OCR characters; x inserted once: (1 - 0.5) / 6.  Unseen insertions share
    # alpha = 0.5 * 1 / 6 by truth frequency: a, b, c twice each.
    p_x = 0.5 / 6
    p_a = (0.5 / 6) * 2 / 6
    assert est.channel_.log_prob([-1], [ord("x")])[0] == pytest.approx(math.log(p_x))
    assert est.channel_.log_prob([-1], [ord("a")])[0] == pytest.approx(math.log(p_a))
    ratio = est.costs_.insertion_cost("x") / est.costs_.insertion_cost("a")
    assert ratio == pytest.approx(math.log(p_x) / math.log(p_a))


def test_katz_metric_pickles_and_round_trips_through_json():
    X, y = load_icdar2017_sample("tokens")
    est = EditCostEstimator(smoothing="katz").fit(X[:2000], y[:2000])
    back = pickle.loads(pickle.dumps(est))
    assert back.metric_ == est.metric_
    again = WeightedLevenshtein.from_dict(est.metric_.to_dict())
    for a, b in zip(X[:200], y[:200]):
        assert again.distance(a, b) == pytest.approx(est.metric_.distance(a, b))


def test_grid_search_over_the_discount():
    X, y = load_icdar2017_sample("tokens")
    X, y = X[:6000], y[:6000]
    grid = [0.05, 0.5, 0.95]
    search = GridSearchCV(EditCostEstimator(smoothing="katz"), {"discount": grid}, cv=KFold(3)).fit(
        X, y
    )
    scores = search.cv_results_["mean_test_score"]
    assert np.all(np.isfinite(scores))
    assert scores[0] < scores.max()  # too small a discount starves the unseen edits


@pytest.mark.parametrize(
    ("params", "error", "match"),
    [
        ({"smoothing": "kneser-ney"}, ValueError, "'smoothing'"),
        ({"discount": 1.0}, ValueError, "'discount'"),
        ({"discount": -0.5}, ValueError, "'discount'"),
        ({"discount": math.nan}, ValueError, "discount"),
    ],
)
def test_bad_katz_parameters_are_refused(params, error, match):
    with pytest.raises(error, match=match):
        EditCostEstimator(**{"smoothing": "katz", **params}).fit(["a"], ["a"])


# -- the deprecated names: aligner, alignment, model="legacy" -------------------------------
@pytest.mark.parametrize(
    ("old", "new"),
    [
        ({"model": "legacy"}, {"model": "bounded"}),
        (
            {"aligner": WeightedLevenshtein({("b", "h"): 0.2})},
            {"initial_metric": WeightedLevenshtein({("b", "h"): 0.2})},
        ),
        ({"alignment": "forward", "max_iter": 3}, {"counting": "forward", "max_iter": 3}),
    ],
    ids=["legacy", "aligner", "alignment"],
)
def test_deprecated_names_still_work_with_a_future_warning(old, new):
    X, y = ["tbe", "c0w", "Tlie", "the"], ["the", "cow", "The", "the"]
    name = next(iter(old))
    with pytest.warns(FutureWarning, match=f"{name}.* renamed .*{next(iter(new))}"):
        before = EditCostEstimator(k=0.5, **old).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        after = EditCostEstimator(k=0.5, **new).fit(X, y)
    assert before.metric_ == after.metric_
    assert before.score(X, y) == after.score(X, y)
    assert clone(EditCostEstimator(**old)).get_params()[name] == old[name]


@pytest.mark.parametrize(
    "params",
    [
        {"aligner": WeightedLevenshtein(), "initial_metric": WeightedLevenshtein()},
        {"alignment": "viterbi", "counting": "forward"},
    ],
    ids=["aligner", "alignment"],
)
def test_a_deprecated_name_and_its_new_name_together_are_refused(params):
    old, new = params
    with pytest.raises(ValueError, match=f"{old} and {new} are both set: pass {new} only"):
        EditCostEstimator(**params).fit(["a"], ["b"])


def test_the_default_settings_warn_about_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        EditCostEstimator().fit(["tbe"], ["the"])

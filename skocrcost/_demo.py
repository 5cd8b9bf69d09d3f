"""The main job on the embedded sample: learn the costs (k by cross-validation), correct
held-out lines, show what was learned and what changed."""

import numpy as np
from sklearn.model_selection import GridSearchCV, KFold, train_test_split

from .correction import OCRCorrector, character_error_rate, word_error_rate
from .datasets import load_icdar2017_sample
from .estimator import EditCostEstimator
from .metrics import WeightedLevenshtein
from .plotting import cheapest_confusions

K_GRID = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
# ``skocrcost fit --k auto`` and the shipped model search wider: with ten times the
# sample's data, k = 0.003 wins (scripts/make_pretrained.py).
K_SEARCH = (0.001, 0.003, *K_GRID)


def run(print_=print, *, random_state=0):
    """Run the demo and return the fitted GridSearchCV."""
    X, y = load_icdar2017_sample("lines")
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.2, random_state=random_state
    )
    print_(f"ICDAR 2017 sample: {len(X_train)} training and {len(X_test)} held-out line pairs")
    search = GridSearchCV(
        EditCostEstimator(),
        {"k": list(K_GRID)},
        cv=KFold(5, shuffle=True, random_state=random_state),
    )
    search.fit(X_train, y_train)
    best = search.best_estimator_
    print_("\nk chosen by 5-fold cross-validated log-likelihood per line:")
    for k, score in zip(K_GRID, search.cv_results_["mean_test_score"], strict=True):
        mark = "  <- chosen" if k == search.best_params_["k"] else ""
        print_(f"  k = {k:<5g} mean held-out log-likelihood {score:9.3f}{mark}")
    print_(f"\nV = {len(best.vocabulary_)} characters; the ten cheapest learned confusions:")
    print_(f"  {'OCR':>5} -> {'truth':<5} {'cost':>6} {'seen':>6}")
    for s, t, cost, count in cheapest_confusions(best):
        print_(f"  {s or '(none)':>5} -> {t or '(none)':<5} {cost:6.3f} {count:6d}")
    unit = WeightedLevenshtein()
    wrong = [(a, b) for a, b in zip(X_test, y_test, strict=True) if a != b]
    rng = np.random.default_rng(random_state)
    print_("\nHeld-out lines: unit-cost and learned distance from the OCR to the truth")
    for i in rng.choice(len(wrong), size=min(4, len(wrong)), replace=False):
        a, b = wrong[i]
        print_(f"  OCR   {a}\n  truth {b}")
        print_(f"  unit {unit.distance(a, b):.3f}   learned {best.metric_.distance(a, b):.3f}\n")
    print_(f"held-out log-likelihood per line: {best.score(X_test, y_test):.3f}")

    fixer = OCRCorrector(best).fit(X_train, y_train)
    fixed = fixer.predict(X_test).tolist()
    print_("\nOCRCorrector (these costs, a trigram language model, the shipped English words):")
    for name, rate in (("word", word_error_rate), ("character", character_error_rate)):
        print_(
            f"  {name} error rate of the held-out lines {rate(y_test, X_test):.4f} -> "
            f"{rate(y_test, fixed):.4f}"
        )
    changed = [i for i, (a, b) in enumerate(zip(X_test, fixed, strict=True)) if a != b]
    for i in changed[:3]:
        print_(f"  OCR       {X_test[i]}\n  corrected {fixed[i]}\n  truth     {y_test[i]}\n")
    return search

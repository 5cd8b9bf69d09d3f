"""Katz back-off against additive smoothing of edit costs: held-out log-likelihood.

    python benchmarks/katz_vs_additive.py [n_pairs]

For each corpus (BLN600 aligned tokens, ICDAR 2017 tokens; the first n_pairs
pairs, default 200,000), 3-fold cross-validation (contiguous folds) of
EditCostEstimator over k (additive) and over the discount d (katz), scored by
``score``: the mean per-pair log-likelihood of held-out pairs.
"""

import sys
import time
from pathlib import Path

from _pairs import read_pairs
from sklearn.model_selection import GridSearchCV, KFold

from skocrcost import EditCostEstimator

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
CORPORA = {
    "bln600 tokens": DATA / "bln600" / "train.tokens_aligned.tsv",
    "icdar2017 tokens": DATA / "icdar2017_engmono" / "tokens.tsv",
}
GRIDS = {
    "additive": ("k", [0.003, 0.01, 0.03, 0.1, 0.3, 1.0]),
    "katz": ("discount", [0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9]),
}


def main():
    limit = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    for name, path in CORPORA.items():
        X, y = read_pairs(path, limit)
        for smoothing, (param, grid) in GRIDS.items():
            t0 = time.perf_counter()
            search = GridSearchCV(
                EditCostEstimator(smoothing=smoothing), {param: grid}, cv=KFold(3)
            ).fit(X, y)
            scores = search.cv_results_["mean_test_score"]
            row = ", ".join(f"{v}: {s:.4f}" for v, s in zip(grid, scores))
            print(
                f"{name} ({len(X):,} pairs) {smoothing:<8} "
                f"best {param}={search.best_params_[param]} "
                f"score {search.best_score_:.4f}  [{row}]  {time.perf_counter() - t0:.0f} s",
                flush=True,
            )


if __name__ == "__main__":
    main()

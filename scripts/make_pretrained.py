"""Learn the shipped "en-historical" cost model and measure it (run from the repository root).

Trains on the first 90% of the ICDAR 2017 English-monograph pseudo-lines (in
corpus order, so the held-out part is other documents), with k chosen by 5-fold
cross-validated log-likelihood, and writes
``skocrcost/datasets/data/en-historical.json.gz`` (costs and edit counts: derived
statistics, not the corpus text).  Then it compares, on the last 10% minus the
lines of the embedded sample (neither model saw them), the held-out
log-likelihood of this model with that of a model fitted on the embedded sample
alone, and does the same on BLN600 (19th-century newspapers, out of domain).

    python scripts/make_pretrained.py        # about 10 minutes on one core
"""

import sys
import time
from pathlib import Path

import numpy as np
from sklearn.model_selection import GridSearchCV, KFold

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from skocrcost import EditCostEstimator  # noqa: E402
from skocrcost._demo import K_SEARCH  # noqa: E402
from skocrcost.datasets import PRETRAINED, load_icdar2017_sample  # noqa: E402

DATA = ROOT / ".." / "shared" / "data"
SAMPLE_STEP = 12  # the embedded sample is every 12th line (scripts/make_sample.py)
TRAIN_SHARE = 0.9


def read_pairs(path):
    pairs = [line.rstrip("\n").split("\t") for line in open(path, encoding="utf-8")]
    return [p[0] for p in pairs], [p[1] for p in pairs]


def fit_cv(X, y):
    search = GridSearchCV(
        EditCostEstimator(), {"k": list(K_SEARCH)}, cv=KFold(5, shuffle=True, random_state=0)
    )
    return search.fit(X, y)


def report(name, est, X, y):
    ll = est.score_samples(X, y)
    chars = sum(len(t) for t in y)
    print(
        f"| {name} | {len(X)} | {ll.mean():.3f} | {ll.sum() / chars:.4f} |",
        flush=True,
    )


def main():
    X, y = read_pairs(DATA / "icdar2017_engmono" / "lines.tsv")
    cut = int(len(X) * TRAIN_SHARE)
    held = [i for i in range(cut, len(X)) if i % SAMPLE_STEP != 0]
    X_held, y_held = [X[i] for i in held], [y[i] for i in held]
    t0 = time.perf_counter()
    search = fit_cv(X[:cut], y[:cut])
    best = search.best_estimator_
    print(f"trained on {cut} lines in {time.perf_counter() - t0:.0f} s; k = {search.best_params_}")
    out = ROOT / "skocrcost" / "datasets" / "data" / PRETRAINED["en-historical"]
    best.save(out, include_references=False)
    print(
        f"wrote {out.relative_to(ROOT)} ({out.stat().st_size} bytes), V = {len(best.vocabulary_)}"
    )

    X_s, y_s = load_icdar2017_sample("lines")
    sample = fit_cv(X_s, y_s)
    print(f"embedded-sample fit: k = {sample.best_params_}")
    # The sample spreads over the whole corpus, so it has seen other lines of the
    # held-out documents; its lines from the training part alone have not.
    n_train = len(range(0, cut, SAMPLE_STEP))
    sample_train = fit_cv(X_s[:n_train], y_s[:n_train])
    print(f"embedded sample, training part only ({n_train} lines): k = {sample_train.best_params_}")
    X_bln, y_bln = read_pairs(DATA / "bln600" / "train.lines.tsv")
    print("\n| model, test set | pairs | log-likelihood per line | per truth character |")
    print("|---|---|---|---|")
    for test, Xt, yt in (
        ("ICDAR 2017 held-out lines", X_held, y_held),
        ("BLN600 sentences", X_bln, y_bln),
    ):
        report(f"en-historical, {test}", best, Xt, yt)
        report(f"embedded-sample fit, {test}", sample.best_estimator_, Xt, yt)
        report(f"embedded sample, training part only, {test}", sample_train.best_estimator_, Xt, yt)
    assert np.isfinite(best.score(X_held[:10], y_held[:10]))


if __name__ == "__main__":
    main()

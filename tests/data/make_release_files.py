"""Write the files of tests/data/release-0.1.0/: objects pickled and saved by release 0.1.0.

Run once, at commit b4f72d1 (before the kernels moved to ``skocrcost._kernels``), with
that commit's compiled kernels; ``tests/test_release_files.py`` loads them with the
code of today and checks every answer against the one written beside them.  Do not
run it again: the point of these files is that they were written by the old code.
"""

import json
import pickle
import sys
from pathlib import Path

from skocrcost import (
    EditCostEstimator,
    EditDistanceNeighbors,
    KatzBackoffLM,
    OCRCorrector,
    WeightedEditDistance,
    WeightedLevenshtein,
)
from skocrcost.datasets import load_icdar2017_sample

OUT = Path(__file__).resolve().parent / "release-0.1.0"
QUERIES = ["tbe", "c0w", "Smyth", "0CR", "rnore", "hiftory", "", "a"]
TRUTHS = ["the", "cow", "Smith", "OCR", "more", "history", "", "b"]


def main():
    OUT.mkdir(exist_ok=True)
    X, y = load_icdar2017_sample("tokens")
    est = EditCostEstimator(k=0.1).fit(X[:400], y[:400])
    general = WeightedLevenshtein(
        {("rn", "m"): 0.2, ("0", "O"): 0.1},
        transposition_costs={("e", "h"): 0.3},
        default_transposition_cost=0.9,
    )
    unit = WeightedLevenshtein()
    on_grid = WeightedLevenshtein({("b", "h"): 0.25}, default_insertion_cost=0.5)
    wed = WeightedEditDistance(default_transpose_weight=-1.0)
    lexicon = sorted(set(y[:400]))
    nn = EditDistanceNeighbors(3, metric=est.metric_).fit(lexicon)
    nn_unit = EditDistanceNeighbors(2).fit(lexicon)
    fixer = OCRCorrector(EditCostEstimator(k=0.5), lexicon=lexicon).fit(X[:400], y[:400])
    lm = KatzBackoffLM().fit(y[:400])
    objects = {
        "estimator": est,
        "metric": est.metric_,
        "general": general,
        "unit": unit,
        "on_grid": on_grid,
        "wed": wed,
        "neighbors": nn,
        "neighbors_unit": nn_unit,
        "corrector": fixer,
        "lm": lm,
    }
    with open(OUT / "objects.pkl", "wb") as f:
        pickle.dump(objects, f, protocol=4)
    est.save(OUT / "estimator.json")
    est.metric_.save(OUT / "metric.json")
    general.save(OUT / "general.json")
    answers = {
        name: objects[name].pairwise(QUERIES, TRUTHS).tolist()
        for name in ("metric", "general", "unit", "on_grid")
    }
    answers["wed"] = [wed.distance(a, b) for a, b in zip(QUERIES, TRUTHS)]
    for name in ("neighbors", "neighbors_unit"):
        dist, ind = objects[name].kneighbors(QUERIES)
        answers[name] = [dist.tolist(), ind.tolist()]
    answers["corrector"] = fixer.predict(QUERIES).tolist()
    answers["estimator"] = est.score(X[1500:1600], y[1500:1600])
    answers["lm"] = float(lm.score(y[1500:1600]))
    answers["queries"], answers["truths"] = QUERIES, TRUTHS
    with open(OUT / "answers.json", "w") as f:
        json.dump(answers, f, indent=1)
    print("wrote", sorted(p.name for p in OUT.iterdir()), file=sys.stderr)


if __name__ == "__main__":
    main()

"""Correction accuracy on real OCR: BLN600 token pairs, the SCOWL lexicon, a held-out split.

    python benchmarks/correction_quality.py [--limit N] [--n-jobs J]

Protocol (also used by tests/correction/test_correction.py):

* Pairs: ``../shared/data/bln600/train.tokens_aligned.tsv`` in file order; blocks
  of 1,000 consecutive pairs, every fifth block held out (20%), so training and
  test text never come from the same passage.
* Normalisation: both sides lowercased and stripped of surrounding punctuation;
  a pair is kept when both sides are non-empty and the truth is a word (letters,
  inner apostrophes or hyphens).
* Lexicon: SCOWL ``american-english`` lowercased; ordered by frequency among the
  training truth tokens (most frequent first), then the rest in file order, so
  every method breaks ties the same way.
* Out-of-lexicon (OOV) tokens: test pairs whose OCR token is not in the lexicon.
  Every method leaves in-lexicon tokens as they are.
"""

from __future__ import annotations

import argparse
import re
import string
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
PUNCT = string.punctuation + "\u2018\u2019\u201c\u201d\u2014\u2013\ufffd\u00a3"
WORD = re.compile(r"^[^\W\d_]+(?:['\-][^\W\d_]+)*$")
BLOCK, HOLD_OUT_EVERY = 1000, 5


def normalise(token):
    return token.strip(PUNCT).lower()


def load_split(shared=SHARED):
    """(X_train, y_train, X_test, y_test, lexicon) under the protocol above."""
    train, test = ([], []), ([], [])
    path = shared / "bln600" / "train.tokens_aligned.tsv"
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(f):
            ocr, _, truth = line.rstrip("\n").partition("\t")
            ocr, truth = normalise(ocr), normalise(truth)
            if not ocr or not WORD.match(truth):
                continue
            part = test if (i // BLOCK) % HOLD_OUT_EVERY == HOLD_OUT_EVERY - 1 else train
            part[0].append(ocr)
            part[1].append(truth)
    with open(shared / "lexicon" / "american-english", encoding="utf-8") as f:
        scowl = list(dict.fromkeys(line.strip().lower() for line in f if line.strip()))
    freq = Counter(w for w in train[1])
    in_scowl = set(scowl)
    lexicon = sorted((w for w in freq if w in in_scowl), key=freq.get, reverse=True)
    seen = set(lexicon)
    lexicon += [w for w in scowl if w not in seen]
    return train[0], train[1], test[0], test[1], lexicon


def nearest_word_predictions(metric, X, lexicon, n_jobs=None):
    """In-lexicon tokens stay; every other token becomes its nearest lexicon word."""
    from skocrcost import EditDistanceNeighbors

    known = set(lexicon)
    todo = [i for i, x in enumerate(X) if x not in known]
    out = np.array(X, dtype=object)
    nn = EditDistanceNeighbors(1, metric=metric, n_jobs=n_jobs).fit(lexicon)
    ind = nn.kneighbors([X[i] for i in todo], return_distance=False)[:, 0]
    out[todo] = np.array(lexicon, dtype=object)[ind]
    return out


def ocr_stringdist_metric(X, y, k=1.0):
    """ocr-stringdist's CostLearner (k=1, as published), read into our metric by its JSON."""
    from ocr_stringdist import CostLearner

    from skocrcost import WeightedLevenshtein

    learned = CostLearner().with_smoothing(k).fit(list(zip(X, y)))
    return WeightedLevenshtein.from_dict(learned.to_dict())


def accuracies(pred, X, y, lexicon):
    y = np.array(y, dtype=object)
    known = set(lexicon)
    oov = np.array([x not in known for x in X])
    return float(np.mean(pred == y)), float(np.mean(pred[oov] == y[oov])), int(oov.sum())


def main(argv=None):
    from sklearn.model_selection import GridSearchCV, KFold

    from skocrcost import EditCostEstimator, OCRCorrector, WeightedLevenshtein

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="first N test pairs only")
    parser.add_argument("--n-jobs", type=int, default=None)
    args = parser.parse_args(argv)
    X_train, y_train, X_test, y_test, lexicon = load_split()
    X_test, y_test = X_test[: args.limit], y_test[: args.limit]
    known = set(lexicon)
    oov = [(x, t) for x, t in zip(X_test, y_test) if x not in known]
    ceiling = np.mean([t in known or t == x for x, t in oov])
    print(f"train {len(X_train)} pairs, test {len(X_test)} pairs, {len(oov)} OOV test tokens")
    right = np.mean([x == t for x, t in oov])
    print(f"lexicon {len(lexicon)} words; OOV tokens already right {right:.3f}")
    print(f"ceiling (truth in lexicon or OCR already right) on OOV tokens {ceiling:.3f}")

    rows = [("leave the OCR as it is", np.array(X_test, dtype=object))]
    t0 = time.time()
    rows.append(
        (
            "unit Levenshtein, nearest word",
            nearest_word_predictions(WeightedLevenshtein(), X_test, lexicon, args.n_jobs),
        )
    )
    rows.append(
        (
            "ocr-stringdist CostLearner k=1, nearest word",
            nearest_word_predictions(
                ocr_stringdist_metric(X_train, y_train), X_test, lexicon, args.n_jobs
            ),
        )
    )
    est = EditCostEstimator(k=1.0).fit(X_train, y_train)
    rows.append(
        (
            "learned costs (EditCostEstimator k=1), nearest word",
            nearest_word_predictions(est, X_test, lexicon, args.n_jobs),
        )
    )
    # Tune the corrector by 3-fold cross-validation (contiguous folds) on 30,000 training pairs.
    search = GridSearchCV(
        OCRCorrector(EditCostEstimator(), lexicon=lexicon, n_jobs=args.n_jobs),
        {
            "estimator__k": [1.0, 3.0],
            "decoder__prior_weight": [1.5, 2.0, 3.0],
            "decoder__reject_margin": [-10.0, -5.0, 0.0],
        },
        cv=KFold(3),
    )
    search.fit(X_train[:30000], y_train[:30000])
    print(f"corrector: chosen by 3-fold CV on 30,000 training pairs: {search.best_params_}")
    best = OCRCorrector(EditCostEstimator(), lexicon=lexicon, n_jobs=args.n_jobs)
    best.set_params(**search.best_params_).fit(X_train, y_train)
    rows.append(("OCRCorrector (learned costs + word prior + rejection)", best.predict(X_test)))
    print(f"\n{'method':<58} {'all tokens':>10} {'OOV tokens':>10}")
    for name, pred in rows:
        overall, on_oov, _ = accuracies(pred, X_test, y_test, lexicon)
        print(f"{name:<58} {overall:10.4f} {on_oov:10.4f}")
    print(f"\n({time.time() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""
k-NN OCR correction with learned edit costs and a cross-validated k
===================================================================

The whole pipeline on the embedded ICDAR 2017 token sample: learn what each
OCR character error costs from (OCR, truth) token pairs, index a lexicon for
exact nearest-word search, and correct held-out OCR tokens with
:class:`skocrcost.OCRCorrector`. The smoothing ``k`` of the cost learner and the
corrector's rejection margin are chosen together by 3-fold cross-validated
correction accuracy (``GridSearchCV``).
"""

# %%
# Data: real OCR tokens with their ground truth
# ---------------------------------------------
import string
from collections import Counter

import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import GridSearchCV, KFold, train_test_split

from skocrcost import EditCostEstimator, EditDistanceNeighbors, OCRCorrector
from skocrcost.datasets import load_icdar2017_sample

ocr, truth = load_icdar2017_sample("tokens")


def normalise(token):
    """Compare words, not punctuation or case: strip both ends, lowercase."""
    return token.strip(string.punctuation + "\u2018\u2019\u201c\u201d").lower()


pairs = [(normalise(a), normalise(b)) for a, b in zip(ocr, truth)]
pairs = [(a, b) for a, b in pairs if a and b.isalpha()]
X_train, X_test, y_train, y_test = train_test_split(
    [a for a, _ in pairs], [b for _, b in pairs], test_size=0.25, random_state=0
)

# The lexicon: truth words seen at least twice in training, most frequent first
# (the order breaks ties). Rarer words, such as many names, stay out of it, as
# they would be missing from any real lexicon.
freq = Counter(y_train)
lexicon = [w for w, n in freq.most_common() if n >= 2]
print(f"{len(X_train)} training pairs, {len(X_test)} held out, lexicon of {len(lexicon)} words")

# %%
# Cross-validate k and the rejection margin
# -----------------------------------------
K_GRID = [0.01, 0.1, 1.0]
MARGINS = [0.0, 5.0, 10.0, 20.0, None]
search = GridSearchCV(
    OCRCorrector(EditCostEstimator(), lexicon=lexicon),
    {"estimator__k": K_GRID, "decoder__reject_margin": MARGINS},
    cv=KFold(3),
)
search.fit(X_train, y_train)
print("chosen:", search.best_params_, f"(CV accuracy {search.best_score_:.4f})")

# The grid's settings come in order of the sorted parameter names, the last varying
# fastest: one row per margin ("decoder__reject_margin"), one column per k.
scores = search.cv_results_["mean_test_score"].reshape(len(MARGINS), len(K_GRID))
fig, ax = plt.subplots(figsize=(6, 3.5))
for j, margin in enumerate(MARGINS):
    label = "None (always correct)" if margin is None else f"{margin:g} nats"
    ax.plot(K_GRID, scores[j], marker="o", label=f"decoder__reject_margin = {label}")
ax.set_xscale("log")
ax.set_xlabel("k (Dirichlet smoothing of the edit costs)")
ax.set_ylabel("3-fold CV accuracy")
ax.set_title("Correction accuracy on ICDAR 2017 tokens")
ax.legend()
fig.tight_layout()

# %%
# Held-out accuracy against simple baselines
# ------------------------------------------
corrector = search.best_estimator_
y_true = np.array(y_test, dtype=object)
known = set(lexicon)
oov = np.array([x not in known for x in X_test])
unit = np.array(X_test, dtype=object)
nearest = (
    EditDistanceNeighbors(1)
    .fit(lexicon)
    .kneighbors([x for x, o in zip(X_test, oov) if o], return_distance=False)
)
unit[oov] = np.array(lexicon, dtype=object)[nearest[:, 0]]
for name, pred in (
    ("leave the OCR as it is", np.array(X_test, dtype=object)),
    ("unit-cost nearest word", unit),
    ("OCRCorrector (learned costs, prior, rejection)", corrector.predict(X_test)),
):
    print(
        f"{name:<48} all {np.mean(pred == y_true):.4f}"
        f"  out-of-lexicon {np.mean(pred[oov] == y_true[oov]):.4f}"
    )

# %%
# Ranked candidates, with their scores in nats
# --------------------------------------------
pred = corrector.predict(X_test)
first = {}  # one example of each distinct correction
for i, (x, p) in enumerate(zip(X_test, pred)):
    if x != p:
        first.setdefault((x, p), i)
changed = list(first.values())[:8]
scores_, ind = corrector.kneighbors([X_test[i] for i in changed], 3)
for row, i in enumerate(changed):
    cands = ", ".join(f"{corrector.lexicon_[j]} ({s:.1f})" for j, s in zip(ind[row], scores_[row]))
    print(f"{X_test[i]!r:>14} -> {pred[i]!r:<12} truth {y_test[i]!r:<12} candidates: {cands}")

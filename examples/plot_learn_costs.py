"""
Learn OCR error costs and look at them
======================================

Fit :class:`skocrcost.EditCostEstimator` on real OCR with its ground truth,
choose the smoothing ``k`` by cross-validated held-out likelihood, and look at
what was learned with :func:`skocrcost.plot_costs`.
"""

# %%
# The data: 25,414 token pairs of English books printed between the 16th and
# the 20th century, OCR on the left and a human transcription on the right.
# About 5% of the pairs differ.
import matplotlib.pyplot as plt
from sklearn.model_selection import GridSearchCV, KFold

from skocrcost import EditCostEstimator, WeightedLevenshtein, plot_costs
from skocrcost.datasets import load_icdar2017_sample

ocr, truth = load_icdar2017_sample("tokens")
wrong = [(a, b) for a, b in zip(ocr, truth) if a != b]
print(f"{len(ocr)} pairs, {len(wrong)} differ, e.g. {wrong[:4]}")

# %%
# Choose k
# --------
# ``score`` is the mean log-likelihood of held-out pairs, so ``GridSearchCV``
# picks the ``k`` under which unseen OCR is most probable.
ks = [0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0]
search = GridSearchCV(
    EditCostEstimator(), {"k": ks}, cv=KFold(3, shuffle=True, random_state=0)
).fit(ocr, truth)
est = search.best_estimator_

fig, ax = plt.subplots(figsize=(6, 3.5), layout="constrained")
ax.semilogx(ks, search.cv_results_["mean_test_score"], "o-")
ax.axvline(search.best_params_["k"], color="grey", ls="--")
ax.set_xlabel("k (Dirichlet pseudo-count)")
ax.set_ylabel("held-out log-likelihood per token")
_ = ax.set_title(f"3-fold cross-validation picks k = {est.k:g}")

# %%
# What was learned
# ----------------
# Left, the costs among the characters of the 30 most frequent errors (the
# numbers say how often each was seen; the last row and column are the lost
# and the extra characters). Right, the cheapest errors seen at least three
# times.
fig = plot_costs(est, top=30)

# %%
# The learned metric against unit costs
# -------------------------------------
# A common OCR error now costs much less than an arbitrary one; plain
# Levenshtein charges 1 for both.
unit = WeightedLevenshtein()
for a, b in [("1t", "It"), ("Qt", "It"), ("0f", "of"), ("xf", "of")]:
    print(
        f"{a!r} -> {b!r}: unit {unit.distance(a, b):.2f}, learned {est.metric_.distance(a, b):.3f}"
    )
for op in est.metric_.explain("1ts", "Its"):
    print(op)

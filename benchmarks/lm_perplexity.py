"""Held-out perplexity of KatzBackoffLM by order, with the discount chosen by 3-fold CV.

    python benchmarks/lm_perplexity.py

Truth sentences of BLN600 (train.lines.tsv) and ICDAR 2017 lines: the first 80 %
train (and choose d by GridSearchCV on them), the last 20 % test.
"""

from pathlib import Path

from sklearn.model_selection import GridSearchCV, KFold

from skocrcost import KatzBackoffLM

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
GRID = [0.3, 0.5, 0.6, 0.7, 0.8, 0.9]


def truth(path):
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n").partition("\t")[2] for line in f]


for name, path in (
    ("bln600", DATA / "bln600" / "train.lines.tsv"),
    ("icdar2017", DATA / "icdar2017_engmono" / "lines.tsv"),
):
    sentences = truth(path)
    cut = int(len(sentences) * 0.8)
    train, test = sentences[:cut], sentences[cut:]
    for order in (1, 2, 3):
        if order == 1:
            lm, d = KatzBackoffLM(order=1).fit(train), "-"
        else:
            search = GridSearchCV(KatzBackoffLM(order=order), {"discount": GRID}, cv=KFold(3))
            lm = search.fit(train).best_estimator_
            d = lm.discount
        print(f"{name:<10} order {order}: d = {d}, held-out perplexity {lm.perplexity(test):8.1f}")

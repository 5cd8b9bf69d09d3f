"""How the cost grows with string length and lexicon size; writes docs/_static/scaling.png.

    python benchmarks/scaling.py [--quick]

Left: CPU time per pair against string length (both strings of length L, the
60-character alphabet and learned-style costs of benchmarks/run.py), for single
``distance`` calls and for ``pairwise`` (per pair of its output).  Right: CPU time
per query against lexicon size (the first N words of the SCOWL list), for
``pairwise([query], words)`` (brute force) and ``EditDistanceNeighbors``; the
queries are the OCR-noised words of run.py.  One thread throughout.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from _pairs import read_pairs  # noqa: E402
from run import (  # noqa: E402
    DATA,
    learned_style_costs,
    lexicon,
    noisy_queries,
    tokens,
)

from skocrcost import EditCostEstimator, EditDistanceNeighbors, WeightedLevenshtein  # noqa: E402


def cpu(fn, repeat=3):
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best


def by_length(lengths, n_pairs, n_square):
    rng = np.random.default_rng(1)
    wl = WeightedLevenshtein(*learned_style_costs(rng))
    rows = []
    for L in lengths:
        A, B = tokens(rng, n_pairs, L, L), tokens(rng, n_pairs, L, L)
        t_call = cpu(lambda A=A, B=B: list(map(wl.distance, A, B))) / n_pairs
        X, Y = A[:n_square], B[:n_square]
        t_pair = cpu(lambda X=X, Y=Y: wl.pairwise(X, Y, n_jobs=1)) / (len(X) * len(Y))
        rows.append({"length": L, "distance_s": t_call, "pairwise_s_per_pair": t_pair})
        print(f"L={L:4d}  distance {t_call * 1e9:9.0f} ns  pairwise {t_pair * 1e9:9.1f} ns/pair")
    return rows


def by_lexicon(sizes, n_queries):
    X, y = read_pairs(DATA / "icdar2017_engmono" / "tokens.tsv")
    est = EditCostEstimator().fit(X, y)
    words = lexicon()
    rng = np.random.default_rng(2)
    queries, _ = noisy_queries(rng, words, n_queries, est.counts_.most_common(200))
    rows = []
    for n in sizes:
        sub = words[:n]
        t_brute = cpu(lambda s=sub: est.metric_.pairwise(queries, s, n_jobs=1), 1) / n_queries
        nn = EditDistanceNeighbors(n_neighbors=10, metric=est.metric_).fit(sub)
        t_nn = cpu(lambda nn=nn: nn.kneighbors(queries), 1) / n_queries
        rows.append({"words": n, "brute_force_s": t_brute, "neighbors_s": t_nn})
        print(f"N={n:7d}  brute force {t_brute * 1e3:8.2f} ms  neighbors {t_nn * 1e3:8.3f} ms")
    return rows


def plot(length_rows, lexicon_rows, path):
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    L = [r["length"] for r in length_rows]
    a.loglog(L, [r["distance_s"] * 1e9 for r in length_rows], "o-", label="distance (one call)")
    a.loglog(L, [r["pairwise_s_per_pair"] * 1e9 for r in length_rows], "s-", label="pairwise")
    a.set_xlabel("string length L (both strings)")
    a.set_ylabel("CPU ns per pair")
    a.set_title("Cost per pair grows as L\u00b2")
    a.legend()
    a.grid(True, which="both", alpha=0.3)
    N = [r["words"] for r in lexicon_rows]
    b.loglog(
        N, [r["brute_force_s"] * 1e3 for r in lexicon_rows], "o-", label="pairwise (brute force)"
    )
    b.loglog(N, [r["neighbors_s"] * 1e3 for r in lexicon_rows], "s-", label="EditDistanceNeighbors")
    b.set_xlabel("lexicon size (words)")
    b.set_ylabel("CPU ms per query (10 nearest)")
    b.set_title("Cost per query against lexicon size")
    b.legend()
    b.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    with threadpool_limits(1):
        if args.quick:
            length_rows = by_length([4, 16, 64], 2_000, 100)
            lexicon_rows = by_lexicon([1_000, 10_000, 104_334], 10)
        else:
            length_rows = by_length([4, 8, 16, 32, 64, 128, 256], 20_000, 300)
            lexicon_rows = by_lexicon([1_000, 3_000, 10_000, 30_000, 104_334], 50)
    out = HERE.parent / "docs" / "_static" / "scaling.png"
    plot(length_rows, lexicon_rows, out)
    name = "scaling-quick.json" if args.quick else "scaling.json"
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / name).write_text(
        json.dumps({"by_length": length_rows, "by_lexicon": lexicon_rows}, indent=1)
    )


if __name__ == "__main__":
    main()

"""Throughput of skocrcost.dask on a LocalCluster against the single process.

Two jobs, each timed on one process and on a LocalCluster of worker processes
(one thread each), the cluster started beforehand (its start-up is printed apart):

* pairwise: learned distances from OCR tokens to a lexicon (``metric.pairwise`` vs
  ``skocrcost.dask.pairwise``), in cells (pairs of strings) per second;
* kneighbors: the 5 nearest lexicon words of each OCR token (``EditDistanceNeighbors``
  vs ``skocrcost.dask.kneighbors``), in queries per second;
* counting: the edit counts of (OCR, truth) token pairs (``EditCostEstimator.fit``'s
  alignment vs ``skocrcost.dask.fit_counts``), in pairs per second: ``--pairs`` pairs
  sent from this process, and (``counting*``) the whole ICDAR 2017 tokens.tsv
  read by the workers themselves, checked equal to the single-process counts.

Run from the repository root (the in-place build must be importable by the workers):

    python -m benchmarks.dask_throughput --queries 2000 --lexicon 20000 --pairs 200000

The real data in ../shared/data is used when present, else the embedded sample.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import dask
import dask.bag as db
from distributed import Client, LocalCluster

from skocrcost import EditCostEstimator, EditDistanceNeighbors, WeightedLevenshtein
from skocrcost import dask as skdask
from skocrcost.datasets import load_icdar2017_sample
from skocrcost.estimator import count_edits

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"


TOKENS = SHARED / "icdar2017_engmono" / "tokens.tsv"


def load(n_pairs, n_lexicon):
    tokens = TOKENS
    words = SHARED / "lexicon" / "american-english"
    if tokens.exists() and words.exists():
        pairs = []
        with open(tokens, encoding="utf-8") as f:
            for line, _ in zip(f, range(n_pairs)):
                a, _, b = line.rstrip("\n").partition("\t")
                pairs.append((a, b))
        lexicon = words.read_text(encoding="utf-8").split("\n")
        source = "../shared/data (ICDAR 2017 tokens, SCOWL american-english)"
    else:
        X, y = load_icdar2017_sample("tokens")
        pairs = list(zip(X, y))[:n_pairs]
        lexicon = sorted(set(y))
        source = "the embedded ICDAR 2017 sample"
    lexicon = [w for w in lexicon if w][:n_lexicon]
    return pairs, lexicon, source


def best_of(repeat, fn):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=2000, help="OCR tokens (rows)")
    parser.add_argument("--lexicon", type=int, default=20000, help="lexicon words (columns)")
    parser.add_argument("--pairs", type=int, default=200000, help="(OCR, truth) pairs to count")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--block-size", type=int, default=250)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)

    load_before = os.getloadavg()
    pairs, lexicon, source = load(args.pairs, args.lexicon)
    X, y = [p[0] for p in pairs], [p[1] for p in pairs]
    metric = EditCostEstimator(k=0.1).fit(X, y).metric_
    queries = [a for a, b in pairs if a != b][: args.queries]
    cells = len(queries) * len(lexicon)
    print(f"data: {source}; {os.cpu_count()} cores")
    print(f"pairwise: {len(queries)} OCR tokens x {len(lexicon)} words = {cells:,} cells")
    print(f"counting: {len(pairs):,} token pairs")

    results = []
    for threads in (1, args.workers):
        t = best_of(args.repeat, lambda n=threads: metric.pairwise(queries, lexicon, n_jobs=n))
        results.append((f"single process, {threads} OpenMP thread(s)", "pairwise", cells / t, t))
    aligner = WeightedLevenshtein()  # unit costs, what fit aligns with by default
    t = best_of(args.repeat, lambda: count_edits(aligner, X, y, 1))
    results.append(("single process, 1 thread", "counting", len(pairs) / t, t))
    if TOKENS.exists():
        whole = [tuple(line.rstrip("\n").split("\t", 1)) for line in open(TOKENS, encoding="utf-8")]
        wx, wy = [p[0] for p in whole], [p[1] for p in whole]
        n_whole = len(whole)
        t = best_of(args.repeat, lambda: count_edits(aligner, wx, wy, 1))
        whole_counts = count_edits(aligner, wx, wy, 1)
        results.append(("single process, 1 thread", "counting*", n_whole / t, t))
    index = EditDistanceNeighbors(5, metric=metric).fit(lexicon)
    t = best_of(args.repeat, lambda: index.kneighbors(queries))
    results.append(("single process, 1 thread", "kneighbors", len(queries) / t, t))

    start = time.perf_counter()
    with (
        LocalCluster(
            n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        startup = time.perf_counter() - start
        client.run(lambda: __import__("skocrcost"))  # import once, outside the timings
        label = f"LocalCluster, {args.workers} worker processes x 1 thread"

        def dask_pairwise(reduce):
            dist = skdask.pairwise(queries, lexicon, metric, block_size=args.block_size)
            (dist.min(axis=1) if reduce else dist).compute()

        t = best_of(args.repeat, lambda: dask_pairwise(False))
        results.append((label, "pairwise", cells / t, t))
        # The same, but only each row's minimum comes back: no matrix shipped to the client.
        t = best_of(args.repeat, lambda: dask_pairwise(True))
        results.append((label + ", min per row", "pairwise", cells / t, t))
        bag = db.from_sequence(pairs, npartitions=4 * args.workers)
        bag = client.persist(bag)  # the pairs already on the workers, as a corpus would be
        t = best_of(args.repeat, lambda: skdask.fit_counts(bag))
        results.append((label, "counting", len(pairs) / t, t))

        if TOKENS.exists():
            # The whole corpus, read by the workers themselves (nothing sent from here).
            lines = db.read_text(str(TOKENS), blocksize="1MiB", encoding="utf-8")
            corpus = lines.map(lambda line: tuple(line.rstrip("\n").split("\t", 1)))
            counts = []
            t = best_of(args.repeat, lambda: counts.append(skdask.fit_counts(corpus)))
            assert counts[-1] == whole_counts  # exactly the single-process counts
            results.append((label, "counting*", n_whole / t, t))

        def dask_kneighbors():
            dask.compute(*skdask.kneighbors(queries, index, block_size=args.block_size))

        t = best_of(args.repeat, dask_kneighbors)
        results.append((label, "kneighbors", len(queries) / t, t))

    print(f"cluster start-up: {startup:.1f} s (not in the timings below; best of {args.repeat})")
    loads = " ".join(f"{x:.1f}" for x in load_before), " ".join(f"{x:.1f}" for x in os.getloadavg())
    print("load average (1, 5, 15 min) before: {}, after: {}".format(*loads))
    print(f"{'job':<10} {'setup':<62} {'throughput':>18} {'seconds':>8}")
    for setup, job, rate, t in results:
        per = {"pairwise": "cells/s", "kneighbors": "queries/s"}.get(job, "pairs/s")
        print(f"{job:<10} {setup:<62} {rate:>10,.0f} {per:<9} {t:>6.2f}")


if __name__ == "__main__":
    main()

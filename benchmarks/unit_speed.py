"""Unit-cost skocrcost against rapidfuzz on run.py's exact inputs of (i), (iii), (ii), (iv).

(The workloads (i) to (v) are defined in run.py's docstring and docs/performance.md:
(i) single distance calls, (ii) one query against the SCOWL lexicon, (iii) a
2000 x 2000 pairwise, (iv) the 10 nearest words of 200 queries, (v) fit.)

    python benchmarks/unit_speed.py [--repeat N] [--quick] [--simd baseline|avx2|avx512]
    mkfifo /tmp/ctl && PERF_CTL=/tmp/ctl perf stat -D -1 --control fifo:/tmp/ctl \\
        -e cycles:u,instructions:u python benchmarks/unit_speed.py --cycles iii ours

The unit rows of ``run.py`` alone, for measuring the bit-parallel path: the random
generator is consumed as ``run.py`` consumes it, so the pairs, the 2000 x 2000 tokens
and the queries of (ii) and (iv) are the same.  One more workload, lines of 70-89
characters, runs the variant for strings longer than a 64-bit word.  Each
implementation runs ``--repeat`` times ((iv), with the trie too, once), alternating
with its peers (the machine's clock moves with its other jobs); the best CPU seconds
(``time.process_time``) of each are printed, and every result is checked equal to
rapidfuzz's.  One thread.  ``--cycles W IMPL`` instead runs one of them ``--repeat``
times with perf's counters enabled around those runs only (through the control FIFO
named by $PERF_CTL), so that ``perf stat`` counts nothing else.
"""

from __future__ import annotations

import argparse
import os
import string
import sys
import time

import numpy as np
from run import (
    DATA,
    RFLevenshtein,
    learned_style_costs,
    lexicon,
    noisy_queries,
    process,
    read_pairs,
    threadpool_limits,
    tokens,
    top_k,
)

from skocrcost import EditCostEstimator, EditDistanceNeighbors, WeightedLevenshtein, kernel_config
from skocrcost._kernels import _cost_kernel as _dp
from skocrcost._kernels import _lexicon_index as _index
from skocrcost._kernels import set_kernel_config


def best(fns, repeat):
    """Best CPU seconds of each function over ``repeat`` alternating rounds, and results."""
    times, outs = [[] for _ in fns], [None] * len(fns)
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            c = time.process_time()
            outs[k] = fn()
            times[k].append(time.process_time() - c)
    return [min(t) for t in times], outs


def counted(fn, repeat):
    """Run ``fn`` once to warm up, then ``repeat`` times with perf's counters on."""
    fn()
    with open(os.environ["PERF_CTL"], "w", buffering=1) as ctl:
        ctl.write("enable\n")
        c = time.process_time()
        for _ in range(repeat):
            fn()
        c = time.process_time() - c
        ctl.write("disable\n")
    print(f"{repeat} runs, {c / repeat:.4f} s CPU each", file=sys.stderr)


def ii_queries(rng, words, n):
    """run.py's (iv) queries: its confusions come from the fit of workload (v)."""
    X, y = read_pairs(DATA / "icdar2017_engmono" / "tokens.tsv")
    est = EditCostEstimator(n_jobs=1).fit(X, y)
    return noisy_queries(rng, words, n, est.counts_.most_common(200))[0]


def one_at_a_time(index, words, queries):
    """The 10 nearest of each query, one call per query, by each way (for --cycles iv1)."""
    trie = _index.LexiconIndex.kneighbors
    return {
        "trie": lambda: [trie(index, [q], 10, 1) for q in queries],
        "brute": lambda: [index.kneighbors([q], 10, 1) for q in queries],
        "rapidfuzz": lambda: [
            process.extract(q, words, scorer=RFLevenshtein.distance, limit=10) for q in queries
        ],
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="run.py --quick's sizes")
    parser.add_argument("--simd", choices=_dp.SIMD_LEVELS, help="force a SIMD level")
    parser.add_argument(
        "--cycles",
        nargs=2,
        metavar=("W", "IMPL"),
        help="count (i|iii) (ours|rapidfuzz), or the 200 (iv) queries one at a time: iv1 "
        "(trie|brute|rapidfuzz), in perf",
    )
    args = parser.parse_args(argv)
    if args.simd:
        set_kernel_config(simd=args.simd)
    pairs, square, nq = (20_000, 400, 5) if args.quick else (200_000, 2000, 20)
    rng = np.random.default_rng(2026)  # consumed in run.py's order
    learned_style_costs(rng)
    A, B = tokens(rng, pairs), tokens(rng, pairs)
    X, Y = tokens(rng, square), tokens(rng, square)
    unit = WeightedLevenshtein()
    runs = {
        ("i", "ours"): lambda: list(map(unit.distance, A, B)),
        ("i", "rapidfuzz"): lambda: list(map(RFLevenshtein.distance, A, B)),
        ("iii", "ours"): lambda: unit.pairwise(X, Y, n_jobs=1),
        ("iii", "rapidfuzz"): lambda: process.cdist(X, Y, scorer=RFLevenshtein.distance, workers=1),
    }
    with threadpool_limits(1):
        if args.cycles and args.cycles[0] == "iv1":
            words = lexicon()
            queries = ii_queries(rng, words, 200)  # the rng is where (iv) reads it
            index = EditDistanceNeighbors(metric=unit).fit(words).index_
            counted(one_at_a_time(index, words, queries)[args.cycles[1]], args.repeat)
            return
        if args.cycles:
            counted(runs[tuple(args.cycles)], args.repeat)
            return
        print(f"simd level {_dp.simd_level()}, unit path {unit._kernel.unit}")
        (c_ours, c_rf), (d_ours, d_rf) = best(
            [runs["i", "ours"], runs["i", "rapidfuzz"]], args.repeat
        )
        assert np.array_equal(np.array(d_rf, float), np.array(d_ours))
        print(
            f"(i)   distance, {pairs:,} pairs: ours {c_ours:.4f} s "
            f"({pairs / c_ours / 1e6:.2f} M/s), "
            f"rapidfuzz {c_rf:.4f} s ({pairs / c_rf / 1e6:.2f} M/s), ratio {c_rf / c_ours:.2f}x"
        )
        (c_ours, c_rf), (D_ours, D_rf) = best(
            [runs["iii", "ours"], runs["iii", "rapidfuzz"]], args.repeat
        )
        assert np.array_equal(D_rf.astype(float), D_ours)
        print(
            f"(iii) pairwise {square} x {square}: ours {c_ours:.4f} s, rapidfuzz cdist "
            f"{c_rf:.4f} s, ratio {c_rf / c_ours:.2f}x"
        )
        # Lines longer than a 64-bit word: the blocked variant, against the DP it replaced.
        letters = np.array(list(string.ascii_lowercase + "  "))
        Xl, Yl = ([
            "".join(rng_long.choice(letters, rng_long.integers(70, 90))) for _ in range(300)
        ] for rng_long in (np.random.default_rng(1), np.random.default_rng(2)))  # fmt: skip

        def dp_lanes():
            with kernel_config(bitparallel=False):
                return unit.pairwise(Xl, Yl, n_jobs=1)

        (c_ours, c_dp, c_rf), (D_ours, D_dp, D_rf) = best(
            [lambda: unit.pairwise(Xl, Yl, n_jobs=1), dp_lanes,
             lambda: process.cdist(Xl, Yl, scorer=RFLevenshtein.distance, workers=1)],
            args.repeat,
        )  # fmt: skip
        assert np.array_equal(D_rf.astype(float), D_ours) and np.array_equal(D_dp, D_ours)
        print(
            f"(long) pairwise 300 x 300 lines of 70-89 characters: ours {c_ours:.4f} s, "
            f"the DP {c_dp:.4f} s, rapidfuzz cdist {c_rf:.4f} s, ratio {c_rf / c_ours:.2f}x"
        )
        words = lexicon()
        queries = ii_queries(rng, words, 50 if args.quick else 200)
        qs = queries[:nq]
        (c_ours, c_rf), (D, R) = best(
            [
                lambda: [top_k(unit.pairwise([q], words)[0], 10) for q in qs],
                lambda: [
                    process.extract(q, words, scorer=RFLevenshtein.distance, limit=10) for q in qs
                ],
            ],
            max(1, args.repeat // 2),
        )
        assert all(
            np.array_equal(np.sort([float(x[1]) for x in r]), d) for r, d in zip(R, D, strict=True)
        )
        print(
            f"(ii)  one query vs {len(words):,} words, {nq} queries: ours {c_ours:.4f} s, "
            f"rapidfuzz extract {c_rf:.4f} s, ratio {c_rf / c_ours:.2f}x"
        )
        # (iv): EditDistanceNeighbors with unit costs runs bit-parallel brute force through
        # the lexicon's match table; the trie it replaced is timed on the same index.
        nn = EditDistanceNeighbors(n_neighbors=10, metric=unit, n_jobs=1).fit(words)
        index = nn.index_

        def trie(qs):
            return _index.LexiconIndex.kneighbors(index, qs, 10, 1)

        def rapidfuzz(qs):
            return [process.extract(q, words, scorer=RFLevenshtein.distance, limit=10) for q in qs]

        (c_pw, c_nn, c_trie, c_rf), (D, (d_nn, i_nn), (d_trie, i_trie), R) = best(
            [
                lambda: unit.pairwise(queries, words, n_jobs=1),
                lambda: nn.kneighbors(queries),
                lambda: trie(queries),
                lambda: rapidfuzz(queries),
            ],
            1,
        )
        top = np.sort(np.partition(D, 9, axis=1)[:, :10], axis=1)
        assert np.array_equal(d_nn, top)
        assert np.array_equal(d_nn, d_trie) and np.array_equal(i_nn, i_trie)
        assert all(
            np.array_equal(np.sort([float(x[1]) for x in r]), d)
            for r, d in zip(R, top, strict=True)
        )
        nq = len(queries)
        print(
            f"(iv)  {nq} queries vs the lexicon, 10 nearest: EditDistanceNeighbors "
            f"{c_nn:.4f} s (brute force), the trie {c_trie:.4f} s, pairwise alone "
            f"{c_pw:.4f} s, rapidfuzz extract {c_rf:.4f} s; ratio to the trie "
            f"{c_trie / c_nn:.2f}x, to rapidfuzz {c_rf / c_nn:.2f}x; same indices as the trie"
        )
        # The same queries in batches of b per call (b = 1: a query alone).
        for b in (1, 2, 4, 8, 16, 32):
            batches = [queries[s : s + b] for s in range(0, nq, b)]
            (c_brute, c_trie), (got, want) = best(
                [
                    lambda: [index.kneighbors(q, 10, 1) for q in batches],  # noqa: B023
                    lambda: [trie(q) for q in batches],  # noqa: B023
                ],
                1,
            )
            assert all(
                np.array_equal(g[0], w[0]) and np.array_equal(g[1], w[1])
                for g, w in zip(got, want, strict=True)
            )
            print(
                f"      batches of {b:2d}: brute force {c_brute / nq * 1e3:.3f} ms per query, "
                f"the trie {c_trie / nq * 1e3:.3f} ms, rapidfuzz extract {c_rf / nq * 1e3:.3f} ms"
            )


if __name__ == "__main__":
    main()

"""The lanes kernels alone: (iii) a 2000 x 2000 ``pairwise``, (iv) 200 queries by brute force.

    python benchmarks/lanes_cycles.py iii|iv|ii [--grid] [--baseline|--avx2|--avx512]

(iii) pairs 2000 tokens of 5-12 characters with 2000 others (``run.py``'s
generators, its dense learned-style table) and runs ``pairwise`` 5 times; (iv)
runs ``pairwise(queries, words)`` twice for the 200 OCR-noised queries of
``run.py``'s (iv) against SCOWL, on the costs learned from ICDAR 2017; (ii) the
first 30 of those queries one at a time, ``pairwise([query], words)`` (the rows
kernel with ``--grid``, see ``one_query.py``).  Exact double costs unless
``--grid`` (the costs rounded up to 2^-16: the int32 lanes); the CPU's best SIMD
level unless one is named (``--baseline``, ``--avx2``).  One thread.  Prints CPU
milliseconds per ``pairwise`` call and DP cells per second.  The machine's clock
moves with its other tenants, so compare user cycles where the machine counts them
(a virtual machine may not): set ``PERF_CTL`` to a ``perf stat --control fifo:``
file to count only the timed calls, e.g.

    mkfifo /tmp/ctl
    PERF_CTL=/tmp/ctl perf stat -D -1 --control fifo:/tmp/ctl -e cycles:u \\
        python benchmarks/lanes_cycles.py iii

and take the least of several runs.  It
measures the build of the checkout it sits in: ``run.py`` puts that checkout first
on ``sys.path``, whatever ``PYTHONPATH`` says.
"""

import sys
import time

import numpy as np
from run import (
    DATA,
    learned_style_costs,
    lexicon,
    noisy_queries,
    on_doubles,
    on_grid,
    perf_counted,
    read_pairs,
    tokens,
)

from skocrcost import EditCostEstimator, WeightedLevenshtein
from skocrcost._kernels import _cost_kernel as _dp
from skocrcost._kernels import set_kernel_config


def workload(name):
    """(metric, X, Y, calls) of workload ``name``."""
    if name == "iii":
        rng = np.random.default_rng(7)
        metric = WeightedLevenshtein(*learned_style_costs(rng))
        return metric, tokens(rng, 2000), tokens(rng, 2000), 5
    X, y = read_pairs(DATA / "icdar2017_engmono" / "tokens.tsv")
    est = EditCostEstimator(n_jobs=1).fit(X, y)
    words = lexicon()
    queries, _ = noisy_queries(np.random.default_rng(0), words, 200, est.counts_.most_common(200))
    return est.metric_, queries, words, 2


def main():
    levels = [a[2:] for a in sys.argv[1:] if a[2:] in _dp.SIMD_LEVELS]
    flags = {"--grid"} | {"--" + level for level in levels}
    argv = [a for a in sys.argv[1:] if a not in flags]
    if argv not in (["iii"], ["iv"], ["ii"]):
        sys.exit(__doc__.split("\n\n")[1])
    grid = "--grid" in sys.argv
    metric, X, Y, calls = workload(argv[0])
    if grid:
        metric = on_grid(metric)

    if argv[0] == "ii":
        X = X[:30]

    def run():
        if argv[0] == "ii":
            return [metric.pairwise([x], Y, n_jobs=1) for x in X]
        return metric.pairwise(X, Y, n_jobs=1)

    def call():  # the int32 lanes are off for exact doubles, should the costs lie on a grid
        return run() if grid else on_doubles(run)

    if levels:
        set_kernel_config(simd=levels[-1])
    call()  # encodes and keeps Y, as a stream of calls would
    with perf_counted():
        start = time.process_time()
        for _ in range(calls):
            call()
        seconds = time.process_time() - start
    # Per pairwise call: (ii) makes one per query.
    per_run = len(X) if argv[0] == "ii" else 1
    seconds /= calls * per_run
    cells = sum(map(len, X)) * sum(map(len, Y)) // per_run
    print(
        f"{argv[0]} ({'grid' if grid else 'exact doubles'}, {_dp.simd_level()}): "
        f"{len(X)} x {len(Y):,} strings, {cells:,} cells: {seconds * 1e3:.1f} ms per call, "
        f"{cells / seconds / 1e9:.2f} G cells/s"
    )


if __name__ == "__main__":
    main()

"""One query against the SCOWL lexicon on costs on a grid: the rows kernel against the lanes.

    python benchmarks/one_query.py rows|lanes [--cold] [--shuffled] [n_queries [min_len max_len]]

The costs are learned on the ICDAR 2017 token pairs (as in ``run.py``'s workload
(v), ``EditCostEstimator.fit``) and rounded up to 2^-16; the queries are SCOWL words
with real OCR confusions (as in ``run.py``'s workload (iv), the 10 nearest of 200
queries), optionally only those of ``min_len`` to ``max_len`` characters.  Runs
``pairwise([q], words)`` for each query three times and prints CPU milliseconds per
query.  The metric keeps the lexicon encoded from one call to
the next (``CostKernel._encode_y``); with ``--cold`` the calls pass, in turn, two
lists of the same words as different str objects, so that every call encodes
the lexicon (as every call did before the metric kept it); with ``--shuffled`` the
lexicon is in a random order rather than sorted, so that neighbouring words share
few starting characters (the rows kernel skips those, see ``_rows_body.h``).  Set
``PERF_CTL`` to
a ``perf stat --control fifo:`` control file to count only these calls, e.g.

    mkfifo /tmp/ctl
    PERF_CTL=/tmp/ctl perf stat -D -1 --control fifo:/tmp/ctl -e cycles:u \\
        python benchmarks/one_query.py rows

(docs/performance.md, "Nearest lexicon words", has the figures of run.py.)
"""

import sys
import time

import numpy as np
from run import DATA, lexicon, noisy_queries, on_grid, perf_counted, read_pairs

from skocrcost import EditCostEstimator, kernel_config


def main():
    cold, shuffled = "--cold" in sys.argv, "--shuffled" in sys.argv
    argv = [a for a in sys.argv if a not in ("--cold", "--shuffled")]
    mode = argv[1] if len(argv) > 1 else "rows"
    if mode not in ("rows", "lanes"):
        sys.exit("the first argument is rows or lanes")
    n = int(argv[2]) if len(argv) > 2 else 50
    lo, hi = (int(argv[3]), int(argv[4])) if len(argv) > 4 else (0, 1 << 30)
    X, y = read_pairs(DATA / "icdar2017_engmono" / "tokens.tsv")
    est = EditCostEstimator(n_jobs=1).fit(X, y)
    grid = on_grid(est.metric_)
    words = lexicon()
    if shuffled:
        words = [words[k] for k in np.random.default_rng(1).permutation(len(words))]
    confusions = est.counts_.most_common(200)
    drawn = 8 * n if len(argv) > 4 else n  # more to filter by length
    queries, _ = noisy_queries(np.random.default_rng(0), words, drawn, confusions)
    queries = [q for q in queries if lo <= len(q) <= hi][:n]
    # The two paths must agree before either is timed.
    with kernel_config(rows=False):
        want = grid.pairwise(queries[:3], words)
    assert np.array_equal(grid.pairwise(queries[:3], words), want)
    lexicons = [words, [w.encode().decode() for w in words] if cold else words]
    with kernel_config(rows=mode == "rows"):
        with perf_counted():
            start = time.process_time()
            for _ in range(3):
                for k, q in enumerate(queries):
                    grid.pairwise([q], lexicons[k % 2])
            seconds = time.process_time() - start
    cells = sum(map(len, queries)) * sum(map(len, words))
    print(
        f"{mode}{' (cold)' if cold else ''}{' (shuffled)' if shuffled else ''}: "
        f"{len(queries)} queries "
        f"(mean {np.mean([len(q) for q in queries]):.1f} "
        f"characters) x 3 against {len(words):,} words: {seconds / (3 * len(queries)) * 1e3:.2f} "
        f"ms per query, {3 * cells / seconds / 1e9:.2f} G cells/s"
    )


if __name__ == "__main__":
    main()

"""CPU time of EditDistanceNeighbors' trie search: top 10 of SCOWL under learned BLN600 costs.

    python benchmarks/trie_search.py [n_twin]

Learns costs from 50,000 BLN600 training pairs (``EditCostEstimator(k=1)``),
indexes the SCOWL lexicon and times the 10 nearest words of the first 300
out-of-lexicon held-out tokens (the split of ``correction_quality.py``) on one
thread, as process CPU time; checks the first 20 against brute force.  Then
the first 100 again, one per call with the index out of the CPU's caches, as
a loop over lines meets it: each after a sweep over 64 MB, whose own time is
subtracted (the best of three rounds).

Then the corrector's searches, which have a largest cost: the 5 nearest words
within 3 of the same tokens (an unknown word's candidates) and within 2 of 300
held-out tokens that are lexicon words, by the split search (the default) and
in one pass (``split=False``): the time of each (the best of three), checked
equal; and the 5 nearest of the unknown words without a
largest cost.  Then the 5 and the 30 nearest within 3 both ways in every 20th,
10th, 5th and 2nd word of SCOWL: what the split gains by the trie's size.

With ``n_twin``, the pure-Python twin also searches the first ``n_twin``
queries and reports how many trie nodes (DP columns) it computed per query, for
the top 10 and for the 5 within 3 both ways (slow: about a second per query).
"""

import resource
import sys
from pathlib import Path

import numpy as np

from skocrcost import EditCostEstimator
from skocrcost._kernels import _cost_kernel_py as _dp_py
from skocrcost._kernels import _lexicon_index as _index
from skocrcost._kernels import _lexicon_index_py as _index_py


def main():
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from correction_quality import load_split

    X_train, y_train, X_test, _, lexicon = load_split()
    metric = EditCostEstimator(k=1.0).fit(X_train[:50000], y_train[:50000]).metric_
    known = set(lexicon)
    queries = [x for x in X_test if x not in known][:300]
    index = _index.LexiconIndex(metric._kernel, lexicon)
    start = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    dist, ind = index.kneighbors(queries, 10, 1)
    cpu = resource.getrusage(resource.RUSAGE_SELF).ru_utime - start
    D = metric.pairwise(queries[:20], lexicon)
    order = np.argsort(D, axis=1, kind="stable")[:, :10]
    assert np.array_equal(ind[:20], order), "the trie disagrees with brute force"
    print(f"{len(lexicon)} words, {index.n_nodes} trie nodes, {len(queries)} queries")
    print(f"top 10: {cpu / len(queries) * 1000:.2f} ms CPU per query (one thread)")
    print(f"the same, one per call out of the caches: {cold(index, queries[:100]) * 1000:.2f} ms")
    one_pass = _index.LexiconIndex(metric._kernel, lexicon, split=False)
    words = [x for x in X_test if x in known][:300]
    for what, Q, bound in (("unknown", queries, 3.0), ("lexicon", words, 2.0)):
        for x, y in zip(index.kneighbors(Q, 5, 1, bound), one_pass.kneighbors(Q, 5, 1, bound)):
            assert np.array_equal(x, y), "the split search disagrees with one pass"
        spent = {
            name: best_of(3, ix.kneighbors, Q, 5, 1, bound) / len(Q) * 1000
            for name, ix in (("split", index), ("one pass", one_pass))
        }
        print(
            f"5 nearest within {bound:g} of {len(Q)} {what} words: {spent['split']:.3f} ms split, "
            f"{spent['one pass']:.3f} ms in one pass ({spent['split'] / spent['one pass']:.2f}x)"
        )
    start = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    index.kneighbors(queries, 5, 1)
    cpu = resource.getrusage(resource.RUSAGE_SELF).ru_utime - start
    print(f"5 nearest of the unknown words, no largest cost: {cpu / len(queries) * 1000:.3f} ms")
    for step in (20, 10, 5, 2):
        words = lexicon[::step]
        both = [_index.LexiconIndex(metric._kernel, words, split) for split in (True, False)]
        line = f"every {step}th word ({len(words):,} words, {both[0].n_nodes:,} nodes):"
        for k in (5, 30):
            split, one = (best_of(3, ix.kneighbors, queries, k, 1, 3.0) for ix in both)
            line += f" {k} nearest {split / one:.2f}x one pass's time;"
        print(line[:-1])
    n_twin = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    if n_twin:
        kernel = _dp_py.CostKernel(*metric._kernel._kernel_args())
        twin = _index_py.LexiconIndex(kernel, lexicon)
        twin_one = _index_py.LexiconIndex(kernel, lexicon, split=False)
        visited, within = [], {True: [], False: []}
        for q in queries[:n_twin]:
            twin_dist, _ = twin.kneighbors([q], 10)
            assert np.array_equal(twin_dist[0], dist[queries.index(q)])
            visited.append(twin.visited)
            for split, ix in ((True, twin), (False, twin_one)):
                ix.kneighbors([q], 5, 1, 3.0)
                within[split].append(ix.visited)
        columns = sum(map(len, lexicon))
        print(
            f"twin: {np.mean(visited):,.0f} trie nodes per query (min {min(visited):,}, "
            f"max {max(visited):,}) of {index.n_nodes:,}; brute force: {columns:,} DP columns"
        )
        print(
            f"twin, 5 nearest within 3: {np.mean(within[True]):,.0f} trie nodes per query "
            f"split (both tries), {np.mean(within[False]):,.0f} in one pass"
        )


def best_of(rounds, search, queries, *args):
    """The least CPU seconds of ``rounds`` calls of ``search(queries, *args)``."""
    best = np.inf
    for _ in range(rounds):
        start = resource.getrusage(resource.RUSAGE_SELF).ru_utime
        search(queries, *args)
        best = min(best, resource.getrusage(resource.RUSAGE_SELF).ru_utime - start)
    return best


def cold(index, queries, rounds=3):
    """CPU seconds per query of ``index``'s top 10, each searched after a sweep
    that evicts the index from the CPU's caches (the sweeps' time subtracted)."""
    sweep = np.ones(8 << 20)  # 64 MB, more than the last-level cache
    best = np.inf
    for _ in range(rounds):
        clock = resource.getrusage(resource.RUSAGE_SELF).ru_utime
        for _ in queries:
            sweep.sum()
        sweeps = resource.getrusage(resource.RUSAGE_SELF).ru_utime - clock
        clock = resource.getrusage(resource.RUSAGE_SELF).ru_utime
        for q in queries:
            sweep.sum()
            index.kneighbors([q], 10, 1)
        spent = resource.getrusage(resource.RUSAGE_SELF).ru_utime - clock - sweeps
        best = min(best, spent / len(queries))
    return best


if __name__ == "__main__":
    main()

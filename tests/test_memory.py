"""Memory: searching 10^5 queries never builds a queries x lexicon matrix.

Measured in a fresh interpreter, so the peak resident size belongs to this call
alone: both the Python/numpy allocations (tracemalloc; numpy reports its arrays
to it) and the process's peak RSS, which also sees the kernels' malloc.
"""

import json
import subprocess
import sys
import textwrap

from conftest import package_env

N_QUERIES, N_WORDS = 100_000, 500
FULL_MATRIX = N_QUERIES * N_WORDS * 8  # 400 MB of float64 distances
BOUND = 40 * 2**20  # a tenth of it; outputs and encoded queries take about 9 MB

SCRIPT = textwrap.dedent(
    f"""
    import json, resource, tracemalloc
    from skocrcost import EditDistanceNeighbors
    from skocrcost.datasets import load_icdar2017_sample

    X, y = load_icdar2017_sample("tokens")
    lexicon = list(dict.fromkeys(y))[:{N_WORDS}]
    queries = (X * 4)[:{N_QUERIES}]
    nn = EditDistanceNeighbors(1, n_jobs=2).fit(lexicon)
    nn.kneighbors(queries[:100])  # first call: lazy imports and buffers
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    tracemalloc.start()
    dist, ind = nn.kneighbors(queries)
    traced = tracemalloc.get_traced_memory()[1]
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({{"traced": traced, "rss": (after - before) * 1024,
                      "shape": list(dist.shape), "lexicon": len(lexicon)}}))
    """
)


def test_kneighbors_on_100000_queries_streams(tmp_path):
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        capture_output=True,
        text=True,
        cwd=tmp_path,  # not the source tree: uncompiled in a clean clone
        env=package_env(),
        check=True,
    )
    got = json.loads(run.stdout.strip().splitlines()[-1])
    assert got["shape"] == [N_QUERIES, 1] and got["lexicon"] == N_WORDS
    assert got["traced"] < BOUND, got  # numpy arrays: no (queries, lexicon) matrix
    assert got["rss"] < BOUND, got  # and nothing of that size in C either

"""Memory: searching many queries never builds a queries x lexicon matrix.

Measured in a fresh interpreter, so the peak resident size belongs to this call
alone: both the Python/numpy allocations (tracemalloc; numpy reports its arrays
to it) and the process's peak RSS, which also sees the kernels' malloc.
"""

import json
import subprocess
import sys
import textwrap

from conftest import package_env

# The script's setup defines nn and queries; the measured call is nn.kneighbors(queries).
MEASURE = """
nn.kneighbors(queries[:10])  # first call: lazy imports and buffers
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
tracemalloc.start()
dist, ind = nn.kneighbors(queries)
traced = tracemalloc.get_traced_memory()[1]
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"traced": traced, "rss": (after - before) * 1024,
                  "shape": list(dist.shape), "lexicon": nn.n_samples_fit_,
                  "index": type(nn.index_).__name__}))
"""


def measure(setup, tmp_path):
    """Run ``setup`` then the measured kneighbors call in a fresh interpreter."""
    script = "import json, resource, tracemalloc\n" + textwrap.dedent(setup) + MEASURE
    run = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=tmp_path,  # not the source tree: uncompiled in a clean clone
        env=package_env(),
        check=True,
    )
    return json.loads(run.stdout.strip().splitlines()[-1])


N_QUERIES, N_WORDS = 100_000, 500
FULL_MATRIX = N_QUERIES * N_WORDS * 8  # 400 MB of float64 distances
BOUND = 40 * 2**20  # a tenth of it; outputs and encoded queries take about 9 MB


def test_kneighbors_on_100000_queries_streams(tmp_path):
    got = measure(
        f"""
        from skocrcost import EditDistanceNeighbors
        from skocrcost.datasets import load_icdar2017_sample

        X, y = load_icdar2017_sample("tokens")
        lexicon = list(dict.fromkeys(y))[:{N_WORDS}]
        queries = (X * 4)[:{N_QUERIES}]
        nn = EditDistanceNeighbors(1, n_jobs=2).fit(lexicon)
        """,
        tmp_path,
    )
    assert got["shape"] == [N_QUERIES, 1] and got["lexicon"] == N_WORDS
    assert got["traced"] < BOUND, got  # numpy arrays: no (queries, lexicon) matrix
    assert got["rss"] < BOUND, got  # and nothing of that size in C either


# Unit costs on a large lexicon: brute force in chunks (16 MB of distances at a time).
BIG_QUERIES, BIG_WORDS = 3_000, 60_000
BIG_FULL = BIG_QUERIES * BIG_WORDS * 8  # 1.44 GB
BIG_BOUND = 48 * 2**20  # the chunk's 16 MB, the match table (about 60k x 27 x 2 B), outputs


def test_unit_kneighbors_by_brute_force_stays_in_chunks(tmp_path):
    got = measure(
        f"""
        import numpy as np
        from skocrcost import EditDistanceNeighbors

        rng = np.random.default_rng(0)
        letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
        words = ["".join(rng.choice(letters, rng.integers(3, 12))) for _ in range({BIG_WORDS})]
        queries = words[: {BIG_QUERIES}]
        nn = EditDistanceNeighbors(5).fit(words)
        """,
        tmp_path,
    )
    assert got["shape"] == [BIG_QUERIES, 5] and got["index"] == "_UnitIndex"
    assert BIG_BOUND < BIG_FULL / 20
    assert got["traced"] < BIG_BOUND, got
    assert got["rss"] < BIG_BOUND, got

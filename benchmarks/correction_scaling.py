"""How correcting a large corpus scales: n_jobs, and Dask workers (skocrcost.dask.correct).

    cd benchmarks && PYTHONPATH=.. python correction_scaling.py [--tokens 1000000] [--workers 2]

The corpus: the OCR lines of BLN600 and of the ICDAR 2017 periodicals' training
part (``../shared/data``, 443,000 tokens), the first ``--tokens`` whitespace
tokens, repeated from the start when more are asked for, corrected by the shipped corrector
(``pretrained_corrector()``).  Runs, each on a fresh corrector (cold caches):

* ``predict`` in this process with ``n_jobs=1`` and with ``n_jobs=-1`` (the
  threads of the candidate search);
* ``skocrcost.dask.correct`` on a ``LocalCluster`` of 1 and of ``--workers``
  single-threaded worker processes, the corrector sent once per worker.

Prints wall-clock seconds, tokens per second and the speed-up over one worker;
checks that runs cut the same way return the same lines (the corrector counts a
word's recurrences in what one call corrects, so one call over the whole corpus
and one call per Dask block may differ where recurrences decide).  Repeated lines
find the caches warm, as a real collection's would not: beyond 443,000 tokens the
figures are an upper bound on tokens per second, and fair between the runs.
Each Dask worker fills caches of its own, so the more of the time goes to words
seen for the first time, the closer the workers come to dividing it.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from _pairs import read_pairs

from skocrcost.datasets import pretrained_corrector

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"


def corpus(n_tokens):
    X = []
    for path in ("bln600/train.lines.tsv", "icdar2017_engper/train.lines.tsv"):
        X += read_pairs(DATA / path)[0]
    lines, total = [], 0
    while total < n_tokens:
        for line in X:
            lines.append(line)
            total += len(line.split())
            if total >= n_tokens:
                break
    return lines, total


def timed(run):
    t0 = time.perf_counter()
    out = run()
    return time.perf_counter() - t0, list(out)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tokens", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--block-size", type=int, default=2000, help="lines per Dask block")
    args = parser.parse_args(argv)
    lines, n = corpus(args.tokens)
    print(f"{len(lines)} lines, {n} tokens")
    results = {}
    for n_jobs in (1, -1):
        fixer = pretrained_corrector().set_params(n_jobs=n_jobs)
        results[f"predict, n_jobs={n_jobs}"] = timed(lambda f=fixer: f.predict(lines))

    from dask.distributed import Client, LocalCluster

    from skocrcost.dask import correct

    for workers in sorted({1, args.workers}):
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True) as cluster:
            with Client(cluster):
                fixer = pretrained_corrector().set_params(n_jobs=1)
                results[f"dask, {workers} worker(s)"] = timed(
                    lambda f=fixer: correct(lines, f, block_size=args.block_size).compute()
                )
    one = results["dask, 1 worker(s)"][0]
    for name, (seconds, _) in results.items():
        print(f"{name:24s} {seconds:8.1f} s  {n / seconds:8.0f} tok/s  x{one / seconds:.2f}")
    # Recurrences are counted per call (per Dask block): runs agree with runs cut the same way.
    assert results["predict, n_jobs=-1"][1] == results["predict, n_jobs=1"][1]
    assert results[f"dask, {args.workers} worker(s)"][1] == results["dask, 1 worker(s)"][1]


if __name__ == "__main__":
    main()

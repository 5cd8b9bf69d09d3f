"""How correcting a large corpus scales: n_jobs, and Dask workers (skocrcost.dask.correct).

    cd benchmarks && PYTHONPATH=.. python correction_scaling.py [--tokens N] [--repeat 3]

The corpus: the OCR lines of BLN600, of the ICDAR 2017 periodicals and of the
ICDAR 2017 monographs (``../shared/data``, 1,096,000 tokens of distinct text, as a
mixed collection would be), the first ``--tokens`` whitespace tokens, repeated
from the start when more are asked for, corrected by the shipped corrector
(``pretrained_corrector()``).  Runs, each on a fresh corrector (cold caches):

* ``predict`` in this process with ``n_jobs=1`` and with ``n_jobs=-1`` (worker
  processes sharing the corpus 500 lines at a time, after this process counted
  what is read over the whole corpus: the same output as ``n_jobs=1``);
* ``skocrcost correct`` on the corpus as a text file, with ``--n-jobs 1`` and
  ``--n-jobs --workers`` (processes sharing its batches of 500 lines; the time
  includes starting the command and loading the corrector);
* ``skocrcost.dask.correct`` on a ``LocalCluster`` of 1 and of ``--workers``
  single-threaded worker processes, the corrector sent once per worker, in the
  default blocks of ``skocrcost.dask.DEFAULT_BLOCK_SIZE`` lines; each run in a
  fresh process, as a user's script would call it (the client and scheduler run
  in the calling process, and this one holds the other runs' output).

Each run is repeated ``--repeat`` times (default 3), the runs alternating; prints
the times of all and, for the best of each, wall-clock seconds, tokens per
second, the speed-up over ``predict`` with ``n_jobs=1`` and over the same way of
running with one worker;
checks that runs cut the same way return the same lines (the corrector counts a
word's recurrences in what one call corrects, so one call over the whole corpus,
with any ``n_jobs``, and one call per Dask block or per batch of the command may
differ where recurrences decide).  Repeated lines
find the caches warm, as a real collection's would not: beyond 1,096,000 tokens the
figures are an upper bound on tokens per second.  Each Dask worker fills caches of
its own: a word both workers meet is looked up by both, the price of splitting a
collection.
"""

from __future__ import annotations

import argparse
import logging
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _pairs import read_pairs

from skocrcost.dask import DEFAULT_BLOCK_SIZE, correct
from skocrcost.datasets import pretrained_corrector

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"


def corpus(n_tokens):
    X = []
    for path in (
        "bln600/train.lines.tsv",
        "icdar2017_engper/train.lines.tsv",  # (its dev.lines.tsv repeats its end)
        "icdar2017_engmono/lines.tsv",
    ):
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


def dask_run(workers, text, block_size):
    """``skocrcost.dask.correct`` of the lines of ``text`` on a fresh ``LocalCluster``
    of ``workers`` single-threaded processes: prints the seconds, then the lines.
    Timed from the call on a started cluster: the corrector's trip to the workers
    counts, starting the cluster does not."""
    from dask.distributed import Client, LocalCluster

    lines = text.read_bytes().decode("utf-8").split("\n")  # (no newline translation)
    with LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, silence_logs=logging.CRITICAL
    ) as cluster:
        with Client(cluster):
            fixer = pretrained_corrector().set_params(n_jobs=1)
            seconds, out = timed(lambda: correct(lines, fixer, block_size=block_size).compute())
    sys.stdout.buffer.write("\n".join([str(seconds), *out]).encode("utf-8"))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tokens", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--block-size", type=int, default=DEFAULT_BLOCK_SIZE, help="lines per Dask block"
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs of each, the best reported")
    parser.add_argument(
        "--dask-run", nargs=2, metavar=("WORKERS", "FILE"), help=argparse.SUPPRESS
    )  # (one Dask run, called by the benchmark: prints its seconds, then the lines)
    args = parser.parse_args(argv)
    if args.dask_run:
        return dask_run(int(args.dask_run[0]), Path(args.dask_run[1]), args.block_size)
    lines, n = corpus(args.tokens)
    print(f"{len(lines)} lines, {n} tokens")
    runs = {}  # name -> a function returning (seconds, the corrected lines)

    def on_predict(n_jobs):
        fixer = pretrained_corrector().set_params(n_jobs=n_jobs)  # (loaded before the clock)
        return timed(lambda: fixer.predict(lines))

    for n_jobs in (1, -1):
        runs[f"predict, n_jobs={n_jobs}"] = lambda j=n_jobs: on_predict(j)
    tmp = tempfile.TemporaryDirectory()
    text = Path(tmp.name) / "corpus.txt"
    text.write_text("\n".join(lines), encoding="utf-8")
    for workers in sorted({1, args.workers}):
        command = [sys.executable, "-m", "skocrcost", "correct", str(text), "-q"]
        command += ["--n-jobs", str(workers)]
        runs[f"correct, --n-jobs {workers}"] = lambda c=command: timed(
            lambda: subprocess.run(c, check=True, capture_output=True, text=True).stdout.split("\n")
        )

    def on_dask(workers):
        # In a process of its own, as the command runs: the client and scheduler run
        # in the calling process, and this one holds every run's output by now.
        command = [sys.executable, __file__, "--dask-run", str(workers), str(text)]
        command += ["--block-size", str(args.block_size)]
        done = subprocess.run(command, check=True, capture_output=True).stdout.decode("utf-8")
        seconds, _, out = done.partition("\n")
        return float(seconds), out.split("\n")

    for workers in sorted({1, args.workers}):
        runs[f"dask, {workers} worker(s)"] = lambda w=workers: on_dask(w)
    # Each run --repeat times, the runs of one kind alternating (the load of a shared
    # machine moves over minutes): the best time of each is reported.
    results, times = {}, {name: [] for name in runs}
    for _ in range(args.repeat):
        for name, run in runs.items():
            seconds, out = run()
            times[name].append(seconds)
            results[name] = (min(times[name]), out)
    tmp.cleanup()
    for name, seconds in times.items():
        print(f"{name:24s} runs: " + ", ".join(f"{s:.1f} s" for s in seconds))
    base = results["predict, n_jobs=1"][0]
    print(f"{'':24s} {'seconds':>10s} {'tokens/s':>9s}  speed-up: over predict, over 1 worker")
    for name, (seconds, _) in results.items():
        one = next(s for key, (s, _) in results.items() if key.split(",")[0] == name.split(",")[0])
        print(
            f"{name:24s} {seconds:8.1f} s  {n / seconds:8.0f}  x{base / seconds:.2f}  "
            f"x{one / seconds:.2f}"
        )
    # Recurrences are counted per call (per Dask block): runs agree with runs cut the same way;
    # predict's processes read them over the whole call, as one process does.
    assert results["predict, n_jobs=-1"][1] == results["predict, n_jobs=1"][1]
    assert results[f"dask, {args.workers} worker(s)"][1] == results["dask, 1 worker(s)"][1]
    # The command corrects 500 lines per call, whatever --n-jobs is.
    assert results[f"correct, --n-jobs {args.workers}"][1] == results["correct, --n-jobs 1"][1]


if __name__ == "__main__":
    main()

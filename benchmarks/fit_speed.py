"""How long ``OCRCorrector().fit`` takes on a large training set, on one core.

    cd benchmarks && OMP_NUM_THREADS=1 PYTHONPATH=.. taskset -c 0 python fit_speed.py

Three runs on ``../shared/data``, each fitted in a fresh process with the
defaults (the shipped English word list, a trigram language model, the
confidence of changes learned by a second fit on most of the lines):

* ``lines``: every line pair of the three collections (ICDAR 2017 monographs,
  BLN600 newspapers, the ICDAR 2017 periodicals' ``train`` part): 60,268 lines,
  1.1 M OCR tokens;
* ``tokens``: 10^6 token pairs, each a line of one word (the ICDAR 2017
  monographs' and BLN600's aligned tokens, 826,797, repeated from the start);
* ``cv``: the lines again, by ``OCRCorrectorCV()`` with its defaults (three folds,
  its default grid of decoding weights, the best refitted on all lines).

Prints CPU seconds (all threads: run it pinned to one core, as above, for a
one-core figure), wall-clock seconds and the process's peak memory.  Each input
``--repeat`` times (default 2), alternating.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

from _pairs import read_pairs

from skocrcost import OCRCorrector, OCRCorrectorCV

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
LINES = (
    "icdar2017_engmono/lines.tsv",
    "bln600/train.lines.tsv",
    "icdar2017_engper/train.lines.tsv",
)
TOKENS = ("icdar2017_engmono/tokens.tsv", "bln600/train.tokens_aligned.tsv")
N_TOKEN_PAIRS = 1_000_000
KINDS = ("lines", "tokens", "cv")


def training_set(kind):
    """``(X, y)`` of ``kind`` (see the module docstring)."""
    X, y = [], []
    for path in TOKENS if kind == "tokens" else LINES:
        a, b = read_pairs(DATA / path)
        X += a
        y += b
    if kind == "tokens":
        repeats = -(-N_TOKEN_PAIRS // len(X))
        X, y = (X * repeats)[:N_TOKEN_PAIRS], (y * repeats)[:N_TOKEN_PAIRS]
    return X, y


def fit_once(kind):
    """Fit on ``kind`` in this process: a dict of what was measured."""
    X, y = training_set(kind)
    cpu, wall = time.process_time(), time.perf_counter()
    (OCRCorrectorCV() if kind == "cv" else OCRCorrector()).fit(X, y)
    return {
        "input": kind,
        "pairs": len(X),
        "ocr_tokens": sum(len(x.split()) for x in X),
        "cpu_seconds": time.process_time() - cpu,
        "wall_seconds": time.perf_counter() - wall,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--only", choices=KINDS, default=None)
    parser.add_argument("--one", choices=KINDS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:  # a child process: one fit, its measures as JSON
        print(json.dumps(fit_once(args.one)))
        return
    kinds = [args.only] if args.only else KINDS
    for _ in range(args.repeat):
        for kind in kinds:
            run = [sys.executable, __file__, "--one", kind]
            out = json.loads(subprocess.run(run, check=True, capture_output=True).stdout)
            print(
                f"{kind:6s} {out['pairs']:>9,} pairs {out['ocr_tokens']:>9,} OCR tokens  "
                f"fit {out['cpu_seconds']:5.1f} CPU s {out['wall_seconds']:5.1f} s wall  "
                f"peak {out['peak_rss_mb']:,.0f} MB",
                flush=True,
            )


if __name__ == "__main__":
    main()

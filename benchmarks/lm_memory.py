"""Peak memory of fitting KatzBackoffLM (tracemalloc: Python objects and numpy buffers).

    python benchmarks/lm_memory.py            # BLN600 and ICDAR 2017 truth sentences
    python benchmarks/lm_memory.py --synthetic 10000000   # a Zipfian random corpus

The input sentences themselves are not counted: they are the caller's.  A random
Zipfian corpus has far more distinct trigrams than text of the same length, so it
bounds the memory of real text from above.
"""

import argparse
import gc
import time
import tracemalloc
from pathlib import Path

import numpy as np

from skocrcost import KatzBackoffLM

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"


def truth_sentences(path):
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n").partition("\t")[2] for line in f]


def synthetic(n_tokens, vocab=200_000, length=20, seed=0):
    rng = np.random.default_rng(seed)
    ranks = np.minimum(rng.zipf(1.1, n_tokens), vocab)
    words = np.array([f"w{i}" for i in range(vocab + 1)], dtype=object)
    toks = words[ranks]
    return [list(toks[i : i + length]) for i in range(0, n_tokens, length)]


def measure(name, sentences, order):
    n_tokens = sum(len(s) if isinstance(s, list) else len(s.split()) for s in sentences)
    gc.collect()
    tracemalloc.start()
    t0 = time.perf_counter()
    lm = KatzBackoffLM(order=order).fit(sentences)
    seconds = time.perf_counter() - t0
    kept, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(
        f"{name:<24} order {order}: {n_tokens:>10,} tokens, n-grams {lm.n_ngrams_}, "
        f"kept {kept / 2**20:7.1f} MiB, peak {peak / 2**20:7.1f} MiB "
        f"({peak / n_tokens:5.1f} B/token), {seconds:5.1f} s"
    )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--synthetic", type=int, default=0)
    args = parser.parse_args()
    if args.synthetic:
        measure(f"zipf {args.synthetic:,}", synthetic(args.synthetic), 3)
        return
    bln = truth_sentences(DATA / "bln600" / "train.lines.tsv")
    icdar = truth_sentences(DATA / "icdar2017_engmono" / "lines.tsv")
    for order in (2, 3):
        measure("bln600 truth", bln, order)
        measure("icdar2017 truth lines", icdar, order)
        measure("both", bln + icdar, order)


if __name__ == "__main__":
    main()

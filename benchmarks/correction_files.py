"""A collection of many small files: one ``skocrcost correct`` per file, or one for all.

    cd benchmarks && PYTHONPATH=.. python correction_files.py [--files 200] [--lines 60]
        [--loop 10] [--workers 2]

Archives keep OCR a page per file.  The pages here: the OCR lines of BLN600 and of
the ICDAR 2017 periodicals (``../shared/data``) cut into ``--files`` text files of
``--lines`` lines each.  Runs, wall-clock, the shipped corrector each time:

* one ``skocrcost correct FILE > OUT`` per file, as a shell loop runs it, over the
  first ``--loop`` files: each run starts Python, imports the package and loads
  the corrector before it corrects its page;
* one ``skocrcost correct FILE... -o DIR`` for all the files, with ``--n-jobs 1``
  and with ``--n-jobs --workers`` (the files shared among processes).

Prints files per second and tokens per second of each, and checks that every way
writes the same bytes for each file (each file is corrected as the command
corrects it alone).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _pairs import read_pairs

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
COMMAND = [sys.executable, "-m", "skocrcost", "correct", "-q"]


def pages(n_files, n_lines):
    X = []
    for path in ("bln600/train.lines.tsv", "icdar2017_engper/train.lines.tsv"):
        X += read_pairs(DATA / path)[0]
    if n_files * n_lines > len(X):
        raise SystemExit(f"{n_files} files of {n_lines} lines need more than {len(X)} lines")
    return ["\n".join(X[i * n_lines : (i + 1) * n_lines]) + "\n" for i in range(n_files)]


def timed(command, **kwargs):
    t = time.perf_counter()
    done = subprocess.run(command, check=True, capture_output=True, **kwargs)
    return time.perf_counter() - t, done.stdout


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--lines", type=int, default=60, help="lines per file")
    parser.add_argument("--loop", type=int, default=10, help="files run one command each")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    texts = pages(args.files, args.lines)
    tokens = [len(text.split()) for text in texts]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "pages"
        folder.mkdir()
        files = [folder / f"page{i:05d}.txt" for i in range(args.files)]
        for path, text in zip(files, texts):
            path.write_text(text, encoding="utf-8")
        print(
            f"{args.files} files of {args.lines} lines, {sum(tokens):,} tokens "
            f"({sum(tokens) / args.files:.0f} per file)",
            flush=True,
        )
        rows, outputs = [], {}

        def report(what, seconds, n_files, n_tokens):
            rows.append((what, n_files / seconds, n_tokens / seconds))
            print(
                f"{what:36s} {seconds:7.1f} s  {n_files / seconds:7.2f} files/s  "
                f"{n_tokens / seconds:8.0f} tokens/s",
                flush=True,
            )

        looped, spent = {}, 0.0
        for path in files[: args.loop]:
            seconds, out = timed([*COMMAND, str(path)])
            spent += seconds
            looped[path.name] = out
        report("a command per file", spent, len(looped), sum(tokens[: len(looped)]))
        for n_jobs in (1, args.workers):
            out = Path(tmp) / f"out{n_jobs}"
            seconds, _ = timed(
                [*COMMAND, *map(str, files), "-o", str(out), "--n-jobs", str(n_jobs)]
            )
            report(f"one command, --n-jobs {n_jobs}", seconds, args.files, sum(tokens))
            outputs[n_jobs] = {path.name: (out / path.name).read_bytes() for path in files}
        same = outputs[1] == outputs[args.workers] and all(
            outputs[1][name] == data for name, data in looped.items()
        )
        print("every way wrote the same bytes for each file" if same else "OUTPUTS DIFFER")
        base = rows[0][1]
        for what, per_second, _ in rows[1:]:
            print(f"{what}: {per_second / base:.0f}x the files per second of a command per file")
        if not same:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Instructions one ``predict`` over held-out lines executes, counted by valgrind's callgrind.

    cd benchmarks && PYTHONPATH=.. python correction_instructions.py [--only NAME]
        [--warm | --per-line] [--n-test 500]
    cd benchmarks && PYTHONPATH=.. python correction_instructions.py --caller
    cd benchmarks && PYTHONPATH=.. python correction_instructions.py --processes

Timings on a shared machine move by a fifth from one hour to the next; a count
of instructions does not, so it tells two versions of the code apart where
their times cannot (it does not weigh a cache miss more than an addition: a
change that saves memory traffic saves more time than its count says).  For
each collection of ``cross_collection.py``, the default ``OCRCorrector``
fitted on the training lines (here, outside valgrind) is pickled, and a copy
without its caches corrects the held-out lines in one ``predict`` call under
valgrind, which counts only that call (``--instr-atstart=no``, switched on and
off with ``callgrind_control`` around it): a first pass, or with ``--warm`` a
second one, after an uncounted first; with ``--per-line``, a first pass of one
``correct`` call per line instead, as a loop over a file's lines calls it.
Prints the instructions (every thread's) and an md5 of the corrected lines,
which two versions of the code that change only speed must share.
``--caller``: instead, what ``predict`` with ``n_jobs`` does before its worker
processes start, over the corpus of ``correction_scaling.py`` (10^6 tokens) and
the shipped corrector: counting the text's words, then reading its noise for
the confidence (sent back from a process of its own: pickled and unpickled
here), each counted alone, with an md5 of what it returns.
``--processes``: how ``predict(n_jobs=2)`` scales, counted rather than timed (a
shared machine's two cores slow each other down by more than a code change
moves the time): the shipped corrector corrects the first ``--n-tokens`` of that
corpus (default 250,000) in one process, then with two, every process counted
(valgrind follows the forks): the caller until its worker processes start
(counting the words, then searching the candidates of the words the text
repeats), the process that reads the noise meanwhile, each worker, and the
caller while they work.  Prints each count, the work of two processes against
one, and the speed-up the counts allow: one process's count over the longest
path through the two-process run (the caller until the workers start, the
larger worker, the caller after; the caller's search counted whole, though two
threads share it).  Needs valgrind (Debian: ``apt install valgrind``); a
count takes about a minute per collection, five for ``--caller`` and ten for
``--processes``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile

from correction_scaling import corpus
from cross_collection import collections

from skocrcost.correction import OCRCorrector
from skocrcost.correction._corrector import _text_noise
from skocrcost.datasets import pretrained_corrector


def child(path, work):
    """Under valgrind: ``work`` (see ``WORK``) on the pickled lines when the parent says
    so, then (uncounted) the md5 of what it returned."""
    with open(path, "rb") as f:
        fitted, lines = pickle.load(f)
    fixer = pickle.loads(pickle.dumps(fitted))  # (no caches: they are not pickled)
    if work == "warm":
        fixer.predict(lines)
    print("ready", flush=True)
    sys.stdin.readline()  # instrumentation is on
    run, text = WORK[work]
    if work.startswith("processes"):
        _dump_when_processes_start()
    out = run(fixer, lines)
    print("done", flush=True)
    sys.stdin.readline()  # and off again
    print(hashlib.md5(text(out).encode()).hexdigest(), flush=True)


def _passed(fixer, lines):
    return fixer.predict(lines)


def _noise(fixer, lines):
    return pickle.loads(pickle.dumps(_text_noise(fixer, None, lines), pickle.HIGHEST_PROTOCOL))


def _dump_when_processes_start():
    """Have callgrind write out this process's count so far, as a part of its own, when
    the caller has counted the text's words and when its worker processes are about to
    start (between the two, it searches the candidates of the words the text repeats)."""
    from skocrcost import _workers
    from skocrcost.correction import _decoder

    def dump(label):
        control(os.getpid(), "-d", label)

    decoder, start = _decoder.NoisyChannelDecoder, _workers.in_processes
    counts = decoder.word_counts

    def word_counts(*args, **kwargs):
        out = counts(*args, **kwargs)
        dump("counted")
        return out

    def in_processes(*args, **kwargs):
        dump("searched")
        decoder.word_counts = counts  # (the workers' own calls are theirs)
        return start(*args, **kwargs)

    decoder.word_counts, _workers.in_processes = word_counts, in_processes


# What a counted call does, and what of its result is hashed: a pass of predict (the
# corrected lines), or a part of predict(n_jobs)'s work before its processes start.
WORK = {
    "first": (_passed, "\n".join),
    "warm": (_passed, "\n".join),
    "per-line": (lambda fixer, lines: [fixer.correct(line) for line in lines], "\n".join),
    "words": (
        lambda fixer, lines: fixer._decoder().word_counts(map(str.split, lines)),
        lambda counts: repr(sorted(counts.items())),
    ),
    # predict with one worker process or two: each returns the corrected lines
    "processes-1": (lambda fixer, lines: fixer.set_params(n_jobs=1).predict(lines), "\n".join),
    "processes-2": (lambda fixer, lines: fixer.set_params(n_jobs=2).predict(lines), "\n".join),
    "noise": (
        _noise,
        lambda noise: repr(
            [sorted(noise.cores.items()), noise.line.tolist(), noise.nearby.tolist()]
        ),
    ),
}


def count(fitted, lines, work, parts=False):
    """``(instructions, md5 of what it returns)`` of ``WORK[work]`` on ``lines``; with
    ``parts``, instead of the instructions, ``[(pid, part, instructions)]``: one for each
    process (valgrind follows forks) and each part callgrind wrote out."""
    with tempfile.TemporaryDirectory() as tmp:
        data, out = os.path.join(tmp, "fitted.pkl"), os.path.join(tmp, "callgrind.out.%p")
        with open(data, "wb") as f:
            pickle.dump((fitted, lines), f)
        command = [
            "valgrind",
            "--tool=callgrind",
            "--instr-atstart=no",
            f"--callgrind-out-file={out}",
            sys.executable,
            __file__,
            "--child",
            data,
            work,
        ]
        proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True,
        )  # fmt: skip
        try:
            if proc.stdout.readline().strip() != "ready":
                raise RuntimeError("the counted process failed before its call")
            control(proc.pid, "-i", "on")
            proc.stdin.write("go\n")
            proc.stdin.flush()
            done = proc.stdout.readline().split()
            control(proc.pid, "-i", "off")
            proc.stdin.write("end\n")
            proc.stdin.flush()
            done += proc.stdout.readline().split()
            proc.wait()
        finally:
            if proc.poll() is None:
                proc.kill()
        if len(done) != 2 or proc.returncode:
            raise RuntimeError("the counted process failed in its call")
        counted = []
        for name in os.listdir(tmp):
            if name.startswith("callgrind.out."):
                with open(os.path.join(tmp, name)) as f:
                    text = f.read()
                pid = re.search(r"^pid:\s*(\d+)", text, re.MULTILINE).group(1)
                dumped = re.search(r"^desc: Trigger: dump (.*)$", text, re.MULTILINE)
                part = dumped.group(1) if dumped else "end"  # (the process's last part)
                totals = int(re.search(r"^totals:\s*(\d+)", text, re.MULTILINE).group(1))
                counted.append((int(pid), part, totals))
        if parts:
            return sorted(counted), done[1]
        return sum(n for *_, n in counted), done[1]


def control(pid, *option):
    """``callgrind_control`` of the counted process ``pid``: ``-i on`` / ``-i off``
    switches the count, ``-d LABEL`` writes out its count so far as a part of its own."""
    subprocess.run(["callgrind_control", *option, str(pid)], check=True, capture_output=True)


def processes(n_tokens):
    """Print what ``predict`` executes with one process and with two (``--processes``)."""
    lines, n = corpus(n_tokens)
    shipped = pretrained_corrector()
    one, digest_one = count(shipped, lines, "processes-1")
    print(f"{n:,} tokens, one process: {one:,} instructions, md5 {digest_one}")
    parts, digest = count(shipped, lines, "processes-2", parts=True)
    callers = {pid for pid, part, _ in parts if part == "searched"}  # (it wrote out parts)
    if not callers:
        raise SystemExit(f"{len(lines):,} lines started no process: --n-tokens too small")
    caller = {part: n for pid, part, n in parts if pid in callers}
    others = [n for pid, _, n in parts if pid not in callers]  # (in the order forked)
    *noise, first, second = others
    print(f"two processes, md5 {digest}:")
    print(f"  the caller, counting the words:       {caller['counted']:,}")
    print(f"  the caller, searching repeated words: {caller['searched']:,}")
    print(f"  the process reading the noise:        {sum(noise):,}")
    print(f"  the workers:                          {first:,} and {second:,}")
    print(f"  the caller, while they work:          {caller['end']:,}")
    total = sum(n for *_, n in parts)
    longest = caller["counted"] + caller["searched"] + max(first, second) + caller["end"]
    print(f"  in all {total:,}: {total / one - 1:+.1%} against one process")
    print(f"  speed-up the counts allow: {one / longest:.2f} (one process over the longest path)")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", help="one collection: monographs, newspapers or periodicals")
    passes = parser.add_mutually_exclusive_group()
    passes.add_argument("--warm", action="store_true", help="count a second pass, not the first")
    passes.add_argument(
        "--per-line", action="store_true", help="count a first pass of one correct call per line"
    )
    parser.add_argument("--n-test", type=int, default=500, help="held-out lines per collection")
    parser.add_argument(
        "--caller", action="store_true", help="count what predict(n_jobs) does first"
    )
    parser.add_argument(
        "--processes", action="store_true", help="count predict with one process, then two"
    )
    parser.add_argument("--n-tokens", type=int, default=250_000, help="for --processes")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(*args.child)
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        raise SystemExit("valgrind is not installed (Debian: apt install valgrind)")
    if args.processes:
        return processes(args.n_tokens)
    if args.caller:
        lines, n = corpus(1_000_000)
        shipped = pretrained_corrector().set_params(n_jobs=2)
        for work, which in (("words", "counting the words"), ("noise", "reading the noise")):
            instructions, digest = count(shipped, lines, work)
            print(f"{n:,} tokens, {which}: {instructions:,} instructions, md5 {digest}")
        return
    work, which = (
        ("warm", "second pass")
        if args.warm
        else ("per-line", "first pass, a call per line")
        if args.per_line
        else ("first", "first pass")
    )
    for name, (X, y, X_test, _) in collections(args.n_test).items():
        if args.only and name != args.only:
            continue
        fitted = OCRCorrector().set_params(n_jobs=1).fit(X, y)
        instructions, digest = count(fitted, X_test, work)
        print(f"{name:12s} {which}: {instructions:,} instructions, output md5 {digest}")


if __name__ == "__main__":
    main()

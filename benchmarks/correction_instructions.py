"""Instructions one ``predict`` over held-out lines executes, counted by valgrind's callgrind.

    cd benchmarks && PYTHONPATH=.. python correction_instructions.py [--only NAME]
        [--warm] [--n-test 500]

Timings on a shared machine move by a fifth from one hour to the next; a count
of instructions does not, so it tells two versions of the code apart where
their times cannot (it does not weigh a cache miss more than an addition: a
change that saves memory traffic saves more time than its count says).  For
each collection of ``cross_collection.py``, the default ``OCRCorrector``
fitted on the training lines (here, outside valgrind) is pickled, and a copy
without its caches corrects the held-out lines in one ``predict`` call under
valgrind, which counts only that call (``--instr-atstart=no``, switched on and
off with ``callgrind_control`` around it): a first pass, or with ``--warm`` a
second one, after an uncounted first.  Prints the instructions (every thread's)
and an md5 of the corrected lines, which two versions of the code that change
only speed must share.  Needs valgrind (Debian: ``apt install valgrind``); a
count takes about a minute per collection.
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

from cross_collection import collections

from skocrcost.correction import OCRCorrector


def child(path, warm):
    """Under valgrind: correct the pickled lines when the parent says so."""
    with open(path, "rb") as f:
        fitted, lines = pickle.load(f)
    fixer = pickle.loads(pickle.dumps(fitted))  # (no caches: they are not pickled)
    if warm:
        fixer.predict(lines)
    print("ready", flush=True)
    sys.stdin.readline()  # instrumentation is on
    out = fixer.predict(lines)
    print("done", hashlib.md5("\n".join(out).encode()).hexdigest(), flush=True)
    sys.stdin.readline()  # and off again


def count(fitted, lines, warm):
    """``(instructions, md5 of the corrected lines)`` of one ``predict`` of ``lines``."""
    with tempfile.TemporaryDirectory() as tmp:
        data, out = os.path.join(tmp, "fitted.pkl"), os.path.join(tmp, "callgrind.out")
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
        ] + (["--warm"] if warm else [])
        proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True,
        )  # fmt: skip
        try:
            if proc.stdout.readline().strip() != "ready":
                raise RuntimeError("the counted process failed before its call")
            control("on", proc.pid)
            proc.stdin.write("go\n")
            proc.stdin.flush()
            done = proc.stdout.readline().split()
            control("off", proc.pid)
            proc.stdin.write("end\n")
            proc.stdin.flush()
            proc.wait()
        finally:
            if proc.poll() is None:
                proc.kill()
        if len(done) != 2 or proc.returncode:
            raise RuntimeError("the counted process failed in its call")
        with open(out) as f:
            totals = re.search(r"^totals:\s*(\d+)", f.read(), re.MULTILINE)
        return int(totals.group(1)), done[1]


def control(state, pid):
    subprocess.run(["callgrind_control", "-i", state, str(pid)], check=True, capture_output=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", help="one collection: monographs, newspapers or periodicals")
    parser.add_argument("--warm", action="store_true", help="count a second pass, not the first")
    parser.add_argument("--n-test", type=int, default=500, help="held-out lines per collection")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args.child, args.warm)
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        raise SystemExit("valgrind is not installed (Debian: apt install valgrind)")
    which = "second pass" if args.warm else "first pass"
    for name, (X, y, X_test, _) in collections(args.n_test).items():
        if args.only and name != args.only:
            continue
        fitted = OCRCorrector().set_params(n_jobs=1).fit(X, y)
        instructions, digest = count(fitted, X_test, args.warm)
        print(f"{name:12s} {which}: {instructions:,} instructions, output md5 {digest}")


if __name__ == "__main__":
    main()

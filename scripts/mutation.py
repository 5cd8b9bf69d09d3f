"""Mutation testing of the pure-Python models: run mutmut, print the score and the survivors.

mutmut (``pip install -e ".[mutation]"``) copies the package into ``mutants/``, makes
small changes ("mutants") to the modules listed in ``[tool.mutmut] only_mutate`` of
pyproject.toml (``<`` to ``<=``, ``+`` to ``-``, a constant changed, a call's argument
dropped, ...) and runs, for each mutant, the tests of ``pytest_add_cli_args_test_selection``
that reach the mutated function.  A mutant is *killed* when a test fails, *survives*
when every test passes.  A surviving mutant is either a bug the tests would let through
or an equivalent change (same behaviour); each one is worth a look.

Run from the repository root, with the compiled extensions built in place
(``python setup.py build_ext --inplace``)::

    python scripts/mutation.py                          # every module listed
    python scripts/mutation.py _smoothing _counting     # some of them
    python scripts/mutation.py _smoothing --max-children 2

Each run checks every mutant of the modules named; the results stay in ``mutants/``
(``--report-only`` prints them again, ``mutmut show NAME`` a survivor's change).  The
score is killed / (killed + survived); mutants that no selected test reaches are
counted apart.  The selection leaves out the tests/*/test_*_bad_inputs.py tables for speed, so
mutants of error messages checked only there survive here.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
# mutmut's exit codes of a mutant's test run (mutmut.stats.status_by_exit_code).
STATUS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests", None: "not run"}
TIMEOUTS = {36, 24, -24, 152, 255}


def modules():
    """The listed modules as dotted names under skocrcost (``correction._decoder``)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    paths = (Path(p).relative_to("skocrcost") for p in config["tool"]["mutmut"]["only_mutate"])
    return [".".join(p.with_suffix("").parts) for p in paths]


def resolve(name, known):
    """A module named by its dotted name or, when unambiguous, its last part."""
    if name in known:
        return name
    matches = [m for m in known if m.rsplit(".", 1)[-1] == name]
    return matches[0] if len(matches) == 1 else None


def status(code):
    if code in TIMEOUTS:
        return "killed"  # a mutant that makes the tests hang is caught (by the timeout)
    return STATUS.get(code, "suspicious")


def results(names):
    """{module: {mutant name: status}} from mutmut's cache in mutants/."""
    found = {}
    for name in names:
        meta = ROOT / "mutants" / "skocrcost" / f"{name.replace('.', '/')}.py.meta"
        if meta.exists():
            codes = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
            found[name] = {mutant: status(code) for mutant, code in codes.items()}
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "modules", nargs="*", help="modules, e.g. _smoothing or correction._decoder (default: all)"
    )
    parser.add_argument(
        "--only",
        action="append",
        metavar="PART",
        help="mutate only functions whose name contains PART (repeatable), e.g. _keep_",
    )
    parser.add_argument("--max-children", type=int, default=1, help="mutants run at once")
    parser.add_argument("--report-only", action="store_true", help="print the cached results")
    args = parser.parse_args(argv)
    known = modules()
    names = [resolve(name, known) or name for name in args.modules] or known
    unknown = sorted(set(names) - set(known))
    if unknown:
        parser.error(f"not in [tool.mutmut] only_mutate: {unknown}; known: {known}")
    if not args.report_only:
        parts = args.only or [""]
        patterns = [f"skocrcost.{name}.*{part}*" for name in names for part in parts]
        log = ROOT / "mutants" / "run.log"
        log.parent.mkdir(exist_ok=True)
        with open(log, "w", encoding="utf-8") as out:  # mutmut's progress line is long
            # The copy in mutants/ has no ../shared beside it: point the tests at ours.
            env = {**os.environ, "SKOCRCOST_SHARED_DATA": str(ROOT / ".." / "shared" / "data")}
            run = subprocess.run(
                [sys.executable, "-m", "mutmut", "run", "--max-children", str(args.max_children)]
                + patterns,
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        if run.returncode:
            sys.exit(f"mutmut failed (exit {run.returncode}); see {log}")
    total = Counter()
    survivors = []
    for name, by_mutant in results(names).items():
        counts = Counter(by_mutant.values())
        total += counts
        tested = counts["killed"] + counts["survived"]
        score = counts["killed"] / tested if tested else float("nan")
        extra = {k: v for k, v in counts.items() if k not in ("killed", "survived")}
        print(f"{name:12} {counts['killed']:5} killed {counts['survived']:4} survived "
              f"score {score:6.1%}  {extra or ''}")  # fmt: skip
        survivors += sorted(m for m, s in by_mutant.items() if s == "survived")
    tested = total["killed"] + total["survived"]
    if tested:
        print(f"{'all':12} {total['killed']:5} killed {total['survived']:4} survived "
              f"score {total['killed'] / tested:6.1%}")  # fmt: skip
    print(f"\n{len(survivors)} survivors (mutmut show NAME for the diff):")
    for mutant in survivors:
        print(" ", mutant)


if __name__ == "__main__":
    main()

"""Shared fixtures: the real data beside the repository, skipped cleanly when absent."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"


def shared_path(*parts):
    """Path under ../shared/data, or skip the test with a message when it is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"real data not found at {path} (the ../shared folder is absent)")
    return path


def read_pairs(path, limit=None):
    X, y = [], []
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(f):
            if limit is not None and i >= limit:
                break
            a, _, b = line.rstrip("\n").partition("\t")
            X.append(a)
            y.append(b)
    return X, y


def package_env():
    """Environment for a subprocess that must import the skocrcost the tests import.

    The same package (installed, or built in place) whatever the working directory: a
    source tree without the compiled kernel (a clean clone, as in CI) must not shadow it,
    so run such subprocesses outside the source tree with this environment.
    """
    import skocrcost

    return {**os.environ, "PYTHONPATH": str(Path(skocrcost.__file__).resolve().parents[1])}


def run_skocrcost(*args, cwd, input=None):
    """Run ``python -m skocrcost ARGS`` in ``cwd`` on the same skocrcost the tests import."""
    env = package_env()
    return subprocess.run(
        [sys.executable, "-m", "skocrcost", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        input=input,
    )

"""Shared fixtures: the real data beside the repository, skipped cleanly when absent.

With ``SKOCRCOST_REQUIRE_DATA=1`` in the environment (as in CI, which always has
../shared beside the clone and installs the ``test`` extra), a test that would skip for
missing real data or a missing package of the ``test`` extra fails instead.
"""

import copy
import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

# SKOCRCOST_SHARED_DATA points elsewhere (scripts/mutation.py runs a copy of the tests).
SHARED_DATA = Path(
    os.environ.get("SKOCRCOST_SHARED_DATA")
    or Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
)
REQUIRE_DATA = bool(os.environ.get("SKOCRCOST_REQUIRE_DATA"))


@pytest.fixture
def process_calls(monkeypatch):
    """The worker counts asked of ``skocrcost._workers.in_processes``, one per sharing
    of work among processes (the work is still done)."""
    from skocrcost import _workers

    calls = []
    real = _workers.in_processes

    def counted(task, corrector, jobs, n_workers, shared=None):
        calls.append(n_workers)
        return real(task, corrector, jobs, n_workers, shared)

    monkeypatch.setattr(_workers, "in_processes", counted)
    return calls


@pytest.fixture(scope="module")
def icdar_lines():
    """The embedded ICDAR 2017 sample's line pairs ``(ocr, truth)``, loaded once per module."""
    from skocrcost.datasets import load_icdar2017_sample

    return load_icdar2017_sample("lines")


def skip_or_fail(message):
    """Skip with ``message``, or fail when SKOCRCOST_REQUIRE_DATA is set (at module level too)."""
    if REQUIRE_DATA:
        pytest.fail(f"{message}; SKOCRCOST_REQUIRE_DATA is set", pytrace=False)
    pytest.skip(message, allow_module_level=True)


def require_module(name):
    """``importlib.import_module(name)``, or :func:`skip_or_fail` when it is not installed."""
    try:
        return importlib.import_module(name)
    except ImportError:
        skip_or_fail(f"{name} is not installed: pip install '.[test]'")


def shared_path(*parts):
    """Path under ../shared/data, or skip the test with a message when it is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        skip_or_fail(f"real data not found at {path} (the ../shared folder is absent)")
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


def own_decoder(corrector):
    """The corrector's running-text decoder, copied: a test may change it without
    changing the corrector's own, which the corrector's later calls reuse."""
    return copy.copy(corrector._decoder())

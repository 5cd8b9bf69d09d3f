"""Bounded fuzzing of the compiled entry points (the target is tests/kernels/fuzz_kernels.py).

Short by default, for CI; longer with ``SKOCRCOST_FUZZ_EXAMPLES`` (hypothesis
examples, default 300) and ``SKOCRCOST_FUZZ_SECONDS`` (atheris, default 3).
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import package_env
from fuzz_kernels import one_input
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

EXAMPLES = int(os.environ.get("SKOCRCOST_FUZZ_EXAMPLES", "300"))
SECONDS = int(os.environ.get("SKOCRCOST_FUZZ_SECONDS", "3"))
ROOT = Path(__file__).resolve().parents[2]


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.binary(min_size=0, max_size=400))
def test_fuzz_with_hypothesis(data):
    one_input(data)


def test_fuzz_with_atheris():
    pytest.importorskip("atheris")
    run = subprocess.run(
        [
            sys.executable,
            str(ROOT / "tests" / "kernels" / "fuzz_kernels.py"),
            f"-max_total_time={SECONDS}",
            "-rss_limit_mb=4096",
            "-seed=1",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=package_env(),  # the package under test, not the (uncompiled) source tree
    )
    # libFuzzer exits 0 when the time is up and reports every crash on stderr.
    assert run.returncode == 0, run.stderr[-3000:]
    assert "Done" in run.stderr, run.stderr[-3000:]

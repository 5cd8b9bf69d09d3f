"""The embedded sample, the command line and the docstring examples."""

import doctest
import importlib

import pytest
from conftest import require_module, run_skocrcost

from skocrcost import cli
from skocrcost.datasets import load_icdar2017_sample

MODULES = [
    "skocrcost.metrics",
    "skocrcost.estimator",
    "skocrcost.datasets",
    "skocrcost.neighbors",
    "skocrcost.correction._corrector",
    "skocrcost.correction._cv",
    "skocrcost.correction._align",
    "skocrcost.correction._scoring",
    "skocrcost.lm",
    "skocrcost.plotting",
    "skocrcost.dask",
    "skocrcost.edit_distance",
]
# Modules of optional extras: their doctests skip when the extra is not installed.
OPTIONAL = {"skocrcost.dask": "dask"}


def test_sample_is_real_paired_ocr():
    for kind, n in (("lines", 3537), ("tokens", 25414)):
        X, y = load_icdar2017_sample(kind)
        assert len(X) == len(y) == n
        assert all(isinstance(s, str) for s in X + y)
        assert 0 < sum(a != b for a, b in zip(X, y)) < n
    with pytest.raises(ValueError, match="kind"):
        load_icdar2017_sample("pages")


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    if name in OPTIONAL:
        require_module(OPTIONAL[name])
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0


def test_demo_prints_the_chosen_k_and_confusions(capsys):
    assert cli.main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "<- chosen" in out
    assert "ten cheapest learned confusions" in out
    assert "learned" in out


def test_module_entry_point_and_help(tmp_path):
    def run(*args):
        return run_skocrcost(*args, cwd=tmp_path)

    ok = run("--help")
    assert ok.returncode == 0, ok.stderr
    assert "demo" in ok.stdout
    bad = run("nope")
    assert bad.returncode != 0
    assert "invalid choice" in bad.stderr

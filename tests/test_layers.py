"""The layers of the package: imports run downward only, and ``_kernels`` has one door."""

import re
import subprocess
import sys
from pathlib import Path

from conftest import package_env

import skocrcost

PACKAGE = Path(skocrcost.__file__).resolve().parent
KERNELS = PACKAGE / "_kernels"
# Modules kept where release 0.1.0 had them, so that its pickles load.
ALIASES = {"_dp.py", "_edit.py", "_index.py"}
IMPORT = re.compile(r"^\s*(?:from\s+(\S+)\s+c?import|c?import\s+(\S+))", re.M)


def imports(path):
    """The modules a .py/.pyx/.pxd file imports, as absolute names."""
    found = []
    for a, b in IMPORT.findall(path.read_text(encoding="utf-8")):
        name = a or b
        if name.startswith("."):
            dots = len(name) - len(name.lstrip("."))
            parts = path.relative_to(PACKAGE.parent).with_suffix("").parts[:-dots]
            name = ".".join(parts) + ("." + name.lstrip(".") if name.lstrip(".") else "")
        found.append(name)
    return found


def test_the_kernels_import_nothing_from_the_layers_above():
    for path in KERNELS.glob("*.p*"):
        for name in imports(path):
            if name.startswith("skocrcost"):
                assert name.startswith("skocrcost._kernels"), (path.name, name)


def test_other_modules_use_only_the_door_of_the_kernels():
    for path in PACKAGE.rglob("*.py"):
        if KERNELS in path.parents:
            continue
        for name in imports(path):
            assert not name.startswith("skocrcost._kernels."), (path.name, name)
        if path.name not in ALIASES:
            for old in ("_dp", "_dp_py", "_edit", "_edit_py", "_index", "_index_py"):
                assert f"skocrcost.{old}" not in imports(path), (path.name, old)


def test_importing_the_package_loads_neither_the_demo_nor_model_selection():
    code = (
        "import sys, skocrcost; "
        "print(sorted(m for m in sys.modules if m in "
        "('skocrcost._demo', 'sklearn.model_selection', 'skocrcost._kernels._cost_kernel_py')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=package_env(), cwd="/"
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"

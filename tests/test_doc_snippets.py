"""Every ```python block of README.md and docs/**/*.md runs as written.

The blocks of one file run in order in one namespace, as a reader would paste
them one after the other, in a temporary working directory (they may write
files such as model.json).  Data: the embedded ICDAR 2017 sample
(``skocrcost.datasets.load_icdar2017_sample``) and the pretrained model, both
shipped with the package, so the snippets need no network and no ../shared/data.
Not run: shell blocks (```` ``` ```` without a language), blocks indented in a
list item (the Spark and Ray sketches of docs/dask.md, which need those systems)
and blocks whose first line says ``# not run:`` and why (a scheduler address).
"""

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
PAGES = [p for p in PAGES if "_build" not in p.parts]

# Pages whose snippets fail at present: rewritten by the corrector work.
KNOWN_BROKEN = {}
# Pages that need an optional extra: the module to import.
NEEDS = {"docs/dask.md": "distributed"}
NOT_RUN = "# not run:"

FENCE = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.M | re.S)


def python_blocks(text):
    """The source of each ```python block, with its first line number."""
    return [
        (text.count("\n", 0, m.start()) + 2, m.group(1))
        for m in FENCE.finditer(text)
        if not m.group(1).startswith(NOT_RUN)
    ]


def _id(page):
    return str(page.relative_to(ROOT))


def test_the_extractor_finds_blocks_and_skips_shell_blocks():
    text = "x\n```python\na = 1\n```\n\n```\npip install .\n```\n```python\nb = a\n```\n"
    assert python_blocks(text) == [(3, "a = 1\n"), (10, "b = a\n")]
    text = "- item\n\n  ```python\n  c = 1\n  ```\n```python\n# not run: why\nd = 1\n```\n"
    assert python_blocks(text) == []


def test_the_pages_hold_python_blocks():
    # A guard against the extractor silently finding nothing.
    assert sum(len(python_blocks(p.read_text(encoding="utf-8"))) for p in PAGES) >= 30


@pytest.mark.parametrize(
    "page",
    [
        pytest.param(
            p,
            id=_id(p),
            marks=(
                [pytest.mark.xfail(reason=KNOWN_BROKEN[_id(p)], strict=True)]
                if _id(p) in KNOWN_BROKEN
                else []
            ),
        )
        for p in PAGES
        if python_blocks(p.read_text(encoding="utf-8"))
    ],
)
def test_snippets_run(page, tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")  # some pages draw plot_costs
    if _id(page) in NEEDS:
        pytest.importorskip(NEEDS[_id(page)])
    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__doc_snippet__"}
    for line, source in python_blocks(page.read_text(encoding="utf-8")):
        code = compile("\n" * (line - 1) + source, str(page), "exec")
        exec(code, namespace)  # noqa: S102 - the documentation's own examples
    assert os.getcwd() == str(tmp_path)

"""Sphinx configuration for the skocrcost documentation (built with -W: warnings are errors)."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Document the in-place build (python setup.py build_ext --inplace) when there is one,
# else the installed package: the source tree alone cannot be imported (its kernels are
# not compiled), and ``python -m sphinx`` run from the root puts the root first on sys.path.
if any(f.suffix in (".so", ".pyd") for f in (ROOT / "skocrcost").rglob("*.*")):
    sys.path.insert(0, str(ROOT))
else:
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT]

import skocrcost  # noqa: E402

project = "skocrcost"
author = "the skocrcost developers"
copyright = "2026, the skocrcost developers"
release = version = skocrcost.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "**.ipynb_checkpoints", "auto_examples/*.md5"]
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
suppress_warnings = ["myst.header"]  # helpers' pages may start at any heading level

autosummary_generate = True
# Inherited members: scikit-learn's mixins' and tuple's own methods are documented
# elsewhere.  Deprecated members carry ":meta private:" and stay off the pages.
autodoc_default_options = {
    "members": True,
    "inherited-members": ",".join(
        ["BaseEstimator", "TransformerMixin", "_SetOutputMixin", "_MetadataRequester"]
        + ["object", "tuple"]
    ),
}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": "/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "show_memory": False,
    "write_computation_times": False,
}

html_theme = "pydata_sphinx_theme"
html_title = "skocrcost"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
html_show_sourcelink = False

# -- pages other helpers add ------------------------------------------------------------
# Every docs/*.md that no fixed toctree lists goes into the front page's "Topics" toctree,
# known ones in this order, so a page that is not written yet breaks nothing and a new
# page is never an orphan (an orphan is a warning, and -W makes it an error).
FIXED = {"index", "getting_started", "model", "pretrained", "cli", "api", "design"}
TOPIC_ORDER = [
    "correction",
    "formats",
    "neighbors",
    "edit_model",
    "katz",
    "performance",
    "dask",
    "security",
]
TOPICS_MARKER = "% topics: filled in by conf.py"


def _topics():
    found = {p.stem for p in Path(__file__).parent.glob("*.md")} - FIXED
    return [t for t in TOPIC_ORDER if t in found] + sorted(found - set(TOPIC_ORDER))


def _fill_topics(app, docname, source):
    if docname == "index":
        source[0] = source[0].replace(TOPICS_MARKER, "\n".join(_topics()))


def setup(app):
    app.connect("source-read", _fill_topics)

"""Cost models as JSON files: reading, writing and checking them (models layer, no DP).

A metric file is ocr-stringdist's ``WeightedLevenshtein.to_dict`` layout.  An
estimator file is the same layout (so ocr-stringdist and
``WeightedLevenshtein.load`` read its costs) plus one key, ``"skocrcost_estimator"``,
holding what ``score`` and a refit need: the parameters, the vocabulary and the
edit counts.  The costs are recomputed from the counts on load and must equal
the stored ones, so a file edited by hand cannot silently disagree with itself.
Paths ending in ``.gz`` are gzip-compressed.
"""

from __future__ import annotations

import gzip
import json
import os

import numpy as np
import scipy.sparse as sp

from ._counting import EditCounts

ESTIMATOR_KEY = "skocrcost_estimator"
FORMAT_VERSION = 1


def _opener(path):
    return gzip.open if os.fspath(path).endswith(".gz") else open


def check_path(path, name="path"):
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{name} must be a str or os.PathLike, got {type(path).__name__}")
    return path


def write_json(data, path):
    """Write ``data`` as JSON (ASCII-escaped, so any code point survives)."""
    check_path(path)
    with _opener(path)(path, "wt", encoding="utf-8") as f:
        json.dump(data, f, separators=(",", ":"))
        f.write("\n")


def read_json(path):
    """Read a JSON object from ``path``; ValueError naming the file if it is not one."""
    check_path(path)
    try:
        with _opener(path)(path, "rt", encoding="utf-8") as f:
            data = json.load(f)
    except (json.JSONDecodeError, UnicodeDecodeError, gzip.BadGzipFile, EOFError) as exc:
        raise ValueError(f"{os.fspath(path)} is not a JSON cost model: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{os.fspath(path)} holds a JSON {type(data).__name__}, not an object")
    return data


def counts_to_json(counts):
    """The vocabulary as code points and the count matrix as (rows, cols, counts) lists."""
    coo = counts.matrix.tocoo()
    order = np.lexsort((coo.col, coo.row))
    return {
        "vocabulary": counts.vocabulary.tolist(),
        "rows": coo.row[order].tolist(),
        "cols": coo.col[order].tolist(),
        "counts": coo.data[order].tolist(),
    }


def counts_from_json(state, where):
    """Rebuild :class:`EditCounts` from :func:`counts_to_json`, checking every field.

    Counts are integers, or numbers >= 0 for expected counts (``counting="forward"``).
    """
    fields = {}
    for key in ("vocabulary", "rows", "cols", "counts"):
        value = state.get(key)
        fractional = (
            key == "counts" and isinstance(value, list) and any(isinstance(v, float) for v in value)
        )
        kind = (int, float) if fractional else int
        if not isinstance(value, list) or not all(
            isinstance(v, kind) and not isinstance(v, bool) and 0 <= v < float("inf") for v in value
        ):
            what = "numbers >= 0" if fractional else "integers >= 0"
            raise ValueError(f"{where}: '{key}' must be a list of {what}")
        fields[key] = np.asarray(value, dtype=np.float64 if fractional else np.int64)
    vocabulary = fields["vocabulary"]
    if np.any(vocabulary >= 0x110000) or np.any(np.diff(vocabulary) <= 0):
        raise ValueError(f"{where}: 'vocabulary' must hold sorted, distinct code points")
    n = len(vocabulary) + 1
    rows, cols, data = fields["rows"], fields["cols"], fields["counts"]
    if not len(rows) == len(cols) == len(data):
        raise ValueError(f"{where}: 'rows', 'cols' and 'counts' must have the same length")
    if np.any(rows >= n) or np.any(cols >= n):
        raise ValueError(f"{where}: count ids must be < {n} (the vocabulary size + 1)")
    matrix = sp.coo_array((data, (rows.astype(np.int64), cols.astype(np.int64))), shape=(n, n))
    matrix = matrix.tocsr()
    return EditCounts(vocabulary.astype(np.uint32), matrix)

"""Shared fixtures: the real data beside the repository, skipped cleanly when absent."""

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

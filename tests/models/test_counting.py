"""EditCounts: most_common, equality and sums, on counts whose answers are known."""

import numpy as np
import pytest

from skocrcost import EditCounts

GAP = -1


def columns(*edits):
    """Aligned columns ``(source, target, times)``; '' is the gap."""
    src, tgt = [], []
    for s, t, times in edits:
        src += [ord(s) if s else GAP] * times
        tgt += [ord(t) if t else GAP] * times
    return EditCounts.from_columns(src, tgt)


COUNTS = columns(
    ("a", "a", 5),
    ("b", "b", 4),
    ("a", "b", 3),
    ("c", "", 2),  # c deleted
    ("b", "c", 2),  # ties with the deletion: by source, then target
    ("", "d", 1),  # d inserted
    ("e", "f", 1),
)


def test_most_common_errors_by_count_then_source_then_target():
    assert COUNTS.most_common() == [
        ("a", "b", 3),
        ("b", "c", 2),
        ("c", "", 2),
        ("", "d", 1),  # the gap (id 0) sorts first
        ("e", "f", 1),
    ]
    assert COUNTS.most_common(2) == [("a", "b", 3), ("b", "c", 2)]
    assert all(type(n) is int for _, _, n in COUNTS.most_common())


def test_most_common_with_matches_and_the_default_of_ten():
    assert COUNTS.most_common(3, errors_only=False) == [
        ("a", "a", 5),
        ("b", "b", 4),
        ("a", "b", 3),
    ]
    many = columns(*[(chr(0x61 + i), chr(0x41 + i), 20 - i) for i in range(12)])
    top = many.most_common()
    assert len(top) == 10 and top[-1] == ("j", "J", 11)


def test_fractional_counts_come_out_as_floats():
    half = EditCounts(COUNTS.vocabulary, COUNTS.matrix * 0.5)
    assert half.most_common(1) == [("a", "b", 1.5)]
    assert type(half.most_common(1)[0][2]) is float


def test_equality_needs_the_same_vocabulary_and_the_same_counts():
    assert COUNTS == columns(*[("a", "a", 5)]) + columns(
        ("b", "b", 4), ("a", "b", 3), ("c", "", 2), ("b", "c", 2), ("", "d", 1), ("e", "f", 1)
    )
    fewer = EditCounts(COUNTS.vocabulary, COUNTS.matrix.multiply(COUNTS.matrix > 1))
    assert np.array_equal(fewer.vocabulary, COUNTS.vocabulary)
    assert fewer != COUNTS  # same characters, other counts
    assert columns(("a", "b", 1)) != columns(("a", "c", 1))  # same counts, other characters
    assert COUNTS != "counts"


def test_sum_starts_from_zero_and_nothing_else_adds():
    parts = [columns(("a", "b", 1)), columns(("a", "b", 2), ("", "c", 1))]
    assert sum(parts) == columns(("a", "b", 3), ("", "c", 1))
    assert sum(parts[:1]) is parts[0]
    with pytest.raises(TypeError):
        5 + parts[0]
    with pytest.raises(TypeError):
        parts[0] + 5


def test_nul_is_a_character_on_either_side_and_minus_one_the_only_gap():
    counts = EditCounts.from_columns([0, GAP, 97], [97, 0, GAP])
    assert counts.vocabulary.tolist() == [0, 97]
    assert counts.most_common() == [("", "\x00", 1), ("\x00", "a", 1), ("a", "", 1)]
    with pytest.raises(ValueError, match=r"src must hold code points in \[-1, 0x110000\)"):
        EditCounts.from_columns([-2], [97])
    with pytest.raises(ValueError, match=r"tgt must hold code points in \[-1, 0x110000\)"):
        EditCounts.from_columns([97], [-2])
    with pytest.raises(ValueError, match="src and tgt must have the same length, got 1 and 2"):
        EditCounts.from_columns([97], [97, 98])


@pytest.mark.parametrize("side", ["src", "tgt"])
def test_nul_and_the_last_code_point_on_one_side_only(side):
    chars = [0, 0x10FFFF, 97]
    other = [GAP, GAP, 97]
    src, tgt = (chars, other) if side == "src" else (other, chars)
    counts = EditCounts.from_columns(src, tgt)
    assert counts.vocabulary.tolist() == [0, 97, 0x10FFFF]
    assert counts.matrix.sum() == 3
    bad = ([0x110000], [97]) if side == "src" else ([97], [0x110000])
    with pytest.raises(ValueError, match=rf"{side} must hold code points in \[-1, 0x110000\)"):
        EditCounts.from_columns(*bad)


def test_a_wide_alphabet_is_counted_sparse_as_it_would_be_dense(monkeypatch):
    from skocrcost import _counting

    rng = np.random.default_rng(3)
    src = rng.integers(-1, 3000, 20_000)  # more characters than the dense table takes
    tgt = np.where(rng.random(20_000) < 0.7, src, rng.integers(-1, 3000, 20_000))
    tgt[(src == -1) & (tgt == -1)] = 97  # never the gap against the gap
    sparse = EditCounts.from_columns(src, tgt)
    assert (len(sparse.vocabulary) + 1) ** 2 > _counting._DENSE_COUNT_LIMIT
    monkeypatch.setattr(_counting, "_DENSE_COUNT_LIMIT", 1 << 30)
    dense = EditCounts.from_columns(src, tgt)
    assert sparse == dense and sparse.matrix.dtype == dense.matrix.dtype == np.int64
    assert sparse.matrix.sum() == 20_000
    assert sparse.matrix[0].sum() == np.sum(src == -1)  # insertions: the gap's row


def test_the_vocabulary_must_increase_strictly_and_counts_be_non_negative():
    import scipy.sparse as sp

    with pytest.raises(ValueError, match="vocabulary must be strictly increasing code points"):
        EditCounts([97, 97], np.zeros((3, 3), dtype=int))
    explicit_zero = sp.csr_array((np.array([0, 2]), (np.array([1, 1]), np.array([0, 1]))))
    counts = EditCounts([97], explicit_zero)  # a stored zero is a count of 0
    assert counts.matrix.nnz == 1 and counts.most_common(errors_only=False) == [("a", "a", 2)]

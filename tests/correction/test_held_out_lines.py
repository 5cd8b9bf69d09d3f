"""The training lines held out to learn the confidence of changes (and by
OCRCorrectorCV to score its settings) sample all the lines, not only their start."""

import math

import pytest
from conftest import read_pairs, shared_path
from hypothesis import given
from hypothesis import strategies as st

from skocrcost import OCRCorrector
from skocrcost.correction._corrector import spread_blocks


@given(
    size=st.integers(0, 3000),
    n=st.integers(1, 1000),
    block=st.integers(1, 80),
    offset=st.integers(0, 50),
)
def test_spread_blocks_takes_whole_blocks_from_all_over(size, n, block, offset):
    indices = list(range(offset, offset + size))
    chosen = spread_blocks(indices, n, block)
    assert len(chosen) == min(n, size)
    assert chosen == sorted(set(chosen)) and set(chosen) <= set(indices)
    if size <= n:
        return
    # whole blocks: a block is taken from its start, and every chosen block but the
    # last (cut at n) and the input's last (shorter) is taken whole
    starts = sorted({(i - offset) // block for i in chosen})
    for b in starts[:-1]:
        whole = indices[b * block : (b + 1) * block]
        assert set(whole) <= set(chosen)
    assert indices[starts[-1] * block] in chosen
    # spread: the first block, no gap between chosen blocks longer than the even
    # share, and so blocks up to near the input's end
    n_blocks, m = math.ceil(size / block), len(starts)
    gap = math.ceil(n_blocks / m)
    assert starts[0] == 0
    assert all(b - a <= gap for a, b in zip(starts, starts[1:]))
    assert starts[-1] >= n_blocks - gap


def test_spread_blocks_reaches_the_end_of_lines_that_hold_fewer_than_twice_n():
    # 10,000 lines, 6,000 wanted: one block in every one and two thirds, to the end
    chosen = spread_blocks(range(10_000), 6_000, 50)
    assert len(chosen) == 6_000
    assert max(chosen) >= 9_900
    assert sum(i >= 5_000 for i in chosen) >= 2_900


class _Recording(OCRCorrector):
    """An OCRCorrector that keeps the held-out lines its confidence learned from."""

    CONFIDENCE_LINES = 400

    def _confidence_from(self, X_seq, y_seq):
        type(self).held_out = [" ".join(t for t in seq if t) for seq in X_seq]
        return super()._confidence_from(X_seq, y_seq)


class _OtherFold(_Recording):
    CONFIDENCE_FOLD = 1


@pytest.fixture(scope="module")
def held_out():
    """The lines each fold's confidence learned from, fitted on two collections one
    after the other (1,500 lines each), and the first collection's lines."""
    mono, mono_truth = read_pairs(shared_path("icdar2017_engmono", "lines.tsv"))
    news, news_truth = read_pairs(shared_path("bln600", "train.lines.tsv"))
    X, y = mono[:1500] + news[:1500], mono_truth[:1500] + news_truth[:1500]
    _Recording().fit(X, y)
    _OtherFold().fit(X, y)
    first = {" ".join(line.split()) for line in mono[:1500]}
    return X, {0: _Recording.held_out, 1: _OtherFold.held_out}, first


def test_the_confidence_learns_from_every_collection_of_the_training_lines(held_out):
    # Of the 600 lines held out (every fifth block of 50), the confidence takes 400,
    # half from each collection, not the first 400.
    _, held, first = held_out
    assert len(held[0]) == 400
    assert 150 <= sum(line in first for line in held[0]) <= 250


def test_another_fold_holds_out_other_blocks_spread_as_far(held_out):
    X, held, first = held_out
    assert len(held[1]) == 400
    assert not set(held[0]) & set(held[1])
    assert 150 <= sum(line in first for line in held[1]) <= 250
    # the blocks just before the default fold's: the fourth of every five blocks of 50
    block = [i for i, line in enumerate(X) if " ".join(line.split()) == held[1][0]]
    assert block and block[0] // 50 % 5 == 3

"""A long correction keeps the garbage collector off the objects it finds
(skocrcost._gc), and leaves the collector as it found it."""

import gc

import pytest

from skocrcost import _gc
from skocrcost._gc import existing_objects_frozen
from skocrcost.correction._decoder import NoisyChannelDecoder
from skocrcost.datasets import load_icdar2017_sample, pretrained_corrector


@pytest.fixture(scope="module")
def fixer():
    return pretrained_corrector()


@pytest.fixture(scope="module")
def lines():
    return load_icdar2017_sample("lines")[0][: _gc.MIN_LINES]


@pytest.fixture
def frozen_while_decoding(monkeypatch):
    """The freeze count each decoder call saw."""
    seen = []
    decode = NoisyChannelDecoder.correct_lines
    count = gc.get_freeze_count  # (a test may refuse it to the code under test)

    def spy(self, *args, **kwargs):
        seen.append(count())
        return decode(self, *args, **kwargs)

    monkeypatch.setattr(NoisyChannelDecoder, "correct_lines", spy)
    return seen


def test_a_long_correction_freezes_what_was_there_and_unfreezes_it(
    fixer, lines, frozen_while_decoding
):
    gc.collect()
    assert gc.get_freeze_count() == 0
    before = len(gc.get_objects())
    out = fixer.predict(lines)
    # Every object there before the call was set aside while it ran ...
    assert len(frozen_while_decoding) == 1 and frozen_while_decoding[0] >= before
    # ... and is the collector's again after it, with what the call made.
    assert gc.get_freeze_count() == 0
    assert list(out) == list(fixer.predict(lines))
    assert not _gc._holding


def test_a_short_call_leaves_the_collector_alone(fixer, lines, frozen_while_decoding):
    gc.collect()
    fixer.correct("\n".join(lines[: _gc.MIN_LINES - 1]))
    fixer.correct(lines[0])
    assert frozen_while_decoding == [0, 0]


def test_a_freeze_of_the_callers_own_is_left_alone(
    fixer, lines, frozen_while_decoding, monkeypatch
):
    monkeypatch.setattr(_gc, "_foreign", False)  # (this test's process: as found after it)
    gc.collect()
    gc.freeze()
    try:
        held = gc.get_freeze_count()
        fixer.predict(lines)
        # Not unfrozen by the call (frozen objects that die leave the count) ...
        assert gc.get_freeze_count() > held // 2
        # ... nor frozen further: the objects made since the caller's freeze are not.
        assert len(frozen_while_decoding) == 1 and frozen_while_decoding[0] <= held
        # Found once, the caller's freeze is not looked for again (a walk of it).
        assert _gc._foreign
        monkeypatch.setattr(gc, "get_freeze_count", _refuse)
        fixer.predict(lines)
        assert held // 2 < frozen_while_decoding[1] <= held
    finally:
        gc.unfreeze()


def _refuse():
    raise AssertionError("the frozen objects were counted again")


def test_a_disabled_collector_stays_disabled_and_unfrozen(fixer, lines, frozen_while_decoding):
    gc.disable()
    try:
        fixer.predict(lines)
        assert not gc.isenabled()
        assert frozen_while_decoding == [0]
    finally:
        gc.enable()


def test_nested_blocks_freeze_once_and_an_error_unfreezes():
    gc.collect()
    with pytest.raises(RuntimeError):
        with existing_objects_frozen(_gc.MIN_LINES):
            frozen = gc.get_freeze_count()
            assert frozen > 0
            with existing_objects_frozen(_gc.MIN_LINES):  # (a predict inside fit_confidence)
                [object() for _ in range(10)]
                assert gc.get_freeze_count() == frozen
            assert gc.get_freeze_count() == frozen
            raise RuntimeError("in the block")
    assert gc.get_freeze_count() == 0
    assert not _gc._holding
    assert _gc._set_survivors_aside not in gc.callbacks


def test_a_full_collection_in_the_block_sets_its_survivors_aside():
    """A long call keeps making objects (its lines' tokens, the layout, the caches):
    each full collection's survivors are set aside, so that the next one walks only
    what was made since, not everything the call made."""
    gc.collect()
    callbacks = list(gc.callbacks)
    with existing_objects_frozen(_gc.MIN_LINES):
        frozen = gc.get_freeze_count()
        kept = [[i] for i in range(10_000)]  # containers the call keeps (tracked)
        gc.collect(1)  # (a younger generation's collection: nothing set aside)
        assert gc.get_freeze_count() == frozen
        gc.collect()
        assert gc.get_freeze_count() >= frozen + len(kept)
        more = [[i] for i in range(5_000)]
        gc.collect()
        assert gc.get_freeze_count() >= frozen + len(kept) + len(more)
    # All of it the collector's again after the block, which leaves no callback.
    assert gc.get_freeze_count() == 0
    assert gc.callbacks == callbacks


def test_what_the_caches_keep_leaves_the_collector_little_to_walk():
    # A loop of one correct() call per line gets no freeze (the calls are short), so
    # every container its caches keep is walked by each full collection, and enough of
    # them set one off: kept as tuples of strings, numbers and arrays, the collector
    # stops tracking them.  Counted: only the reading sets (one per new word) remain.
    fixer = pretrained_corrector()  # (its own: fresh caches)
    lines = load_icdar2017_sample("lines")[0][:300]
    gc.collect()
    before = {id(o) for o in gc.get_objects()}
    for line in lines:
        fixer.correct(line)
    gc.collect()
    gc.collect()  # (a tuple holding one the last pass untracked is untracked by the next)
    kept = [o for o in gc.get_objects() if id(o) not in before]
    decoder = fixer._decoder()
    n_sets = len(decoder._readings_cache)
    assert n_sets > 500  # the first pass met many new words
    assert len(kept) < n_sets + 200
    tables = (decoder._cache, decoder._slots_cache, fixer._caches_["layout"].token_steps)
    assert all(not gc.is_tracked(v) for table in tables for v in table.values())

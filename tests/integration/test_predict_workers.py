"""``OCRCorrector.predict`` and ``correct`` with ``n_jobs`` > 1 on a long text: its
lines shared among worker processes, the output byte for byte that of one process.

What the decoder and the review count over the whole text (each word's
recurrences, each core's count, the unknown words around each line) is counted
once by the caller and handed to the processes with their lines: a batch read
alone would count them in itself, and read many lines otherwise (checked below:
a batch read alone differs).
"""

import gc
import multiprocessing
import os
import signal
import threading

import numpy as np
import pytest
from conftest import read_pairs, shared_path

from skocrcost import _workers as workers
from skocrcost.correction._decoder import NoisyChannelDecoder
from skocrcost.correction._layout import Layout
from skocrcost.datasets import pretrained_corrector

BATCH = 100  # lines per batch here (BATCH_LINES): 1,200 lines make 12 batches


@pytest.fixture(scope="module")
def lines():
    """1,200 consecutive lines of the ICDAR 2017 periodicals' OCR: a real text whose
    recurrences and noise decide some changes."""
    X, _ = read_pairs(shared_path("icdar2017_engper", "train.lines.tsv"), limit=1200)
    return X


_SEARCHED = []  # the words whose candidates this process searched (when spied on)


def _tagged(corrector, job, shared):
    """A worker's task, with the id of the process that ran it and the words whose
    candidates it searched."""
    task, shared = shared
    _SEARCHED.clear()
    return task(corrector, job, shared), os.getpid(), list(_SEARCHED)


@pytest.fixture
def spy(monkeypatch):
    """The processes that ran batches: ``spy.calls`` the workers of each call of
    ``in_processes``, ``spy.pids`` the processes' ids, ``spy.searched`` the words
    they searched the candidates of (where a test spies on
    ``NoisyChannelDecoder.candidates``)."""

    class Spy:
        calls, pids, searched = [], set(), []

    real = workers.in_processes

    def spied(task, corrector, jobs, n_workers, shared=None):
        Spy.calls.append(n_workers)
        for (out, pid, searched), extra in real(
            _tagged, corrector, jobs, n_workers, (task, shared)
        ):
            Spy.pids.add(pid)
            Spy.searched += searched
            yield out, extra

    monkeypatch.setattr(workers, "in_processes", spied)
    monkeypatch.setattr(workers, "BATCH_LINES", BATCH)
    return Spy


def corrected(lines, n_jobs):
    """A fresh shipped corrector's ``predict(lines)`` and ``correct`` of their text
    with the changes, with ``n_jobs``."""
    corrector = pretrained_corrector().set_params(n_jobs=n_jobs)
    predicted = corrector.predict(lines).tolist()
    text, changes = corrector.correct("\n".join(lines), return_confidence=True)
    return predicted, text, changes


def test_processes_write_what_one_process_writes(lines, spy):
    one = corrected(lines, 1)
    assert spy.calls == []
    two = corrected(lines, 2)
    assert spy.calls == [2, 2]  # predict, then correct
    assert spy.pids and os.getpid() not in spy.pids
    assert two[0] == one[0]
    assert two[1] == one[1]
    assert two[2] == one[2]  # every change, its line, confidence and whether it was made
    assert two[1] == "\n".join(two[0])
    assert sum(a != b for a, b in zip(lines, one[0], strict=True)) > 50  # it corrects (91 lines)
    assert sum(not c.applied for c in one[2]) > 100  # and holds changes back


def test_the_words_a_text_repeats_are_searched_once_before_the_processes_start(
    lines, spy, monkeypatch
):
    """Every process meets the words the text repeats: forked, they start with
    the candidates the caller searched for them, and search only the others."""
    if not workers.forks():
        pytest.skip("processes are not forked here")
    real = NoisyChannelDecoder.candidates

    def search(decoder, observed):  # each process's _SEARCHED gets the words it searches
        _SEARCHED.extend(o for o in dict.fromkeys(observed) if o not in decoder._cache)
        return real(decoder, observed)

    monkeypatch.setattr(NoisyChannelDecoder, "candidates", search)
    corrector = pretrained_corrector().set_params(n_jobs=2)
    _SEARCHED.clear()
    got = corrector.predict(lines)
    counts = corrector._decoder().word_counts([line.split() for line in lines])
    repeated = {w for w, n in counts.items() if n > 1}
    assert spy.calls == [2]
    assert len(repeated) > 1000 and spy.searched  # (the processes searched the others)
    # by the caller, or by fit (the most frequent words of the training truth)
    found_at_fit = set(corrector._word_candidates_[1])
    assert repeated - found_at_fit and repeated <= set(_SEARCHED) | found_at_fit
    assert not repeated & set(spy.searched)
    want = pretrained_corrector().set_params(n_jobs=1).predict(lines)
    np.testing.assert_array_equal(got, want)


def test_the_text_word_counts_are_those_of_its_tokens_as_corrected(lines):
    """The caller counts each distinct token once, rewritten (closed up): the same
    counts, in the same order, as the words of every token rewritten, and read
    from lines split one at a time."""
    decoder = pretrained_corrector()._decoder()
    sequences = [line.split() for line in lines]
    rewritten = decoder._rewritten_all(sequences)
    assert rewritten != sequences  # (the rewriting changes some tokens here)
    want = decoder._counted(rewritten)
    got = decoder.word_counts(map(str.split, lines))
    assert got == want and list(got) == list(want)


def test_a_batch_lists_the_words_it_would_count(lines):
    """A batch given the text's counts lists its looked-up words without counting
    them: the keys of its own counts, in the same order; and its tokens rewritten
    again, from the kept rewritings, come out as the first time."""
    decoder = pretrained_corrector()._decoder()
    for a in range(0, len(lines), BATCH):
        sequences = [line.split() for line in lines[a : a + BATCH]]
        first = decoder._rewritten_all(sequences)
        again = decoder._rewritten_all(sequences)
        assert again == first == [[decoder._rewritten(t) for t in s] for s in sequences]
        assert decoder._looked_up(first) == list(decoder._counted(first))


def test_changes_unreviewed_are_listed_as_by_one_process(lines, spy):
    """``min_confidence=None``: every change made and listed, with a NaN confidence."""
    text = "\n".join(lines[:600])
    runs = [
        pretrained_corrector()
        .set_params(n_jobs=n_jobs, min_confidence=None)
        .correct(text, return_confidence=True)
        for n_jobs in (1, 2)
    ]
    assert spy.calls == [2]
    (want, want_changes), (got, got_changes) = runs
    assert got == want
    assert [c._replace(confidence=0) for c in got_changes] == [
        c._replace(confidence=0) for c in want_changes
    ]
    assert want_changes and all(c.applied and np.isnan(c.confidence) for c in got_changes)


def test_spawned_processes_write_what_one_process_writes(lines, spy, monkeypatch):
    """Where processes cannot be forked they are spawned: each imports the package and
    unpickles the corrector (its caches left out)."""
    monkeypatch.setattr(workers, "forks", lambda: False)
    want = pretrained_corrector().set_params(n_jobs=1).predict(lines[:500])
    got = pretrained_corrector().set_params(n_jobs=2).predict(lines[:500])
    assert spy.calls == [2]
    assert spy.pids and os.getpid() not in spy.pids
    np.testing.assert_array_equal(got, want)


def test_texts_of_several_lines_come_back_whole(lines, spy):
    """Each item of X may be a text of several lines: all their lines are read as one
    text, shared among the processes whatever text they belong to."""
    texts = ["\n".join(lines[i : i + 7]) for i in range(0, 700, 7)]
    want = pretrained_corrector().set_params(n_jobs=1).predict(texts)
    got = pretrained_corrector().set_params(n_jobs=2).predict(texts)
    assert spy.calls == [2]
    np.testing.assert_array_equal(got, want)


def test_a_batch_read_alone_is_read_otherwise(lines, monkeypatch):
    """The facts handed to the processes matter: a batch that counted them in itself
    would change the output (so the test above can fail)."""
    monkeypatch.setattr(workers, "BATCH_LINES", BATCH)

    def alone(corrector, batch):
        record = []
        review = corrector._review(record)
        return corrector._decoder().correct_lines(batch, review=review), record

    corrector = pretrained_corrector().set_params(n_jobs=1)
    changes = []
    whole = corrector._correct_lines(lines, changes)
    parts = [alone(corrector, lines[a : a + BATCH]) for a in range(0, len(lines), BATCH)]
    assert [line for fixed, _ in parts for line in fixed] != whole
    confidences = [c.confidence for _, record in parts for c in record]
    assert confidences != [c.confidence for c in changes]


def test_no_more_processes_start_than_there_are_batches(lines, spy):
    got = pretrained_corrector().set_params(n_jobs=50).predict(lines[: 4 * BATCH + 1])
    assert spy.calls == [5]
    want = pretrained_corrector().set_params(n_jobs=1).predict(lines[: 4 * BATCH + 1])
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("n_lines", [0, 1, 4 * BATCH - 1])
def test_a_short_text_starts_no_process(lines, spy, n_lines):
    corrector = pretrained_corrector().set_params(n_jobs=2)
    got = corrector.predict(lines[:n_lines])
    assert spy.calls == []
    want = pretrained_corrector().set_params(n_jobs=1).predict(lines[:n_lines])
    np.testing.assert_array_equal(got, want)


def test_bad_input_is_refused_as_with_one_process(lines, spy):
    for n_jobs in (1, 2):
        corrector = pretrained_corrector().set_params(n_jobs=n_jobs)
        with pytest.raises(TypeError, match=r"X\[500\]"):
            corrector.predict([*lines[:500], 5, *lines[500:]])
        with pytest.raises(ValueError, match="lm_weight"):
            corrector.set_params(decoder__lm_weight=-1.0).predict(lines)
        with pytest.raises(ValueError, match="n_jobs"):
            corrector.set_params(decoder__lm_weight=1.0, n_jobs=0).predict(lines)
    assert spy.calls == []


class _Plain:
    def set_params(self, **params):
        return self


def _fails(corrector, job, shared):
    raise ValueError(f"{job} {shared}")


def test_a_process_started_alone_gives_its_error_to_the_caller_and_ends():
    result = workers.started(_fails, _Plain(), "no", "luck")
    with pytest.raises(ValueError, match="no luck") as raised:
        result()
    assert "_fails" in str(raised.value.__cause__)  # where, in the process
    assert not multiprocessing.active_children()  # before predict forks its workers


def _joined(corrector, job, shared):
    return f"{job} {shared}", os.getpid()


@pytest.mark.parametrize("forked", [True, False])
def test_a_process_started_alone_gets_its_job_from_no_thread_of_the_caller(monkeypatch, forked):
    """The job goes with the process as it starts: no thread of the caller (which
    would run only when the caller lets go of the GIL) has to hand it over."""
    if forked and "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork here")
    monkeypatch.setattr(workers, "forks", lambda: forked)
    before = set(threading.enumerate())
    result = workers.started(_joined, _Plain(), "one", "job")
    assert set(threading.enumerate()) <= before
    out, pid = result()
    assert out == "one job" and pid != os.getpid()
    assert not multiprocessing.active_children()


def _never_ends(corrector, job, shared):
    threading.Event().wait()


def _killed(corrector, job, shared):
    os.kill(os.getpid(), signal.SIGKILL)


def test_a_process_started_alone_ends_when_its_result_is_dropped():
    result = workers.started(_never_ends, _Plain(), None)
    (process,) = multiprocessing.active_children()
    del result
    gc.collect()
    assert not process.is_alive()
    assert not multiprocessing.active_children()


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="no SIGKILL here")
def test_a_process_started_alone_that_is_killed_is_an_error_for_the_caller():
    result = workers.started(_killed, _Plain(), None)
    with pytest.raises(RuntimeError, match=r"_killed ended without a result \(exit code -9\)"):
        result()
    assert not multiprocessing.active_children()


def _may_start(queue):
    queue.put(workers.may_start())


def test_a_daemonic_process_starts_no_process():
    """A ``multiprocessing.Pool`` worker (daemonic) may have no children: there
    ``predict`` keeps to its threads."""
    assert workers.may_start()
    context = multiprocessing.get_context()
    queue = context.Queue()
    process = context.Process(target=_may_start, args=(queue,), daemon=True)
    process.start()
    assert queue.get(timeout=60) is False
    process.join()


def _laid_out(layout, queue):
    queue.put((layout.lock.locked(), layout.vocabulary))


@pytest.mark.skipif(not workers.forks(), reason="no fork here")
def test_a_layout_being_written_when_the_process_forks_is_laid_out_afresh_in_the_child():
    """A thread sharing the corrector may be laying out lines (the layout's lock
    held) when predict forks its workers: the child, without that thread, must not
    wait for the lock nor read the half-written tables."""
    layout = Layout()
    layout.vocabulary = {}
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    with layout.lock:  # as the other thread would hold it
        process = context.Process(target=_laid_out, args=(layout, queue))
        process.start()
        got = queue.get(timeout=60)
    process.join()
    assert got == (False, None)
    assert layout.vocabulary == {}  # the parent's is left as it is

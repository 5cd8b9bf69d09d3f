"""``skocrcost correct --n-jobs N``: a text's batches shared among processes, in order."""

import os

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from skocrcost import OCRCorrector, cli
from skocrcost import _workers as workers
from skocrcost.datasets import load_icdar2017_sample


class Shouting:
    """A corrector that upper-cases each line, and says which process did."""

    def __init__(self):
        self.n_jobs = None

    def set_params(self, n_jobs):
        self.n_jobs = n_jobs
        return self

    def predict(self, lines):
        return np.array([f"{line.upper()} {os.getpid()} {self.n_jobs}" for line in lines])


def test_batches_come_back_in_order_from_one_thread_processes(process_calls):
    batches = [([f"line {i}", f"more {i}"], i) for i in range(9)]
    out = list(workers.corrected(Shouting(), batches, workers=2))
    assert process_calls == [2]
    assert [extra for _, extra in out] == list(range(9))
    for i, (lines, _) in enumerate(out):
        assert [line.split()[:2] for line in lines] == [["LINE", str(i)], ["MORE", str(i)]]
        assert {line.split()[3] for line in lines} == {"1"}  # one thread each
    pids = {line.split()[2] for lines, _ in out for line in lines}
    assert str(os.getpid()) not in pids


@pytest.mark.parametrize("n_batches", [0, 1, workers.MIN_BATCHES - 1])
def test_a_short_text_starts_no_process(process_calls, n_batches):
    batches = [([f"line {i}"], i) for i in range(n_batches)]
    out = list(workers.corrected(Shouting(), batches, workers=2))
    assert process_calls == []
    assert [extra for _, extra in out] == list(range(n_batches))
    assert all(line.split()[2] == str(os.getpid()) for lines, _ in out for line in lines)


def test_an_error_in_a_process_reaches_the_caller():
    batches = [(["tbe c0w"], i) for i in range(workers.MIN_BATCHES)]
    with pytest.raises(NotFittedError):
        list(workers.corrected(OCRCorrector(), batches, workers=2))


def test_processes_write_what_one_process_writes(tmp_path, monkeypatch, capsys, process_calls):
    """The shipped corrector over 1,200 sample lines in batches of 100: every batch is
    one predict call wherever it runs, so the output is byte for byte the same."""
    X, _ = load_icdar2017_sample("lines")
    page = tmp_path / "page.txt"
    page.write_text("\n".join(X[:1200]) + "\n", encoding="utf-8")
    monkeypatch.setattr(workers, "BATCH_LINES", 100)
    outputs = {}
    for n_jobs in ("1", "2"):
        assert cli.main(["correct", str(page), "-q", "--n-jobs", n_jobs]) == 0
        outputs[n_jobs] = capsys.readouterr().out
    assert process_calls == [2]
    assert outputs["1"] == outputs["2"]
    assert outputs["1"] != page.read_text(encoding="utf-8")  # it did correct something

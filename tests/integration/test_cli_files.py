"""``skocrcost correct FILE... --output-dir DIR``: each file corrected as it is alone."""

import os
import sys
from pathlib import Path

import pytest

from skocrcost import _workers as workers
from skocrcost import cli
from skocrcost.datasets import load_icdar2017_sample

OCR = Path(__file__).resolve().parents[1] / "data" / "ocr"


@pytest.fixture
def pages(tmp_path):
    """Two text pages of sample lines (one of several batches) and an ALTO page."""
    X, _ = load_icdar2017_sample("lines")
    folder = tmp_path / "in"
    folder.mkdir()
    texts = {"a.txt": "\n".join(X[:30]) + "\n", "b.txt": "\n".join(X[30:75])}
    for name, text in texts.items():
        (folder / name).write_text(text, encoding="utf-8")
    (folder / "c.xml").write_bytes((OCR / "alto-v4.xml").read_bytes())
    return sorted(folder.iterdir())


def alone(path, capsysbinary):
    """What ``skocrcost correct FILE`` writes to stdout for ``path``."""
    assert cli.main(["correct", str(path), "-q"]) == 0
    return capsysbinary.readouterr().out


@pytest.mark.parametrize("n_jobs", ["1", "2"])
def test_each_file_gets_what_the_command_writes_for_it_alone(
    pages, tmp_path, monkeypatch, capsysbinary, process_calls, n_jobs
):
    monkeypatch.setattr(workers, "BATCH_LINES", 20)  # a.txt and b.txt: several batches
    want = {p.name: alone(p, capsysbinary) for p in pages}
    out = tmp_path / "out" / "deeper"  # made, parents too
    args = ["correct", *map(str, pages), "-o", str(out), "-q", "--n-jobs", n_jobs]
    assert cli.main(args) == 0
    assert capsysbinary.readouterr().out == b""  # nothing on stdout
    assert sorted(os.listdir(out)) == sorted(want)  # no partial files left
    for name, data in want.items():
        assert (out / name).read_bytes() == data
    assert want["c.xml"].startswith(b"<?xml") and b"tbe" not in want["a.txt"].lower()
    assert process_calls == ([] if n_jobs == "1" else [2])  # the files shared, a file per process


def test_one_file_into_a_directory_shares_its_batches(pages, tmp_path, monkeypatch, process_calls):
    """One large file with --output-dir: its batches go to processes, as on stdout."""
    monkeypatch.setattr(workers, "BATCH_LINES", 5)
    out = tmp_path / "out"
    assert cli.main(["correct", str(pages[0]), "-o", str(out), "-q", "--n-jobs", "2"]) == 0
    assert process_calls == [2]
    assert cli.main(["correct", str(pages[0]), "-o", str(tmp_path / "one"), "-q"]) == 0
    assert (out / "a.txt").read_bytes() == (tmp_path / "one" / "a.txt").read_bytes()


def test_progress_counts_files(pages, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "tqdm", None)  # the stdlib line
    assert cli.main(["correct", *map(str, pages), "-o", str(tmp_path / "out")]) == 0
    assert capsys.readouterr().err.endswith("correcting: 3/3\n")


@pytest.mark.parametrize("n_jobs", ["1", "2"])
def test_a_file_that_fails_leaves_no_partial_output(pages, tmp_path, capsys, n_jobs):
    bad = pages[0].parent / "bad.txt"
    bad.write_bytes(b"tbe c0w\ncaf\xe9\n")
    out = tmp_path / "out"
    args = ["correct", str(pages[0]), str(bad), "-o", str(out), "-q", "--n-jobs", n_jobs]
    assert cli.main(args) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"skocrcost: error: {bad} is not UTF-8 text: line 2: ")
    assert os.listdir(out) == ["a.txt"]  # the file before it written whole, none of it


def refused(args, capsys):
    """The error message of a ``correct`` command that must fail before correcting."""
    assert cli.main(["correct", *args]) == 1
    err = capsys.readouterr().err
    assert err.startswith("skocrcost: error: ") and "Traceback" not in err
    return err


def test_where_files_go_is_checked_before_anything_is_written(pages, tmp_path, capsys):
    a, b, c = map(str, pages)
    out = str(tmp_path / "out")
    assert "needs --output-dir" in refused([a, b], capsys)
    assert "stdin ('-') has none" in refused([a, "-", "-o", out], capsys)
    assert f"FILE {tmp_path / 'none.txt'} is not a file" in refused(
        [a, str(tmp_path / "none.txt"), "-o", out], capsys
    )
    twin = tmp_path / "other" / "a.txt"
    twin.parent.mkdir()
    twin.write_text("tbe c0w\n", encoding="utf-8")
    assert "would both be written to" in refused([a, str(twin), "-o", out], capsys)
    assert "it would be overwritten" in refused([a, b, "-o", str(pages[0].parent)], capsys)
    assert "is not a directory" in refused([a, "-o", c], capsys)
    assert not (tmp_path / "out").exists()

"""``skocrcost correct`` streams text: one batch of lines in memory, a bar of bytes read."""

import io
import sys

import numpy as np
import pytest

from skocrcost import _workers as workers
from skocrcost import cli

ALTO = b'<alto xmlns="http://www.loc.gov/standards/alto/ns-v4#"/>'


class Recorder:
    """A corrector that upper-cases each line and keeps the batches it was given."""

    def __init__(self):
        self.batches = []

    def predict(self, lines):
        self.batches.append(list(lines))
        return np.array([line.upper() for line in lines], dtype=object)


def whole_text_output(text, size):
    """What ``correct`` wrote when it read the whole text: its lines split at "\\n",
    corrected in batches of ``size``, joined again."""
    lines = text.split("\n")
    parts = [lines[start : start + size] for start in range(0, len(lines), size)]
    return "\n".join(line.upper() for line in lines), parts


TEXTS = {
    "empty": "",
    "one line end": "\n",
    "one line": "tbe c0w",
    "one line and its end": "tbe c0w\n",
    "blank lines": "\n\n a\n\n\n",
    "CR LF and a lone CR kept": "a\r\nb\rc\r\n",
    "byte order mark kept": "\ufefftbe\n",
    "batch of lines ending in a line end": "a\nb\nc\n",
    "batch of lines without": "a\nb\nc",
    "several batches": "".join(f"line {i} é\n" for i in range(10)),
    "several batches without a final line end": "\n".join(f"é{i}" for i in range(10)),
}


@pytest.mark.parametrize("text", TEXTS.values(), ids=TEXTS)
@pytest.mark.parametrize("how", ["file", "stdin", "format text", "small head"])
def test_output_is_what_reading_the_whole_text_gave(tmp_path, monkeypatch, capsysbinary, text, how):
    recorder = Recorder()
    monkeypatch.setattr(cli, "_corrector_for", lambda args: recorder)
    monkeypatch.setattr(workers, "BATCH_LINES", 3)
    data = text.encode("utf-8")
    (tmp_path / "page.txt").write_bytes(data)
    argv = ["correct", str(tmp_path / "page.txt"), "-q"]
    if how == "stdin":
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
        argv[1] = "-"
    elif how == "format text":
        argv += ["--format", "text"]
    elif how == "small head":  # é split between the first bytes read and the rest
        monkeypatch.setattr(cli, "HEAD_BYTES", 1)
    assert cli.main(argv) == 0
    expected, batches = whole_text_output(text, 3)
    assert capsysbinary.readouterr().out == expected.encode("utf-8")
    assert recorder.batches == batches


def test_text_is_read_one_batch_at_a_time(monkeypatch, capsys):
    read = 0

    def source():  # a text of 3 batches and a bit, counting the lines taken from it
        nonlocal read
        for i in range(3 * 4 + 2):
            read += 1
            yield f"tbe line {i}\n".encode()

    corrected = 0

    class Streaming(Recorder):
        def predict(self, lines):
            nonlocal corrected
            # Nothing read beyond this batch; nothing of it read before the last one's end.
            assert read - corrected <= len(lines)
            corrected += len(lines)
            return super().predict(lines)

    corrector = Streaming()
    monkeypatch.setattr(workers, "BATCH_LINES", 4)
    cli._correct_text(corrector, source(), "<test>", None, True, 1, sys.stdout.write)
    assert [len(b) for b in corrector.batches] == [4, 4, 4, 3]  # and the empty last line
    assert capsys.readouterr().out == "".join(f"TBE LINE {i}\n" for i in range(14))


def test_not_utf8_names_the_file_and_the_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(cli, "_corrector_for", lambda args: Recorder())
    page = tmp_path / "page.txt"
    page.write_bytes("tbe\nc0w é\n".encode() + b"caf\xe9\n")
    assert cli.main(["correct", str(page), "-q"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"skocrcost: error: {page} is not UTF-8 text: line 3: ")
    assert "can't decode byte 0xe9" in err and "Traceback" not in err
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"\xff")))
    assert cli.main(["correct", "-", "--format", "text"]) == 1
    assert "<stdin> is not UTF-8 text: line 1: " in capsys.readouterr().err


def test_progress_counts_bytes_and_shows_for_more_than_one_batch(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(cli, "_corrector_for", lambda args: Recorder())
    monkeypatch.setattr(workers, "BATCH_LINES", 2)
    monkeypatch.setitem(sys.modules, "tqdm", None)  # the stdlib line: its text is known
    data = b"tbe\nc0w\nin\nCambridgo\n"
    page = tmp_path / "page.txt"
    page.write_bytes(data)
    assert cli.main(["correct", str(page)]) == 0
    out, err = capsys.readouterr()
    assert out == data.decode().upper()  # the bar is on stderr only
    assert err.endswith(f"correcting: {len(data)}/{len(data)} bytes\n")
    # From stdin (a pipe) the size is not known: bytes read, no total.
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert cli.main(["correct", "-"]) == 0
    err = capsys.readouterr().err
    assert err.endswith(f"correcting: {len(data)} bytes\n") and "/" not in err
    # No bar for one batch, nor with --quiet.
    page.write_bytes(b"tbe\n")
    assert cli.main(["correct", str(page)]) == 0
    assert capsys.readouterr().err == ""
    page.write_bytes(data)
    assert cli.main(["correct", str(page), "-q"]) == 0
    assert capsys.readouterr().err == ""


def test_progress_with_tqdm_goes_to_stderr(tmp_path, monkeypatch, capsys):
    pytest.importorskip("tqdm")
    monkeypatch.setattr(cli, "_corrector_for", lambda args: Recorder())
    monkeypatch.setattr(workers, "BATCH_LINES", 1)
    (tmp_path / "page.txt").write_bytes(b"tbe\nc0w\n")
    assert cli.main(["correct", str(tmp_path / "page.txt")]) == 0
    out, err = capsys.readouterr()
    assert out == "TBE\nC0W\n" and "correcting" in err


@pytest.mark.parametrize("blank", [b"", b"\n", b"\xef\xbb\xbf" + b" \t\r\n" * 5])
def test_xml_is_told_by_its_first_bytes_and_read_whole(monkeypatch, blank):
    monkeypatch.setattr(cli, "HEAD_BYTES", 4)  # the blank start is longer than a read
    assert cli._read_input("auto", io.BytesIO(blank + ALTO)) == (None, (blank + ALTO, "alto"))
    text = blank + b"tbe <c0w>\n" * 100
    f = io.BytesIO(text)
    head, document = cli._read_input("auto", f)
    assert document is None and len(head) < len(text)  # text is not read whole
    assert b"".join(cli._byte_lines(head, f)) == text
    # A named format: read whole, no detection; text: nothing read ahead.
    assert cli._read_input("page", io.BytesIO(ALTO)) == (None, (ALTO, "page"))
    assert cli._read_input("text", io.BytesIO(ALTO)) == (b"", None)

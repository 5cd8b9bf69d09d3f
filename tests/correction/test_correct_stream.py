"""OCRCorrector.correct_stream: an iterable of lines corrected lazily, a batch at a time,
each batch as one ``predict`` call corrects it, with one process or several."""

import pytest

from skocrcost.datasets import pretrained_corrector


@pytest.fixture(scope="module")
def corrector():
    return pretrained_corrector()


@pytest.fixture(scope="module")
def lines(icdar_lines):
    return icdar_lines[0][:1100]


def batch_by_batch(corrector, lines, size):
    batches = (lines[s : s + size] for s in range(0, len(lines), size))
    return [fixed for batch in batches for fixed in corrector.predict(batch)]


@pytest.mark.parametrize("size", [1, 300, 500, 5000])
def test_each_batch_is_corrected_as_one_predict_call(corrector, lines, size):
    part = lines if size > 1 else lines[:40]  # (a batch of one line: a call per line)
    out = list(corrector.correct_stream(iter(part), batch_size=size))
    assert out == batch_by_batch(corrector, part, size)
    assert out != part  # (it corrects: the equality says something)


def test_the_default_batch_is_the_commands(corrector, lines):
    assert list(corrector.correct_stream(lines)) == batch_by_batch(corrector, lines, 500)


def test_lines_are_read_a_batch_at_a_time(corrector, lines):
    pulled = []

    def source():
        for line in lines:
            pulled.append(line)
            yield line

    stream = corrector.correct_stream(source(), batch_size=10)
    assert not pulled  # nothing read before the first line is asked for
    first = [next(stream) for _ in range(10)]
    assert len(pulled) == 10  # a batch read, corrected and yielded before the next
    next(stream)
    assert len(pulled) == 20
    assert first == corrector.predict(lines[:10]).tolist()


def test_line_ends_are_kept(corrector):
    text = ["tbe Church of Englaud\n", "and the Queen\n", "a"]
    out = list(corrector.correct_stream(text))
    assert out == corrector.predict(text).tolist()
    assert out == ["the Church of England\n", "and the Queen\n", "a"]


def test_several_processes_give_the_output_of_one(lines, process_calls):
    one = list(pretrained_corrector().correct_stream(lines, batch_size=200))
    assert process_calls == []
    shared = pretrained_corrector().set_params(n_jobs=2)
    assert list(shared.correct_stream(lines, batch_size=200)) == one  # 6 batches
    assert process_calls == [2]


def test_a_stream_left_early_leaves_no_process(lines, process_calls):
    import multiprocessing

    stream = pretrained_corrector().set_params(n_jobs=2).correct_stream(lines, batch_size=200)
    assert next(stream) == pretrained_corrector().predict(lines[:200])[0]
    stream.close()  # (as a loop left by break, or the stream dropped)
    assert process_calls == [2] and multiprocessing.active_children() == []

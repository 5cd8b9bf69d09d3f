"""A corrector's work shared among worker processes, in order (``skocrcost correct``,
``OCRCorrector.predict``).

Threads share only the compiled parts of a correction (the candidate search, the
beam); about half of its time is Python, which one process runs on one core.
Processes divide all of it: each holds its own copy of the corrector, made once
when it starts and kept, so that its caches serve all its batches.
"""

import collections
import itertools
import multiprocessing
import traceback
import weakref
from concurrent.futures import ProcessPoolExecutor

# Lines of a text per batch (one predict call, in the command and in a process of
# OCRCorrector.predict): the memory held is that of a handful of batches, and the
# command's progress bar moves once per batch.
BATCH_LINES = 500
# Processes start only for a text of at least this many batches (a second of work):
# where they cannot be forked, starting one costs a second and a half (the imports).
MIN_BATCHES = 4
# Batches sent ahead per process: enough to keep each busy while the parent writes,
# few enough that memory holds a handful of batches.
AHEAD = 2

_corrector = None  # a worker process's corrector
_shared = None  # and what its tasks share (in_processes)


def corrected(corrector, batches, workers=1):
    """``(corrector.predict(batch) as a list, extra)`` for each ``(batch, extra)`` of
    ``batches``, in order.

    ``workers`` > 1: for a text of at least ``MIN_BATCHES`` batches, as many
    processes share them.  Each batch is one ``predict`` call wherever it runs,
    so the output is the same for any ``workers``.
    """
    batches = iter(batches)
    if workers > 1 and may_start():
        head = list(itertools.islice(batches, MIN_BATCHES))
        if len(head) == MIN_BATCHES:
            yield from in_processes(_predict, corrector, itertools.chain(head, batches), workers)
            return
        batches = iter(head)
    for batch, extra in batches:
        yield corrector.predict(batch).tolist(), extra


def forks():
    """Whether worker processes are forked here (they start at once, with the
    caller's memory), rather than spawned (they import the package)."""
    return "fork" in multiprocessing.get_all_start_methods()


def may_start():
    """Whether this process may start worker processes (a daemonic one, such as a
    ``multiprocessing.Pool`` worker's, may not)."""
    return not multiprocessing.current_process().daemon


def in_processes(task, corrector, jobs, workers, shared=None):
    """``(task(corrector, job, shared), extra)`` for each ``(job, extra)`` of ``jobs``,
    in order, run by ``workers`` processes.

    Each process has its own copy of ``corrector``, set to ``n_jobs=1``, and of
    ``shared`` (what every job reads: sent once per process, not with each job).
    ``task`` is a module's function (it is sent by name).  At most ``AHEAD`` jobs
    per process are on their way at a time; an error in a process is raised here.
    """
    # Forked, a process starts at once with the parent's corrector (spawned, it imports
    # the package and unpickles the corrector).  A forked child of a process whose
    # OpenMP threads have run may hang in a parallel region of more than one thread:
    # the children run one thread each (_start).
    pending = collections.deque()
    start = (corrector, shared)
    with ProcessPoolExecutor(workers, _context(), initializer=_start, initargs=start) as pool:
        for job, extra in jobs:
            pending.append((pool.submit(_run, task, job), extra))
            if len(pending) >= AHEAD * workers:
                future, extra = pending.popleft()
                yield future.result(), extra
        for future, extra in pending:
            yield future.result(), extra


def started(task, corrector, job, shared=None):
    """``task(corrector, job, shared)`` started in a worker process of its own, as
    :func:`in_processes` runs a job, while the caller goes on: a function that waits
    for its result and returns it (an error in the process is raised there), the
    process gone (a process forked later has no thread but its own).

    The process is handed its job as it starts, not through a pool's queue: a
    pool's threads feed the queue only when the caller's thread lets go of the
    GIL, which the caller's next step (counting a text's words, one C call) held
    for a fifth of a second or more, while the process waited.  A process whose
    result is never asked for is ended when the function is dropped.
    """
    context = _context()
    receive, send = context.Pipe(duplex=False)
    process = context.Process(
        target=_run_alone, args=(send, task, corrector, job, shared), daemon=True
    )
    process.start()
    send.close()  # (the child's end: the pipe ends when the child does)

    def result():
        try:
            message = receive.recv()
        except EOFError:  # (the process ended without sending anything: killed)
            message = None
        finally:
            receive.close()
            process.join()  # (it ends once it has sent its result)
        if message is None:
            raise RuntimeError(
                f"the process running {task.__name__} ended without a result "
                f"(exit code {process.exitcode})"
            )
        ok, value, trace = message
        if not ok:
            raise value from _RemoteTraceback(trace)
        return value

    weakref.finalize(result, _end, process, receive)
    return result


class _RemoteTraceback(Exception):
    """Where an error was raised in a worker process (the cause of the error raised
    in the caller)."""

    def __str__(self):
        return self.args[0]


def _run_alone(send, task, corrector, job, shared):
    """A :func:`started` process: ``(ok, result or error, traceback)`` sent back."""
    try:
        _start(corrector, shared)
        out = (True, _run(task, job), None)
    except BaseException as error:
        out = (False, error, traceback.format_exc())
    try:
        send.send(out)
    except Exception as error:  # (a result or an error that cannot be pickled)
        send.send((False, RuntimeError(f"{task.__name__}: {error!r}"), traceback.format_exc()))
    finally:
        send.close()


def _end(process, receive):
    """The :func:`started` process ended if its result was never asked for, and joined."""
    receive.close()
    if process.is_alive():
        process.terminate()
    process.join()


def _context():
    return multiprocessing.get_context("fork" if forks() else "spawn")


def _start(corrector, shared):
    global _corrector, _shared
    _corrector = corrector.set_params(n_jobs=1)  # the processes already share the cores
    _shared = shared


def _run(task, job):
    return task(_corrector, job, _shared)


def _predict(corrector, batch, shared):
    return corrector.predict(batch).tolist()

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
    process and the pool's thread gone (a process forked later has no thread but
    its own)."""
    pool = ProcessPoolExecutor(1, _context(), initializer=_start, initargs=(corrector, shared))
    try:
        future = pool.submit(_run, task, job)
    except BaseException:
        pool.shutdown(wait=False)
        raise

    def result():
        try:
            return future.result()
        finally:
            pool.shutdown()

    return result


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

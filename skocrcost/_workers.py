"""A long text's batches corrected in worker processes, in order (``skocrcost correct``).

Threads share only the compiled parts of a correction (the candidate search, the
beam); about half of its time is Python, which one process runs on one core.
Processes divide all of it: each holds its own copy of the corrector, made once
when it starts and kept, so that its caches serve all its batches.
"""

import collections
import itertools
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

# Processes start only for a text of at least this many batches (a second of work):
# where they cannot be forked, starting one costs a second and a half (the imports).
MIN_BATCHES = 4
# Batches sent ahead per process: enough to keep each busy while the parent writes,
# few enough that memory holds a handful of batches.
AHEAD = 2

_corrector = None  # a worker process's corrector


def corrected(corrector, batches, workers=1):
    """``(corrector.predict(batch) as a list, extra)`` for each ``(batch, extra)`` of
    ``batches``, in order.

    ``workers`` > 1: for a text of at least ``MIN_BATCHES`` batches, as many
    processes share them.  Each batch is one ``predict`` call wherever it runs,
    so the output is the same for any ``workers``.
    """
    batches = iter(batches)
    if workers > 1:
        head = list(itertools.islice(batches, MIN_BATCHES))
        if len(head) == MIN_BATCHES:
            yield from _in_processes(corrector, itertools.chain(head, batches), workers)
            return
        batches = iter(head)
    for batch, extra in batches:
        yield corrector.predict(batch).tolist(), extra


def _in_processes(corrector, batches, workers):
    # Forked, a process starts at once with the parent's corrector (spawned, it imports
    # the package and unpickles the corrector).  A forked child of a process whose
    # OpenMP threads have run may hang in a parallel region of more than one thread:
    # the children run one thread each (_start).
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    pending = collections.deque()
    with ProcessPoolExecutor(workers, context, initializer=_start, initargs=(corrector,)) as pool:
        for batch, extra in batches:
            pending.append((pool.submit(_predict, batch), extra))
            if len(pending) >= AHEAD * workers:
                future, extra = pending.popleft()
                yield future.result(), extra
        for future, extra in pending:
            yield future.result(), extra


def _start(corrector):
    global _corrector
    _corrector = corrector.set_params(n_jobs=1)  # the processes already share the cores


def _predict(batch):
    return _corrector.predict(batch).tolist()

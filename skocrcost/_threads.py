"""How many threads or processes a call may use, by scikit-learn's ``n_jobs`` convention."""

import numbers
import os

import joblib

from ._kernels import openmp_max_threads

try:  # joblib's per-thread parallel_config (private): read only to skip its cost below
    from joblib.parallel import _backend as _joblib_local
    from joblib.parallel import default_parallel_config as _joblib_default
except ImportError:  # another joblib: every call asks joblib.effective_n_jobs
    _joblib_local = _joblib_default = None


def n_threads(n_jobs):
    """Threads for ``n_jobs``: None = 1 unless a joblib context sets it, -1 = all cores.

    The result never exceeds what OpenMP allows now, so
    ``threadpoolctl.threadpool_limits(1)`` caps every kernel at one thread.
    """
    return min(n_workers(n_jobs), openmp_max_threads())


def n_workers(n_jobs):
    """Workers for ``n_jobs`` (processes, or threads before OpenMP's cap): None = 1
    unless a joblib context sets it, -1 = all cores, -2 = all but one, ..."""
    if n_jobs is None:
        # Outside any joblib.parallel_config, None is one worker: answered here, since
        # joblib.effective_n_jobs builds a backend each time (a call per line corrected).
        # (The thread's own dict: getattr would raise and catch an AttributeError.)
        if _joblib_default is not None and (
            _joblib_local.__dict__.get("config", _joblib_default) is _joblib_default
        ):
            return 1
    elif isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise ValueError(f"n_jobs must be None or a non-zero integer, got {n_jobs!r}")
    wanted = joblib.effective_n_jobs(n_jobs)  # None -> 1, or the parallel_config value
    if wanted < 0:  # (os.cpu_count costs more than the rest: a call per line corrected)
        wanted = max((os.cpu_count() or 1) + 1 + wanted, 1)
    return max(1, int(wanted))

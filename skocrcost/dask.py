"""The same API on a Dask cluster: distances, neighbours, corrections and edit counts.

Each function takes Dask collections (a bag, or a one-dimensional array, of
strings) or plain sequences, runs the compiled kernel on every partition and
ships the model once per worker: with a ``distributed`` client active the
model's pickle is scattered to every worker with ``broadcast=True``, the tasks
refer to it by key and each worker loads it on its first task; without a client
it is a single node of the task graph.
Results equal those of the single-process API exactly.

Install with ``pip install "skocrcost[dask]"``.  See ``docs/dask.md``.
"""

from __future__ import annotations

import functools
import operator
import pickle
import threading

try:
    import cloudpickle
    import dask
    import dask.array as da
    import dask.bag as db
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "skocrcost.dask needs Dask; install the 'dask' extra: pip install 'skocrcost[dask]'"
    ) from exc
import numpy as np
from sklearn.utils.validation import check_is_fitted

from ._threads import n_threads
from ._validation import check_number, check_pairs, check_strings
from .estimator import check_counting_aligner, count_edits
from .metrics import WeightedLevenshtein

__all__ = ["correct", "fit_counts", "kneighbors", "pairwise"]

# Rows per block when a plain sequence is split up (a Dask collection keeps its partitions).
DEFAULT_BLOCK_SIZE = 1024


def pairwise(X, Y, metric, *, block_size=DEFAULT_BLOCK_SIZE, n_jobs=None):
    """Distances from every string of X to every string of Y, in row blocks on the workers.

    Parameters
    ----------
    X : dask.bag.Bag, 1-D dask.array.Array or sequence of str
        The rows (OCR side).  A bag's partitions and an array's chunks are the
        row blocks; a plain sequence is cut into blocks of ``block_size``.
    Y : dask.bag.Bag, 1-D dask.array.Array or sequence of str
        The columns (e.g. a lexicon).  They are gathered and shipped with the
        metric to every worker once, so they must fit in one worker's memory.
    metric : WeightedLevenshtein
        Or any object with ``pairwise(X, Y, n_jobs=)``, e.g. a fitted ``metric_``.
    block_size : int, default=1024
        Rows per block for a plain sequence X.
    n_jobs : int, optional
        Threads per block inside a worker (None = 1: the workers are the parallelism).

    Returns
    -------
    dask.array.Array of float64, shape (len(X), len(Y))
        Lazy; ``.compute()`` gives what ``metric.pairwise(X, Y)`` gives.  For a
        bag the row chunks are unknown (NaN) until computed.

    Examples
    --------
    >>> from skocrcost import WeightedLevenshtein
    >>> from skocrcost.dask import pairwise
    >>> wl = WeightedLevenshtein({("l", "h"): 0.2})
    >>> pairwise(["tlie", "cat"], ["the", "cat"], wl, block_size=1).compute()
    array([[1.2, 4. ],
           [3. , 0. ]])
    """
    _check_metric(metric, "metric")
    n_threads(n_jobs)  # refuse a bad n_jobs here rather than on a worker
    Y = _gather_strings(Y, "Y")
    (dist,) = _map_rows(
        X, "X", block_size, _pairwise_block, (metric, Y), [(len(Y), np.float64)], n_jobs
    )
    return dist


def kneighbors(
    queries, index, n_neighbors=None, *, return_distance=True, block_size=DEFAULT_BLOCK_SIZE
):
    """The nearest lexicon words of every query, in row blocks on the workers.

    The fitted index is shipped once per worker; each block runs
    ``index.kneighbors`` (the compiled trie search), so the results are those
    of the single-process call.

    Parameters
    ----------
    queries : dask.bag.Bag, 1-D dask.array.Array or sequence of str
        OCR strings; a bag's partitions and an array's chunks are the blocks.
    index : EditDistanceNeighbors
        Fitted (or any fitted estimator with ``kneighbors(X, n_neighbors)``).
    n_neighbors : int, optional
        Defaults to the index's.
    return_distance : bool, default=True
    block_size : int, default=1024
        Queries per block for a plain sequence.

    Returns
    -------
    neigh_dist : dask.array.Array of float64, shape (n_queries, n_neighbors)
        Returned only when ``return_distance``.
    neigh_ind : dask.array.Array of int64, shape (n_queries, n_neighbors)
        Indices into ``index.lexicon_``.  Compute both at once
        (``dask.compute(dist, ind)``) so that each block is searched once.

    Examples
    --------
    >>> import dask
    >>> from skocrcost import EditDistanceNeighbors
    >>> from skocrcost.dask import kneighbors
    >>> nn = EditDistanceNeighbors(2).fit(["the", "tie", "bee"])
    >>> dask.compute(*kneighbors(["tbe", "bce"], nn, block_size=1))
    (array([[1., 1.],
           [1., 2.]]), array([[0, 1],
           [2, 0]]))
    """
    if not callable(getattr(index, "kneighbors", None)):
        raise TypeError(f"index must be a fitted EditDistanceNeighbors, got {type(index).__name__}")
    check_is_fitted(index)
    # An empty query checks n_neighbors against the index, here rather than on a worker.
    k = index.kneighbors([], n_neighbors)[0].shape[1]
    dist, ind = _map_rows(
        queries,
        "queries",
        block_size,
        _kneighbors_block,
        index,
        [(k, np.float64), (k, np.int64)],
        n_neighbors,
    )
    return (dist, ind) if return_distance else ind


def correct(texts, corrector, *, block_size=DEFAULT_BLOCK_SIZE):
    """Correct every line with a fitted OCRCorrector, partition by partition on the workers.

    Parameters
    ----------
    texts : dask.bag.Bag, 1-D dask.array.Array or sequence of str
        OCR lines (e.g. ``dask.bag.read_text(...)``; a token is a line of one
        word).
    corrector : OCRCorrector
        Fitted; shipped once per worker, its ``predict`` runs on each block.
    block_size : int, default=1024
        Lines per block for a plain sequence.

    Returns
    -------
    dask.bag.Bag or dask.array.Array of str (object dtype)
        A bag for a bag (same partitions), else a one-dimensional dask array;
        lazy; once computed, ``corrector.predict`` of each block (or partition),
        which is ``corrector.predict(texts)`` unless recurrences decide: a word's
        recurrences are counted within what one call corrects, so keep a
        document's lines in one block.

    Examples
    --------
    >>> from skocrcost import EditCostEstimator, OCRCorrector
    >>> from skocrcost.dask import correct
    >>> ocr = ["tbe", "the", "cow", "c0w", "tbe", "Smyth"]
    >>> truth = ["the", "the", "cow", "cow", "the", "Smyth"]
    >>> fixer = OCRCorrector(EditCostEstimator(k=0.5), lexicon=["the", "cow"]).fit(ocr, truth)
    >>> correct(["tbe", "c0w", "Smyth"], fixer, block_size=2).compute().tolist()
    ['the', 'cow', 'Smyth']
    """
    if not callable(getattr(corrector, "predict", None)):
        raise TypeError(f"corrector must be a fitted OCRCorrector, got {type(corrector).__name__}")
    check_is_fitted(corrector)
    check_number(block_size, "block_size", low=1, integer=True)
    if isinstance(texts, db.Bag):
        return texts.map_partitions(_correct_partition, _broadcast(corrector))
    (out,) = _map_rows(texts, "texts", block_size, _correct_block, corrector, [(1, object)])
    return out[:, 0]


def fit_counts(pairs, *, aligner=None, block_size=DEFAULT_BLOCK_SIZE, n_jobs=None):
    """Count the edits of (OCR, truth) pairs partition by partition and merge the counts.

    Counts add up exactly, so ``EditCostEstimator(k=...).fit_from_counts(counts)``
    learns the costs ``EditCostEstimator(k=...).fit(X, y)`` learns on all pairs.

    Parameters
    ----------
    pairs : dask.bag.Bag or sequence of (str, str)
        (OCR, truth) pairs; a bag's partitions are the blocks (a two-column
        dask dataframe gives such a bag by ``df.to_bag(index=False)``), a plain
        sequence is cut into blocks of ``block_size`` pairs.
    aligner : WeightedLevenshtein, optional
        The metric whose cheapest alignments are counted (None: unit costs, as
        ``EditCostEstimator`` does); shipped once per worker.
    block_size : int, default=1024
    n_jobs : int, optional
        Threads per partition inside a worker (None = 1).

    Returns
    -------
    EditCounts
        Computed now (the counts are small: one sparse matrix over the alphabet).

    Examples
    --------
    >>> from skocrcost import EditCostEstimator
    >>> from skocrcost.dask import fit_counts
    >>> counts = fit_counts([("tbe", "the"), ("cat", "cat")], block_size=1)
    >>> counts.most_common(1)
    [('b', 'h', 1)]
    >>> est = EditCostEstimator(k=1.0).fit_from_counts(counts)
    >>> est.costs_ == EditCostEstimator(k=1.0).fit(["tbe", "cat"], ["the", "cat"]).costs_
    True
    """
    if aligner is None:
        aligner = WeightedLevenshtein()
    if not isinstance(aligner, WeightedLevenshtein):  # its alignments are what is counted
        raise TypeError(f"aligner must be a WeightedLevenshtein, got {type(aligner).__name__}")
    check_counting_aligner(aligner)
    check_number(block_size, "block_size", low=1, integer=True)
    n_threads(n_jobs)
    bag = _pair_bag(pairs, block_size)
    counted = bag.map_partitions(_count_block, _broadcast(aligner), n_jobs)
    return counted.reduction(_merge_counts, _merge_counts).compute()


# -- what runs on the workers ------------------------------------------------------------
def _pairwise_block(rows, shared, n_jobs):
    metric, Y = _loaded(shared)
    return (metric.pairwise(check_strings(rows, "X", allow_empty=True), Y, n_jobs=n_jobs),)


def _kneighbors_block(rows, index, n_neighbors):
    return _loaded(index).kneighbors(check_strings(rows, "queries", allow_empty=True), n_neighbors)


def _correct_block(rows, corrector):
    return (_loaded(corrector).predict(check_strings(rows, "texts", allow_empty=True))[:, None],)


def _correct_partition(rows, corrector):
    return _loaded(corrector).predict(check_strings(list(rows), "texts", allow_empty=True)).tolist()


def _count_block(pairs, aligner, n_jobs):
    aligner = _loaded(aligner)
    pairs = list(pairs)
    if not pairs:
        return [count_edits(aligner, [], [])]
    for pair in pairs:
        if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2:
            raise TypeError(f"pairs must contain (ocr, truth) pairs of strings, got {pair!r}")
    X, y = check_pairs([p[0] for p in pairs], [p[1] for p in pairs])
    return [count_edits(aligner, X, y, n_threads(n_jobs))]


def _merge_counts(parts):
    return functools.reduce(operator.add, parts)


# -- inputs ------------------------------------------------------------------------------
def _check_metric(metric, name):
    if not callable(getattr(metric, "pairwise", None)):
        raise TypeError(
            f"{name} must be a WeightedLevenshtein (an object with a pairwise method), "
            f"got {type(metric).__name__}"
        )


def _is_dask(obj):
    return dask.is_dask_collection(obj)


def _gather_strings(Y, name):
    if _is_dask(Y):
        Y = Y.compute()
    return check_strings(Y, name)


def _map_rows(X, name, block_size, func, model, outputs, *args):
    """Dask arrays of ``func(block, model, *args)`` over the row blocks of X.

    ``func`` returns one array per entry ``(n_columns, dtype)`` of ``outputs``;
    ``model`` is shipped once per worker.
    """
    check_number(block_size, "block_size", low=1, integer=True)
    blocks, rows = _row_blocks(X, name, block_size)
    shared = _broadcast(model)
    parts = [[] for _ in outputs]
    for block, n in zip(blocks, rows):
        values = dask.delayed(func, pure=True, nout=len(outputs))(block, shared, *args)
        for out, value, (width, dtype) in zip(parts, values, outputs):
            out.append(da.from_delayed(value, shape=(n, width), dtype=dtype))
    return [
        da.concatenate(out, axis=0) if out else da.zeros((0, width), dtype=dtype)
        for out, (width, dtype) in zip(parts, outputs)
    ]


def _row_blocks(X, name, block_size):
    """Delayed row blocks of X and their lengths (NaN when unknown before computing)."""
    if isinstance(X, db.Bag):
        blocks = X.to_delayed()
        return blocks, [np.nan] * len(blocks)
    if isinstance(X, da.Array):
        if X.ndim != 1:
            raise ValueError(f"{name} must be one-dimensional, got an array of shape {X.shape}")
        return list(X.to_delayed()), list(X.chunks[0])
    if _is_dask(X):
        raise TypeError(f"{name} must be a dask bag or array of strings, got {type(X).__name__}")
    X = check_strings(X, name, allow_empty=True)
    blocks = [X[i : i + block_size] for i in range(0, len(X), block_size)]
    # Each block one graph node, as it is: neither walked for Dask collections nor
    # hashed for a key (a fifth of a second per million tokens, before any work starts).
    return [dask.delayed(b, traverse=False) for b in blocks], [len(b) for b in blocks]


def _pair_bag(pairs, block_size):
    if isinstance(pairs, db.Bag):
        return pairs
    if _is_dask(pairs):
        raise TypeError(
            f"pairs must be a dask bag of pairs, got {type(pairs).__name__} "
            "(a two-column dataframe gives one by df.to_bag(index=False))"
        )
    if isinstance(pairs, (str, bytes)):
        raise TypeError("pairs must be a sequence of (ocr, truth) pairs, not a single string")
    try:
        pairs = list(pairs)
    except TypeError:
        raise TypeError(f"pairs must be a sequence of pairs, got {type(pairs).__name__}") from None
    if not pairs:
        raise ValueError("pairs is empty; at least one pair is needed")
    return db.from_sequence(pairs, partition_size=block_size)


# -- shipping the model once per worker --------------------------------------------------
def _client():
    try:
        from distributed import default_client
    except ImportError:
        return None
    try:
        return default_client()
    except ValueError:  # no client: the local schedulers
        return None


def _broadcast(obj):
    """``obj`` for the tasks, sent once to each worker rather than once per task
    (as a :class:`_Shipped` pickle on a cluster: the tasks call :func:`_loaded`)."""
    client = _client()
    if client is None:
        return dask.delayed(obj, pure=True)  # one graph node, shared by every task
    # A fresh key per call (hash=False): reusing the key of a previous call's data
    # races with the scheduler releasing it ("Key lost during replication").
    return client.scatter([_Shipped(obj)], broadcast=True, hash=False)[0]


class _Shipped:
    """A model pickled once by the client and unpickled once per worker, on its first task.

    Scattering the model itself makes the workers load it one after another: the
    scheduler replicates it from the first worker to have it, which pickles it again
    for the next (0.4-0.5 s for the 18 MB shipped corrector on two workers, against
    0.13-0.19 s for its bytes).  Bytes are copied as they are, and each worker loads
    its copy at the same time as the others.
    """

    def __init__(self, obj):
        # cloudpickle, as Dask itself ships objects: a class defined in a user's
        # script (``__main__``) travels by value.
        self.blob = cloudpickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        self.__setstate__(self.__getstate__())

    def __getstate__(self):
        return {"blob": self.blob}  # never the loaded model: copies stay bytes

    def __setstate__(self, state):
        self.blob = state["blob"]
        self._model = None
        self._lock = threading.Lock()  # (threads of one worker load it once)

    def load(self):
        with self._lock:
            if self._model is None:
                self._model = pickle.loads(self.blob)
            return self._model


def _loaded(model):
    """What a task was given: the model, loaded if it was shipped (:func:`_broadcast`)."""
    return model.load() if isinstance(model, _Shipped) else model

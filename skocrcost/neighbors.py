"""EditDistanceNeighbors: exact nearest lexicon words under a (learned) weighted edit distance."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from ._kernels import BP_LANES, N_KERNEL_ARGS, CostKernel, LexiconIndex, topk_update, unit_table
from ._sklearn_compat import HasMethods, Interval
from ._threads import n_threads
from ._validation import (
    FittedAttributesMixin,
    StringInputMixin,
    check_number,
    check_strings,
    validate_params,
)
from .metrics import WeightedLevenshtein

__all__ = ["EditDistanceNeighbors"]

# Brute force (for metrics the trie cannot read) computes this many cells per chunk.
_CHUNK_CELLS = 1 << 22

# Unit costs: kneighbors by brute force through the lexicon's match table (unit_table),
# in chunks of at most this many queries against as many words as _UNIT_CHUNK_CELLS
# distances hold (16 MB, one buffer reused).
_UNIT_CHUNK_ROWS = 256
_UNIT_CHUNK_CELLS = 1 << 21
# Within this many unit edits the trie prunes so much that it beats the brute force
# (2.8x for the 17,270 truth words outside the lexicon of benchmarks/cross_collection.py's
# three collections against 101,668 lexicon words; within 3, the two are even).
_UNIT_TRIE_MAX_DISTANCE = 2.0
# Largest match table (bytes: 2 per word, padded to blocks of 16, and per character of
# its words of at most 16 characters) fit builds; past it unit costs search the trie
# alone (a huge alphabet, e.g. CJK text).
_UNIT_TABLE_BYTES = 64 << 20


def resolve_metric(metric, name="metric"):
    """The metric behind ``metric``: None = unit costs, a fitted estimator = its ``metric_``."""
    if metric is None:
        return WeightedLevenshtein()
    if isinstance(metric, BaseEstimator):
        try:
            check_is_fitted(metric)
        except NotFittedError as err:
            raise NotFittedError(f"{name}: {err}") from None
        return metric.metric_
    return metric


class _BruteIndex:
    """Exact search by ``metric.pairwise`` in chunks, for metrics the trie cannot read.

    Any metric object with ``pairwise(X, Y, n_jobs=)`` plugs in here; the search
    is exact, ties broken by lexicon index, only slower than the trie.
    """

    def __init__(self, metric, words):
        if not words:
            raise ValueError("the lexicon is empty; at least one word is needed")
        self.kernel, self.words, self.n_words = metric, words, len(words)

    def _chunks(self, queries, n_threads):
        step = max(1, _CHUNK_CELLS // max(self.n_words, 1))
        # Our metrics take the lexicon encoded once for all chunks (``_encode_y``),
        # and the queries as checked; any other metric its public pairwise.
        encode = getattr(self.kernel, "_encode_y", None)
        words = self.words if encode is None else encode(self.words)
        for start in range(0, len(queries), step):
            part = queries[start : start + step]
            if encode is None:
                yield self.kernel.pairwise(part, words, n_jobs=n_threads)
            else:
                yield self.kernel._pairwise(part, words, n_threads)

    def kneighbors(self, queries, k, n_threads=1, max_distance=np.inf):
        if not 1 <= k <= self.n_words:
            raise ValueError(f"k must be in [1, {self.n_words}], got {k}")
        _check_max_distance(max_distance)  # before the search, not after it
        dist, ind = [np.empty((0, k))], [np.empty((0, k), dtype=np.int64)]
        for D in self._chunks(queries, n_threads):
            order = np.argsort(D, axis=1, kind="stable")[:, :k]
            dist.append(np.take_along_axis(D, order, axis=1))
            ind.append(order.astype(np.int64))
        return _within(np.concatenate(dist), np.concatenate(ind), max_distance)

    def radius_neighbors(self, queries, radius, n_threads=1):
        counts, dist, ind = [0], [np.empty(0)], [np.empty(0, dtype=np.int64)]
        for D in self._chunks(queries, n_threads):
            for row in D:
                within = np.flatnonzero(row <= radius)
                within = within[np.argsort(row[within], kind="stable")]
                counts.append(len(within))
                dist.append(row[within])
                ind.append(within.astype(np.int64))
        return np.cumsum(counts), np.concatenate(dist), np.concatenate(ind)


class _UnitIndex(LexiconIndex):
    """Unit costs: kneighbors by bit-parallel brute force, faster than the trie here
    (but within ``_UNIT_TRIE_MAX_DISTANCE``, where the trie prunes nearly every word).

    The lexicon's match masks are built once (``unit_table``), so that a query
    scans 16 words per vector step and loads nothing; chunks of queries x words
    keep a running top k per query, ordered as the trie orders its hits
    (``topk_update``): the same distances and indices, ties included.  The trie
    (this class's base) still answers ``radius_neighbors``.
    """

    def __init__(self, kernel, words, offsets, cps, table):
        """``table = unit_table(offsets, cps)`` of ``kernel._encode_list(words, "X", False)``."""
        super().__init__(kernel, words)
        self.offsets, self.cps, self.table = offsets, cps, table

    def __reduce__(self):
        return (_rebuild_unit, (self.kernel, self.trie, self.n_words, self.offsets, self.cps))

    def kneighbors(self, queries, k, n_threads=1, max_distance=np.inf):
        if max_distance <= _UNIT_TRIE_MAX_DISTANCE:  # (NaN is not: refused below)
            return super().kneighbors(queries, k, n_threads, max_distance)
        if not 1 <= k <= self.n_words:
            raise ValueError(f"k must be in [1, {self.n_words}], got {k}")
        _check_max_distance(max_distance)  # before the search, not after it
        nq, nw = len(queries), self.n_words
        rows = max(1, min(nq, _UNIT_CHUNK_ROWS))
        cols = min(nw, max(1, _UNIT_CHUNK_CELLS // rows // BP_LANES) * BP_LANES)  # whole blocks
        buf = np.empty(rows * cols)  # reused: a fresh 16 MB would page-fault every chunk
        dist, ind = np.empty((nq, k)), np.empty((nq, k), dtype=np.int64)
        for r in range(0, nq, rows):
            part = queries[r : r + rows]
            have = 0
            for c in range(0, nw, cols):
                D = buf[: len(part) * min(cols, nw - c)].reshape(len(part), -1)
                self.kernel._pairwise_unit_table(
                    part, *self.table, self.offsets, self.cps, c // BP_LANES, D, n_threads
                )
                have = topk_update(D, c, dist[r : r + rows], ind[r : r + rows], have, n_threads)
        return _within(dist, ind, max_distance)


def _check_max_distance(max_distance):
    if not max_distance >= 0:
        raise ValueError(f"max_distance must be >= 0, got {max_distance}")


def _within(dist, ind, max_distance):
    """Brute force's k nearest (sorted rows) cut at ``max_distance`` as the trie cuts them:
    what lies beyond becomes ``inf`` and ``-1``."""
    beyond = dist > max_distance
    dist[beyond], ind[beyond] = np.inf, -1
    return dist, ind


def _rebuild_unit(kernel, trie, n_words, offsets, cps):
    # Release 0.1.0 pickled the metric itself as the kernel: take the kernel it holds.
    kernel = getattr(kernel, "_kernel", kernel)
    index = _UnitIndex.__new__(_UnitIndex)
    index._set(kernel, trie, n_words)
    index.offsets, index.cps, index.table = offsets, cps, unit_table(offsets, cps)
    return index


def lexicon_index(metric, words):
    """The fastest exact index for ``metric``: the trie for single-character cost tables.

    With unit costs its kneighbors runs bit-parallel brute force (``_UnitIndex``),
    unless the lexicon's match table would pass ``_UNIT_TABLE_BYTES``.

    This is where a richer metric plugs in: anything else with ``pairwise`` is
    searched exactly by brute force.
    """
    # A WeightedLevenshtein holds its compiled kernel (a CostKernel for single-character
    # tables), which the trie reads.
    kernel = getattr(metric, "_kernel", metric)
    if isinstance(kernel, CostKernel) and len(kernel._kernel_args()) == N_KERNEL_ARGS:
        if kernel.unit:
            offsets, _, cps = kernel._encode_list(words, "X", False)
            table = unit_table(offsets, cps, _UNIT_TABLE_BYTES)
            if table is not None:
                return _UnitIndex(kernel, words, offsets, cps, table)
        return LexiconIndex(kernel, words)
    if not callable(getattr(metric, "pairwise", None)):
        raise TypeError(f"metric must have a pairwise method, got {type(metric).__name__}")
    return _BruteIndex(metric, words)


class EditDistanceNeighbors(
    FittedAttributesMixin, StringInputMixin, TransformerMixin, BaseEstimator
):
    """Exact nearest lexicon words of OCR strings under a weighted edit distance.

    ``fit`` indexes a lexicon in a trie whose DP columns are shared along common
    prefixes; a search skips every subtree whose lower bound (the column minimum,
    plus a length bound) exceeds the k-th best distance found so far (or the
    radius).  The results are exact, bit for bit those of brute force
    ``metric.pairwise(queries, lexicon)``, with ties broken by lexicon order
    (put the most frequent words first).  The distance runs from the query (the
    OCR side) to the lexicon word (the truth side).  With unit costs
    ``kneighbors`` runs exact bit-parallel brute force instead (faster there),
    with the same results, ties included.

    Parameters
    ----------
    n_neighbors : int, default=5
        Neighbours returned by :meth:`kneighbors`; :meth:`transform` returns
        ``n_neighbors + 1`` per row, as scikit-learn's ``KNeighborsTransformer``.
    radius : float, optional
        Default radius of :meth:`radius_neighbors` (inclusive).
    metric : WeightedLevenshtein or fitted EditCostEstimator, optional
        The costs; None means unit costs.  Any other object with
        ``pairwise(X, Y, n_jobs=)`` is searched exactly by brute force.
    n_jobs : int, optional
        Threads over queries: None = 1 (unless a joblib context sets it), -1 = all cores.

    Attributes
    ----------
    lexicon_ : list of str
        The indexed strings, in the order given (indices refer to it).
    n_samples_fit_ : int
    metric_ : WeightedLevenshtein
        The metric searched.
    index_ : object
        The fitted (picklable) index.

    Examples
    --------
    >>> from skocrcost import EditDistanceNeighbors, WeightedLevenshtein
    >>> nn = EditDistanceNeighbors(2, metric=WeightedLevenshtein({("b", "h"): 0.2}))
    >>> nn.fit(["the", "tie", "bee"]).kneighbors(["tbe"])
    (array([[0.2, 1. ]]), array([[0, 1]]))
    """

    _fitted_attributes = ("lexicon_", "metric_", "index_", "n_samples_fit_")

    _parameter_constraints = {
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "radius": [Interval(Real, 0, None, closed="left"), None],
        "metric": [HasMethods(["pairwise"]), HasMethods(["fit"]), None],
        "n_jobs": [Integral, None],
    }

    def __init__(self, n_neighbors=5, *, radius=None, metric=None, n_jobs=None):
        self.n_neighbors = n_neighbors
        self.radius = radius
        self.metric = metric
        self.n_jobs = n_jobs

    def fit(self, X, y=None):
        """Index the lexicon ``X`` (a sequence of strings); ``y`` is ignored."""
        validate_params(self)
        n_threads(self.n_jobs)
        metric = resolve_metric(self.metric)
        lexicon = check_strings(X, "X")
        index = lexicon_index(metric, lexicon)
        self.lexicon_, self.metric_, self.index_ = lexicon, metric, index
        self.n_samples_fit_ = len(lexicon)
        return self

    def __sklearn_is_fitted__(self):
        return hasattr(self, "index_")

    # -- queries -------------------------------------------------------------------------
    def _queries(self, X):
        check_is_fitted(self)
        if X is None:
            return self.lexicon_, True
        return check_strings(X, "X", allow_empty=True), False

    def _k(self, n_neighbors, self_excluded):
        k = self.n_neighbors if n_neighbors is None else n_neighbors
        check_number(k, "n_neighbors", low=1, integer=True)
        limit = self.n_samples_fit_ - self_excluded
        if k > limit:
            what = "other lexicon words" if self_excluded else "lexicon words"
            raise ValueError(f"n_neighbors must be <= {limit} (the number of {what}), got {k}")
        return int(k)

    def kneighbors(self, X=None, n_neighbors=None, return_distance=True):
        """The nearest lexicon words of each string of X.

        Parameters
        ----------
        X : sequence of str, optional
            The queries (OCR side).  None: every lexicon word, each not counted
            as its own neighbour.
        n_neighbors : int, optional
            Defaults to the constructor's.
        return_distance : bool, default=True

        Returns
        -------
        neigh_dist : ndarray of float64, shape (n_queries, n_neighbors)
            Sorted ascending; returned only when ``return_distance``.
        neigh_ind : ndarray of int64, shape (n_queries, n_neighbors)
            Indices into :attr:`lexicon_`; ties by lexicon order.
        """
        queries, own = self._queries(X)
        k = self._k(n_neighbors, own)
        dist, ind = self.index_.kneighbors(queries, k + own, n_threads(self.n_jobs))
        if own:
            dist, ind = _drop_self(dist, ind)
        return (dist, ind) if return_distance else ind

    def _nearest_within(self, queries, n_neighbors, max_distance, threads):
        """The ``n_neighbors`` nearest lexicon words of each string of ``queries`` (a
        list) within ``max_distance``, searched with ``threads`` threads: ``(dist,
        ind)`` as :meth:`kneighbors`, a row with fewer padded with ``inf`` and ``-1``.
        The trie prunes by the distance from the start, so that far words cost no
        search."""
        # The decoder's own call, on its fitted index, for the words of every line
        # corrected: nothing is checked (its words are str, its k at most the lexicon's).
        return self.index_.kneighbors(queries, n_neighbors, threads, max_distance)

    def radius_neighbors(self, X=None, radius=None, return_distance=True, sort_results=False):
        """Every lexicon word within ``radius`` (inclusive) of each string of X.

        Results are always sorted by distance, then lexicon order
        (``sort_results`` is accepted for scikit-learn compatibility).

        Returns
        -------
        neigh_dist : ndarray of object, shape (n_queries,)
            Arrays of distances; returned only when ``return_distance``.
        neigh_ind : ndarray of object, shape (n_queries,)
            Arrays of indices into :attr:`lexicon_`.
        """
        queries, own = self._queries(X)
        radius = self.radius if radius is None else radius
        if radius is None:
            raise ValueError("radius must be given, here or in the constructor")
        radius = check_number(radius, "radius", low=0)
        offsets, dist, ind = self.index_.radius_neighbors(
            queries, float(radius), n_threads(self.n_jobs)
        )
        neigh_dist = np.empty(len(queries), dtype=object)
        neigh_ind = np.empty(len(queries), dtype=object)
        for q in range(len(queries)):
            d, i = dist[offsets[q] : offsets[q + 1]], ind[offsets[q] : offsets[q + 1]]
            if own:
                keep = i != q
                d, i = d[keep], i[keep]
            neigh_dist[q], neigh_ind[q] = d, i
        return (neigh_dist, neigh_ind) if return_distance else neigh_ind

    def kneighbors_graph(self, X=None, n_neighbors=None, mode="connectivity"):
        """CSR matrix (n_queries, n_samples_fit) of the k nearest words (1 or the distance)."""
        mode = _check_mode(mode)
        dist, ind = self.kneighbors(X, n_neighbors)
        n, k = ind.shape
        data = np.ones(n * k) if mode == "connectivity" else dist.ravel()
        indptr = np.arange(0, n * k + 1, k)
        return sp.csr_matrix((data, ind.ravel(), indptr), shape=(n, self.n_samples_fit_))

    def radius_neighbors_graph(self, X=None, radius=None, mode="connectivity", sort_results=False):
        """CSR matrix (n_queries, n_samples_fit) of the words within the radius."""
        mode = _check_mode(mode)
        dist, ind = self.radius_neighbors(X, radius)
        indptr = np.concatenate([[0], np.cumsum([len(i) for i in ind])])
        cat = np.concatenate  # empty lists of arrays cannot happen: one array per query
        data = cat([*dist, np.empty(0)])
        if mode == "connectivity":
            data = np.ones_like(data)
        return sp.csr_matrix(
            (data, cat([*ind, np.empty(0, np.int64)]), indptr),
            shape=(len(ind), self.n_samples_fit_),
        )

    # -- KNeighborsTransformer's contract ------------------------------------------------
    def transform(self, X):
        """Distance graph of the ``n_neighbors + 1`` nearest lexicon words of each string.

        As scikit-learn's ``KNeighborsTransformer(mode="distance")``: on the
        fitted strings each is its own nearest neighbour, so a downstream
        estimator with ``metric="precomputed"`` still sees ``n_neighbors`` others.

        Returns
        -------
        scipy.sparse.csr_matrix, shape (n_queries, n_samples_fit)
        """
        check_is_fitted(self)
        if X is None:
            raise TypeError("X must be a sequence of strings, got None")
        return self.kneighbors_graph(X, self.n_neighbors + 1, mode="distance")

    def fit_transform(self, X, y=None):
        """``fit(X).transform(X)``: every row holds the string itself at distance 0."""
        return self.fit(X).transform(X)

    def get_feature_names_out(self, input_features=None):
        """The lexicon words, one per column of :meth:`transform`'s graph."""
        check_is_fitted(self)
        return np.asarray(self.lexicon_, dtype=object)


def _check_mode(mode):
    if mode not in ("connectivity", "distance"):
        raise ValueError(f"mode must be 'connectivity' or 'distance', got {mode!r}")
    return mode


def _drop_self(dist, ind):
    """Drop each query's own index (queries = the lexicon), as scikit-learn does."""
    mask = ind != np.arange(len(ind))[:, None]
    absent = mask.all(axis=1)  # tied duplicates crowded it out: drop the first instead
    mask[absent, 0] = False
    k = ind.shape[1] - 1
    return dist[mask].reshape(-1, k), ind[mask].reshape(-1, k)

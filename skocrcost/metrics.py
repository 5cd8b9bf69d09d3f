"""The learned string metric: a thin Python class over the compiled DP kernel."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from sklearn import get_config

from . import _persist
from ._costs import CostTables
from ._dp import CostKernel
from ._threads import n_threads
from ._validation import check_number, check_strings

__all__ = ["EditOperation", "WeightedLevenshtein"]

_KINDS = ("match", "substitute", "delete", "insert")


class EditOperation(NamedTuple):
    """One column of an alignment: ``kind`` is match, substitute, delete or insert."""

    kind: str
    source: str  # the OCR character ("" for an insertion)
    target: str  # the truth character ("" for a deletion)
    cost: float


def _one_string(x, name):
    """A str from a str subclass or a 1-element array of one; TypeError naming ``name``."""
    if isinstance(x, np.ndarray) and x.size == 1:
        x = x.reshape(-1)[0]
    if isinstance(x, str):
        return str(x)
    raise TypeError(f"{name} must be a string, got {type(x).__name__}: {x!r}")


def _rebuild(cls, tables):
    obj = cls.__new__(cls)
    obj._use_tables(tables)
    return obj


class WeightedLevenshtein(CostKernel):
    """Levenshtein distance with a cost for every character's substitution, insertion, deletion.

    The distance from ``a`` (the OCR side) to ``b`` (the truth side) is the
    cheapest sum of edit costs turning ``a`` into ``b``.  A *deletion* is an OCR
    character with no truth counterpart, an *insertion* a truth character missing
    from the OCR.  Characters are Unicode code points; those without a listed cost
    take the defaults.  The constructor follows ocr-stringdist's.

    Parameters
    ----------
    substitution_costs : dict of (str, str) -> float, optional
        Cost of reading the first character where the truth has the second.
        ``("", t)`` is read as an insertion of ``t`` and ``(s, "")`` as a deletion of ``s``.
    insertion_costs : dict of str -> float, optional
        Cost of a truth character missing from the OCR.
    deletion_costs : dict of str -> float, optional
        Cost of an OCR character with no truth counterpart.
    symmetric_substitution : bool, default=False
        If True, a cost given for ``(a, b)`` also applies to ``(b, a)`` unless that is given.
    default_substitution_cost, default_insertion_cost, default_deletion_cost : float, default=1.0
        Costs of edits not listed.  Every cost must be a finite number >= 0.

    See Also
    --------
    EditCostEstimator : learns these costs from (OCR, truth) pairs.

    Notes
    -----
    ``distance`` and ``pairwise`` run compiled code with the GIL released for
    long strings; every cell takes the minimum of all three moves, also where the
    characters match, since a match can hide a cheaper path.

    Examples
    --------
    >>> from skocrcost import WeightedLevenshtein
    >>> wl = WeightedLevenshtein({("l", "h"): 0.2, ("0", "O"): 0.1})
    >>> wl.distance("tlie", "the")
    1.2
    >>> wl("0CR", "OCR")
    0.1
    >>> [op.kind for op in wl.explain("tlie", "the")]
    ['match', 'substitute', 'delete', 'match']
    """

    def __init__(
        self,
        substitution_costs=None,
        insertion_costs=None,
        deletion_costs=None,
        *,
        symmetric_substitution=False,
        default_substitution_cost=1.0,
        default_insertion_cost=1.0,
        default_deletion_cost=1.0,
    ):
        self._use_tables(
            CostTables.from_dicts(
                substitution_costs,
                insertion_costs,
                deletion_costs,
                symmetric_substitution=symmetric_substitution,
                default_substitution_cost=default_substitution_cost,
                default_insertion_cost=default_insertion_cost,
                default_deletion_cost=default_deletion_cost,
            )
        )

    def _use_tables(self, tables):
        self._set_tables(*tables.kernel_args())  # refuses a second call: set _costs after
        self._costs = tables

    @property
    def costs(self):
        """The :class:`CostTables` this metric computes with (read-only: the kernel copies them)."""
        return self._costs

    @classmethod
    def from_tables(cls, tables):
        """Build the metric from :class:`CostTables` (as learned by an estimator)."""
        if not isinstance(tables, CostTables):
            raise TypeError(f"tables must be CostTables, got {type(tables).__name__}")
        return _rebuild(cls, tables)

    def __reduce__(self):
        return (_rebuild, (type(self), self.costs))

    # ``distance`` is the compiled method itself: no Python frame in between.
    def __call__(self, a, b):
        """``distance(a, b)``, also for what scikit-learn's ``pairwise_distances`` passes.

        That is ``numpy.str_`` items (from a list of strings) or 1-element rows
        (from an ``(n, 1)`` array); plain strings take the compiled path directly.
        """
        try:
            return CostKernel.distance(self, a, b)
        except TypeError:
            return CostKernel.distance(self, _one_string(a, "a"), _one_string(b, "b"))

    def pairwise(self, X, Y=None, *, n_jobs=None):
        """Distances from every string of X (rows, OCR side) to every string of Y.

        Parameters
        ----------
        X : sequence of str
        Y : sequence of str, optional
            Defaults to X.  The full matrix is computed: nothing is mirrored, so
            asymmetric costs give the right (asymmetric) result.
        n_jobs : int, optional
            Threads: None means 1 (unless a joblib context says otherwise), -1 all cores.

        Returns
        -------
        ndarray of float64, shape (len(X), len(Y))
        """
        X = check_strings(X, "X", allow_empty=True)
        Y = X if Y is None else check_strings(Y, "Y", allow_empty=True)
        return CostKernel.pairwise(self, X, Y, n_threads(n_jobs))

    def pairwise_chunked(self, X, Y=None, *, working_memory=None, n_jobs=None):
        """Yield :meth:`pairwise` row blocks that each fit in ``working_memory``.

        Like scikit-learn's ``pairwise_distances_chunked``: for outputs too large
        to hold at once, each block is ``pairwise(X[start:stop], Y)``.

        Parameters
        ----------
        X : sequence of str
        Y : sequence of str, optional
            Defaults to X.
        working_memory : float, optional
            MiB one block may take; None means scikit-learn's
            ``get_config()["working_memory"]``.  At least one row is always yielded.
        n_jobs : int, optional
            Threads, as in :meth:`pairwise`.

        Returns
        -------
        generator of ndarray of float64, shape (n_rows, len(Y))
            Consecutive row blocks; stacked, they equal ``pairwise(X, Y)``.  Bad
            arguments raise at the call, not at the first block.

        Examples
        --------
        >>> from skocrcost import WeightedLevenshtein
        >>> wl = WeightedLevenshtein()
        >>> [block.shape for block in wl.pairwise_chunked(["a", "b", "c"], ["ab"] * 50_000,
        ...                                               working_memory=0.5)]
        [(1, 50000), (1, 50000), (1, 50000)]
        """
        X = check_strings(X, "X", allow_empty=True)
        Y = X if Y is None else check_strings(Y, "Y", allow_empty=True)
        if working_memory is None:
            working_memory = get_config()["working_memory"]
        working_memory = check_number(working_memory, "working_memory", low=0, low_open=True)
        threads = n_threads(n_jobs)
        # As scikit-learn's get_chunk_n_rows: rows of 8 * len(Y) bytes, at least one.
        rows = max(1, min(len(X), int(working_memory * 2**20) // (8 * max(len(Y), 1))))
        # Checked above, eagerly; the generator only computes.
        return (
            CostKernel.pairwise(self, X[start : start + rows], Y, threads)
            for start in range(0, len(X), rows)
        )

    def explain(self, a, b):
        """The edit operations of one cheapest alignment of ``a`` to ``b``.

        Returns
        -------
        list of EditOperation
            ``(kind, source, target, cost)`` per column; the costs sum to ``distance(a, b)``.
        """
        op, src, tgt, cost = self.align(a, b)
        return [
            EditOperation(_KINDS[o], chr(s) if s >= 0 else "", chr(t) if t >= 0 else "", float(c))
            for o, s, t, c in zip(
                op.tolist(), src.tolist(), tgt.tolist(), cost.tolist(), strict=True
            )
        ]

    # -- costs as data ----------------------------------------------------------------
    def substitution_cost(self, source, target):
        """Cost of reading ``source`` where the truth has ``target`` (0 when equal)."""
        return self.costs.substitution_cost(source, target)

    def insertion_cost(self, target):
        """Cost of a truth character missing from the OCR."""
        return self.costs.insertion_cost(target)

    def deletion_cost(self, source):
        """Cost of an OCR character with no truth counterpart."""
        return self.costs.deletion_cost(source)

    def to_dict(self):
        """The costs in ocr-stringdist's JSON layout (``WeightedLevenshtein.from_dict`` there)."""
        return self.costs.to_dict()

    @classmethod
    def from_dict(cls, data):
        """Read :meth:`to_dict`'s (or ocr-stringdist's) layout, validating every cost."""
        return cls.from_tables(CostTables.from_dict(data))

    def save(self, path):
        """Write :meth:`to_dict` to a JSON file (gzip-compressed if ``path`` ends in ``.gz``).

        ocr-stringdist reads it: ``WeightedLevenshtein.from_dict(json.load(f))``.
        """
        _persist.write_json(self.to_dict(), path)

    @classmethod
    def load(cls, path):
        """Read a JSON cost file: one written by :meth:`save`, by ocr-stringdist, or by
        :meth:`EditCostEstimator.save` (its learned costs).

        Examples
        --------
        >>> import os, tempfile
        >>> from skocrcost import WeightedLevenshtein
        >>> path = os.path.join(tempfile.mkdtemp(), "costs.json")
        >>> WeightedLevenshtein({("0", "O"): 0.1}).save(path)
        >>> WeightedLevenshtein.load(path).distance("0CR", "OCR")
        0.1
        """
        return cls.from_dict(_persist.read_json(path))

    def __eq__(self, other):
        if not isinstance(other, WeightedLevenshtein):
            return NotImplemented
        return self.costs == other.costs

    def __hash__(self):
        # Equal costs give equal hashes: the costs of characters outside the alphabet
        # take part in equality.  (Hashable, so scikit-learn accepts it as ``metric=``.)
        t = self.costs
        return hash((WeightedLevenshtein, float(t.rowdef[0]), float(t.ins[0]), float(t.dele[0])))

    def __repr__(self):
        n = len(self.costs.chars)
        return f"{type(self).__name__}(<{n} characters with costs>)"

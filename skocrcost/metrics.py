"""The learned string metric: a Python class that holds a compiled DP kernel."""

from __future__ import annotations

import math
import warnings
from typing import NamedTuple

import numpy as np
from sklearn import get_config

from . import _persist
from ._costs import CostTables
from ._kernels import OP_RULE, OP_TRANS, CostKernel, EditKernel
from ._threads import n_threads
from ._validation import check_number, check_strings

__all__ = ["EditOperation", "WeightedLevenshtein"]

_KINDS = ("match", "substitute", "delete", "insert", "transpose")


class EditOperation(NamedTuple):
    """One edit of an alignment: ``kind`` is match, substitute, delete, insert or transpose.

    A multi-character edit (``rn`` read for ``m``) is one operation whose
    ``source`` and ``target`` hold several characters; a transposition has
    ``source="ab"``, ``target="ba"``.
    """

    kind: str
    source: str  # the OCR character(s) ("" for an insertion)
    target: str  # the truth character(s) ("" for a deletion)
    cost: float


def _one_string(x, name):
    """A str from a str subclass or a 1-element array of one; TypeError naming ``name``."""
    if isinstance(x, np.ndarray) and x.size == 1:
        x = x.reshape(-1)[0]
    if isinstance(x, str):
        return str(x)
    raise TypeError(f"{name} must be a string, got {type(x).__name__}: {x!r}")


def operations(tables, op, src, tgt, cost):
    """EditOperations from an alignment's columns (see ``EditKernel.align``)."""
    out = []
    for o, s, t, c in zip(op.tolist(), src.tolist(), tgt.tolist(), cost.tolist(), strict=True):
        if o == OP_RULE:
            source, target, _ = tables.rules[s]
            kind = "substitute" if source and target else ("insert" if target else "delete")
            out.append(EditOperation(kind, source, target, float(c)))
        elif o == OP_TRANS:
            out.append(EditOperation("transpose", chr(s) + chr(t), chr(t) + chr(s), float(c)))
        else:
            out.append(
                EditOperation(
                    _KINDS[o], chr(s) if s >= 0 else "", chr(t) if t >= 0 else "", float(c)
                )
            )
    return out


def _deprecated_alignment(call):
    warnings.warn(
        f"WeightedLevenshtein.{call} (kernel op codes) is deprecated since skocrcost 0.2 and "
        "will be removed in 0.3; use explain(a, b), which gives EditOperations",
        FutureWarning,
        stacklevel=3,
    )


def _rebuild(cls, tables):
    obj = cls.__new__(cls)
    obj._use_tables(tables)
    return obj


class WeightedLevenshtein:
    """Levenshtein distance with a cost for every character's substitution, insertion, deletion.

    The distance from ``a`` (the OCR side) to ``b`` (the truth side) is the
    cheapest sum of edit costs turning ``a`` into ``b``.  A *deletion* is an OCR
    character with no truth counterpart, an *insertion* a truth character missing
    from the OCR.  Characters are Unicode code points; those without a listed cost
    take the defaults.  The constructor follows ocr-stringdist's.

    Parameters
    ----------
    substitution_costs : dict of (str, str) -> float, optional
        Cost of reading the first string where the truth has the second.
        ``("", t)`` is read as an insertion of ``t`` and ``(s, "")`` as a deletion of ``s``.
        Keys may be longer than one character, as in ocr-stringdist:
        ``{("rn", "m"): 0.2}`` reads OCR ``rn`` as truth ``m`` in one edit.
    insertion_costs : dict of str -> float, optional
        Cost of truth characters missing from the OCR (one or several: ``{"ll": 0.5}``).
    deletion_costs : dict of str -> float, optional
        Cost of OCR characters with no truth counterpart (one or several).
    symmetric_substitution : bool, default=False
        If True, a cost given for ``(a, b)`` also applies to ``(b, a)`` unless that is given.
    default_substitution_cost, default_insertion_cost, default_deletion_cost : float, default=1.0
        Costs of edits not listed.  Every cost must be a finite number >= 0.
    transposition_costs : dict of (str, str) -> float, optional
        Cost of reading two adjacent different characters ``(first, second)`` (in
        OCR order) where the truth has them swapped (optimal string alignment:
        a transposed pair is not edited further).  ``inf`` forbids one.
    default_transposition_cost : float, default=inf
        Cost of transpositions not listed; ``inf`` allows only the listed ones.

    See Also
    --------
    EditCostEstimator : learns these costs from (OCR, truth) pairs.

    Notes
    -----
    ``distance`` and ``pairwise`` run compiled code with the GIL released for
    long strings; every cell takes the minimum of all three moves, also where the
    characters match, since a match can hide a cheaper path.  Tables with only
    single-character costs run the fast kernel; with transpositions or
    multi-character edits they run the general one, which finds where each
    multi-character edit can apply once per string.  In the fast kernel, unit
    costs (every edit 1) run bit-parallel, and costs that are all whole
    multiples of one power of two (``grid_step``: whole numbers, halves, or
    learned costs from ``EditCostEstimator(resolution=2**-16)``) run on 32-bit
    integers, about twice as fast in ``pairwise``; either gives exactly the
    distances of the general DP.

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
    >>> ocr = WeightedLevenshtein({("rn", "m"): 0.2, ("li", "h"): 0.3})
    >>> ocr.distance("modem", "modern"), ocr.distance("corn", "com")
    (2.0, 0.2)
    >>> ocr.explain("tlie", "the")[1]
    EditOperation(kind='substitute', source='li', target='h', cost=0.3)
    >>> WeightedLevenshtein(default_transposition_cost=0.5).distance("teh", "the")
    0.5
    >>> wl.grid_step  # 0.2 and 0.1 are not multiples of a power of two
    0.0
    >>> WeightedLevenshtein({("l", "h"): 0.25}, default_substitution_cost=2).grid_step
    0.25
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
        transposition_costs=None,
        default_transposition_cost=math.inf,
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
                transposition_costs=transposition_costs,
                default_transposition_cost=default_transposition_cost,
            )
        )

    def _use_tables(self, tables):
        if tables.match is not None and tables.general and (tables.match != 0).any():
            raise ValueError("a WeightedLevenshtein has no match costs; use WeightedEditDistance")
        if getattr(self, "_costs", None) is not None:
            # Immutable, so threads may share it (as its kernel's tables are).
            raise RuntimeError("the tables are already set; build a new metric instead")
        # Single-character tables run the fast kernel; transpositions and
        # multi-character edits the general one (EditKernel).  Other modules of
        # skocrcost reach it as ``_kernel``.
        if tables.general:
            self._kernel = EditKernel(*tables.kernel_args(), *tables.edit_args())
        else:
            self._kernel = CostKernel(*tables.kernel_args())
        self._costs = tables
        # ``distance`` is the compiled method itself: no Python frame in between.
        self.distance = self._kernel.distance

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

    def distance(self, a, b):
        """Weighted Levenshtein distance from ``a`` (OCR side) to ``b`` (truth side).

        (Each instance calls its compiled kernel's ``distance`` directly.)
        """
        return self._kernel.distance(a, b)

    @property
    def grid_step(self):
        """The step ``2**-s`` every cost is a whole multiple of (0.0 if none): such costs
        run on 32-bit integers in ``pairwise``, giving exactly the same distances."""
        return self._kernel.grid_step

    # -- alignments as the kernel writes them (op codes: internal) ----------------------
    def _align(self, a, b):
        """One cheapest alignment of ``a`` to ``b`` as arrays ``(op, src, tgt, cost)``: op
        codes (``OP_*`` in ``skocrcost._kernels``), code points (-1 for a gap) and costs.
        :meth:`explain` gives users the same as :class:`EditOperation` s."""
        return self._kernel.align(a, b)

    def _align_batch(self, X, Y, n_threads=1, costs=False):
        """Align ``X[k]`` to ``Y[k]`` for every k: ``(op, src, tgt, pair)`` (``cost``
        before ``pair`` if ``costs``), the columns of all pairs end to end, as in
        :meth:`_align`; ``pair`` is the index of the pair each column belongs to.  For the
        estimator, the corrector and skocrcost.dask, which count these columns."""
        return self._kernel.align_batch(X, Y, n_threads, costs)

    def align(self, a, b):
        """Deprecated: raw op codes of one alignment; use :meth:`explain`.

        :meta private:
        """
        _deprecated_alignment("align(a, b)")
        return self._align(a, b)

    def align_batch(self, X, Y, n_threads=1, costs=False):
        """Deprecated: raw op codes of many alignments; use :meth:`explain` per pair.

        :meta private:
        """
        _deprecated_alignment("align_batch(X, Y)")
        return self._align_batch(X, Y, n_threads, costs)

    def _pairwise(self, X, Y, n_threads):
        return self._kernel.pairwise(X, Y, n_threads)

    def _encode_y(self, Y):
        return self._kernel._encode_y(Y)

    def __call__(self, a, b):
        """``distance(a, b)``, also for what scikit-learn's ``pairwise_distances`` passes.

        That is ``numpy.str_`` items (from a list of strings) or 1-element rows
        (from an ``(n, 1)`` array); plain strings take the compiled path directly.
        """
        try:
            return self.distance(a, b)
        except TypeError:
            return self.distance(_one_string(a, "a"), _one_string(b, "b"))

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

        Notes
        -----
        The metric keeps the last Y list of at least 256 strings it was given in
        encoded form, and reuses it when the next call passes a list of the same
        ``str`` objects in the same order (compared by identity, not by content:
        a list changed in place, or an equal list of other objects, is encoded
        again).  So a query stream against one lexicon list encodes the lexicon
        once.  That costs up to 8 bytes per character and 16 to 50 per string
        (5.2 to 13.8 MB for 104,334 words of 880,476 characters), and keeps
        those strings alive until another large Y replaces them; pickled or
        copied metrics start without it.

        Examples
        --------
        >>> from skocrcost import WeightedLevenshtein
        >>> wl = WeightedLevenshtein({("l", "h"): 0.2})
        >>> lexicon = ["the", "tie", "bee"] * 100
        >>> wl.pairwise(["tlie", "bce"], lexicon)[:, :3]
        array([[1.2, 1. , 3. ],
               [2. , 2. , 1. ]])
        >>> wl.pairwise(["tle"], lexicon)[0, :3]  # lexicon encoded once, at the first call
        array([0.2, 1. , 2. ])
        """
        X = check_strings(X, "X", allow_empty=True, copy=False)
        if Y is None:
            Y = X
        elif type(Y) is not list:
            Y = check_strings(Y, "Y", allow_empty=True, copy=False)
        # A list is checked as the kernel encodes it, so a lexicon passed again (the
        # same str objects, see ``_encode_y``) is neither checked nor encoded again.
        return self._pairwise(X, Y, n_threads(n_jobs))

    def pairwise_chunked(self, X, Y=None, *, working_memory=None, n_jobs=None):
        """Yield :meth:`pairwise` row blocks that each fit in ``working_memory``.

        Like scikit-learn's ``pairwise_distances_chunked``: for outputs too large
        to hold at once, each block is ``pairwise(X[start:stop], Y)``, with Y
        encoded once for all blocks.

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
        Y = X if Y is None else check_strings(Y, "Y", allow_empty=True, copy=False)
        if working_memory is None:
            working_memory = get_config()["working_memory"]
        working_memory = check_number(working_memory, "working_memory", low=0, low_open=True)
        threads = n_threads(n_jobs)
        # As scikit-learn's get_chunk_n_rows: rows of 8 * len(Y) bytes, at least one.
        rows = max(1, min(len(X), int(working_memory * 2**20) // (8 * max(len(Y), 1))))
        # Checked and encoded above, eagerly (later changes to Y do not reach the
        # blocks); the generator only computes.
        Y = self._encode_y(Y)
        return (
            self._pairwise(X[start : start + rows], Y, threads) for start in range(0, len(X), rows)
        )

    def explain(self, a, b):
        """The edit operations of one cheapest alignment of ``a`` to ``b``.

        Returns
        -------
        list of EditOperation
            ``(kind, source, target, cost)`` per edit, matches included; a
            transposition or a multi-character edit is one operation.  The costs
            sum to ``distance(a, b)``.
        """
        return operations(self.costs, *self._align(a, b))

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

    def transposition_cost(self, first, second):
        """Cost of reading ``first second`` where the truth has ``second first``."""
        return self.costs.transposition_cost(first, second)

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
        extra = f", {len(self.costs.rules)} multi-character edits" if self.costs.rules else ""
        if self.costs.has_transpositions:
            extra += ", transpositions"
        return f"WeightedLevenshtein(<{n} characters with costs{extra}>)"

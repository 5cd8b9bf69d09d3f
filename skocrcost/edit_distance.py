"""LingPipe's WeightedEditDistance: edit weights as log probabilities, proximity and distance."""

from __future__ import annotations

import math
import numbers

from ._costs import CostTables, check_char
from ._kernels import EditKernel
from ._threads import n_threads
from ._validation import check_strings
from .metrics import operations

__all__ = ["WeightedEditDistance"]

# The weight arguments and the cost arguments of CostTables.from_dicts they become.
_NAMES = {
    "match_costs": "match_weights",
    "deletion_costs": "delete_weights",
    "insertion_costs": "insert_weights",
    "substitution_costs": "substitute_weights",
    "transposition_costs": "transpose_weights",
    "default_match_cost": "default_match_weight",
    "default_deletion_cost": "default_delete_weight",
    "default_insertion_cost": "default_insert_weight",
    "default_substitution_cost": "default_substitute_weight",
    "default_transposition_cost": "default_transpose_weight",
}


def _check_weight(value, name):
    """A log probability: a number <= 0, -inf allowed (a forbidden edit), NaN refused."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}: {value!r}")
    value = float(value)
    if math.isnan(value) or value > 0:
        raise ValueError(f"{name} must be a log probability <= 0 (or -inf), got {value!r}")
    return value


def _costs(weights, name, pair_keys=False):
    """Negated weights (costs) of a weight dict, each weight checked under ``name[key]``."""
    if weights is None:
        return None
    if not isinstance(weights, dict):
        raise TypeError(f"{name} must be a dict, got {type(weights).__name__}")
    out = {}
    for key, w in weights.items():
        if pair_keys and isinstance(key, tuple) and len(key) == 2:
            if not all(isinstance(k, str) for k in key):
                raise TypeError(f"keys of {name} must be pairs of strings, got {key!r}")
            if not all(key):
                raise ValueError(f"keys of {name} must be two non-empty strings, got {key!r}")
            if key[0] == key[1]:
                raise ValueError(f"{name} has the key {key!r}: a match, see match_weights")
        out[key] = -_check_weight(w, f"{name}[{key!r}]")
    return out


class WeightedEditDistance:
    """Weighted edit distance with edit weights scaled as log probabilities (LingPipe's).

    Every edit turning ``a`` (the input, e.g. OCR output) into ``b`` (the output,
    e.g. the truth) has a weight ``<= 0``, a log probability in ``log_base``:
    ``-1`` means probability 1/2 in base 2, ``-inf`` forbids the edit.
    ``proximity(a, b)`` is the largest sum of weights over edit sequences turning
    ``a`` into ``b``, matches included (the Viterbi approximation of the log
    probability of ``b`` given ``a``), and ``distance(a, b) = -proximity(a, b)``.
    ``log_likelihood(a, b)`` sums the probabilities of all edit sequences
    instead (the forward algorithm).

    Parameters
    ----------
    match_weights : dict of str -> float, optional
        Weight of reading a character correctly.
    delete_weights : dict of str -> float, optional
        Weight of deleting a character of ``a`` (several characters: one edit).
    insert_weights : dict of str -> float, optional
        Weight of inserting a character of ``b`` (several characters: one edit).
    substitute_weights : dict of (str, str) -> float, optional
        Weight of ``(deleted, inserted)``: reading the first where ``b`` has the
        second.  Keys longer than one character are multi-character edits.
    transpose_weights : dict of (str, str) -> float, optional
        Weight of ``(first, second)``, two adjacent different characters of ``a``
        (in input order) that ``b`` has swapped; a transposed pair is not
        edited further (optimal string alignment).
    default_match_weight : float, default=0.0
    default_delete_weight, default_insert_weight, default_substitute_weight : float, default=-1.0
    default_transpose_weight : float, default=-inf
        Weights of edits not listed.  Every weight must be ``<= 0``; ``-inf`` forbids.
    log_base : float, default=2.0
        The base of the logarithms the weights are in (LingPipe's is 2); only
        :meth:`log_likelihood` depends on it.

    Notes
    -----
    With match weight 0 and substitute, insert and delete weights -1, the
    distance is Levenshtein's with transpose weight ``-inf`` and the optimal
    string alignment distance with transpose weight -1.  With all match
    weights 0, ``distance(s, s) = 0``.  The distance is symmetric when the
    substitution and transposition weights are and each character's insert
    and delete weights are equal.

    Examples
    --------
    >>> from skocrcost import WeightedEditDistance
    >>> osa = WeightedEditDistance(default_transpose_weight=-1.0)
    >>> osa.distance("teh", "the"), osa.proximity("teh", "the")
    (1.0, -1.0)
    >>> WeightedEditDistance().distance("teh", "the")  # no transpositions: Levenshtein
    2.0
    >>> wed = WeightedEditDistance(substitute_weights={("0", "O"): -0.1})
    >>> wed.proximity("0CR", "OCR")
    -0.1
    >>> WeightedEditDistance().log_likelihood("a", "a")  # log2(1 + 2 * 2**-2): 3 alignments
    0.5849625007211562
    """

    def __init__(
        self,
        *,
        match_weights=None,
        delete_weights=None,
        insert_weights=None,
        substitute_weights=None,
        transpose_weights=None,
        default_match_weight=0.0,
        default_delete_weight=-1.0,
        default_insert_weight=-1.0,
        default_substitute_weight=-1.0,
        default_transpose_weight=-math.inf,
        log_base=2.0,
    ):
        tables = CostTables.from_dicts(
            _costs(substitute_weights, "substitute_weights", pair_keys=True),
            _costs(insert_weights, "insert_weights"),
            _costs(delete_weights, "delete_weights"),
            default_substitution_cost=-_check_weight(
                default_substitute_weight, "default_substitute_weight"
            ),
            default_insertion_cost=-_check_weight(default_insert_weight, "default_insert_weight"),
            default_deletion_cost=-_check_weight(default_delete_weight, "default_delete_weight"),
            transposition_costs=_costs(transpose_weights, "transpose_weights"),
            default_transposition_cost=-_check_weight(
                default_transpose_weight, "default_transpose_weight"
            ),
            match_costs=_costs(match_weights, "match_weights"),
            default_match_cost=-_check_weight(default_match_weight, "default_match_weight"),
            allow_infinite=True,
            names=_NAMES,
        )
        self._use(tables, log_base)

    def _use(self, tables, log_base):
        if isinstance(log_base, bool) or not isinstance(log_base, numbers.Real):
            raise TypeError(f"log_base must be a number, got {type(log_base).__name__}")
        if not (math.isfinite(log_base) and log_base > 0 and log_base != 1):
            raise ValueError(f"log_base must be a finite number > 0 other than 1, got {log_base!r}")
        self.costs = tables  # costs are negated weights
        self.log_base = float(log_base)
        self._kernel = EditKernel(*tables.kernel_args(), *tables.edit_args())

    @classmethod
    def _from_tables(cls, tables, log_base):
        obj = cls.__new__(cls)
        obj._use(tables, log_base)
        return obj

    def __reduce__(self):
        return (WeightedEditDistance._from_tables, (self.costs, self.log_base))

    # -- LingPipe's API ------------------------------------------------------------------
    def distance(self, a, b):
        """Minus the proximity: the weight of the best edit sequence, negated (>= 0)."""
        return self._kernel.distance(a, b)

    __call__ = distance

    def proximity(self, a, b):
        """The largest summed weight of an edit sequence turning ``a`` into ``b`` (<= 0)."""
        return 0.0 - self._kernel.distance(a, b)

    def log_likelihood(self, a, b):
        """``log_base`` log of the summed probability of every edit sequence from a to b.

        The forward algorithm: ``log(sum over sequences of base ** (summed weights))``;
        at least :meth:`proximity`.
        """
        return 0.0 - self._kernel.soft_distance(a, b, math.log(self.log_base))

    def log_likelihoods(self, X, Y, *, n_jobs=None):
        """:meth:`log_likelihood` of every pair ``(X[k], Y[k])``, as an array."""
        X = check_strings(X, "X", allow_empty=True)
        Y = check_strings(Y, "Y", allow_empty=True)
        if len(X) != len(Y):
            raise ValueError(f"X and Y must have the same length, got {len(X)} and {len(Y)}")
        scale = math.log(self.log_base)
        return 0.0 - self._kernel.soft_distance_batch(X, Y, scale, n_threads(n_jobs))

    def pairwise(self, X, Y=None, *, n_jobs=None):
        """Distances from every string of X (rows) to every string of Y (default X)."""
        X = check_strings(X, "X", allow_empty=True)
        Y = X if Y is None else check_strings(Y, "Y", allow_empty=True)
        return self._kernel.pairwise(X, Y, n_threads(n_jobs))

    # What the brute-force search of EditDistanceNeighbors calls: the lexicon encoded once.
    def _encode_y(self, Y):
        return self._kernel._encode_y(Y)

    def _pairwise(self, X, Y, n_threads):
        return self._kernel.pairwise(X, Y, n_threads)

    def explain(self, a, b):
        """The edits of one best sequence; each ``cost`` is minus its weight."""
        return operations(self.costs, *self._kernel.align(a, b))

    def match_weight(self, char):
        """Weight of reading ``char`` correctly."""
        return 0.0 - self.costs.match_cost(char)

    def delete_weight(self, char):
        """Weight of deleting ``char`` (a character of the input)."""
        return 0.0 - self.costs.deletion_cost(check_char(char, "char"))

    def insert_weight(self, char):
        """Weight of inserting ``char`` (a character of the output)."""
        return 0.0 - self.costs.insertion_cost(check_char(char, "char"))

    def substitute_weight(self, deleted, inserted):
        """Weight of reading ``deleted`` where the output has ``inserted`` (two different chars)."""
        check_char(deleted, "deleted"), check_char(inserted, "inserted")
        if deleted == inserted:
            raise ValueError(f"a substitution needs two different characters, got {deleted!r}")
        return 0.0 - self.costs.substitution_cost(deleted, inserted)

    def transpose_weight(self, first, second):
        """Weight of reading ``first second`` where the output has ``second first``."""
        return 0.0 - self.costs.transposition_cost(first, second)

    def __eq__(self, other):
        if not isinstance(other, WeightedEditDistance):
            return NotImplemented
        return self.log_base == other.log_base and self.costs == other.costs

    __hash__ = None

    def __repr__(self):
        n = len(self.costs.chars)
        return f"WeightedEditDistance(<{n} characters with weights>, log_base={self.log_base:g})"

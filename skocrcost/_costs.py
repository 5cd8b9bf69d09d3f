"""Cost tables: what every single-character edit costs, in the layout the kernels read.

An alphabet of sorted code points gets ids 1..V; id 0 stands for any other
character, which takes the default costs.  Substitutions are stored sparsely:
explicit costs for listed pairs, and ``rowdef[s] + coldef[t]`` for the rest, so a
learned model over a large (e.g. CJK) alphabet never needs a V x V table.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from ._validation import check_number

# Alphabets up to this size get a dense (V + 1)^2 table in the kernel (8 MiB at most).
DENSE_LIMIT = 1024

EXTENSION_KEY = "skocrcost"


def check_cost(value, name):
    """Return ``value`` as a float if it is a finite number >= 0, else raise naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}: {value!r}")
    value = float(value)
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return value


def _check_char(key, name):
    if not isinstance(key, str):
        raise TypeError(f"keys of {name} must be strings, got {type(key).__name__}: {key!r}")
    if len(key) > 1:
        raise ValueError(
            f"keys of {name} must be single characters (or '' in substitution_costs), got {key!r}"
        )
    return key


@dataclass(frozen=True, eq=False)
class CostTables:
    """Single-character edit costs over an alphabet (see the module docstring).

    Attributes
    ----------
    chars : ndarray of uint32, shape (V,)
        Sorted code points; the character ``chars[i]`` has id ``i + 1``.
    sub_src, sub_tgt : ndarray of int32
        Ids of the substitutions with an explicit cost, sorted and unique.
    sub_cost : ndarray of float64
        Their costs.
    rowdef, coldef : ndarray of float64, shape (V + 1,)
        Any other substitution ``s -> t`` of two different characters costs
        ``rowdef[s] + coldef[t]``; ``rowdef[0]`` alone when ``s`` is outside the alphabet.
    ins, dele : ndarray of float64, shape (V + 1,)
        Insertion and deletion costs by id; index 0 holds the defaults.
    """

    chars: np.ndarray
    sub_src: np.ndarray
    sub_tgt: np.ndarray
    sub_cost: np.ndarray
    rowdef: np.ndarray
    coldef: np.ndarray
    ins: np.ndarray
    dele: np.ndarray

    def __post_init__(self):
        # The kernel follows raw pointers into these arrays and binary-searches them:
        # a table built by hand with an id out of range, an unsorted alphabet or a
        # negative cost would read out of bounds or give a silently wrong distance.
        for name, dtype in _FIELD_DTYPES.items():
            object.__setattr__(self, name, _as_array(getattr(self, name), name, dtype))
        n = len(self.chars) + 1
        if len(self.chars) and (
            self.chars.max() >= _CODE_POINTS or np.any(np.diff(self.chars.astype(np.int64)) <= 0)
        ):
            raise ValueError("chars must be strictly increasing code points below 0x110000")
        for name in ("rowdef", "coldef", "ins", "dele"):
            if len(getattr(self, name)) != n:
                raise ValueError(f"{name} must have len(chars) + 1 = {n} entries")
        if not len(self.sub_src) == len(self.sub_tgt) == len(self.sub_cost):
            raise ValueError("sub_src, sub_tgt and sub_cost must have the same length")
        for name in ("sub_src", "sub_tgt"):
            ids = getattr(self, name)
            if len(ids) and (ids.min() < 0 or ids.max() >= n):
                raise ValueError(f"{name} must hold ids in [0, {n})")
        keys = self.sub_src.astype(np.int64) * n + self.sub_tgt
        if np.any(np.diff(keys) <= 0):
            raise ValueError("(sub_src, sub_tgt) pairs must be sorted and unique")
        for name in ("sub_cost", "ins", "dele", "rowdef", "coldef"):
            if not np.all(np.isfinite(getattr(self, name))):
                raise ValueError(f"{name} must hold finite costs")
        # An unlisted s -> t costs rowdef[s] + coldef[t] (t = 0: a truth character
        # outside the alphabet), or rowdef[0] when s is outside the alphabet.
        lowest = [self.rowdef[0], *(getattr(self, f).min(initial=0.0) for f in _COSTS)]
        if n > 1:
            lowest.append(self.rowdef[1:].min() + self.coldef.min())
        if min(lowest) < 0:
            raise ValueError("every cost (and every rowdef[s] + coldef[t]) must be >= 0")

    def __reduce__(self):
        # Unpickling goes through __init__, so a pickled table is validated too.
        return (type(self), tuple(getattr(self, name) for name in _FIELD_DTYPES))

    # -- construction -----------------------------------------------------------------
    @classmethod
    def from_dicts(
        cls,
        substitution_costs=None,
        insertion_costs=None,
        deletion_costs=None,
        *,
        symmetric_substitution=False,
        default_substitution_cost=1.0,
        default_insertion_cost=1.0,
        default_deletion_cost=1.0,
    ):
        """Build tables from ocr-stringdist style dictionaries, validating every entry."""
        symmetric_substitution = check_flag(symmetric_substitution, "symmetric_substitution")
        dsub = check_cost(default_substitution_cost, "default_substitution_cost")
        dins = check_cost(default_insertion_cost, "default_insertion_cost")
        ddel = check_cost(default_deletion_cost, "default_deletion_cost")
        subs, ins, dele = {}, {}, {}
        for name, table, target in (
            ("insertion_costs", insertion_costs, ins),
            ("deletion_costs", deletion_costs, dele),
        ):
            for key, cost in _items(table, name):
                if _check_char(key, name) == "":
                    raise ValueError(f"{name} has an empty-string key")
                target[key] = check_cost(cost, f"{name}[{key!r}]")
        for key, cost in _items(substitution_costs, "substitution_costs"):
            if not isinstance(key, tuple) or len(key) != 2:
                raise TypeError(
                    f"keys of substitution_costs must be (source, target) pairs, got {key!r}"
                )
            s = _check_char(key[0], "substitution_costs")
            t = _check_char(key[1], "substitution_costs")
            cost = check_cost(cost, f"substitution_costs[{key!r}]")
            # As in ocr-stringdist: ("", t) is an insertion, (s, "") a deletion.
            if s == "" and t == "":
                raise ValueError("substitution_costs has the key ('', ''), which is no edit")
            if s == "":
                ins[t] = min(ins.get(t, cost), cost)
            elif t == "":
                dele[s] = min(dele.get(s, cost), cost)
            elif s != t:
                subs[(s, t)] = cost
        if symmetric_substitution:
            for (s, t), cost in list(subs.items()):
                subs.setdefault((t, s), cost)
        alphabet = set(ins) | set(dele) | {c for pair in subs for c in pair}
        chars = np.array(sorted(ord(c) for c in alphabet), dtype=np.uint32)
        ids = {chr(c): i + 1 for i, c in enumerate(chars)}
        n = len(chars) + 1
        pairs = sorted((ids[s], ids[t], cost) for (s, t), cost in subs.items())
        ins_arr = np.full(n, dins)
        dele_arr = np.full(n, ddel)
        for c, cost in ins.items():
            ins_arr[ids[c]] = cost
        for c, cost in dele.items():
            dele_arr[ids[c]] = cost
        return cls(
            chars=chars,
            sub_src=np.array([p[0] for p in pairs], dtype=np.int32),
            sub_tgt=np.array([p[1] for p in pairs], dtype=np.int32),
            sub_cost=np.array([p[2] for p in pairs], dtype=np.float64),
            rowdef=np.full(n, dsub),
            coldef=np.zeros(n),
            ins=ins_arr,
            dele=dele_arr,
        )

    # -- what the kernel reads ---------------------------------------------------------
    @property
    def dense(self):
        return len(self.chars) <= DENSE_LIMIT

    def kernel_args(self):
        return (
            self.chars,
            self.sub_src,
            self.sub_tgt,
            self.sub_cost,
            self.rowdef,
            self.coldef,
            self.ins,
            self.dele,
            self.dense,
        )

    # -- answers for any characters ------------------------------------------------------
    def _id(self, c, name):
        if not isinstance(c, str) or len(c) != 1:
            raise TypeError(f"{name} must be a single character, got {c!r}")
        i = int(np.searchsorted(self.chars, ord(c)))
        return i + 1 if i < len(self.chars) and self.chars[i] == ord(c) else 0

    def substitution_cost(self, source, target):
        """Cost of reading ``source`` (OCR) where the truth has ``target``; 0 when equal."""
        s, t = self._id(source, "source"), self._id(target, "target")
        if source == target:
            return 0.0
        lo = np.searchsorted(self.sub_src, s, side="left")
        hi = np.searchsorted(self.sub_src, s, side="right")
        j = lo + np.searchsorted(self.sub_tgt[lo:hi], t)
        if j < hi and self.sub_tgt[j] == t:
            return float(self.sub_cost[j])
        return float(self.rowdef[0] if s == 0 else self.rowdef[s] + self.coldef[t])

    def insertion_cost(self, target):
        """Cost of a truth character ``target`` missing from the OCR."""
        return float(self.ins[self._id(target, "target")])

    def deletion_cost(self, source):
        """Cost of an OCR character ``source`` with no truth counterpart."""
        return float(self.dele[self._id(source, "source")])

    def substitution_matrix(self):
        """The dense (V + 1) x (V + 1) substitution table, zero on the diagonal."""
        n = len(self.chars) + 1
        table = self.rowdef[:, None] + self.coldef[None, :]
        table[0, :] = self.rowdef[0]
        table[self.sub_src, self.sub_tgt] = self.sub_cost
        table[np.arange(1, n), np.arange(1, n)] = 0.0
        return table

    # -- ocr-stringdist's JSON layout -------------------------------------------------------
    def _uniform_defaults(self):
        return bool(np.all(self.rowdef[1:] == self.rowdef[0]) and not np.any(self.coldef))

    def to_dict(self):
        """ocr-stringdist's layout; costs it cannot express go under the key ``"skocrcost"``."""
        letters = [chr(c) for c in self.chars]
        dsub = float(self.rowdef[0])
        out = {
            "substitution_costs": [],
            "insertion_costs": {
                c: float(v) for c, v in zip(letters, self.ins[1:], strict=True) if v != self.ins[0]
            },
            "deletion_costs": {
                c: float(v)
                for c, v in zip(letters, self.dele[1:], strict=True)
                if v != self.dele[0]
            },
            "symmetric_substitution": False,
            "default_substitution_cost": dsub,
            "default_insertion_cost": float(self.ins[0]),
            "default_deletion_cost": float(self.dele[0]),
        }
        if self._uniform_defaults() or len(self.chars) > DENSE_LIMIT:
            src, tgt, cost = self.sub_src, self.sub_tgt, self.sub_cost
        else:
            # Spell every pair out, so that ocr-stringdist reads the same costs.
            table = self.substitution_matrix()[1:, 1:]
            src, tgt = np.nonzero(~np.eye(len(letters), dtype=bool))
            cost = table[src, tgt]
            src, tgt = src + 1, tgt + 1
        out["substitution_costs"] = [
            {"from": letters[s - 1], "to": letters[t - 1], "cost": float(c)}
            for s, t, c in zip(src, tgt, cost, strict=True)
            if c != dsub or not self._uniform_defaults()
        ]
        if not self._uniform_defaults():
            # What an edit between a known and an unknown character costs: ocr-stringdist's
            # layout has only one default, so without this a round trip would lose it.
            out[EXTENSION_KEY] = {
                "unseen_substitution_row": dict(
                    zip(letters, self.rowdef[1:].tolist(), strict=True)
                ),
                "unseen_substitution_col": dict(
                    zip(letters, self.coldef[1:].tolist(), strict=True)
                ),
            }
        return out

    @classmethod
    def from_dict(cls, data):
        """Read :meth:`to_dict`'s layout (and ocr-stringdist's), validating every entry."""
        if not isinstance(data, dict):
            raise TypeError(f"data must be a dict, got {type(data).__name__}")
        entries = data.get("substitution_costs", [])
        if not isinstance(entries, (list, tuple)):
            raise TypeError(
                f"substitution_costs must be a list of entries, got {type(entries).__name__}"
            )
        subs = {}
        for item in entries:
            if not isinstance(item, dict) or not {"from", "to", "cost"} <= set(item):
                raise ValueError(
                    f"substitution_costs entries need 'from', 'to' and 'cost', got {item!r}"
                )
            subs[(item["from"], item["to"])] = item["cost"]
        tables = cls.from_dicts(
            subs,
            data.get("insertion_costs"),
            data.get("deletion_costs"),
            symmetric_substitution=data.get("symmetric_substitution", False),
            default_substitution_cost=data.get("default_substitution_cost", 1.0),
            default_insertion_cost=data.get("default_insertion_cost", 1.0),
            default_deletion_cost=data.get("default_deletion_cost", 1.0),
        )
        ext = data.get(EXTENSION_KEY)
        if ext:
            if not isinstance(ext, dict):
                raise TypeError(f"{EXTENSION_KEY!r} must be a dict, got {type(ext).__name__}")
            row, col = (
                dict(_items(ext.get(f"unseen_substitution_{k}"), f"unseen_substitution_{k}"))
                for k in ("row", "col")
            )
            tables = tables._with_unseen(row, col)
        return tables

    def _with_unseen(self, row, col):
        """A copy whose alphabet also holds the keys of ``row``/``col``, with those defaults."""
        letters = {chr(c) for c in self.chars} | set(row) | set(col)
        for key in letters:
            _check_char(key, "unseen substitution costs")
        chars = np.array(sorted(ord(c) for c in letters), dtype=np.uint32)
        remap = np.concatenate([[0], np.searchsorted(chars, self.chars) + 1]).astype(np.int32)
        n = len(chars) + 1

        def spread(old, fill):
            new = np.full(n, fill)
            new[remap] = old
            return new

        rowdef = spread(self.rowdef, self.rowdef[0])
        coldef = spread(self.coldef, 0.0)
        # Either part may be negative (a back-off weight above 1): only the sums
        # rowdef[s] + coldef[t] are costs, and the constructor checks those are >= 0.
        for c, v in row.items():
            rowdef[np.searchsorted(chars, ord(c)) + 1] = check_number(v, f"unseen row cost {c!r}")
        for c, v in col.items():
            coldef[np.searchsorted(chars, ord(c)) + 1] = check_number(v, f"unseen col cost {c!r}")
        return CostTables(
            chars=chars,
            sub_src=remap[self.sub_src],
            sub_tgt=remap[self.sub_tgt],
            sub_cost=self.sub_cost,
            rowdef=rowdef,
            coldef=coldef,
            ins=spread(self.ins, self.ins[0]),
            dele=spread(self.dele, self.dele[0]),
        )

    # -- equality: the same cost for every edit ------------------------------------------
    def __eq__(self, other):
        if not isinstance(other, CostTables):
            return NotImplemented
        if len(self.chars) <= DENSE_LIMIT and len(other.chars) <= DENSE_LIMIT:
            a, b = self._on_alphabet(other), other._on_alphabet(self)
            return all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
        return all(
            np.array_equal(x, y)
            for x, y in zip(self.kernel_args(), other.kernel_args(), strict=True)
        )

    __hash__ = None

    def _on_alphabet(self, other):
        """Dense costs over the union of both alphabets, for comparison."""
        union = np.union1d(self.chars, other.chars)
        pos = np.searchsorted(self.chars, union)
        pos = np.minimum(pos, max(len(self.chars) - 1, 0))
        known = (self.chars[pos] == union) if len(self.chars) else np.zeros(len(union), bool)
        idx = np.concatenate([[0], np.where(known, pos + 1, 0)])
        table = self.substitution_matrix()[np.ix_(idx, idx)]
        table[np.arange(len(idx)), np.arange(len(idx))] = 0.0
        return table, self.ins[idx], self.dele[idx]


_CODE_POINTS = 0x110000

_FIELD_DTYPES = {
    "chars": np.uint32,
    "sub_src": np.int32,
    "sub_tgt": np.int32,
    "sub_cost": np.float64,
    "rowdef": np.float64,
    "coldef": np.float64,
    "ins": np.float64,
    "dele": np.float64,
}


_COSTS = ("sub_cost", "ins", "dele")


def _as_array(value, name, dtype):
    """``value`` as a 1-D array of ``dtype``; ids must be integers (an empty list may be any)."""
    arr = np.asarray(value)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    integer = np.issubdtype(dtype, np.integer)
    allowed = "iu" if integer else "iuf"
    if arr.size and arr.dtype.kind not in allowed:
        what = "integers" if integer else "numbers"
        raise TypeError(f"{name} must hold {what}, got dtype {arr.dtype}")
    if integer and arr.size and (arr.min() < 0 or arr.max() > np.iinfo(dtype).max):
        raise ValueError(f"{name} holds values out of range for {np.dtype(dtype).name}")
    return np.ascontiguousarray(arr, dtype=dtype)


def check_flag(value, name):
    """Return ``value`` if it is a boolean; a string like "false" would be read as True."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a bool, got {type(value).__name__}: {value!r}")
    return bool(value)


def _items(table, name):
    if table is None:
        return []
    if not isinstance(table, dict):
        raise TypeError(f"{name} must be a dict, got {type(table).__name__}")
    return table.items()

"""Cost tables: what every edit costs, in the layout the kernels read.

An alphabet of sorted code points gets ids 1..V; id 0 stands for any other
character, which takes the default costs.  Substitutions are stored sparsely:
explicit costs for listed pairs, and ``rowdef[s] + coldef[t]`` for the rest, so a
learned model over a large (e.g. CJK) alphabet never needs a V x V table.

Beyond single characters (what ``CostKernel`` reads), tables may hold match
costs, transpositions of two adjacent characters and multi-character edits
("rules" such as ``rn -> m``); tables with any of those are *general* and run
on ``EditKernel`` (both in :mod:`skocrcost._kernels`).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field, fields, replace

import numpy as np

from ._validation import check_flag, check_number  # check_flag: re-exported

# Alphabets up to this size get a dense (V + 1)^2 table in the kernel (8 MiB at most).
DENSE_LIMIT = 1024

EXTENSION_KEY = "skocrcost"


def check_cost(value, name, allow_infinite=False):
    """Return ``value`` as a float if it is a finite number >= 0, else raise naming ``name``.

    With ``allow_infinite``, ``inf`` (a forbidden edit) is accepted too.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}: {value!r}")
    value = float(value)
    if math.isnan(value) or value < 0 or (value == math.inf and not allow_infinite):
        what = "a number >= 0 (inf allowed)" if allow_infinite else "a finite number >= 0"
        raise ValueError(f"{name} must be {what}, got {value!r}")
    return value


def _check_char(key, name):
    if not isinstance(key, str):
        raise TypeError(f"keys of {name} must be strings, got {type(key).__name__}: {key!r}")
    if len(key) > 1:
        raise ValueError(f"keys of {name} must be single characters, got {key!r}")
    return key


def _check_piece(key, name):
    if not isinstance(key, str):
        raise TypeError(f"keys of {name} must be strings, got {type(key).__name__}: {key!r}")
    return key


def _pair_key(key, name):
    if not isinstance(key, tuple) or len(key) != 2:
        raise TypeError(f"keys of {name} must be (source, target) pairs, got {key!r}")
    return _check_piece(key[0], name), _check_piece(key[1], name)


def check_char(c, name):
    """``c`` if it is one character; TypeError naming the argument ``name`` otherwise."""
    if not isinstance(c, str) or len(c) != 1:
        raise TypeError(f"{name} must be a single character, got {c!r}")
    return c


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
    match : ndarray of float64, shape (V + 1,), or None
        Cost of reading each character correctly (None: all 0, as in Levenshtein).
    trans_src, trans_tgt, trans_cost : ndarray
        Listed transpositions ``first second -> second first`` by id, sorted.
    trans_default : float
        Cost of any other transposition of two different characters; inf: none.
    rules : tuple of (str, str, float)
        Multi-character edits (source, target, cost), sorted; one side longer
        than one character, either side possibly empty.
    """

    chars: np.ndarray
    sub_src: np.ndarray
    sub_tgt: np.ndarray
    sub_cost: np.ndarray
    rowdef: np.ndarray
    coldef: np.ndarray
    ins: np.ndarray
    dele: np.ndarray
    # General tables (see the module docstring); the defaults make Levenshtein tables.
    match: np.ndarray | None = None  # (V + 1,) cost of matching each character; None: all 0
    trans_src: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    trans_tgt: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    trans_cost: np.ndarray = field(default_factory=lambda: np.zeros(0))
    trans_default: float = math.inf  # any other transposition; inf: not allowed
    rules: tuple = ()  # ((source, target, cost), ...) sorted; one side longer than 1 char

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
        # +inf is a forbidden edit (WeightedEditDistance's -inf weight); NaN and -inf are errors.
        for name in ("sub_cost", "ins", "dele", "rowdef", "coldef"):
            if not np.all(np.isfinite(getattr(self, name)) | (getattr(self, name) == np.inf)):
                raise ValueError(f"{name} must hold costs that are finite or +inf")
        if self.match is not None:
            match = _as_array(self.match, "match", np.float64)
            object.__setattr__(self, "match", match)
            if len(match) != n or not np.all(match >= 0):  # also refuses NaN
                raise ValueError(f"match must hold len(chars) + 1 = {n} costs >= 0")
        for name in ("trans_src", "trans_tgt"):
            ids = _as_array(getattr(self, name), name, np.int32)
            object.__setattr__(self, name, ids)
            if len(ids) and (ids.min() < 1 or ids.max() >= n):
                raise ValueError(f"{name} must hold ids in [1, {n})")
        trans_cost = _as_array(self.trans_cost, "trans_cost", np.float64)
        object.__setattr__(self, "trans_cost", trans_cost)
        if len(trans_cost) != len(self.trans_src) or not np.all(trans_cost >= 0):
            raise ValueError("trans_cost must hold one cost >= 0 per listed transposition")
        if not self.trans_default >= 0:
            raise ValueError("trans_default must be a cost >= 0 (inf: no transpositions)")
        # An unlisted s -> t costs rowdef[s] + coldef[t] (t = 0: a truth character
        # outside the alphabet), or rowdef[0] when s is outside the alphabet.
        lowest = [self.rowdef[0], *(getattr(self, f).min(initial=0.0) for f in _COSTS)]
        if n > 1:
            lowest.append(self.rowdef[1:].min() + self.coldef.min())
        if min(lowest) < 0:
            raise ValueError("every cost (and every rowdef[s] + coldef[t]) must be >= 0")

    def __reduce__(self):
        # Unpickling goes through __init__, so a pickled table is validated too.
        return (type(self), tuple(getattr(self, f.name) for f in fields(self)))

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
        transposition_costs=None,
        default_transposition_cost=math.inf,
        match_costs=None,
        default_match_cost=0.0,
        allow_infinite=False,
        names=None,
    ):
        """Build tables from ocr-stringdist style dictionaries, validating every entry.

        Keys longer than one character are multi-character edits, as in
        ocr-stringdist: ``{("rn", "m"): 0.2}`` in ``substitution_costs``,
        ``{"ab": 0.3}`` in ``insertion_costs`` or ``deletion_costs``.
        ``names`` maps each argument's name to the one used in error messages.
        """
        name = {
            k: k
            for k in (
                "substitution_costs",
                "insertion_costs",
                "deletion_costs",
                "transposition_costs",
                "match_costs",
                "default_substitution_cost",
                "default_insertion_cost",
                "default_deletion_cost",
                "default_transposition_cost",
                "default_match_cost",
            )
        }
        name.update(names or {})
        symmetric_substitution = check_flag(symmetric_substitution, "symmetric_substitution")

        def cost_of(value, label):
            return check_cost(value, label, allow_infinite)

        dsub = cost_of(default_substitution_cost, name["default_substitution_cost"])
        dins = cost_of(default_insertion_cost, name["default_insertion_cost"])
        ddel = cost_of(default_deletion_cost, name["default_deletion_cost"])
        dmatch = cost_of(default_match_cost, name["default_match_cost"])
        dtrans = check_cost(
            default_transposition_cost, name["default_transposition_cost"], allow_infinite=True
        )
        subs, ins, dele, rules = {}, {}, {}, {}

        def put(table, key, cost):
            table[key] = min(table.get(key, cost), cost)

        for arg, table, side in (
            ("insertion_costs", insertion_costs, 1),
            ("deletion_costs", deletion_costs, 0),
        ):
            label = name[arg]
            for key, cost in _items(table, label):
                if _check_piece(key, label) == "":
                    raise ValueError(f"{label} has an empty-string key")
                cost = cost_of(cost, f"{label}[{key!r}]")
                if len(key) == 1:
                    put(ins if side else dele, key, cost)
                else:
                    put(rules, ("", key) if side else (key, ""), cost)
        label = name["substitution_costs"]
        mirrored = {}
        for key, cost in _items(substitution_costs, label):
            s, t = _pair_key(key, label)
            cost = cost_of(cost, f"{label}[{key!r}]")
            # As in ocr-stringdist: ("", t) is an insertion, (s, "") a deletion.
            if s == "" and t == "":
                raise ValueError(f"{label} has the key ('', ''), which is no edit")
            if s == t:
                continue
            if len(s) == 1 and len(t) == 1:
                subs[(s, t)] = cost
            elif len(s + t) == 1:  # one character inserted or deleted
                put(ins if s == "" else dele, s + t, cost)
            elif s == "" or t == "":
                put(rules, (s, t), cost)
            else:
                rules[(s, t)] = cost
            if symmetric_substitution and s and t:
                mirrored.setdefault((t, s), cost)
        for (s, t), cost in mirrored.items():
            (subs if len(s) == 1 and len(t) == 1 else rules).setdefault((s, t), cost)
        trans = {}
        label = name["transposition_costs"]
        for key, cost in _items(transposition_costs, label):
            s, t = _pair_key(key, label)
            _check_char(s, label)
            _check_char(t, label)
            if len(s) != 1 or len(t) != 1 or s == t:
                raise ValueError(f"{label} keys must be two different characters, got {key!r}")
            trans[(s, t)] = check_cost(cost, f"{label}[{key!r}]", allow_infinite=True)
        match = {}
        label = name["match_costs"]
        for key, cost in _items(match_costs, label):
            if _check_char(key, label) == "":
                raise ValueError(f"{label} has an empty-string key")
            match[key] = cost_of(cost, f"{label}[{key!r}]")

        alphabet = set(ins) | set(dele) | set(match) | {c for p in (*subs, *trans) for c in p}
        chars = np.array(sorted(ord(c) for c in alphabet), dtype=np.uint32)
        ids = {chr(c): i + 1 for i, c in enumerate(chars)}
        n = len(chars) + 1
        pairs = sorted((ids[s], ids[t], cost) for (s, t), cost in subs.items())
        tpairs = sorted((ids[s], ids[t], cost) for (s, t), cost in trans.items())
        ins_arr = np.full(n, dins)
        dele_arr = np.full(n, ddel)
        match_arr = np.full(n, dmatch)
        for table, arr in ((ins, ins_arr), (dele, dele_arr), (match, match_arr)):
            for c, cost in table.items():
                arr[ids[c]] = cost
        return cls(
            chars=chars,
            sub_src=np.array([p[0] for p in pairs], dtype=np.int32),
            sub_tgt=np.array([p[1] for p in pairs], dtype=np.int32),
            sub_cost=np.array([p[2] for p in pairs], dtype=np.float64),
            rowdef=np.full(n, dsub),
            coldef=np.zeros(n),
            ins=ins_arr,
            dele=dele_arr,
            match=match_arr if np.any(match_arr != 0) else None,
            trans_src=np.array([p[0] for p in tpairs], dtype=np.int32),
            trans_tgt=np.array([p[1] for p in tpairs], dtype=np.int32),
            trans_cost=np.array([p[2] for p in tpairs], dtype=np.float64),
            trans_default=dtrans,
            rules=tuple(sorted((s, t, c) for (s, t), c in rules.items())),
        )

    def rounded(self, step):
        """These tables with every cost rounded up to a whole multiple of ``step``.

        With ``step`` a power of two, sums of the rounded costs are exact in
        double arithmetic, so :meth:`skocrcost.WeightedLevenshtein.pairwise` can
        run on whole numbers of steps (see ``grid_step``).  Rounding up keeps
        every sum ``rowdef[s] + coldef[t]`` >= 0; forbidden edits stay ``inf``.
        """

        def up(costs):
            return np.ceil(np.asarray(costs, dtype=np.float64) / step) * step

        names = (*_COSTS, "rowdef", "coldef", "trans_cost")
        return replace(
            self,
            **{name: up(getattr(self, name)) for name in names},
            match=None if self.match is None else up(self.match),
            trans_default=float(up(self.trans_default)),
            rules=tuple((s, t, float(up(c))) for s, t, c in self.rules),
        )

    # -- what the kernel reads ---------------------------------------------------------
    @property
    def dense(self):
        return len(self.chars) <= DENSE_LIMIT

    @property
    def has_transpositions(self):
        return self.trans_default < math.inf or bool(np.any(self.trans_cost < math.inf))

    @property
    def general(self):
        """Whether these tables need the general kernel (matches, transpositions, rules)."""
        has_match = self.match is not None and bool(np.any(self.match != 0))
        return bool(self.rules) or self.has_transpositions or has_match

    def edit_args(self):
        """What ``EditKernel`` reads beyond :meth:`kernel_args`."""
        n = len(self.chars) + 1
        match = np.zeros(n) if self.match is None else self.match
        keys = self.trans_src.astype(np.int64) * n + self.trans_tgt
        pieces = sorted({p for s, t, _ in self.rules for p in (s, t)} - {""})
        pieces = ["", *pieces]
        index = {p: k for k, p in enumerate(pieces)}
        off = np.zeros(len(pieces) + 1, dtype=np.int64)
        np.cumsum([len(p) for p in pieces], out=off[1:])
        cps = np.array([ord(c) for c in "".join(pieces)], dtype=np.uint32)
        return (
            match,
            keys,
            self.trans_cost,
            float(self.trans_default),
            cps,
            off,
            np.array([index[s] for s, _, _ in self.rules], dtype=np.int32),
            np.array([index[t] for _, t, _ in self.rules], dtype=np.int32),
            np.array([c for _, _, c in self.rules], dtype=np.float64),
        )

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
        check_char(c, name)
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

    def match_cost(self, char):
        """Cost of reading ``char`` correctly (0 unless the tables say otherwise)."""
        i = self._id(char, "char")
        return 0.0 if self.match is None else float(self.match[i])

    def transposition_cost(self, first, second):
        """Cost of reading ``first second`` where the truth has ``second first``."""
        s, t = self._id(first, "first"), self._id(second, "second")
        if first == second:
            raise ValueError(f"a transposition needs two different characters, got {first!r}")
        hit = np.flatnonzero((self.trans_src == s) & (self.trans_tgt == t)) if s and t else []
        return float(self.trans_cost[hit[0]]) if len(hit) else float(self.trans_default)

    def _edit_state(self):
        """Matches, transpositions and rules as plain Python values, for equality."""
        letters = [chr(c) for c in self.chars]
        match = {} if self.match is None else dict(zip(["", *letters], self.match.tolist()))
        trans = {
            (letters[s - 1], letters[t - 1]): c
            for s, t, c in zip(self.trans_src, self.trans_tgt, self.trans_cost.tolist())
        }
        default = match.get("", 0.0)
        match = {c: v for c, v in match.items() if v != default}
        return match, default, trans, float(self.trans_default), self.rules

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
        ext = {}
        if not self._uniform_defaults():
            # What an edit between a known and an unknown character costs: ocr-stringdist's
            # layout has only one default, so without this a round trip would lose it.
            ext["unseen_substitution_row"] = dict(
                zip(letters, self.rowdef[1:].tolist(), strict=True)
            )
            ext["unseen_substitution_col"] = dict(
                zip(letters, self.coldef[1:].tolist(), strict=True)
            )
        # Multi-character edits sit in the same dictionaries, as in ocr-stringdist.
        for s, t, c in self.rules:
            if s and t:
                out["substitution_costs"].append({"from": s, "to": t, "cost": float(c)})
            elif t:
                out["insertion_costs"][t] = float(c)
            else:
                out["deletion_costs"][s] = float(c)
        # What ocr-stringdist has no place for goes under the extension key.
        match, dmatch, trans, dtrans, _ = self._edit_state()
        if trans:
            ext["transposition_costs"] = [
                {"first": s, "second": t, "cost": c} for (s, t), c in trans.items()
            ]
        if dtrans < math.inf:
            ext["default_transposition_cost"] = dtrans
        if match:
            ext["match_costs"] = match
        if dmatch:
            ext["default_match_cost"] = dmatch
        if ext:
            out[EXTENSION_KEY] = ext
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
        ext = data.get(EXTENSION_KEY) or {}
        if not isinstance(ext, dict):
            raise TypeError(f"data[{EXTENSION_KEY!r}] must be a dict, got {type(ext).__name__}")
        trans = {}
        for item in ext.get("transposition_costs", []):
            if not isinstance(item, dict) or not {"first", "second", "cost"} <= set(item):
                raise ValueError(
                    f"transposition_costs entries need 'first', 'second' and 'cost', got {item!r}"
                )
            trans[(item["first"], item["second"])] = item["cost"]
        tables = cls.from_dicts(
            subs,
            data.get("insertion_costs"),
            data.get("deletion_costs"),
            symmetric_substitution=data.get("symmetric_substitution", False),
            default_substitution_cost=data.get("default_substitution_cost", 1.0),
            default_insertion_cost=data.get("default_insertion_cost", 1.0),
            default_deletion_cost=data.get("default_deletion_cost", 1.0),
            transposition_costs=trans,
            default_transposition_cost=ext.get("default_transposition_cost", math.inf),
            match_costs=ext.get("match_costs"),
            default_match_cost=ext.get("default_match_cost", 0.0),
        )
        if "unseen_substitution_row" in ext or "unseen_substitution_col" in ext:
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
        return replace(
            self,
            chars=chars,
            sub_src=remap[self.sub_src],
            sub_tgt=remap[self.sub_tgt],
            rowdef=rowdef,
            coldef=coldef,
            ins=spread(self.ins, self.ins[0]),
            dele=spread(self.dele, self.dele[0]),
            match=None if self.match is None else spread(self.match, self.match[0]),
            trans_src=remap[self.trans_src],
            trans_tgt=remap[self.trans_tgt],
        )

    # -- equality: the same cost for every edit ------------------------------------------
    def __eq__(self, other):
        if not isinstance(other, CostTables):
            return NotImplemented
        if self._edit_state() != other._edit_state():
            return False
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


def _items(table, name):
    if table is None:
        return []
    if not isinstance(table, dict):
        raise TypeError(f"{name} must be a dict, got {type(table).__name__}")
    return table.items()

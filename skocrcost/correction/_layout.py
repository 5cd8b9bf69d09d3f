"""Lines laid out for the compiled beam search (``_kernels.search_lines``).

The kernel reads words by id and each word's readings (:class:`_Readings` of the
decoder) as a reading set, by index.  What does not change from one call to the
next (the ids of words, each word's reading set before its recurrences, the steps
of each token) is laid out once per fitted corrector and parameters
(:class:`Layout`), so that a text of words seen before costs no layout; each call
adds its lines and the recurrences of its words (:class:`Batch`).
"""

from __future__ import annotations

import os
import threading
import weakref
from bisect import bisect_right
from itertools import accumulate, chain

import numpy as np

from .._kernels import NEVER


class _Column:
    """A growing array: appended to as a list, read as a numpy array.

    A view handed out stays valid: growing copies into a new buffer, and new items
    are written past the end of every earlier view.
    """

    def __init__(self, dtype, first=()):
        self.buf = np.empty(0, dtype=dtype)
        self.size = 0
        self.pending = list(first)

    def __len__(self):
        return self.size + len(self.pending)

    def append(self, x):
        self.pending.append(x)

    def extend(self, xs):
        self.pending.extend(xs)

    def array(self):
        if self.pending:
            need = self.size + len(self.pending)
            if need > len(self.buf):  # doubling: each item copied a bounded number of times
                grown = np.empty(max(need, 2 * len(self.buf)), dtype=self.buf.dtype)
                grown[: self.size] = self.buf[: self.size]
                self.buf = grown
            self.buf[self.size : need] = self.pending
            self.size, self.pending = need, []
        return self.buf[: self.size]


class Layout:
    """The words, reading sets and token steps of a decoder's parameters, kept across calls.

    Bounded: emptied when it holds ``max_sets`` reading sets or ``max_tokens``
    tokens (the decoder's cache bounds).  Calls from several threads lay out
    their lines one at a time (``lock``).
    """

    def __init__(self, key=None):
        self.key = key  # what the readings depend on (the corrector's parameters)
        self.lock = threading.Lock()
        self.vocabulary = None
        self.clear()
        _LAYOUTS.add(self)

    def clear(self):
        self.ids = {}  # word -> id
        self.ctx, self.pred = _Column(np.int64), _Column(np.int64)
        self.sets = {}  # (looked-up word, mixed[, "unsought"]) -> its reading set's index
        self.keys = []  # each set's (word, mixed)
        self.readings = []  # each set's readings (before the call's recurrences)
        self.r_start, self.r_word = _Column(np.int64, [0]), _Column(np.int64)
        self.r_score, self.r_priced = _Column(np.float64), _Column(np.uint8)
        self.v_start, self.v_cost = _Column(np.int64, [0]), _Column(np.float64)
        self.token_steps = {}  # token -> its steps (see steps)
        self._offsets = None  # (variant offset, an array of it): see offsets

    def word(self, w):
        """The id of the (lower-cased) word ``w``, its language-model ids noted."""
        i = self.ids.get(w)
        if i is None:
            i = self.ids[w] = len(self.ids)
            known = self.vocabulary.get(w, -1)
            self.ctx.append(len(self.vocabulary) if w == "<s>" else known)
            self.pred.append(NEVER if w == "<s>" else known)
        return i

    def reading_set(self, dec, o, mixed):
        """The index of the readings of ``o`` (``NoisyChannelDecoder._free_readings``).

        A word the call has not looked up (a lexicon word that only a join across a
        space reaches) is read as the decoder reads it: with its candidates if its
        readings are kept from a call that looked it up, else alone, a set of its own.
        """
        if o in dec._wanted or (o, mixed) in dec._readings_cache:
            key = (o, mixed)
        else:
            key = (o, mixed, "unsought")
        i = self.sets.get(key)
        if i is not None:
            return i
        r = dec._free_readings(o, mixed)
        i = self.sets[key] = len(self.readings)
        self.keys.append((o, mixed))
        self.readings.append(r)
        ids = self.ids
        for w in r.lower:
            if w not in ids:  # (most words have an id already: no call for them)
                self.word(w)
        self.r_word.extend(map(ids.__getitem__, r.lower))
        self.r_score.extend(r.score_tuple)
        priced = r.priced.tolist()
        self.r_priced.extend(priced)
        self.r_start.append(len(self.r_word))
        # Keeping an out-of-lexicon word may also read it as a variant (_keep_variant).
        costs = None if priced[0] or mixed else dec._variant_costs(o, r.meant[1:])
        if costs is not None:
            self.v_cost.extend(costs.tolist())
        self.v_start.append(len(self.v_cost))
        return i

    def offsets(self, offset):
        """``offset`` for every reading set: one array kept across calls, grown by
        doubling (a call's work stays its own, not the size of the tables)."""
        n = len(self.readings)
        held = self._offsets
        if held is None or held[0] != offset or len(held[1]) < n:
            size = max(n, 2 * len(held[1])) if held is not None and held[0] == offset else n
            held = self._offsets = (offset, np.full(size, offset))
        return held[1][:n]  # (read-only to the kernel: threads may share it)

    def steps(self, dec, token):
        """The steps of ``token``, ``(ids, pieces)``: for each of its words a reading
        set's index and the piece of the token it reads, or ``-1 - id`` and None for
        a word left as it is."""
        laid = self.token_steps.get(token)
        if laid is None:
            pairs = [
                (self.reading_set(dec, o, mixed), j) if fix else (-1 - self.word(o.lower()), None)
                for j, o, fix, mixed in dec._slots(token)
            ]
            laid = self.token_steps[token] = (
                tuple(step for step, _ in pairs),
                tuple(j for _, j in pairs),
            )
        return laid


def _token_starts(laid):
    """Where the steps of each token of a line start among the line's, and the end."""
    return list(accumulate((len(ids) for ids, _ in laid), initial=0))


_LAYOUTS = weakref.WeakSet()  # every layout, for _after_fork


def _after_fork():
    """In a forked process (``OCRCorrector.predict``'s workers): a layout that another
    thread of the parent was writing when it forked, its lock held by a thread the
    child does not have, gets a lock of its own and is laid out afresh (its tables
    may be half-written)."""
    for layout in list(_LAYOUTS):
        if layout.lock.locked():
            layout.lock = threading.Lock()
            layout.vocabulary = None  # the next Batch clears it


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


class Batch:
    """One call's lines on a :class:`Layout`: their steps, and the kernel's arrays."""

    def __init__(self, decoder, layout, max_sets, max_tokens):
        self.decoder, self.layout = decoder, layout
        if layout.vocabulary is None or (
            len(layout.readings) >= max_sets or len(layout.token_steps) >= max_tokens
        ):  # new, or full: start afresh (bounded memory on long texts)
            lm = decoder.language_model if decoder._uses_lm() else None
            layout.vocabulary = lm.vocabulary_ if lm is not None else {}
            layout.clear()
        self.start = layout.word("<s>")
        self.readings = layout.readings
        self.steps, self.lines = [], []
        self.laid = []  # each line's tokens' steps (Layout.steps)
        # Two tokens read as one word (``join_cost``): by line, each its first token,
        # the line's steps before the first and after the second, and its reading set.
        self.joins, self.join_start = [], [0]

    def add_line(self, tokens):
        start, dec, steps = len(self.steps), self.decoder, self.layout.steps
        laid = [steps(dec, token) for token in tokens]
        for ids, _ in laid:
            self.steps += ids
        self.laid.append(laid)
        self.lines.append((start, len(self.steps)))
        joins = dec._joins(tokens) if dec.join_cost is not None else ()
        if joins:  # (each token's first step in the line)
            tok_start = _token_starts(laid)
            for i, joined in joins:
                at = self.layout.reading_set(dec, joined, False)
                self.joins.append((i, tok_start[i], tok_start[i + 2], at))
        self.join_start.append(len(self.joins))

    def picked(self, chosen):
        """For each line, the readings ``chosen`` (the kernel's choice at each step: 0
        keeps the word, -1 is a word left as it is) that change a word: ``{(token,
        piece): (word,)}`` in the order of the steps.  Only the steps of changes are
        read back: most steps keep their word."""
        out = [{} for _ in self.lines]
        line, stop = -1, 0
        for p in np.flatnonzero(chosen > 0).tolist():
            while p >= stop:  # (the lines come in order of their steps)
                line += 1
                start, stop = self.lines[line]
                tok_start = None
            if tok_start is None:
                tok_start = _token_starts(self.laid[line])
            i = bisect_right(tok_start, p - start) - 1  # (past tokens without steps)
            ids, pieces = self.laid[line][i]
            at = p - start - tok_start[i]
            out[line][i, pieces[at]] = (self.readings[ids[at]].words[chosen[p]],)
        return out

    def arrays(self):
        """The kernel's arrays, in the order of ``search_lines``'s parameters: the layout's,
        and this call's recurrences (``v_rec``, subtracted from keeping a step's word);
        and its ``joins`` (None: none)."""
        lay, dec = self.layout, self.decoder
        # One value per step, each set's computed once: the call's work stays the
        # size of its lines, not of the sets the layout keeps across calls.
        sets = [at for *_, at in self.joins]
        v_rec, j_rec = np.zeros(len(self.steps)), np.zeros(len(sets))
        if dec.recurrence_weight:  # (else none counts)
            rec = {}
            for s in chain(self.steps, sets):
                if s >= 0 and s not in rec:
                    o, mixed = lay.keys[s]
                    rec[s] = dec._recurrence(o) if dec._rewarded(lay.readings[s], mixed) else 0.0
            v_rec[:] = [rec.get(s, 0.0) for s in self.steps]
            j_rec[:] = [rec[s] for s in sets]
        steps = np.array(self.steps, dtype=np.int64)
        starts = np.array([0] + [stop for _, stop in self.lines], dtype=np.int64)
        joins = None
        if self.joins:
            i64 = np.int64
            columns = (np.array(c, dtype=i64) for c in zip(*self.joins, strict=True))
            joins = (np.array(self.join_start, dtype=i64), *columns, j_rec)
        return (
            lay.ctx.array(),
            lay.pred.array(),
            lay.r_start.array(),
            lay.r_word.array(),
            lay.r_score.array(),
            lay.r_priced.array(),
            lay.v_start.array(),
            lay.v_cost.array(),
            lay.offsets(dec.variant_offset),
            v_rec,
            steps,
            starts,
        ), joins

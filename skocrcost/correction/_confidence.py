"""Do no harm: a learned confidence that a proposed change makes a line better.

The decoder proposes changes; some are wrong (a name "corrected" to a lexicon
word, a possessive, a half-corrected token).  The corrector learns, on training
lines it was not fitted on, which of its changes help: each change is described
by its shape (case, capitals, inner punctuation, a possessive, digits, length),
what it does (edit distance, channel cost, whether the original and the new
words are lexicon words, whether only case or punctuation changes), its
context (the language model's view of the old and the new word after the words
before them, the start of a sentence) and its recurrence in the lines around it, and
labelled by whether it brings the token nearer to the truth in characters.  A
gradient-boosted classifier learns ``P(the change helps)``; a change is kept
only when that probability reaches the corrector's ``min_confidence``.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Mapping
from itertools import accumulate, chain, repeat
from typing import NamedTuple

import numpy as np

from ..metrics import WeightedLevenshtein
from ._cached import LeavesCachesOut
from ._decoder import SLOTS_CACHE_SIZE
from ._priors import log_probability_pairs
from ._tokens import SENTENCE_END, correctable, split_core, split_token
from ._trees import BoostedTrees

_UNIT = WeightedLevenshtein()
# Log-probabilities of words the language model never saw are clipped here.
_FLOOR = -30.0


class Change(NamedTuple):
    """A change the corrector proposed to a line.

    ``line`` is the index of the line in the text, ``start`` and ``stop`` the
    whitespace tokens it spans, ``original`` and ``corrected`` the tokens
    before and after (joined by spaces), ``confidence`` the learned probability
    that it brings the line nearer to its truth, and ``applied`` whether the
    corrector made it (``confidence >= min_confidence``).
    """

    line: int
    start: int
    stop: int
    original: str
    corrected: str
    confidence: float
    applied: bool


class CoreLines(Mapping):
    """The lines each core of a whole text occurs on, ``{core: [line, ...]}`` (a line's
    index once per occurrence, ascending), held as two arrays and each core's place
    in them: built by one sort over a text of millions of tokens, and sent to worker
    processes at little cost."""

    def __init__(self, place, starts, lines):
        self._place, self._starts, self._lines = place, starts, lines

    @classmethod
    def of(cls, sequences, core_of):
        """Of the tokens of ``sequences`` (lists of tokens, one per line) that have a core
        in ``core_of`` (token -> core)."""
        place = {}  # (the cores in the order the text first uses them, as a dict's)
        for core in core_of.values():
            place.setdefault(core, len(place))
        code = {token: place[core] for token, core in core_of.items()}
        ids = np.fromiter(map(code.get, chain.from_iterable(sequences), repeat(-1)), np.intp)
        lengths = np.fromiter(map(len, sequences), np.intp, len(sequences))
        line_of = np.repeat(np.arange(len(sequences)), lengths)
        kept = ids >= 0
        ids, line_of = ids[kept], line_of[kept]
        order = np.argsort(ids, kind="stable")  # (stable: each core's lines ascending)
        starts = np.zeros(len(place) + 1, np.intp)
        np.cumsum(np.bincount(ids, minlength=len(place)), out=starts[1:])
        return cls(place, starts, line_of[order])

    def __getitem__(self, core):
        k = self._place[core]
        return self._lines[self._starts[k] : self._starts[k + 1]].tolist()

    def __iter__(self):
        return iter(self._place)

    def __len__(self):
        return len(self._place)


class TextNoise(NamedTuple):
    """What the change features read of the whole text, not of a change's line alone
    (:meth:`ChangeFeatures._text_facts`): the lines each core (lower-cased) occurs
    on (a line's index in the text once per occurrence, ascending), the share of
    unknown words of each line, alone and with the lines around it (``NEARBY``),
    and the index in the text of the first line these shares are of."""

    cores: Mapping
    line: np.ndarray
    nearby: np.ndarray
    first: int = 0

    def lines(self, start, stop):
        """The facts of the text's lines ``start:stop``, read in the whole text."""
        return self._replace(
            line=self.line[start:stop], nearby=self.nearby[start:stop], first=self.first + start
        )


def change_spans(tokens, corrected):
    """``[(start, stop)]``: the runs of tokens a correction changed.

    A run starts at a changed token and takes the tokens after it that the
    correction emptied (joined to it, or dropped).
    """
    spans, n, i = [], len(tokens), 0
    while i < n:
        if corrected[i] == tokens[i]:
            i += 1
            continue
        stop = i + 1
        while stop < n and not corrected[stop] and tokens[stop]:
            stop += 1
        spans.append((i, stop))
        i = stop
    return spans


def _all_spans(sequences, corrected):
    """``[(line, start, stop)]``: every change of every line (:func:`change_spans`)."""
    return [
        (i, a, b)
        for i, (seq, fix) in enumerate(zip(sequences, corrected, strict=True))
        for a, b in change_spans(seq, fix)
    ]


def _helps(original, corrected, truth):
    """Whether a change gives its tokens their true words: the words of the corrected
    tokens are the truth's, and the tokens are nearer to the truth in characters than
    before.  (A change of one wrong word to another, nearer or not, does not help:
    on noisy text such changes make lines worse as often as better.)"""
    new, want = _joined(corrected), _joined(truth)
    if _core(new) != _core(want):
        return False
    return _UNIT.distance(new, want) < _UNIT.distance(_joined(original), want)


def _joined(tokens):
    return " ".join(t for t in tokens if t)


def _core(text):
    return "".join(split_token(t)[1] for t in text.split())


class ChangeFeatures(LeavesCachesOut):
    """The description of each change, from a fitted corrector's parts."""

    # each token's facts, and what each kind of change does: computed on use
    _CACHES = ("_token_counts", "_described")

    NAMES = (
        "n_tokens",
        "n_words_out",
        "original_known",
        "corrected_known",
        "case_only",
        "letters_same",
        "capital",
        "all_capitals",
        "sentence_start",
        "inner_punctuation",
        "hyphen",
        "possessive",
        "digit",
        "length",
        "length_change",
        "part_of_original",
        "distance",
        "relative_distance",
        "channel_cost",
        "recurrence",
        "lm_original",
        "lm_corrected",
        "lm_context_original",
        "lm_context_corrected",
        "spelling",
        "line_unknown",
        "nearby_unknown",
    )

    # The lines on each side of a line whose unknown words tell how noisy its text is,
    # and among which a word's recurrences are counted.
    NEARBY = 25
    # Below this share of unknown words a text counts as this clean (no division by 0).
    CLEAN = 1e-3
    # Confidences learned before the noise features were relative read them absolute,
    # and those learned before recurrences were counted near the change read them over
    # the whole text.
    relative_noise = False
    nearby_recurrence = False

    def __init__(
        self,
        words,
        language_model,
        metric,
        scale,
        spelling,
        relative_noise=True,
        nearby_recurrence=True,
    ):
        self.words = words
        self.lm = language_model
        self.metric = metric
        self.scale = scale
        self.spelling = spelling
        self.relative_noise = relative_noise
        self.nearby_recurrence = nearby_recurrence

    def _lm(self, queries):
        """``ln P_LM(word | context)`` of each ``(word, context)``, at least ``_FLOOR``;
        0 for no word or no language model: a list.  One look-up for all of them
        (and no numpy beyond it: a call of one line asks for a few)."""
        out = [0.0] * len(queries)
        asked = [i for i, (word, _) in enumerate(queries) if word]
        if self.lm is None or not asked:
            return out
        values = log_probability_pairs(
            self.lm, [queries[i][0] for i in asked], [queries[i][1] for i in asked]
        )
        for i, v in zip(asked, values.tolist(), strict=True):
            out[i] = max(v, _FLOOR) if math.isfinite(v) else _FLOOR
        return out

    def _known(self, core):
        parts = [w for w in split_core(core)[::2] if w]
        return float(bool(parts) and all(w.lower() in self.words or w in self.words for w in parts))

    def rows(self, sequences, corrected, spans, facts=None):
        """One row of features per change: ``spans[k]`` is ``(line, start, stop)``.

        ``facts``: the :class:`TextNoise` of the sequences within a text they are
        part of; None reads them as the whole text (:meth:`_text_facts`).
        """
        # The features of what a change does, which its place does not move, are
        # described once per kind of change: changes repeat (`tbe` -> `the`).
        described = self.__dict__.get("_described")
        if described is None or len(described) >= SLOTS_CACHE_SIZE:
            described = self._described = {}
        keys, new = [], {}
        for line, start, stop in spans:
            tokens, fixed = sequences[line], corrected[line]
            key = (stop - start, _joined(tokens[start:stop]), _joined(fixed[start:stop]))
            if key not in described and key not in new:
                new[key] = self._describe(*key)
            keys.append(key)
        if new:  # the language model's features without context: once per kind, too
            lm = self._lm(
                [(word, ()) for _, low, first_new in new.values() for word in (low, first_new)]
            )
            for k, (key, (row, low, first_new)) in enumerate(new.items()):
                row = (*row[:_LM], *lm[2 * k : 2 * k + 2], *row[_LM + 2 :])
                described[key] = (row, low, first_new)
        kinds = [described[key] for key in keys]
        if facts is None:  # (the lines of the changes' cores only)
            facts = self._text_facts(sequences, {low for _, low, _ in kinds})
        cores, line_unknown, nearby_unknown, first = facts
        out = []
        queries = []  # (word, context) of the two language-model features in context
        for (line, start, _), (row, low, first_new) in zip(spans, kinds, strict=True):
            tokens, fixed = sequences[line], corrected[line]
            previous = [w.lower() for t in fixed[max(0, start - 2) : start] for w in t.split()]
            context = tuple(c for w in previous if (c := _core(w)))[-2:]
            if start == 0:
                context = ("<s>",)
            recurrence = self._recurrence(cores.get(low, ()), first + line)
            row = list(row)
            row[_SENTENCE_START] = float(start == 0 or tokens[start - 1][-1:] in SENTENCE_END)
            row[_RECURRENCE] = math.log(recurrence) if recurrence else 0.0
            row[_LINE_UNKNOWN] = line_unknown[line]
            row[_NEARBY_UNKNOWN] = nearby_unknown[line]
            out.append(row)
            queries += [(low, context), (first_new, context)]
        lm = self._lm(queries)
        for k, row in enumerate(out):
            row[_LM + 2 : _LM + 4] = lm[2 * k : 2 * k + 2]
        # (rows built as lists, one array at the end: numpy's cost per item set is
        # paid once per call, and a call of one line has a change or two)
        return np.array(out, dtype=float).reshape(len(spans), len(self.NAMES))

    def _describe(self, n_tokens, original, new):
        """What a change of ``n_tokens`` tokens from ``original`` to ``new`` (their
        tokens joined) does, wherever it is: ``(row, core, first new word)``, the
        row's features of its place (its context, its line, its recurrence) and the
        language model's 0 (:meth:`rows` fills in the two without context),
        and its core and first new word lower-cased, for the language model."""
        core, new_core = _core(original), _core(new)
        low, new_low = core.lower(), new_core.lower()
        letters = [c for c in core if c.isalpha()]
        distance = _UNIT.distance(original, new)
        channel = (
            self.scale * self.metric.distance(low, new_low)
            if correctable(low) and correctable(new_low) and len(low) + len(new_low) < 128
            else self.scale * distance
        )
        row = (
            n_tokens,
            len(new.split()),
            self._known(core),
            self._known(new_core),
            float(low == new_low),
            float([c for c in low if c.isalnum()] == [c for c in new_low if c.isalnum()]),
            float(core[:1].isupper()),
            float(len(letters) > 1 and all(c.isupper() for c in letters)),
            0.0,  # sentence_start: of its place
            float(any(not c.isalnum() and c not in "-'\u2019" for c in core)),
            float("-" in core),
            float(low.endswith(("'s", "\u2019s"))),
            float(any(c.isdigit() for c in core)),
            len(core),
            len(new_core) - len(core),
            float(bool(new_low) and new_low != low and new_low.replace(" ", "") in low),
            distance,
            distance / max(1, len(original)),
            channel,
            0.0,  # recurrence: of its place; the language model's four: rows()
            0.0,
            0.0,
            0.0,
            0.0,
            self.spelling.surprisal(low) / max(1, len(low)) if low else 0.0,
            0.0,  # line_unknown, nearby_unknown: of its place
            0.0,
        )
        return row, low, new_low.split()[0] if new_low.split() else ""

    def _recurrence(self, where, line):
        """How often a core occurs on the lines ``where`` (ascending) within ``NEARBY``
        lines of ``line``: the same in a text of any length (a count over the whole
        text grows with it, and a confidence learned on long texts of held-out lines
        would read every change in a short one as rare); over the whole text for a
        confidence learned so."""
        if not self.nearby_recurrence:
            return len(where)
        return bisect_right(where, line + self.NEARBY) - bisect_left(where, line - self.NEARBY)

    def _text_facts(self, sequences, wanted=None):
        """The lines each core (lower-cased) of ``wanted`` (None: every core) occurs
        on; and the share of the words of each line, and of the lines around it,
        that are not lexicon words: how noisy the text is there (clean text's
        unknown words are mostly names, noisy text's mostly errors).
        ``relative_noise``: as a multiple of the share in the whole text, which
        carries from one collection to another (a collection noisier than those
        the confidence learned from would otherwise lie beyond all it saw: its
        changes held back as doubtful)."""
        # token -> its core; its number of words; of unknown words: tokens repeat,
        # within a call and across calls (bounded as the decoder's caches are)
        seen = self.__dict__.get("_token_counts")
        if seen is None or len(seen[0]) >= SLOTS_CACHE_SIZE:
            seen = self._token_counts = ({}, {}, {})
        seen_core, n_words, n_unknown = seen
        tokens = dict.fromkeys(chain.from_iterable(sequences))  # (the distinct ones, in order)
        # (not tokens.keys() - seen.keys(): that walks the whole cache, every call)
        for token in [t for t in tokens if t not in seen_core]:
            core = split_token(token)[1]  # (a token has no white space: its _core)
            words = [w for w in split_core(core)[::2] if correctable(w)]
            seen_core[token] = core.lower()
            n_words[token] = len(words)
            n_unknown[token] = sum(
                w.lower() not in self.words and w not in self.words for w in words
            )
        core_of = {token: seen_core[token] for token in tokens if token}
        if wanted is None:  # a whole text's, which worker processes read: as arrays
            cores = CoreLines.of(sequences, core_of)
        else:  # a call's changes' cores: a dict of the lines that have one
            core_of = {token: core for token, core in core_of.items() if core in wanted}
            cores = {}
            for i, seq in enumerate(sequences):
                if core_of.keys().isdisjoint(seq):
                    continue  # (most lines, when few cores are wanted: told in C)
                for token in seq:
                    core = core_of.get(token)
                    if core is not None:
                        cores.setdefault(core, []).append(i)
        # Each line's words and unknown words, summed a line at a time (in C).
        total = [sum(map(n_words.__getitem__, seq)) for seq in sequences]
        unknown = [sum(map(n_unknown.__getitem__, seq)) for seq in sequences]
        line, near = noise_shares(unknown, total, self.NEARBY)
        if self.relative_noise:
            text = max(sum(unknown) / max(sum(total), 1), self.CLEAN)
            line, near = line / text, near / text
        return TextNoise(cores, line, near)


# The columns of ChangeFeatures' rows that depend on a change's place.
_SENTENCE_START, _RECURRENCE, _LM, _LINE_UNKNOWN, _NEARBY_UNKNOWN = map(
    ChangeFeatures.NAMES.index,
    ("sentence_start", "recurrence", "lm_original", "line_unknown", "nearby_unknown"),
)


def noise_shares(unknown, total, nearby):
    """The share of unknown words of each line, and of the ``nearby`` lines on each side
    of it with it, from each line's counts (ints): two arrays.  By running sums in
    Python (numpy's fixed costs dominate when ``correct`` is called once per line).
    The counts are whole numbers, so on a text of ``2 * nearby + 1`` lines or more
    these are exactly the shares of numpy's convolution in "same" mode, which on a
    shorter text is off centre."""
    n = len(unknown)
    run_u, run_t = [0, *accumulate(unknown)], [0, *accumulate(total)]
    near = []
    for i in range(n):
        a, b = max(0, i - nearby), min(n, i + nearby + 1)
        near.append((run_u[b] - run_u[a]) / max(run_t[b] - run_t[a], 1))
    line = [u / max(t, 1) for u, t in zip(unknown, total, strict=True)]
    return np.array(line, dtype=float), np.array(near, dtype=float)


class ChangeConfidence:
    """``P(a change helps)``: a classifier of changes, learned from labelled ones.

    Parameters
    ----------
    features : ChangeFeatures
    """

    # Fewer labelled changes than this teach nothing: the corrector then makes them all.
    MIN_CHANGES = 20
    # What its features read noise and recurrences as (ChangeFeatures.relative_noise,
    # nearby_recurrence), set by fit; confidences saved before they existed read them
    # absolute and over the whole text.
    relative_noise = False
    nearby_recurrence = False

    def __init__(self, features):
        self.features = features

    def fit(self, sequences, corrected, truth):
        """Learn from the corrections of token sequences whose truth is known.

        ``truth[i][j]`` is the truth token aligned to ``sequences[i][j]`` (``""``
        where the OCR token has none); see :func:`_helps`.
        """
        spans = _all_spans(sequences, corrected)
        labels = np.array(
            [_helps(sequences[i][a:b], corrected[i][a:b], truth[i][a:b]) for i, a, b in spans],
            dtype=bool,
        )
        self.relative_noise = self.features.relative_noise
        self.nearby_recurrence = self.features.nearby_recurrence
        self.n_changes_ = len(spans)
        self.helpful_share_ = float(labels.mean()) if len(labels) else 0.5
        self.model_ = None
        if len(labels) >= self.MIN_CHANGES and 0 < labels.sum() < len(labels):
            from sklearn.ensemble import HistGradientBoostingClassifier

            model = HistGradientBoostingClassifier(
                max_iter=200, learning_rate=0.05, max_leaf_nodes=15, random_state=0
            ).fit(self.features.rows(sequences, corrected, spans), labels)
            self.model_ = BoostedTrees.from_classifier(model)  # arrays: savable without pickle
        return self

    def text_facts(self, sequences):
        """What :meth:`review` reads of the whole text of ``sequences`` (a
        :class:`TextNoise`), to review parts of it alone; None when it reads nothing."""
        return None if self.model_ is None else self.features._text_facts(sequences)

    def predict_proba(self, sequences, corrected, spans, facts=None):
        """``P(helps)`` of each change ``(line, start, stop)`` of ``spans``; ``facts``:
        as for :meth:`ChangeFeatures.rows`."""
        if not spans:
            return np.zeros(0)
        if self.model_ is None:  # the changes all helped, or none did
            return np.full(len(spans), self.helpful_share_)
        rows = self.features.rows(sequences, corrected, spans, facts)
        return self.model_.predict_proba(rows)

    def review(self, sequences, corrected, threshold, record=None, facts=None):
        """``corrected`` with the changes below ``threshold`` taken back (None: none).

        ``record``, a list, receives a :class:`Change` for every change.  ``facts``:
        the :meth:`text_facts` of the sequences within a text they are part of (then
        a change's ``line`` counts from the sequences' first); None reads them as
        the whole text.
        """
        spans = _all_spans(sequences, corrected)
        confidence = self.predict_proba(sequences, corrected, spans, facts)
        out = [list(fix) for fix in corrected]
        for (i, a, b), p in zip(spans, confidence.tolist(), strict=True):
            applied = threshold is None or p >= threshold
            if not applied:
                out[i][a:b] = sequences[i][a:b]
            if record is not None:
                record.append(
                    Change(
                        i,
                        a,
                        b,
                        _joined(sequences[i][a:b]),
                        _joined(corrected[i][a:b]),
                        p,
                        applied,
                    )
                )
        return out


def _unreviewed():
    """A confidence that knows nothing (NaN): lists changes, takes none back."""
    out = ChangeConfidence(None)
    out.model_, out.helpful_share_, out.n_changes_ = None, math.nan, 0
    return out


UNREVIEWED = _unreviewed()

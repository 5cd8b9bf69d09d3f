"""Surface rules: what the punctuation, case and spacing of OCR tokens stand for."""

from __future__ import annotations

from collections import Counter, defaultdict

from ..metrics import WeightedLevenshtein
from ._tokens import (
    TokenCodes,
    broken_word,
    case_pattern,
    inner_capitals,
    join_halves,
    recase,
    split_token,
)

_UNIT = WeightedLevenshtein()

# The rules a corrector may apply (``OCRCorrector(rules=...)``): the first three rewrite
# a line's corrected tokens (:meth:`SurfaceRules.apply`), the others how words are read.
RULES = ("punctuation", "case", "spacing", "capitals", "hyphens", "mixed_case")
SURFACE = RULES[:3]
# The key of SurfaceRules.hyphen for a word the OCR kept broken where neither half is a
# word (moun-tains): where the truth writes these as one word or kept broken, it closes
# them up (ICDAR 2017 monographs 650 of 675, BLN600 4 of 4; the periodicals' truth
# splits them at the line break), so they are closed up without the "hyphens" rule,
# which also reads a half that is a word (pre-paid, to-day: conventions differ).
BROKEN = "broken"


def check_rules(rules):
    """``rules`` as a frozenset of names from ``RULES``; a TypeError or ValueError naming
    ``rules`` otherwise (a string would read as its letters)."""
    if isinstance(rules, str) or not isinstance(rules, (list, tuple, set, frozenset)):
        raise TypeError(
            f"rules must be a list, tuple or set of rule names, got {type(rules).__name__}: "
            f"{rules!r}"
        )
    unknown = [r for r in rules if not isinstance(r, str) or r not in RULES]
    if unknown:
        raise ValueError(f"rules must be names from {list(RULES)}, got {unknown!r}")
    return frozenset(rules)


def pop_fix_flags(params):
    """The rules named by the ``fix_<rule>`` flags of the dict ``params`` (one flag per
    rule, as correctors had before ``rules``), the flags removed from it."""
    return [name for name in RULES if params.pop(f"fix_{name}", False)]


def _unspelled(token):
    """Whether ``token`` has neither a letter nor a digit (``-``, ``•``, ``'.``)."""
    return bool(token) and not any(c.isalnum() for c in token)


def _spaced(tokens, k, way):
    """``tokens`` with token ``k`` spaced ``way`` (see ``SurfaceRules``), as many
    tokens as before, ``""`` where one was absorbed by the token before it; None
    when token ``k`` lacks the neighbour ``way`` needs."""
    out, p = list(tokens), tokens[k]
    last = len(tokens) - 1
    if way == "keep":
        return out
    if way == "drop":
        out[k] = ""
    elif way == "left" and k > 0:
        out[k - 1], out[k] = out[k - 1] + p, ""
    elif way == "right" and k < last:
        out[k], out[k + 1] = p + out[k + 1], ""
    elif way == "both" and 0 < k < last:
        out[k - 1], out[k], out[k + 1] = out[k - 1] + p + out[k + 1], "", ""
    else:
        return None
    return out


class SurfaceRules:
    """What the punctuation and case of OCR words stand for, learned from aligned tokens.

    Counted over the token pairs whose cores agree ignoring case, so that the
    alignment is sure and the surface is all that differs:

    * ``lead``: an OCR word's leading punctuation -> the truth's;
    * ``trail``: its trailing punctuation, given what follows (``"end"`` of the
      line, a word with a ``"capital"``, a ``"lower"``-case word, or ``"other"``)
      -> the truth's: a ``.`` before a lower-case word is mostly a speck (``""``),
      a ``,.`` is a ``,``;
    * ``case``: a word (lower-cased), its case pattern (:func:`case_pattern`) and
      whether it starts a sentence (the line's first token, or after ``.!?:``
      and closing quotes) -> the truth's case pattern: OCR reads ``in`` as ``In``
      inside a sentence.

    * ``spacing``: a token without a letter or digit (a spaced-out ``-``, a
      stray ``•``), given what precedes it (the ``"start"`` of the line, a
      ``"sentence"`` end ``.!?:;``, a ``"word"`` character, ``"other"``) and
      what follows it (as for ``trail``) -> what the truth line shows it to
      be: ``"keep"`` it, attach it to the token on its ``"left"``, on its
      ``"right"`` or on ``"both"`` sides (``there - for`` -> ``there-for``),
      or ``"drop"`` it.  Each is tried on the ``SPACING_WINDOW`` tokens on each
      side of it, and the one that leaves the fewest word errors against the
      truth of those columns is counted
      (``"keep"`` when it is among them; a tie of the others counts against
      every rule).  Learned only from lines whose tokens are all there: the
      sequences of ``token_pairs(..., gaps=True)``.
    * ``join``: how the truth writes two neighbouring OCR tokens that make
      one of its words (``de sired`` for ``de-sired`` or ``desired``), given
      what ends the first token (``""``: a word, a space lost a line-break
      hyphen; ``"-"``: a line-break hyphen) -> ``"-"`` (a hyphen where they
      meet) or ``""`` (closed up).  Counted on the same lines, for each pair
      of tokens with the shape of one word (:func:`join_halves`) whose joined
      cores match a truth word of the line; read by the decoder
      (``join_hyphen``) when it joins two tokens.  Some collections keep the
      line-break hyphens of the printed page (ICDAR 2017's monographs, in 756
      of 905 such joins), others close them up (BLN600's newspapers).
    * ``capitals``: a capital letter right after a small one in an OCR word
      (``aU``, ``hopefuU``) -> what the truth has in its place when the rest of
      the word agrees (``ll``: ICDAR 2017's OCR reads ``ll`` as ``U`` in 495 of
      526 such words), counted over every aligned pair of tokens; used by
      :meth:`recapitalise`.
    * ``hyphen``: a line-break hyphen the OCR kept inside one word of ``words``
      whose halves are not both words (:func:`broken_word`: ``sym-pathy``) ->
      ``""`` where the truth mostly closes such words up (ICDAR 2017, 1,720 of
      1,860 training words) or ``"-"`` (keeps it), counted over every aligned
      pair of tokens; used by :meth:`close_up`, with ``written``: how often the
      training truth writes each lexicon word and each hyphenated word
      (lower-cased; counted only under a rule ``""``), which tells a compound's
      hyphen from a line break's.  ``hyphen[BROKEN]``: the same for the words
      neither of whose halves is a word (``moun-tains``), counting only a truth
      that closes them up or keeps them (one written otherwise, split at the
      hyphen or another word, is the same number of word errors either way);
      used by :meth:`close_up` without the ``"hyphens"`` rule.

    A rule maps its key to the truth's most frequent value when that differs,
    makes up more than half of the key's occurrences and occurs at least
    ``MIN_COUNT`` times.  A key seen fewer times backs off to the rule of its
    context-free key (``trail_any``: the trailing punctuation alone;
    ``case_any``: the word and its case pattern; ``spacing_any``: the token
    alone), as Katz backs off to a shorter context; everything else stays as
    it is.

    Parameters
    ----------
    ocr_sequences, truth_sequences : list of list of str
        The aligned tokens of each line, one truth token per OCR token (``""``
        for the side of a column without a token).
    """

    MIN_COUNT = 3
    CLOSED_RATIO = 10
    SPACING = ("keep", "left", "right", "both", "drop")

    def __init__(self, ocr_sequences, truth_sequences, words=()):
        lead, trail, case, spacing, join, capitals, hyphen = (
            defaultdict(Counter) for _ in range(7)
        )
        for xs, ys in zip(ocr_sequences, truth_sequences, strict=True):
            pairs = [(o, t) for o, t in zip(xs, ys, strict=True) if o]
            line = [o for o, _ in pairs]
            parts = [split_token(o) for o in line]
            self._count_joins(join, line, [c for _, c, _ in parts], [t for t in ys if t])
            for k, ((_, t), (lo, co, to)) in enumerate(zip(pairs, parts)):
                lt, ct, tt = split_token(t)
                self._count_capitals(capitals, co, ct)
                if (broken := broken_word(co, words)) is not None and broken[1] < 2:
                    way = {broken[0]: "", co: "-"}.get(ct)
                    hyphen["-"][way] += 1
                    if not broken[1] and way is not None:
                        # (the truth writing it otherwise, split or another word: closing
                        # it up leaves one wrong word for another, which tells nothing)
                        hyphen[BROKEN][way] += 1
                if co and co.lower() == ct.lower():
                    lead[lo][lt] += 1
                    trail[to, self._follows(line, k)][tt] += 1
                    case[self._case_key(line, k, co)][case_pattern(ct)] += 1
            if any(_unspelled(o) for o in line):
                self._count_spacing(spacing, xs, ys)
        self.lead, _ = self._rules(lead, lambda key: key)
        self.trail, self._trail_seen = self._rules(trail, lambda key: key[0])
        self.trail_any, _ = self._rules(self._merged(trail, 1), lambda key: key)
        self.case, self._case_seen = self._rules(case, lambda key: key[1])
        self.case_any, _ = self._rules(self._merged(case, 2), lambda key: key[1])
        self.spacing, self._spacing_seen = self._rules(spacing, lambda key: "keep")
        self.spacing_any, _ = self._rules(self._merged(spacing, 1), lambda key: "keep")
        self.join, _ = self._rules(join, lambda key: "")
        self.capitals, _ = self._rules(capitals, lambda key: key)
        self.hyphen, _ = self._rules(hyphen, lambda key: "-")  # (either key: kept)
        # Read by close_up only under a rule to close words up.
        self.written = Counter(
            core
            for ys in (truth_sequences if self.hyphen.get("-") == "" else ())
            for t in ys
            if (core := split_token(t)[1].lower()) in words or core.count("-") == 1
        )

    @staticmethod
    def _count_capitals(table, ocr, truth):
        """Count what ``truth`` has in place of each capital after a small letter in
        ``ocr`` (None when the rest of the two words differs)."""
        for i in inner_capitals(ocr):
            tail = len(ocr) - i - 1
            same = truth[:i] == ocr[:i] and truth[len(truth) - tail :] == ocr[i + 1 :]
            read = truth[i : len(truth) - tail] if same and len(truth) > i + tail else None
            table[ocr[i]][read] += 1

    def close_up(self, token, words, compounds=True):
        """``token`` with the word the OCR kept broken by a line-break hyphen closed up
        (:func:`broken_word`, looked up in ``words``), if the truth mostly closes
        such words up (``hyphen``); with ``compounds`` False (the ``"hyphens"``
        rule off), only a word neither of whose halves is a word (``moun-tains``),
        if the truth mostly closes those up (``hyphen[BROKEN]``).

        A compound (``with-out``, ``to-day``) only if the training truth writes it
        closed up over ``CLOSED_RATIO`` times as often as with its hyphen: a hyphen
        that the truth writes mid-line too is a compound's.  On ICDAR 2017's
        lines but the last 2,100 (SCOWL as the lexicon) the rule is right for
        1,693 of the 1,811 OCR compounds whose closed form is a lexicon word (843
        closed up, 850 kept; 16 closed up wrongly, 40 kept wrongly, 62 written
        otherwise), where the truth closes up 883.
        """
        if "-" not in token:  # (most tokens: every token of a line is asked)
            return token
        lead, core, trail = split_token(token)
        broken = broken_word(core, words)
        if broken is None:
            return token
        closed, halves = broken
        if halves == 0 and self.hyphen.get(BROKEN) == "":
            return lead + closed + trail
        if not compounds or self.hyphen.get("-") != "":
            return token
        written = self.written
        if halves == 2 and not written[closed.lower()] > self.CLOSED_RATIO * written[core.lower()]:
            return token
        return lead + closed + trail

    def closes_up(self, compounds):
        """Whether :meth:`close_up` closes any word up (with ``compounds`` as it does)."""
        return self.hyphen.get(BROKEN) == "" or (compounds and self.hyphen.get("-") == "")

    def recapitalise(self, token):
        """``token`` with each capital after a small letter replaced by its rule."""
        out, last = [], 0
        for i in inner_capitals(token):
            if token[i] in self.capitals:
                out += [token[last:i], self.capitals[token[i]]]
                last = i + 1
        return "".join(out) + token[last:] if out else token

    @staticmethod
    def _count_joins(table, line, cores, truth):
        """Count how ``truth`` writes each pair of neighbouring tokens of ``line`` (whose
        cores are ``cores``) that make one of its words: with a hyphen where they meet,
        or closed up."""
        truth_cores = [split_token(token)[1].lower() for token in truth]
        ways = (
            ("", set(truth_cores)),
            ("-", {c.replace("-", "") for c in truth_cores if c.count("-") == 1}),
        )
        for k in range(len(line) - 1):
            joined = (cores[k] + cores[k + 1]).lower()
            written = [way for way, words in ways if joined in words]
            # (most neighbours make no word of the truth's: looked up first)
            if written and (halves := join_halves(line[k], line[k + 1])) is not None:
                for way in written:
                    table[halves[2]][way] += 1

    # Tokens on each side of a token without a word that judge how to space it: the
    # word errors are counted in this window of the aligned line, not the whole line,
    # so that a line of n tokens costs O(n), not O(n^2) per such token.
    SPACING_WINDOW = 6

    def _count_spacing(self, table, ocr, truth):
        """Count, for each OCR token without a letter or digit, the way of spacing it
        that leaves the fewest word errors against the truth around it.

        ``ocr`` and ``truth`` are the aligned columns of a line (``""`` for a gap).
        """
        code = TokenCodes()  # one code point per token: unit Levenshtein counts word errors
        columns = [c for c, o in enumerate(ocr) if o]
        line = [ocr[c] for c in columns]
        w = self.SPACING_WINDOW
        for k, token in enumerate(line):
            if not _unspelled(token):
                continue
            lo, hi = max(0, k - w), min(len(line), k + w + 1)
            window = line[lo:hi]
            target = code(truth[columns[lo] : columns[hi - 1] + 1])
            errors = {}
            for action in self.SPACING:
                spaced = _spaced(window, k - lo, action)
                if spaced is not None:
                    errors[action] = _UNIT.distance(code(spaced), target)
            best = [a for a, e in errors.items() if e == min(errors.values())]
            # None: a tie of ways other than keeping it, evidence for no rule
            way = "keep" if "keep" in best else best[0] if len(best) == 1 else None
            table[self._spacing_key(line, k)][way] += 1

    def _rules(self, table, observed):
        """The rules of ``table``, and the keys seen at least MIN_COUNT times."""
        rules, seen = {}, set()
        for key, truths in table.items():
            if truths.total() < self.MIN_COUNT:
                continue
            seen.add(key)
            truth, count = truths.most_common(1)[0]
            # "mixed" and "none" are no case to put a word in; None is no way of spacing
            # nor a reading of a capital.
            if (
                truth != observed(key)
                and 2 * count > truths.total()
                and truth not in ("mixed", None)
            ):
                rules[key] = truth
        return rules, seen

    @staticmethod
    def _merged(table, n):
        """``table`` with its keys cut to their first ``n`` parts (their context dropped)."""
        merged = defaultdict(Counter)
        for key, truths in table.items():
            merged[key[0] if n == 1 else key[:n]].update(truths)
        return merged

    @staticmethod
    def _backed_off(rules, seen, key, any_rules, any_key, default):
        if key in rules:
            return rules[key]
        return default if key in seen else any_rules.get(any_key, default)

    @staticmethod
    def _follows(tokens, k):
        """What follows token ``k``: "end", or the case of the next token's first letter."""
        if k + 1 == len(tokens):
            return "end"
        first = split_token(tokens[k + 1])[1][:1]
        return "capital" if first.isupper() else "lower" if first.islower() else "other"

    @staticmethod
    def _case_key(tokens, k, core):
        starts = k == 0 or tokens[k - 1][-1:] in ".!?:\"'\u201d\u2019"
        return core.lower(), case_pattern(core), starts

    @staticmethod
    def _spacing_key(tokens, k):
        """A token without a word, what precedes it and what follows it."""
        before = tokens[k - 1][-1:] if k else ""
        precedes = (
            "start"
            if not before
            else "sentence"
            if before in ".!?:;"
            else "word"
            if before.isalnum()
            else "other"
        )
        return tokens[k], precedes, SurfaceRules._follows(tokens, k)

    def space(self, tokens):
        """The tokens of a line with the spacing rules applied, left to right.

        A token attached to its neighbours or dropped comes back as ``""`` (and
        its right neighbour too when attached to it): an empty token is joined
        to the one before, as :meth:`NoisyChannelDecoder.correct_lines` reads
        it.  Empty tokens stay empty and are skipped as neighbours.
        """
        out = list(tokens)
        present = [k for k, token in enumerate(tokens) if token]
        i = 0
        while i < len(present):
            line = [out[k] for k in present]
            way = "keep"
            if _unspelled(line[i]):
                key = self._spacing_key(line, i)
                way = self._backed_off(
                    self.spacing, self._spacing_seen, key, self.spacing_any, key[0], "keep"
                )
            spaced = _spaced(line, i, way) if way != "keep" else None
            if spaced is None:
                i += 1
                continue
            # _spaced leaves an empty token wherever one was absorbed
            for k, token in zip(present, spaced, strict=True):
                out[k] = token
            present = [k for k in present if out[k]]
            i += way == "right"  # else the token now at i is new to the rules
        return out

    def apply(self, tokens, punctuation=True, case=True, spacing=False):
        """The tokens of a line with the rules applied (spacing first).

        Empty tokens (joined to the one before) stay empty and are skipped as
        neighbours.
        """
        out = self.space(tokens) if spacing else list(tokens)
        present = [k for k, token in enumerate(out) if token]
        line = [out[k] for k in present]
        for k, token in enumerate(line):
            lead, core, trail = split_token(token)
            if not core:
                continue
            if punctuation:
                lead = self.lead.get(lead, lead)
                key = (trail, self._follows(line, k))
                trail = self._backed_off(
                    self.trail, self._trail_seen, key, self.trail_any, trail, trail
                )
            if case:
                key = self._case_key(line, k, core)
                pattern = self._backed_off(
                    self.case, self._case_seen, key, self.case_any, key[:2], None
                )
                core = core if pattern is None else recase(core, pattern)
            out[present[k]] = lead + core + trail
        return out

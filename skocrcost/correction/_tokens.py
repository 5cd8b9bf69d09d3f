"""Tokens of OCR lines: punctuation around and inside a word, case, what may be corrected."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

WHITESPACE = re.compile(r"(\s+)")
_CORE = re.compile(r"^(\W*)(.*?)(\W*)$", re.S)
# Inside a core, runs of punctuation other than apostrophes separate words
# ("Russell-street", "A.D", "realities.-Galletti"), and so does a possessive's "'s" at
# a word's end ("prisoner's": the word is "prisoner"; "don't" stays one word).
_INSIDE = re.compile(r"([^\w'\u2019]+|['\u2019][sS](?!\w))")


def split_whitespace(line):
    """``WHITESPACE.split(line)``: the line's whitespace tokens and the whitespace
    between them, alternating, empty tokens at its ends if it starts or ends with
    whitespace.  A line of tokens between single spaces (most lines) is split
    without the regular expression: it is one exactly when its tokens are those
    of splitting it at each space."""
    tokens = line.split()
    if tokens == line.split(" "):
        parts = [" "] * (2 * len(tokens) - 1)
        parts[::2] = tokens
        return parts
    return WHITESPACE.split(line)


def split_token(token):
    """``(leading punctuation, core, trailing punctuation)`` of a whitespace token."""
    if token.isalnum():  # most tokens (\w is a character isalnum() takes, or "_")
        return "", token, ""
    word, last = token[:-1], token[-1:]
    if word.isalnum() and last != "_" and not unicodedata.category(last).startswith("M"):
        return "", word, last  # a word, then one punctuation character ("said,")
    lead, core, trail = _CORE.match(token).groups()
    # Combining marks (category M) are \W to the regex but belong to the letter before
    # them: "e\u0301" must not be corrected as "e" with a trailing accent.
    marks = 0
    while marks < len(trail) and unicodedata.category(trail[marks]).startswith("M"):
        marks += 1
    if core and marks:
        return lead, core + trail[:marks], trail[marks:]
    return lead, core, trail


def split_core(core):
    """``core`` cut at its inner punctuation: words at even positions, separators at odd.

    Combining marks are ``\\W`` to the regex but belong to the letter before them.
    """
    if core.isalnum():  # most words: nothing inside to cut at (no \W, no apostrophe)
        return [core]
    parts = _INSIDE.split(core)
    for j in range(len(parts) - 2, 0, -2):  # separators, right to left
        if all(unicodedata.category(c).startswith("M") for c in parts[j]):
            parts[j - 1 : j + 2] = [parts[j - 1] + parts[j] + parts[j + 1]]
    return parts


def token_words(token):
    """The words of a whitespace token: its core's pieces between inner punctuation
    (:func:`split_core`; ``""`` where a piece is empty)."""
    return split_core(split_token(token)[1])[::2]


def lm_sentence(line):
    """The words the language model sees for a line: lower-cased words, punctuation dropped."""
    return [w.lower() for t in line.split() for w in token_words(t) if w]


def match_case(word, observed):
    """``word`` with the case pattern of ``observed`` (all capitals, or a capital first).

    ``observed`` reads as all capitals when most of its letters (at least two) are:
    OCR confuses the case of letters that look alike, so ``FEssALE`` is ``FEMALE``.
    """
    letters = [c for c in observed if c.isalpha()]
    if len(letters) > 1 and 2 * sum(c.isupper() for c in letters) > len(letters):
        return word.upper()
    if observed[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


# Tokens longer than this are never corrected: no word is that long, so whatever word
# replaced such a token (merged words, a URL, garbage) would be a guess.
MAX_WORD_LENGTH = 64


def correctable(core):
    """Only words with a letter and at most one digit, at most MAX_WORD_LENGTH long,
    are corrected.

    Numbers, punctuation, symbols, emoji and lone surrogates (no letter) stay, and
    so do prices, dates and ordinals (``000f``, ``57th``, ``3d``: two digits or more):
    no lexicon word is a likely reading of them.
    """
    if core.isalpha():  # most words: the same answer, without a loop over the letters
        return len(core) <= MAX_WORD_LENGTH
    return (
        len(core) <= MAX_WORD_LENGTH
        and any(c.isalpha() for c in core)
        and sum(c.isdigit() for c in core) < 2
    )


# What ends a sentence: the word after it may be capitalised for that alone.
SENTENCE_END = ".!?:;\"'\u201d\u2019"


def written_forms(sequences, min_count=5, share=0.9):
    """``{lower-cased word: its capitalised form}`` for the words the token
    ``sequences`` (the training truth) write with a capital inside a sentence:
    ``i`` -> ``I``, ``london`` -> ``London``.  A word needs ``min_count``
    occurrences that do not start a line or a sentence, ``share`` of them in one
    capitalised form (a capital, then small letters)."""
    forms = {}
    for seq in sequences:
        for k, token in enumerate(seq):
            if k == 0 or seq[k - 1][-1:] in SENTENCE_END:
                continue
            for w in token_words(token):
                if w:
                    forms.setdefault(w.lower(), Counter())[w] += 1
    out = {}
    for low, seen in forms.items():
        form, n = seen.most_common(1)[0]
        total = sum(seen.values())
        if (
            total >= min_count
            and n >= share * total
            and form != low
            and form[:1].isupper()
            and form[1:] == low[1:]
        ):
            out[low] = form
    return out


def letter_digits(ocr_sequences, truth_sequences, min_count=5):
    """The digits that, standing alone as an OCR word, the truth mostly has as a word:
    a string of them.  OCR makes ``1`` of the pronoun ``I`` (2,146 times in the ICDAR
    2017 monographs' training pairs, against 31 that were the number), where in
    other print a lone ``1`` is mostly a number; so a corrector reads a lone digit
    as a word only where its training pairs show it to be one, at least
    ``min_count`` times and more often than the digit itself.  ``ocr_sequences``
    and ``truth_sequences``: aligned tokens (``""`` for a gap)."""
    as_word, as_itself = Counter(), Counter()
    for ocr, truth in zip(ocr_sequences, truth_sequences, strict=True):
        for o, t in zip(ocr, truth, strict=True):
            digit = split_token(o)[1]
            if len(digit) == 1 and digit.isdigit():
                core = split_token(t)[1]
                if core == digit:
                    as_itself[digit] += 1
                elif core.isalpha():
                    as_word[digit] += 1
    return "".join(sorted(d for d, n in as_word.items() if n >= min_count and n > as_itself[d]))


def word_side(token):
    """``(leading punctuation, core, trailing punctuation)`` of a token whose core is
    one correctable word (a side of :func:`join_halves`), else None."""
    lead, core, trail = split_token(token)
    if not core or len(split_core(core)) > 1 or not correctable(core):
        return None
    return lead, core, trail


def join_halves(a, b):
    """``(core of a, core of b, what ends a)`` if tokens ``a`` and ``b`` have the shape of
    one word split in two, else None.

    ``a`` must end in its word or a line-break hyphen (``""`` or ``"-"``, the
    third item), ``b`` start with its word, and each be one correctable word.
    """
    side_a = word_side(a)
    return join_sides(side_a, side_a and word_side(b))


def join_sides(side_a, side_b):
    """:func:`join_halves` of two tokens from their :func:`word_side` (items after
    its three, as a cache of it may add, are ignored; None: no side)."""
    if not (side_a and side_b):
        return None
    (_, core_a, trail_a, *_), (lead_b, core_b, *_) = side_a, side_b
    if trail_a not in ("", "-") or lead_b or not correctable(core_a + core_b):
        return None
    return core_a, core_b, trail_a


def looked_up(word, words):
    """The form of ``word`` looked up in ``words``: itself if it is one, else lower-cased."""
    return word if word in words else word.lower()


def broken_word(core, words):
    """``(core closed up, halves)`` if ``core`` may be one word the OCR kept broken
    by a line-break hyphen (``sym-pathy``, ``with-out``), else None.

    One hyphen between letters; closed up it is a word of ``words`` and with the
    hyphen it is not.  ``halves``: how many of its halves are words.  Two: the
    hyphen may be a compound's (``to-day``), a spelling the truth decides word by
    word; one: maybe a prefix's (``pre-paid``); none: a word broken where it is no
    compound (``moun-tains``).  Looked up as the decoder looks words up
    (:func:`looked_up`).
    """
    a, hyphen, b = core.partition("-")
    if not (hyphen and a.isalpha() and b.isalpha()):
        return None

    def known(word):
        return looked_up(word, words) in words

    if not known(a + b) or known(core):
        return None
    return a + b, known(a) + known(b)


def case_pattern(core):
    """How a word is cased: "lower", "upper" (two letters or more), "capital" (first
    letter only), "mixed", or "none" (no letter)."""
    if core.isascii() and core.isalpha():  # most words: every character a cased letter
        if core.islower():
            return "lower"
        if core.isupper():
            return "upper" if len(core) > 1 else "capital"
        return "capital" if core[0].isupper() and core[1:].islower() else "mixed"
    letters = [c for c in core if c.isalpha()]
    if not letters:
        return "none"
    if all(c.islower() for c in letters):
        return "lower"
    if len(letters) > 1 and all(c.isupper() for c in letters):
        return "upper"
    if letters[0].isupper() and all(c.islower() for c in letters[1:]):
        return "capital"
    return "mixed"


def mixed_case(word):
    """Whether ``word`` has a capital right after a small letter (``aU``, ``wTas``),
    which OCR writes for ``ll`` read as ``U`` and the like; not ``d'Oro``, ``AEolian``."""
    return any(True for _ in inner_capitals(word))


def inner_capitals(word):
    """The positions of the capitals right after a small letter in ``word``."""
    return (i for i in range(1, len(word)) if word[i].isupper() and word[i - 1].islower())


def recase(core, pattern):
    if pattern == "lower":
        return core.lower()
    if pattern == "upper":
        return core.upper()
    return core[:1].upper() + core[1:].lower()  # "capital"


class TokenCodes:
    """Tokens as code points, one per distinct token, so that a character-level
    Levenshtein distance of the codes counts word edits.

    ``codes(tokens)`` gives the string of the non-empty tokens' code points (past the
    BMP's surrogates, so each is a valid one-character string); ``token(cp)`` the
    token a code point stands for.
    """

    FIRST = 0x10000

    def __init__(self):
        self.ids, self.tokens = {}, []

    def __call__(self, tokens):
        ids, out = self.ids, []
        for t in tokens:
            if t:
                if t not in ids:
                    ids[t] = len(ids)
                    self.tokens.append(t)
                out.append(chr(self.FIRST + ids[t]))
        return "".join(out)

    def token(self, code_point):
        return self.tokens[code_point - self.FIRST]

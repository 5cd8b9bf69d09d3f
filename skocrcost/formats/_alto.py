"""ALTO (v2, v3, v4 and without a namespace): ``TextLine`` of ``String``, ``SP``, ``HYP``.

A word is a ``String``; its reading is ``CONTENT``, the engine's confidence ``WC``.
A corrected ``String`` keeps its attributes and children; its old reading becomes an
``ALTERNATIVE`` child (``PURPOSE="OCR"``).  ALTO has no place for the corrector's
confidence (``WC`` is the engine's and is left as it was).  A word hyphenated at a
line end (``SUBS_TYPE="HypPart1"`` / ``"HypPart2"``, ``SUBS_CONTENT`` the whole word)
is one word, in the first line.
"""

from __future__ import annotations

from copy import deepcopy

from ._detect import local
from ._document import (
    Format,
    OCRLine,
    OCRWord,
    clip01,
    cut_word,
    is_whole,
    number,
    remove,
)

ALTERNATIVE_PURPOSE = "OCR"
HYPHENS = "-\u00ac\u2010\u00ad"
BOX = ("HPOS", "VPOS", "WIDTH", "HEIGHT")


class Alto(Format):
    name = "alto"
    id_attribute = "ID"

    def lines(self, root):
        lines, pending = [], None
        for line in root.iter(self.tag("TextLine")):
            words = []
            for string in line.iter(self.tag("String")):
                kind = string.get("SUBS_TYPE")
                if kind == "HypPart2" and pending is not None:
                    pending.elements.append(string)
                    pending.text = self._whole_word(pending.elements)
                    pending.confidence = _lowest(pending.confidence, _wc(string))
                    pending = None
                    continue
                pending = None
                text = string.get("CONTENT", "")
                if not text.split():
                    continue
                word = OCRWord(text, _wc(string), [string])
                if kind == "HypPart1":
                    pending = word
                words.append(word)
            if words:
                lines.append(OCRLine(words, line))
        return lines

    def _whole_word(self, parts):
        """The reading of a hyphenated pair: its ``SUBS_CONTENT``, else its parts joined."""
        whole = parts[0].get("SUBS_CONTENT") or parts[1].get("SUBS_CONTENT")
        if whole and not any(c.isspace() for c in whole):
            return whole
        return parts[0].get("CONTENT", "").rstrip(HYPHENS) + parts[1].get("CONTENT", "")

    # -- edits ------------------------------------------------------------------------
    def set_text(self, word, text, confidence):
        if word.hyphenated:
            self._set_hyphenated(word, text)
        else:
            self._record(word.elements[0], word.text)
            word.elements[0].set("CONTENT", text)
        word.text = text

    def _set_hyphenated(self, word, text):
        first, second = word.elements
        head = first.get("CONTENT", "")
        hyphen = head[len(head.rstrip(HYPHENS)) :]
        cut = cut_word(word.text, text, len(head) - len(hyphen))
        for part, content in ((first, text[:cut] + hyphen), (second, text[cut:])):
            if content != part.get("CONTENT"):
                self._record(part, part.get("CONTENT", ""))
                part.set("CONTENT", content)
            part.set("SUBS_CONTENT", text)

    def _record(self, string, original):
        """Keep ``original`` as an ``ALTERNATIVE`` of ``string`` (after its ``Shape``
        and alternatives, before its ``Glyph``s, as the schema orders them)."""
        for old in string.iter(self.tag("ALTERNATIVE")):
            if old.text == original and old.get("PURPOSE") == ALTERNATIVE_PURPOSE:
                return
        alternative = string.makeelement(self.tag("ALTERNATIVE"), PURPOSE=ALTERNATIVE_PURPOSE)
        alternative.text = original
        before = [c for c in string if local(c) in ("Shape", "ALTERNATIVE")]
        string.insert(string.index(before[-1]) + 1 if before else 0, alternative)

    def box(self, string):
        return _box(string)

    def integral(self, strings):
        return is_whole(*(s.get(a) for s in strings for a in BOX))

    def merge(self, first, others, original, confidence):
        """Remove the other ``String``s and the ``SP``s between them and ``first``."""
        for other in others:
            while first.getnext() is not None and local(first.getnext()) == "SP":
                remove(first.getnext())
            remove(other)
        self._record(first, original)

    def write(self, string, text, confidence):
        string.set("CONTENT", text)

    def set_box(self, string, box, whole):
        for name, value in zip(BOX, (box[0], box[1], box[2] - box[0], box[3] - box[1])):
            string.set(name, number(value, whole))

    def piece(self, first):
        string = first.makeelement(first.tag, _copied(first.attrib))
        for child in first:
            if local(child) == "Shape":
                string.append(deepcopy(child))
        return string

    def insert(self, previous, string, gap, whole):
        """An ``SP`` between ``previous`` and ``string``, over ``gap``."""
        space = previous.makeelement(self.tag("SP"), {})
        if gap:
            space.set("WIDTH", number(gap[2] - gap[0], whole))
            space.set("VPOS", number(gap[1], whole))
            space.set("HPOS", number(gap[0], whole))
        tail, previous.tail = previous.tail, None
        previous.addnext(space)
        space.addnext(string)
        string.tail = tail


def _wc(string):
    return clip01(string.get("WC"))


def _lowest(a, b):
    return b if a is None else a if b is None else min(a, b)


def _box(string):
    try:
        x, y, w, h = (float(string.get(a)) for a in BOX)
    except (TypeError, ValueError):
        return None
    return (x, y, x + w, y + h)


def _copied(attributes):
    """The attributes a piece of a split ``String`` takes from it (not its identity,
    reading or hyphenation)."""
    drop = {"ID", "CONTENT", "SUBS_TYPE", "SUBS_CONTENT", "CC"}
    return {k: v for k, v in attributes.items() if k not in drop}

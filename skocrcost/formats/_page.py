"""PAGE XML (2013, 2019 and the other ``pagecontent`` versions): ``TextLine`` of ``Word``.

A word's reading is its main ``TextEquiv`` (the lowest ``index``, the first when none
has one: the schema's rule) and the engine's confidence that ``TextEquiv``'s ``conf``.
A corrected word gets a new ``TextEquiv index="1"`` holding the corrected reading and
the corrector's confidence as ``conf`` (none when it learned none); its earlier
``TextEquiv``s stay, renumbered from 2, so index 2 is the engine's reading with the
engine's ``conf``.  A line (and a region) whose words changed gets the same: its
words joined by spaces (its lines by ``"\\n"``) as its ``TextEquiv index="1"``.

PAGE before 2016-07-15 (2013, 2010, 2009) allows one ``TextEquiv`` per element and
no ``index``: there the corrected reading replaces the text of that ``TextEquiv``
(its ``Unicode`` and ``PlainText``), its ``conf`` becomes the corrector's (removed
when it learned none), and the engine's reading and confidence are kept in the
element's ``comments`` attribute (``OCR: Tbe (conf 0.7)``).
"""

from __future__ import annotations

from copy import deepcopy

from ._detect import local
from ._document import (
    Format,
    OCRLine,
    OCRWord,
    clip01,
    confidence_text,
    number,
    remove,
)

MULTIPLE_TEXTEQUIVS = "2016-07-15"
# Where a new TextEquiv goes in a Word (a split piece) that has none yet: before the
# first of these children (the schema's order: ..., Glyph, TextEquiv, TextStyle,
# UserDefined, Labels); an element that has TextEquivs gets it before them.
AFTER_TEXT = ("TextStyle", "UserDefined", "Labels")


class Page(Format):
    name = "page"

    def lines(self, root):
        # Several TextEquivs with an index since the 2016-07-15 schema.
        self.variants = self.ns.rsplit("/", 1)[-1] >= MULTIPLE_TEXTEQUIVS
        lines = []
        for line in root.iter(self.tag("TextLine")):
            words = []
            for element in line.iterchildren(self.tag("Word")):
                equiv = self.main(element)
                text = self.text_of(equiv)
                if text.split():
                    words.append(OCRWord(text, clip01(equiv.get("conf")), [element]))
            equiv = self.main(line)
            if line.find(self.tag("Word")) is None and self.text_of(equiv).split():
                text = " ".join(self.text_of(equiv).split())
                words = [OCRWord(text, clip01(equiv.get("conf")), [line], whole_line=True)]
            if words:
                lines.append(OCRLine(words, line))
        return lines

    def main(self, element):
        """The element's main ``TextEquiv`` (lowest index; the first of those without), or None."""
        equivs = list(element.iterchildren(self.tag("TextEquiv")))
        if not equivs:
            return None
        return min(equivs, key=lambda e: _index(e.get("index")))

    def text_of(self, equiv):
        unicode = None if equiv is None else equiv.find(self.tag("Unicode"))
        return "" if unicode is None or unicode.text is None else unicode.text

    # -- edits ------------------------------------------------------------------------
    def set_text(self, word, text, confidence):
        self._push(word.elements[0], text, confidence)
        word.text = text

    def _push(self, element, text, confidence):
        """Give ``element`` a new main reading: a ``TextEquiv index="1"`` before the
        others, which are renumbered from 2 in their order (before 2016: in place)."""
        if not self.variants and self.main(element) is not None:
            return self._replace(element, text, confidence)
        equivs = sorted(
            element.iterchildren(self.tag("TextEquiv")), key=lambda e: _index(e.get("index"))
        )
        for k, equiv in enumerate(equivs, 2):
            equiv.set("index", str(k))
        new = element.makeelement(self.tag("TextEquiv"), {"index": "1"})
        if confidence is not None:
            new.set("conf", confidence_text(confidence))
        new.append(new.makeelement(self.tag("Unicode"), {}))
        new[0].text = text
        children = list(element.iterchildren(self.tag("TextEquiv")))
        if not children:
            children = [c for c in element if local(c) in AFTER_TEXT]
        if children:
            before = children[0].getprevious()
            children[0].addprevious(new)
            new.tail = element.text if before is None else before.tail
        else:
            element.append(new)

    def _replace(self, element, text, confidence):
        """Write the new reading into the one ``TextEquiv`` of old PAGE, the old one
        and its ``conf`` into ``comments``."""
        equiv = self.main(element)
        old = f"OCR: {self.text_of(equiv)}"
        if equiv.get("conf") is not None:
            old += f" (conf {equiv.get('conf')})"
        comments = element.get("comments")
        element.set("comments", f"{comments}; {old}" if comments else old)
        for name in ("Unicode", "PlainText"):
            for child in equiv.iterchildren(self.tag(name)):
                child.text = text
        if confidence is None:
            equiv.attrib.pop("conf", None)
        else:
            equiv.set("conf", confidence_text(confidence))

    def merge(self, first, others, original, confidence):
        """Remove the other ``Word``s; ``first``'s engine reading becomes the whole
        original (its ``conf`` kept), the main reading that :meth:`write` pushes down."""
        if others:
            self.main(first).find(self.tag("Unicode")).text = original
        for other in others:
            remove(other)

    def write(self, element, text, confidence):
        self._push(element, text, confidence)

    def piece(self, first):
        attributes = {k: v for k, v in first.attrib.items() if k != "id"}
        element = first.makeelement(first.tag, attributes)
        element.text = first.text
        coords = first.find(self.tag("Coords"))
        if coords is not None:
            element.append(deepcopy(coords))
        return element

    def box(self, element):
        coords = element.find(self.tag("Coords"))
        try:
            xs, ys = zip(*(map(float, p.split(",")) for p in coords.get("points").split()))
        except (AttributeError, TypeError, ValueError):
            return None
        return (min(xs), min(ys), max(xs), max(ys))

    def set_box(self, element, box, whole):
        x0, y0, x1, y1 = (number(v, whole) for v in box)
        points = f"{x0},{y0} {x1},{y0} {x1},{y1} {x0},{y1}"
        element.find(self.tag("Coords")).set("points", points)

    def finish(self, document, lines):
        """Bring the ``TextEquiv`` of each changed line, and of its region, in line with
        its words."""
        regions = {}
        for i in lines:
            line = document.lines[i].element
            region = line.getparent()
            if region is not None and self.main(region) is not None:
                regions[region] = None
            if document.lines[i].words[0].whole_line:
                continue
            text = " ".join(
                t for w in line.iterchildren(self.tag("Word")) if (t := self.text_of(self.main(w)))
            )
            if self.main(line) is not None and self.text_of(self.main(line)) != text:
                self._push(line, text, None)
        for region in regions:
            text = "\n".join(
                self.text_of(self.main(line)) for line in region.iterchildren(self.tag("TextLine"))
            )
            if self.text_of(self.main(region)) != text:
                self._push(region, text, None)


def _index(value):
    """A ``TextEquiv`` index for sorting: missing ones after the numbered, in order."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return float("inf")

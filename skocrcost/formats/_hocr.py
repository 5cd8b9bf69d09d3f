"""hOCR (XHTML, or HTML parsed as HTML): words are ``ocrx_word`` elements in lines.

A word's line is its nearest ancestor of a line class (``ocr_line``, ``ocrx_line``,
``ocr_caption``, ``ocr_header``, ``ocr_textfloat``: Tesseract's), else its parent.
Its reading is its text; the engine's confidence is the ``x_wconf`` property of its
``title`` (0-100, read as a share).  A corrected word keeps its element and
attributes; its old reading goes to ``data-original`` and the corrector's confidence,
when it learned one, to ``data-confidence`` (HTML data attributes: hOCR's own place
for alternative readings, ``<span class="alternatives"><ins>/<del>``, would make text
extractors read both readings run together).
"""

from __future__ import annotations

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

LINE_CLASSES = ("ocr_line", "ocrx_line", "ocr_caption", "ocr_header", "ocr_textfloat")
WORD_CLASS = "ocrx_word"
ORIGINAL = "data-original"
CONFIDENCE = "data-confidence"
# HTML elements that have no end tag.
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
        "source", "track", "wbr"}  # fmt: skip


class Hocr(Format):
    name = "hocr"

    def __init__(self, data, html):
        super().__init__(data)
        self.html = html

    def lines(self, root):
        lines = {}
        for element in root.iter():
            if _has_class(element, LINE_CLASSES) and not any(
                _has_class(e, (WORD_CLASS, *LINE_CLASSES)) for e in element.iterdescendants()
            ):  # a line written without words
                text = " ".join("".join(element.itertext()).split())
                if text:
                    word = OCRWord(text, _wconf(element), [element], whole_line=True)
                    lines[element] = [word]
            if not _has_class(element, (WORD_CLASS,)):
                continue
            text = "".join(element.itertext()).strip()
            if not text:
                continue
            line = next(
                (a for a in element.iterancestors() if _has_class(a, LINE_CLASSES)),
                element.getparent(),
            )
            lines.setdefault(line, []).append(OCRWord(text, _wconf(element), [element]))
        return [OCRLine(words, line) for line, words in lines.items()]

    # -- edits ------------------------------------------------------------------------
    def set_text(self, word, text, confidence):
        element = word.elements[0]
        self._record(element, word.text, confidence)
        _set_element_text(element, text)
        word.text = text

    def _record(self, element, original, confidence):
        if element.get(ORIGINAL) is None:  # the engine's reading, kept through reruns
            element.set(ORIGINAL, original)
        if confidence is not None:
            element.set(CONFIDENCE, confidence_text(confidence))

    def box(self, element):
        return _bbox(element)

    def merge(self, first, others, original, confidence):
        self._record(first, original, confidence)
        for other in others:
            remove(other)

    def write(self, element, text, confidence):
        _set_element_text(element, text)

    def set_box(self, element, box, whole):
        _set_bbox(element, box)

    def piece(self, first):
        drop = ("id", ORIGINAL, CONFIDENCE)
        return first.makeelement(
            first.tag, {k: v for k, v in first.attrib.items() if k not in drop}
        )

    def serialize(self, tree):
        if self.html:
            from lxml import etree

            return etree.tostring(tree, method="html", encoding=tree.docinfo.encoding or "utf-8")
        for element in tree.getroot().iter():
            # <title></title>, not <title/>, which HTML reads as an open tag.
            if (
                isinstance(element.tag, str)
                and element.text is None
                and not len(element)
                and local(element) not in VOID
            ):
                element.text = ""
        return super().serialize(tree)


def _has_class(element, names):
    classes = element.get("class") if isinstance(element.tag, str) else None
    return bool(classes) and any(c in names for c in classes.split())


def properties(element):
    """The hOCR properties of an element's ``title``: ``{name: [values]}``."""
    out = {}
    for part in (element.get("title") or "").split(";"):
        fields = part.split()
        if fields:
            out[fields[0]] = fields[1:]
    return out


def _wconf(element):
    """The engine's confidence of an element: its ``x_wconf`` (0-100) as a share, or None."""
    wconf = properties(element).get("x_wconf")
    return clip01(float(wconf[0]) / 100) if _is_number(wconf) else None


def _is_number(values):
    try:
        return values is not None and len(values) == 1 and float(values[0]) == float(values[0])
    except ValueError:
        return False


def _bbox(element):
    values = properties(element).get("bbox")
    try:
        x0, y0, x1, y1 = (float(v) for v in values)
    except (TypeError, ValueError):
        return None
    return (x0, y0, x1, y1)


def _set_bbox(element, box):
    """Rewrite the ``bbox`` property of the ``title``, the other properties as they were."""
    value = "bbox " + " ".join(number(v, True) for v in box)
    parts = (element.get("title") or "").split(";")
    for k, part in enumerate(parts):
        if part.split()[:1] == ["bbox"]:
            parts[k] = (" " if k else "") + value
            break
    else:
        parts.insert(0, value + (" " if parts != [""] else ""))
    element.set("title", ";".join(p for p in parts if p.strip()))


def _set_element_text(element, text):
    """Put ``text`` where the element's text was (inside its formatting, ``<em>``,
    ``<strong>``), and empty the other texts of its subtree."""
    holder = next(
        (e for e in element.iter() if isinstance(e.tag, str) and (e.text or "").strip()), element
    )
    for e in element.iter():
        if e is not holder and isinstance(e.tag, str) and (e.text or "").strip():
            e.text = None
        if e is not element and (e.tail or "").strip():
            e.tail = None
    holder.text = text

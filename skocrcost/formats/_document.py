"""The format-neutral model of an OCR document: lines of words tied to their XML elements.

A reader (``_alto``, ``_hocr``, ``_page``) turns a parsed tree into :class:`OCRDocument`
lines of :class:`OCRWord`; the corrector reads :attr:`OCRDocument.text` (each line's
words joined by single spaces, lines by ``"\\n"``), and :func:`apply_changes` maps its
changes back onto the words through the reader's three edits (``set_text``,
``replace``, ``finish``).  The geometry helpers here are shared by the formats.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from lxml import etree

from ._detect import epilog, prolog


@dataclass(eq=False)
class OCRWord:
    """One word of an OCR document.

    Attributes
    ----------
    text : str
        Its reading (of a hyphenated ALTO word, the whole word: ``SUBS_CONTENT``),
        runs of white space made single spaces.
    confidence : float or None
        The OCR engine's confidence in ``text``, in [0, 1] (ALTO ``WC``, hOCR
        ``x_wconf`` / 100, PAGE ``TextEquiv/@conf``); None when the engine wrote none.
    elements : list
        Its XML element(s): one, or the two parts of a word hyphenated at a line end.
    whole_line : bool
        Whether it stands for a whole line that has no word elements (PAGE and hOCR
        written line by line): ``text`` is the line's, its spaces made single.
    """

    text: str
    confidence: float | None
    elements: list = field(default_factory=list)
    whole_line: bool = False

    def __post_init__(self):
        # Its spaces made single, so that the lines of the text the corrector reads
        # are the document's lines (a word holding a newline would add one).
        self.text = " ".join(self.text.split())

    @property
    def hyphenated(self):
        """Whether the word is cut by a line-break hyphen into two elements."""
        return len(self.elements) > 1


@dataclass(eq=False)
class OCRLine:
    """A line of words and its XML element."""

    words: list
    element: object = None

    @property
    def text(self):
        return " ".join(w.text for w in self.words)


class OCRDocument:
    """A parsed OCR document (ALTO, hOCR or PAGE): its tree and its lines of words.

    Made by :func:`skocrcost.formats.read_document`.

    Attributes
    ----------
    format : {"alto", "hocr", "page"}
    lines : list of OCRLine
        The text lines that hold at least one word, in document order; each has
        ``words`` (:class:`OCRWord`: ``text``, ``confidence``, ``elements``) and
        ``element``.
    tree : lxml.etree._ElementTree
        The parsed document; :meth:`tobytes` writes it.
    """

    def __init__(self, format, tree, lines, handler):
        self.format = format
        self.tree = tree
        self.lines = lines
        self._handler = handler

    @property
    def text(self):
        """The text the corrector reads: each line's words joined by single spaces,
        lines by ``"\\n"``."""
        return "\n".join(line.text for line in self.lines)

    @property
    def confidences(self):
        """The engine's confidence of each whitespace token of :attr:`text`, line by line.

        ``confidences[i][j]`` belongs to ``text.split("\\n")[i].split()[j]``: a
        float in [0, 1], or None where the engine wrote none (a word whose text
        holds a space gives each of its tokens its confidence).
        """
        return [[w.confidence for w in line.words for _ in w.text.split()] for line in self.lines]

    def tobytes(self):
        """The document as bytes, in its encoding, with its XML declaration if it had one
        and the white space it ended with (written after the root, whatever writes it)."""
        return self._handler.serialize(self.tree) + self._handler.epilog


def apply_changes(document, changes):
    """Write the applied ``changes`` of ``corrector.correct(document.text, True)`` onto
    the words of ``document``; returns the number of changes written.

    A change of as many tokens as words sets each word's text in place; another
    span of whole words is replaced by the reader (a split or a merge).  Not
    written: a change that drops its tokens (the elements stay), one that covers
    part of a word holding a space, a split or merge of a hyphenated word, and
    one whose original does not match the document.
    """
    handler = document._handler
    owners = [_token_owners(line) for line in document.lines]
    touched, written = set(), 0
    whole_lines = {}
    for change in changes:
        if not change.applied or not 0 <= change.line < len(owners):
            continue
        if document.lines[change.line].words[0].whole_line:
            whole_lines.setdefault(change.line, []).append(change)
            continue
        words = _whole_words(owners[change.line], change.start, change.stop)
        texts = change.corrected.split()
        if words is None or not texts or " ".join(w.text for w in words) != change.original:
            continue
        confidence = None if math.isnan(change.confidence) else float(change.confidence)
        if len(texts) == len(words):
            for word, text in zip(words, texts, strict=True):
                if text != word.text:
                    handler.set_text(word, text, confidence)
        elif any(w.hyphenated for w in words):
            continue
        else:
            handler.replace(words, texts, confidence)
        touched.add(change.line)
        written += 1
    for i, line_changes in whole_lines.items():
        written += _rewrite_line(document.lines[i].words[0], line_changes, handler)
        touched.add(i)
    handler.finish(document, sorted(touched))
    return written


def _rewrite_line(word, changes, handler):
    """Write ``changes`` onto a line that has no word elements: its text with their
    tokens replaced, the lowest of their confidences; returns the number written."""
    tokens = word.text.split()
    written = [c for c in changes if " ".join(tokens[c.start : c.stop]) == c.original]
    for change in sorted(written, key=lambda c: c.start, reverse=True):
        tokens[change.start : change.stop] = change.corrected.split()
    confidences = [c.confidence for c in written if not math.isnan(c.confidence)]
    if written:
        handler.set_text(word, " ".join(tokens), min(confidences) if confidences else None)
    return len(written)


def _token_owners(line):
    """The word of each whitespace token of ``line.text``."""
    return [w for w in line.words for _ in w.text.split()]


def _whole_words(owners, start, stop):
    """The words of tokens ``start:stop``, or None unless the span covers them whole."""
    if not 0 <= start < stop <= len(owners):
        return None
    if (start and owners[start - 1] is owners[start]) or (
        stop < len(owners) and owners[stop] is owners[stop - 1]
    ):
        return None
    return list(dict.fromkeys(owners[start:stop]))


# -- geometry shared by the formats ------------------------------------------------------
def union(boxes):
    """The box ``(x0, y0, x1, y1)`` holding all ``boxes`` (None if any is None)."""
    if not boxes or any(b is None for b in boxes):
        return None
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def share(x0, x1, texts):
    """Cut ``[x0, x1]`` into one span per text, by character count, a character's width
    between them (the space): ``[(a, b)]`` left to right."""
    total = sum(len(t) for t in texts) + len(texts) - 1
    step = (x1 - x0) / max(total, 1)
    spans, at = [], 0
    for text in texts:
        spans.append((x0 + at * step, x0 + (at + len(text)) * step))
        at += len(text) + 1
    return spans


def number(value, integral):
    """A coordinate as the document writes it: rounded when its numbers are whole."""
    if integral:
        return str(int(round(value)))
    return f"{value:.2f}".rstrip("0").rstrip(".")


def is_whole(*texts):
    """Whether every number text is written as a whole number."""
    return all(t is not None and "." not in t and "e" not in t.lower() for t in texts)


def cut_word(old, new, boundary):
    """Where to cut ``new`` so that its halves match ``old[:boundary]`` and
    ``old[boundary:]``: the cut carried across a character alignment, each half
    left at least one character."""
    cut = len(new)
    for tag, i1, i2, j1, _ in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if i1 <= boundary < i2 or (tag == "insert" and boundary == i1):
            cut = j1 + (boundary - i1 if tag == "equal" else 0)
            break
    return min(max(cut, 1), len(new) - 1) if len(new) > 1 else len(new)


def remove(element):
    """Remove ``element``, keeping the text after it (its tail) in place."""
    parent = element.getparent()
    tail = element.tail
    if tail and tail.strip():
        previous = element.getprevious()
        if previous is not None:
            previous.tail = (previous.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
    parent.remove(element)


def unique_id(base, taken):
    """``base_1``, ``base_2``, ...: the first not in ``taken`` (which it joins)."""
    k = 1
    while f"{base}_{k}" in taken:
        k += 1
    taken.add(f"{base}_{k}")
    return f"{base}_{k}"


class Format:
    """What the readers of the formats share: the source's prolog and epilog, its
    namespace, the identifiers it uses, writing it back.  A reader adds ``lines(root)``
    and the edits ``set_text(word, text, confidence)`` and ``replace(words, texts,
    confidence)``."""

    name = None
    id_attribute = "id"

    def __init__(self, data):
        self.data = data

    def read(self, tree):
        """The lines of the document of ``tree`` (parsed from this reader's data)."""
        root = tree.getroot()
        self.prolog = prolog(self.data, tree)
        self.epilog = epilog(self.data, tree)
        self.ns = root.nsmap.get(root.prefix)
        self.ids = {
            e.get(self.id_attribute)
            for e in root.iter()
            if isinstance(e.tag, str) and e.get(self.id_attribute)
        }
        return self.lines(root)

    def tag(self, name):
        return f"{{{self.ns}}}{name}" if self.ns else name

    def replace(self, words, texts, confidence):
        """Merge the words into the first one's element (the box around theirs, the
        others removed), then split it into one element per text, the box shared by
        character count with a character's width between them; a new element's
        identifier is the first's with ``_1``, ``_2``, ... (one not taken).

        A format gives ``box(element)``, ``merge(first, others, original,
        confidence)`` (keep the original reading, remove the others), ``write(element,
        text, confidence)`` (set the reading), ``set_box(element, box, whole)``,
        ``piece(first)`` (a new element like ``first``, no identifier nor reading), and
        may change :meth:`insert` and :meth:`integral`."""
        elements = [w.elements[0] for w in words]
        first = elements[0]
        box, whole = union([self.box(e) for e in elements]), self.integral(elements)
        self.merge(first, elements[1:], " ".join(w.text for w in words), confidence)
        spans = share(box[0], box[2], texts) if box else [None] * len(texts)
        self.write(first, texts[0], confidence)
        if box:
            self.set_box(first, (spans[0][0], box[1], spans[0][1], box[3]), whole)
        previous = first
        for text, span, before in zip(texts[1:], spans[1:], spans):
            element = self.piece(first)
            if first.get(self.id_attribute):
                new_id = unique_id(first.get(self.id_attribute), self.ids)
                attributes = {self.id_attribute: new_id, **element.attrib}  # the id first
                element.attrib.clear()
                element.attrib.update(attributes)
            self.write(element, text, confidence)
            gap = None
            if box:
                self.set_box(element, (span[0], box[1], span[1], box[3]), whole)
                gap = (before[1], box[1], span[0], box[3])
            self.insert(previous, element, gap, whole)
            previous = element
        words[0].text = " ".join(texts)

    def integral(self, elements):
        """Whether the coordinates of ``elements`` are whole numbers (written so)."""
        return True

    def insert(self, previous, element, gap, whole):
        """Put the new ``element`` after ``previous``, ``gap`` the box between them."""
        previous.addnext(element)
        element.tail = previous.tail
        if not (previous.tail or "").isspace():
            previous.tail = " "

    def finish(self, document, lines):
        """Bring what holds the words' text (e.g. a line's own text) in line with them."""

    def serialize(self, tree):
        return serialize(tree, self.prolog)


def serialize(tree, prolog):
    """``tree`` as bytes in its encoding after ``prolog`` (its XML declaration and
    DOCTYPE as the source wrote them: :func:`~skocrcost.formats._detect.prolog`).

    The DOCTYPE is taken off the tree first: libxml2 writes a tree with an XHTML
    DOCTYPE in its XHTML mode, which adds attributes (``xml:lang``) of its own.
    """
    encoding = tree.docinfo.encoding or "UTF-8"
    tree.docinfo.clear()
    return prolog + etree.tostring(tree, encoding=encoding, xml_declaration=False)


def confidence_text(value):
    """A confidence in [0, 1] as an attribute value (4 significant digits)."""
    return format(value, ".4g")


def clip01(value):
    """``value`` as a float in [0, 1], or None when it is missing or not a number."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    if math.isnan(value):
        return None
    return min(max(value, 0.0), 1.0)

"""Reading a source (a path, bytes or str), parsing it safely, and telling its format."""

from __future__ import annotations

import os
import re

from lxml import etree

FORMATS = ("alto", "hocr", "page", "text")
ALTO_NAMESPACES = (
    "http://www.loc.gov/standards/alto/ns-v2#",
    "http://www.loc.gov/standards/alto/ns-v3#",
    "http://www.loc.gov/standards/alto/ns-v4#",
    "",  # ALTO without a namespace (v1 and some v2 producers)
)
PAGE_NAMESPACE = "http://schema.primaresearch.org/PAGE/gts/pagecontent/"
# The class names that make an HTML document hOCR.
HOCR_MARKERS = ("ocr_page", "ocr_line", "ocrx_word")
_BOM = b"\xef\xbb\xbf"
_WHITE_SPACE = b" \t\r\n"
# What may stand before a document's first "<": a byte order mark and white space.
LEADING = _BOM + _WHITE_SPACE
_DECLARATION = re.compile(rb"(?:\xef\xbb\xbf)?<\?xml[^>]*\?>")


def read_source(source, name="source"):
    """The bytes of ``source``: a path (str or os.PathLike), markup as str, or bytes.

    A str whose first non-blank character is ``<`` is markup; another str is a path.
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source)
    if isinstance(source, str) and source.lstrip("\ufeff \t\r\n").startswith("<"):
        return source.encode("utf-8")
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as f:
            return f.read()
    raise TypeError(f"{name} must be a path, bytes or str, got {type(source).__name__}")


def _parser():
    # No entities, no DTD, no network: a document cannot make the parser read files
    # or expand itself.
    return etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, remove_blank_text=False
    )


def parse_xml(data):
    """The tree of ``data``, or raise ValueError naming what is wrong."""
    try:
        return etree.ElementTree(etree.fromstring(data, _parser()))
    except etree.XMLSyntaxError as exc:
        raise ValueError(f"source is not well-formed XML: {exc}") from None


def parse_html(data):
    """The tree of an HTML (not XHTML) document, parsed leniently as HTML is."""
    from lxml import html

    return etree.ElementTree(html.document_fromstring(data))


def local(element):
    """The local name of an element (without its namespace)."""
    tag = element.tag
    return etree.QName(tag).localname if isinstance(tag, str) else ""


def namespace(element):
    return etree.QName(element.tag).namespace or ""


def is_hocr(root):
    """Whether an (X)HTML root holds hOCR markup (an element of an hOCR class)."""
    for element in root.iter():
        classes = element.get("class")
        if classes and any(c in HOCR_MARKERS for c in classes.split()):
            return True
    return False


def looks_like_markup(data):
    return data.lstrip(LEADING).startswith(b"<")


def prolog(data, tree):
    """What a document writes before its root, to write back as it was: the byte
    order mark and XML declaration of ``data`` and the DOCTYPE of ``tree``."""
    found = _DECLARATION.match(data)
    head = found.group(0) if found else b""
    doctype = tree.docinfo.doctype
    if doctype:
        encoding = tree.docinfo.encoding or "UTF-8"
        head += (b"\n" if head else b"") + doctype.encode(encoding)
    return head + b"\n" if head else b""


def epilog(data, tree):
    """What a document writes after its root, to write back as it was: the white
    space its source ends with (lxml writes none, and a file that lost its last
    line end reads as changed), in an encoding that writes it as ASCII does."""
    try:
        ascii_like = "\n".encode(tree.docinfo.encoding or "UTF-8") == b"\n"
    except LookupError:  # (an encoding Python does not know: nothing added)
        return b""
    return data[len(data.rstrip(_WHITE_SPACE)) :] if ascii_like else b""


def detect(data):
    """``(format, tree)`` of ``data``: tree None for text; ValueError when unknown."""
    if not looks_like_markup(data):
        return "text", None
    try:
        tree = parse_xml(data)
    except ValueError:
        lower = data[:200_000].lower()
        if b"<html" in lower and any(m.encode() in lower for m in HOCR_MARKERS):
            return "hocr", parse_html(data)
        raise
    return kind(tree.getroot()), tree


def kind(root):
    """The format of a parsed root, or ValueError."""
    name, ns = local(root), namespace(root)
    if name == "alto" and ns in ALTO_NAMESPACES:
        return "alto"
    if name == "PcGts" and ns.startswith(PAGE_NAMESPACE):
        return "page"
    if name == "html" and is_hocr(root):
        return "hocr"
    raise ValueError(
        f"source is XML but neither ALTO, hOCR nor PAGE (root element {name!r}"
        + (f" in namespace {ns!r}" if ns else "")
        + ")"
    )


def check_format(format):
    if not isinstance(format, str):
        raise TypeError(f"format must be a str, got {type(format).__name__}")
    if format not in (*FORMATS, "auto"):
        raise ValueError(
            f"format must be one of 'auto', {', '.join(map(repr, FORMATS))}; got {format!r}"
        )
    return format

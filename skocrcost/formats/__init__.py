"""OCR documents in and out: ALTO (v2-v4), hOCR and PAGE XML, corrected in place.

:func:`correct_document` corrects the words of a document with a fitted
:class:`~skocrcost.OCRCorrector` and returns it with every other element,
attribute, coordinate and identifier as it was, the original readings kept where
the format has a place for them (see ``docs/formats.md``).  :func:`read_document`
gives the lines and words of a document with the engine's confidence of each word,
and :func:`detect_format` tells which format a source is in.

The parts, one idea each: ``_detect`` (reading a source, parsing it safely, its
format), ``_document`` (the format-neutral lines of words and the mapping of the
corrector's changes onto them), ``_alto``, ``_hocr`` and ``_page`` (each format's
words and edits).
"""

from __future__ import annotations

from ._alto import Alto
from ._detect import check_format, detect, read_source
from ._document import OCRDocument, OCRLine, OCRWord, apply_changes
from ._hocr import Hocr
from ._page import Page

__all__ = [
    "OCRDocument",
    "OCRLine",
    "OCRWord",
    "correct_document",
    "detect_format",
    "read_document",
]


def detect_format(source):
    """The format of an OCR document: "alto", "hocr", "page", or "text" if not markup.

    ALTO by its root ``alto`` (namespace ALTO v2, v3, v4 or none), PAGE by its root
    ``PcGts`` in a PAGE ``pagecontent`` namespace, hOCR by an ``html`` root holding
    an element of class ``ocr_page``, ``ocr_line`` or ``ocrx_word`` (HTML that is not
    XML is read as HTML).

    Parameters
    ----------
    source : str, os.PathLike or bytes
        A path, the document's bytes, or its markup as a str (a str that starts
        with ``<``; any other str is a path).

    Returns
    -------
    str

    Raises
    ------
    ValueError
        If ``source`` is markup but not well-formed XML (nor hOCR HTML), or XML of
        another kind.

    Examples
    --------
    >>> from skocrcost.formats import detect_format
    >>> detect_format('<alto xmlns="http://www.loc.gov/standards/alto/ns-v4#"/>')
    'alto'
    >>> detect_format(b"Tbe text of a page")
    'text'
    """
    return detect(read_source(source))[0]


def _handler(format, data, tree):
    if format == "alto":
        return Alto(data)
    if format == "page":
        return Page(data)
    from lxml import html

    return Hocr(data, html=isinstance(tree.getroot(), html.HtmlElement))


def read_document(source, format="auto"):
    """The lines and words of an ALTO, hOCR or PAGE document, with the engine's confidences.

    Parameters
    ----------
    source : str, os.PathLike or bytes
        A path, the document's bytes, or its markup as a str.
    format : {"auto", "alto", "hocr", "page"}, default="auto"
        "auto": :func:`detect_format`.

    Returns
    -------
    OCRDocument
        ``.lines``: the text lines holding words, each with ``.words``
        (:class:`OCRWord`: ``.text``, ``.confidence`` the engine's, a float in
        [0, 1] or None, ``.elements`` the XML elements); ``.text``: what the
        corrector reads (words joined by spaces, lines by ``"\\n"``);
        ``.confidences``: the engine's confidence of each whitespace token of
        ``.text``, line by line; ``.tobytes()``: the document.

    Raises
    ------
    ValueError
        If the source is not an OCR document of a known format, or not of ``format``.
    TypeError
        If ``source`` or ``format`` is of a wrong type.

    Examples
    --------
    >>> from skocrcost.formats import read_document
    >>> doc = read_document('''<alto xmlns="http://www.loc.gov/standards/alto/ns-v4#">
    ... <Layout><Page><PrintSpace><TextBlock><TextLine>
    ... <String CONTENT="Tbe" WC="0.41"/><SP/><String CONTENT="cat"/>
    ... </TextLine></TextBlock></PrintSpace></Page></Layout></alto>''')
    >>> doc.text
    'Tbe cat'
    >>> doc.confidences
    [[0.41, None]]
    """
    check_format(format)
    if format == "text":
        raise ValueError("format must name an OCR XML format to read a document, got 'text'")
    data = read_source(source)
    found, tree = detect(data)
    if found == "text":
        raise ValueError("source is not an ALTO, hOCR or PAGE document (it is not markup)")
    if format != "auto" and found != format:
        raise ValueError(f"source is {found}, not {format} (format={format!r})")
    handler = _handler(found, data, tree)
    return OCRDocument(found, tree, handler.read(tree), handler)


def correct_document(source, corrector, format="auto"):
    """Correct the words of an OCR document in place; the rest stays as it was.

    The words of each text line are joined by single spaces and the whole document
    is corrected at once by ``corrector.correct(text, return_confidence=True)``
    (lines separated by ``"\\n"``: recurring spellings are counted over the whole
    document).  Each change the corrector made is written onto its words: a word
    for a word in place; a word cut in two or more (``ofthe`` -> ``of the``) or
    words joined into one (``retu rned`` -> ``returned``) by splitting or merging
    the elements, their boxes shared by character count.  Every other element,
    attribute, coordinate and identifier is kept.  Where the original reading and
    the corrector's confidence go depends on the format: see ``docs/formats.md``.

    Parameters
    ----------
    source : str, os.PathLike or bytes
        A path, the document's bytes, or its markup (or text) as a str.
    corrector : OCRCorrector
        A fitted corrector (anything with its ``correct(text, return_confidence)``).
    format : {"auto", "alto", "hocr", "page", "text"}, default="auto"
        "auto": :func:`detect_format`; "text": the source is plain UTF-8 text,
        corrected as :meth:`~skocrcost.OCRCorrector.correct` does.

    Returns
    -------
    bytes
        The corrected document, in its encoding, with its XML declaration if it had one.

    Raises
    ------
    ValueError
        As :func:`read_document`; or if a text source is not UTF-8.
    TypeError
        If ``corrector`` has no ``correct`` method, or an argument is of a wrong type.

    Examples
    --------
    >>> from skocrcost import EditCostEstimator, OCRCorrector
    >>> from skocrcost.formats import correct_document
    >>> fixer = OCRCorrector(EditCostEstimator(k=0.5), lexicon=["the", "cat", "sat"],
    ...                      min_confidence=None).fit(["tbe cat"], ["the cat"])
    >>> page = '''<alto xmlns="http://www.loc.gov/standards/alto/ns-v4#">
    ... <Layout><Page><PrintSpace><TextBlock><TextLine>
    ... <String ID="s1" HPOS="10" VPOS="5" WIDTH="30" HEIGHT="12" CONTENT="Tbe" WC="0.41"/>
    ... <SP/><String ID="s2" HPOS="48" VPOS="5" WIDTH="30" HEIGHT="12" CONTENT="cat"/>
    ... </TextLine></TextBlock></PrintSpace></Page></Layout></alto>'''
    >>> out = correct_document(page, fixer)
    >>> from lxml import etree
    >>> first = etree.fromstring(out).find(".//{*}String")
    >>> first.get("ID"), first.get("HPOS"), first.get("CONTENT"), first.get("WC")
    ('s1', '10', 'The', '0.41')
    >>> first[0].tag.split("}")[1], first[0].text
    ('ALTERNATIVE', 'Tbe')
    """
    check_format(format)
    if not callable(getattr(corrector, "correct", None)):
        raise TypeError(
            "corrector must be a fitted OCRCorrector (with a correct method), "
            f"got {type(corrector).__name__}"
        )
    data = read_source(source)
    if format == "text" or (format == "auto" and detect(data)[0] == "text"):
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise ValueError(f"source is not UTF-8 text: {exc}") from None
        return corrector.correct(text).encode("utf-8")
    document = read_document(data, format)
    if document.lines:
        _, changes = corrector.correct(document.text, return_confidence=True)
        apply_changes(document, changes)
    return document.tobytes()

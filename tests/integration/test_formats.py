"""ALTO, hOCR and PAGE XML in and out: skocrcost.formats.

The documents are real Tesseract 5.3 output and hand-written samples of what it does
not write (tests/data/ocr/README.md); the correctors are real, fitted on tiny
constructed pairs (to make a split, a merge, a hyphenated word) or on the embedded
ICDAR 2017 sample.
"""

import doctest
import shutil
import subprocess
from pathlib import Path

import pytest
from lxml import etree, html

from skocrcost import EditCostEstimator, OCRCorrector
from skocrcost.correction import Decoder
from skocrcost.correction._confidence import Change
from skocrcost.datasets import load_icdar2017_sample
from skocrcost.formats import correct_document, detect_format, read_document
from skocrcost.formats._detect import epilog
from skocrcost.formats._document import apply_changes, cut_word, share

DATA = Path(__file__).resolve().parents[1] / "data" / "ocr"
ALTO = "{http://www.loc.gov/standards/alto/ns-v%s#}"
PAGE19 = "{http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15}"
XHTML = "{http://www.w3.org/1999/xhtml}"
FILES = {
    "tesseract.xml": "alto",
    "tesseract.hocr": "hocr",
    "tesseract-page.xml": "page",
    "alto-v2-hyphen.xml": "alto",
    "alto-v4.xml": "alto",
    "alto-nons.xml": "alto",
    "page-2013.xml": "page",
    "hocr-html.html": "hocr",
}
WORDS = ["the", "cat", "sat", "on", "early", "historians", "say", "a", "mat"]


@pytest.fixture(scope="module")
def tiny():
    """A corrector of a few words that splits ``thecat``, joins ``sa t`` and reads
    ``historlans`` as ``historians``; it learns no confidence (NaN)."""
    return OCRCorrector(
        EditCostEstimator(k=0.5),
        lexicon=WORDS,
        language_model=None,
        min_confidence=None,
        decoder=Decoder(split_cost=1.0, join_cost=1.0),
    ).fit(["tbe cat sat", "historlans say"], ["the cat sat", "historians say"])


@pytest.fixture(scope="module")
def real():
    """A corrector fitted on 600 real line pairs, making every change it proposes (its
    learned confidences are low on this page) so that there are changes to write."""
    ocr, truth = load_icdar2017_sample("lines")
    return OCRCorrector().fit(ocr[:600], truth[:600]).set_params(min_confidence=0.0)


def canonical(data):
    if data.lstrip().lower().startswith(b"<!doctype html>"):
        return etree.tostring(html.document_fromstring(data), method="c14n")
    parser = etree.XMLParser(resolve_entities=False, load_dtd=False, no_network=True)
    return etree.tostring(etree.fromstring(data, parser), method="c14n")


def tree(data):
    return etree.fromstring(data, etree.XMLParser(resolve_entities=False, load_dtd=False))


def by_id(root, attribute="ID"):
    return {e.get(attribute): e for e in root.iter() if e.get(attribute)}


# -- reading -------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(FILES))
def test_detects_each_format(name):
    path = DATA / name
    assert detect_format(path) == FILES[name]
    assert detect_format(str(path)) == FILES[name]
    assert detect_format(path.read_bytes()) == FILES[name]
    assert read_document(path).format == FILES[name]


def test_detects_text_and_markup_given_as_str():
    assert detect_format(b"Tbe cat sat on tbe mat") == "text"
    assert detect_format('<alto xmlns="http://www.loc.gov/standards/alto/ns-v3#"/>') == "alto"
    assert detect_format("<alto/>") == "alto"
    page = '<PcGts xmlns="http://schema.primaresearch.org/PAGE/gts/pagecontent/2010-03-19"/>'
    assert detect_format(page) == "page"


def test_the_three_tesseract_outputs_read_alike():
    # The same page in three formats: the same lines, words and engine confidences
    # (ALTO's WC, hOCR's x_wconf / 100, PAGE's conf).
    alto, hocr, page = (
        read_document(DATA / n) for n in ("tesseract.xml", "tesseract.hocr", "tesseract-page.xml")
    )
    assert alto.text == hocr.text == page.text
    assert alto.confidences == hocr.confidences == page.confidences
    assert len(alto.lines) == 6
    assert alto.text.split("\n")[1].endswith("histo-")  # Tesseract writes no HYP
    first = alto.lines[0].words[0]
    assert (first.text, first.confidence) == ("answer.", 0.18)
    assert first.elements[0].get("ID") == "string_0"
    assert all(0 <= c <= 1 for line in alto.confidences for c in line)
    assert [len(line) for line in alto.confidences] == [
        len(line.split()) for line in alto.text.split("\n")
    ]


def test_engine_confidence_is_none_where_the_engine_wrote_none():
    assert read_document(DATA / "alto-nons.xml").confidences == [[None, 1.0]]
    assert read_document(DATA / "hocr-html.html").confidences == [[0.7, 0.9, None]]
    assert read_document(DATA / "page-2013.xml").confidences == [[0.7, 0.9, 0.4]]


def test_white_space_inside_a_word_does_not_make_a_line(tiny):
    data = HOCR_LINES.replace(b"on the mat", b'<span class="ocrx_word">tbe\nmat</span>')
    doc = read_document(data)
    assert doc.text == "Tbe cat sat\ntbe mat"
    data = b'<alto><TextLine><String CONTENT="a&#10;b"/><String CONTENT="tbe"/></TextLine></alto>'
    assert read_document(data).text == "a b tbe"
    assert b'CONTENT="the"' in correct_document(data, tiny)


def test_a_hyphenated_alto_word_is_one_word_of_its_first_line():
    doc = read_document(DATA / "alto-v2-hyphen.xml")
    assert doc.text == "Tbe early historlans\nsay"
    word = doc.lines[0].words[-1]
    assert word.hyphenated and [e.get("ID") for e in word.elements] == ["S3", "S4"]
    assert word.confidence == 0.55  # the lower of its parts' WC
    assert doc.confidences == [[0.62, 0.97, 0.55], [0.99]]


# -- writing -------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(FILES))
def test_a_corrector_that_changes_nothing_gives_the_document_back(name, real):
    data = (DATA / name).read_bytes()
    keep = real.set_params(min_confidence=1.0)
    try:
        text = read_document(data).text
        assert not [c for c in keep.correct(text, return_confidence=True)[1] if c.applied]
        out = correct_document(data, keep)
    finally:
        real.set_params(min_confidence=0.0)
    assert canonical(out) == canonical(data)
    assert read_document(out).text == text


def test_the_xml_declaration_and_encoding_are_kept(tiny):
    data = (DATA / "alto-nons.xml").read_bytes()
    out = correct_document(data, tiny)
    assert out.startswith(b'<?xml version="1.0" encoding="ISO-8859-1"?>\n<alto>')
    assert b"caf\xe9" in out and b'CONTENT="The"' in out  # encoded as declared
    hocr = correct_document(DATA / "tesseract.hocr", tiny)
    assert hocr.startswith(b'<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE html PUBLIC')
    assert b"<title></title>" in hocr and b"xml:lang" not in hocr.split(b"<body>")[1]


def _trailing(data):
    return data[len(data.rstrip()) :]


@pytest.mark.parametrize("name", sorted(FILES))
@pytest.mark.parametrize("end", [None, b"", b"\r\n", b"\n\n  \n"])
def test_a_document_ends_as_its_source_does(name, end, tiny):
    data = (DATA / name).read_bytes()
    if end is not None:
        data = data.rstrip() + end
    out = correct_document(data, tiny)
    assert _trailing(out) == _trailing(data)
    assert out.rstrip().endswith((b"</alto>", b"</html>", b"</PcGts>"))


def test_nothing_follows_the_root_where_the_encoding_is_not_ascii_alike():
    markup = '<?xml version="1.0" encoding="UTF-16"?>\n<alto><Layout/></alto>\n'
    data = markup.encode("utf-16")
    document = etree.fromstring(data).getroottree()
    assert epilog(data, document) == b""
    utf8 = markup.replace("UTF-16", "UTF-8").encode()
    assert epilog(utf8, etree.fromstring(utf8).getroottree()) == b"\n"


def _applied(corrector, document):
    _, changes = corrector.correct(document.text, return_confidence=True)
    return [c for c in changes if c.applied]


@pytest.mark.parametrize("name", ["tesseract.xml", "tesseract.hocr", "tesseract-page.xml"])
def test_a_real_corrector_corrects_tesseract_words_in_place(name, real):
    data = (DATA / name).read_bytes()
    doc = read_document(data)
    changes = _applied(real, doc)
    assert len(changes) >= 3
    assert all(len(c.corrected.split()) == c.stop - c.start == 1 for c in changes)
    out = correct_document(data, real)
    corrected = real.correct(doc.text)
    assert read_document(out).text == corrected
    before, after = tree(data), tree(out)
    # Every element with an identifier is still there with the same attributes, but
    # for the corrected reading of the words.
    ident = "ID" if doc.format == "alto" else "id"
    old, new = by_id(before, ident), by_id(after, ident)
    assert old.keys() == new.keys()
    for key, element in old.items():
        mine = ("CONTENT", "data-original", "data-confidence")
        attributes = {k: v for k, v in element.attrib.items() if k not in mine}
        assert attributes == {k: v for k, v in new[key].attrib.items() if k not in mine}, key
    if doc.format == "page":
        coords = [
            (c.getparent().get("id"), c.get("points")) for c in before.iter(f"{PAGE19}Coords")
        ]
        assert coords == [
            (c.getparent().get("id"), c.get("points")) for c in after.iter(f"{PAGE19}Coords")
        ]
    for change in changes:
        word = doc.lines[change.line].words[change.start]
        element = new[word.elements[0].get(ident)]
        if doc.format == "alto":
            assert element.get("CONTENT") == change.corrected
            (alternative,) = element.findall(f"{ALTO % 3}ALTERNATIVE")
            assert (alternative.text, alternative.get("PURPOSE")) == (change.original, "OCR")
            assert element.get("WC") == word.elements[0].get("WC")  # the engine's, kept
        elif doc.format == "hocr":
            assert "".join(element.itertext()) == change.corrected
            assert element.get("data-original") == change.original
            assert float(element.get("data-confidence")) == pytest.approx(change.confidence, 1e-3)
        else:
            equivs = sorted(element.iter(f"{PAGE19}TextEquiv"), key=lambda e: e.get("index"))
            assert [e.get("index") for e in equivs] == ["1", "2"]
            assert [e[0].text for e in equivs] == [change.corrected, change.original]
            assert float(equivs[0].get("conf")) == pytest.approx(change.confidence, 1e-3)
            assert equivs[1].get("conf") == word.elements[0].find(f"{PAGE19}TextEquiv").get("conf")


def test_page_lines_and_regions_agree_with_their_words(real):
    out = tree(correct_document(DATA / "tesseract-page.xml", real))

    def main(element):
        equivs = element.findall(f"{PAGE19}TextEquiv")
        return min(equivs, key=lambda e: int(e.get("index", 10**9)))[0].text

    changed = 0
    for region in out.iter(f"{PAGE19}TextRegion"):
        lines = region.findall(f"{PAGE19}TextLine")
        for line in lines:
            assert main(line) == " ".join(main(w) for w in line.findall(f"{PAGE19}Word"))
            changed += len(line.findall(f"{PAGE19}TextEquiv")) == 2
        assert main(region) == "\n".join(main(line) for line in lines)
    assert changed >= 2


def test_a_split_and_a_merge_in_alto(tiny):
    out = tree(correct_document(DATA / "alto-v4.xml", tiny))
    line = out.find(f".//{ALTO % 4}TextLine")
    strings = line.findall(f"{ALTO % 4}String")
    assert [s.get("CONTENT") for s in strings] == ["the", "cat", "sat", "on"]
    assert [s.get("ID") for s in strings] == ["S1", "S1_1", "S2", "S4"]
    assert [local(c) for c in line] == ["String", "SP", "String", "SP", "String", "SP", "String"]
    the, cat, sat, _ = strings
    # The split shares the old box (10.5 to 90.5) by character count, a space between.
    ends = [(float(s.get("HPOS")), float(s.get("HPOS")) + float(s.get("WIDTH"))) for s in strings]
    assert ends[0][0] == 10.5 and ends[1][1] == pytest.approx(90.5, abs=0.01)
    assert ends[0][1] < float(line[1].get("HPOS")) + 0.01 < ends[1][0] + 0.01
    assert cat.get("VPOS") == the.get("VPOS") and cat.get("WC") == "0.8"
    assert [local(c) for c in the] == ["ALTERNATIVE", "Glyph"]  # the schema's order
    assert the[0].text == "thecat"
    # The merge takes the union of the boxes: 100.5 to 140.5.
    assert (sat.get("HPOS"), sat.get("WIDTH"), sat[0].text) == ("100.5", "40", "sa t")


HOCR_SPLIT = b"""<html xmlns="http://www.w3.org/1999/xhtml"><body>
<div class="ocr_page" id="p1" title="bbox 0 0 300 50"><span class="ocr_line" id="l1"
 title="bbox 0 0 300 50; baseline 0 -5">
 <span class="ocrx_word" id="w1" title="bbox 0 0 70 30; x_wconf 80">thecat</span>
 <span class="ocrx_word" id="w1_1" title="bbox 80 0 100 30; x_wconf 50">sa</span>
 <span class="ocrx_word" id="w3" title="bbox 110 0 120 30; x_wconf 40">t</span>
 <span class="ocrx_word" id="w4" title="bbox 130 0 150 30; x_wconf 99">on</span>
</span></div></body></html>"""

PAGE_SPLIT = f"""<PcGts xmlns="{PAGE19[1:-1]}"><Page imageFilename="x.png" imageWidth="300"
 imageHeight="50"><TextRegion id="r"><Coords points="0,0 300,0 300,50 0,50"/>
<TextLine id="l"><Coords points="0,0 300,0 300,50 0,50"/>
<Word id="w1"><Coords points="0,0 70,0 70,30 0,30"/><TextEquiv conf="0.8"><Unicode>thecat</Unicode></TextEquiv></Word>
<Word id="w2"><Coords points="80,0 100,0 100,30 80,30"/><TextEquiv conf="0.5"><Unicode>sa</Unicode></TextEquiv></Word>
<Word id="w3"><Coords points="110,0 120,0 120,30 110,30"/><TextEquiv conf="0.4"><Unicode>t</Unicode></TextEquiv></Word>
<Word id="w4"><Coords points="130,0 150,0 150,30 130,30"/><TextEquiv conf="0.99"><Unicode>on</Unicode></TextEquiv></Word>
<TextEquiv><Unicode>thecat sa t on</Unicode></TextEquiv></TextLine></TextRegion></Page></PcGts>
""".encode()  # noqa: E501


def local(element):
    return etree.QName(element).localname


def test_a_split_and_a_merge_in_hocr(tiny):
    out = tree(correct_document(HOCR_SPLIT, tiny))
    words = [e for e in out.iter(f"{XHTML}span") if e.get("class") == "ocrx_word"]
    # w1's split piece may not take the id w1_1: it is taken.
    assert [(w.get("id"), w.text) for w in words] == [
        ("w1", "the"), ("w1_2", "cat"), ("w1_1", "sat"), ("w4", "on")
    ]  # fmt: skip
    assert [w.get("title") for w in words] == [
        "bbox 0 0 30 30; x_wconf 80",
        "bbox 40 0 70 30; x_wconf 80",
        "bbox 80 0 120 30; x_wconf 50",
        "bbox 130 0 150 30; x_wconf 99",
    ]
    assert [w.get("data-original") for w in words] == ["thecat", None, "sa t", None]
    assert "data-confidence" not in str(etree.tostring(out))  # NaN: nothing written
    assert " ".join("".join(out.itertext()).split()) == "the cat sat on"


def test_a_split_and_a_merge_in_page(tiny):
    out = tree(correct_document(PAGE_SPLIT, tiny))
    words = out.findall(f".//{PAGE19}Word")
    assert [w.get("id") for w in words] == ["w1", "w1_1", "w2", "w4"]
    assert [w.find(f"{PAGE19}Coords").get("points") for w in words] == [
        "0,0 30,0 30,30 0,30",
        "40,0 70,0 70,30 40,30",
        "80,0 120,0 120,30 80,30",
        "130,0 150,0 150,30 130,30",
    ]
    texts = [[(e.get("index"), e.get("conf"), e[0].text) for e in w.findall(f"{PAGE19}TextEquiv")] for w in words]  # fmt: skip  # noqa: E501
    assert texts == [
        [("1", None, "the"), ("2", "0.8", "thecat")],
        [("1", None, "cat")],
        [("1", None, "sat"), ("2", "0.5", "sa t")],
        [(None, "0.99", "on")],
    ]
    line = out.find(f".//{PAGE19}TextLine")
    assert [e[0].text for e in line.findall(f"{PAGE19}TextEquiv")] == [
        "the cat sat on",
        "thecat sa t on",
    ]


PAGE_LINES = f"""<PcGts xmlns="{PAGE19[1:-1]}"><Page imageFilename="x.png" imageWidth="300"
 imageHeight="90"><TextRegion id="r"><Coords points="0,0 300,0 300,90 0,90"/>
<TextLine id="l1"><Coords points="0,0 300,0 300,30 0,30"/>
<TextEquiv conf="0.6"><Unicode>Tbe  cat sat</Unicode></TextEquiv></TextLine>
<TextLine id="l2"><Coords points="0,40 300,40 300,70 0,70"/>
<TextEquiv conf="0.9"><Unicode>on the mat</Unicode></TextEquiv></TextLine>
<TextEquiv><Unicode>Tbe  cat sat\non the mat</Unicode></TextEquiv></TextRegion></Page></PcGts>
""".encode()

HOCR_LINES = b"""<html xmlns="http://www.w3.org/1999/xhtml"><body><div class="ocr_page" title="bbox 0 0 9 9">
<span class="ocr_line" id="l1" title="bbox 0 0 300 30; x_wconf 60">Tbe cat
 sat</span>
<span class="ocr_line" id="l2" title="bbox 0 40 300 70">on the mat</span>
</div></body></html>"""  # noqa: E501


def test_lines_written_without_words_are_corrected_as_lines(tiny):
    # PAGE and hOCR written line by line (no Word, no ocrx_word): a line is one
    # reading, corrected as a whole, its spaces made single.
    page = read_document(PAGE_LINES)
    assert page.text == "Tbe cat sat\non the mat"
    assert page.confidences == [[0.6, 0.6, 0.6], [0.9, 0.9, 0.9]]
    assert page.lines[0].words[0].whole_line
    out = tree(correct_document(PAGE_LINES, tiny))
    first, second = out.findall(f".//{PAGE19}TextLine")
    texts = [
        (e.get("index"), e.get("conf"), e[0].text) for e in first.findall(f"{PAGE19}TextEquiv")
    ]
    assert texts == [("1", None, "The cat sat"), ("2", "0.6", "Tbe  cat sat")]
    assert len(second.findall(f"{PAGE19}TextEquiv")) == 1
    region = out.find(f".//{PAGE19}TextRegion")
    assert [e[0].text for e in region.findall(f"{PAGE19}TextEquiv")] == [
        "The cat sat\non the mat",
        "Tbe  cat sat\non the mat",
    ]
    hocr = read_document(HOCR_LINES)
    assert hocr.text == "Tbe cat sat\non the mat"
    assert hocr.confidences == [[0.6, 0.6, 0.6], [None, None, None]]
    lines = by_id(tree(correct_document(HOCR_LINES, tiny)), "id")
    assert (lines["l1"].text, lines["l1"].get("data-original")) == ("The cat sat", "Tbe cat sat")
    assert lines["l2"].text == "on the mat" and lines["l2"].get("data-original") is None


def test_page_before_2016_keeps_one_textequiv_and_the_original_in_comments(tiny):
    # PAGE 2013 allows a single TextEquiv (no index): the reading is replaced in
    # place, the engine's reading and conf go to comments, conf is the corrector's.
    page13 = "{http://schema.primaresearch.org/PAGE/gts/pagecontent/2013-07-15}"
    out = tree(correct_document(DATA / "page-2013.xml", tiny))
    words = by_id(out, "id")
    equivs = words["w1"].findall(f"{page13}TextEquiv")
    assert [(e.get("conf"), e.get("index"), e[0].text) for e in equivs] == [(None, None, "The")]
    assert words["w1"].get("comments") == "OCR: Tbe (conf 0.7)"
    assert words["w2"].get("comments") is None
    (glyph,) = words["w3"].findall(f"{page13}Glyph")  # kept as it was
    assert glyph.find(f"{page13}TextEquiv")[0].text == "s"
    for element, text in ((words["l1"], "The cat sat."), (words["r1"], "The cat sat.")):
        (equiv,) = element.findall(f"{page13}TextEquiv")
        assert equiv[0].text == text and element.get("comments") == "OCR: Tbe cat sat."


def test_a_hyphenated_alto_word_is_corrected_in_both_parts(tiny):
    out = tree(correct_document(DATA / "alto-v2-hyphen.xml", tiny))
    strings = by_id(out)
    first, second = strings["S3"], strings["S4"]
    assert (first.get("CONTENT"), second.get("CONTENT")) == ("histo", "rians")
    assert first.get("SUBS_CONTENT") == second.get("SUBS_CONTENT") == "historians"
    assert first.get("SUBS_TYPE") == "HypPart1" and second.get("SUBS_TYPE") == "HypPart2"
    assert len(first) == 0  # its part is unchanged: no ALTERNATIVE
    assert [a.text for a in second] == ["rlans"]
    assert strings["S1"].get("CONTENT") == "The"
    assert out.find(f".//{ALTO % 2}HYP").get("CONTENT") == "-"


def test_the_cut_of_a_hyphenated_word_follows_the_alignment():
    assert cut_word("historlans", "historians", 5) == 5
    assert cut_word("tbe-re", "there", 3) == 3  # a part that loses a character
    assert cut_word("abcdef", "xxabcdef", 3) == 5  # characters added before the cut
    assert cut_word("ab", "abc", 1) == 1
    assert cut_word("abc", "a", 2) == 1  # a one-character word stays whole
    assert cut_word("abc", "zz", 2) == 1  # each part keeps a character


def test_share_cuts_a_span_by_character_count():
    assert share(0, 70, ["the", "cat"]) == [(0, 30), (40, 70)]
    assert share(5, 5, ["a"]) == [(5, 5)]


def _doc(contents):
    strings = "<SP/>".join(f'<String ID="s{k}" CONTENT="{c}"/>' for k, c in enumerate(contents))
    return read_document(f"<alto><Layout><TextLine>{strings}</TextLine></Layout></alto>")


def test_apply_changes_writes_only_whole_words_it_can_place():
    doc = _doc(["a b", "tbe", "c0w", "x"])
    assert doc.text == "a b tbe c0w x"
    changes = [
        Change(0, 1, 2, "b", "B", 0.9, True),  # part of the word "a b": not written
        Change(0, 2, 3, "tbe", "the", 0.9, False),  # not applied
        Change(0, 3, 4, "c0w", "", 0.9, True),  # drops its token: the element stays
        Change(0, 4, 5, "y", "z", 0.9, True),  # its original is not the document's
        Change(1, 0, 1, "a", "A", 0.9, True),  # no such line
        Change(0, 0, 2, "a b", "ab", 0.9, True),  # the whole of "a b": written
    ]
    assert apply_changes(doc, changes) == 1
    assert [e.get("CONTENT") for e in doc.tree.iter("String")] == ["ab", "tbe", "c0w", "x"]


def test_a_split_of_a_hyphenated_word_is_not_written():
    doc = read_document(DATA / "alto-v2-hyphen.xml")
    changes = [Change(0, 2, 3, "historlans", "histor lans", 0.9, True)]
    assert apply_changes(doc, changes) == 0
    assert canonical(doc.tobytes()) == canonical((DATA / "alto-v2-hyphen.xml").read_bytes())


def test_plain_text_is_corrected_as_text(tiny):
    assert correct_document(b"Tbe cat\nthecat", tiny) == b"The cat\nthe cat"
    assert correct_document(b"<cat> tbe", tiny, format="text") == b"<cat> the"


# -- errors --------------------------------------------------------------------------
def test_bad_input_is_refused_with_a_message(tiny):
    with pytest.raises(ValueError, match="neither ALTO, hOCR nor PAGE.*'svg'"):
        read_document(b'<svg xmlns="http://www.w3.org/2000/svg"/>')
    with pytest.raises(ValueError, match="not well-formed XML"):
        correct_document(b"<alto><Layout></alto>", tiny)
    with pytest.raises(ValueError, match="not markup"):
        read_document(b"plain text")
    with pytest.raises(ValueError, match="format must be one of"):
        correct_document(DATA / "alto-v4.xml", tiny, format="pdf")
    with pytest.raises(ValueError, match="source is alto, not page"):
        read_document(DATA / "alto-v4.xml", format="page")
    with pytest.raises(ValueError, match="got 'text'"):
        read_document(DATA / "alto-v4.xml", format="text")
    with pytest.raises(ValueError, match="not UTF-8"):
        correct_document(b"caf\xe9", tiny)
    with pytest.raises(TypeError, match="source must be a path, bytes or str, got int"):
        detect_format(12)
    with pytest.raises(TypeError, match="format must be a str"):
        read_document(DATA / "alto-v4.xml", format=None)
    with pytest.raises(TypeError, match="corrector must be a fitted OCRCorrector"):
        correct_document(DATA / "alto-v4.xml", "tiny")
    with pytest.raises(FileNotFoundError):
        read_document(DATA / "missing.xml")


def test_entities_are_not_expanded_nor_files_read(tmp_path, tiny):
    secret = tmp_path / "secret.txt"
    secret.write_text("SECRET")
    data = (
        f'<!DOCTYPE alto [<!ENTITY x SYSTEM "file://{secret}">]>'
        '<alto><Layout><TextLine><String CONTENT="tbe"/>&x;</TextLine></Layout></alto>'
    ).encode()
    assert b"SECRET" not in correct_document(data, tiny)


def test_docstring_examples_run():
    import skocrcost.formats

    result = doctest.testmod(skocrcost.formats, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.skipif(shutil.which("tesseract") is None, reason="tesseract is not installed")
@pytest.mark.parametrize("config", ["alto", "hocr"])
def test_live_tesseract_output_reads_and_round_trips(config, tmp_path, real):
    pytest.importorskip("PIL", reason="pillow renders the line")
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("L", (700, 60), 255)
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf", 28)
    ImageDraw.Draw(image).text((10, 10), "The queen of the fairies", font=font, fill=0)
    image.save(tmp_path / "line.png")
    subprocess.run(["tesseract", "line.png", "out", config], cwd=tmp_path, check=True,
                   capture_output=True)  # fmt: skip
    out = next(tmp_path.glob("out.*"))
    doc = read_document(out)
    assert doc.format == config and "fairies" in doc.text
    assert all(c is not None for line in doc.confidences for c in line)
    assert read_document(correct_document(out, real)).text == real.correct(doc.text)


# -- the command line ----------------------------------------------------------------
def _cli_files(tmp_path):
    (tmp_path / "words.txt").write_text("\n".join(WORDS) + "\n", encoding="utf-8")
    pairs = [("tbe", "the"), ("historlans", "historians"), ("say", "say"), ("the", "the")]
    (tmp_path / "pairs.tsv").write_text("".join(f"{a}\t{b}\n" for a, b in pairs))
    return pairs


def test_cli_corrects_an_alto_file_in_place(tmp_path, capsysbinary):
    from sklearn.frozen import FrozenEstimator

    from skocrcost import cli, pretrained

    pairs = _cli_files(tmp_path)
    path = DATA / "alto-v2-hyphen.xml"
    args = ["correct", str(path), "--lexicon", str(tmp_path / "words.txt")]
    assert cli.main([*args, "--pairs", str(tmp_path / "pairs.tsv")]) == 0
    out = capsysbinary.readouterr().out
    # What the command builds: the shipped costs, frozen, fitted on the pairs.
    fixer = OCRCorrector(FrozenEstimator(pretrained()), lexicon=WORDS)
    fixer.fit([a for a, _ in pairs], [b for _, b in pairs])
    assert out == correct_document(path, fixer)
    assert read_document(out).text == "The early historians\nsay"
    assert cli.main([*args, "--pairs", str(tmp_path / "pairs.tsv"), "--format", "alto", "-q"]) == 0
    assert read_document(capsysbinary.readouterr().out).text == "The early historians\nsay"


def test_cli_reads_a_document_from_stdin_and_names_a_wrong_format(tmp_path):
    from conftest import run_skocrcost

    _cli_files(tmp_path)
    hocr = (DATA / "hocr-html.html").read_text(encoding="utf-8")
    fit = ("--lexicon", "words.txt", "--pairs", "pairs.tsv")
    run = run_skocrcost("correct", *fit, cwd=tmp_path, input=hocr)
    assert run.returncode == 0, run.stderr
    assert read_document(run.stdout.encode()).text == "The cat sat"
    assert 'data-original="Tbe"' in run.stdout
    run = run_skocrcost("correct", "-", *fit, "--format", "page", cwd=tmp_path, input=hocr)
    assert run.returncode == 1
    assert run.stderr.startswith("skocrcost: error: source is hocr, not page")
    run = run_skocrcost("correct", *fit, "--format", "text", cwd=tmp_path, input="<tbe> tbe\n")
    assert (run.returncode, run.stdout) == (0, "<the> the\n")  # text, not XML


def test_cli_corrects_a_document_with_the_shipped_corrector(capsysbinary):
    from skocrcost import cli
    from skocrcost.datasets import pretrained_corrector

    path = DATA / "tesseract.hocr"
    assert cli.main(["correct", str(path)]) == 0
    out = capsysbinary.readouterr().out
    corrector = pretrained_corrector()
    assert out == correct_document(path, corrector)
    # At its 0.7 it makes one change on this page (0.92 sure) and doubts the others.
    assert "delight," in read_document(out).text and "dehght" not in read_document(out).text
    assert cli.main(["correct", str(path), "--min-confidence", "0.95"]) == 0
    out = capsysbinary.readouterr().out
    assert out == correct_document(path, corrector.set_params(min_confidence=0.95))
    assert read_document(out).text == read_document(path).text

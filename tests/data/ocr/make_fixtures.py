"""Make the Tesseract fixtures of tests/integration/test_formats.py (run from the repository root).

Renders a few ground-truth lines of the embedded ICDAR 2017 sample into a small,
slightly degraded page image and runs Tesseract on it for each output format it
has: ALTO (Tesseract 5.3 writes v3) and hOCR.  Tesseract 5.3 has no PAGE renderer,
so ``tesseract-page.xml`` is PAGE 2019 made from its hOCR with lxml: the same words,
boxes and confidences.  Needs pillow, lxml and ``tesseract`` on PATH; the outputs are
committed, so the tests do not.

    python tests/data/ocr/make_fixtures.py
"""

import random
import shutil
import subprocess
import sys
from pathlib import Path

from lxml import etree
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from skocrcost.datasets import load_icdar2017_sample

HERE = Path(__file__).resolve().parent
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
# Sample lines (truth side), one of them cut by a line-break hyphen.
LINES = [100, 102, 103, 106, 110]


def page_lines():
    _, truth = load_icdar2017_sample("lines")
    lines = [truth[i] for i in LINES]
    # "historians" hyphenated at the end of the second line.
    head, tail = lines[1].split(" historians ")
    return [lines[0], head + " histo-", "rians " + tail, *lines[2:]]


def render(lines, path):
    font = ImageFont.truetype(FONT, 22)
    width = 40 + max(int(font.getlength(line)) for line in lines)
    image = Image.new("L", (width, 40 + 34 * len(lines)), 255)
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((20, 20 + 34 * i), line, font=font, fill=0)
    # A little degradation: blur, then salt-and-pepper noise, then a threshold.
    image = image.resize((width * 2 // 3, image.height * 2 // 3)).filter(
        ImageFilter.GaussianBlur(0.5)
    )
    rng = random.Random(0)
    pixels = image.load()
    for _ in range(image.width * image.height // 400):
        x, y = rng.randrange(image.width), rng.randrange(image.height)
        pixels[x, y] = 0 if rng.random() < 0.5 else 255
    image = image.resize((width, image.height * 3 // 2)).point(lambda v: 0 if v < 150 else 255)
    image.save(path)


def main():
    if shutil.which("tesseract") is None:
        sys.exit("tesseract is not on PATH (apt-get install tesseract-ocr)")
    image = HERE / "page.png"
    render(page_lines(), image)
    for config in ("alto", "hocr"):
        subprocess.run(["tesseract", image.name, "tesseract", config], check=True, cwd=HERE)
    image.unlink()
    page = page_from_hocr((HERE / "tesseract.hocr").read_bytes())
    page.write(str(HERE / "tesseract-page.xml"), xml_declaration=True, encoding="UTF-8")


PAGE = "http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15"


def page_from_hocr(data):
    """PAGE 2019 with the regions, lines and words of a Tesseract hOCR file."""
    hocr = etree.fromstring(data, etree.XMLParser(load_dtd=False, resolve_entities=False))

    def of_class(element, name):
        return [e for e in element.iter() if name in (e.get("class") or "").split()]

    def box(element):
        title = element.get("title").split(";")[0].split()
        x0, y0, x1, y1 = title[1:5]
        return f"{x0},{y0} {x1},{y0} {x1},{y1} {x0},{y1}"

    def node(parent, name, **attributes):
        return etree.SubElement(parent, f"{{{PAGE}}}{name}", attributes)

    def equiv(parent, text, conf=None):
        te = node(parent, "TextEquiv", **({"conf": conf} if conf else {}))
        node(te, "Unicode").text = text

    root = etree.Element(f"{{{PAGE}}}PcGts", nsmap={None: PAGE})
    meta = node(root, "Metadata")
    node(meta, "Creator").text = "tesseract 5.3.0 (hOCR), tests/data/ocr/make_fixtures.py"
    node(meta, "Created").text = node(meta, "LastChange").text = "2026-11-25T17:00:00"
    page_box = of_class(hocr, "ocr_page")[0].get("title").split("bbox ")[1].split()
    page = node(root, "Page", imageFilename="page.png", imageWidth=page_box[2],
                imageHeight=page_box[3].rstrip(";"))  # fmt: skip
    for r, par in enumerate(of_class(hocr, "ocr_par"), 1):
        region = node(page, "TextRegion", id=f"r{r}")
        node(region, "Coords", points=box(par))
        texts = []
        for n, line in enumerate(of_class(par, "ocr_line"), 1):
            text_line = node(region, "TextLine", id=f"r{r}l{n}")
            node(text_line, "Coords", points=box(line))
            words = []
            for k, span in enumerate(of_class(line, "ocrx_word"), 1):
                word = node(text_line, "Word", id=f"r{r}l{n}w{k}")
                node(word, "Coords", points=box(span))
                conf = span.get("title").split("x_wconf ")[1].split(";")[0]
                equiv(word, "".join(span.itertext()), f"{int(conf) / 100:g}")
                words.append("".join(span.itertext()))
            equiv(text_line, " ".join(words))
            texts.append(" ".join(words))
        equiv(region, "\n".join(texts))
    etree.indent(root)
    return etree.ElementTree(root)


if __name__ == "__main__":
    main()

"""Does the OCR engine's own word confidence help decide which words to change?

    python benchmarks/engine_confidence.py [--n-test N] [--max-train N] [--json PATH]

Held-out **truth** lines of the three collections of ``benchmarks/cross_collection.py``
(ICDAR 2017 monographs and BLN600 newspapers: held-out blocks; ICDAR 2017
periodicals: ``dev``) are rendered one line to an image, degraded, and read by
real Tesseract (``tesseract`` on PATH, its LSTM engine, ``--psm 7``: one line per
image; all images of a collection in one run, through a file list) into hOCR;
each hOCR is read back with :func:`skocrcost.formats.read_document`, so that
every line has Tesseract's text, its per-word ``x_wconf`` (/ 100) and its truth.

The degradation, drawn per line from a seeded generator: a DejaVu Serif face
(regular, condensed or italic; no historical-looking font is installed),
rendered at 17 to 23 pixels, skewed by up to 0.6 degrees, scaled down to 60-90%
(a low-resolution scan), blurred (Gaussian, radius 0.2 to 0.7), salt-and-pepper
noise on 0.2-1.2% of the pixels, scaled back up and thresholded: Tesseract's
character error rate comes out at 4.8-6.5% (word error rate 23-27%, much of it
punctuation).  Tesseract's output is
cached in ``benchmarks/results/engine_confidence/`` (not committed), so a rerun
only corrects.

Measured per collection:

(a) how well the engine's confidence alone tells a wrong OCR token: ROC AUC of
    ``1 - confidence`` for "the token differs from its aligned truth token"
    (:func:`skocrcost.correction.align_tokens`);
(b) correction of the Tesseract lines (25 lines to a document, as
    :func:`~skocrcost.formats.correct_document` reads them: one ``correct`` call
    per document) by ``pretrained_corrector()`` and by a corrector fitted on the
    collection's own training lines (real OCR, not Tesseract's), at several
    ``min_confidence`` values, with and without an engine-confidence rule.  Each
    ``correct(..., return_confidence=True)`` lists every change it proposed with
    its learned confidence, so each rule is a selection of those changes:

    * ``as is``: the changes ``correct`` makes (learned confidence >= min_confidence);
    * ``gate T``: of those, only the ones whose words the engine is less than ``T``
      sure of (a change's engine confidence: the lowest of its words');
    * ``lower L->m`` (at min_confidence 0.8): as is, plus the changes of words the
      engine is less than ``L`` sure of whose learned confidence is at least ``m``;
    * ``odds w``: a change is made when ``logit(its confidence) + w *
      logit(1 - engine)`` reaches ``logit(min_confidence)`` (the engine's
      confidence, clipped to [0.02, 0.98], moves the bar both ways; 0.5 leaves it).

Reported: WER before and after (and its relative change), CER, the share of
lines made worse, the share of right OCR tokens changed (the measures of
``cross_collection.py``), and for each rule the ``min_confidence`` values at which
correcting without a rule does at least as well on all three ("beaten by"); for
each corrector, the share of the changes it makes and of those it holds back
whose words the engine is less than 0.5 and 0.9 sure of.  The figures of
``docs/formats.md`` ("The engine's confidence"):

    python benchmarks/engine_confidence.py --n-test 800 \
        --json benchmarks/results/engine_confidence.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

from cross_collection import collections, quality
from sklearn.base import clone

from skocrcost import OCRCorrector
from skocrcost.correction import align_tokens
from skocrcost.datasets import load_icdar2017_sample, pretrained_corrector
from skocrcost.formats import read_document

HERE = Path(__file__).resolve().parent
CACHE = HERE / "results" / "engine_confidence"
FONTS = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSerifCondensed.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Italic.ttf",
]
DOCUMENT = 25  # lines corrected together, as one document
THRESHOLDS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
GATES = (0.95, 0.9, 0.8)
LOWERS = ((0.5, 0.5), (0.7, 0.5), (0.5, 0.3), (0.7, 0.3), (0.9, 0.5))
WEIGHTS = (0.25, 0.5)


# -- the data: rendered, degraded, read by Tesseract ------------------------------------
def render(line, path, rng):
    """``line`` drawn into a degraded grey image at ``path``."""
    from PIL import Image, ImageDraw, ImageFilter, ImageFont

    font = ImageFont.truetype(rng.choice(FONTS), rng.randint(17, 23))
    width = 20 + int(font.getlength(line))
    height = int(font.size * 1.8)
    image = Image.new("L", (width, height), 255)
    ImageDraw.Draw(image).text((10, font.size // 3), line, font=font, fill=0)
    image = image.rotate(rng.uniform(-0.6, 0.6), fillcolor=255, expand=True)
    scale = rng.uniform(0.6, 0.9)
    small = (max(1, int(image.width * scale)), max(1, int(image.height * scale)))
    image = image.resize(small).filter(ImageFilter.GaussianBlur(rng.uniform(0.2, 0.7)))
    pixels = image.load()
    for _ in range(int(image.width * image.height * rng.uniform(0.002, 0.012))):
        x, y = rng.randrange(image.width), rng.randrange(image.height)
        pixels[x, y] = 0 if rng.random() < 0.5 else 255
    image = image.resize((width, height + 4)).point(lambda v: 0 if v < 150 else 255)
    image.save(path)


def tesseract_lines(name, truth):
    """``[(ocr_text, confidences)]`` of each truth line: Tesseract's hOCR, read back."""
    digest = hashlib.sha1("\n".join(truth).encode()).hexdigest()[:10]
    hocr = CACHE / f"{name}-{len(truth)}-{digest}.hocr"
    if not hocr.exists():
        tesseract = shutil.which("tesseract")
        if tesseract is None:
            sys.exit("tesseract is not on PATH")
        work = CACHE / f"{name}-images"
        work.mkdir(parents=True, exist_ok=True)
        rng = random.Random(f"engine-confidence-{name}")
        paths = []
        for i, line in enumerate(truth):
            path = work / f"{i:05d}.png"
            render(line, path, rng)
            paths.append(str(path))
        (work / "list.txt").write_text("\n".join(paths) + "\n")
        t0 = time.time()
        subprocess.run(
            [tesseract, str(work / "list.txt"), str(hocr.with_suffix("")), "--psm", "7",
             "-c", "tessedit_create_hocr=1"],
            check=True, capture_output=True, env={**os.environ, "OMP_THREAD_LIMIT": "1"},
        )  # fmt: skip
        print(f"{name}: Tesseract read {len(truth)} lines in {time.time() - t0:.0f} s", flush=True)
        shutil.rmtree(work)
    document = read_document(hocr, format="hocr")
    out = [("", []) for _ in truth]
    for line, confidences in zip(document.lines, document.confidences, strict=True):
        page = line.element
        while "ocr_page" not in (page.get("class") or "").split():
            page = page.getparent()
        index = int(page.get("title").split('"')[1].rsplit("/", 1)[1].split(".")[0])
        text, before = out[index]
        joined = f"{text} {line.text}".strip()
        out[index] = (joined, before + confidences)
    return out


def data(n_test):
    """``{name: (train_ocr, train_truth, [(ocr, confidences, truth)])}``."""
    out = {}
    sample = set(load_icdar2017_sample("lines")[1])  # the pretrained corrector's own lines
    for name, (X, y, _, y_test) in collections(n_test).items():
        y_test = [t for t in y_test if t.strip() and t not in sample]
        read = tesseract_lines(name, y_test)
        rows = [(o, c, t) for (o, c), t in zip(read, y_test, strict=True) if o]
        out[name] = (X, y, rows)
    return out


# -- (a) the engine's confidence alone ---------------------------------------------------
def token_labels(ocr, confidences, truth):
    """``[(confidence, wrong)]`` of each OCR token with a confidence."""
    out, k = [], 0
    for o, t in align_tokens(ocr, truth):
        if o is None:
            continue
        for _ in o.split():
            if confidences[k] is not None:
                out.append((confidences[k], o != t))
            k += 1
    return out


def roc_auc(pairs):
    """ROC AUC of ``1 - confidence`` for ``wrong`` (ties count a half)."""
    from sklearn.metrics import roc_auc_score

    wrong = [w for _, w in pairs]
    if all(wrong) or not any(wrong):
        return math.nan
    return float(roc_auc_score(wrong, [1 - c for c, _ in pairs]))


# -- (b) correction with and without a rule ----------------------------------------------
def proposals(fixer, rows):
    """Every change ``fixer`` proposes, document by document: ``[(line, Change)]``,
    ``line`` the index in ``rows``; and the lines as ``correct`` wrote them."""
    out, lines = [], []
    for at in range(0, len(rows), DOCUMENT):
        text = "\n".join(o for o, _, _ in rows[at : at + DOCUMENT])
        corrected, changes = fixer.correct(text, return_confidence=True)
        out.extend((at + c.line, c) for c in changes)
        lines.extend(corrected.split("\n"))
    return out, lines


def engine_shares(rows, changes, threshold):
    """Of the changes made at ``threshold`` and of those held back: how many, and the
    share of them whose words the engine is less than 0.5 and 0.9 sure of."""
    out = {}
    for made in (True, False):
        kind = [
            engine_of(c, rows[i][1])
            for i, c in changes
            if (c.confidence >= threshold or math.isnan(c.confidence)) == made
        ]
        kind = [e for e in kind if e is not None]
        n = max(len(kind), 1)
        out["made" if made else "held_back"] = {
            "n": len(kind),
            "engine_below_0.5": sum(e < 0.5 for e in kind) / n,
            "engine_below_0.9": sum(e < 0.9 for e in kind) / n,
        }
    return out


def engine_of(change, confidences):
    """The engine's confidence of a change: the lowest of its tokens' (None: none)."""
    known = [c for c in confidences[change.start : change.stop] if c is not None]
    return min(known) if known else None


def rules(threshold):
    """``{label: keep(change, engine) -> bool}`` at ``min_confidence=threshold``."""

    def as_is(change, engine):
        return change.confidence >= threshold or math.isnan(change.confidence)

    out = {"as is": as_is}
    for gate in GATES:
        out[f"gate {gate}"] = lambda c, e, g=gate: as_is(c, e) and (e is None or e < g)
    for weight in WEIGHTS:
        out[f"odds {weight}"] = lambda c, e, w=weight: (
            as_is(c, e)
            if e is None or math.isnan(c.confidence)
            else odds(c.confidence, e, w) >= logit(threshold)
        )
    for below, bar in LOWERS:
        if threshold == 0.8:
            out[f"lower {below}->{bar}"] = lambda c, e, b=below, m=bar: (
                as_is(c, e) or (e is not None and e < b and c.confidence >= m)
            )
    return out


def logit(p):
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def odds(confidence, engine, weight):
    """The corrector's log-odds that a change helps, moved by ``weight`` times the
    engine's log-odds that the word is wrong (0 for a word it is 50% sure of)."""
    engine = min(max(engine, 0.02), 0.98)
    return logit(confidence) + weight * logit(1 - engine)


def apply(rows, changes, keep):
    """The lines of ``rows`` with the changes that ``keep`` allows."""
    tokens = [o.split() for o, _, _ in rows]
    for i, change in changes:
        if keep(change, engine_of(change, rows[i][1])):
            # the span's first token takes the whole correction (split words
            # keep their space), the others are emptied: the indexes stay put
            tokens[i][change.start : change.stop] = [change.corrected] + [""] * (
                change.stop - change.start - 1
            )
    return [" ".join(t for t in line if t) for line in tokens]


def measure(rows, hyp):
    return quality([o for o, _, _ in rows], hyp, [t for _, _, t in rows])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n-test", type=int, default=300, help="held-out lines per collection")
    parser.add_argument(
        "--max-train", type=int, default=8000, help="training lines of the in-collection fit"
    )
    parser.add_argument("--json", default=None, help="write the results to this file")
    args = parser.parse_args(argv)
    runs = []
    pretrained = pretrained_corrector()
    for name, (X, y, rows) in data(args.n_test).items():
        pairs = [p for o, c, t in rows for p in token_labels(o, c, t)]
        auc = roc_auc(pairs)
        wrong = sum(w for _, w in pairs) / len(pairs)
        print(
            f"{name}: {len(rows)} lines, {len(pairs)} tokens, {100 * wrong:.1f}% wrong; "
            f"AUC of 1 - engine confidence for a wrong token: {auc:.3f}",
            flush=True,
        )
        runs.append({"collection": name, "lines": len(rows), "tokens": len(pairs),
                     "wrong_share": wrong, "auc": auc})  # fmt: skip
        t0 = time.process_time()
        # read as the shipped corrector reads (no joins; a line to an image has no
        # line-break hyphens), so that the two are compared on the same kinds of changes
        fitted = OCRCorrector(decoder=clone(pretrained.decoder), rules=pretrained.rules)
        fitted.fit(X[: args.max_train], y[: args.max_train])
        print(f"  in-collection fit on {min(len(X), args.max_train)} lines: "
              f"{time.process_time() - t0:.0f} s", flush=True)  # fmt: skip
        for corrector, fixer in (("pretrained", pretrained), ("in-collection", fitted)):
            changes, written = proposals(fixer, rows)
            # the selection "as is" at the corrector's own threshold is what correct wrote
            assert apply(rows, changes, rules(fixer.min_confidence)["as is"]) == [
                " ".join(line.split()) for line in written
            ]
            shares = engine_shares(rows, changes, fixer.min_confidence)
            print(f"  {corrector}: changes made at {fixer.min_confidence} / held back, "
                  f"engine < 0.5: {100 * shares['made']['engine_below_0.5']:.0f}% of "
                  f"{shares['made']['n']} / {100 * shares['held_back']['engine_below_0.5']:.0f}%"
                  f" of {shares['held_back']['n']}; engine < 0.9: "
                  f"{100 * shares['made']['engine_below_0.9']:.0f}% / "
                  f"{100 * shares['held_back']['engine_below_0.9']:.0f}%", flush=True)  # fmt: skip
            runs.append({"collection": name, "corrector": corrector, "shares": shares})
            found = []
            for threshold in THRESHOLDS:
                for label, keep in rules(threshold).items():
                    result = measure(rows, apply(rows, changes, keep))
                    result.update(collection=name, corrector=corrector,
                                  min_confidence=threshold, rule=label)  # fmt: skip
                    found.append(result)
            for result in found:
                result["beaten_by"] = beaten_by(result, found)
                report(result)
            runs.extend(found)
    if args.json:
        Path(args.json).write_text(json.dumps(runs, separators=(",", ":")))
    return runs


def beaten_by(result, found):
    """The ``min_confidence`` of the runs without a rule that do at least as well as
    ``result`` on all three of WER, lines made worse and right tokens changed."""
    keys = ("wer_after", "lines_worse", "right_changed")
    return [
        r["min_confidence"]
        for r in found
        if r["rule"] == "as is"
        and r is not result
        and all(r[k] <= result[k] + 1e-12 for k in keys)
        and any(r[k] < result[k] - 1e-12 for k in keys)
    ]


def report(r):
    print(
        f"  {r['corrector']:13s} {r['min_confidence']:.1f} {r['rule']:15s} "
        f"WER {r['wer_before']:.4f} -> {r['wer_after']:.4f} ({100 * r['wer_change']:+.1f}%)  "
        f"CER {r['cer_before']:.4f} -> {r['cer_after']:.4f}  worse {100 * r['lines_worse']:.1f}%"
        f"  right changed {100 * r['right_changed']:.2f}%"
        + (f"  beaten by min_confidence {r['beaten_by']}" if r["beaten_by"] else ""),
        flush=True,
    )


if __name__ == "__main__":
    sys.exit(main() and 0)

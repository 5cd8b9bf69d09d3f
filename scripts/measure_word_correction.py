"""Word correction by the nearest lexicon word: unit costs against the shipped model.

For the how-to "Correct OCR words with a lexicon" (run from the repository root):
wrong OCR tokens whose truth is a word of the SCOWL British list, from the
ICDAR 2017 tokens the shipped model did not train on (the last 10%, in corpus
order) and from BLN600 (out of domain); top-1 accuracy of the nearest word.

    python scripts/measure_word_correction.py
"""

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from skocrcost import EditDistanceNeighbors, WeightedLevenshtein, pretrained  # noqa: E402

DATA = ROOT / ".." / "shared" / "data"


def wrong_lexicon_tokens(path, lexicon, start_share=0.0):
    lines = open(path, encoding="utf-8").read().splitlines()
    lines = lines[int(len(lines) * start_share) :]
    pairs = [line.split("\t") for line in lines]
    return [(a, b) for a, b in pairs if a != b and b.isalpha() and b in lexicon]


def main():
    words = [w for w in (DATA / "lexicon" / "british-english").read_text("utf-8").split("\n") if w]
    lexicon = set(words)
    tests = {
        "ICDAR 2017, held-out 10%": wrong_lexicon_tokens(
            DATA / "icdar2017_engmono" / "tokens.tsv", lexicon, start_share=0.9
        ),
        "BLN600": wrong_lexicon_tokens(DATA / "bln600" / "train.tokens_aligned.tsv", lexicon),
    }
    metrics = {"unit costs": WeightedLevenshtein(), "en-historical": pretrained().metric_}
    print(f"lexicon: {len(words)} words")
    print("| test set | wrong tokens | unit costs | en-historical |\n|---|---|---|---|")
    for test, pairs in tests.items():
        X = [a for a, _ in pairs]
        cells = []
        for metric in metrics.values():
            t = time.perf_counter()
            _, ind = EditDistanceNeighbors(1, metric=metric).fit(words).kneighbors(X)
            hits = sum(words[i[0]] == b for i, (_, b) in zip(ind, pairs))
            cells.append(f"{hits / len(pairs):.3f} ({time.perf_counter() - t:.0f} s)")
        print(f"| {test} | {len(pairs)} | {' | '.join(cells)} |", flush=True)


if __name__ == "__main__":
    main()

"""Fit the shipped "en-historical" corrector (run from the repository root).

The costs are the shipped cost model (``pretrained("en-historical")``, learned from
ICDAR 2017 English monographs by scripts/make_pretrained.py), used as they are;
everything else (language model, word prior, rules, confidence of changes) is
learned from the embedded ICDAR 2017 sample, so the file holds statistics of
data the package already ships and nothing more.  Writes
``skocrcost/datasets/data/en-historical-corrector.json.gz``::

    python scripts/make_pretrained_corrector.py      # about 10 CPU seconds

Its changes are made at ``min_confidence=0.8`` (the default is 0.75): its confidence
was learned on one collection and is used on others, where it is less sure to hold.
How it does on collections: ``python benchmarks/cross_collection.py --pretrained``.
"""

import sys
import time
from pathlib import Path

from sklearn.frozen import FrozenEstimator

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from skocrcost import OCRCorrector, pretrained  # noqa: E402
from skocrcost.datasets import PRETRAINED_CORRECTORS, load_icdar2017_sample  # noqa: E402


def main():
    X, y = load_icdar2017_sample("lines")
    t0 = time.process_time()
    corrector = OCRCorrector(FrozenEstimator(pretrained("en-historical")), min_confidence=0.8)
    corrector.fit(X, y)
    print(f"fitted on {len(X)} lines in {time.process_time() - t0:.0f} CPU s")
    out = ROOT / "skocrcost" / "datasets" / "data" / PRETRAINED_CORRECTORS["en-historical"]
    corrector.save(out)
    print(f"wrote {out.relative_to(ROOT)} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()

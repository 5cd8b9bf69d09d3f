"""Cut the embedded ICDAR 2017 sample from ../shared/data (run from the repository root).

Every 12th pseudo-line and every 24th token pair of the English monographs, so
the sample spreads over the whole corpus; about 0.9 MB of text, gzip-compressed.
"""

import gzip
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "icdar2017_engmono"
TARGET = Path(__file__).resolve().parents[1] / "skocrcost" / "datasets" / "data"


def cut(name, step):
    lines = (SOURCE / name).read_text(encoding="utf-8").splitlines(keepends=True)
    sample = "".join(lines[::step])
    out = TARGET / f"icdar2017_{name}.gz"
    with gzip.GzipFile(out, "wb", mtime=0) as f:
        f.write(sample.encode("utf-8"))
    print(f"{out.name}: {len(lines[::step])} pairs, {len(sample.encode())} bytes of text")


if __name__ == "__main__":
    cut("lines.tsv", 12)
    cut("tokens.tsv", 24)

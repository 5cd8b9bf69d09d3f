"""Progress bars for long jobs: the command line's fits, OCRCorrectorCV's settings."""

import sys


class _TextBar:
    """A progress line on stderr for when tqdm is not installed."""

    def __init__(self, total, desc, suffix=""):
        self.total, self.desc, self.suffix, self.n = total, desc, suffix, 0
        self._draw()

    def _draw(self):
        done = f"{self.n}" if self.total is None else f"{self.n}/{self.total}"
        print(f"\r{self.desc}: {done}{self.suffix}", end="", file=sys.stderr, flush=True)

    def update(self, n=1):
        self.n += n
        self._draw()

    def close(self):
        print(file=sys.stderr, flush=True)


class _NoBar:
    def update(self, n=1):
        pass

    def close(self):
        pass


def progress(total, desc, quiet=False, unit="fit"):
    """A progress bar on stderr: tqdm's (the ``progress`` extra), else a text line;
    nothing when ``quiet``.  ``update(n)`` and ``close()``.  ``total`` None: a count
    without an end; ``unit`` "B": bytes (tqdm writes kB, MB; the text line "bytes")."""
    if quiet:
        return _NoBar()
    in_bytes = unit == "B"
    try:
        from tqdm import tqdm
    except ImportError:
        return _TextBar(total, desc, " bytes" if in_bytes else "")
    return tqdm(
        total=total,
        desc=desc,
        unit=unit,
        unit_scale=in_bytes,
        unit_divisor=1024,
        file=sys.stderr,
        leave=False,
    )

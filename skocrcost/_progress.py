"""Progress bars for long jobs: the command line's fits, OCRCorrectorCV's settings."""

import sys


class _TextBar:
    """A progress line on stderr for when tqdm is not installed."""

    def __init__(self, total, desc):
        self.total, self.desc, self.n = total, desc, 0
        self._draw()

    def _draw(self):
        print(f"\r{self.desc}: {self.n}/{self.total}", end="", file=sys.stderr, flush=True)

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
    nothing when ``quiet``.  ``update(n)`` and ``close()``."""
    if quiet:
        return _NoBar()
    try:
        from tqdm import tqdm
    except ImportError:
        return _TextBar(total, desc)
    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, leave=False)

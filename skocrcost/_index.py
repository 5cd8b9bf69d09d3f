"""Where release 0.1.0 kept the lexicon index: pickles of a fitted ``EditDistanceNeighbors``
name ``skocrcost._index._rebuild``.  The index now lives in :mod:`skocrcost._kernels`."""

from ._kernels import LexiconIndex, rebuild_lexicon_index

__all__ = ["LexiconIndex"]


def _rebuild(kernel, trie, n_words):
    """The name the pickles ask for; they hold the metric, which now holds the kernel."""
    return rebuild_lexicon_index(getattr(kernel, "_kernel", kernel), trie, n_words)

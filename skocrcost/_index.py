"""Where release 0.1.0 kept the lexicon index: pickles of a fitted ``EditDistanceNeighbors``
name ``skocrcost._index._rebuild``.  The index now lives in :mod:`skocrcost._kernels`."""

from ._kernels import LexiconIndex, rebuild_lexicon_index

__all__ = ["LexiconIndex"]

_rebuild = rebuild_lexicon_index  # the name the pickles ask for

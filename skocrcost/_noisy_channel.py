"""Where the running-text corrector lived before :mod:`skocrcost.correction` held it.

Kept so that pickles and imports written against it still work.
"""

from .correction._align import aligned_tokens, token_pairs, training_words  # noqa: F401
from .correction._decoder import LM_CACHE_SIZE, NoisyChannelDecoder, _Readings  # noqa: F401
from .correction._rules import SurfaceRules, _spaced, _unspelled  # noqa: F401
from .correction._tokens import *  # noqa: F401,F403
from .correction._tokens import MAX_WORD_LENGTH, WHITESPACE, recase  # noqa: F401

"""Where the spelling-variant channel lived before :mod:`skocrcost.correction` held it.

Kept so that pickles written against it still load.
"""

from .correction._variants import SpellingVariants  # noqa: F401

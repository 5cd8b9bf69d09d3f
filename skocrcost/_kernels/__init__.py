"""The compiled kernels: the only door the rest of skocrcost uses into this layer.

Layers above (the cost models, the metrics, the estimators) import from
``skocrcost._kernels``, never from its submodules, and nothing here imports from
them.  Inside:

- ``_cost_kernel`` (``.pyx``/``.pxd``): ``CostKernel``, the single-character
  weighted Levenshtein DPs (scalar, SIMD lanes on doubles or on an int32 grid, the
  rows kernel, bit-parallel for unit costs) and alignment; ``EncodedY``.
- ``_edit_kernel``: ``EditKernel``, the general DP (match costs, transpositions,
  multi-character rules, soft-min and expected counts).
- ``_lexicon_index``: ``LexiconIndex``, the pruned trie search of a lexicon.
- ``_beam``: ``search_lines``, the corrector's beam search over lines of readings
  scored with a Katz back-off language model (``KatzTables``, whose
  ``probabilities`` also serve the model's look-ups of a few word pairs).
- ``_trees``: ``tree_sums``, the leaf values of boosted trees summed per row (the
  corrector's confidence of changes).
- ``*_py.py``: a pure-Python twin of each, with the same methods and bit-for-bit
  the same results (the tests hold them equal).
- ``_constants`` and ``_tables``: the values and the table preparation the
  compiled kernels and their twins share.
- ``_config`` (``kernel_config``) and ``_dispatch``: which path a call takes (SIMD
  level, bit-parallel, int32 grid, rows kernel), chosen in Python and passed to the
  compiled code as arguments.
- ``src/``: the C headers the kernels include.
"""

from ._beam import NEVER, KatzTables, search_lines
from ._config import get_kernel_config, kernel_config, set_kernel_config
from ._constants import BP_LANES, GRID_BITS, N_KERNEL_ARGS, OP_RULE, OP_TRANS, SIMD_LEVELS
from ._cost_kernel import (
    CostKernel,
    EncodedY,
    have_openmp,
    openmp_max_threads,
    simd_level,
    simd_levels,
    unit_table,
)
from ._cost_kernel import _first_not_exact_str as first_not_exact_str
from ._edit_kernel import EditKernel
from ._lexicon_index import LexiconIndex, topk_update
from ._lexicon_index import _rebuild as rebuild_lexicon_index
from ._trees import tree_sums

__all__ = [
    "BP_LANES",
    "GRID_BITS",
    "N_KERNEL_ARGS",
    "NEVER",
    "OP_RULE",
    "OP_TRANS",
    "SIMD_LEVELS",
    "CostKernel",
    "EditKernel",
    "EncodedY",
    "KatzTables",
    "LexiconIndex",
    "first_not_exact_str",
    "get_kernel_config",
    "have_openmp",
    "kernel_config",
    "openmp_max_threads",
    "rebuild_lexicon_index",
    "search_lines",
    "set_kernel_config",
    "simd_level",
    "simd_levels",
    "topk_update",
    "tree_sums",
    "unit_table",
]

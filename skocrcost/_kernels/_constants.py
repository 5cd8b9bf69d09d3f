"""Constants the kernels and their pure-Python twins share (and the modules above read).

One plain module, imported by the compiled kernels, the twins and the layers above,
so that a value is written once.  The C headers (``src/``) hold their own copies of
the values they need at compile time; the compiled kernel checks at import that
they agree (``BP_LANES == SKC_BP_LANES``).
"""

# Edit kinds of an alignment column (the op codes of ``align_batch``), as in
# ``_cost_kernel.pxd``.
OP_MATCH, OP_SUB, OP_DEL, OP_INS, OP_TRANS, OP_RULE = 0, 1, 2, 3, 4, 5

# The vector code the lanes run, lowest first (an index is a level of ``src/_lanes.h``).
SIMD_LEVELS = ("baseline", "avx2", "avx512")

# The finest grid step tried when a table's costs are read as whole steps: 2**-30.
GRID_BITS = 30

# Lexicon strings per block of the unit-cost match table (SKC_BP_LANES in src/_unit.h).
BP_LANES = 16

# Arguments of a CostKernel (``CostTables.kernel_args()``); an EditKernel takes more.
N_KERNEL_ARGS = 9

# The paths ``CostKernel.pairwise`` runs, as the dispatcher (``_dispatch``) names them
# to the compiled code.
PATH_BITPARALLEL = 0  # unit costs: bit-parallel blocks of BP_LANES strings (src/_unit.h)
PATH_ROWS = 1  # few OCR strings on a grid: the rows kernel (src/_rows.h)
PATH_LANES = 2  # dense tables: SIMD lanes of similar-length strings (src/_lanes.h)
PATH_PAIRS = 3  # any table: the two-row DP, one pair at a time

# The longest OCR string the rows kernel takes (4 x SKC_ROWS_MAX_NV in src/_rows.h).
ROWS_MAX_CHARS = 32

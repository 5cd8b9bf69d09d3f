"""Where release 0.1.0 kept ``CostKernel``, for pickles that name ``skocrcost._dp.CostKernel``.

The kernel now lives in :mod:`skocrcost._kernels`.
"""

from ._kernels import CostKernel

__all__ = ["CostKernel"]

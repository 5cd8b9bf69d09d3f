"""Where release 0.1.0 kept ``EditKernel``, for pickles that name ``skocrcost._edit.EditKernel``.

The kernel now lives in :mod:`skocrcost._kernels`.
"""

from ._kernels import EditKernel

__all__ = ["EditKernel"]

"""Build the Cython kernels, with OpenMP when the compiler has it."""

import glob
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

# The compiled kernels (skocrcost/_kernels/NAME.pyx) and the C headers they include.
KERNELS = ["_cost_kernel", "_lexicon_index", "_edit_kernel", "_beam", "_trees"]
SRC = "skocrcost/_kernels/src"


def _openmp_flags():
    """Return (compile, link) flags for OpenMP, or empty lists when the compiler lacks it."""
    if os.environ.get("SKOCRCOST_NO_OPENMP"):
        return [], []
    if sys.platform == "win32":
        return ["/openmp"], []
    flags = ["-fopenmp"]
    cc = os.environ.get("CC", "cc")
    tmp = tempfile.mkdtemp()
    try:
        src = os.path.join(tmp, "t.c")
        with open(src, "w") as f:
            f.write("#include <omp.h>\nint main(void){return omp_get_max_threads() < 1;}\n")
        ok = subprocess.call(
            [cc, *flags, src, "-o", os.path.join(tmp, "t")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    except OSError:
        ok = 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return (flags, flags) if ok == 0 else ([], [])


compile_omp, link_omp = _openmp_flags()
extensions = [
    Extension(
        f"skocrcost._kernels.{name}",
        [f"skocrcost/_kernels/{name}.pyx"],
        # The C headers the kernels include: an edit there rebuilds them too.
        depends=sorted(glob.glob(f"{SRC}/*.h")),
        include_dirs=[np.get_include(), SRC],
        extra_compile_args=["-O3", *compile_omp] if sys.platform != "win32" else compile_omp,
        extra_link_args=link_omp,
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    )
    for name in KERNELS
]

setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives={
            "language_level": 3,
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
        },
    )
)

/* OpenMP when the build has it, one thread otherwise, so the kernels compile either way. */
#ifndef SKOCRCOST_OMP_H
#define SKOCRCOST_OMP_H
#ifdef _OPENMP
#include <omp.h>
static int skc_omp_max_threads(void) { return omp_get_max_threads(); }
static int skc_have_openmp(void) { return 1; }
#else
static int skc_omp_max_threads(void) { return 1; }
static int skc_have_openmp(void) { return 0; }
#endif
#endif

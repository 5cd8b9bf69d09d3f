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
/* The threads a kernel may start for a requested count: at least 1, at most what OpenMP
   allows now.  A huge request (n_threads=10**6) would otherwise make the runtime fail to
   create threads and crash the process. */
static int skc_threads(int wanted) {
    int most = skc_omp_max_threads();
    if (wanted < 1) return 1;
    return wanted > most ? most : wanted;
}
#endif

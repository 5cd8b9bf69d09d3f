/* How many vaddpd / vminpd this CPU retires per cycle (docs/performance.md, "How far
 * the lanes are from the hardware").  Each mode runs 10^8 iterations of 8 independent
 * AVX2 instructions on 8 registers (no dependency between them within an iteration):
 *
 *     gcc -O2 -mavx2 benchmarks/fp_pipes.c -o /tmp/fp_pipes
 *     for m in 0 1 2; do perf stat -e cycles:u -x, /tmp/fp_pipes $m; done
 *
 * cycles / 10^8 = cycles per iteration.  Mode 0: 8 vaddpd; 1: 8 vminpd; 2: 4 of each.
 * If mode 2 takes as long as modes 0 and 1, additions and minima share their pipes. */
#include <stdlib.h>

#define N 100000000L
#define OPS(a, b, c, d, e, f, g, h)                                                        \
    __asm__ volatile(a " %%ymm8,%%ymm0,%%ymm0\n" b " %%ymm8,%%ymm1,%%ymm1\n"                \
                     c " %%ymm8,%%ymm2,%%ymm2\n" d " %%ymm8,%%ymm3,%%ymm3\n"                \
                     e " %%ymm8,%%ymm4,%%ymm4\n" f " %%ymm8,%%ymm5,%%ymm5\n"                \
                     g " %%ymm8,%%ymm6,%%ymm6\n" h " %%ymm8,%%ymm7,%%ymm7\n" ::              \
                         : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7")

int main(int argc, char **argv) {
    int mode = argc > 1 ? atoi(argv[1]) : 0;
    for (long i = 0; i < N; i++) {
        if (mode == 0)
            OPS("vaddpd", "vaddpd", "vaddpd", "vaddpd", "vaddpd", "vaddpd", "vaddpd", "vaddpd");
        else if (mode == 1)
            OPS("vminpd", "vminpd", "vminpd", "vminpd", "vminpd", "vminpd", "vminpd", "vminpd");
        else
            OPS("vaddpd", "vaddpd", "vaddpd", "vaddpd", "vminpd", "vminpd", "vminpd", "vminpd");
    }
    return 0;
}

/* How many vaddpd / vminpd / vfmadd231pd this CPU retires per cycle (why the lanes add
 * off the chain with FMAs: skocrcost/_kernels/src/_lanes.h).  Each mode runs 10^8
 * iterations of AVX2 instructions with no dependency between them within an iteration:
 *
 *     gcc -O2 -mavx2 -mfma benchmarks/fp_pipes.c -o /tmp/fp_pipes
 *     for m in 0 1 2 3 4 5 6; do perf stat -e cycles:u -x, /tmp/fp_pipes $m; done
 *
 * cycles / 10^8 = cycles per iteration.  Mode 0: 8 vaddpd; 1: 8 vminpd; 2: 4 of each.
 * If mode 2 takes as long as modes 0 and 1, additions and minima share their pipes.
 * Mode 3: 8 vfmadd231pd (each accumulates into its own register, so an iteration also
 * waits on the FMA's latency); 4: those and 8 vminpd; 5: those and 8 vaddpd; 6: the 8
 * vminpd and 8 vaddpd of modes 4 and 5 without the FMAs.  If modes 4 and 5 take as long
 * as mode 3, and mode 6 twice that, the FMAs run on pipes of their own, and an addition
 * written as x * 1 + y (the same double: one rounding of the exact sum) leaves the
 * adder's pipes to the minima (_lanes.h, SKC_FADD). */
#include <stdlib.h>

#define N 100000000L
#define OPS(a, b, c, d, e, f, g, h)                                                        \
    __asm__ volatile(a " %%ymm8,%%ymm0,%%ymm0\n" b " %%ymm8,%%ymm1,%%ymm1\n"                \
                     c " %%ymm8,%%ymm2,%%ymm2\n" d " %%ymm8,%%ymm3,%%ymm3\n"                \
                     e " %%ymm8,%%ymm4,%%ymm4\n" f " %%ymm8,%%ymm5,%%ymm5\n"                \
                     g " %%ymm8,%%ymm6,%%ymm6\n" h " %%ymm8,%%ymm7,%%ymm7\n" ::              \
                         : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7")
/* 8 FMAs into ymm0-7; 8 of ``op`` into ymm10-15, not read back. */
#define F8                                                                                 \
    "vfmadd231pd %%ymm8,%%ymm9,%%ymm0\n vfmadd231pd %%ymm8,%%ymm9,%%ymm1\n"                \
    "vfmadd231pd %%ymm8,%%ymm9,%%ymm2\n vfmadd231pd %%ymm8,%%ymm9,%%ymm3\n"                \
    "vfmadd231pd %%ymm8,%%ymm9,%%ymm4\n vfmadd231pd %%ymm8,%%ymm9,%%ymm5\n"                \
    "vfmadd231pd %%ymm8,%%ymm9,%%ymm6\n vfmadd231pd %%ymm8,%%ymm9,%%ymm7\n"
#define X8(op)                                                                             \
    op " %%ymm8,%%ymm9,%%ymm10\n" op " %%ymm8,%%ymm9,%%ymm11\n" op " %%ymm8,%%ymm9,%%ymm12\n" \
    op " %%ymm8,%%ymm9,%%ymm13\n" op " %%ymm8,%%ymm9,%%ymm14\n" op " %%ymm8,%%ymm9,%%ymm15\n" \
    op " %%ymm8,%%ymm9,%%ymm10\n" op " %%ymm8,%%ymm9,%%ymm11\n"
#define CLOBBER                                                                            \
    : : : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm10", "xmm11",  \
          "xmm12", "xmm13", "xmm14", "xmm15"

int main(int argc, char **argv) {
    int mode = argc > 1 ? atoi(argv[1]) : 0;
    for (long i = 0; i < N; i++) {
        if (mode == 0)
            OPS("vaddpd", "vaddpd", "vaddpd", "vaddpd", "vaddpd", "vaddpd", "vaddpd", "vaddpd");
        else if (mode == 1)
            OPS("vminpd", "vminpd", "vminpd", "vminpd", "vminpd", "vminpd", "vminpd", "vminpd");
        else if (mode == 2)
            OPS("vaddpd", "vaddpd", "vaddpd", "vaddpd", "vminpd", "vminpd", "vminpd", "vminpd");
        else if (mode == 3)
            __asm__ volatile(F8 CLOBBER);
        else if (mode == 4)
            __asm__ volatile(F8 X8("vminpd") CLOBBER);
        else if (mode == 5)
            __asm__ volatile(F8 X8("vaddpd") CLOBBER);
        else
            __asm__ volatile(X8("vminpd") X8("vaddpd") CLOBBER);
    }
    return 0;
}

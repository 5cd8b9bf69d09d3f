# distutils: extra_compile_args = -O3
# cython: boundscheck=False, wraparound=False, cdivision=True, language_level=3
"""The issue's reference point for (i): the leanest Python-callable weighted DP.

ASCII only (each code point masked to 7 bits, no check), one dense 128 x 128
table in a module global, no validation, one DP row, no GIL release: what a
minimal Cython function pays per call, to set skocrcost's ``distance`` against.
Not part of the package.
"""

cdef double SUB[128 * 128]
cdef double INS[128]
cdef double DEL[128]


def set_costs(double[:, ::1] sub, double[::1] ins, double[::1] dele):
    """Load 128-entry ASCII tables (weighted-levenshtein's layout); matches cost 0."""
    cdef int i, j
    for i in range(128):
        INS[i] = ins[i]
        DEL[i] = dele[i]
        for j in range(128):
            SUB[i * 128 + j] = 0.0 if i == j else sub[i, j]


def distance(str a, str b):
    """Weighted Levenshtein from ``a`` to ``b``, both ASCII and at most 255 characters."""
    cdef Py_ssize_t n = len(a), m = len(b), i, j
    cdef double row[256]
    cdef double insb[256]
    cdef unsigned char cb[256]
    cdef double diag, up, left, best, d, dl
    cdef const double* srow
    cdef int ca
    for j in range(m):
        cb[j] = (<int> b[j]) & 127
        insb[j] = INS[cb[j]]
    row[0] = 0.0
    for j in range(m):
        row[j + 1] = row[j] + insb[j]
    for i in range(n):
        ca = (<int> a[i]) & 127
        dl = DEL[ca]
        srow = &SUB[ca * 128]
        diag = row[0]
        row[0] = diag + dl
        left = row[0]
        for j in range(m):
            up = row[j + 1]
            d = diag + srow[cb[j]]
            best = up + dl
            if best < d:
                d = best
            best = left + insb[j]
            if best < d:
                d = best
            diag = up
            row[j + 1] = d
            left = d
    return row[m]

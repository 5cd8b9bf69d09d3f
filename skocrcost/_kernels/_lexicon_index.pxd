# What other kernels take from the lexicon index: a scored hit and its qsort order.
from libc.stdint cimport int64_t


cdef struct Hit:
    double d  # a cost
    int64_t i  # the lower goes first among equal costs (a lexicon index, a reading, ...)


cdef int hit_cmp(const void* a, const void* b) noexcept nogil

# What other kernels take from the lexicon index: a scored hit and its qsort order.
from libc.stdint cimport int64_t


cdef struct Hit:
    double d  # a cost
    int64_t i  # the lower goes first among equal costs (a lexicon index, a reading, ...)


cdef inline bint hit_before(const Hit* a, const Hit* b) noexcept nogil:
    """The hits' order: cheaper, or neither cheaper and the lower index (inline here,
    so that a kernel's own loops compare without a call)."""
    return a.d < b.d or (not a.d > b.d and a.i < b.i)


cdef int hit_cmp(const void* a, const void* b) noexcept nogil  # hit_before, for qsort

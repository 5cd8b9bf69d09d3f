/* The kernel options a call reads on its own thread: this thread's copy of what
 * ``kernel_config`` holds (skocrcost/_kernels/_config.py), written by
 * ``_cost_kernel._apply_config`` whenever the configuration changes in this thread.
 *
 * ``distance`` is called millions of times on short strings, where a Python call to
 * read the configuration would cost several times the DP; it reads these two flags
 * instead.  Calls that run many pairs (``pairwise``) ask the Python dispatcher.  A new
 * thread starts from the defaults, as its Python configuration does. */
#ifndef SKC_OPTIONS_H
#define SKC_OPTIONS_H

#if defined(_MSC_VER)
#define SKC_THREAD_LOCAL __declspec(thread)
#else
#define SKC_THREAD_LOCAL __thread
#endif

typedef struct {
    int bitparallel; /* unit costs may take the bit-parallel kernels */
    int grid;        /* costs on a grid may take the int32 DP */
} skc_options;

static SKC_THREAD_LOCAL skc_options skc_thread_options_ = {1, 1};

static skc_options *skc_thread_options(void) { return &skc_thread_options_; }

#endif

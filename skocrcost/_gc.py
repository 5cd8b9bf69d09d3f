"""The garbage collector kept off the objects a call finds already there."""

import contextlib
import gc


@contextlib.contextmanager
def existing_objects_frozen():
    """Within the block, garbage collection looks only at objects made in it.

    A full collection walks every object the process holds, and importing
    scikit-learn and SciPy alone leaves 90,000 of them (40 ms a walk).  A
    correction fills its caches with new objects fast enough to set off a full
    collection every few hundred lines, and those walks took a tenth of the time
    of a first pass over new text.  What the block finds in the process was there
    before the correction and outlives it; ``gc.freeze`` sets it aside and
    ``gc.unfreeze`` puts it back (both move lists, never walk them), so garbage made
    before the block is collected after it.

    Nothing is done where the collector is off, or where the process froze objects
    of its own (a server before it forks): unfreezing would undo that.
    """
    if not gc.isenabled() or gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()

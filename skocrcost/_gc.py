"""The garbage collector kept off the objects a long call finds already there."""

import contextlib
import gc

# Calls shorter than this are left alone: a full collection comes every few hundred
# lines, so a short call gains nothing, while freezing would move the young objects
# made before it straight to the oldest generation (unfreeze puts everything there),
# at every call of a loop of one call per line.
MIN_LINES = 100

_holding = False  # this module's freeze is on (in a forked child: was, and stays)
_foreign = False  # the process froze objects of its own: left alone from then on


@contextlib.contextmanager
def existing_objects_frozen(n_lines):
    """Within the block, garbage collection looks only at objects made in it, and
    a full collection only at those made since the last one.

    A full collection walks every object the process holds, and importing
    scikit-learn and SciPy alone leaves 90,000 of them (40-55 ms a walk).  A
    first pass over new text fills the corrector's caches fast enough to set off
    a full collection every few hundred lines: a tenth of the time on the
    newspapers and the periodicals.  What the block finds in the process was there
    before the correction and outlives it: ``gc.freeze`` sets it aside and
    ``gc.unfreeze`` puts it back (both move lists, never walk them), so garbage
    made before the block is collected after it.  What survives a full collection
    in the block is set aside in the same way (:func:`_set_survivors_aside`).
    Worker processes forked in the
    block start with it set aside and keep it so: their collections never walk
    (and copy) the pages they share with the parent.

    Nothing is done for fewer than ``MIN_LINES`` lines, where the collector is off,
    or where the process froze objects of its own (a server before it forks):
    unfreezing would undo that.  Telling so walks the frozen objects (9 ms for
    90,000), so a process found with a freeze of its own is left alone from
    then on: the walk is paid once.
    """
    global _holding, _foreign
    if n_lines < MIN_LINES or _holding or _foreign or not gc.isenabled():
        yield
        return
    if gc.get_freeze_count():
        _foreign = True
        yield
        return
    gc.freeze()
    _holding = True
    gc.callbacks.append(_set_survivors_aside)
    try:
        yield
    finally:
        _holding = False
        gc.callbacks.remove(_set_survivors_aside)
        gc.unfreeze()


def _set_survivors_aside(phase, info):
    """After a full collection in the block, what survived it is set aside too: a
    long call (a text of 50,000 lines in one ``predict``) keeps making the lines'
    tokens, layout and caches, which every later full collection would walk again
    (a fifth of the time of such a call).  Each object is then walked by about one
    full collection.  Registered only while the block's freeze holds; a forked
    worker process keeps it, and so does the same for the batches it corrects."""
    if phase == "stop" and info["generation"] == 2:
        gc.freeze()

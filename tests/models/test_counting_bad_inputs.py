"""EditCounts against bad input.

Never counts that do not add up.  Each row: what is called, the exception, a regex its
message must match (the rules of every table: tests/bad_inputs.py).
"""

import numpy as np
import pytest

from skocrcost import EditCounts

COUNTS_CASES = {
    # EditCounts from columns of code points (-1 = a gap).
    "counts other negative": (lambda: EditCounts.from_columns([-5], [97]), ValueError, "src"),
    "counts beyond Unicode": (lambda: EditCounts.from_columns([97], [2**40]), ValueError, "tgt"),
    "counts float": (lambda: EditCounts.from_columns([97.5], [97]), TypeError, "src"),
    "counts lengths": (lambda: EditCounts.from_columns([97], [97, 98]), ValueError, "same length"),
    "counts unsorted vocabulary": (
        lambda: EditCounts([98, 97], np.zeros((3, 3))),
        ValueError,
        "vocabulary",
    ),
    "counts matrix shape": (lambda: EditCounts([97], np.zeros((3, 3))), ValueError, "matrix"),
    "counts negative": (lambda: EditCounts([97], -np.ones((2, 2))), ValueError, "counts >= 0"),
}


@pytest.mark.parametrize(("call", "error", "match"), COUNTS_CASES.values(), ids=COUNTS_CASES)
def test_bad_counts_raise_a_clear_error(call, error, match):
    with pytest.raises(error, match=match):
        call()

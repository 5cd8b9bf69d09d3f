"""The datasets' loaders against bad arguments.

An unknown name or kind is refused with the ones allowed.  Each row: what is called, the
exception, a regex its message must match (the rules of every table: tests/bad_inputs.py).
"""

import pytest

from skocrcost.datasets import load_icdar2017_sample, pretrained

# -- datasets ------------------------------------------------------------------------------------
DATASET_CASES = {
    "unknown kind": (lambda: load_icdar2017_sample("Lines"), ValueError, "kind must be one of"),
    "kind None": (lambda: load_icdar2017_sample(None), TypeError, "kind must be one of"),
    "kind a list": (lambda: load_icdar2017_sample(["lines"]), TypeError, "kind"),
    "unknown model": (lambda: pretrained("fr-modern"), ValueError, "name must be one of"),
    "model None": (lambda: pretrained(None), TypeError, "name must be one of"),
    "model a list": (lambda: pretrained(["en-historical"]), TypeError, "name"),
}


@pytest.mark.parametrize(("call", "error", "match"), DATASET_CASES.values(), ids=DATASET_CASES)
def test_bad_dataset_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()

"""The string checks every entry point shares (skocrcost._validation)."""

import pytest


def test_check_strings_copies_unless_told_not_to():
    from skocrcost._validation import check_strings

    words = ["ab", "c", ""]
    assert check_strings(words, allow_empty=True) == words
    assert check_strings(words) is not words  # a fitted attribute must not follow the caller's list
    assert check_strings(words, copy=False) is words  # pairwise only reads it during the call
    assert check_strings(("ab", "c"), copy=False) == ["ab", "c"]
    with pytest.raises(TypeError, match=r"Y must contain only strings; Y\[1\] is int"):
        check_strings(["a", 1], "Y", copy=False)

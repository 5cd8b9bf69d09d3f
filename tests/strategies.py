"""Hypothesis strategies: Unicode strings and random cost tables (no triangle inequality)."""

from hypothesis import strategies as st

# A small alphabet so that costs hit, plus characters that stress encoding:
# a lone surrogate, a combining mark, an emoji (astral plane), CJK, a NUL.
CORE = "abcrnm01lIO"
EXOTIC = "\ud800\u0301\U0001f600\u4e2d\x00é"
chars = st.sampled_from(CORE + EXOTIC)
text = st.text(alphabet=chars, max_size=12)
anything = st.text(max_size=12)  # any code point at all
cost = st.floats(min_value=0.0, max_value=3.0, allow_nan=False, allow_infinity=False)


@st.composite
def cost_dicts(draw, alphabet=CORE + EXOTIC):
    letters = st.sampled_from(alphabet)
    subs = draw(st.dictionaries(st.tuples(letters, letters), cost, max_size=30))
    subs = {k: v for k, v in subs.items() if k[0] != k[1]}
    return {
        "substitution_costs": subs,
        "insertion_costs": draw(st.dictionaries(letters, cost, max_size=8)),
        "deletion_costs": draw(st.dictionaries(letters, cost, max_size=8)),
        "default_substitution_cost": draw(cost),
        "default_insertion_cost": draw(cost),
        "default_deletion_cost": draw(cost),
        "symmetric_substitution": draw(st.booleans()),
    }

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


# Pieces for multi-character edits: OCR-like confusions over the core letters.
piece = st.text(alphabet=st.sampled_from("rnmcl1Id"), min_size=1, max_size=3)
maybe_inf = st.one_of(cost, st.just(float("inf")))


@st.composite
def edit_dicts(draw):
    """Cost dictionaries with multi-character keys and transpositions (no symmetry)."""
    costs = draw(cost_dicts(alphabet=CORE + "\u4e2d\U0001f600"))
    costs["symmetric_substitution"] = False
    multi = draw(st.dictionaries(st.tuples(piece | st.just(""), piece), cost, max_size=5))
    costs["substitution_costs"].update(
        {k: v for k, v in multi.items() if k[0] != k[1] and len(k[0] + k[1]) > 2}
    )
    costs["insertion_costs"].update(draw(st.dictionaries(piece, cost, max_size=2)))
    costs["deletion_costs"].update(draw(st.dictionaries(piece, cost, max_size=2)))
    pairs = st.tuples(st.sampled_from(CORE), st.sampled_from(CORE)).filter(lambda p: p[0] != p[1])
    costs["transposition_costs"] = draw(st.dictionaries(pairs, maybe_inf, max_size=6))
    costs["default_transposition_cost"] = draw(maybe_inf)
    return costs

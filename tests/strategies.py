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


@st.composite
def symmetric_cost_dicts(draw, alphabet=CORE + EXOTIC):
    """Costs with sub(s, t) = sub(t, s) and ins(c) = del(c): the distance is symmetric."""
    letters = st.sampled_from(alphabet)
    subs = {}
    for (s, t), c in draw(st.dictionaries(st.tuples(letters, letters), cost, max_size=30)).items():
        if s != t:
            subs[(s, t)] = subs[(t, s)] = subs.get((t, s), c)
    gaps = draw(st.dictionaries(letters, cost, max_size=8))
    default_gap = draw(cost)
    return {
        "substitution_costs": subs,
        "insertion_costs": gaps,
        "deletion_costs": dict(gaps),
        "default_substitution_cost": draw(cost),
        "default_insertion_cost": default_gap,
        "default_deletion_cost": default_gap,
    }


METRIC_ALPHABET = "abc01\U0001f600"


@st.composite
def metric_cost_dicts(draw, alphabet=METRIC_ALPHABET):
    """Costs that form a metric on the alphabet plus the gap: every cost is the L1
    distance between points of a small grid (multiples of 1/4, so sums are exact)."""
    coord = st.integers(0, 12)
    points = {c: (draw(coord), draw(coord)) for c in alphabet}
    gap = (draw(coord), draw(coord))

    def dist(p, q):
        return (abs(p[0] - q[0]) + abs(p[1] - q[1])) / 4

    gaps = {c: dist(p, gap) for c, p in points.items()}
    return {
        "substitution_costs": {
            (s, t): dist(points[s], points[t]) for s in alphabet for t in alphabet if s != t
        },
        "insertion_costs": gaps,
        "deletion_costs": dict(gaps),
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

"""The decoder's decisions, score by score, against hand computation on a tiny lexicon.

Fast and exact: these pin each score the beam compares (keeping a lexicon word,
keeping an unknown word, its recurrences, a spelling variant, changing to a
candidate) and the priors behind them, so that a changed sign, factor or
comparison fails here (scripts/mutation.py runs them over the decision logic).
The candidates they read are checked against brute force, and their two merges
(as arrays for a call of many new words, a word at a time for a few) against each
other on real OCR words.
"""

import math
import pickle
from collections import Counter
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skocrcost import EditDistanceNeighbors
from skocrcost.correction._decoder import NoisyChannelDecoder
from skocrcost.correction._priors import (
    _mixed_case_prior,
    _real_word_counts,
    _Spelling,
    _UnigramPrior,
)

LEXICON = ["the", "cat", "cot", "hat", "tea"]
Z = 2.0


def decoder(**options):
    neighbors = EditDistanceNeighbors().fit(LEXICON)  # unit costs
    return NoisyChannelDecoder(neighbors, Z, **{"n_candidates": 3, **options})


def readings(dec, o, mixed=False):
    dec.candidates([o])
    r = dec._choose(o, mixed)
    return dict(zip(r.words, r.scores.tolist(), strict=True)), r


def test_keeping_a_lexicon_word_costs_its_real_word_prior():
    dec = decoder(real_word_prior=0.9)
    assert dec._keep_known() == pytest.approx(-math.log(0.9) / Z, rel=1e-15)
    scores, r = readings(dec, "cat")
    assert r.words[0] == "cat" and r.priced.tolist() == [True] * 3  # all priced by the LM
    change = -math.log1p(-0.9) / Z  # a lexicon word changed: 1 - prior, plus the channel
    assert scores["cat"] == pytest.approx(-math.log(0.9) / Z)
    assert scores["cot"] == pytest.approx(1.0 + change)
    assert scores["hat"] == pytest.approx(1.0 + change)
    assert scores["cat"] < scores["cot"]
    # A word's own prior replaces the real-word prior; a prior of 1 never changes it.
    dec = decoder(real_word_prior=0.9, word_priors={"cat": 0.5})
    scores, _ = readings(dec, "cat")
    assert scores["cat"] == pytest.approx(math.log(2) / Z)
    assert scores["cot"] == pytest.approx(1.0 + math.log(2) / Z)
    dec = decoder(word_priors={"cat": 1.0})
    scores, r = readings(dec, "cat")
    assert r.words == ("cat",) and scores["cat"] == 0.0


def test_keeping_an_unknown_word_costs_the_rejection_minus_its_recurrences():
    dec = decoder(reject_cost=lambda o: 1.5 if o == "thc" else 9.0, recurrence_weight=0.25)
    dec._counts = Counter({"thc": 4, "cst": 1})
    assert dec._recurrence("thc") == pytest.approx(0.25 * math.log(4))
    assert dec._recurrence("cst") == 0.0  # once is no recurrence
    assert dec._recurrence("zzz") == 0.0
    assert dec._rejection("thc") == 1.5  # before its recurrences
    assert readings(dec, "cst")[0]["cst"] == 9.0
    scores, r = readings(dec, "thc")
    assert r.words[0] == "thc" and not r.priced.tolist()[0]  # the LM does not price it
    assert scores["thc"] == pytest.approx(1.5 - 0.25 * math.log(4))
    # The 3 nearest candidates (ties: the lexicon's order), each at its channel cost alone,
    # priced by the LM (keeping an unknown word is not: its rejection cost stands for it).
    assert r.words == ("thc", "the", "tea", "cat") == r.lower == r.every
    assert r.priced.tolist() == [False, True, True, True]
    assert scores["the"] == 1.0 and scores["tea"] == 2.0 and scores["cat"] == 3.0
    # A constant rejection cost, and no recurrence weight: recurrences do nothing.
    dec = decoder(reject_cost=2.0)
    dec._counts = Counter({"thc": 9})
    assert readings(dec, "thc")[0]["thc"] == 2.0


def test_a_more_recurrent_unknown_word_is_cheaper_to_keep():
    dec = decoder(reject_cost=3.0, recurrence_weight=1.0)
    dec._counts = Counter({"a": 2, "b": 5})
    assert readings(dec, "b")[0]["b"] < readings(dec, "a")[0]["a"] < 3.0


def test_readings_are_kept_across_calls_and_recurrences_counted_in_each():
    dec = decoder(reject_cost=3.0, recurrence_weight=1.0)
    dec.correct_tokens([["thc", "thc", "thc"]])
    assert dec._choose("thc").scores[0] == pytest.approx(3.0 - math.log(3))
    kept = dec._readings_cache["thc", False]
    assert kept.scores[0] == 3.0  # the context-free readings hold no recurrence
    dec.correct_tokens([["thc", "cat"]])
    assert dec._choose("thc").scores[0] == 3.0  # once in this call: no recurrence
    assert dec._readings_cache["thc", False] is kept  # not built again


def test_a_lexicon_word_reached_by_a_join_has_no_candidates():
    dec = decoder(real_word_prior=0.9)
    r = dec._choose("cat")  # candidates() never asked for it
    assert r.words == ("cat",) and r.priced.tolist() == [True]
    assert r.scores.tolist() == [-math.log(0.9) / Z]


def test_a_variant_spelling_is_scored_by_its_best_candidate():
    def variant(o, words):
        return [0.5 if w == "the" and o == "thc" else 4.0 for w in words]

    dec = decoder(variant_cost=variant, variant_offset=0.25, recurrence_weight=1.0)
    dec._counts = Counter({"thc": 3})
    lm = np.array([[1.0, 0.0], [2.0, 5.0]])  # two hypotheses, candidates the, cat
    got = dec._keep_variant("thc", ["the", "cat"], lm)
    want = np.array([min(0.5 + 1.0, 4.0 + 0.0), min(0.5 + 2.0, 4.0 + 5.0)]) + 0.25
    np.testing.assert_allclose(got, want - math.log(3), rtol=1e-15)
    one = dec._keep_variant("thc", ["the", "cat"], np.array([1.0, 0.0]))  # one hypothesis
    assert one == pytest.approx(1.5 + 0.25 - math.log(3))
    assert decoder(variant_cost=variant)._keep_variant("thc", ["the"], lm) == math.inf
    assert decoder()._keep_variant("thc", ["the"], lm) == math.inf
    assert dec._keep_variant("thc", [], lm) == math.inf


def test_mixed_case_words_use_the_mixed_case_prior():
    dec = decoder(mixed_case_prior=0.2, real_word_prior=0.99, reject_cost=0.1)
    scores, _ = readings(dec, "cat", mixed=True)
    assert scores["cat"] == pytest.approx(-math.log(0.2) / Z)
    assert scores["cot"] == pytest.approx(1.0 - math.log(0.8) / Z)
    scores, _ = readings(dec, "thc", mixed=True)  # unknown words too
    assert scores["thc"] == pytest.approx(-math.log(0.2) / Z)
    assert scores["the"] == pytest.approx(1.0 - math.log(0.8) / Z)


def test_readings_at_infinite_cost_are_dropped_but_keeping_stays():
    dec = decoder(reject_cost=math.inf)
    scores, r = readings(dec, "thc")
    assert r.words[0] == "thc" and scores["thc"] == math.inf  # kept: variants may price it
    assert all(math.isfinite(s) for w, s in scores.items() if w != "thc")
    np.testing.assert_array_equal(r.index, np.arange(len(r.words)))
    assert r.every == tuple(w.lower() for w in [r.words[0], *r.words[1:]])


def test_real_word_counts_and_mixed_case_prior():
    ocr = ["cat", "cat", "cot", "dog", "wTas", "wTas", "feU"]
    truth = ["cat", "cot", "cot", "dog", "was", "wTas", "fell"]
    counts = _real_word_counts(ocr, truth, {"cat", "cot"})
    assert counts == {"cat": (1, 2), "cot": (1, 1)}
    # Mixed case outside the lexicon: wTas twice (right once), feU once (wrong).
    assert _mixed_case_prior(ocr, truth, {"cat"}) == pytest.approx((1 + 1) / (3 + 2))
    assert _mixed_case_prior(ocr, truth, {"wTas"}) == pytest.approx((0 + 1) / (1 + 2))
    assert _mixed_case_prior(["a"], ["a"], None) == 0.5
    for count in (_real_word_counts, _mixed_case_prior):  # pairs, never a shorter side
        with pytest.raises(ValueError, match="shorter"):
            count(["cat", "wTas"], ["cat"], {"cat"})


def test_unigram_prior_is_the_weighted_log_prior():
    log_prior = np.log([0.5, 0.3, 0.2])
    prior = _UnigramPrior(["The", "cat", "sat"], log_prior, 2.0)
    np.testing.assert_allclose(
        prior.log_probabilities(["the", "sat", "dog"]),
        [2 * math.log(0.5), 2 * math.log(0.2), 2 * math.log(0.2)],
    )
    grid = prior._log_probability_grid(["cat", "the"], [(), ("x",)])
    np.testing.assert_allclose(grid, [[2 * math.log(0.3), 2 * math.log(0.5)]] * 2)
    np.testing.assert_allclose(prior._log_probability_pairs(["cat"], [()]), [2 * math.log(0.3)])


def test_spelling_surprisal_is_its_smoothed_bigrams():
    spelling = _Spelling(["ab", "b"])
    # Marked: \x02ab\x03 and \x02b\x03. Contexts: \x02 twice, a once, b twice.
    n = len({"\x02", "a", "b", "\x03"}) + 1
    assert spelling.n_outcomes == n
    a = _Spelling.SMOOTHING

    def p(pair, count, context):
        return math.log((count + a) / (context + a * n))

    want = -(p("\x02a", 1, 2) + p("ab", 1, 1) + p("b\x03", 2, 2))
    assert spelling.surprisal("ab") == pytest.approx(want, rel=1e-14)
    assert spelling.surprisal("ba") > spelling.surprisal("ab")  # unseen bigrams cost more
    # Asked again (its bigrams' costs kept), and after a pickle (which drops them).
    assert spelling.surprisal("ab") == pytest.approx(want, rel=1e-14)
    back = pickle.loads(pickle.dumps(spelling))
    assert "_costs" not in back.__dict__
    assert back.surprisal("ab") == spelling.surprisal("ab")


def test_seen_candidates_are_the_likeliest_of_the_nearest_seen_words():
    # "end" misread for "and": among the seen words "and" is one edit away like six
    # others, listed after them, but by far the likeliest.
    seen = ["end", "ends", "bend", "send", "tend", "lend", "mend", "and"]
    lexicon = ["zzz", *seen]
    neighbors = EditDistanceNeighbors().fit(lexicon)
    seen_index = EditDistanceNeighbors().fit(seen)
    priors = np.array([5.0, 6.0, 6.0, 6.0, 6.0, 6.0, 6.0, 0.1])  # -ln P(w), cost units
    by_cost = NoisyChannelDecoder(neighbors, Z, n_candidates=2, seen_neighbors=seen_index)
    by_cost.candidates(["end"])
    assert "and" not in by_cost._cache["end"][0]
    likely = NoisyChannelDecoder(
        neighbors, Z, n_candidates=2, seen_neighbors=seen_index, seen_priors=priors
    )
    likely.candidates(["end"])
    words, costs = likely._cache["end"]
    # "and" joins, at its channel cost (the prior chose it, the channel still prices it).
    assert "and" in words and costs[words.index("and")] == 1.0
    assert words[0] == "end" and costs[0] == 0.0


def merged(monkeypatch, how):
    """Candidates merged as ``how`` says, whatever a call's number of new words."""
    from skocrcost.correction import _decoder

    monkeypatch.setattr(_decoder, "ARRAY_MERGE_WORDS", 1 if how == "arrays" else math.inf)


@pytest.mark.parametrize("max_cost", [0.0, 1.0, 2.0, math.inf])
@pytest.mark.parametrize("real_word_max_cost", [0.0, 1.0, math.inf])
@pytest.mark.parametrize("positions", [False, True])
@pytest.mark.parametrize("n", [2, 5])
@pytest.mark.parametrize("how", ["arrays", "word by word"])
def test_candidates_are_the_nearest_within_max_cost(
    max_cost, real_word_max_cost, positions, n, how, monkeypatch
):
    """Lexicon candidates: the n_candidates nearest by brute force, those beyond max_cost
    (a lexicon word's: beyond the lower of it and real_word_max_cost) left out; seen
    candidates: the likeliest of the pool within it, searched or (``seen_position``)
    taken from the lexicon search where it found all the lexicon has in the bound
    (with 5 candidates, several such seen words, ranked by their priors too); by
    cost, ties in the order found.  Merged as arrays or a word at a time."""
    merged(monkeypatch, how)
    seen = ["end", "ends", "bend", "send", "tend", "lend", "mend", "and", "an"]
    lexicon = ["zzz", "ennd", "e", *seen]
    priors = np.linspace(6.0, 0.1, len(seen))
    dec = NoisyChannelDecoder(
        EditDistanceNeighbors().fit(lexicon),
        Z,
        n_candidates=n,
        seen_neighbors=EditDistanceNeighbors().fit(seen),
        seen_priors=priors,
        seen_position=np.array([-1, -1, -1, *range(len(seen))]) if positions else None,
        max_cost=max_cost,
        real_word_max_cost=real_word_max_cost,
    )
    queries = ["end", "emd", "xyzzy", "a", "", "ennd", "e"]
    dec.candidates(queries)
    metric = dec.neighbors.metric_
    for q in queries:
        bound = min(max_cost, real_word_max_cost) if q in lexicon else max_cost
        want = {}
        costs = metric.pairwise([q], lexicon)[0]
        for j in np.argsort(costs, kind="stable")[:n]:
            if costs[j] <= bound:
                want.setdefault(lexicon[j], costs[j])
        costs = metric.pairwise([q], seen)[0]
        pool = [j for j in np.argsort(costs, kind="stable")[: 6 * n] if costs[j] <= bound]
        for j in sorted(pool, key=lambda j: costs[j] + priors[j])[:n]:
            want.setdefault(seen[j], costs[j])
        words, got = dec._cache[q]
        # by cost, ties in the order found: the lexicon's words, then the seen ones
        assert list(zip(words, got.tolist())) == sorted(want.items(), key=lambda kv: kv[1])
        assert all(c <= bound for c in got)


# Costs and priors on a coarse grid, so that ties happen.
PRICE = st.integers(0, 12).map(lambda x: x / 4)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_seen_words_are_ranked_by_cost_plus_prior(data):
    """The likeliest of a word's nearest seen words (``_likeliest``, on a search's rows
    padded with inf and -1): its n best by cost plus prior, ties in the row's order,
    as Python's stable sort of the row's hits ranks them, padded the same way; and
    as ``_ranked`` ranks the rows as lists (a word at a time)."""
    from skocrcost.correction._decoder import _hits, _likeliest, _ranked

    n_words = data.draw(st.integers(1, 12))
    priors = np.array(data.draw(st.lists(PRICE, min_size=n_words, max_size=n_words)))
    width, n = data.draw(st.integers(1, 8)), data.draw(st.integers(1, 8))
    rows = []
    for _ in range(data.draw(st.integers(0, 5))):
        found = data.draw(st.integers(0, width))
        costs = sorted(data.draw(st.lists(PRICE, min_size=found, max_size=found)))
        ids = data.draw(st.lists(st.integers(0, n_words - 1), min_size=found, max_size=found))
        rows.append(list(zip(costs, ids, strict=True)))
    dist = np.full((len(rows), width), np.inf)
    ind = np.full((len(rows), width), -1)
    for q, row in enumerate(rows):
        for j, (c, i) in enumerate(row):
            dist[q, j], ind[q, j] = c, i
    got_dist, got_ind = _likeliest(dist, ind, (priors, n))
    assert got_dist.shape == got_ind.shape == (len(rows), min(n, width))
    for q, row in enumerate(rows):
        want = sorted(row, key=lambda hit: hit[0] + priors[hit[1]])[:n]
        pad = [(np.inf, -1)] * (min(n, width) - len(want))
        assert list(zip(got_dist[q].tolist(), got_ind[q].tolist())) == want + pad
    assert _ranked(rows, (priors, n)) == _hits(got_dist, got_ind)
    assert _ranked(rows, None) == _hits(dist, ind) == rows
    kept = _likeliest(dist, ind, None)  # no priors: the rows as the search found them
    assert kept[0] is dist and kept[1] is ind


@pytest.mark.parametrize("rules", [False, True])
def test_candidates_merged_as_arrays_are_those_merged_word_by_word(rules):
    """Real OCR words of the embedded sample, looked up in a call of many (merged as
    arrays) and in calls of a few (a word at a time in Python): the same candidates,
    costs and order.  Lexicon and seen words of the SCOWL list, seen ones taken
    from the lexicon search or searched; ``rules``: with multi-character edits,
    which the metric ranks (and the words they undo join)."""
    from skocrcost import EditCostEstimator, WeightedLevenshtein
    from skocrcost.correction import _decoder
    from skocrcost.datasets import load_english_words, load_icdar2017_sample

    ocr, truth = load_icdar2017_sample("tokens")
    metric = EditCostEstimator(max_token_length=2 if rules else 1, min_count=2)
    metric = metric.fit(ocr[:5000], truth[:5000]).metric_
    assert bool(metric.costs.rules) == rules
    lexicon = load_english_words()[::10]  # (a tenth: a quick search)
    is_seen = np.isin(lexicon, list(set(truth)))
    seen = [w for w, s in zip(lexicon, is_seen, strict=True) if s]
    # The indexes search by the costs without the rules, as a corrector's do.
    retrieval = WeightedLevenshtein.from_tables(replace(metric.costs, rules=()))

    def fresh():
        return NoisyChannelDecoder(
            EditDistanceNeighbors(metric=retrieval).fit(lexicon),
            Z,
            n_candidates=5,
            seen_neighbors=EditDistanceNeighbors(metric=retrieval).fit(seen),
            seen_priors=np.linspace(0.5, 6.0, len(seen)),
            seen_position=np.where(is_seen, np.cumsum(is_seen) - 1, -1),
            metric=metric if rules else None,
        )

    words = list(dict.fromkeys(w.lower() for w in ocr[5000:5600]))
    at_once, in_threes = fresh(), fresh()
    # Both kinds of words, and both ways to their seen words: some with fewer than 5
    # lexicon words within their bound (all found), some with 5.
    known = [w in at_once.words for w in words]
    assert len(words) > 200 and any(known) and not all(known)
    fewer = at_once._nearest(at_once.neighbors, words, 5)[1][:, -1] < 0
    assert fewer.any() and not fewer.all()
    at_once.candidates(words)  # (more than ARRAY_MERGE_WORDS)
    for a in range(0, len(words), 3):
        in_threes.candidates(words[a : a + 3])
    assert len(words) >= _decoder.ARRAY_MERGE_WORDS > 3
    for w in words:
        assert at_once._cache[w][0] == in_threes._cache[w][0]
        np.testing.assert_array_equal(at_once._cache[w][1], in_threes._cache[w][1])

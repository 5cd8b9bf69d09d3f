"""The decoder's compiled line search against its Python search, on real OCR lines."""

import copy

import numpy as np
import pytest
from conftest import own_decoder, read_pairs, shared_path
from sklearn.base import clone

from skocrcost._kernels import openmp_max_threads
from skocrcost.correction._layout import Layout
from skocrcost.correction._tokens import WHITESPACE, join_halves, looked_up
from skocrcost.datasets import load_icdar2017_sample, pretrained_corrector


@pytest.fixture(scope="module")
def corrector():
    return pretrained_corrector()


def tuned(corrector, **params):
    """A copy of ``corrector`` with ``params`` set, its decoder cloned first: a shallow
    copy shares the shipped corrector's Decoder, which the module's other tests read."""
    fixer = copy.copy(corrector)
    if fixer.decoder is not None:
        fixer.decoder = clone(fixer.decoder)
    return fixer.set_params(**params)


def lines_of(source):
    if source == "monographs (embedded sample)":
        return load_icdar2017_sample("lines")[0][-150:]
    if source == "newspapers":
        return read_pairs(shared_path("bln600", "train.lines.tsv"), limit=150)[0]
    return read_pairs(shared_path("icdar2017_engper", "dev.lines.tsv"), limit=150)[0]


SETTINGS = {
    "defaults": {},
    "variants, real-word priors, narrow beam": {
        "decoder__variant_weight": 1.0,
        "decoder__real_word_smoothing": 1.0,
        "decoder__beam_width": 3,
    },
    "rules on": {"rules": ["mixed_case", "capitals", "hyphens", "punctuation", "case"]},
    "no language model weight": {"decoder__lm_weight": 0.0, "decoder__recurrence_weight": 0.0},
    "recurrences counted": {"decoder__recurrence_weight": 1.0},
    "joins": {"decoder__join_cost": 1.0},
    "joins, recurrences counted, narrow beam": {
        "decoder__join_cost": 3.0,
        "decoder__recurrence_weight": 1.0,
        "decoder__beam_width": 2,
    },
}


@pytest.mark.parametrize("source", ["monographs (embedded sample)", "newspapers", "periodicals"])
@pytest.mark.parametrize("setting", list(SETTINGS))
def test_the_compiled_search_reads_lines_as_the_python_search(corrector, source, setting):
    lines = lines_of(source)
    fixer = tuned(corrector, **SETTINGS[setting])
    sequences = [WHITESPACE.split(line)[::2] for line in lines]
    compiled = fixer._decoder()
    assert compiled._compiled()
    python = own_decoder(fixer)
    python._kernel_reads = lambda: False  # (every line: the Python search)
    got = compiled.correct_tokens(sequences)
    assert got == python.correct_tokens(sequences)
    assert got != sequences  # the lines have errors the decoder corrects


def test_cuts_take_the_python_search(corrector):
    decoder = own_decoder(tuned(corrector, decoder__split_cost=5.0))
    assert not decoder._compiled()
    decoder._search_lines = None  # (never called: the line has a word that may be cut)
    assert decoder.correct_tokens([["ofthe", "house"]]) == [["of the", "house"]]


@pytest.mark.parametrize("source", ["monographs (embedded sample)", "newspapers", "periodicals"])
@pytest.mark.parametrize("joins", [None, 1.0])
def test_with_cuts_only_lines_that_may_be_cut_take_the_python_search(corrector, source, joins):
    sequences = [WHITESPACE.split(line)[::2] for line in lines_of(source)]
    fixer = tuned(corrector, decoder__split_cost=5.0, decoder__join_cost=joins)
    mixed, python = own_decoder(fixer), own_decoder(fixer)
    assert not mixed._compiled()
    python._kernel_reads = lambda: False
    searched = []  # the lines the Python search reads
    search = mixed._search
    mixed._search = lambda tokens: searched.append(tokens) or search(tokens)
    got = mixed.correct_tokens(sequences)
    assert got == python.correct_tokens(sequences)
    may_cut = [s for s in sequences if mixed._may_cut(s)]
    assert searched == may_cut
    assert 0 < len(may_cut) < len(sequences)
    assert any(" " in token for fixed in got for token in fixed)  # some are cut


@pytest.mark.parametrize("source", ["monographs (embedded sample)", "newspapers", "periodicals"])
def test_the_compiled_search_joins_tokens_where_the_python_search_does(corrector, source):
    """Lines with tokens that may join are searched by the kernel too, joins and all
    (the parametrised test above holds every line equal): enough of them here that
    joins are taken, and a join is read as the Python search reads it."""
    sequences = [WHITESPACE.split(line)[::2] for line in lines_of(source)]
    fixer = tuned(corrector, decoder__join_cost=1.0)
    compiled = own_decoder(fixer)
    assert compiled._compiled()
    compiled._search = None  # (never called)
    got = compiled.correct_tokens(sequences)
    may_join = [s for s in sequences if any(compiled._joinable(a, b) for a, b in zip(s, s[1:]))]
    assert 0 < len(may_join) < len(sequences) / 2
    assert any("" in fixed for fixed in got)  # some are joined
    python = own_decoder(fixer)
    python._kernel_reads = lambda: False  # (every line: the Python search)
    assert got == python.correct_tokens(sequences)


@pytest.mark.parametrize("source", ["monographs (embedded sample)", "newspapers", "periodicals"])
def test_two_tokens_may_be_joined_as_the_rule_of_their_halves_says(corrector, source):
    """``_joinable`` tells most pairs (two lexicon words across a space) from each
    token's kept side; every pair of neighbours gets the rule's answer: the shape of
    one word (``join_halves``) and, across a space, a lexicon word made from at least
    one non-word."""
    decoder = own_decoder(corrector)
    words = decoder.words

    def rule(a, b):
        halves = join_halves(a, b)
        if halves is None:
            return None
        core_a, core_b, trail_a = halves
        joined = looked_up(core_a + core_b, words)
        both = looked_up(core_a, words) in words and looked_up(core_b, words) in words
        return None if not trail_a and (joined not in words or both) else joined

    pairs = [
        pair
        for line in lines_of(source)
        for tokens in [WHITESPACE.split(line)[::2]]
        for pair in zip(tokens, tokens[1:])
    ]
    pairs += [("a", "way"), ("with", "in"), ("to-", "day"), ("moun-", "tains"), ("tbe", "ir")]
    got = [decoder._joinable(a, b) for a, b in pairs]
    assert got == [rule(a, b) for a, b in pairs]
    assert got[-5:] == [None, None, "today", "mountains", None]
    assert any(got[:-5]) and got[:-5].count(None) > len(pairs) / 2


@pytest.mark.parametrize("first", ["joined", "looked up"])
def test_a_word_only_a_join_reaches_is_read_as_the_python_search_reads_it(
    corrector, first, monkeypatch
):
    """A lexicon word that only a join across a space reaches (``retu rned``) is not
    looked up: the Python search reads it without candidates, unless a call before
    looked it up (as a token of its own, ``returned``) and its readings are kept.
    The compiled search's tables, kept across calls, read it the same way, whichever
    call comes first."""
    from skocrcost.correction import _decoder

    fixer = tuned(corrector, decoder__join_cost=1.0)
    compiled, python = own_decoder(fixer), own_decoder(fixer)
    compiled._layout = Layout()  # (its own, and each its own kept readings: shared)
    compiled._readings_cache, python._readings_cache = {}, {}
    python._kernel_reads = lambda: False  # (every line: the Python search)
    read = []  # the readings of each call's joins
    search = _decoder.search_lines

    def recording(*args, joins=None, **kwargs):
        sets = [] if joins is None else joins[4].tolist()
        read.append([compiled._layout.readings[i].words for i in sets])
        return search(*args, joins=joins, **kwargs)

    monkeypatch.setattr(_decoder, "search_lines", recording)
    joined, looked_up = [["the", "retu", "rned", "man"]], [["the", "returned", "man"]]
    calls = [joined, looked_up, joined] if first == "joined" else [looked_up, joined, looked_up]
    for sequences in calls:
        assert compiled.correct_tokens(sequences) == python.correct_tokens(sequences)
    alone, with_candidates = ("returned",), compiled._free_readings("returned", False).words
    assert len(with_candidates) > 1
    if first == "joined":  # alone, then with the candidates the second call found
        assert read == [[alone], [], [with_candidates]]
    else:
        assert read == [[], [with_candidates], []]


def test_without_a_language_model_the_python_search_runs():
    X, y = load_icdar2017_sample("lines")
    from skocrcost import OCRCorrector

    fixer = OCRCorrector(language_model=None, min_confidence=None).fit(X[:300], y[:300])
    decoder = fixer._decoder()
    assert not decoder._compiled()  # the word prior is no Katz model
    assert fixer.predict(["tbe house"]).tolist() == ["the house"]


def test_n_jobs_set_after_fit_reaches_both_searches_and_changes_nothing(corrector):
    lines = lines_of("monographs (embedded sample)")
    one = tuned(corrector, n_jobs=1)
    expected = one.predict(lines).tolist()
    two = tuned(corrector, n_jobs=2)
    decoder = two._decoder()
    assert decoder.n_threads == min(2, openmp_max_threads())
    assert decoder.neighbors.n_jobs == 2 and decoder.seen_neighbors.n_jobs == 2
    assert two.predict(lines).tolist() == expected


@pytest.mark.parametrize("max_sets", [None, 40])
def test_the_layout_kept_across_calls_reads_lines_as_the_python_search(corrector, max_sets):
    """Calls on one corrector share the compiled search's tables (its layout): each
    call reads its lines as the Python search does, the layout full or not (40: it
    is emptied again and again)."""
    fixer = tuned(corrector, decoder__recurrence_weight=2.0)
    fixer._caches_ = {}
    lines = lines_of("newspapers")
    sequences = [WHITESPACE.split(line)[::2] for line in lines]
    python = own_decoder(fixer)
    python._kernel_reads = lambda: False  # (every line: the Python search)
    for part in (sequences[:60], sequences[30:], sequences[:60]):
        compiled = own_decoder(fixer)
        if max_sets is not None:
            compiled.candidate_cache_size = max_sets
        assert compiled._layout is fixer._caches_["layout"]
        assert compiled.correct_tokens(part) == python.correct_tokens(part)
    layout = fixer._caches_["layout"]
    fresh = copy.copy(fixer)
    fresh._caches_ = {}
    fresh._decoder().correct_tokens(sequences[:60])
    last = len(fresh._caches_["layout"].readings)  # the sets of the last call alone
    if max_sets is None:  # every word of the lines laid out once, across the calls
        assert len(layout.sets) == len(layout.readings) > last
    else:  # emptied before the last call, which held 40 or more
        assert len(layout.readings) == last > 40
    # Another setting of what the readings depend on gets tables of its own.
    assert fixer.set_params(decoder__real_word_prior=0.9)._decoder()._layout is not layout


def test_seen_candidates_from_the_lexicon_search_are_those_a_search_finds(corrector, monkeypatch):
    """A word with fewer lexicon words within its bound than the search asks for takes
    its seen candidates from those (``seen_position``, built at fit and load): the
    same words at the same costs as a search of the seen words gives, on the words
    of real OCR lines from all three collections; and those words are not searched."""
    words = sorted(
        {w for source in ("monographs (embedded sample)", "newspapers", "periodicals")
         for line in lines_of(source) for w in line.lower().split()}
    )  # fmt: skip
    seen_index = corrector._candidate_indexes_["seen_neighbors"]
    asked = []
    search = seen_index._nearest_within

    def counted(X, *args):
        asked.extend(X)
        return search(X, *args)

    monkeypatch.setattr(seen_index, "_nearest_within", counted)
    found = []
    for positions in (True, False):
        decoder = own_decoder(corrector)
        decoder._cache = {}  # (not the corrector's shared cache: every word searched)
        if not positions:
            decoder.seen_position = None
        asked.clear()
        decoder.candidates(words)
        found.append(decoder._cache)
        if positions:
            taken = len(words) - len(asked)
    assert len(asked) == len(words) and 0 < taken < len(words)
    for w in words:
        assert found[0][w][0] == found[1][w][0], w
        np.testing.assert_array_equal(found[0][w][1], found[1][w][1])


def test_a_calls_arrays_are_the_size_of_its_lines_not_of_the_layout(corrector, monkeypatch):
    """The layout keeps every reading set across calls (up to its bound); what a call
    builds for the kernel is one value per step of its own lines, so a loop of one
    ``correct`` per line costs the same per line however long it has run."""
    from skocrcost.correction import _decoder

    fixer = tuned(corrector, decoder__recurrence_weight=1.0)
    for line in lines_of("newspapers"):
        fixer.correct(line)
    seen = []
    search = _decoder.search_lines
    monkeypatch.setattr(_decoder, "search_lines", lambda *a, **k: seen.append(a) or search(*a, **k))
    fixer.correct("Mr Pontefract saw the house of Mrs Pontefract")
    v_rec, steps = seen[0][11], seen[0][12]
    assert len(steps) == 8 and len(v_rec) == len(steps)
    assert len(fixer._decoder()._layout.readings) > 100 * len(steps)
    # the call's recurrences: each step of a word has its word's, the same each time
    rec = dict(zip(steps.tolist(), v_rec.tolist()))
    assert v_rec.tolist() == [rec[s] for s in steps.tolist()]
    # a word out of the lexicon that recurs is cheaper to keep; a lexicon word is not
    assert steps[1] == steps[7] and v_rec[1] > 0 and v_rec[3] == 0


def test_tokens_are_rewritten_once_each_and_what_is_kept_is_bounded(corrector, monkeypatch):
    """A decoder keeps each token as its case and spacing rules write it (a text
    repeats its tokens): the rules' own answer, from what it kept too, and what it
    keeps is emptied when full."""
    from skocrcost.correction import _decoder

    decoder = own_decoder(tuned(corrector, rules=["capitals", "hyphens", "punctuation"]))
    assert decoder.recapitalise is not None and decoder.close_up is not None
    tokens = [t for line in lines_of("periodicals") for t in WHITESPACE.split(line)[::2]]
    expected = [decoder.close_up(decoder.recapitalise(t), decoder.words) for t in tokens]
    assert sum(e != t for e, t in zip(expected, tokens)) >= 5  # (the rules rewrite some)
    monkeypatch.setattr(_decoder, "SLOTS_CACHE_SIZE", 100)
    assert len(set(tokens)) > 300
    for _ in range(2):  # afresh, then some from what was kept
        assert [decoder._rewritten(t) for t in tokens] == expected
        assert len(decoder._rewritten_cache) <= 100

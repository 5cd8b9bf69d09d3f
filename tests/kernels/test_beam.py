"""The compiled beam search of lines against its pure-Python twin and against brute force."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skocrcost import KatzBackoffLM
from skocrcost._kernels import _beam, _beam_py

VOCABULARY = list("abcdefgh")
WORDS = ["<s>", *VOCABULARY, "x", "y"]  # x and y: words the language model never saw


def layout(lm, words=WORDS):
    """The word tables of ``search_lines`` for ``words`` (ids are their positions)."""
    if lm is None:
        return np.zeros(len(words), np.int64), np.zeros(len(words), np.int64)
    vocab = lm.vocabulary_
    ctx = [len(vocab) if w == "<s>" else vocab.get(w, -1) for w in words]
    pred = [_beam.NEVER if w == "<s>" else vocab.get(w, -1) for w in words]
    return np.array(ctx, np.int64), np.array(pred, np.int64)


@st.composite
def problems(draw, max_readings=6, max_steps=6, max_beam=5, with_joins=True):
    """A language model (or none), reading sets with or without variants, lines, and
    joins of their tokens (none without ``with_joins``)."""
    order = draw(st.integers(1, 4))
    if draw(st.booleans()):
        sentences = draw(
            st.lists(st.lists(st.sampled_from(VOCABULARY), max_size=6), min_size=1, max_size=8)
        )
        lm = KatzBackoffLM(order=order, discount=draw(st.floats(0.1, 0.9))).fit(sentences)
        coef = -draw(st.floats(0.1, 3.0))
    else:
        lm, coef = None, 0.0
    n_sets = draw(st.integers(1, 4))
    r_start, r_word, r_score, r_priced = [0], [], [], []
    v_start, v_cost, v_offset = [0], [], []
    score = st.floats(0, 5, allow_nan=False).map(lambda x: round(x, 2))  # ties happen
    for _ in range(n_sets):
        n = draw(st.integers(1, max_readings))
        # Ids 0..len(WORDS) - 1; 0 is the start symbol, never predicted.
        r_word += draw(st.lists(st.integers(0, len(WORDS) - 1), min_size=n, max_size=n))
        r_score += draw(st.lists(score, min_size=n, max_size=n))
        r_priced += draw(st.lists(st.booleans(), min_size=n, max_size=n))
        r_start.append(len(r_word))
        if n > 1 and draw(st.booleans()):
            v_cost += draw(st.lists(score, min_size=n - 1, max_size=n - 1))
        v_start.append(len(v_cost))
        v_offset.append(draw(score))
    step = st.one_of(st.integers(0, n_sets - 1), st.integers(-len(WORDS), -1))
    # Lines of tokens of 0-2 steps each, and some pairs of neighbouring tokens read
    # as one word (joins), overlapping ones too.
    token = st.lists(step, max_size=2)
    line = st.lists(token, max_size=max_steps // 2 + 1)
    lines = draw(st.lists(line, max_size=3))
    if with_joins:  # a line of two tokens or more, which may join, comes first
        lines.insert(0, draw(st.lists(token, min_size=2, max_size=max_steps // 2 + 1)))
    steps = [s for line in lines for t in line for s in t]
    v_rec = draw(st.lists(score, min_size=len(steps), max_size=len(steps)))  # one per step
    line_start = np.cumsum([0] + [sum(map(len, line)) for line in lines])
    join_start, joins = [0], []
    for line in lines:
        tok_start = np.cumsum([0] + [len(t) for t in line]).tolist()
        for i in range(len(line) - 1):
            if with_joins and draw(st.booleans()):
                joins.append(
                    (
                        i,
                        tok_start[i],
                        tok_start[i + 2],
                        draw(st.integers(0, n_sets - 1)),
                        draw(score),
                    )
                )
        join_start.append(len(joins))
    i64, f64 = np.int64, np.float64
    columns = list(zip(*joins)) if joins else [()] * 5
    join_arrays = (
        np.array(join_start, i64),
        *(np.array(c, i64) for c in columns[:4]),
        np.array(columns[4], f64),
    )
    arrays = (
        np.array(r_start, i64),
        np.array(r_word, i64),
        np.array(r_score, f64),
        np.array(r_priced, np.uint8),
        np.array(v_start, i64),
        np.array(v_cost, f64),
        np.array(v_offset, f64),
        np.array(v_rec, f64),
        np.array(steps, i64),
        np.array(line_start, i64),
    )
    m = draw(st.integers(0, 3))
    joining = (join_arrays, draw(score)) if with_joins else (None, 0.0)
    return lm, coef, arrays, m, draw(st.integers(1, max_beam)), joining


def run(module, lm, coef, arrays, m, beam, joining=(None, 0.0), n_threads=1):
    tables = module.KatzTables(lm._level_arrays(), len(lm.vocabulary_)) if lm else None
    return module.search_lines(
        tables, coef, *layout(lm), *arrays, start_word=0, m=m, beam_width=beam,
        n_threads=n_threads, joins=joining[0], join_cost=joining[1],
    )  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(problems(), st.integers(1, 3))
def test_search_lines_equals_its_twin(problem, n_threads):
    chosen, scores, joined = run(_beam, *problem, n_threads=n_threads)
    twin_chosen, twin_scores, twin_joined = run(_beam_py, *problem)
    np.testing.assert_array_equal(chosen, twin_chosen)
    np.testing.assert_array_equal(joined, twin_joined)
    np.testing.assert_array_equal(scores, twin_scores)  # bit for bit


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 4),
    st.lists(st.lists(st.sampled_from(VOCABULARY), max_size=6), min_size=1, max_size=8),
    st.floats(0.1, 0.9),
    st.data(),
)
def test_probabilities_are_the_language_models_to_the_bit(order, sentences, discount, data):
    """``KatzTables.probabilities``, compiled and twin, gives for any word after any
    history the doubles whose logs the language model's numpy reader gives: the
    pairs the corrector's confidence asks for read the same either way."""
    from skocrcost import lm as lm_module

    lm = KatzBackoffLM(order=order, discount=discount).fit(sentences)
    word = st.sampled_from([*WORDS, "</s>"])  # the start symbol, unseen words, STOP
    words = data.draw(st.lists(word, max_size=12))
    contexts = [tuple(data.draw(st.lists(word, max_size=3))) for _ in words]
    ids = np.array([lm.vocabulary_.get(w, -1) for w in words], dtype=np.int64)
    history = np.array([lm._context_ids(c) for c in contexts], dtype=np.int64)
    history = history.reshape(len(words), order - 1)
    want = lm_module._log_prob(lm._levels, lm.vocabulary_, history, ids)
    with np.errstate(divide="ignore"):
        for module in (_beam, _beam_py):
            tables = module.KatzTables(lm._level_arrays(), len(lm.vocabulary_))
            np.testing.assert_array_equal(np.log(tables.probabilities(ids, history)), want)
    # and the pairs the corrector asks for are each the public log_probability
    got = lm._log_probability_pairs(words, contexts)
    for w, c, g in zip(words, contexts, got, strict=True):
        assert g == lm.log_probability(w, list(c)), (w, c)


def test_probabilities_refuse_histories_of_the_wrong_shape():
    lm = KatzBackoffLM(order=3).fit([["a", "b", "c"]])
    tables = _beam.KatzTables(lm._level_arrays(), len(lm.vocabulary_))
    with pytest.raises(ValueError, match="histories must have shape"):
        tables.probabilities(np.zeros(2, np.int64), np.zeros((2, 1), np.int64))


def path_cost(lm, coef, arrays, m, units, path, join_cost=0.0):
    """The score of reading ``units`` by ``path`` (a reading per unit; -1 for a word
    left): each unit ``(step, rec, joined)``, a step of the line or a join (``joined``:
    it costs ``join_cost`` more) with its ``v_rec``."""
    r_start, r_word, r_score, r_priced, v_start, v_cost, v_offset = arrays[:7]

    def lm_term(word, history):
        if lm is None:
            return 0.0
        w = WORDS[word]
        context = [WORDS[h] for h in history][len(history) - m :] if m else []
        return coef * lm.log_probability(w, context) if w != "<s>" else math.inf

    history, total = [0] * m, 0.0
    for (step, v_rec, joined), k in zip(units, path, strict=True):
        if step < 0:
            history.append(-step - 1)
            continue
        at, n = r_start[step], r_start[step + 1] - r_start[step]
        terms = [lm_term(r_word[at + j], history) if r_priced[at + j] else 0.0 for j in range(n)]
        # Keeping the word: less what its recurrences take off (v_rec).
        cost = (r_score[at] - v_rec if k == 0 else r_score[at + k]) + terms[k]
        if k == 0 and v_start[step + 1] > v_start[step]:  # kept, maybe as a variant
            v = v_cost[v_start[step] : v_start[step + 1]]
            variant = min(v[j - 1] + terms[j] for j in range(1, n))
            cost = min(cost, (variant + v_offset[step]) - v_rec)
        total += cost + (join_cost if joined else 0.0)
        history.append(r_word[at + k])
    return total


def readings_of(line, rec, joins):
    """Every way to read a line: the units (see :func:`path_cost`) of each choice of
    joins taken (none of two sharing a token), a join in place of its tokens' steps."""
    for taken in itertools.product([False, True], repeat=len(joins)):
        chosen = [j for j, t in zip(joins, taken) if t]
        if any(b[0] < a[0] + 2 for a, b in zip(chosen, chosen[1:])):
            continue  # two joins of one token
        yield units_of(line, rec, chosen)


def units_of(line, rec, taken, picked=None, joined=None):
    """The units of reading ``line`` with the joins ``taken`` (by token); with
    ``picked`` (a reading per step) and ``joined`` (one per join taken), also the path."""
    units, path, s, j = [], [], 0, 0
    while True:
        # (joins of tokens without steps start where they end, maybe where others start)
        while j < len(taken) and taken[j][1] == s:
            _, _, to, at_set, j_rec = taken[j]
            units.append((at_set, j_rec, True))
            path.append(None if joined is None else joined[j])
            j += 1
            s = to
        if s >= len(line):
            break
        units.append((line[s], rec[s], False))
        path.append(None if picked is None else picked[s])
        s += 1
    return (units, path) if picked is not None else units


def brute_force(lm, coef, arrays, m, line, rec, joins=(), join_cost=0.0):
    """The least score of any path through ``line`` (a line's steps, their ``v_rec``,
    its joins as ``(tok, at, to, set, rec)``)."""
    r_start = arrays[0]
    best = math.inf
    for units in readings_of(line, rec, joins):
        options = [[-1] if u < 0 else range(r_start[u + 1] - r_start[u]) for u, _, _ in units]
        for path in itertools.product(*options):
            best = min(best, path_cost(lm, coef, arrays, m, units, path, join_cost))
    return best if best < math.inf or line or joins else 0.0


@settings(max_examples=150, deadline=None)
@given(problems(max_readings=3, max_steps=4))
def test_a_beam_wider_than_every_path_finds_the_cheapest(problem):
    """With a beam as wide as the paths, the search is exact (merging by state loses
    nothing: the language model sees only the last m words), joins and all."""
    lm, coef, arrays, m, _, joining = problem
    if lm is not None:
        m = lm.order - 1  # the state holds what the language model reads
    chosen, scores, joined = run(_beam, lm, coef, arrays, m, beam=81, joining=joining)
    v_rec, steps, line_start = arrays[7], arrays[8], arrays[9]
    join_arrays, join_cost = joining
    columns = [c.tolist() for c in join_arrays[1:]]
    for line, score in enumerate(scores):
        a, b = line_start[line], line_start[line + 1]
        part, rec = steps[a:b].tolist(), v_rec[a:b].tolist()
        at = range(join_arrays[0][line], join_arrays[0][line + 1])
        joins = [tuple(c[j] for c in columns) for j in at]
        best = brute_force(lm, coef, arrays, m, part, rec, joins, join_cost)
        assert score == pytest.approx(best, rel=1e-9, abs=1e-9)
        picked = chosen[a:b].tolist()
        assert [k for s, k in zip(part, picked) if s < 0] == [-1] * sum(s < 0 for s in part)
        if math.isfinite(best):  # the path chosen costs the least (a tie may pick another)
            took = joined[at.start : at.stop].tolist()
            taken = [j for j, k in zip(joins, took) if k >= 0]
            units, path = units_of(part, rec, taken, picked, [k for k in took if k >= 0])
            assert path_cost(lm, coef, arrays, m, units, path, join_cost) == pytest.approx(best)


def test_unknown_words_are_states_of_their_own():
    """Two words the language model never saw are different states (as in the decoder,
    whose states are the words themselves): they take two places in the beam."""
    lm = KatzBackoffLM(order=2).fit([["a", "b"]] * 5)
    x, y, a, b = (WORDS.index(w) for w in "xyab")
    # Step 1 reads x, y or a (context-free costs 0, 0.1, 0.2); step 2 reads b, which
    # the language model expects after a far more than after x or y.
    arrays = (
        np.array([0, 3, 4], np.int64),
        np.array([x, y, a, b], np.int64),
        np.array([0.0, 0.1, 0.2, 0.0]),
        np.array([0, 0, 0, 1], np.uint8),
        np.array([0, 0, 0], np.int64),
        np.zeros(0),
        np.zeros(2),
        np.zeros(2),
        np.array([0, 1], np.int64),
        np.array([0, 2], np.int64),
    )
    after_a = 0.2 - lm.log_probability("b", ["a"])
    after_x = 0.0 - lm.log_probability("b", ["x"])
    assert after_a < after_x  # a then b is the cheapest path
    for module in (_beam, _beam_py):
        # A beam of 2 holds x and y, so a is pruned; a beam of 3 keeps it.
        chosen, scores, _ = run(module, lm, -1.0, arrays, 1, beam=2)
        assert chosen.tolist() == [0, 0]
        assert scores[0] == pytest.approx(after_x)
        chosen, scores, _ = run(module, lm, -1.0, arrays, 1, beam=3)
        assert chosen.tolist() == [2, 0]
        assert scores[0] == pytest.approx(after_a)


@pytest.mark.parametrize("module", [_beam, _beam_py])
def test_bad_widths_are_refused(module):
    arrays = (np.zeros(1, np.int64),) * 2 + (np.zeros(0),) + (np.zeros(0, np.uint8),)
    arrays += (np.zeros(1, np.int64), np.zeros(0), np.zeros(0), np.zeros(0))
    arrays += (np.zeros(0, np.int64), np.zeros(1, np.int64))
    with pytest.raises(ValueError, match="beam_width"):
        run(module, None, 0.0, arrays, 1, beam=0)
    with pytest.raises(ValueError, match="m must"):
        run(module, None, 0.0, arrays, -1, beam=1)


@pytest.mark.parametrize("module", [_beam, _beam_py])
def test_recurrences_must_come_one_per_step(module):
    steps = np.array([0, 0, -1], np.int64)
    arrays = (np.array([0, 1], np.int64), np.array([1], np.int64), np.zeros(1))
    arrays += (np.zeros(1, np.uint8), np.zeros(2, np.int64), np.zeros(0), np.zeros(1))
    arrays += (np.zeros(1), steps, np.array([0, 3], np.int64))  # one set's worth, not 3
    with pytest.raises(ValueError, match="v_rec must have one value per step"):
        run(module, None, 0.0, arrays, 1, beam=1)


@pytest.mark.parametrize("module", [_beam, _beam_py])
def test_joins_must_lie_in_their_lines_and_come_in_order(module):
    steps = np.array([0, 0, 0], np.int64)
    arrays = (np.array([0, 1], np.int64), np.array([1], np.int64), np.zeros(1))
    arrays += (np.zeros(1, np.uint8), np.zeros(2, np.int64), np.zeros(0), np.zeros(1))
    arrays += (np.zeros(3), steps, np.array([0, 3], np.int64))
    i64 = np.int64

    def joins(start, tok, at, to, sets):
        columns = (np.array(c, i64) for c in (tok, at, to, sets))
        return np.array(start, i64), *columns, np.zeros(len(tok))

    good = joins([0, 2], [0, 1], [0, 1], [2, 3], [0, 0])
    _, _, joined = run(module, None, 0.0, arrays, 1, beam=2, joining=(good, 1.0))
    assert joined.shape == (2,)
    for bad in (
        joins([0], [0], [0], [2], [0]),  # join_start: one per line and one more
        joins([0, 1], [0, 1], [0, 1], [2, 3], [0, 0]),  # join_start ends short of the joins
        joins([0, 1], [0], [0], [4], [0]),  # past the line's steps
        joins([0, 1], [0], [2], [1], [0]),  # ends before it starts
        joins([0, 1], [0], [0], [2], [1]),  # no such reading set
        joins([0, 2], [1, 0], [1, 0], [3, 2], [0, 0]),  # out of order
    ):
        with pytest.raises(ValueError, match="joins"):
            run(module, None, 0.0, arrays, 1, beam=2, joining=(bad, 1.0))


def markov_problem(seed):
    """A trigram model of text from a random Markov chain over ``VOCABULARY`` (its
    contexts matter), and lines of 10-30 steps through sets of 2-6 readings of
    its words, some priced, some not: a problem where which states a narrow beam
    keeps decides the line."""
    rng = np.random.default_rng(seed)
    follow = rng.dirichlet(np.full(len(VOCABULARY), 0.3), size=len(VOCABULARY))
    sentences = []
    for _ in range(60):
        word = rng.integers(len(VOCABULARY))
        sentence = []
        for _ in range(rng.integers(2, 12)):
            sentence.append(VOCABULARY[word])
            word = rng.choice(len(VOCABULARY), p=follow[word])
        sentences.append(sentence)
    lm = KatzBackoffLM(order=3).fit(sentences)
    r_start, r_word, r_score, r_priced = [0], [], [], []
    for _ in range(12):
        n = int(rng.integers(2, 7))
        r_word += rng.integers(1, len(WORDS), n).tolist()  # (0: the start symbol)
        r_score += np.round(rng.exponential(1.5, n), 1).tolist()  # (ties happen)
        r_priced += (rng.random(n) < 0.8).tolist()
        r_start.append(len(r_word))
    lines = [rng.integers(0, 12, rng.integers(10, 31)).tolist() for _ in range(4)]
    steps = [s for line in lines for s in line]
    i64, f64 = np.int64, np.float64
    arrays = (
        np.array(r_start, i64),
        np.array(r_word, i64),
        np.array(r_score, f64),
        np.array(r_priced, np.uint8),
        np.zeros(13, i64),  # no variants
        np.array([], f64),
        np.zeros(12),
        np.zeros(len(steps)),
        np.array(steps, i64),
        np.cumsum([0] + [len(line) for line in lines]).astype(i64),
    )
    return lm, -float(rng.uniform(0.5, 2.0)), arrays, int(rng.integers(1, 3))


@pytest.mark.parametrize("seed", range(60))
def test_a_narrow_beam_keeps_the_states_its_twin_keeps(seed):
    """Readings that cannot be among the states a step keeps are left unpriced;
    through a beam of 2-4 on long lines, where a state wrongly dropped or kept
    changes the line, the search still gives its twin's lines and scores."""
    lm, coef, arrays, m = markov_problem(seed)
    for beam in (2, 3, 4):
        chosen, scores, _ = run(_beam, lm, coef, arrays, m, beam)
        twin_chosen, twin_scores, _ = run(_beam_py, lm, coef, arrays, m, beam)
        np.testing.assert_array_equal(chosen, twin_chosen)
        np.testing.assert_array_equal(scores, twin_scores)

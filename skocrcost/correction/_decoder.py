"""Noisy-channel correction of running text: channel cost plus a word language model.

Each whitespace token of a line is split into leading punctuation, a core and
trailing punctuation, and the core into words at its inner punctuation other than
apostrophes (``Russell-street`` is two words, ``George's`` one), unless it is a
lexicon word with or without its hyphens (``dining-room``, ``mer-chandise``
broken at a line end), which is left as it is.  Each word ``o``
(looked up as it is when it is a lexicon word, lower-cased otherwise) is compared
with its ``n_candidates`` nearest lexicon words (and as many of the nearest words
seen in training).  A candidate ``w`` scores, in cost units (the channel model's
``Z``, so one unit is the surprisal of a uniform edit):

    cost(o -> w) + change + lm_weight * (-ln P_LM(w | the words read before it)) / Z

For a lexicon word (real-word errors, Mays, Damerau and Mercer 1991) the observed
word is right with prior probability ``alpha``: keeping it scores
``-ln(alpha) / Z + lm_weight * (-ln P_LM(o | ...)) / Z`` and ``change =
-ln(1 - alpha) / Z``.  For a word outside the lexicon keeping it scores the
rejection cost ``reject_cost`` alone (names, numbers and abbreviations stay as
they are unless a candidate is cheaper) and ``change = 0``: the rejection cost is
the surprisal of a correct out-of-lexicon word, so the language model's
unknown-word fallback (a singleton's probability, far below the real share of
such words) is not added to it.  Keeping it may also score as a spelling
variant of a candidate ``w`` (``variant_cost``): the variant channel's cost of
``o`` given ``w`` plus the language model's score of ``w``, so that against
correcting to ``w`` only the two channels compete.  The chosen word takes the case pattern of the
observed one; punctuation and spacing are kept.  The LM sees lower-cased words
(:func:`lm_sentence`), and a line starts with ``<s>``.  The decoder reads each
line as the cheapest path through these scores (:class:`NoisyChannelDecoder`).
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from itertools import accumulate, chain

import numpy as np

from .._kernels import search_lines
from ._layout import Batch, Layout
from ._priors import log_probability_pairs
from ._tokens import (
    correctable,
    join_sides,
    looked_up,
    match_case,
    mixed_case,
    split_core,
    split_token,
    split_whitespace,
    word_side,
)
from ._variants import modernisations

# Entries of a decoder's cache of language-model probabilities (each a few hundred
# bytes: a context, a word and the log-probabilities of its candidates).
LM_CACHE_SIZE = 300_000
# Entries of a decoder's cache of candidates (a word, its candidates and their costs).
CANDIDATE_CACHE_SIZE = 200_000
# Entries of a decoder's cache of the words of a token.
SLOTS_CACHE_SIZE = 200_000
# The seen words' candidates are chosen among this many times n_candidates nearest.
SEEN_POOL = 6
# A call looking up this many new words or more merges their candidates as arrays (a
# first pass over a text: hundreds at once); fewer, a word at a time in Python, where
# numpy's fixed cost per operation would be paid at every line of a call per line.
ARRAY_MERGE_WORDS = 32
# Candidates are searched within this cost (cost units: about three typical OCR errors),
# the one approximation of the search: the words beyond it, which the decoder hardly
# ever chooses, would take most of its time to find (see NoisyChannelDecoder, max_cost).
MAX_COST = 3.0
# A lexicon word's candidates lie within this lower cost: changing a right word costs
# its real-word prior on top of the channel, so the language model must outweigh both,
# which it hardly ever does for a word further away (NoisyChannelDecoder, real_word_max_cost).
REAL_WORD_MAX_COST = 2.0


def _likeliest(dist, ind, likeliest):
    """The rows of a k-nearest search (by cost, padded with inf and -1), each ranked by
    cost plus prior and cut to its ``n`` best, with ``likeliest`` = ``(priors, n)``
    (ties: in the row's order; the padding last); as they are with None."""
    if likeliest is None:
        return dist, ind
    priors, n = likeliest
    best = np.argsort(dist + priors[ind], axis=1, kind="stable")[:, :n]  # (padding: inf)
    return _taken(dist, best), _taken(ind, best)


def _hits(dist, ind):
    """The rows of a k-nearest search (padded with inf and -1) as lists of ``(cost,
    index)``, without the padding (it ends each row)."""
    return [
        list(zip(d, i[: len(i) - i.count(-1)]))
        for d, i in zip(dist.tolist(), ind.tolist(), strict=True)
    ]


def _ranked(rows, likeliest):
    """:func:`_likeliest` of rows of ``(cost, index)`` lists: a word at a time."""
    if likeliest is None:
        return rows
    priors, n = likeliest
    return [sorted(row, key=lambda hit: hit[0] + priors[hit[1]])[:n] for row in rows]


def _taken(rows, columns):
    """``rows[q, columns[q]]`` for every row ``q`` (numpy's take_along_axis costs more:
    the decoder calls this for a word or two at a time, once per line)."""
    return rows[np.arange(len(rows))[:, None], columns]


@functools.cache
def _positions_and_priced(n, known):
    """The ``index`` of ``n`` readings that are all taken (most words'), and the
    ``priced`` of any ``n`` readings: the language model prices every candidate,
    and keeping the word if it is ``known`` (a lexicon word).  Read-only arrays,
    shared rather than made for each word."""
    index, priced = np.arange(n, dtype=np.intp), np.ones(n, dtype=bool)
    priced[0] = known
    index.flags.writeable = priced.flags.writeable = False
    return index, priced


class _Readings:
    """The one-word readings of a looked-up word (see ``NoisyChannelDecoder._choose``).

    Made for every new word of a text and kept; the compiled search reads their
    words, scores and pricing, and only the readings it picks (a word in ten) are
    written out: their written forms (:attr:`words`) and the scores as an array
    (:attr:`scores`, for the Python search) are made on first use.
    """

    __slots__ = (
        "meant",
        "lower",
        "score_tuple",
        "priced",
        "index",
        "every",
        "spelled",
        "_words",
        "_scores",
    )

    def __init__(self, meant, lower, score_tuple, priced, index, every, spelled=False):
        self.meant = meant  # as read: the word itself first, then its candidates
        self.lower = lower  # as the language model sees them
        # context-free, in cost units: floats in a tuple, which the garbage collector
        # stops walking (one set per new word of a text is kept)
        self.score_tuple = score_tuple
        self.priced = priced  # bool array: whether the language model prices the reading
        self.index = index  # each reading's position in ``every``
        self.every = every  # the word and all its candidates, lower-cased (the LM cache's columns)
        self.spelled = spelled  # old spellings written back (``keep_spelling``)
        self._words = self._scores = None

    @property
    def words(self):
        """As output: ``meant``, but with ``spelled`` a candidate that only modernises
        the word's spelling is written as the word (the LM reads ``have``, the line
        keeps ``haue``)."""
        words = self._words
        if words is None:
            words, o = self.meant, self.meant[0]
            if self.spelled and len(words) > 1:
                modern = modernisations(o, words[1:])
                if any(modern):
                    words = (o, *(o if m else w for w, m in zip(words[1:], modern, strict=True)))
            self._words = words
        return words

    @property
    def scores(self):
        """``score_tuple`` as an array (the Python search reads it at each occurrence)."""
        scores = self._scores
        if scores is None:
            scores = self._scores = np.array(self.score_tuple, dtype=float)
            scores.flags.writeable = False  # (kept, and shared by every reader)
        return scores

    def kept_for_less(self, amount):
        """These readings with keeping the word ``amount`` cheaper (its recurrences)."""
        out = _Readings(
            self.meant,
            self.lower,
            (self.score_tuple[0] - amount, *self.score_tuple[1:]),
            self.priced,
            self.index,
            self.every,
            self.spelled,
        )
        out._words = self._words
        return out


class NoisyChannelDecoder:
    """Noisy-channel decoding of lines by a beam search over each line's readings.

    Every correctable word of a line has its readings: kept as it is, one of its
    candidates, or (``split_cost``) cut into lexicon words; two neighbouring
    tokens may also be read as one word (``join_cost``).  A reading's score is
    context-free (channel cost, prior, rejection) plus the language model's
    surprisal of its words after the words read before them, all in cost units,
    so a line's score is the sum along a path through these readings and the
    decoder looks for the cheapest path.  Hypotheses with the same last
    ``order - 1`` words have the same future and merge (the cheaper survives);
    after each word the ``beam_width`` cheapest are kept.  So a choice is also
    judged by the words after it; with a beam as wide as the number of
    hypotheses the search is exact, and a width of 1 is greedy left-to-right
    decoding.

    Beyond word-for-word correction, three options change how much is trusted or
    rewritten, all scored in the same cost units:

    * ``split_cost``: an out-of-lexicon word may be cut into two or more lexicon
      words (lost spaces, ``ofthe`` -> ``of the``, ``minerswhohearthesefew`` ->
      ``miners who hear these few``) at this cost per cut, plus each word's
      real-word prior and language-model score in context; the cuts of a word
      are searched as the line is (by LM state, ``beam_width`` kept at each
      position of the word).
    * ``join_cost``: two neighbouring tokens may become one word (a spurious space
      or a line-break hyphen, ``retu rned`` and ``pro- perty``) at this cost plus
      the joined word's score, against the two tokens' scores.  Across a space
      the joined form must be a lexicon word and one of the two tokens must not
      be; after a line-break hyphen it is corrected like any word.
    * ``recurrence_weight``: keeping an out-of-lexicon word gets cheaper by this
      much per natural log of the number of times the word occurs in the text
      being corrected (a spelling the text keeps using, such as ``haue``, is
      more likely right than a misreading).
    * ``variant_cost``: keeping an out-of-lexicon word ``o`` may also be read as
      "the writer meant the candidate ``w`` and spelled it ``o``" (``vnworthy``
      for ``unworthy``): ``variant_cost(o, w) + variant_offset`` plus the
      language model's score of ``w``, the cheapest over the candidates,
      competes with the rejection cost as the score of keeping ``o``.

    Parameters
    ----------
    neighbors : fitted EditDistanceNeighbors
        Over the lexicon; its distances are the channel costs.
    words : set or None
        The lexicon's words as a set, when the caller keeps one (a corrector
        does: building it takes milliseconds, a call on one line less); None
        builds it.
    normaliser : float
        ``Z`` of the channel model, to put ``-ln P_LM`` in cost units.
    language_model : fitted KatzBackoffLM or None
        None, or ``lm_weight = 0``: channel-only correction.
    word_priors : dict or None
        A real-word prior of its own for some lexicon words (looked up as
        :meth:`_key` does), in place of ``real_word_prior``: the share of a
        word's occurrences in the OCR of the training pairs that were right,
        smoothed (``OCRCorrector(real_word_smoothing=...)``): ``ad`` is ``all``
        in 51 of ICDAR 2017's 55, ``be`` is right in 2,744 of 2,774.
    reject_cost : float or callable
        The cost of keeping an out-of-lexicon word, or a function of that
        (lower-cased) word giving it.
    split_cost, join_cost : float or None
        Cost units; None never splits (joins).
    recurrence_weight : float
        Cost units per natural log of an out-of-lexicon word's count.
    variant_cost : callable or None
        ``variant_cost(o, words)``: for each lexicon word ``w`` of ``words``, the
        cost (cost units) of ``o`` being a correct variant spelling of ``w``
        (``-ln P(variant) - ln P(o | w, variant)``, over ``Z``); None: off.
    variant_offset : float
        Added to every variant cost (cost units); inf: off.
    mixed_case_prior : float in (0, 1) or None
        The probability that a word the OCR wrote in mixed case (a capital after
        a small letter, ``aU``, ``feU``, ``wTas``) is right as it is, lexicon
        word or not: keeping it costs ``-ln mixed_case_prior``, changing it
        ``-ln(1 - mixed_case_prior)`` plus the channel cost, in place of the
        real-word prior or the rejection cost (OCR misreads ``ll`` as ``U``;
        writers seldom mix cases).  None: such words are read like any other.
    beam_width : int
        Hypotheses kept after each word.
    seen_neighbors : fitted EditDistanceNeighbors or None
        Over the lexicon words seen in training: their ``n_candidates`` nearest
        are candidates too (the nearest of a large lexicon are mostly rare words).
    seen_priors : ndarray or None
        ``-ln P(w)`` in cost units of each word of ``seen_neighbors``: the seen
        candidates are then the ``n_candidates`` best by cost plus this among
        the ``SEEN_POOL * n_candidates`` nearest (``end`` misread for ``and``:
        ``and`` is not among the 5 nearest seen words, but is the likeliest of
        the 30).
    seen_position : ndarray of int or None
        For each word of ``neighbors``, its index among the words of
        ``seen_neighbors``, -1 if it is not one of them; given when the seen words
        are lexicon words indexed with the same costs.  Then a word with fewer
        than ``n_candidates`` lexicon words within the cost bound (which the
        lexicon search has found, all of them) takes its seen candidates from
        those, without a second search.
    max_cost : float
        Candidates are the nearest within this cost (by the indexes' costs;
        inf: the nearest however far).  The search prunes by it, so a word
        with no lexicon word near costs little to look up.  Words beyond
        ``MAX_COST`` are hardly ever chosen: on 2,351 held-out lines of
        newspapers and periodicals the shipped corrector's output differs
        from that with ``inf`` on 8 lines (WER 0.2049 against 0.2048), and
        the search takes a fifth of the time.
    real_word_max_cost : float
        The same for a word of the lexicon (its candidates are real-word
        errors), at most ``max_cost``.  Changing a right word costs its
        real-word prior as well as the channel, which the language model
        hardly ever outweighs for a word further away than
        ``REAL_WORD_MAX_COST``: the shipped corrector's output is the same
        on 19,141 lines of newspapers and periodicals and differs on 3 of
        38,213 monograph lines, and the correction runs 10-15% faster.
    metric : WeightedLevenshtein or None
        The channel costs when the indexes search by other (upper-bound) costs:
        the words found are rescored by it.  None: the indexes' own costs.
    surface : callable or None
        ``surface(tokens)``: a line's corrected tokens with their punctuation
        and case fixed (:meth:`SurfaceRules.apply`); None keeps them.
    join_hyphen : container of str
        What may end the first of two joined tokens (``""``: its word, ``"-"``:
        a line-break hyphen) for the joined word to be written with a hyphen
        where they meet (``de sired`` -> ``de-sired``; :attr:`SurfaceRules.join`);
        other joins are closed up (``desired``).
    recapitalise : callable or None
        ``recapitalise(token)``: the token with the capitals the OCR wrote after
        a small letter read as the training pairs show them
        (:meth:`SurfaceRules.recapitalise`: ``aU`` -> ``all``), before it is
        corrected; None reads tokens as they are.
    close_up : callable or None
        ``close_up(token, words)``: the token with a word the OCR kept broken by
        a line-break hyphen closed up (:meth:`SurfaceRules.close_up`:
        ``sym-pathy`` -> ``sympathy``), given the lexicon, before it is
        corrected; None leaves such words.
    keep_spelling : bool
        A candidate that only modernises the spelling of the word
        (:func:`~skocrcost.correction._variants.modernisations`: ``have``
        for ``haue``) is read as that word by the language model but written as
        printed: the old spelling stays.
    n_threads : int
        Threads the compiled search shares the lines among.

    Notes
    -----
    Without cuts and with a :class:`~skocrcost.lm.KatzBackoffLM` (or no language
    model), the lines are searched by the compiled kernel ``_kernels.search_lines``
    (with joins, those that hold no pair of tokens that may be joined), which
    scores the same readings with the same probabilities as :meth:`_search`; the
    two differ only in how exact ties are broken (the kernel: the lower reading,
    then the state offered first).
    """

    def __init__(
        self,
        neighbors,
        normaliser,
        language_model=None,
        *,
        words=None,
        lm_weight=1.0,
        real_word_prior=0.99,
        word_priors=None,
        reject_cost=1.0,
        n_candidates=10,
        split_cost=None,
        join_cost=None,
        recurrence_weight=0.0,
        variant_cost=None,
        variant_offset=math.inf,
        mixed_case_prior=None,
        beam_width=8,
        seen_neighbors=None,
        seen_priors=None,
        seen_position=None,
        max_cost=MAX_COST,
        real_word_max_cost=REAL_WORD_MAX_COST,
        metric=None,
        surface=None,
        join_hyphen=(),
        recapitalise=None,
        close_up=None,
        keep_spelling=False,
        written=None,
        letter_digits="",
        n_threads=1,
    ):
        self.neighbors = neighbors
        self.written = written or {}
        self.letter_digits = letter_digits
        self.keep_spelling = keep_spelling
        self.n_threads = n_threads
        self.surface = surface
        self.recapitalise = recapitalise
        self.close_up = close_up
        # The multi-character edits (OCR piece, truth piece) a word may have undone.
        rules = metric.costs.rules if metric is not None else ()
        self._rules = [(s, t) for s, t, _ in rules if s]
        self.join_hyphen = join_hyphen
        self.seen_neighbors = seen_neighbors
        self.seen_priors = seen_priors
        self.seen_position = seen_position
        self.max_cost = max_cost
        self.real_word_max_cost = real_word_max_cost
        self.metric = metric
        self.lexicon = neighbors.lexicon_ if hasattr(neighbors, "lexicon_") else None
        if words is None:
            words = set(self.lexicon) if self.lexicon is not None else set()
        self.words = words
        self.normaliser = normaliser
        self.language_model = language_model
        self.lm_weight = lm_weight
        self.real_word_prior = real_word_prior
        self.word_priors = word_priors or {}
        self.reject_cost = reject_cost
        self.n_candidates = n_candidates
        self.split_cost = split_cost
        self.join_cost = join_cost
        self.recurrence_weight = recurrence_weight
        self.variant_cost = variant_cost
        self.variant_offset = variant_offset
        self.mixed_case_prior = mixed_case_prior
        self.beam_width = beam_width
        # The hypotheses' LM state: the last order - 1 words (None: the whole context).
        order = getattr(language_model, "order", None) if self._uses_lm() else 1
        self.context_size = order - 1 if isinstance(order, int) else None
        # Looked-up word -> its candidates, and its variant costs: independent of the
        # other parameters, so a corrector hands the same caches to each of its decoders.
        self._cache = {}
        self._variant_cache = {}
        # Words whose candidates were found before (a corrector's most frequent words,
        # found at fit): kept when the cache starts afresh.
        self._known_candidates = {}
        self.candidate_cache_size = CANDIDATE_CACHE_SIZE  # entries; emptied when full
        self._wanted = set()  # the words whose candidates this call reads
        # (context, looked-up word, its number of readings) -> ln P_LM of its readings,
        # unweighted
        self._lm_cache = {}
        self.lm_cache_size = LM_CACHE_SIZE  # entries; emptied when full
        self._counts = Counter()
        # (looked-up word, mixed) -> its readings before recurrences (_context_free),
        # which depend on the parameters: a corrector shares it among decoders of the
        # same parameters; and the readings of this call, recurrences counted.
        self._readings_cache = {}
        self._call_readings = {}
        self._slots_cache = {}  # token -> its words (_slots)
        self._sides_cache = {}  # token -> its word_side (_word_side)
        self._cuts_cache = {}  # looked-up word -> its pieces if it may be cut (_cut_pieces)
        self._rewritten_cache = {}  # token -> as it is corrected (_rewritten)
        self._layout = Layout()  # the compiled search's tables (a corrector shares one)

    def candidates(self, observed):
        """Fill the cache of ``(words, costs)`` for every new (looked-up) word.

        The ``n_candidates`` nearest lexicon words within ``max_cost`` (a
        lexicon word: ``real_word_max_cost``), and as
        many of the words seen in training when ``seen_neighbors`` is given (the
        likeliest of the nearest with ``seen_priors``), by cost (ties: lexicon
        first).
        When ``metric`` has multi-character edits, which the indexes cannot
        read, the words are found by the indexes' costs and ranked by
        ``metric``, and the lexicon words that the word becomes with one such
        edit undone (:meth:`_undone`) join them: as many as the indexes found
        are kept.
        A call of ``ARRAY_MERGE_WORDS`` new words or more merges what the indexes
        found as arrays (:meth:`_found`), a call of fewer a word at a time
        (:meth:`_found_per_word`): the same candidates (the tests hold them equal).
        """
        observed = list(dict.fromkeys(observed))
        self._wanted.update(observed)
        new = [o for o in observed if o not in self._cache]
        if new and len(self._cache) + len(new) > self.candidate_cache_size:
            # Bounded memory on long texts: start afresh (new dicts, not cleared ones,
            # since other threads' decoders may be reading the shared ones).
            self._cache, self._variant_cache = dict(self._known_candidates), {}
            new = [o for o in observed if o not in self._cache]
        if not new:
            return
        if len(new) < ARRAY_MERGE_WORDS:
            found = self._found_per_word(new)
        elif self.metric is None:  # the indexes' costs are the channel's: one sort for all
            costs, ids = self._found(new)
            # By cost (ties: in the order found, the lexicon's first), the padding last.
            hit = ids >= 0
            order = np.lexsort((costs, ~hit))
            costs, ids = _taken(costs, order), _taken(ids, order)
            costs.flags.writeable = False  # (its rows are cached, shared by the decoders)
            words = self._candidate_words()[ids].tolist()
            for o, row, cost, n in zip(new, words, costs, hit.sum(axis=1).tolist(), strict=True):
                self._cache[o] = (tuple(row[:n]), cost[:n])
            return
        else:
            costs, ids = self._found(new)
            words = self._candidate_words()
            found = [
                {words[j]: c for j, c in zip(row, cost) if j >= 0}
                for row, cost in zip(ids.tolist(), costs.tolist(), strict=True)
            ]
        for o, near in zip(new, found, strict=True):
            keep = len(near)
            if self.metric is not None:
                for word in self._undone(o):  # ad -> all: d for ll, two edits apart without it
                    if word in self.words:
                        near.setdefault(word, math.inf)  # (the index's cost is not known)
                # one call for all of the word's candidates
                near = dict(zip(near, self.metric.pairwise([o], list(near))[0].tolist()))
            chosen = sorted(near, key=near.get)[:keep]  # stable: ties keep the lexicon's order
            self._cache[o] = (tuple(chosen), np.array([near[w] for w in chosen]))

    def _found_per_word(self, new):
        """:meth:`_found` a word at a time, as ``{word: cost}`` in the order found: the
        same searches, their rows merged in Python (a call of a few new words)."""
        found = [{} for _ in new]
        in_lexicon = None  # the lexicon search's hits, and how many it asked for
        for nn, priors in ((self.neighbors, None), (self.seen_neighbors, self.seen_priors)):
            if nn is None:
                continue
            k = min(self.n_candidates, len(nn.lexicon_))
            if priors is None:
                hits = _hits(*self._nearest(nn, new, k))
                in_lexicon = (hits, k)
            else:  # the likeliest of a larger pool of the nearest
                pool = min(SEEN_POOL * k, len(nn.lexicon_))
                hits = self._nearest_seen_per_word(nn, new, pool, in_lexicon, (priors, k))
            lexicon = nn.lexicon_
            for near, row in zip(found, hits, strict=True):
                for c, j in row:
                    near.setdefault(lexicon[j], c)
        return found

    def _nearest_seen_per_word(self, nn, new, k, in_lexicon, likeliest):
        """:meth:`_nearest_seen` a word at a time, as lists of ``(cost, index)``;
        ``in_lexicon``: the lexicon search's rows as such lists, and its k."""
        if in_lexicon is None or self.seen_position is None:
            return _hits(*self._nearest(nn, new, k, likeliest))
        lexical, asked = in_lexicon
        out = [None] * len(new)
        whole = [q for q, row in enumerate(lexical) if len(row) < asked]
        if whole:  # every lexicon word in the bound was found: the seen ones among them
            at = [j for q in whole for _, j in lexical[q]]
            where = iter(self.seen_position[at].tolist())
            seen = [[(c, p) for c, _ in lexical[q] if (p := next(where)) >= 0][:k] for q in whole]
            for q, row in zip(whole, _ranked(seen, likeliest), strict=True):
                out[q] = row
        searched = [q for q, row in enumerate(lexical) if len(row) >= asked]
        if searched:
            found = _hits(*self._nearest(nn, [new[q] for q in searched], k, likeliest))
            for q, row in zip(searched, found, strict=True):
                out[q] = row
        return out

    def _found(self, new):
        """The costs and ids (into :meth:`_candidate_words`) of the words the indexes
        find for each word of ``new``: a row each, its lexicon words, then its seen
        words that are not among them, padded with inf and -1 (anywhere in the row).
        For a call of many new words (a first pass over a text: hundreds at once),
        which merging a word at a time in Python takes about three times as long."""
        blocks, in_lexicon = [], None  # in_lexicon: the lexicon search, and its k
        if self.neighbors is not None:
            k = min(self.n_candidates, len(self.neighbors.lexicon_))
            in_lexicon = (self._nearest(self.neighbors, new, k), k)
            blocks.append(in_lexicon[0])
        nn = self.seen_neighbors
        if nn is not None:
            k = min(self.n_candidates, len(nn.lexicon_))
            if self.seen_priors is None:
                dist, ind = self._nearest(nn, new, k)
            else:  # the likeliest of a larger pool of the nearest
                pool = min(SEEN_POOL * k, len(nn.lexicon_))
                dist, ind = self._nearest_seen(nn, new, pool, in_lexicon, (self.seen_priors, k))
            ind = np.where(ind >= 0, self._seen_ids()[ind], -1)
            if blocks:  # a word both found keeps its first place (the lexicon's)
                again = (ind[:, :, None] == blocks[0][1][:, None, :]).any(axis=2)
                dist, ind = np.where(again, np.inf, dist), np.where(again, -1, ind)
            blocks.append((dist, ind))
        if not blocks:
            return np.empty((len(new), 0)), np.empty((len(new), 0), dtype=np.int64)
        if len(blocks) == 1:
            return blocks[0]
        return np.hstack([dist for dist, _ in blocks]), np.hstack([ind for _, ind in blocks])

    def _candidate_words(self):
        """The words that candidates' ids name: the lexicon's, then the seen words the
        lexicon lacks (:meth:`_seen_ids`).  Built once per decoder."""
        words = self.__dict__.get("_words_by_id")
        if words is None:
            lexicon = self.neighbors.lexicon_ if self.neighbors is not None else []
            ids = self._seen_ids() if self.seen_neighbors is not None else np.empty(0, int)
            words = np.empty(len(lexicon) + np.count_nonzero(ids >= len(lexicon)), dtype=object)
            words[: len(lexicon)] = lexicon
            if len(words) > len(lexicon):
                seen = self.seen_neighbors.lexicon_
                words[len(lexicon) :] = [seen[s] for s in np.flatnonzero(ids >= len(lexicon))]
            self._words_by_id = words
        return words

    def _seen_ids(self):
        """Each seen word's id among the candidates' words: its place in the lexicon
        (``seen_position``, or found by the word), or one of its own past the lexicon's
        for a seen word the lexicon lacks.  Built once per decoder."""
        ids = self.__dict__.get("_seen_word_ids")
        if ids is None:
            seen = self.seen_neighbors.lexicon_
            lexicon = self.neighbors.lexicon_ if self.neighbors is not None else []
            ids = np.full(len(seen), -1, dtype=np.int64)
            if self.seen_position is not None:  # the seen words are lexicon words
                at = np.flatnonzero(self.seen_position >= 0)
                ids[self.seen_position[at]] = at
            missing = np.flatnonzero(ids < 0)
            if missing.size:
                place = {w: j for j, w in enumerate(lexicon)}
                own = iter(range(len(lexicon), len(lexicon) + len(seen)))
                for s in missing.tolist():
                    j = place.get(seen[s])
                    ids[s] = next(own) if j is None else j
            self._seen_word_ids = ids
        return ids

    def _nearest(self, nn, new, k, likeliest=None):
        """The ``k`` nearest of ``nn`` to each of ``new`` within its cost bound, lexicon
        words searched within the lower one: ``(dist, ind)`` rows by cost (ties: by
        index), padded with inf and -1 where fewer are that near.  ``likeliest``:
        ``(priors, n)``, the ``n`` best of them by cost plus prior instead."""
        known = [o in self.words for o in new]
        bound = min(self.real_word_max_cost, self.max_cost)
        lexical = any(known)
        if lexical == all(known):  # one search (most calls on a line or two)
            cap = bound if lexical else self.max_cost
            return _likeliest(*nn._nearest_within(new, k, cap, self.n_threads), likeliest)
        dist, ind = np.empty((len(new), k)), np.empty((len(new), k), dtype=np.int64)
        for lexical, cap in ((True, bound), (False, self.max_cost)):
            at = [q for q, w in enumerate(known) if w is lexical]
            dist[at], ind[at] = nn._nearest_within([new[q] for q in at], k, cap, self.n_threads)
        return _likeliest(dist, ind, likeliest)

    def _nearest_seen(self, nn, new, k, in_lexicon, likeliest):
        """:meth:`_nearest` of the seen words ``nn``, searched only for the words whose
        lexicon search (``in_lexicon``: its ``(dist, ind)`` and how many it asked for;
        None: none) found as many words as it asked for.  The others have fewer
        lexicon words within their bound than that, all found: their seen words
        within it are the seen ones among those (``seen_position``), at the same
        costs and in the same order (by cost, then by lexicon order, which the seen
        words keep), which is what a search would return: half of a first pass's
        new words on noisy print."""
        if in_lexicon is None or self.seen_position is None:
            return self._nearest(nn, new, k, likeliest)
        (dist, ind), asked = in_lexicon
        whole = (ind[:, asked - 1] < 0).tolist()  # (the padding ends a row)
        among = [q for q, w in enumerate(whole) if w]
        searched = [q for q, w in enumerate(whole) if not w]
        if not searched:
            return self._seen_among(dist, ind, k, likeliest)
        if not among:
            return self._nearest(nn, new, k, likeliest)
        costs = np.full((len(new), min(likeliest[1], k)), np.inf)
        out = costs, np.full(costs.shape, -1, dtype=np.int64)
        for at, got in (
            (among, self._seen_among(dist[among], ind[among], k, likeliest)),
            (searched, self._nearest(nn, [new[q] for q in searched], k, likeliest)),
        ):
            for part, rows in zip(out, got, strict=True):
                part[at, : rows.shape[1]] = rows
        return out

    def _seen_among(self, dist, ind, k, likeliest):
        """:meth:`_nearest_seen` of words whose lexicon search (``dist``, ``ind``) found
        all the lexicon has within their bound: the first ``k`` seen words among those,
        ranked by ``likeliest``."""
        seen = np.where(ind >= 0, self.seen_position[ind], -1)
        if k < seen.shape[1]:  # (a pool smaller than the lexicon's k: its first k, in order)
            first = np.argsort(seen < 0, axis=1, kind="stable")[:, :k]
            dist, seen = _taken(dist, first), _taken(seen, first)
        # (the lexicon words not seen fall last, at inf)
        return _likeliest(np.where(seen >= 0, dist, np.inf), seen, likeliest)

    def _undone(self, o):
        """``o`` with one multi-character edit of ``metric`` undone (``ad`` -> ``all``
        for OCR ``d`` read from ``ll``), each way once."""
        out = []
        for source, target in self._rules:
            at = o.find(source)
            while at >= 0:
                out.append(o[:at] + target + o[at + len(source) :])
                at = o.find(source, at + 1)
        return list(dict.fromkeys(u for u in out if u != o))

    # -- the scores of readings ---------------------------------------------------------
    def _uses_lm(self):
        return self.language_model is not None and bool(self.lm_weight)

    def _log_probability_grid(self, words, contexts):
        """Unweighted ``ln P_LM(words[j] | contexts[i])``, shape (len(contexts), len(words))."""
        grid = getattr(self.language_model, "_log_probability_grid", None)
        if grid is not None:  # KatzBackoffLM: each context and word looked up once
            return grid(words, contexts)
        logp = log_probability_pairs(
            self.language_model, list(words) * len(contexts), [c for c in contexts for _ in words]
        )
        return np.reshape(logp, (len(contexts), len(words)))

    def _keep_known(self):
        """The context-free score of keeping a lexicon word: its real-word prior."""
        return -math.log(self.real_word_prior) / self.normaliser

    def _recurrence(self, o):
        """How much cheaper keeping the out-of-lexicon word ``o`` gets for its recurrences."""
        if self.recurrence_weight and self._counts[o] > 1:
            return self.recurrence_weight * math.log(self._counts[o])
        return 0.0

    def _rejection(self, o):
        """The score of keeping the out-of-lexicon word ``o``, before its recurrences."""
        reject = self.reject_cost
        return reject(o) if callable(reject) else reject

    def _keep_variant(self, o, words, lm):
        """The score of keeping ``o`` as a variant spelling of one of ``words`` (LM scores ``lm``).

        ``variant_cost(o, w) + variant_offset + lm`` at its lowest over the
        candidates: the writer meant ``w`` (the language model's score, as for
        correcting to ``w``) and spelled it ``o``; its recurrences lower it as
        they lower the rejection cost; inf when variants are off.  ``lm`` has a
        row per hypothesis (its context), and so has the result.
        """
        costs = self._variant_costs(o, words)
        if costs is None:
            return math.inf
        best = np.min(costs + lm, axis=-1)
        return best + self.variant_offset - self._recurrence(o)

    def _variant_costs(self, o, words):
        """``variant_cost(o, w)`` for each of ``words`` (``o``'s candidates, which never
        change: cached), or None when variants are off or there is no candidate."""
        if self.variant_cost is None or not words or self.variant_offset == math.inf:
            return None
        if o not in self._variant_cache:
            self._variant_cache[o] = np.asarray(self.variant_cost(o, words), dtype=float)
        return self._variant_cache[o]

    def _choose(self, o, mixed=False):
        """The one-word readings of the looked-up word ``o`` (:class:`_Readings`).

        Keeping ``o`` comes first, then its candidates (none at an infinite
        score).  The LM does not price keeping an out-of-lexicon word: the
        rejection cost is already the surprisal of a correct unknown word.
        ``mixed``: ``o`` was written in mixed case (``mixed_case_prior``).
        """
        readings = self._call_readings.get((o, mixed))
        if readings is not None:
            return readings
        readings = self._free_readings(o, mixed)
        recurrence = self._recurrence(o) if self._rewarded(readings, mixed) else 0.0
        if recurrence:  # keeping an unknown word: its recurrences in this call lower it
            readings = readings.kept_for_less(recurrence)
        self._call_readings[o, mixed] = readings
        return readings

    def _free_readings(self, o, mixed):
        """:meth:`_context_free`, kept across calls."""
        readings = self._readings_cache.get((o, mixed))
        if readings is None:
            readings = self._context_free(o, mixed)
            if o in self._wanted:  # a word reached by a join alone has no candidates yet
                if len(self._readings_cache) >= self.candidate_cache_size:
                    self._readings_cache = {}  # bounded memory on long texts
                self._readings_cache[o, mixed] = readings
        return readings

    @staticmethod
    def _rewarded(readings, mixed):
        """Whether keeping the word of ``readings`` gets cheaper as it recurs: an
        out-of-lexicon word not priced as mixed case."""
        return not (readings.priced[0] or mixed)

    def _context_free(self, o, mixed):
        """:meth:`_choose`'s readings before the recurrences of ``o`` in this call: they
        depend on the decoder's parameters only, so they are kept across calls."""
        z = self.normaliser
        if o not in self._wanted:  # a lexicon word reached by a join: no candidates fetched
            words, scores, known = [o], [self._keep_known()], True
        else:
            candidates, costs = self._cache[o]
            known = o in self.words
            if mixed:
                prior = self.mixed_case_prior
                keep, change = -math.log(prior) / z, -math.log1p(-prior) / z
            elif known:
                prior = self.word_priors.get(o, self.real_word_prior)
                keep = -math.log(prior) / z
                change = -math.log1p(-prior) / z if prior < 1 else math.inf  # 1: never change
            else:
                keep, change = self._rejection(o), 0.0
            words, scores = [o], [keep]
            for w, c in zip(candidates, costs.tolist()):  # (floats: numpy's scalars cost more)
                if w != o:
                    words.append(w)
                    scores.append(c + change)
        # (lists, not arrays, until the end: a few readings each, and a call per word)
        every = tuple(map(str.lower, words))
        if math.inf in scores:  # some readings are never taken
            index = [k for k, score in enumerate(scores) if score < math.inf]
            if not index or index[0]:  # keeping the word is always a reading (variants)
                index.insert(0, 0)
            meant, lower = tuple(words[k] for k in index), tuple(every[k] for k in index)
            scores = [scores[k] for k in index]
            priced = _positions_and_priced(len(index), known)[1]
            index = np.array(index, dtype=np.intp)
        else:  # (most words: every reading, in order)
            meant, lower = tuple(words), every
            index, priced = _positions_and_priced(len(words), known)
        return _Readings(meant, lower, tuple(scores), priced, index, every, self.keep_spelling)

    def _lm_scores(self, o, contexts, mixed=False):
        """``lm_weight * -ln P_LM`` (cost units) of the readings of ``o`` after each context.

        Shape (len(contexts), number of readings).  The unweighted log-probabilities
        of every candidate are cached per (context, ``o``): they do not depend on
        the decoder's parameters, so decoders sharing ``_lm_cache`` share them.
        """
        r = self._choose(o, mixed)
        out = np.zeros((len(contexts), len(r.score_tuple)))
        if not self._uses_lm():
            return out

        def rows(missing):
            return self._log_probability_grid(r.every, [c for (c, _, _) in missing])

        # Keyed by the number of readings too: a word first reached by a join has no
        # candidates fetched (one reading), and may have them in a later call.
        n = len(r.every)
        cache = self._cached_lm([(c, o, n) for c in contexts], rows)
        logp = np.array([cache[c, o, n] for c in contexts])[:, r.index[r.priced]]
        out[:, r.priced] = -self.lm_weight / self.normaliser * logp
        return out

    def _cached_lm(self, keys, compute):
        """``_lm_cache`` holding every key of ``keys``; ``compute(missing keys)`` gives
        their values in order.  A cache that would outgrow ``lm_cache_size`` is
        emptied first (bounded memory on long texts; it fills again)."""
        cache = self._lm_cache
        missing = [key for key in dict.fromkeys(keys) if key not in cache]
        if missing and len(cache) + len(missing) > self.lm_cache_size:
            cache = self._lm_cache = {}  # afresh, as the candidates' cache
            missing = list(dict.fromkeys(keys))
        if missing:
            cache.update(zip(missing, compute(missing), strict=True))
        return cache

    def _pieces(self, o):
        """For each start ``p`` of ``o``, the ends ``q`` of the lexicon words ``o[p:q]``.

        A cut of ``o`` is a path of such words from its start to its end (any number
        of them, at least two: ``o`` itself is no lexicon word when it is cut).
        """
        words, n = self.words, len(o)
        return [[q for q in range(p + 1, n + 1) if o[p:q] in words] for p in range(n)]

    def _read_cuts(self, beam, o, where, extra):
        """The hypotheses after reading ``o`` cut into lexicon words (:meth:`_pieces`).

        A search along ``o`` as :meth:`_search` goes along a line: the hypotheses at
        each position of ``o`` merge by LM state and are pruned to ``beam_width``, and
        each goes on with every lexicon word starting there, for that word's real-word
        prior and LM score plus ``split_cost`` for every word after the first.
        Returns ``[(score, state, back)]``.
        """
        pieces, n = self._cut_pieces(o), len(o)
        if pieces is None:
            return []
        keep, weight = self._keep_known(), -self.lm_weight / self.normaliser
        at = [{} for _ in range(n + 1)]  # {state: (score, (parts so far, beam's back))}
        for s, state, back in beam:
            self._offer(at[0], s + extra, state, ((), back))
        for p in range(n):
            if not at[p] or not pieces[p]:
                continue
            hyps = self._best(at[p])
            ends = pieces[p]
            steps = [(state, o[p:q]) for _, state, _ in hyps for q in ends]
            if self._uses_lm():
                # (context, word, None): a word of its own, not a looked-up word's readings
                cache = self._cached_lm(
                    [(c, w, None) for c, w in steps],
                    lambda missing: log_probability_pairs(
                        self.language_model, [w for _, w, _ in missing], [c for c, _, _ in missing]
                    ).tolist(),
                )
                lm = [weight * cache[c, w, None] for c, w in steps]
            else:
                lm = [0.0] * len(steps)
            cost = keep + (self.split_cost if p else 0.0)
            it = iter(lm)
            for s, state, (parts, back) in hyps:
                for q in ends:
                    word = o[p:q]
                    self._offer(
                        at[q], s + cost + next(it), self._shift(state, word), ((*parts, word), back)
                    )
        return [(s, state, (back, where, parts)) for state, (s, (parts, back)) in at[n].items()]

    def _shift(self, context, word):
        """The LM state after ``word``: the last ``context_size`` words."""
        m = self.context_size
        if m is None:
            return (*context, word)
        return (*context, word)[len(context) + 1 - m :] if m else ()

    # -- tokens --------------------------------------------------------------------------
    def _key(self, word):
        """The form looked up in the lexicon (:func:`looked_up`)."""
        return looked_up(word, self.words)

    def _hyphenated_word(self, core):
        """Whether ``core`` is one lexicon word with hyphens (``dining-room``, ``mer-chandise``).

        Such a core is left as it is: its pieces are not words to correct.
        """
        word = core.lower()
        return word in self.words or word.replace("-", "") in self.words

    def _word_pieces(self, core):
        """``core`` cut into its words and separators (:func:`split_core`), or whole
        (``[core]``) when its inner punctuation is OCR noise inside one word.

        Noise: one or two separators of one or two characters other than hyphens
        and a possessive's ``'s``, between letters, next to a piece that is no
        lexicon word and before a small letter (``ind.uence``, ``fo,,nd``,
        ``christm~as``: the channel reads the punctuation as the misread letters
        it stands for).  ``Mr.Smith``, ``A.D`` and ``realities.-Galletti`` stay cut.
        """
        pieces = split_core(core)
        noise = [
            j
            for j in range(1, len(pieces) - 1, 2)
            if pieces[j] not in ("-", "'s", "\u2019s", "'S", "\u2019S")
            and len(pieces[j]) <= 2
            and pieces[j - 1][-1:].isalpha()
            and pieces[j + 1][:1].islower()
        ]
        if not noise or len(noise) > 2:
            return pieces
        unknown = any(self._key(pieces[k]) not in self.words for j in noise for k in (j - 1, j + 1))
        return [core] if unknown else pieces

    def _word_side(self, token):
        """:func:`word_side` of ``token`` and, if it has one, whether its core is a
        lexicon word: kept (``join_cost`` asks it of every token of every line, and
        tokens repeat)."""
        side = self._sides_cache.get(token, False)
        if side is False:
            if len(self._sides_cache) >= SLOTS_CACHE_SIZE:
                self._sides_cache = {}  # bounded memory on long texts
            side = word_side(token)
            if side is not None:
                side = (*side, self._key(side[1]) in self.words)
            self._sides_cache[token] = side
        return side

    def _slots(self, token):
        """The words of a token: ``(piece index, looked-up word, correctable, mixed)``
        each; ``mixed``: written in mixed case and priced by ``mixed_case_prior``."""
        slots = self._slots_cache.get(token)
        if slots is None:
            if len(self._slots_cache) >= SLOTS_CACHE_SIZE:
                self._slots_cache = {}  # bounded memory on long texts
            slots = self._slots_cache[token] = self._token_slots(token)
        return slots

    def _token_slots(self, token):
        core = split_token(token)[1]
        if core.isalnum():  # most tokens: one word (as _cut_slots finds)
            return (self._slot(0, core, False),)
        return self._cut_slots(core)

    def _cut_slots(self, core):
        """:meth:`_token_slots` of a token's core: cut into words."""
        pieces = self._word_pieces(core)
        # A lexicon word with hyphens stays whole, and so does a number with letters in
        # it (1,000,OOOf: its pieces are digits misread, not words).
        whole = len(pieces) > 1 and (
            self._hyphenated_word(core) or not correctable(core.replace(",", "").replace(".", ""))
        )
        return tuple(self._slot(j, p, whole) for j, p in enumerate(pieces) if j % 2 == 0 and p)

    def _slot(self, j, piece, whole):
        return (j, self._key(piece), self._readable(piece) and not whole, self._mixed(piece))

    def _readable(self, piece):
        """Whether a piece of a token is read as a word: a correctable one, or a lone
        digit the training pairs mostly had as a word (``letter_digits``)."""
        return correctable(piece) or (len(piece) == 1 and piece in self.letter_digits)

    def _rewritten(self, token):
        """``token`` as it is corrected: ``recapitalise``, then ``close_up``; kept per
        token across calls (a text repeats its tokens)."""
        out = self._rewritten_cache.get(token)
        if out is None:
            out = token if self.recapitalise is None else self.recapitalise(token)
            if self.close_up is not None:
                out = self.close_up(out, self.words)
            if len(self._rewritten_cache) >= SLOTS_CACHE_SIZE:
                self._rewritten_cache = {}  # bounded memory on long texts
            self._rewritten_cache[token] = out
        return out

    def _mixed(self, word):
        """Whether ``word`` (as written) gets the ``mixed_case_prior``: a mixed-case
        word, unless the lexicon has it so."""
        return self.mixed_case_prior is not None and word not in self.words and mixed_case(word)

    def _words(self, token):
        """The correctable words of a token, as looked up."""
        return [o for _, o, fix, _ in self._slots(token) if fix]

    def _joins(self, tokens):
        """``[(i, joined)]`` for each pair of tokens ``i`` and ``i + 1`` of ``tokens`` that
        may be read as one word, ``joined`` its looked-up word.

        They must have the shape of one word (:func:`join_halves`); across a space
        the joined form must be a lexicon word and one of the two must not be
        (``a way`` stays two words: told first, from the tokens' kept sides, since
        most neighbours are two lexicon words).
        """
        sides = list(map(self._word_side, tokens))
        out = []
        for i, (side_a, side_b) in enumerate(zip(sides, sides[1:])):
            if not (side_a and side_b) or (not side_a[2] and side_a[3] and side_b[3]):
                continue
            halves = join_sides(side_a, side_b)
            if halves is None:
                continue
            core_a, core_b, trail_a = halves
            joined = self._key(core_a + core_b)
            if trail_a or joined in self.words:  # across a space: a lexicon word
                out.append((i, joined))
        return out

    def _joinable(self, a, b):
        """The looked-up joined word of tokens ``a`` and ``b`` if they may be joined (see
        :meth:`_joins`), else None."""
        joins = self._joins((a, b))
        return joins[0][1] if joins else None

    def word_counts(self, sequences):
        """How often each looked-up word occurs in the sequences of tokens (as corrected:
        :meth:`_rewritten`), in the order they first use the words: the counts that
        ``recurrence_weight`` reads (:meth:`correct_tokens`)."""
        tokens = Counter(chain.from_iterable(sequences))
        if self._rewrites():  # each distinct token rewritten once (text repeats its tokens)
            rewritten = Counter()
            for token, n in tokens.items():
                rewritten[self._rewritten(token)] += n
            tokens = rewritten
        return self._words_counted(tokens)

    def _rewrites(self):
        return self.recapitalise is not None or self.close_up is not None

    def _rewritten_all(self, sequences):
        if not self._rewrites():
            return sequences
        # (each distinct token once: a text repeats its tokens)
        rewritten = {t: self._rewritten(t) for t in set(chain.from_iterable(sequences))}
        return [list(map(rewritten.__getitem__, seq)) for seq in sequences]

    def _counted(self, sequences):
        return self._words_counted(Counter(chain.from_iterable(sequences)))

    def _looked_up(self, sequences):
        """The looked-up words of ``sequences``, in the order they first use them: the
        keys of :meth:`_counted`, not counted (a batch of a text has the text's counts)."""
        tokens = dict.fromkeys(chain.from_iterable(sequences))
        slots = self._slots
        return list(dict.fromkeys([w for t in tokens for _, w, fix, _ in slots(t) if fix]))

    def _words_counted(self, tokens):
        """The words of each distinct token of ``tokens`` (a Counter), counted."""
        counts = Counter()
        for token, n in tokens.items():
            for _, w, fix, _ in self._slots(token):  # (its _words, without a list)
                if fix:
                    counts[w] += n
        return counts

    def correct_tokens(self, sequences, counts=None):
        """Correct each sequence of whitespace tokens (the tokens of one line each).

        A token joined to the one before it (``join_cost``) comes back empty.
        ``counts``: the recurrences of the words in the whole text when the
        sequences are part of it (:meth:`word_counts` of the whole text); None
        counts them in ``sequences``.
        """
        sequences = self._rewritten_all(sequences)
        if counts is None:
            counts = self._counted(sequences)
            looked_up = list(counts)  # (in the order the text first uses them)
        else:
            looked_up = self._looked_up(sequences)
        self._counts = counts
        self._call_readings = {}  # keeping an unknown word depends on the counts
        self._wanted = set()
        if self.join_cost is not None:  # words after a line-break hyphen need candidates
            looked_up += [
                j
                for seq in sequences
                for a, b in zip(seq, seq[1:])
                if a.endswith("-") and (j := self._joinable(a, b)) is not None
            ]
        self.candidates(looked_up)
        if self._compiled():
            return self._search_lines(sequences)
        if self._kernel_reads():  # cuts: only the lines with a word that may be cut in Python
            cut = [self._may_cut(seq) for seq in sequences]
            uncut = [s for s, c in zip(sequences, cut) if not c]
            plain = iter(self._search_lines(uncut) if uncut else ())
            return [self._search(s)[0] if c else next(plain) for s, c in zip(sequences, cut)]
        return [self._search(seq)[0] for seq in sequences]

    def _may_cut(self, tokens):
        """Whether :meth:`_read` may cut a word of ``tokens`` (:meth:`_cut_pieces`)."""
        words = (o for t in tokens for _, o, fix, _ in self._slots(t) if fix)
        return any(self._cut_pieces(o) is not None for o in words)

    def _cut_pieces(self, o):
        """:meth:`_pieces` of the looked-up word ``o`` (of a token, not of a join) if
        :meth:`_read_cuts` reads it as two or more lexicon words, else None: an
        alphabetic word of no lexicon with a path of lexicon words along it.  Kept per
        word: the Python search asks it at every reading of ``o``, and the choice of
        search once per line."""
        pieces = self._cuts_cache.get(o, False)
        if pieces is False:
            pieces = None
            if o not in self.words and o.isalpha():
                pieces, reached = self._pieces(o), {0}
                for p, ends in enumerate(pieces):
                    if p in reached:
                        reached.update(ends)
                if len(o) not in reached:
                    pieces = None
            if len(self._cuts_cache) >= SLOTS_CACHE_SIZE:
                self._cuts_cache = {}  # bounded memory on long texts
            self._cuts_cache[o] = pieces
        return pieces

    def correct_lines(self, lines, review=None, counts=None):
        """Correct each line; punctuation, case and spacing are kept (joined tokens lose theirs).

        ``review(sequences, corrected)``, if given, takes the whitespace tokens of
        the lines and their corrections (:meth:`correct_tokens`) and returns the
        corrections to write (:class:`skocrcost.correction._confidence.ChangeConfidence`
        takes back the changes it does not trust).  ``counts``: as for
        :meth:`correct_tokens`, the words' recurrences in a text the lines are part of.
        """
        split = list(map(split_whitespace, lines))
        sequences = [p[::2] for p in split]
        corrected = self.correct_tokens(sequences, counts)
        if review is not None:
            corrected = review(sequences, corrected)
        for parts, tokens in zip(split, corrected, strict=True):
            for k, token in enumerate(tokens):
                if not token and parts[2 * k]:  # joined to the token before: drop the space
                    # (a line's first token can only be dropped: then the space after it)
                    parts[2 * k - 1 if k else min(1, len(parts) - 1)] = ""
            parts[::2] = tokens
        return ["".join(parts) for parts in split]

    # -- the compiled search ---------------------------------------------------------
    def _compiled(self):
        """Whether ``_kernels.search_lines`` can search every line: no cuts
        (:meth:`_kernel_reads`)."""
        return self.split_cost is None and self._kernel_reads()

    def _kernel_reads(self):
        """Whether ``_kernels.search_lines`` can read a line without cuts: one-word
        readings and joins of two tokens into one, with a Katz back-off language
        model or none."""
        if self.context_size is None:
            return False
        return not self._uses_lm() or hasattr(self.language_model, "_katz_tables")

    def _search_lines(self, sequences):
        """:meth:`_search` of every sequence, by the compiled kernel (:meth:`_compiled`).

        Each distinct token's words and each distinct word's readings are laid out
        once (:mod:`._layout`, kept across calls with ``_layout``): the kernel reads
        them by index.
        """
        layout = self._layout
        with layout.lock:
            batch = Batch(self, layout, self.candidate_cache_size, SLOTS_CACHE_SIZE)
            for seq in sequences:
                batch.add_line(seq)
            arrays, joins = batch.arrays()
        uses_lm = self._uses_lm()
        chosen, _, joined = search_lines(
            self.language_model._katz_tables() if uses_lm else None,
            -self.lm_weight / self.normaliser if uses_lm else 0.0,
            *arrays,
            start_word=batch.start,
            m=self.context_size,
            beam_width=self.beam_width,
            n_threads=self.n_threads,
            joins=joins,
            join_cost=self.join_cost or 0.0,
        )
        out, joined = [], joined.tolist()
        for line, (seq, picked) in enumerate(zip(sequences, batch.picked(chosen), strict=True)):
            for j in range(batch.join_start[line], batch.join_start[line + 1]):
                if joined[j] >= 0:  # the two tokens read as one word
                    i, _, _, at = batch.joins[j]
                    picked[i, None] = (batch.readings[at].words[joined[j]],)
            out.append(self._output(seq, picked))
        return out

    # -- the search ----------------------------------------------------------------------
    def _search(self, tokens):
        """The cheapest reading of a line of tokens: ``(corrected tokens, its score)``.

        ``ends[i]`` holds the hypotheses that have read the first ``i`` tokens, as
        ``{LM state: (score, back)}``; ``back`` links the readings chosen, newest first.
        """
        n = len(tokens)
        start = ("<s>",) * self.context_size if self.context_size is not None else ("<s>",)
        ends = [{} for _ in range(n + 1)]
        ends[0][start] = (0.0, None)
        joins = dict(self._joins(tokens)) if self.join_cost is not None else {}
        for i in range(n):
            beam = self._best(ends[i])
            self._merge(ends[i + 1], self._through_token(beam, i, tokens[i]))
            joined = joins.get(i)
            if joined is not None:  # tokens i and i + 1 read as one word
                self._merge(ends[i + 2], self._read(beam, joined, (i, None), self.join_cost))
        score, back = min(ends[n].values(), key=lambda h: h[0])
        return self._output(tokens, self._chosen(back)), score

    @staticmethod
    def _chosen(back):
        """``{where: reading}`` of the readings linked from ``back`` (newest first)."""
        chosen = {}
        while back is not None:
            back, where, reading = back
            chosen[where] = reading
        return chosen

    def _best(self, hyps):
        """The ``beam_width`` cheapest of ``{state: (score, back)}``, as a list of triples."""
        out = sorted(((s, state, back) for state, (s, back) in hyps.items()), key=lambda h: h[0])
        return out[: self.beam_width]

    @staticmethod
    def _merge(into, hyps):
        """Add hypotheses to ``{state: (score, back)}``, keeping the cheaper of a state."""
        for s, state, back in hyps:
            NoisyChannelDecoder._offer(into, s, state, back)

    @staticmethod
    def _offer(into, s, state, back):
        """Add one hypothesis to ``{state: (score, back)}`` unless its state has a cheaper one."""
        old = into.get(state)
        if old is None or s < old[0]:
            into[state] = (s, back)

    def _through_token(self, beam, i, token):
        """The hypotheses after reading every word of token ``i``, each step pruned."""
        for j, o, fix, mixed in self._slots(token):
            if fix:
                beam = self._read(beam, o, (i, j), 0.0, mixed)
            else:  # a number or a word left alone: context only
                step = {}
                self._merge(step, ((s, self._shift(c, o.lower()), b) for s, c, b in beam))
                beam = self._best(step)
        return beam

    def _read(self, beam, o, where, extra, mixed=False):
        """The hypotheses after reading the looked-up word ``o`` at ``where``.

        Each hypothesis goes on with each reading of ``o`` (one word, or a cut
        when ``split_cost`` allows it), the reading costing ``extra`` more;
        ``mixed``: ``o`` was written in mixed case.
        """
        r = self._choose(o, mixed)
        cut = self.split_cost is not None and where[1] is not None  # (a token's word)
        start = np.array([s for s, _, _ in beam]) + extra
        lm = self._lm_scores(o, [c for _, c, _ in beam], mixed)
        total = start[:, None] + r.scores + lm
        # An out-of-lexicon word: kept as a variant of a candidate?  (The prior of a word
        # in mixed case is already that of its being right as written.)
        if not (r.priced[0] or mixed):
            variant = self._keep_variant(o, r.meant[1:], lm[:, 1:])
            total[:, 0] = np.minimum(total[:, 0], start + variant)
        # Only a hypothesis's beam_width best readings can survive the pruning.
        width = self.beam_width
        if total.shape[1] > width:
            top = np.argpartition(total, width - 1, axis=1)[:, :width]
            total = np.take_along_axis(total, top, axis=1)
        else:
            top = np.broadcast_to(np.arange(total.shape[1]), total.shape)
        step = {}
        for (_, context, back), ks, values in zip(beam, top.tolist(), total.tolist(), strict=True):
            for k, v in zip(ks, values, strict=True):
                self._offer(step, v, self._shift(context, r.lower[k]), (back, where, (r.words[k],)))
        if cut:
            self._merge(step, self._read_cuts(beam, o, where, extra))
        return self._best(step)

    def _joined(self, word, core_a, core_b, hyphen):
        """The core written for the word read from the cores ``core_a`` and ``core_b``.

        In the OCR's case; with ``hyphen``, a hyphen where the two meet: after
        ``core_a``'s letters if the word starts with them, else before
        ``core_b``'s if it ends with them (the correction changed neither half's
        length there), else none.
        """
        observed = core_a + core_b
        if word == self._key(observed):
            core = observed
        else:
            core = match_case(word, observed)
        if not hyphen:
            return core
        lower, n_a, n_b = core.lower(), len(core_a), len(core_b)
        if lower[:n_a] == core_a.lower():
            at = n_a
        elif n_b < len(core) and lower[len(core) - n_b :] == core_b.lower():
            at = len(core) - n_b
        else:
            return core
        return core[:at] + "-" + core[at:] if 0 < at < len(core) else core

    def _output(self, tokens, chosen):
        """The corrected tokens from the readings ``chosen`` (``{(token, piece): words}``;
        ``(token, None)``: that token and the next read as one word)."""
        out = list(tokens)
        # (the others are kept as they are: a token is its punctuation and pieces joined)
        for i in sorted({i for i, _ in chosen}):
            token = tokens[i]
            lead, core, trail = split_token(token)
            if (i, None) in chosen:  # tokens i and i + 1 read as one word
                (word,) = chosen[(i, None)]
                hyphen = trail in self.join_hyphen
                _, core_b, trail = split_token(tokens[i + 1])
                core = self._joined(word, core, core_b, hyphen)
                out[i + 1] = ""
            elif i == 0 or (i - 1, None) not in chosen:  # not the second of a joined pair
                pieces = self._word_pieces(core)
                for j, o, _, _ in self._slots(token):
                    reading = chosen.get((i, j))
                    if reading is None or reading == (o,):
                        continue
                    piece = pieces[j]
                    starts = accumulate(map(len, reading), initial=0)
                    pieces[j] = " ".join(
                        match_case(self.written.get(p, p), piece[s:])
                        for p, s in zip(reading, starts, strict=False)
                    )
                core = "".join(pieces)
            else:
                continue
            out[i] = lead + core + trail
        return out if self.surface is None else self.surface(out)

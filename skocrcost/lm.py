"""KatzBackoffLM: a word n-gram language model with Katz back-off and an absolute discount.

Katz back-off (Katz 1987) with an absolute discount, as course notes on
discounting methods for n-gram models write it.  With ``c`` the training counts and
``d`` the discount, for a context ``v`` (the previous ``order - 1`` words):

* ``A(v)``: the words seen after ``v``; ``B(v)``: every other vocabulary word.
* ``q(w | v) = (c(v, w) - d) / c(v)`` for ``w`` in ``A(v)``;
* ``q(w | v) = alpha(v) q'(w | v') / sum_{x in B(v)} q'(x | v')`` for ``w`` in ``B(v)``,
  where ``alpha(v) = d |A(v)| / c(v)`` is the mass the discount freed and
  ``q'`` the model one order lower, on the context ``v'`` without its oldest word.
* Order 1 is the maximum-likelihood unigram ``c(w) / N``.

Storage: words get integer ids; the n-grams of each order are one sorted
``int64`` array of keys ``context_index * (W + 1) + word`` and one count array,
where ``context_index`` numbers the distinct contexts of that order (themselves
keyed the same way from the order below).  About 12 bytes per distinct n-gram
plus 40 per distinct context, so 10^7 tokens fit in a few hundred MB.
"""

from __future__ import annotations

import math
from array import array
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, DensityMixin
from sklearn.utils.validation import check_is_fitted

from ._kernels import KatzTables
from ._sklearn_compat import Interval
from ._validation import FittedAttributesMixin, StringInputMixin, validate_params

__all__ = ["KatzBackoffLM"]

MAX_ORDER = 10  # the largest n-gram order fit accepts
STOP = "</s>"
START = "<s>"
_ABSENT = -2  # no word here (a context shorter than order - 1): use a lower order
_UNKNOWN = -1  # a word outside the vocabulary
_START_MARK, _STOP_MARK = -3, -4  # placeholders while the vocabulary grows


@dataclass(frozen=True, eq=False)
class _Level:
    """The n-grams of one order: contexts, their statistics, and the counts."""

    context_keys: np.ndarray  # sorted int64: (index of the context minus its last word) * W1 + last
    total: np.ndarray  # c(v): tokens seen after each context
    discount: np.ndarray  # d, or 0 where B(v) is empty (nowhere to put the mass)
    alpha: np.ndarray  # d |A(v)| / c(v)
    rest: np.ndarray  # sum over B(v) of the lower-order probability
    keys: np.ndarray  # sorted int64: context index * W1 + word
    counts: np.ndarray


def _tokens(s, name):
    if isinstance(s, str):
        return s.split()
    if isinstance(s, (list, tuple, np.ndarray)):
        tokens = list(s)
        for j, t in enumerate(tokens):
            if not isinstance(t, str):
                raise TypeError(f"{name} must hold strings; {name}[{j}] is {type(t).__name__}")
            if not t or t != t.strip() or len(t.split()) != 1:
                raise ValueError(f"{name}[{j}] = {t!r} is not a token (empty or with whitespace)")
        return [str(t) for t in tokens]
    raise TypeError(f"{name} must be a string or a list of tokens, got {type(s).__name__}")


class KatzBackoffLM(FittedAttributesMixin, StringInputMixin, DensityMixin, BaseEstimator):
    """Word n-gram language model with Katz back-off and an absolute discount.

    Each sentence (a string, split on whitespace, or a list of tokens) is
    preceded by ``order - 1`` start symbols ``"<s>"``, which are context only
    and never predicted, and ends with the token ``"</s>"`` (the STOP symbol of such notes),
    which is predicted like a word.  The vocabulary is the training words plus
    ``"</s>"``; over it the probabilities of every context sum to 1.

    For a context ``v`` and a word ``w`` seen after it: ``(c(v, w) - d) / c(v)``;
    for a word never seen after ``v``: ``alpha(v) q(w | v') / sum_{x in B(v)} q(x | v')``,
    with ``alpha(v) = d |A(v)| / c(v)``, ``B(v)`` the words never seen after ``v``
    and ``q(. | v')`` the model one order lower (order 1: ``c(w) / N``, ``N``
    counting every word and ``"</s>"``).  A context never seen backs off whole
    to the order below.

    **A context followed by every vocabulary word** (``B(v)`` empty) has nowhere
    to put the discounted mass, so it is not discounted: ``c(v, w) / c(v)``.

    **Unknown words** (outside the vocabulary) get what a word seen once in
    training and never after this context would get: ``1 / N`` at order 1, then
    ``alpha(v) p / sum_{x in B(v)} q(x | v')`` at each order whose context was
    seen.  This is a fallback outside the distribution (the vocabulary's
    probabilities already sum to 1), for ranking candidates in a corrector;
    :meth:`score` leaves unknown words out, as SRILM's perplexity does.

    Parameters
    ----------
    order : int, default=2
        1 (unigram), 2 (bigram), 3 (trigram), or more, up to 10.
    discount : float in [0, 1), default=0.5
        The absolute discount ``d``; 0 gives maximum likelihood (unseen
        n-grams get probability 0).

    Attributes
    ----------
    vocabulary_ : dict of str -> int
        The training words and ``"</s>"``, with their ids.
    n_tokens_ : int
        ``N``, the predicted tokens of the training data (words and ``"</s>"``).
    n_ngrams_ : list of int
        Distinct n-grams of each order 1..``order``.

    Examples
    --------
    >>> from skocrcost import KatzBackoffLM
    >>> lm = KatzBackoffLM(order=2, discount=0.5).fit(["the book", "his house"])
    >>> round(lm.probability("book", ["his"]), 12)
    0.1
    >>> round(lm.probability("house", ["his"]), 12)
    0.5
    >>> round(sum(lm.probability(w, ["his"]) for w in lm.vocabulary_), 12)
    1.0
    """

    _fitted_attributes = ("vocabulary_", "n_tokens_", "n_ngrams_")

    _parameter_constraints = {
        # Each order adds a pass over the tokens and a column per token: beyond 10 the
        # model costs time and memory and, on any corpus, sees almost nothing new.
        "order": [Interval(Integral, 1, MAX_ORDER, closed="both")],
        "discount": [Interval(Real, 0, 1, closed="left")],
    }

    STOP = STOP
    START = START

    def __init__(self, order=2, discount=0.5):
        self.order = order
        self.discount = discount

    # -- fitting ----------------------------------------------------------------------
    def fit(self, X, y=None):
        """Count the n-grams of every order up to ``order`` and compute the back-off weights.

        Parameters
        ----------
        X : sequence of str or of lists of str
            Training sentences.
        y : ignored

        Returns
        -------
        self
        """
        validate_params(self)
        d, n = float(self.discount), int(self.order)
        vocabulary = {}
        seq, pos = self._encode(X, vocabulary, n, grow=True)
        levels = _count(seq, pos, n, len(vocabulary), d)
        # Set every fitted attribute at the end: a failed refit keeps the previous state.
        return self._set_fitted(vocabulary, levels, len(pos))

    def _set_fitted(self, vocabulary, levels, n_tokens):
        """Set the fitted attributes from the n-gram levels (by fit, or read from a file)."""
        self.vocabulary_ = vocabulary
        self.n_tokens_ = n_tokens
        self.n_ngrams_ = [len(level.keys) for level in levels]
        self._levels = levels
        self._fitted_order = len(levels)
        return self

    @staticmethod
    def _encode(X, vocabulary, n, grow=False):
        """Ids of every sentence, each padded with n - 1 start symbols and closed by STOP.

        One pass, sentence by sentence, so that no list of all the tokens is ever
        built.  With ``grow``, new words join ``vocabulary`` (and STOP joins last).
        Returns the padded id sequence and the positions of the predicted tokens.
        """
        if isinstance(X, (str, bytes)):
            raise TypeError(f"X must be a sequence of sentences, not a single {type(X).__name__}")
        if isinstance(X, np.ndarray) and X.ndim != 1:
            raise ValueError(f"X must be one-dimensional, got an array of shape {X.shape}")
        try:
            X = iter(X)
        except TypeError:
            raise TypeError(f"X must be a sequence of sentences, got {type(X).__name__}") from None
        seq = array("q")
        pad = [_START_MARK] * (n - 1)
        get = vocabulary.get
        n_sentences = 0
        for i, sentence in enumerate(X):
            tokens = _tokens(sentence, f"X[{i}]")
            if grow:
                for t in tokens:
                    if t not in vocabulary:
                        if t in (STOP, START):
                            raise ValueError(f"X[{i}] contains the reserved token {t!r}")
                        vocabulary[t] = len(vocabulary)
            seq.extend(pad)
            seq.extend([get(t, _UNKNOWN) for t in tokens])
            seq.append(_STOP_MARK)
            n_sentences += 1
        if not n_sentences:
            raise ValueError("X is empty; at least one sentence is needed")
        if grow:
            vocabulary[STOP] = len(vocabulary)
        seq = np.frombuffer(seq, dtype=np.int64).copy()
        seq[seq == _STOP_MARK] = vocabulary[STOP]
        starts = seq == _START_MARK
        seq[starts] = len(vocabulary)
        return seq, np.flatnonzero(~starts)

    # -- probabilities ------------------------------------------------------------------
    def _word_id(self, word, name="word"):
        if not isinstance(word, str):
            raise TypeError(f"{name} must be a string, got {type(word).__name__}: {word!r}")
        if word == START:
            return None
        return self.vocabulary_.get(word, _UNKNOWN)

    def _history(self, context):
        """The last order - 1 context words as ids, padded on the left with 'absent'."""
        if isinstance(context, str):
            context = context.split()
        elif isinstance(context, (bytes, set, frozenset, dict)) or not hasattr(context, "__iter__"):
            raise TypeError(  # a set has no order, bytes would be read as integers
                f"context must be a string or a sequence of words, got {type(context).__name__}"
            )
        context = _tokens(list(context) if not isinstance(context, list) else context, "context")
        return np.array(self._context_ids(context), dtype=np.int64)

    def _context_ids(self, context):
        """The last order - 1 words of a checked context as ids, padded on the left
        with 'absent' (``<s>`` is the id after the vocabulary's)."""
        m = self._fitted_order - 1
        context = context[len(context) - m :] if m else ()
        start, vocabulary = len(self.vocabulary_), self.vocabulary_
        ids = [start if t == START else vocabulary.get(t, _UNKNOWN) for t in context]
        return [_ABSENT] * (m - len(ids)) + ids

    def log_probability(self, word, context=()):
        """Natural log of ``P(word | context)``.

        Parameters
        ----------
        word : str
            A vocabulary word, ``"</s>"``, or an unknown word (the fallback of
            the class docstring); ``"<s>"`` is never predicted (``-inf``).
        context : sequence of str or str, default=()
            The previous words, oldest first (a string is split on whitespace);
            only the last ``order - 1`` are used.  ``"<s>"`` marks the start of a
            sentence; a shorter context uses the lower orders only, so ``()`` is
            the unigram.
        """
        return float(self.log_probabilities([word], context)[0])

    def probability(self, word, context=()):
        """``P(word | context)``; see :meth:`log_probability`."""
        return math.exp(self.log_probability(word, context))

    def log_probabilities(self, words, context=()):
        """Natural logs of ``P(w | context)`` for each of ``words`` (one context)."""
        check_is_fitted(self)
        if isinstance(words, (str, bytes)) or not hasattr(words, "__iter__"):
            raise TypeError(f"words must be a sequence of strings, got {type(words).__name__}")
        ids = [self._word_id(w, f"words[{i}]") for i, w in enumerate(words)]
        never = np.array([i is None for i in ids], dtype=bool)
        w = np.array([_UNKNOWN if i is None else i for i in ids], dtype=np.int64)
        # One context: a grid of one row, the context looked up once.
        history = self._history(context)[None, :]
        out = _log_prob(self._levels, self.vocabulary_, history, w, grid=True)[0]
        out[never] = -np.inf
        return out

    def _log_probability_pairs(self, words, contexts):
        """``ln P(words[i] | contexts[i])`` for each ``i``, in one vectorised look-up.

        For a decoder's many hypotheses, where :meth:`log_probabilities` takes one
        context: the words are str and the contexts tuples of str, unchecked.
        ``"<s>"`` is never predicted.
        """
        return self._log_probability_grid(words, contexts, pairs=True)

    def _log_probability_grid(self, words, contexts, pairs=False):
        """``ln P(words[j] | contexts[i])`` for every ``i`` and ``j``, shape (contexts, words).

        A decoder asks for the same candidates after each of its hypotheses: each
        word and each context is looked up once.  With ``pairs``, word ``i`` after
        context ``i`` only (:meth:`_log_probability_pairs`), read by the compiled
        tables (the same probabilities, without numpy's fixed cost per call that
        a few pairs at a time would pay).  Unchecked: its callers, the corrector's
        decoder and review, hold a fitted model and call it for every line.
        """
        vocabulary = self.vocabulary_
        ids = np.array([vocabulary.get(w, _UNKNOWN) for w in words], dtype=np.int64)
        history = np.array([self._context_ids(c) for c in contexts], dtype=np.int64)
        history = history.reshape(len(contexts), self._fitted_order - 1)
        if pairs:
            with np.errstate(divide="ignore"):
                out = np.log(self._katz_tables().probabilities(ids, history))
        else:
            out = _log_prob(self._levels, vocabulary, history, ids, grid=True)
        if START in words:  # (looked for in C: no mask to build when it is not there)
            out[..., [w == START for w in words]] = -np.inf
        return out

    def _katz_tables(self):
        """The fitted arrays as the compiled readers take them (``_kernels.KatzTables``),
        built once per fit; not pickled (:meth:`__getstate__`)."""
        held = self.__dict__.get("_tables")
        if held is None or held[0] is not self._levels:
            held = self._tables = (
                self._levels,
                KatzTables(self._level_arrays(), len(self.vocabulary_)),
            )
        return held[1]

    def __getstate__(self):
        state = super().__getstate__()
        state.pop("_tables", None)  # compiled, derived from the levels: rebuilt on use
        return state

    def score_samples(self, X):
        """Log-probability (natural log) of each sentence: every in-vocabulary token and STOP.

        Unknown words are left out of the sum (they still shorten the context).
        """
        check_is_fitted(self)
        logp, pos, stops = self._token_log_probs(X)
        sentence = np.searchsorted(stops, pos)  # a token belongs to the first STOP at or after it
        return np.bincount(sentence, weights=logp, minlength=len(stops))

    def _token_log_probs(self, X):
        """Log-probabilities of the known tokens of X, their positions, and those of STOP."""
        n = self._fitted_order
        seq, pos = self._encode(X, self.vocabulary_, n)
        stops = pos[seq[pos] == self.vocabulary_[STOP]]
        history = _histories(seq, pos, n - 1)
        w = seq[pos]
        known = w >= 0
        logp = _log_prob(self._levels, self.vocabulary_, history[known], w[known])
        return logp, pos[known], stops

    def score(self, X, y=None):
        """Mean log-likelihood per token of held-out sentences (natural log, higher is better).

        The mean is over the words and STOP of every sentence, unknown words left
        out; ``GridSearchCV(KatzBackoffLM(), {"discount": [...]}).fit(sentences)``
        tunes the discount by it.
        """
        check_is_fitted(self)
        logp, _, _ = self._token_log_probs(X)
        if not len(logp):
            raise ValueError("X has no token in the vocabulary to score")
        return float(np.mean(logp))

    def perplexity(self, X):
        """``exp(-score(X))``: the per-token perplexity of held-out sentences."""
        return math.exp(-self.score(X))

    def _level_arrays(self):
        """Each order's arrays ``(context_keys, total, discount, alpha, rest, keys,
        counts)``, for a compiled reader of the same probabilities (``_kernels.KatzTables``)."""
        check_is_fitted(self)
        return [
            (lv.context_keys, lv.total, lv.discount, lv.alpha, lv.rest, lv.keys, lv.counts)
            for lv in self._levels
        ]

    def __sklearn_is_fitted__(self):
        return hasattr(self, "_levels")


def _histories(seq, pos, m):
    """The m ids before each position, oldest first, as an array of shape (len(pos), m)."""
    out = np.empty((len(pos), m), dtype=np.int64)
    for j in range(m):
        out[:, j] = seq[pos - m + j]
    return out


def _find(sorted_keys, key):
    """Positions of ``key`` in ``sorted_keys`` and whether each is there."""
    if not len(sorted_keys):
        return np.zeros(np.shape(key), dtype=np.int64), np.zeros(np.shape(key), dtype=bool)
    pos = np.minimum(np.searchsorted(sorted_keys, key), len(sorted_keys) - 1)
    return pos, sorted_keys[pos] == key


def _context_index(levels, history, k, w1):
    """Index among the contexts of order k of the last k - 1 words of each history."""
    m = history.shape[1]
    idx = np.zeros(len(history), dtype=np.int64)
    found = np.ones(len(history), dtype=bool)
    for j, col in enumerate(range(m - (k - 1), m)):
        token = history[:, col]
        found &= token >= 0
        pos, hit = _find(levels[j + 1].context_keys, idx * w1 + np.maximum(token, 0))
        found &= hit
        idx = np.where(found, pos, 0)
    return idx, found


def _log_prob(levels, vocabulary, history, w, grid=False):
    """Vectorised ``ln P(w | history)``; ``history`` holds ids, -1 unknown, -2 absent.

    Pairs (``w[i]`` after ``history[i]``), or with ``grid`` every word after every
    history, shape (len(history), len(w)): each context is then looked up once.
    """
    w1 = len(vocabulary) + 1
    unigram = levels[0]
    n_tokens = unigram.total[0]
    unknown = w < 0
    wid = np.maximum(w, 0)
    p = np.where(unknown, 1.0, unigram.counts[wid]) / n_tokens  # ids are 0..W-1: dense unigram
    if grid:  # contexts down, words across
        unknown, wid, p = unknown[None, :], wid[None, :], p[None, :]
    for k in range(2, len(levels) + 1):
        level = levels[k - 1]
        ctx, found = _context_index(levels, history, k, w1)
        if grid:
            ctx, found = ctx[:, None], found[:, None]
        pos, seen = _find(level.keys, ctx * w1 + wid)
        seen &= found & ~unknown
        total = level.total[ctx]
        p_seen = (level.counts[pos] - level.discount[ctx]) / total
        alpha, rest = level.alpha[ctx], level.rest[ctx]
        with np.errstate(divide="ignore", invalid="ignore"):
            p_unseen = np.where(alpha > 0, alpha * p / rest, 0.0)
        p = np.where(found, np.where(seen, p_seen, p_unseen), p)
    if grid:
        p = np.broadcast_to(p, (len(history), len(w)))
    with np.errstate(divide="ignore"):
        return np.log(p)


def _count(seq, pos, n, n_words, d):
    """Build the levels 1..n from the padded id sequence and the predicted positions."""
    w1 = n_words + 1
    w = seq[pos]
    unigram = np.bincount(w, minlength=n_words).astype(np.int64)
    levels = [
        _Level(
            context_keys=np.zeros(1, dtype=np.int64),
            total=np.array([len(pos)], dtype=np.int64),
            discount=np.zeros(1),
            alpha=np.zeros(1),
            rest=np.ones(1),
            keys=np.arange(n_words, dtype=np.int64),
            counts=unigram,
        )
    ]
    lower_ctx = np.zeros(len(pos), dtype=np.int64)  # every token's context at the order below
    for k in range(2, n + 1):
        # A token's context of order k is keyed by the index of its first k - 2 words among
        # the contexts of order k - 1 (found by the query-time chain of look-ups) and its
        # newest word.
        history = _histories(seq, pos, k - 1)
        prefix, found = (
            _context_index(levels, history[:, :-1], k - 1, w1)
            if k > 2
            else (
                np.zeros(len(pos), dtype=np.int64),
                np.ones(len(pos), dtype=bool),
            )
        )
        assert found.all()  # every prefix of a context is a context of the order below
        context_keys, ctx = np.unique(prefix * w1 + history[:, -1], return_inverse=True)
        ctx = ctx.ravel()
        keys, first, counts = np.unique(ctx * w1 + w, return_index=True, return_counts=True)
        n_ctx = len(context_keys)
        key_ctx = keys // w1
        total = np.bincount(ctx, minlength=n_ctx)
        seen_words = np.bincount(key_ctx, minlength=n_ctx)
        # Lower-order mass of A(v): every n-gram (v, w) has its (v', w) one order down.
        below = levels[-1]
        lower = lower_ctx[first]
        lower_counts = (
            below.counts[_find(below.keys, lower * w1 + w[first])[0]]
            if k > 2
            else (below.counts[w[first]])
        )
        ctx_lower = np.zeros(n_ctx, dtype=np.int64)
        ctx_lower[key_ctx] = lower
        mass_seen = np.bincount(key_ctx, weights=lower_counts, minlength=n_ctx)
        disc_lower = below.discount[ctx_lower]
        rest = (below.total[ctx_lower] - mass_seen + disc_lower * seen_words) / below.total[
            ctx_lower
        ]
        discount = np.where(seen_words < n_words, d, 0.0)
        levels.append(
            _Level(
                context_keys=context_keys,
                total=total,
                discount=discount,
                alpha=discount * seen_words / total,
                rest=rest,
                keys=keys,
                counts=counts,
            )
        )
        lower_ctx = ctx
    return levels

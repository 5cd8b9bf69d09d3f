"""Pure-Python twin of ``_lexicon_index``: the same functions, class and results.

Written for clarity, not speed.  It walks the same trie in the same order with
the same pruning, reading the costs of a :class:`skocrcost._kernels._cost_kernel_py.CostKernel`
twin, so the tests can hold the compiled search equal to it (and to brute
force) bit for bit.  It computes whole columns: the compiled search's bands
skip only cells above the bound, which changes no distance within it.
"""

from collections import Counter

import numpy as np

from ._constants import N_KERNEL_ARGS

SLACK = 1.0 - 1e-10
MASK_BITS = 64


def build_trie(words):
    """Twin of ``_lexicon_index.build_trie``."""
    order = sorted(range(len(words)), key=words.__getitem__)
    cp, depth, parent, counts = [0], [0], [0], [0]
    path = [0]
    prev = ""
    for k in order:
        s = words[k]
        d = 0
        while d < min(len(s), len(prev)) and s[d] == prev[d]:
            d += 1
        del path[d + 1 :]
        for pos in range(d, len(s)):
            cp.append(ord(s[pos]))
            depth.append(pos + 1)
            parent.append(path[pos])
            counts.append(0)
            path.append(len(cp) - 1)
        counts[path[len(s)]] += 1
        prev = s
    total = len(cp)
    size = [1] * total
    lo = [depth[v] if counts[v] else np.iinfo(np.int32).max for v in range(total)]
    hi = [depth[v] if counts[v] else -1 for v in range(total)]
    for v in range(total - 1, 0, -1):
        p = parent[v]
        size[p] += size[v]
        lo[p] = min(lo[p], lo[v])
        hi[p] = max(hi[p], hi[v])
    end_ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    return (
        np.array(cp, dtype=np.uint32),
        np.array(depth, dtype=np.int32),
        np.array(size, dtype=np.int64),
        np.array(lo, dtype=np.int32),
        np.array(hi, dtype=np.int32),
        end_ptr,
        np.array(order, dtype=np.int64),
    )


def char_masks(cp, size):
    """Twin of ``_lexicon_index.char_masks``."""
    counts = Counter(int(c) for c in cp[1:])
    chars = sorted(counts)
    ranked = sorted(chars, key=lambda c: (-counts[c], c))
    bit = {c: 1 << min(r, MASK_BITS - 1) for r, c in enumerate(ranked)}
    masks = []
    for v in range(len(cp)):
        m = 0
        for u in range(v + 1, v + int(size[v])):
            m |= bit[int(cp[u])]
        masks.append(m)
    return (
        np.array(masks, dtype=np.uint64),
        np.array(chars, dtype=np.uint32),
        np.array([bit[c] for c in chars], dtype=np.uint64),
    )


HALF = 0.5 * (1.0 + 1e-9)
LOOSE = 1.0 + 1e-9
SPLIT_MAX_K = 64


class _Trie:
    """One trie and what its bounds read: the twin of the compiled ``Trie`` records."""

    def __init__(self, kernel, words):
        self.trie = build_trie(list(words))
        cp = self.trie[0]
        self.nid = [kernel._ids.get(int(c), 0) for c in cp]
        ins = [kernel._ins[b] for b in self.nid[1:]]
        self.min_ins = min(ins) if ins else 0.0
        self.char_masks, chars, bits = char_masks(cp, self.trie[2])
        self.bit = dict(zip(chars.tolist(), bits.tolist(), strict=True))
        self.lex_ids = sorted(set(self.nid[1:]))


class LexiconIndex:
    """Twin of ``_lexicon_index.LexiconIndex`` (see there for the parameters)."""

    def __init__(self, kernel, words, split=True):
        if len(kernel._kernel_args()) != N_KERNEL_ARGS:
            raise TypeError("the trie index reads single-character cost tables only")
        if not words:
            raise ValueError("the lexicon is empty; at least one word is needed")
        self.kernel = kernel
        self.n_words = len(words)
        self._words = list(words)
        self._forward = _Trie(kernel, words)
        self.split = split
        self._backward = _Trie(kernel, [w[::-1] for w in words]) if self.split else None
        self.trie = self._forward.trie
        self.char_masks = self._forward.char_masks
        self.max_depth = int(self.trie[1].max())
        self.visited = 0  # nodes whose column was computed by the last search

    @property
    def n_nodes(self):
        return len(self._forward.trie[0])

    def _column(self, tr, v, query, aid, dl, sufdel, columns, chars):
        """Compute node v's column from its parent's; return the subtree's lower bound."""
        cp, depth, size, lo, hi, end_ptr, ends = tr.trie
        k = self.kernel
        n = len(query)
        j = int(depth[v])
        par, col = columns[j - 1], columns[j]
        b, c = tr.nid[v], int(cp[v])
        ib = k._ins[b]
        col[0] = par[0] + ib
        for i in range(n):
            x = par[i] + (0.0 if ord(query[i]) == c else k._sub(aid[i], b))
            col[i + 1] = min(x, col[i] + dl[i], par[i + 1] + ib)
        self.visited += 1
        # The character bound: the OCR characters after row i that no word below has.
        qbit, cm = chars
        mask = int(tr.char_masks[v])
        miss = [0.0] * (n + 1)
        for i in range(n - 1, -1, -1):
            miss[i] = miss[i + 1] + (0.0 if mask & qbit[i] else cm[i])
        lb = float("inf")
        for i in range(n + 1):
            r = n - i
            if r > hi[v] - j:
                rem = (r - (hi[v] - j)) * sufdel[i]
            else:
                rem = (lo[v] - j - r) * tr.min_ins if r < lo[v] - j else 0.0
            lb = min(lb, (col[i] + max(rem, miss[i])) * SLACK)
        return lb

    def _start(self, tr, query):
        """A query's search state, the root's column computed: the arguments of
        :meth:`_column` after ``v`` and ``query``.  Nodes visited in preorder
        then each find their parent's column in ``columns``."""
        k = self.kernel
        n = len(query)
        aid = [k._ids.get(ord(c), 0) for c in query]
        dl = [k._dele[a] for a in aid]
        sufdel = [min(dl[i:]) for i in range(n)]
        columns = [[0.0] * (n + 1) for _ in range(self.max_depth + 1)]
        for i in range(n):
            columns[0][i + 1] = columns[0][i] + dl[i]
        return aid, dl, sufdel, columns, self._char_costs(tr, query, aid, dl)

    def _char_costs(self, tr, query, aid, dl):
        """Each OCR character's mask bit (0: no lexicon word has it) and its cost
        where it cannot be matched: the cheaper of its deletion and its cheapest
        substitution into another lexicon character (id 0 stands for many)."""
        qbit = [tr.bit.get(ord(c), 0) for c in query]
        cm = [
            min([d] + [self.kernel._sub(a, b) for b in tr.lex_ids if b != a or b == 0])
            for a, d in zip(aid, dl, strict=True)
        ]
        return qbit, cm

    def _offer(self, tr, v, columns, found, forward=None):
        """Offer the words ending at node v; in a backward pass (``forward``: the
        query), at their distance summed forwards, unless found already."""
        depth, end_ptr, ends = tr.trie[1], tr.trie[5], tr.trie[6]
        d = columns[int(depth[v])][-1]
        for r in range(end_ptr[v], end_ptr[v + 1]):
            i = int(ends[r])
            if forward is None:
                found.add(d, i)
            elif d <= found.bound * LOOSE and all(i != h for _, h in found.hits):
                found.add(self.kernel.distance(forward, self._words[i]), i)

    def _search(self, query, found):
        """Walk the trie for one query, offering every word not pruned to ``found``;
        a k-NN search of two characters or more in two passes (the compiled
        ``search_split``): the forward one keeps to the words whose cell at row
        ``m`` is within half the bound, the backward one, on the reversed words
        and query, to those whose cell at row ``n - m`` is."""
        n = len(query)
        if (
            not self.split
            or isinstance(found, _Within)
            or found.k > SPLIT_MAX_K
            or n < 2
            or found.bound == np.inf
        ):
            return self._walk(self._forward, query, found)
        m = n // 2
        self._walk(self._forward, query, found, m)
        return self._walk(self._backward, query[::-1], found, n - m, query)

    def _walk(self, tr, query, found, anchor=None, forward=None):
        """One pass: the nodes spelling the query's prefixes first, then the rest of
        their subtrees from the deepest up (the compiled search's order).  A node
        none of whose ancestors has its cell at row ``anchor`` within half the
        bound is left when none of its cells up to that row is.  A backward pass
        (``forward``: the query) prunes by a bound widened by ``LOOSE``."""
        cp, size, depth = tr.trie[0], tr.trie[2], tr.trie[1]
        loose = 1.0 if forward is None else LOOSE
        state = self._start(tr, query)
        columns = state[3]
        anchored = [False] * (self.max_depth + 1)
        anchored[0] = anchor is None or columns[0][anchor] <= found.bound * loose * HALF

        def may_lead(v):
            j = int(depth[v])
            if anchored[j - 1]:
                anchored[j] = True
                return True
            col, half = columns[j], found.bound * loose * HALF
            if min(col[: anchor + 1]) > half:
                return False
            anchored[j] = col[anchor] <= half
            return True

        def visit(v):
            """Whether v's subtree is searched (its column computed, its words offered)."""
            if self._column(tr, v, query, *state) > found.bound * loose or not may_lead(v):
                return False
            self._offer(tr, v, columns, found, forward)
            return True

        self._offer(tr, 0, columns, found, forward)

        def walk(v, end):
            while v < end:
                v += 1 if visit(v) else int(size[v])

        path, path_lb = [0], [None]
        while len(path) - 1 < len(query):
            p = path[-1]
            u, stop = p + 1, p + int(size[p])
            while u < stop and int(cp[u]) != ord(query[len(path) - 1]):
                u += int(size[u])
            if u >= stop:
                break
            lb = self._column(tr, u, query, *state)
            if not may_lead(u):
                break  # (the walk from its parent meets it, and prunes it)
            path.append(u)
            path_lb.append(lb)
            self._offer(tr, u, columns, found, forward)
        for i in range(len(path) - 1, -1, -1):
            u = path[i]
            if i > 0 and path_lb[i] > found.bound * loose:
                continue
            if i == len(path) - 1:
                walk(u + 1, u + int(size[u]))
            else:
                nxt = path[i + 1]
                walk(u + 1, nxt)
                walk(nxt + int(size[nxt]), u + int(size[u]))
        return sorted(found.hits)

    def kneighbors(self, queries, k, n_threads=1, max_distance=float("inf")):
        if not 1 <= k <= self.n_words:
            raise ValueError(f"k must be in [1, {self.n_words}], got {k}")
        if not max_distance >= 0:
            raise ValueError(f"max_distance must be >= 0, got {max_distance}")
        self.visited = 0
        dist = np.full((len(queries), k), np.inf)
        ind = np.full((len(queries), k), -1, dtype=np.int64)
        for q, query in enumerate(queries):
            hits = self._search(query, _Nearest(k, max_distance))
            dist[q, : len(hits)] = [d for d, _ in hits]
            ind[q, : len(hits)] = [i for _, i in hits]
        return dist, ind

    def radius_neighbors(self, queries, radius, n_threads=1):
        if not radius >= 0:
            raise ValueError(f"radius must be >= 0, got {radius}")
        self.visited = 0
        hits = [self._search(q, _Within(radius)) for q in queries]
        offsets = np.concatenate([[0], np.cumsum([len(h) for h in hits])]).astype(np.int64)
        dist = np.array([d for h in hits for d, _ in h], dtype=np.float64)
        ind = np.array([i for h in hits for _, i in h], dtype=np.int64)
        return offsets, dist, ind


def topk_update(D, first, dist, ind, have, n_threads=1):
    """Twin of ``_lexicon_index.topk_update``: each row's best by the trie's rule.

    Row r's ``have`` best so far (``dist[r]``, ``ind[r]``) and its distances
    ``D[r]`` to words ``first, first + 1, ...`` are offered to a :class:`_Nearest`,
    which keeps the k smallest (distance, index) pairs: ties by lexicon index.
    """
    n, m = D.shape
    k = dist.shape[1]
    if ind.shape[0] != n or dist.shape[0] != n or ind.shape[1] != k or not 0 <= have <= k:
        raise ValueError("dist and ind must have shape (len(D), k), with 0 <= have <= k")
    for r in range(n if k else 0):
        best = _Nearest(k)
        for j in range(have):
            best.add(float(dist[r, j]), int(ind[r, j]))
        for j in range(m):
            best.add(float(D[r, j]), first + j)
        hits = sorted(best.hits)
        dist[r, : len(hits)] = [d for d, _ in hits]
        ind[r, : len(hits)] = [i for _, i in hits]
    return min(k, have + m)


class _Nearest:
    """The k best (distance, index) pairs within ``radius`` so far; the bound is the
    radius, then the k-th distance once full."""

    def __init__(self, k, radius=float("inf")):
        self.k, self.hits, self.bound = k, [], radius

    def add(self, d, i):
        if d > self.bound:
            return
        self.hits.append((d, i))
        if len(self.hits) > self.k:
            self.hits.remove(max(self.hits))
        if len(self.hits) == self.k:
            self.bound = max(self.hits)[0]


class _Within:
    """Every (distance, index) pair within the radius (inclusive)."""

    def __init__(self, radius):
        self.hits, self.bound = [], radius

    def add(self, d, i):
        if d <= self.bound:
            self.hits.append((d, i))

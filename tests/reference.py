"""A textbook weighted Levenshtein written from the cost dictionaries alone.

Independent of the package's tables and twin: it reads the same dictionaries a
user passes to WeightedLevenshtein and applies the definition cell by cell.
"""


def reference_distance(
    a,
    b,
    substitution_costs=None,
    insertion_costs=None,
    deletion_costs=None,
    *,
    symmetric_substitution=False,
    default_substitution_cost=1.0,
    default_insertion_cost=1.0,
    default_deletion_cost=1.0,
):
    subs = dict(substitution_costs or {})
    ins = dict(insertion_costs or {})
    dele = dict(deletion_costs or {})

    def sub(s, t):
        if s == t:
            return 0.0
        if (s, t) in subs:
            return subs[(s, t)]
        if symmetric_substitution and (t, s) in subs:
            return subs[(t, s)]
        return default_substitution_cost

    n, m = len(a), len(b)
    D = [[0.0] * (m + 1) for _ in range(n + 1)]
    for j in range(1, m + 1):
        D[0][j] = D[0][j - 1] + ins.get(b[j - 1], default_insertion_cost)
    for i in range(1, n + 1):
        D[i][0] = D[i - 1][0] + dele.get(a[i - 1], default_deletion_cost)
        for j in range(1, m + 1):
            D[i][j] = min(
                D[i - 1][j - 1] + sub(a[i - 1], b[j - 1]),
                D[i - 1][j] + dele.get(a[i - 1], default_deletion_cost),
                D[i][j - 1] + ins.get(b[j - 1], default_insertion_cost),
            )
    return D[n][m]


def reference_general(
    a,
    b,
    substitution_costs=None,
    insertion_costs=None,
    deletion_costs=None,
    *,
    default_substitution_cost=1.0,
    default_insertion_cost=1.0,
    default_deletion_cost=1.0,
    transposition_costs=None,
    default_transposition_cost=float("inf"),
    match_costs=None,
    default_match_cost=0.0,
    symmetric_substitution=False,
):
    """The definition with every rule as a string test: matches, transpositions, pieces.

    Keys of any length; ``("", t)`` and ``(s, "")`` substitution keys are insertions
    and deletions.  No symmetry.
    """
    assert not symmetric_substitution
    rules = {}
    for (s, t), c in (substitution_costs or {}).items():
        rules[(s, t)] = min(rules.get((s, t), c), c)
    for t, c in (insertion_costs or {}).items():
        rules[("", t)] = min(rules.get(("", t), c), c)
    for s, c in (deletion_costs or {}).items():
        rules[(s, "")] = min(rules.get((s, ""), c), c)
    trans = transposition_costs or {}
    match = match_costs or {}

    def single(s, t):
        if (s, t) in rules:
            return rules[(s, t)]
        if s == "":
            return default_insertion_cost
        if t == "":
            return default_deletion_cost
        return default_substitution_cost

    n, m = len(a), len(b)
    INF = float("inf")
    D = [[INF] * (m + 1) for _ in range(n + 1)]
    D[0][0] = 0.0
    for i in range(n + 1):
        for j in range(m + 1):
            best = D[i][j]
            if i and j:
                if a[i - 1] == b[j - 1]:
                    c = match.get(a[i - 1], default_match_cost)
                else:
                    c = single(a[i - 1], b[j - 1])
                best = min(best, D[i - 1][j - 1] + c)
            if i:
                best = min(best, D[i - 1][j] + single(a[i - 1], ""))
            if j:
                best = min(best, D[i][j - 1] + single("", b[j - 1]))
            if (
                i > 1
                and j > 1
                and a[i - 2] != a[i - 1]
                and a[i - 2] == b[j - 1]
                and a[i - 1] == b[j - 2]
            ):
                c = trans.get((a[i - 2], a[i - 1]), default_transposition_cost)
                best = min(best, D[i - 2][j - 2] + c)
            for (s, t), c in rules.items():
                if len(s) + len(t) > 2 or len(s) > 1 or len(t) > 1:
                    if (
                        len(s) <= i
                        and len(t) <= j
                        and a[i - len(s) : i] == s
                        and b[j - len(t) : j] == t
                    ):
                        best = min(best, D[i - len(s)][j - len(t)] + c)
            D[i][j] = best
    return D[n][m]


def reference_osa(a, b):
    """Textbook optimal string alignment distance (restricted Damerau-Levenshtein)."""
    n, m = len(a), len(b)
    D = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n + 1):
        D[i][0] = i
    for j in range(m + 1):
        D[0][j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            D[i][j] = min(
                D[i - 1][j] + 1, D[i][j - 1] + 1, D[i - 1][j - 1] + (a[i - 1] != b[j - 1])
            )
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                D[i][j] = min(D[i][j], D[i - 2][j - 2] + 1)
    return D[n][m]


def brute_force_log_likelihood(a, b, weight, base):
    """log_base of the sum of base ** (summed weights) over every edit sequence.

    ``weight(kind, s, t)`` gives each single-character edit's weight; plain
    recursion over all sequences (no DP), for short strings only.
    """
    import math

    def paths(i, j):
        if i == len(a) and j == len(b):
            return 1.0
        total = 0.0
        if i < len(a) and j < len(b):
            kind = "match" if a[i] == b[j] else "sub"
            total += base ** weight(kind, a[i], b[j]) * paths(i + 1, j + 1)
        if i < len(a):
            total += base ** weight("del", a[i], "") * paths(i + 1, j)
        if j < len(b):
            total += base ** weight("ins", "", b[j]) * paths(i, j + 1)
        return total

    return math.log(paths(0, 0)) / math.log(base)

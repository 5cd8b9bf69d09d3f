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

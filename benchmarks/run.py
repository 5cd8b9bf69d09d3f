"""Speed of skocrcost against ocr-stringdist, weighted-levenshtein and rapidfuzz.

    python benchmarks/run.py [--quick] [--out PATH]

Five workloads (issue 4), each run side by side in this one process on identical
inputs, results cross-checked where the costs allow:

i.   single ``distance`` calls on 200,000 random token pairs (5-12 characters,
     60-character alphabet) with a dense learned-style cost table, also set
     against the issue's reference point, the leanest Python-callable Cython
     DP (``lean_dp.pyx``, compiled on the spot with pyximport);
ii.  one query against the ~104k-word SCOWL lexicon (top 10), also with the
     learned costs rounded up to a grid of 2^-16 (the rows kernel), with the
     lexicon kept encoded by the metric (the same list again) and encoded per call;
iii. a 2000 x 2000 ``pairwise`` on such tokens, also with those costs rounded up
     to a grid of 2^-16 and with whole-number weights (2, 2, 3), which run on
     int32 lanes;
iv.  the 10 nearest lexicon words of 200 OCR-noised queries;
v.   ``EditCostEstimator.fit`` on the 609,919 ICDAR 2017 token pairs.

Everything runs on one thread.  Times are CPU seconds of this process
(``time.process_time``, best of the repeats) so that other jobs on a shared
machine do not inflate them; wall seconds are recorded too.  Where a peer would
take minutes, it runs on a stated subsample and its rate is compared.  rapidfuzz
has no per-character costs: it is compared with skocrcost on unit costs and on
whole-number weights for insertion, deletion and substitution.
``--quick`` shrinks the inputs (for a smoke test, not for the record).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import string
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the in-place build of this checkout

import ocr_stringdist  # noqa: E402
import rapidfuzz  # noqa: E402
import weighted_levenshtein  # noqa: E402
from _pairs import read_pairs  # noqa: E402
from rapidfuzz import process  # noqa: E402
from rapidfuzz.distance import Levenshtein as RFLevenshtein  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

import skocrcost  # noqa: E402
from skocrcost import EditCostEstimator, WeightedLevenshtein, kernel_config  # noqa: E402
from skocrcost._kernels import _cost_kernel as _dp  # noqa: E402

try:
    from skocrcost import EditDistanceNeighbors  # noqa: E402
except ImportError:  # the neighbours issue has not landed in this checkout
    EditDistanceNeighbors = None

DATA = HERE.parent / ".." / "shared" / "data"
ALPHABET = string.ascii_letters + "01234567"  # 60 characters, ASCII for weighted-levenshtein


# -- timing --------------------------------------------------------------------------------
@contextlib.contextmanager
def perf_counted():
    """perf's counters enabled around the block when ``PERF_CTL`` names the control file of a
    ``perf stat -D -1 --control fifo:FILE`` run (one_query.py, lanes_cycles.py)."""
    ctl = os.environ.get("PERF_CTL")
    if ctl:
        with open(ctl, "w") as f:
            f.write("enable\n")
    try:
        yield
    finally:
        if ctl:
            with open(ctl, "w") as f:
                f.write("disable\n")


def timed(fn, repeat):
    """Best CPU and wall seconds of ``repeat`` runs, and the last result.

    Each run's result is dropped before the next starts, so that a large output (the 32 MB
    of (iii)) can re-use the memory of the last: kept alive, it made every other run of
    (iii) on a grid slower."""
    cpu, wall, out = [], [], None
    for _ in range(repeat):
        out = None
        c, w = time.process_time(), time.perf_counter()
        out = fn()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return min(cpu), min(wall), out


def timed_at_levels(fn, repeat):
    """(level, timed(fn, repeat)) for each SIMD level the CPU has, its best first."""
    for level in _dp.simd_levels()[::-1]:
        with kernel_config(simd=level):
            result = timed(fn, repeat)
        yield level, result


class Table:
    """Rows of (workload, implementation, costs, items, seconds, rate) and their ratios."""

    def __init__(self):
        self.rows = []

    def add(
        self, workload, impl, costs, items, unit, cpu, wall, *, ours=False, note="", short=None
    ):
        row = {
            "short": short or impl.split()[1].split("(")[0],
            "workload": workload,
            "implementation": impl,
            "costs": costs,
            "items": items,
            "unit": unit,
            "cpu_seconds": cpu,
            "wall_seconds": wall,
            "rate_per_second": items / cpu if cpu > 0 else float("inf"),
            "ours": ours,
            "note": note,
        }
        self.rows.append(row)
        print(
            f"  {impl:<44} {costs:<8} {items:>12,} {unit:<7} {cpu:9.4f} s  "
            f"{row['rate_per_second']:14,.0f}/s {note}",
            flush=True,
        )
        return row

    def unavailable(self, workload, impl, why):
        self.rows.append({"workload": workload, "implementation": impl, "not_available": why})
        print(f"  {impl:<44} not available: {why}", flush=True)

    def ratios(self):
        """Our rate over each peer's, within a workload and the same costs."""
        for row in self.rows:
            if row.get("not_available") or row["ours"]:
                continue
            mine = [
                r
                for r in self.rows
                if r.get("ours")
                and r["workload"] == row["workload"]
                and r["costs"] == row["costs"]
                and r["unit"] == row["unit"]
            ]
            row["speedup_of_ours"] = {
                r["short"]: r["rate_per_second"] / row["rate_per_second"] for r in mine
            }


# -- inputs ---------------------------------------------------------------------------------
def learned_style_costs(rng):
    """Dense costs over ALPHABET: most substitutions near 1, a few cheap confusions."""
    subs = {}
    for a in ALPHABET:
        for b in ALPHABET:
            if a != b:
                cheap = rng.random() < 0.05
                subs[(a, b)] = float(rng.uniform(0.05, 0.5) if cheap else rng.uniform(0.7, 1.3))
    ins = {c: float(rng.uniform(0.6, 1.4)) for c in ALPHABET}
    dele = {c: float(rng.uniform(0.6, 1.4)) for c in ALPHABET}
    return subs, ins, dele


GRID_COSTS = "learned, 2^-16 grid"


def on_grid(metric):
    """``metric`` with its costs rounded up to 2^-16 (EditCostEstimator(resolution=2**-16))."""
    return WeightedLevenshtein.from_tables(metric.costs.rounded(2.0**-16))


def on_doubles(run):
    """``run()`` with the int32 DPs of costs on a grid turned off: the double DPs."""
    with kernel_config(grid=False):
        return run()


def tokens(rng, n, lo=5, hi=12):
    letters = np.array(list(ALPHABET))
    return [
        "".join(letters[rng.integers(0, len(ALPHABET), rng.integers(lo, hi + 1))]) for _ in range(n)
    ]


def wlev_arrays(subs, ins, dele):
    """weighted-levenshtein's 128-entry ASCII tables with the same costs (default 1)."""
    w_ins, w_del, w_sub = np.ones(128), np.ones(128), np.ones((128, 128))
    for c, v in ins.items():
        w_ins[ord(c)] = v
    for c, v in dele.items():
        w_del[ord(c)] = v
    for (a, b), v in subs.items():
        w_sub[ord(a), ord(b)] = v
    return w_ins, w_del, w_sub


def lean_reference():
    """The leanest Python-callable weighted DP (lean_dp.pyx), compiled now, or None.

    Needs Cython and a C compiler (the build's own requirements).
    """
    try:
        import pyximport

        pyximport.install(language_level=3, build_dir=str(HERE / "build"))
        import lean_dp
    except Exception as exc:  # no Cython or no compiler: the row is left out
        print(f"(i) lean Cython reference skipped: {exc}", flush=True)
        return None
    return lean_dp


def wlev_match_shortcut(a, b, w_ins, w_del, w_sub):
    """weighted-levenshtein 0.2.2's recurrence: on a match it takes the diagonal only."""
    n, m = len(a), len(b)
    prev = [0.0] * (m + 1)
    for j in range(m):
        prev[j + 1] = prev[j] + w_ins[ord(b[j])]
    for i in range(n):
        cur = [prev[0] + w_del[ord(a[i])]] + [0.0] * m
        for j in range(m):
            if a[i] == b[j]:
                cur[j + 1] = prev[j]
            else:
                cur[j + 1] = min(
                    prev[j] + w_sub[ord(a[i]), ord(b[j])],
                    prev[j + 1] + w_del[ord(a[i])],
                    cur[j] + w_ins[ord(b[j])],
                )
        prev = cur
    return prev[m]


def lexicon():
    words = [w.strip() for w in open(DATA / "lexicon" / "american-english", encoding="utf-8")]
    return [w for w in words if w]


def noisy_queries(rng, words, n, confusions):
    """Lexicon words with one or two real OCR confusions (truth -> OCR) applied."""
    by_truth = {}
    for ocr, truth, count in confusions:
        if ocr and truth:  # substitutions only; deletions and insertions below
            by_truth.setdefault(truth, []).append((ocr, count))
    queries, clean = [], []
    candidates = [w for w in words if len(w) >= 4 and w.isascii()]
    while len(queries) < n:
        w = candidates[rng.integers(len(candidates))]
        q = list(w)
        for _ in range(rng.integers(1, 3)):
            pos = [i for i, c in enumerate(q) if c in by_truth]
            if pos and rng.random() < 0.8:
                i = pos[rng.integers(len(pos))]
                opts, weights = zip(*by_truth[q[i]], strict=True)
                p = np.array(weights, dtype=float) / sum(weights)
                q[i] = opts[rng.choice(len(opts), p=p)]
            elif rng.random() < 0.5:
                del q[rng.integers(len(q))]
            else:
                q.insert(rng.integers(len(q) + 1), ALPHABET[rng.integers(52)].lower())
        q = "".join(q)
        if q != w:
            queries.append(q)
            clean.append(w)
    return queries, clean


def top_k(dist, k):
    """Sorted distances of the k nearest (ties make index lists incomparable)."""
    return np.sort(np.partition(dist, k - 1)[:k])


# -- workloads ------------------------------------------------------------------------------
def workload_i(tab, cfg, rng, checks):
    n = cfg["pairs"]
    print(f"(i) single distance calls: {n:,} pairs of 5-12 characters", flush=True)
    subs, ins, dele = learned_style_costs(rng)
    ours = WeightedLevenshtein(subs, ins, dele)
    theirs = ocr_stringdist.WeightedLevenshtein.from_dict(ours.to_dict())
    w_ins, w_del, w_sub = wlev_arrays(subs, ins, dele)
    A, B = tokens(rng, n), tokens(rng, n)
    Ab, Bb = [a.encode() for a in A], [b.encode() for b in B]
    unit = WeightedLevenshtein()
    r = cfg["repeat"]

    c, w, d_ours = timed(lambda: list(map(ours.distance, A, B)), r)
    tab.add("i", "skocrcost distance", "learned", n, "pairs", c, w, ours=True)
    grid = on_grid(ours)
    c, w, d_grid = timed(lambda: list(map(grid.distance, A, B)), r)
    tab.add("i", "skocrcost distance", GRID_COSTS, n, "pairs", c, w, ours=True, short="grid")
    lean = lean_reference()
    if lean is not None:
        lean.set_costs(w_sub, w_ins, w_del)
        c, w, d_lean = timed(lambda: list(map(lean.distance, A, B)), r)
        tab.add("i", "lean Cython DP (reference, lean_dp.pyx)", "learned", n, "pairs", c, w)
    m = cfg["peer_pairs"]
    c, w, d_osd = timed(lambda: list(map(theirs.distance, A[:m], B[:m])), 1)
    tab.add("i", "ocr-stringdist distance", "learned", m, "pairs", c, w)
    wl_lev = weighted_levenshtein.levenshtein

    def run_wlev():
        return [wl_lev(a, b, w_ins, w_del, w_sub) for a, b in zip(Ab[:m], Bb[:m], strict=True)]

    c, w, d_wlev = timed(run_wlev, 1)
    tab.add("i", "weighted-levenshtein levenshtein", "learned", m, "pairs", c, w)
    c, w, d_unit = timed(lambda: list(map(unit.distance, A, B)), r)
    tab.add("i", "skocrcost distance", "unit", n, "pairs", c, w, ours=True)
    rf = RFLevenshtein.distance
    c, w, d_rf = timed(lambda: list(map(rf, A, B)), r)
    tab.add("i", "rapidfuzz Levenshtein.distance", "unit", n, "pairs", c, w)

    ours_m = np.array(d_ours[:m])
    wl_arr = np.array(d_wlev)
    differ = np.flatnonzero(wl_arr != ours_m)
    explained = all(
        wlev_match_shortcut(A[k], B[k], w_ins, w_del, w_sub) == wl_arr[k] for k in differ[:2000]
    )
    checks["i"] = {
        "ocr_stringdist_max_abs_diff": float(np.max(np.abs(np.array(d_osd) - ours_m))),
        "lean_reference_equal": None if lean is None else d_lean == d_ours,
        "rapidfuzz_unit_equal": bool(np.array_equal(np.array(d_rf, float), np.array(d_unit))),
        "weighted_levenshtein_pairs_differing": int(len(differ)),
        "weighted_levenshtein_never_cheaper": bool(np.all(wl_arr >= ours_m - 1e-12)),
        "weighted_levenshtein_differences_all_from_match_shortcut": bool(explained),
        "weighted_levenshtein_differences_checked": int(min(len(differ), 2000)),
        "grid_int_dp_equal_double_dp": d_grid == on_doubles(lambda: list(map(grid.distance, A, B))),
    }
    return ours, theirs, (w_ins, w_del, w_sub)


def workload_iii(tab, cfg, rng, checks, ours, theirs, wlev):
    n = cfg["square"]
    print(f"(iii) pairwise {n} x {n} on 5-12 character tokens", flush=True)
    X, Y = tokens(rng, n), tokens(rng, n)
    cells = sum(map(len, X)) * sum(map(len, Y))
    unit = WeightedLevenshtein()
    r = cfg["repeat"]
    # The CPU's best SIMD level first: the row the peers are compared with.
    D_level = {}
    for level, (c, w, D_level[level]) in timed_at_levels(lambda: ours.pairwise(X, Y, n_jobs=1), r):
        short = None if len(D_level) == 1 else level  # the first, the best
        impl = f"skocrcost pairwise ({level})"
        tab.add("iii", impl, "learned", cells, "cells", c, w, ours=True, short=short)
    D_ours = D_level[_dp.simd_level()]
    rows = cfg["peer_rows"]
    sub_cells = sum(map(len, X[:rows])) * sum(map(len, Y))
    c, w, D_osd = timed(lambda: [theirs.batch_distance(x, Y) for x in X[:rows]], 1)
    tab.add(
        "iii",
        "ocr-stringdist batch_distance",
        "learned",
        sub_cells,
        "cells",
        c,
        w,
        note=f"{rows} rows",
    )
    w_ins, w_del, w_sub = wlev
    Yb = [y.encode() for y in Y]
    lev = weighted_levenshtein.levenshtein

    def run_wlev():
        return [[lev(x.encode(), y, w_ins, w_del, w_sub) for y in Yb] for x in X[: rows // 2]]

    c, w, _ = timed(run_wlev, 1)
    wl_cells = sum(map(len, X[: rows // 2])) * sum(map(len, Y))
    tab.add(
        "iii",
        "weighted-levenshtein levenshtein",
        "learned",
        wl_cells,
        "cells",
        c,
        w,
        note=f"{rows // 2} rows",
    )
    c, w, D_unit = timed(lambda: unit.pairwise(X, Y, n_jobs=1), r)
    tab.add(
        "iii", f"skocrcost pairwise ({_dp.simd_level()})", "unit", cells, "cells", c, w, ours=True
    )
    c, w, D_rf = timed(lambda: process.cdist(X, Y, scorer=RFLevenshtein.distance, workers=1), r)
    tab.add("iii", "rapidfuzz process.cdist", "unit", cells, "cells", c, w)
    # Costs on a grid run the int32 lanes: the learned costs rounded up to 2^-16
    # (EditCostEstimator(resolution=2**-16)), and whole-number weights, where rapidfuzz
    # runs its weighted DP (a substitution dearer than a deletion and an insertion is
    # never taken: rapidfuzz then computes the bit-parallel Indel distance instead).
    grid = on_grid(ours)
    D_grid = {}
    for level, (c, w, D_grid[level]) in timed_at_levels(lambda: grid.pairwise(X, Y, n_jobs=1), r):
        impl = f"skocrcost pairwise ({level})"
        tab.add("iii", impl, GRID_COSTS, cells, "cells", c, w, ours=True, short=f"grid {level}")
    D_grid_double = on_doubles(lambda: grid.pairwise(X, Y, n_jobs=1))
    weights = (2, 2, 3)  # (insertion, deletion, substitution), as rapidfuzz orders them
    whole = WeightedLevenshtein(
        default_insertion_cost=weights[0],
        default_deletion_cost=weights[1],
        default_substitution_cost=weights[2],
    )
    c, w, D_whole = timed(lambda: whole.pairwise(X, Y, n_jobs=1), r)
    tab.add("iii", "skocrcost pairwise", "weights (2, 2, 3)", cells, "cells", c, w, ours=True)
    rows_w = cfg["peer_rows"] * 5
    w_cells = sum(map(len, X[:rows_w])) * sum(map(len, Y))
    c, w, D_rfw = timed(
        lambda: process.cdist(
            X[:rows_w], Y, scorer=RFLevenshtein.distance, scorer_kwargs={"weights": weights}
        ),
        r,
    )
    tab.add(
        "iii",
        "rapidfuzz process.cdist",
        "weights (2, 2, 3)",
        w_cells,
        "cells",
        c,
        w,
        note=f"{rows_w} rows",
    )
    checks["iii"] = {
        "ocr_stringdist_max_abs_diff": float(np.max(np.abs(np.array(D_osd) - D_ours[:rows]))),
        "every_simd_level_bit_identical": all(np.array_equal(D, D_ours) for D in D_level.values()),
        "rapidfuzz_unit_equal": bool(np.array_equal(D_rf.astype(float), D_unit)),
        "grid_int_lanes_equal_double_lanes": all(
            np.array_equal(D, D_grid_double) for D in D_grid.values()
        ),
        "grid_max_abs_diff_to_unrounded": float(np.max(np.abs(D_grid_double - D_ours))),
        "rapidfuzz_weights_2_2_3_equal": bool(
            np.array_equal(D_rfw.astype(float), D_whole[:rows_w])
        ),
        "mean_pair_cells": cells / (n * n),
    }


def workload_v(tab, cfg, checks):
    X, y = read_pairs(DATA / "icdar2017_engmono" / "tokens.tsv")
    print(f"(v) EditCostEstimator.fit on {len(X):,} ICDAR 2017 token pairs", flush=True)
    r = cfg["repeat"]
    c, w, est = timed(lambda: EditCostEstimator(n_jobs=1).fit(X, y), r)
    tab.add("v", "skocrcost EditCostEstimator.fit", "unified", len(X), "pairs", c, w, ours=True)
    c, w, bounded = timed(lambda: EditCostEstimator(model="bounded", n_jobs=1).fit(X, y), r)
    tab.add("v", "skocrcost EditCostEstimator.fit", "bounded", len(X), "pairs", c, w, ours=True)
    del bounded
    pairs = list(zip(X, y, strict=True))
    c, w, learned = timed(lambda: ocr_stringdist.CostLearner().fit(pairs), 1)
    tab.add("v", "ocr-stringdist CostLearner.fit", "unified", len(X), "pairs", c, w)
    # CostLearner's model is our "unified" one (k = 1); by default it prices only the
    # edits it saw (others cost 1.0), so the check refits it with unseen edits priced.
    full = ocr_stringdist.CostLearner().fit(pairs, calculate_for_unseen=True)
    wrong = [(a, b) for a, b in pairs if a != b][:2000]
    ours_d = np.array([est.metric_.distance(a, b) for a, b in wrong])
    checks["v"] = {
        "unified_vs_CostLearner_max_abs_diff_on_2000_erroneous_pairs": float(
            np.max(np.abs(ours_d - np.array([full.distance(a, b) for a, b in wrong])))
        ),
        "unified_vs_CostLearner_default_fit_pairs_equal_within_1e-9": float(
            np.mean(np.abs(ours_d - np.array([learned.distance(a, b) for a, b in wrong])) < 1e-9)
        ),
    }
    return est


def kneighbors_row(tab, workload, costs, n, run):
    """Time ``run`` (EditDistanceNeighbors.kneighbors of n queries) as one of our rows."""
    c, w, out = timed(run, 1)
    tab.add(
        workload,
        "skocrcost EditDistanceNeighbors.kneighbors",
        costs,
        n,
        "queries",
        c,
        w,
        ours=True,
        short="kneighbors",
    )
    return out


def workload_ii_iv(tab, cfg, rng, checks, est):
    words = lexicon()
    metric = est.metric_
    theirs = ocr_stringdist.WeightedLevenshtein.from_dict(metric.to_dict())
    unit = WeightedLevenshtein()
    queries, clean = noisy_queries(rng, words, cfg["queries"], est.counts_.most_common(200))
    k = 10
    nq = cfg["single_queries"]
    cells = sum(len(q) for q in queries[:nq]) * sum(map(len, words))
    print(f"(ii) one query against {len(words):,} lexicon words (mean of {nq} queries)", flush=True)
    c, w, D = timed(lambda: [top_k(metric.pairwise([q], words)[0], k) for q in queries[:nq]], 1)
    tab.add(
        "ii",
        "skocrcost pairwise([query], words) + top 10",
        "learned",
        nq,
        "queries",
        c,
        w,
        ours=True,
        note=f"{cells / c / 1e9:.2f} G cells/s",
    )
    # Costs on a grid: one query runs the rows kernel (the query's characters in the lanes).
    # The metric keeps the lexicon encoded after a first call (CostKernel._encode_y),
    # made before the timing: a stream of queries against one lexicon.
    grid = on_grid(metric)
    grid.pairwise(queries[:1], words)
    c, w, D_grid = timed(lambda: [grid.pairwise([q], words)[0] for q in queries[:nq]], 1)
    tab.add(
        "ii",
        "skocrcost pairwise([query], words) + top 10",
        GRID_COSTS,
        nq,
        "queries",
        c,
        w,
        ours=True,
        short="pairwise, grid",
        note=f"{cells / c / 1e9:.2f} G cells/s",
    )
    # The same with the lexicon encoded at every call: two lists of equal words but
    # different str objects, in turn, so that the kept one never matches.
    other = [w.encode().decode() for w in words]
    c, w, D_cold = timed(
        lambda: [grid.pairwise([q], (words, other)[i % 2])[0] for i, q in enumerate(queries[:nq])],
        1,
    )
    tab.add(
        "ii",
        "skocrcost pairwise([query], words), encoded per call",
        GRID_COSTS,
        nq,
        "queries",
        c,
        w,
        ours=True,
        short="pairwise, grid, encoded per call",
        note=f"{cells / c / 1e9:.2f} G cells/s",
    )
    checks.setdefault("ii", {})["grid_encoded_per_call_equal"] = all(
        np.array_equal(a, b) for a, b in zip(D_grid, D_cold, strict=True)
    )
    with kernel_config(rows=False):
        D_grid_lanes = [grid.pairwise([q], words)[0] for q in queries[:nq]]
    checks.setdefault("ii", {})["grid_rows_kernel_equal_lanes"] = all(
        np.array_equal(a, b) for a, b in zip(D_grid, D_grid_lanes, strict=True)
    )
    if EditDistanceNeighbors is not None:
        c, w, nn = timed(lambda: EditDistanceNeighbors(n_neighbors=k, metric=metric).fit(words), 1)
        tab.add(
            "ii",
            "skocrcost EditDistanceNeighbors.fit (index)",
            "learned",
            len(words),
            "words",
            c,
            w,
            ours=True,
        )
        nd, _ = kneighbors_row(tab, "ii", "learned", nq, lambda: nn.kneighbors(queries[:nq]))
        checks.setdefault("ii", {})["neighbors_equal_brute_force"] = bool(
            np.allclose(np.sort(nd, axis=1), np.array(D), rtol=0, atol=1e-12)
        )
    else:
        tab.unavailable("ii", "skocrcost EditDistanceNeighbors", "not on this branch yet")
    m = cfg["osd_queries"]
    c, w, D_osd = timed(lambda: [np.array(theirs.batch_distance(q, words)) for q in queries[:m]], 1)
    tab.add("ii", "ocr-stringdist batch_distance + top 10", "learned", m, "queries", c, w)
    c, w, D_unit = timed(lambda: [top_k(unit.pairwise([q], words)[0], k) for q in queries[:nq]], 1)
    tab.add(
        "ii", "skocrcost pairwise([query], words) + top 10", "unit", nq, "queries", c, w, ours=True
    )

    def rf_extract(qs):
        return [process.extract(q, words, scorer=RFLevenshtein.distance, limit=k) for q in qs]

    if EditDistanceNeighbors is not None:  # unit costs: bit-parallel brute force, one query a call
        unit_nn = EditDistanceNeighbors(n_neighbors=k, metric=unit).fit(words)
        U = kneighbors_row(
            tab, "ii", "unit", nq, lambda: [unit_nn.kneighbors([q])[0][0] for q in queries[:nq]]
        )
    c, w, R = timed(lambda: rf_extract(queries[:nq]), 1)
    tab.add("ii", "rapidfuzz process.extract (limit 10)", "unit", nq, "queries", c, w)
    if EditDistanceNeighbors is not None:
        checks.setdefault("ii", {})["unit_kneighbors_equal_brute_force"] = all(
            np.array_equal(u, d) for u, d in zip(U, D_unit, strict=True)
        )
    full = [metric.pairwise([q], words)[0] for q in queries[:m]]
    # ocr-stringdist's layout has no per-row default: a learned substitution into a
    # character outside the alphabet costs its default there.  Compare the rest.
    alphabet = {chr(c) for c in metric.costs.chars}
    inside = np.array([set(w) <= alphabet for w in words])
    checks.setdefault("ii", {}).update(
        {
            "ocr_stringdist_max_abs_diff_words_over_alphabet": float(
                max(np.max(np.abs(a - b)[inside]) for a, b in zip(D_osd, full, strict=True))
            ),
            "words_over_alphabet": int(inside.sum()),
            "rapidfuzz_unit_top10_equal": all(
                np.array_equal(np.sort([float(x[1]) for x in r]), d)
                for r, d in zip(R, D_unit, strict=True)
            ),
        }
    )

    nq = len(queries)
    print(f"(iv) 10 nearest of {nq} OCR-noised queries in {len(words):,} words", flush=True)
    if EditDistanceNeighbors is not None:
        nn = EditDistanceNeighbors(n_neighbors=k, metric=metric).fit(words)
        nd, ni = kneighbors_row(tab, "iv", "learned", nq, lambda: nn.kneighbors(queries))
        hit = np.mean([clean[i] in {words[j] for j in ni[i]} for i in range(nq)])
        checks.setdefault("iv", {})["clean_word_in_top10_learned"] = float(hit)
    else:
        tab.unavailable("iv", "skocrcost EditDistanceNeighbors", "not on this branch yet")
    c, w, _ = timed(lambda: metric.pairwise(queries, words, n_jobs=1), 1)
    tab.add(
        "iv",
        "skocrcost pairwise(queries, words) (brute force)",
        "learned",
        nq,
        "queries",
        c,
        w,
        ours=True,
        short="brute force",
    )
    m = cfg["osd_queries"]
    c, w, _ = timed(lambda: [theirs.batch_distance(q, words) for q in queries[:m]], 1)
    tab.add("iv", "ocr-stringdist batch_distance + top 10", "learned", m, "queries", c, w)
    c, w, R = timed(lambda: rf_extract(queries), 1)
    tab.add("iv", "rapidfuzz process.extract (limit 10)", "unit", nq, "queries", c, w)
    c, w, _ = timed(lambda: unit.pairwise(queries, words, n_jobs=1), 1)
    tab.add(
        "iv",
        "skocrcost pairwise(queries, words) (brute force)",
        "unit",
        nq,
        "queries",
        c,
        w,
        ours=True,
        short="brute force",
    )
    if EditDistanceNeighbors is not None:
        ud, _ = kneighbors_row(tab, "iv", "unit", nq, lambda: unit_nn.kneighbors(queries))
        checks.setdefault("iv", {})["rapidfuzz_unit_top10_equal_kneighbors"] = all(
            np.array_equal(np.sort([float(x[1]) for x in r]), d) for r, d in zip(R, ud, strict=True)
        )
    hit_rf = np.mean([clean[i] in {x[0] for x in R[i]} for i in range(nq)])
    checks.setdefault("iv", {})["clean_word_in_top10_rapidfuzz_unit"] = float(hit_rf)


# -- the machine ------------------------------------------------------------------------------
def machine():
    # "AMD EPYC" alone names both Zen 3 (family 25, model 1) and Zen 4 (model 17) hosts,
    # and results have been recorded on each: the family and model tell them apart.
    model, family = platform.processor(), {}
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            key, _, value = line.partition(":")
            if key == "Model name":
                model = value.strip()
            elif key in ("CPU family", "Model"):
                family["cpu_family" if key == "CPU family" else "cpu_model_number"] = value.strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    return {
        "cpu_model": model,
        **family,
        "cores": os.cpu_count(),
        "load_average_at_start": os.getloadavg(),
        "simd_level": _dp.simd_level(),
        "python": platform.python_version(),
        "versions": {
            "skocrcost": skocrcost.__version__ if hasattr(skocrcost, "__version__") else "dev",
            "ocr-stringdist": _version("ocr-stringdist"),
            "weighted-levenshtein": _version("weighted-levenshtein"),
            "rapidfuzz": rapidfuzz.__version__,
            "numpy": np.__version__,
        },
    }


def _version(name):
    from importlib.metadata import version

    return version(name)


def render(tab):
    """The table as Markdown: rate, and how many times our rate is each peer's."""
    lines = [
        "| workload | implementation | costs | items | CPU s | rate /s | ours / this |",
        "|---|---|---|---:|---:|---:|---|",
    ]
    for r in tab.rows:
        if r.get("not_available"):
            lines.append(f"| {r['workload']} | {r['implementation']} | | | | not available | |")
            continue
        ratio = ", ".join(f"{v:,.1f}x ({k})" for k, v in r.get("speedup_of_ours", {}).items())
        unit = r["unit"]
        note = f" ({r['note']})" if r["note"] else ""
        lines.append(
            f"| {r['workload']} | {r['implementation']}{note} | {r['costs']} | "
            f"{r['items']:,} {unit} | {r['cpu_seconds']:.4f} | {r['rate_per_second']:,.0f} | "
            f"{ratio} |"
        )
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small inputs (smoke test)")
    parser.add_argument("--out", type=Path, default=None, help="JSON output path")
    args = parser.parse_args(argv)
    if args.quick:
        cfg = dict(
            pairs=20_000,
            peer_pairs=5_000,
            square=400,
            peer_rows=10,
            repeat=1,
            queries=50,
            single_queries=5,
            osd_queries=1,
        )
    else:
        cfg = dict(
            pairs=200_000,
            peer_pairs=50_000,
            square=2000,
            peer_rows=40,
            repeat=3,
            queries=200,
            single_queries=20,
            osd_queries=3,
        )
    out = args.out or HERE / "results" / ("latest-quick.json" if args.quick else "latest.json")
    rng = np.random.default_rng(2026)
    tab, checks = Table(), {}
    info = machine()
    print(
        f"{info['cpu_model']} (family {info.get('cpu_family')}, model "
        f"{info.get('cpu_model_number')}, {info['simd_level']}), {info['cores']} cores, "
        f"load {info['load_average_at_start']}"
    )
    with threadpool_limits(1):
        ours, theirs, wlev = workload_i(tab, cfg, rng, checks)
        workload_iii(tab, cfg, rng, checks, ours, theirs, wlev)
        est = workload_v(tab, cfg, checks)
        workload_ii_iv(tab, cfg, rng, checks, est)
    tab.ratios()
    print()
    print(render(tab))
    print()
    print(json.dumps(checks, indent=1))
    out.parent.mkdir(parents=True, exist_ok=True)
    result = {
        "command": "python benchmarks/run.py" + (" --quick" if args.quick else ""),
        "config": cfg,
        "machine": info,
        "rows": tab.rows,
        "cross_checks": checks,
        "table_markdown": render(tab),
    }
    out.write_text(json.dumps(result, indent=1))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()

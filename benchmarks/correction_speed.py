"""How fast OCRCorrector corrects lines, side by side with symspellpy in the same process.

    cd benchmarks && PYTHONPATH=.. python correction_speed.py [--only NAME] [--max-train N]
        [--n-test N] [--tuned] [--params JSON] [--stream] [--stages] [--growth]
        [--repeat 3]

For each collection of ``cross_collection.py`` (its held-out lines and training
part): the default ``OCRCorrector`` fitted on the training lines corrects the
held-out lines twice in one ``predict`` call each (cold caches, then warm: the
corrector's caches of candidates and token words), and symspellpy (pip install
symspellpy; in the ``benchmark`` extra) corrects the same lines token by token:
each whitespace token's core, lower-cased, looked up with ``Verbosity.TOP`` up
to edit distance 2 in a dictionary of the same lexicon with the training
truth's word counts (lexicon words unseen there count 1), case transferred,
punctuation kept.  Then a copy of the fitted corrector, without its caches,
corrects them again with one ``correct`` call per line (cold), as a loop over
a file's lines calls it.  With ``--tuned``, also the corrector
``OCRCorrectorCV`` tunes on the training lines (its default grid); with
``--params '{"decoder__join_cost": null, "rules": []}'``, also
``OCRCorrector().set_params(decoder__join_cost=None, rules=[])`` fitted on them (any
parameters, as JSON; the decoding weights as ``decoder__<weight>``).  Each run is
repeated ``--repeat`` times (default 3), the runs alternating, each cold run on
a copy without caches.  Prints the tokens per CPU second of every run
(``time.process_time``, one thread), then the best of each, its ratio to
symspellpy's best, and the WER each leaves.

``--stream``: the shipped corrector (``pretrained_corrector()``, cold) over
every OCR line of the newspapers and the periodicals (467,000 tokens; its
confidence of changes learned from its changes to the periodicals' training
part, its language model and lexicon from neither), through ``correct_stream``
(500 lines per ``predict`` call, as ``skocrcost correct`` reads a file), and one
``correct`` call per line as a loop over a file's lines calls it, against
symspellpy over the same lines:
``--repeat`` runs of each, alternating, the best of each reported (a shared
machine's load slows runs, never speeds them).

``--stages``: where a line's time goes, in one ``predict`` call on the held-out
lines and in one ``correct`` call per line (each on a copy of the fitted
corrector without its caches, ``--repeat`` times): the milliseconds per line
of the search for new words' candidates (and how many words it searched in the
lexicon), of laying the lines out for the beam search and reading its choices
back, of the compiled beam search, and of the confidence of the changes.

``--growth``: whether a call's fixed cost grows as the caches fill.  The shipped
corrector corrects 2,000 lines one ``correct`` call each, then the same lines
again (warm: the best of ``--repeat`` passes, microseconds per line); then every
line of the three collections in ``predict`` calls of 500, which fills its
caches, and the 2,000 lines again, warm as before.
"""

from __future__ import annotations

import argparse
import gc
import json
import pickle
import time
from collections import Counter

from cross_collection import collections

from skocrcost import OCRCorrector, OCRCorrectorCV, word_error_rate
from skocrcost.correction._tokens import lm_sentence, split_token


def symspell_corrector(lexicon, truth_lines):
    from symspellpy import SymSpell, Verbosity

    counts = Counter(w for line in truth_lines for w in lm_sentence(line))
    speller = SymSpell(max_dictionary_edit_distance=2)
    for word in lexicon:
        speller.create_dictionary_entry(word, counts.get(word, 0) + 1)
    known = set(lexicon)

    def correct(line):
        out = []
        for token in line.split(" "):
            lead, core, trail = split_token(token)
            if core and core.lower() not in known and core.isalpha():
                best = speller.lookup(
                    core, Verbosity.TOP, max_edit_distance=2, transfer_casing=True
                )
                core = best[0].term if best else core
            out.append(lead + core + trail)
        return " ".join(out)

    return correct


def wers(truth, ocr, fixed):
    return f"WER {word_error_rate(truth, ocr):.4f} -> {word_error_rate(truth, fixed):.4f}"


def timed(correct, lines):
    """``(tokens per CPU second, the corrected lines)``: ``correct(lines)``, timed.

    Each run starts with no garbage pending: otherwise the first full collection
    after symspellpy builds its dictionary (millions of objects) would fall in the
    next timed run, whichever tool it times.
    """
    gc.collect()
    t = time.process_time()
    fixed = list(correct(lines))
    return sum(len(line.split()) for line in lines) / (time.process_time() - t), fixed


def each(correct_line):
    return lambda lines: [correct_line(line) for line in lines]


def report(name, what, speed, peer, truth, ocr, fixed):
    print(
        f"{name:12s} {what:24s} {speed:8.0f} tokens/CPU s ({speed / peer:5.2f}x symspellpy)  "
        f"{wers(truth, ocr, fixed)}",
        flush=True,
    )


def stream(batch=500, repeat=3):
    """Best of ``repeat`` runs of each, alternating (the machine's load moves both)."""
    from skocrcost.datasets import pretrained_corrector

    lines, truth = [], []
    for name, (X, y, X_test, y_test) in collections(10**9).items():
        if name in ("newspapers", "periodicals"):
            lines += X + X_test
            truth += y + y_test
    peers, ours, per_line, speller = [], [], [], None
    for _ in range(repeat):
        fixer = pretrained_corrector()  # cold: caches as a new user's
        # symspellpy's lookups keep nothing between calls: its dictionary is built once
        speller = speller or symspell_corrector(fixer.lexicon_, [])
        peers.append(timed(each(speller), lines))
        ours.append(timed(lambda ls, f=fixer: f.correct_stream(ls, batch_size=batch), lines))
        per_line.append(timed(each(pretrained_corrector().correct), lines))  # a loop over lines
    runs = {
        "symspellpy": peers,
        f"shipped, {batch} lines/call": ours,
        "shipped, correct(line)": per_line,
    }
    best("stream", runs, truth, lines)


def growth(n_probe=2000, batch=500, repeat=3):
    """Print the warm time per line of one ``correct`` call per line, before and after
    the caches are filled by every line of the collections."""
    from skocrcost.datasets import pretrained_corrector

    lines = [line for X, _, X_test, _ in collections(10**9).values() for line in X + X_test]
    probe = lines[:n_probe]
    fixer = pretrained_corrector()
    for line in probe:
        fixer.correct(line)

    tokens = sum(len(line.split()) for line in probe)

    def warm():
        speed = max(timed(each(fixer.correct), probe)[0] for _ in range(repeat))
        return 1e6 * tokens / speed / len(probe), len(fixer._decoder()._layout.readings)

    before, sets_before = warm()
    for s in range(0, len(lines), batch):
        fixer.predict(lines[s : s + batch])
    after, sets_after = warm()
    print(
        f"{n_probe} lines, one correct call each, warm: {before:.0f} us per line with "
        f"{sets_before} words' readings cached; {after:.0f} us per line with {sets_after}, "
        f"after {len(lines)} lines",
        flush=True,
    )


def stages(name, fitted, lines, repeat):
    """Print the CPU milliseconds per line of each stage of correcting ``lines``."""
    from skocrcost.correction import _confidence, _decoder
    from skocrcost.neighbors import EditDistanceNeighbors

    spent, searched = Counter(), Counter()

    def timing(key, fn):
        def run(*args, **kwargs):
            t = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[key] += time.process_time() - t

        return run

    def counting(fn):
        def run(index, queries, *args):
            searched[id(index)] += len(queries)
            return fn(index, queries, *args)

        return run

    patches = [
        (_decoder.NoisyChannelDecoder, "candidates", timing),
        (_decoder.NoisyChannelDecoder, "_search_lines", timing),
        (_decoder, "search_lines", timing),
        (_confidence.ChangeConfidence, "review", timing),
        (EditDistanceNeighbors, "_nearest_within", lambda _, fn: counting(fn)),
    ]
    saved = [(owner, attr, getattr(owner, attr)) for owner, attr, _ in patches]
    for owner, attr, wrap in patches:
        setattr(owner, attr, wrap(attr, getattr(owner, attr)))
    try:
        for _ in range(repeat):
            for how in ("predict", "correct(line)"):
                fixer = pickle.loads(pickle.dumps(fitted))  # cold
                spent.clear()
                searched.clear()
                gc.collect()
                t = time.process_time()
                if how == "predict":
                    fixer.predict(lines)
                else:
                    for line in lines:
                        fixer.correct(line)
                total = time.process_time() - t
                ms = {k: 1000 * v / len(lines) for k, v in spent.items()}
                n = searched[id(fixer._decoder().neighbors)]
                print(
                    f"{name:12s} {how:14s} {1000 * total / len(lines):.2f} ms/line: "
                    f"search {ms['candidates']:.2f} ({n} words searched in the lexicon), "
                    f"layout {ms['_search_lines'] - ms['search_lines']:.2f}, "
                    f"beam search {ms['search_lines']:.2f}, confidence {ms['review']:.2f}",
                    flush=True,
                )
    finally:
        for owner, attr, fn in saved:
            setattr(owner, attr, fn)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default=None)
    parser.add_argument("--max-train", type=int, default=None)
    parser.add_argument("--n-test", type=int, default=500)
    parser.add_argument("--tuned", action="store_true", help="also OCRCorrectorCV's corrector")
    parser.add_argument("--stream", action="store_true", help="only the stream run")
    parser.add_argument("--stages", action="store_true", help="only where a line's time goes")
    parser.add_argument(
        "--params",
        default="{}",
        help="also OCRCorrector().set_params(**params) fitted alike (JSON, e.g. "
        '{"decoder__join_cost": null})',
    )
    parser.add_argument(
        "--growth", action="store_true", help="only the fixed cost of a call as caches fill"
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs of each, the best reported")
    args = parser.parse_args(argv)
    if args.stream:
        return stream(repeat=args.repeat)
    if args.growth:
        return growth(repeat=args.repeat)
    params = json.loads(args.params)
    for name, (X, y, X_test, y_test) in collections(args.n_test).items():
        if args.only and name != args.only:
            continue
        X, y = X[: args.max_train], y[: args.max_train]
        fixers = {"OCRCorrector": OCRCorrector().fit(X, y)}
        if args.stages:
            stages(name, fixers["OCRCorrector"], X_test, args.repeat)
            continue
        if params:
            what = " ".join(f"{k}={v}" for k, v in params.items())
            fixers[what] = OCRCorrector().set_params(**params).fit(X, y)
        if args.tuned:
            search = OCRCorrectorCV().fit(X, y)
            fixers[f"tuned {search.best_params_}"] = search.best_estimator_
        speller = symspell_corrector(fixers["OCRCorrector"].lexicon_, y)
        runs = {"symspellpy": []}
        for _ in range(args.repeat):  # alternating: the machine's load moves them all
            runs["symspellpy"].append(timed(each(speller), X_test))
            for what, fitted in fixers.items():
                # A copy keeps no caches (they are not pickled): cold, as a new fit is.
                fixer = pickle.loads(pickle.dumps(fitted))
                for kind in ("cold", "warm"):
                    runs.setdefault(f"{what} ({kind})", []).append(timed(fixer.predict, X_test))
            # One call per line, as a loop over a file's lines calls it: cold.
            fixer = pickle.loads(pickle.dumps(fixers["OCRCorrector"]))
            runs.setdefault("correct(line), cold", []).append(timed(each(fixer.correct), X_test))
        best(name, runs, y_test, X_test)


def best(name, runs, truth, ocr):
    """Print every run's speed, then the best of each against symspellpy's best."""
    for what, timings in runs.items():
        print(f"{name:12s} {what:24s} runs: " + ", ".join(f"{r:.0f}" for r, _ in timings))
    peer = max(runs["symspellpy"], key=lambda run: run[0])[0]
    for what, timings in runs.items():
        speed, fixed = max(timings, key=lambda run: run[0])
        report(name, what, speed, peer, truth, ocr, fixed)


if __name__ == "__main__":
    main()

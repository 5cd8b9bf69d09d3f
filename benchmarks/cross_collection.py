"""Correction as users meet it: fit on some collections, correct another.

    python benchmarks/cross_collection.py [--n-test N] [--max-train N] [--only NAME]

The three collections of ``../shared/data``: ICDAR 2017 English monographs
(``icdar2017_engmono/lines.tsv``), BLN600 newspapers (``bln600/train.lines.tsv``)
and ICDAR 2017 English periodicals (``icdar2017_engper``).  Each is cut into a
training part and held-out lines by block (consecutive lines come from one
document: every tenth block of ``BLOCK`` lines is held out; the periodicals'
``dev`` part, the last 1,311 segments of their ``train`` file, is their held-out
part, and their training part the segments before it), so no held-out line
shares a passage with a training line.  For each collection two runs, through the public one-call
path and its defaults::

    OCRCorrector().fit(ocr_lines, truth_lines).predict(held_out_ocr_lines)

* **cross-collection**: fitted on the training parts of the other two;
* **in-collection**: fitted on its own training part;
* **pretrained** (``--pretrained``): the shipped corrector, not fitted at all
  (``skocrcost.datasets.pretrained_corrector()``; its language model and rules
  come from the embedded ICDAR 2017 monograph sample, its costs from the
  monographs' training part, its confidence from its changes to the training
  parts of the monographs and periodicals: the newspapers are new to it;
  held-out lines of the embedded sample are left out).

With ``--params PARAMS`` (JSON, e.g. ``'{"decoder__join_cost": 3}'``: the
decoding weights as ``decoder__<weight>``), each run's corrector is
``OCRCorrector().set_params(**PARAMS)`` (the pretrained one gets them too).
With ``--estimator ESTIMATOR`` (JSON, e.g. ``'{"max_token_length": 2}'``), each
fitted corrector learns its costs with ``EditCostEstimator(**ESTIMATOR)``.
With ``--cv GRID`` (JSON, e.g. ``'{"decoder__join_cost": [null, 3.0],
"decoder__lm_weight": [0.5, 1.0, 2.0]}'``), each run fits
``OCRCorrectorCV(OCRCorrector().set_params(**PARAMS), param_grid=GRID)`` instead
and corrects with the corrector it chooses (printed).

With ``--confidence-lines K``, the cross-collection and pretrained correctors then
learn their confidence of changes anew from ``K`` line pairs of the collection they
correct (``OCRCorrector.fit_confidence``): whole blocks of its training part, spread
over it, as a user would transcribe a few pages of their own collection.

With ``--confidence-fold F`` (1 to 4; 0, the default, is what ``fit`` does), each
fitted corrector learns its confidence of changes from another set of held-out blocks
of its training lines (``OCRCorrector.CONFIDENCE_FOLD``): how much the figures
depend on the lines the confidence learns from.

With ``--per-line``, each held-out line is corrected by a ``correct`` call of its
own, as a loop over a file's lines does (the confidence then reads each line
without the lines around it), rather than all of them by one ``predict`` call.

With ``--changes``, each run also reports the changes the corrector proposes to
the held-out lines (``correct(text, return_confidence=True)``), each labelled
by whether it helps as the confidence learns it (it gives its tokens their true
words and brings them nearer to the truth in characters; the truth aligned by
``align_tokens``, a change judged with the whole words its tokens belong to):
how many, the share that helps, the ROC AUC of the confidence over them, and how
many of the helpful ones the threshold lets through; and what became of the
errors the lexicon ceiling fixes (:data:`FATES`: a helpful change made or held
back, a wrong change, no change to a split word or a core of several words, no
change though the true word was a candidate, or not a candidate); and the best
review of the proposals any confidence could make (the helpful ones made, no
other): what a perfect confidence would reach with these proposals.

Reported per run: word error rate (WER: word-level Levenshtein over whitespace
tokens, case and punctuation kept) and character error rate (CER) before and
after; the share of the lexicon ceiling's cut (the ceiling: every OCR token
whose aligned truth token differs and has its core in the lexicon gets that
core); the share of lines with more character errors after correction than
before; the share of the OCR tokens that were right and were changed; fit time
and tokens corrected per second.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from _pairs import read_pairs

from skocrcost import EditCostEstimator, OCRCorrector, OCRCorrectorCV
from skocrcost.correction import (
    align_tokens,
    character_error_rate,
    word_error_rate,
)
from skocrcost.correction._confidence import _helps
from skocrcost.correction._tokens import split_token
from skocrcost.datasets import load_icdar2017_sample, pretrained_corrector

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
BLOCK = {"monographs": 25, "newspapers": 20}
HOLD_OUT_EVERY = 10


def collections(n_test):
    """``{name: (train_ocr, train_truth, test_ocr, test_truth)}``, held out by block."""
    out = {}
    for name, path in (
        ("monographs", "icdar2017_engmono/lines.tsv"),
        ("newspapers", "bln600/train.lines.tsv"),
    ):
        X, y = read_pairs(DATA / path)
        block = BLOCK[name]
        held = [(i // block) % HOLD_OUT_EVERY == HOLD_OUT_EVERY - 1 for i in range(len(X))]
        test = fixed_blocks([i for i in range(len(X)) if held[i]], n_test, block)
        train = [i for i in range(len(X)) if not held[i]]
        out[name] = (
            [X[i] for i in train],
            [y[i] for i in train],
            [X[i] for i in test],
            [y[i] for i in test],
        )
    X, y = read_pairs(DATA / "icdar2017_engper" / "train.lines.tsv")
    Xt, yt = read_pairs(DATA / "icdar2017_engper" / "dev.lines.tsv")
    # The dev part is also the train file's last segments: the training part stops
    # before them, or a corrector would be tested on lines it was fitted on.
    n = len(X) - len(Xt)
    if (X[n:], y[n:]) != (Xt, yt):
        raise ValueError("icdar2017_engper: dev.lines.tsv is not the end of train.lines.tsv")
    out["periodicals"] = (X[:n], y[:n], Xt[:n_test], yt[:n_test])
    return out


def confidence_lines(ocr, truth, k, block=20):
    """``k`` of a collection's training pairs: whole blocks of ``block`` lines, spread
    over it (a few pages from here and there)."""
    chosen = fixed_blocks(range(len(ocr)), k, block)
    return [ocr[i] for i in chosen], [truth[i] for i in chosen]


def fixed_blocks(indices, n, block):
    """The first ``n`` of ``indices`` in whole blocks of ``block``, one block in every
    ``len(indices) // n``: the lines every figure of the docs was measured on (a fixed
    choice; its last blocks are left out where ``len(indices) < 2 * n``)."""
    indices = list(indices)
    stride = max(1, len(indices) // n)
    return [i for k, i in enumerate(indices) if (k // block) % stride == 0][:n]


def ceiling(ocr, truth, words):
    """Every OCR token whose aligned truth token differs and is a lexicon word gets it."""
    out = []
    for o_line, t_line in zip(ocr, truth, strict=True):
        tokens = []
        for o, t in align_tokens(o_line, t_line):
            if o is None:
                continue
            truth_core = _ceiling_word(o, t, words)
            if truth_core is not None:
                lead, _, trail = split_token(o)
                o = lead + truth_core + trail
            tokens.append(o)
        out.append(" ".join(tokens))
    return out


def _ceiling_word(o, t, words):
    """The core the ceiling gives the OCR column ``o`` aligned with ``t``: the truth's
    core when it is another lexicon word, else None."""
    if t is None or t == o:
        return None
    core, truth_core = split_token(o)[1], split_token(t)[1]
    if not core or truth_core == core or truth_core.lower() not in words:
        return None
    return truth_core


def right_tokens_changed(ocr, hyp, truth):
    """The share of the OCR tokens equal to their aligned truth token that the
    correction changed (aligned to anything but themselves in its output)."""
    right = changed = 0
    for o_line, h_line, t_line in zip(ocr, hyp, truth, strict=True):
        was_right = _kept_tokens(o_line, t_line)
        right += len(was_right)
        changed += len(was_right - _kept_tokens(o_line, h_line))
    return changed / max(right, 1)


def _token_columns(a_line, b_line):
    """For each whitespace token of ``a_line``, the index of its column in
    ``align_tokens(a_line, b_line)``, and the columns (a column may hold several
    tokens: a split or merged word)."""
    columns = [(a, b) for a, b in align_tokens(a_line, b_line) if a is not None]
    return [k for k, (a, _) in enumerate(columns) for _ in a.split()], columns


def _kept_tokens(a_line, b_line):
    """The whitespace tokens of ``a_line`` aligned to themselves in ``b_line``."""
    where, columns = _token_columns(a_line, b_line)
    return {i for i, k in enumerate(where) if columns[k][0] == columns[k][1]}


def _judged_span(change, o_line, t_line):
    """``(original, corrected, truth)`` token lists of ``change`` widened to the whole
    columns of ``align_tokens(o_line, t_line)`` that it touches, so that a change of
    one token of a split word is judged against the word."""
    where, columns = _token_columns(o_line, t_line)
    first, last = where[change.start], where[change.stop - 1]
    start, stop = where.index(first), len(where) - where[::-1].index(last)
    tokens = o_line.split()
    corrected = tokens[start : change.start] + [change.corrected] + tokens[change.stop : stop]
    truth = [t or "" for _, t in columns[first : last + 1]]
    return tokens[start:stop], corrected, truth


def lines_made_worse(ocr, hyp, truth):
    worse = sum(
        character_error_rate([t], [h]) > character_error_rate([t], [o])
        for o, h, t in zip(ocr, hyp, truth, strict=True)
        if t
    )
    return worse / len(ocr)


def evaluate(fixer, ocr, truth, correct=None, changes=False):
    """The measures of correcting ``ocr`` by ``correct`` (default: ``fixer.predict``);
    ``changes``: also :func:`proposed_changes` of that correction."""
    t0 = time.process_time()
    hyp = list(fixer.predict(ocr)) if correct is None else [correct(line) for line in ocr]
    seconds = time.process_time() - t0
    out = quality(ocr, hyp, truth)
    wer0, wer1 = out["wer_before"], out["wer_after"]
    wer_c = word_error_rate(truth, ceiling(ocr, truth, set(fixer.lexicon_)))

    def ceiling_share(wer_after):
        return (wer0 - wer_after) / (wer0 - wer_c) if wer0 > wer_c else float("nan")

    out["ceiling_share"] = ceiling_share(wer1)
    out["tokens_per_cpu_second"] = sum(len(o.split()) for o in ocr) / seconds
    if changes:
        out.update(proposed_changes(fixer, ocr, truth, hyp))
        out["best_review"]["ceiling_share"] = ceiling_share(out["best_review"]["wer_after"])
    return out


def proposed_changes(fixer, ocr, truth, hyp):
    """The changes ``fixer`` proposes to ``ocr`` read as one text (``hyp``, as
    ``predict`` corrected it), judged against ``truth``: their number, the share that
    helps, the confidence's ROC AUC over them, and the helpful ones applied
    (``min_confidence``) out of all helpful ones."""
    from sklearn.metrics import roc_auc_score

    text, changes = fixer.correct("\n".join(ocr), return_confidence=True)
    if text.split("\n") != hyp:
        raise AssertionError("correct(text) and predict(lines) disagree")
    made = applying(ocr, changes, [c.applied for c in changes])
    if [line.split() for line in made] != [line.split() for line in hyp]:
        raise AssertionError("the changes made are not those of the correction")
    helps = [_helps(*_judged_span(c, ocr[c.line], truth[c.line])) for c in changes]
    best = applying(ocr, changes, helps)
    p = [c.confidence for c in changes]
    auc = roc_auc_score(helps, p) if 0 < sum(helps) < len(helps) else float("nan")
    return {
        "changes": len(changes),
        "helpful_share": sum(helps) / max(len(changes), 1),
        "confidence_auc": float(auc),
        "helpful_applied": sum(h and c.applied for h, c in zip(helps, changes)),
        "helpful": sum(helps),
        "ceiling_errors": ceiling_errors(fixer, ocr, truth, changes),
        # (measured against the OCR single-spaced too: the spacing changes nothing)
        "best_review": quality([" ".join(o.split()) for o in ocr], best, truth),
    }


def applying(ocr, changes, chosen):
    """The lines ``ocr`` with the ``changes`` for which ``chosen`` is true made (their
    tokens single-spaced)."""
    lines = [line.split() for line in ocr]
    # (from a line's last change to its first: a join shortens the tokens after it)
    for c, made in sorted(zip(changes, chosen), key=lambda p: (p[0].line, -p[0].start)):
        if made:
            lines[c.line][c.start : c.stop] = [c.corrected]
    return [" ".join(tokens) for tokens in lines]


# What became of the errors the lexicon ceiling fixes, in the order reported.
FATES = (
    "applied",  # a change that helps (its label) covered the token, and was made
    "held back",  # ... and the confidence held it back
    "wrong change",  # the change proposed over it does not help
    "split or inner punctuation",  # no change; several tokens, or a core of several words
    "candidate not chosen",  # no change; the true word was among the candidates
    "not a candidate",  # no change; the true word was not among the candidates
)


def ceiling_errors(fixer, ocr, truth, changes):
    """``{fate: count}`` of the OCR tokens the lexicon ceiling corrects (:func:`ceiling`)
    in ``changes``, the corrector's proposals to ``ocr`` read as one text."""
    words = set(fixer.lexicon_)
    decoder = fixer._decoder()
    by_line = {}
    for c in changes:
        by_line.setdefault(c.line, []).append(c)
    fates = dict.fromkeys(FATES, 0)
    for i, (o_line, t_line) in enumerate(zip(ocr, truth, strict=True)):
        where, columns = _token_columns(o_line, t_line)
        covering = {where[k]: c for c in by_line.get(i, ()) for k in range(c.start, c.stop)}
        for k, (o, t) in enumerate(columns):
            truth_core = _ceiling_word(o, t, words)
            if truth_core is None:
                continue  # not an error the ceiling fixes
            core = split_token(o)[1]
            change = covering.get(k)
            if change is not None:
                right = _helps(*_judged_span(change, o_line, t_line))
                fate = ("applied" if change.applied else "held back") if right else "wrong change"
            elif " " in o or len(decoder._word_pieces(core)) > 1:
                fate = "split or inner punctuation"
            else:
                key = decoder._key(core)
                decoder.candidates([key])
                found = truth_core.lower() in decoder._cache[key][0]
                fate = "candidate not chosen" if found else "not a candidate"
            fates[fate] += 1
    return fates


def quality(ocr, hyp, truth):
    """WER and CER before and after, lines made worse, right tokens changed."""
    wer0, wer1 = word_error_rate(truth, ocr), word_error_rate(truth, hyp)
    return {
        "wer_before": wer0,
        "wer_after": wer1,
        "wer_change": (wer1 - wer0) / wer0,
        "cer_before": character_error_rate(truth, ocr),
        "cer_after": character_error_rate(truth, hyp),
        "lines_worse": lines_made_worse(ocr, hyp, truth),
        "right_changed": right_tokens_changed(ocr, hyp, truth),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n-test", type=int, default=500, help="held-out lines per collection")
    parser.add_argument(
        "--max-train", type=int, default=None, help="training lines per collection (all)"
    )
    parser.add_argument("--only", default=None, help="one collection to correct")
    parser.add_argument("--in-collection", action="store_true", help="in-collection runs only")
    parser.add_argument("--cross", action="store_true", help="cross-collection runs only")
    parser.add_argument(
        "--params",
        default="{}",
        help='OCRCorrector parameters, as JSON (set_params names, e.g. {"decoder__join_cost": 3})',
    )
    parser.add_argument(
        "--estimator",
        default=None,
        help="fit with OCRCorrector(EditCostEstimator(**ESTIMATOR)): its parameters, as JSON "
        '(e.g. {"max_token_length": 2}); not with --pretrained',
    )
    parser.add_argument("--json", default=None, help="write the results to this file")
    parser.add_argument(
        "--symspell", action="store_true", help="also symspellpy, token by token, same lexicon"
    )
    parser.add_argument(
        "--pretrained",
        action="store_true",
        help="correct every collection with the shipped corrector (pretrained_corrector())",
    )
    parser.add_argument(
        "--confidence-lines",
        type=int,
        default=0,
        help="cross-collection and pretrained runs: learn the confidence anew from this "
        "many line pairs of the corrected collection (fit_confidence)",
    )
    parser.add_argument(
        "--confidence-fold",
        type=int,
        default=0,
        help="fitted runs: learn the confidence from this other set of held-out blocks "
        "(OCRCorrector.CONFIDENCE_FOLD, 0-4)",
    )
    parser.add_argument(
        "--cv",
        default=None,
        help="fit OCRCorrectorCV with this param_grid (JSON, e.g. "
        '{"decoder__join_cost": [null, 3.0], "decoder__lm_weight": [0.5, 1.0, 2.0]}) '
        "instead, and correct with the corrector it chooses",
    )
    parser.add_argument(
        "--changes",
        action="store_true",
        help="also judge every change proposed: share helpful, confidence ROC AUC",
    )
    parser.add_argument(
        "--per-line",
        action="store_true",
        help="correct each held-out line by a correct() call of its own (not with --changes)",
    )
    parser.add_argument(
        "--thresholds",
        default=None,
        help="comma-separated min_confidence values to correct with (no refit)",
    )
    args = parser.parse_args(argv)
    if args.per_line and args.changes:
        parser.error("--changes judges the changes of one call over the lines: not with --per-line")
    params = json.loads(args.params)
    estimator = None if args.estimator is None else EditCostEstimator(**json.loads(args.estimator))
    data = collections(args.n_test)
    if args.max_train:
        data = {
            k: (a[: args.max_train], b[: args.max_train], c, d) for k, (a, b, c, d) in data.items()
        }
    runs = []
    k = args.confidence_lines
    corrector_class = OCRCorrector
    if args.confidence_fold:  # (a subclass: OCRCorrectorCV's clones keep the fold)
        fold = {"CONFIDENCE_FOLD": args.confidence_fold}
        corrector_class = type("OCRCorrector", (OCRCorrector,), fold)
    if args.pretrained:
        sample = set(load_icdar2017_sample("lines")[0])  # what it learned from
        for name, (X_train, y_train, X_test, y_test) in data.items():
            if args.only and name != args.only:
                continue
            fixer = pretrained_corrector().set_params(**params)
            t0 = time.process_time()
            if k:
                fixer.fit_confidence(*confidence_lines(X_train, y_train, k))
            fit_seconds = time.process_time() - t0
            kept = [j for j, x in enumerate(X_test) if x not in sample]
            X_test, y_test = [X_test[j] for j in kept], [y_test[j] for j in kept]
            for threshold in _thresholds(args, fixer):
                fixer.set_params(min_confidence=threshold)
                result = evaluate(fixer, X_test, y_test, _line_by_line(args, fixer), args.changes)
                result.update(
                    collection=name, run=f"pretrained+{k}" if k else "pretrained",
                    fit_seconds=fit_seconds, n_train=k, min_confidence=threshold,
                    per_line=args.per_line,
                )  # fmt: skip
                runs.append(result)
                report(result)
    for name in data if not args.pretrained else ():
        if args.only and name != args.only:
            continue
        others = [k for k in data if k != name]
        kinds = [("cross", others), ("in", [name])]
        if args.in_collection:
            kinds = kinds[1:]
        if args.cross:
            kinds = kinds[:1]
        for kind, sources in kinds:
            X = [line for k in sources for line in data[k][0]]
            y = [line for k in sources for line in data[k][1]]
            t0 = time.process_time()
            if args.cv:
                corrector = corrector_class(estimator).set_params(**params)
                search = OCRCorrectorCV(corrector, param_grid=json.loads(args.cv))
                fixer = search.fit(X, y).best_estimator_
                print(f"{name:12s} {kind:5s} OCRCorrectorCV chose {search.best_params_}")
            else:
                fixer = corrector_class(estimator).set_params(**params).fit(X, y)
            if k and kind == "cross":
                fixer.fit_confidence(*confidence_lines(data[name][0], data[name][1], k))
                kind = f"cross+{k}"
            fit_seconds = time.process_time() - t0
            for threshold in _thresholds(args, fixer):
                fixer.set_params(min_confidence=threshold)
                result = evaluate(
                    fixer, data[name][2], data[name][3], _line_by_line(args, fixer), args.changes
                )
                result.update(
                    collection=name,
                    run=kind,
                    fit_seconds=fit_seconds,
                    n_train=len(X),
                    min_confidence=fixer.min_confidence,
                    per_line=args.per_line,
                )
                runs.append(result)
                report(result)
            if args.symspell:
                from correction_speed import symspell_corrector

                speller = symspell_corrector(fixer.lexicon_, y)
                result = evaluate(fixer, data[name][2], data[name][3], speller)
                result.update(
                    collection=name,
                    run=kind,
                    fit_seconds=0.0,
                    n_train=len(X),
                    min_confidence="symspellpy",
                )
                runs.append(result)
                report(result)
    if args.json:
        Path(args.json).write_text(json.dumps(runs, indent=1))
    return runs


def _line_by_line(args, fixer):
    """``fixer.correct`` with ``--per-line`` (a call per line), else None (one call)."""
    return fixer.correct if args.per_line else None


def _thresholds(args, fixer):
    """The ``min_confidence`` values to correct with: ``--thresholds``, or the fixer's own."""
    if args.thresholds:
        return [float(v) for v in args.thresholds.split(",")]
    return [fixer.min_confidence]


def report(result):
    print(
        f"{result['collection']:12s} {result['run']:5s} "
        f"{result['min_confidence']}  WER {result['wer_before']:.4f} -> {result['wer_after']:.4f}"
        f" ({100 * result['wer_change']:+.1f}%)  CER {result['cer_before']:.4f} -> "
        f"{result['cer_after']:.4f}  ceiling {100 * result['ceiling_share']:.0f}%  "
        f"worse {100 * result['lines_worse']:.1f}%  right changed "
        f"{100 * result['right_changed']:.2f}%  fit {result['fit_seconds']:.0f} s  "
        f"{result['tokens_per_cpu_second']:.0f} tok/s",
        flush=True,
    )
    if "changes" in result:
        print(
            f"{'':18s} {result['changes']} changes proposed, "
            f"{100 * result['helpful_share']:.0f}% helpful, confidence ROC AUC "
            f"{result['confidence_auc']:.2f}, {result['helpful_applied']} of the "
            f"{result['helpful']} helpful ones applied",
            flush=True,
        )
        best = result["best_review"]
        print(
            f"{'':18s} the best review (the helpful ones only): WER {best['wer_after']:.4f} "
            f"({100 * best['wer_change']:+.1f}%), ceiling {100 * best['ceiling_share']:.0f}%, "
            f"worse {100 * best['lines_worse']:.1f}%",
            flush=True,
        )
        fates = result["ceiling_errors"]
        n = max(sum(fates.values()), 1)
        print(
            f"{'':18s} the ceiling's {sum(fates.values())} errors: "
            + ", ".join(f"{fate} {100 * count / n:.0f}%" for fate, count in fates.items()),
            flush=True,
        )


if __name__ == "__main__":
    sys.exit(main() and 0)

"""The ``skocrcost`` command: learn costs from a file of pairs, measure distances, demo."""

import argparse
import contextlib
import io
import math
import os
import pathlib
import stat
import sys

from ._progress import progress

EXAMPLES = """examples:
  skocrcost demo
      learn OCR error costs on the embedded ICDAR 2017 sample, k by cross-validation
  skocrcost fit pairs.tsv -o model.json
      learn costs from your own OCR: one 'OCR<TAB>truth' pair per line; k by 5-fold CV
  skocrcost fit pairs.tsv -o model.json --k 0.1 --model bounded --plot costs.png
      a fixed k, costs bounded in [0, 1], and a picture of what was learned
  skocrcost distance tbe the --model model.json --explain
      the learned distance, and the edits of its cheapest alignment
  skocrcost distance tbe the
      the same with the shipped model for English historical print (en-historical)
  skocrcost neighbors tbe Cambridgo --lexicon words.txt -n 3
      the 3 nearest lexicon words of each query under the learned costs
  cut -f1 pairs.tsv | skocrcost neighbors --lexicon words.txt --model model.json
      queries from stdin, one per line; output: query<TAB>word<TAB>distance
  skocrcost correct page.txt > fixed.txt
      correct a text with the shipped corrector for English historical print
  skocrcost correct pages/*.txt -o fixed/ --n-jobs -1
      correct many files in one run (each into fixed/ under its name), every core
  skocrcost fit lines.tsv -o corrector.json.gz --corrector
      learn a whole corrector from your own (OCR, truth) line pairs ...
  skocrcost correct --model corrector.json.gz page.txt > fixed.txt
      ... and correct with it
  skocrcost correct --confidence-pairs mine.tsv page.txt > fixed.txt
      the shipped corrector, its confidence of changes learned anew from a few hundred
      transcribed line pairs of the page's collection (more words fixed where it is
      unlike the print the corrector learned from)
  skocrcost correct page.alto.xml > fixed.alto.xml
      correct the words of an ALTO, hOCR or PAGE XML file in place (format detected;
      --format to name it), every coordinate and id kept, the OCR's reading kept beside
      the new one
"""

# ``--k auto``: k chosen by cross-validation over _demo.K_SEARCH.
K_AUTO = "auto"


def _say(args, *lines):
    if not args.quiet:
        for line in lines:
            print(line)


def _k(text):
    if text == K_AUTO:
        return text
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be 'auto' or a number >= 0, got {text!r}") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be 'auto' or a finite number >= 0, got {text!r}")
    return value


def _whole_number(text, ok, what):
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or not ok(value):
        raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}")
    return value


def _positive(text):
    return _whole_number(text, lambda v: v >= 1, "a whole number >= 1")


def _probability(text):
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be a number in [0, 1], got {text!r}")
    return value


def _n_jobs(text):
    return _whole_number(text, lambda v: v != 0, "a non-zero whole number (-1: all cores)")


def _name(path):
    return "<stdin>" if path == "-" else path


def read_text(path):
    """The whole UTF-8 text of a file ('-' is stdin), line ends as they are."""
    f = sys.stdin if path == "-" else open(path, encoding="utf-8", newline="")
    try:
        return f.read()
    except UnicodeDecodeError as exc:
        raise ValueError(f"{_name(path)} is not UTF-8 text: {exc}") from None
    finally:
        if f is not sys.stdin:
            f.close()


def read_lines(path, what):
    """Non-empty lines of a UTF-8 file ('-' is stdin), without their line ends."""
    lines = [line for line in read_text(path).splitlines() if line]
    if not lines:
        raise ValueError(f"{what} {_name(path)} holds no lines")
    return lines


def read_pairs(path):
    """(OCR, truth) lists from a file of 'OCR<TAB>truth' lines ('-' is stdin)."""
    X, y = [], []
    for number, line in enumerate(read_text(path).split("\n"), 1):
        line = line.rstrip("\r")
        if not line:
            continue
        fields = line.split("\t")
        if len(fields) != 2:
            raise ValueError(
                f"{_name(path)} line {number}: expected 'OCR<TAB>truth' (one tab), "
                f"found {len(fields) - 1} tabs"
            )
        X.append(fields[0])
        y.append(fields[1])
    if not X:
        raise ValueError(f"{_name(path)} holds no pairs")
    return X, y


def _fit(args):
    from sklearn.model_selection import GridSearchCV, KFold

    from ._demo import K_SEARCH
    from .estimator import EditCostEstimator
    from .plotting import cheapest_confusions

    X, y = read_pairs(args.pairs)
    est = EditCostEstimator(model=args.model, n_jobs=args.n_jobs)
    if args.corrector:
        return _fit_corrector(args, est, X, y)
    if args.lexicon:
        raise ValueError("--lexicon is for --corrector (costs alone have no lexicon)")
    if args.k == K_AUTO:
        if len(X) < args.cv:
            raise ValueError(f"--k auto needs at least --cv={args.cv} pairs, got {len(X)}")
        bar = progress(args.cv * len(K_SEARCH) + 1, "choosing k", args.quiet)

        def scored(estimator, X_test, y_test):
            bar.update()
            return estimator.score(X_test, y_test)

        search = GridSearchCV(
            est,
            {"k": list(K_SEARCH)},
            scoring=scored,
            cv=KFold(args.cv, shuffle=True, random_state=0),
        )
        try:
            search.fit(X, y)
            bar.update()
        finally:
            bar.close()
        est = search.best_estimator_
        scores = dict(zip(K_SEARCH, search.cv_results_["mean_test_score"], strict=True))
        _say(args, f"k = {est.k:g} chosen by {args.cv}-fold cross-validation "
                   f"(held-out log-likelihood per pair {scores[est.k]:.3f})")  # fmt: skip
    else:
        bar = progress(1, "fitting", args.quiet)
        try:
            est.set_params(k=args.k).fit(X, y)
            bar.update()
        finally:
            bar.close()
    est.save(args.output, include_references=False)
    _say(
        args,
        f"learned costs over {len(est.vocabulary_)} characters from {len(X)} pairs "
        f"({est.model} model); wrote {args.output}",
        "cheapest errors seen:",
        *(
            f"  {s or '(none)':>6} -> {t or '(none)':<6} cost {cost:.3f}  seen {n}"
            for s, t, cost, n in cheapest_confusions(est, 5)
        ),
    )
    if args.plot:
        from .plotting import plot_costs

        plot_costs(est).savefig(args.plot, dpi=120)
        _say(args, f"wrote {args.plot}")
    return 0


def _fit_corrector(args, est, X, y):
    """``fit --corrector``: a whole OCRCorrector learned from line pairs, saved as JSON."""
    from .correction import OCRCorrector

    if args.k != K_AUTO:
        est.set_params(k=args.k)
    lexicon = read_lines(args.lexicon, "the lexicon") if args.lexicon else "english"
    corrector = OCRCorrector(est, lexicon=lexicon, n_jobs=args.n_jobs)
    bar = progress(1, "fitting the corrector", args.quiet)
    try:
        corrector.fit(X, y)
        bar.update()
    finally:
        bar.close()
    corrector.save(args.output)
    confidence = corrector.confidence_
    _say(
        args,
        f"learned a corrector from {len(X)} line pairs: costs over "
        f"{len(corrector.estimator_.vocabulary_)} characters (k = {est.k:g}), "
        f"{len(corrector.lexicon_)} lexicon words, a trigram language model, and "
        + (
            f"the confidence of changes from {confidence.n_changes_} held-out changes"
            if confidence is not None
            else "no confidence of changes (too few held-out changes: every change is made)"
        ),
        f"wrote {args.output}; use it with: skocrcost correct --model {args.output} FILE",
    )
    return 0


def _load_metric(name):
    from .datasets import PRETRAINED, pretrained
    from .metrics import WeightedLevenshtein

    if name in PRETRAINED:
        return pretrained(name).metric_
    return WeightedLevenshtein.load(name)


def _distance(args):
    metric = _load_metric(args.model)
    print(f"{metric.distance(args.a, args.b):.6g}")
    if args.explain:
        for op in metric.explain(args.a, args.b):
            print(f"  {op.kind:<10} {op.source or '-':>3} -> {op.target or '-':<3} {op.cost:.4f}")
    return 0


# Queries per batch of ``neighbors``: the progress bar moves once per batch.
NEIGHBOR_BATCH = 2000


def _neighbors(args):
    from .neighbors import EditDistanceNeighbors

    lexicon = list(dict.fromkeys(read_lines(args.lexicon, "the lexicon")))  # first wins ties
    queries = args.queries or read_lines("-", "the queries on")
    metric = _load_metric(args.model)
    n = min(args.n_neighbors, len(lexicon))
    nn = EditDistanceNeighbors(n, metric=metric, n_jobs=args.n_jobs).fit(lexicon)
    batches = range(0, len(queries), NEIGHBOR_BATCH)
    bar = progress(len(batches), "searching", args.quiet or len(batches) < 2)
    try:
        for start in batches:
            part = queries[start : start + NEIGHBOR_BATCH]
            dist, ind = nn.kneighbors(part)
            for query, row_d, row_i in zip(part, dist, ind, strict=True):
                for d, i in zip(row_d, row_i, strict=True):
                    print(f"{query}\t{lexicon[i]}\t{d:.6g}")
            bar.update()
    finally:
        bar.close()
    return 0


# Bytes read at a time to tell an XML document from text by its first non-blank byte.
HEAD_BYTES = 64 * 1024


def _correct(args):
    # Where each FILE's correction goes, checked before the corrector loads.
    targets = None if args.output_dir is None else _targets(args.files, args.output_dir)
    if targets is None and len(args.files) > 1:
        raise ValueError("more than one FILE needs --output-dir: where to write each")
    corrector = _corrector_for(args)
    if args.confidence_pairs:
        corrector.fit_confidence(*read_pairs(args.confidence_pairs))
        if not args.quiet:
            print(
                f"learned the confidence of changes from the corrector's "
                f"{corrector.confidence_.n_changes_} changes to {args.confidence_pairs}",
                file=sys.stderr,
            )
    if args.min_confidence is not None:
        corrector.set_params(min_confidence=args.min_confidence)
    from ._threads import n_workers

    workers = n_workers(args.n_jobs)
    if targets is not None:
        _correct_files(corrector, targets, args.format, args.quiet, workers)
        return 0
    path = args.files[0]
    source = contextlib.nullcontext(sys.stdin.buffer) if path == "-" else open(path, "rb")
    with source as f:
        quiet, name, out = args.quiet, _name(path), (sys.stdout.write, _write_stdout_bytes)
        _correct_input(corrector, f, name, args.format, *out, _size(f), quiet, workers)
    return 0


def _write_stdout_bytes(data):
    sys.stdout.flush()  # (text written before goes first)
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def _correct_input(corrector, f, name, format, write, write_bytes, total, quiet, workers):
    """Correct the binary input ``f`` (``name`` in messages): an OCR XML document
    whole, its bytes given to ``write_bytes``; text a batch at a time, each given
    to ``write`` as a str (:func:`_correct_text`)."""
    head, document = _read_input(format, f)
    if document is not None:
        write_bytes(_corrected_document(corrector, document))
    else:
        _correct_text(corrector, _byte_lines(head, f), name, total, quiet, workers, write)


def _targets(files, output_dir):
    """``(FILE, the path its correction is written to)`` for each of ``files``: in
    ``output_dir``, under the FILE's own name."""
    if "-" in files:
        raise ValueError("--output-dir writes each FILE under its name: stdin ('-') has none")
    out = pathlib.Path(output_dir)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--output-dir {output_dir} is not a directory")
    targets, named = [], {}
    for path in files:
        if not os.path.isfile(path):
            raise ValueError(f"FILE {path} is not a file")
        target = out / os.path.basename(path)
        if target.name in named:
            raise ValueError(f"{named[target.name]} and {path} would both be written to {target}")
        named[target.name] = path
        if target.exists() and os.path.samefile(target, path):
            raise ValueError(f"--output-dir {output_dir} holds {path}: it would be overwritten")
        targets.append((path, target))
    return targets


def _correct_files(corrector, targets, format, quiet, workers=1):
    """Correct each ``(FILE, target)`` of ``targets`` into its target, a progress bar
    counting files.  ``workers`` > 1: several files are shared among that many
    processes, a file to each in turn (:func:`skocrcost._workers.in_processes`);
    one file has its batches shared, as on stdout.  Each file is corrected as
    the command corrects it alone, so the output is the same for any ``workers``."""
    from . import _workers

    targets[0][1].parent.mkdir(parents=True, exist_ok=True)
    bar = progress(len(targets), "correcting", quiet or len(targets) < 2, unit="file")
    try:
        if workers > 1 and len(targets) > 1 and _workers.may_start():
            jobs = ((target, None) for target in targets)
            n = min(workers, len(targets))
            done = _workers.in_processes(_file_job, corrector, jobs, n, format)
        else:
            done = (_correct_file(corrector, *target, format, workers) for target in targets)
        for _ in done:
            bar.update()
    finally:
        bar.close()


def _file_job(corrector, target, format):
    """:func:`_correct_file` of one ``(FILE, target)`` in a worker process."""
    _correct_file(corrector, *target, format)


def _correct_file(corrector, path, target, format, workers=1):
    """Correct FILE ``path`` into ``target``, written under a name of its own first
    and renamed when whole: an error leaves no half-written file."""
    partial = target.with_name(f".{target.name}.partial")
    try:
        with open(path, "rb") as f, open(partial, "wb") as out:

            def write(text):
                out.write(text.encode("utf-8"))

            _correct_input(corrector, f, path, format, write, out.write, None, True, workers)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)


def _correct_text(corrector, lines, name, total, quiet, workers, write):
    """Correct UTF-8 byte ``lines`` a batch at a time, in order, each given to
    ``write`` (a str) as soon as it and those before it are done; the
    progress bar counts bytes (of ``total``, None when not known).  ``workers`` > 1:
    batches are shared among that many processes (:func:`skocrcost._workers.corrected`)."""
    from . import _workers

    bar, done = progress(total, "correcting", quiet=True), 0  # none until a second batch
    # (the text streams through: one batch at a time, BATCH_LINES lines)
    batches = _text_batches(lines, name, _workers.BATCH_LINES)
    try:
        for i, (fixed, n_bytes) in enumerate(_workers.corrected(corrector, batches, workers)):
            if i == 1:  # a bar only for more than one batch
                bar = progress(total, "correcting", quiet, unit="B")
                bar.update(done)
            # Lines are split at each "\n" (as str.split): one goes back between batches.
            write(("\n" if i else "") + "\n".join(fixed))
            done += n_bytes
            bar.update(n_bytes)
    finally:
        bar.close()


def _text_batches(lines, name, size):
    """The lines ``text.split("\\n")`` gives of the text of UTF-8 byte ``lines`` (each
    with its line end), in lists of ``size``, each with the bytes it was read from."""
    batch, n_bytes, line = [], 0, b"\n"
    for number, line in enumerate(lines, 1):
        try:
            # A b"\n" byte is never inside a UTF-8 character: each line decodes alone.
            batch.append(line.decode("utf-8").removesuffix("\n"))
        except UnicodeDecodeError as exc:
            raise ValueError(f"{name} is not UTF-8 text: line {number}: {exc}") from None
        n_bytes += len(line)
        if len(batch) == size:
            yield batch, n_bytes
            batch, n_bytes = [], 0
    if line.endswith(b"\n"):  # after a final line end (or in no text): an empty line
        batch.append("")
    if batch:
        yield batch, n_bytes


def _byte_lines(head, f):
    """The lines of ``head`` and then of the rest of ``f``, each with its b"\\n"."""
    lines = io.BytesIO(head).readlines()
    if lines and not lines[-1].endswith(b"\n"):
        lines[-1] += f.readline()
    yield from lines
    yield from f


def _size(f):
    """The size of ``f`` in bytes if it is a regular file, else None (a pipe)."""
    try:
        status = os.fstat(f.fileno())
    except OSError:  # a stream without a file descriptor
        return None
    return status.st_size if stat.S_ISREG(status.st_mode) else None


def _corrector_for(args):
    """The corrector ``correct`` runs: a shipped or saved one, or one fitted on --pairs."""
    from . import _persist
    from .correction import OCRCorrector
    from .correction._persist import KEY
    from .datasets import PRETRAINED, PRETRAINED_CORRECTORS, pretrained, pretrained_corrector
    from .estimator import EditCostEstimator

    shipped = args.model in PRETRAINED_CORRECTORS or args.model in PRETRAINED
    data = None if shipped else _persist.read_json(args.model)
    if not args.pairs:
        if args.lexicon:
            raise ValueError(
                "--lexicon needs --pairs: a fitted corrector has its lexicon's search "
                "index built in; give line pairs to fit one on your lexicon"
            )
        if shipped:
            corrector = pretrained_corrector(args.model)
        elif KEY in data:
            corrector = OCRCorrector.load(args.model)
        else:
            raise ValueError(
                f"{args.model} holds costs only: give --pairs to learn the rest of a "
                "corrector, or a corrector file from 'skocrcost fit --corrector'"
            )
        return corrector.set_params(n_jobs=args.n_jobs)
    try:
        from sklearn.frozen import FrozenEstimator
    except ImportError:
        raise ImportError("skocrcost correct --pairs needs scikit-learn >= 1.6") from None
    if data is not None and _persist.ESTIMATOR_KEY not in data:
        raise ValueError(
            f"{args.model} holds no estimator; --pairs needs costs from 'skocrcost fit' "
            "or EditCostEstimator.save (for the channel's scale)"
        )
    costs = pretrained(args.model) if shipped else EditCostEstimator.load(args.model)
    lexicon = read_lines(args.lexicon, "the lexicon") if args.lexicon else "english"
    # The costs come from the model file as they are (frozen): the line pairs teach the
    # language model, the word prior, the rules and the confidence of changes.
    corrector = OCRCorrector(FrozenEstimator(costs), lexicon=lexicon, n_jobs=args.n_jobs)
    return corrector.fit(*read_pairs(args.pairs))


def _read_input(format, f):
    """``(head, None)`` for text, ``head`` its first bytes read from binary ``f`` (the
    rest still to read); ``(None, (bytes, format))`` for an OCR XML document, read
    whole (``--format``, or detected: ALTO, hOCR or PAGE; text when not markup)."""
    if format == "text":
        return b"", None
    from .formats import detect_format
    from .formats._detect import LEADING, looks_like_markup

    head = b""
    if format == "auto":
        # Markup or text: its first non-blank byte tells, so text need not be read whole.
        while not head.lstrip(LEADING) and (chunk := f.read(HEAD_BYTES)):
            head += chunk
        if not looks_like_markup(head):
            return head, None
    data = head + f.read()
    return None, (data, detect_format(data) if format == "auto" else format)


def _corrected_document(corrector, document):
    """The bytes of an OCR XML document ``(bytes, format)``, its words corrected in place."""
    from .formats import correct_document

    data, format = document
    return correct_document(data, corrector, format=format)


def _demo(args):
    from ._demo import run

    run(print_=(lambda *a, **k: None) if args.quiet else print)
    return 0


def build_parser():
    parser = argparse.ArgumentParser(
        prog="skocrcost",
        description="Learn what each OCR character error costs, and use the learned metric.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("-q", "--quiet", action="store_true", help="print only the results")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    fit = sub.add_parser(
        "fit",
        parents=[common],
        help="learn costs from a file of (OCR, truth) pairs",
        description="Learn costs from PAIRS ('OCR<TAB>truth' per line, UTF-8; '-' for stdin) "
        "and write them as JSON (readable by ocr-stringdist's WeightedLevenshtein.from_dict, "
        "and by EditCostEstimator.load with the counts).",
    )
    fit.add_argument("pairs", metavar="PAIRS", help="tab-separated pairs, '-' for stdin")
    fit.add_argument("-o", "--output", required=True, help="the model file (.json or .json.gz)")
    fit.add_argument(
        "--k", type=_k, default=K_AUTO, help="smoothing, or 'auto' (default): chosen by CV"
    )
    fit.add_argument(
        "--model",
        choices=("unified", "bounded", "legacy"),
        default="unified",
        help="unified (default) or bounded (costs in [0, 1]); legacy: old name of bounded",
    )
    fit.add_argument("--cv", type=int, default=5, help="folds for --k auto (default 5)")
    fit.add_argument("--n-jobs", type=_n_jobs, default=None, help="threads (-1: all cores)")
    fit.add_argument("--plot", metavar="PNG", help="also draw the learned costs (matplotlib)")
    fit.add_argument(
        "--corrector",
        action="store_true",
        help="learn a whole corrector from line pairs (costs, language model, rules, "
        "confidence of changes) for 'correct --model'; --k auto then means k = 1",
    )
    fit.add_argument(
        "--lexicon", help="with --corrector: a word list (default: the shipped English words)"
    )
    fit.set_defaults(func=_fit)

    distance = sub.add_parser(
        "distance",
        parents=[common],
        help="the learned distance from A (OCR) to B (truth)",
        description="Print the distance from A (the OCR side) to B (the truth side).",
    )
    distance.add_argument("a", metavar="A")
    distance.add_argument("b", metavar="B")
    distance.add_argument(
        "--model",
        default="en-historical",
        help="a JSON cost file, or a shipped model's name (default: en-historical)",
    )
    distance.add_argument("--explain", action="store_true", help="list the edits and costs")
    distance.set_defaults(func=_distance)

    neighbors = sub.add_parser(
        "neighbors",
        parents=[common],
        help="the nearest lexicon words of each query (exact search)",
        description="Print the N nearest words of LEXICON (one word per line, UTF-8; the first "
        "of equally near words wins, so list frequent words first) for each QUERY, or for "
        "each line of stdin, as 'query<TAB>word<TAB>distance' lines, nearest first.",
    )
    neighbors.add_argument("queries", metavar="QUERY", nargs="*", help="default: stdin lines")
    neighbors.add_argument("--lexicon", required=True, help="a word list, one per line")
    neighbors.add_argument(
        "--model",
        default="en-historical",
        help="a JSON cost file, or a shipped model's name (default: en-historical)",
    )
    neighbors.add_argument("-n", "--n-neighbors", type=_positive, default=5, help="default 5")
    neighbors.add_argument("--n-jobs", type=_n_jobs, default=None, help="threads (-1: all cores)")
    neighbors.set_defaults(func=_neighbors)

    correct = sub.add_parser(
        "correct",
        parents=[common],
        help="correct a text line by line (text in, text out)",
        description="Correct FILE (or stdin) line by line with OCRCorrector's line decoder "
        "(learned edit costs, a language model, the lexicon, the confidence of changes) "
        "and write it to stdout, spacing and line ends kept; with --output-dir, correct "
        "each of several FILEs into a file of the same name there. By default the shipped "
        "corrector for English historical print (pretrained_corrector) does it; --model "
        "takes a corrector file from 'skocrcost fit --corrector' or OCRCorrector.save. "
        "With --pairs (OCR<TAB>truth line pairs; a token pair is a line of one word) a "
        "corrector is fitted first: costs from --model (a cost file or a shipped name), "
        "the language model, word frequencies, rules and confidence from the pairs.",
    )
    correct.add_argument("files", metavar="FILE", nargs="*", default=["-"], help="default: stdin")
    correct.add_argument(
        "-o",
        "--output-dir",
        metavar="DIR",
        help="write each FILE's correction to DIR under the FILE's name (made if missing), "
        "rather than to stdout; needed for more than one FILE",
    )
    correct.add_argument(
        "--lexicon", help="a word list, one per line (default: the shipped English words)"
    )
    correct.add_argument(
        "--model",
        default="en-historical",
        help="a corrector file ('fit --corrector', OCRCorrector.save), with --pairs a cost "
        "file ('fit', EditCostEstimator.save), or a shipped model (default: en-historical)",
    )
    correct.add_argument("--pairs", help="line pairs to learn the corrector's context from")
    correct.add_argument(
        "--confidence-pairs",
        metavar="PAIRS",
        help="line pairs of FILE's collection (OCR<TAB>truth, a few hundred): the "
        "confidence of changes is learned anew from the corrector's changes to them "
        "(OCRCorrector.fit_confidence)",
    )
    correct.add_argument(
        "--min-confidence",
        type=_probability,
        default=None,
        help="make only changes at least this likely to help (default: the corrector's own, "
        "0.7 for the shipped one; lower changes more words and makes more lines worse)",
    )
    correct.add_argument(
        "--n-jobs",
        type=_n_jobs,
        default=None,
        help="processes sharing the batches of a text, or the FILEs (-1: all cores; default 1)",
    )
    correct.add_argument(
        "--format",
        choices=("auto", "alto", "hocr", "page", "text"),
        default="auto",
        help="FILE's format (default auto: ALTO, hOCR or PAGE XML by its markup, else text); "
        "an XML document is written back whole, its words corrected in place",
    )
    correct.set_defaults(func=_correct)

    demo = sub.add_parser(
        "demo", parents=[common], help="choose k by cross-validation on the embedded sample"
    )
    demo.set_defaults(func=_demo)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "cv", 2) < 2:
        parser.error("--cv must be at least 2")
    try:
        return args.func(args)
    except (OSError, ValueError, TypeError, ImportError) as exc:
        print(f"skocrcost: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("skocrcost: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

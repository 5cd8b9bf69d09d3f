"""End-to-end word error rate of noisy-channel correction on held-out real OCR lines.

    python benchmarks/noisy_channel_wer.py [n_test [corpus [protocol [skip]]]]

For BLN600 (train.lines.tsv) and ICDAR 2017 (lines.tsv), or the one corpus
named: the last ``n_test`` lines (default 1000) are held out, ``TUNE`` lines
tune the decoding parameters of ``GRID`` by WER and the rest train.  Protocol
``blocks`` (the default): the tuning lines are ``TUNE / BLOCK`` blocks of
``BLOCK`` consecutive lines, one at a seeded random place in each of as many
equal stretches of the lines before the held-out ones (a sample of the whole
collection: its books and papers come in runs), and the ``GUARD`` lines just
before the held-out ones are left out of both (they may be the held-out
lines' own document); protocol ``tail``: the ``TUNE`` lines just before the
held-out ones tune.  With ``skip``, the last ``skip`` lines are left out
altogether, so that other books are held out (``skip`` 1000: the 1,000 lines
before the usual held-out ones).  The parameters are tuned by (coordinate
descent from the corrector's defaults: one parameter at a time over its grid
(the LM's weight and the real-word prior together, over their joint grid),
the others fixed, until a whole pass changes nothing; at most ``PASSES``), and
the rest train an ``OCRCorrector`` in sequence mode: the training lines are
aligned token by token (word-level Levenshtein, ``token_pairs``, every column
kept, ``""`` for the side without a token, so that ``fit`` learns the spacing
rules from whole lines); ``fit`` cuts
each aligned pair of cores into words (lower-cased, as the lexicon is) and
drops pairs whose lengths differ by more than a third (split and merged words,
which a word-for-word channel cannot model).  The corrector learns the edit
costs (EditCostEstimator, k = 0.03, with multi-character edits of up to two
characters such as ``li -> h``: max_token_length = 2), the word prior, the
out-of-lexicon model and the spelling-variant channel from those word pairs,
the trigram KatzBackoffLM (d = 0.7) from the truth tokens and the punctuation,
case and spacing rules from the token pairs, and decodes each line by a beam search
of the corrector's default width (8).
Lexicon: SCOWL british-english and american-english plus the words seen at least
twice in the training truth, lower-cased, most frequent (in the training truth)
first.

WER: word-level Levenshtein distance between whitespace tokens (case and
punctuation kept) over the number of truth tokens.  Ceiling: every OCR token
aligned to a different truth token whose core is in the lexicon gets that core
(its own punctuation kept).  The last lines of each corpus break the WER left
after correction down by the kind of error, and count the tokens the tuned
setting fixed and broke, with and without the spelling variants.
"""

import math
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
from _pairs import read_pairs

from skocrcost import (
    EditCostEstimator,
    EditDistanceNeighbors,
    KatzBackoffLM,
    OCRCorrector,
    WeightedLevenshtein,
)
from skocrcost._noisy_channel import (
    NoisyChannelDecoder,
    aligned_tokens,
    lm_sentence,
    split_token,
    token_pairs,
)
from skocrcost.correction import Decoder
from skocrcost.correction._decoding import WEIGHTS

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
CORPORA = {
    "bln600": DATA / "bln600" / "train.lines.tsv",
    "icdar2017": DATA / "icdar2017_engmono" / "lines.tsv",
}
TUNE = {"bln600": 2000, "icdar2017": 3000}
BLOCK, GUARD, SEED = 50, 100, 0
# Each parameter's grid includes its most conservative value (prior 1, margin 12, one
# real-word prior for all words, no cut, no join, variant weight 100, punctuation, case and
# spacing kept), so the tuning can leave a text nearly alone.
# The LM's weight and the real-word prior are tuned together: a heavier LM pays off only
# with a prior that keeps real words (one at a time, the descent missed better settings).
# The settings name the weights of a Decoder as it names them (corrector_params makes them
# the corrector's decoder__<weight>) and each rule by a rule_<name> flag.
LM_WEIGHTS, PRIORS = [0.0, 1.0, 2.0], [0.8, 0.9, 0.95, 0.99, 0.999, 1.0]
GRID = {
    ("lm_weight", "real_word_prior"): [(w, p) for w in LM_WEIGHTS for p in PRIORS],
    "reject_margin": [0.0, 3.0, 6.0, 12.0],
    "real_word_smoothing": [None, 100.0, 1000.0, 10000.0],
    "split_cost": [None, 3.0, 6.0, 10.0],
    "join_cost": [None, 0.0, 3.0, 6.0],
    "recurrence_weight": [0.0, 3.0, 6.0],
    "variant_weight": [0.0, 1.0, 10.0, 100.0],
    "rule_punctuation": [False, True],
    "rule_case": [False, True],
    "rule_spacing": [False, True],
    "rule_mixed_case": [False, True],
    "rule_capitals": [False, True],
    "rule_hyphens": [False, True],
}
START = {
    "lm_weight": 1.0,
    "real_word_prior": 0.99,
    "reject_margin": 0.0,
    "real_word_smoothing": None,
}
START.update(split_cost=None, join_cost=None, recurrence_weight=0.0, variant_weight=0.0)
START.update(beam_width=8)  # (the greedy row sets 1: the runs after it must set it back)
START.update(rule_punctuation=False, rule_case=False, rule_spacing=False, rule_mixed_case=False)
START.update(rule_capitals=False, rule_hyphens=False)
PASSES = 3


def corrector_params(setting):
    """The corrector's parameters of a ``setting`` of the search: the Decoder's weights
    as ``decoder__<weight>``, and the ``rule_<name>`` flags the search tunes one by one
    gathered into ``rules``."""
    out = {
        f"decoder__{k}" if k in WEIGHTS else k: v
        for k, v in setting.items()
        if not k.startswith("rule_")
    }
    out["rules"] = tuple(k[5:] for k, v in setting.items() if k.startswith("rule_") and v)
    return out


N_CANDIDATES = 30
UNIT = WeightedLevenshtein()


class Tokens:
    """Whitespace tokens as code points, so that unit Levenshtein counts word edits."""

    def __init__(self):
        self.ids = {}

    def __call__(self, line):
        return "".join(chr(0x10000 + self.ids.setdefault(t, len(self.ids))) for t in line.split())


def wer(hyp, ref, enc):
    a = [enc(h) for h in hyp]
    b = [enc(r) for r in ref]
    errors = sum(UNIT.distance(x, y) for x, y in zip(a, b))
    return errors / sum(len(y) for y in b)


def descend(evaluate, grid, start):
    """Coordinate descent: the setting of ``grid`` with the lowest ``evaluate``, from ``start``.

    Returns the best setting and every setting evaluated with its value.
    """
    results = {}

    def value(setting):
        key = tuple(setting.items())
        if key not in results:
            results[key] = evaluate(setting)
        return results[key]

    best = dict(start)
    for _ in range(PASSES):
        before = dict(best)
        for name, values in grid.items():
            if isinstance(name, tuple):  # parameters tuned together, over their joint grid
                trials = [{**best, **dict(zip(name, v, strict=True))} for v in values]
            else:
                trials = [{**best, name: v} for v in values]
            best = min(trials, key=value)  # ties: the earlier value of the grid
        if best == before:
            break
    return best, results


def ceiling(ocr, truth, words):
    out = []
    for line in aligned_tokens(ocr, truth):
        toks = []
        for o, t in line:
            if o is None:
                continue
            if t is not None and t != o:
                lead, core, trail = split_token(o)
                truth_core = split_token(t)[1]
                if truth_core.lower() in words and core:
                    o = lead + truth_core + trail
            toks.append(o)
        out.append(" ".join(toks))
    return out


def error_kinds(hyp, truth, words):
    """The word errors left in ``hyp``, by kind, as shares of the truth tokens.

    Only the last two kinds are within reach of a word-for-word corrector with
    this lexicon; a token too many or too few, half of a word split at a line
    end or a space, and punctuation are not.
    """

    def half(part, word):  # "lopes" of "envelopes", "pro" of "property"
        longer = len(word) - len(part) >= 2 and part
        return longer and (word.startswith(part) or word.endswith(part))

    kinds = Counter()
    for line in aligned_tokens(hyp, truth):
        for h, t in line:
            if h == t:
                continue
            hc = split_token(h)[1].lower() if h is not None else ""
            tc = split_token(t)[1].lower() if t is not None else ""
            if h is None or t is None:
                kind = "a token too many or too few (split, merge, hyphenation)"
            elif hc == tc:
                kind = "punctuation or case only"
            elif h.endswith("-") or "-" in tc or half(hc, tc):
                kind = "half of a split or hyphenated word"
            elif tc in words:
                kind = "wrong word, truth in the lexicon"
            else:
                kind = "wrong word, truth outside the lexicon"
            kinds[kind] += 1
    n = sum(len(t.split()) for t in truth)
    return {k: v / n for k, v in kinds.most_common()}


def changes(ocr, hyp, truth):
    """How many OCR tokens the correction fixed, broke, or changed to another wrong token.

    Token by token on the lines whose correction kept the number of tokens (no
    cut, join or spacing rule), against the truth token aligned to each OCR token.
    """
    counts = Counter()
    for line, o, h in zip(aligned_tokens(ocr, truth), ocr, hyp):
        o, h = o.split(), h.split()
        if len(o) != len(h):
            counts["line with a cut, join or spacing rule"] += 1
            continue
        aligned = [t for a, t in line if a is not None]
        for a, b, t in zip(o, h, aligned):
            if a != b:
                counts["fixed" if b == t else "broken" if a == t else "changed, still wrong"] += 1
    return dict(counts)


def scowl_words():
    """SCOWL british-english and american-english, as listed."""
    words = []
    for name in ("british-english", "american-english"):
        words += (DATA / "lexicon" / name).read_text(encoding="utf-8").split()
    return words


def split_lines(n, n_test, n_tune, protocol):
    """The indices of the training, tuning and held-out lines of ``n`` (see the module)."""
    test = list(range(n - n_test, n))
    if protocol == "tail":
        return list(range(n - n_test - n_tune)), list(range(n - n_test - n_tune, n - n_test)), test
    n_blocks = n_tune // BLOCK
    usable = n - n_test - GUARD
    edges = np.linspace(0, usable, n_blocks + 1).astype(int)
    rng = np.random.default_rng(SEED)
    tune = [
        i
        for lo, hi in zip(edges, edges[1:])
        for start in [lo + int(rng.integers(0, hi - lo - BLOCK + 1))]
        for i in range(start, start + BLOCK)
    ]
    chosen = set(tune)
    return [i for i in range(usable) if i not in chosen], tune, test


def train_corrector(X, y, scowl, **params):
    """The benchmark's corrector (``params``, OCRCorrector parameters such as
    ``decoder__lm_weight``, set) fitted on the line pairs ``X``, ``y``.

    Returns it with the token sequences it was fitted on.  Its lexicon: ``scowl``
    plus the words seen at least twice in the truth, lower-cased, most frequent
    in the truth first.
    """
    X_seq, y_seq = token_pairs(X, y, gaps=True)
    freq = Counter(w for t in y for w in lm_sentence(t))
    seen = [w for w, c in freq.items() if c >= 2]
    lexicon = sorted(dict.fromkeys(w.lower() for w in scowl + seen), key=lambda w: -freq[w])
    fixer = OCRCorrector(
        EditCostEstimator(k=0.03, max_token_length=2),
        lexicon=lexicon,
        language_model=KatzBackoffLM(order=3, discount=0.7),
        decoder=Decoder(n_candidates=N_CANDIDATES),
    )
    fixer = fixer.set_params(**params).fit(X_seq, y_seq)
    return fixer, X_seq, y_seq


def main():
    n_test = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    corpora = {k: v for k, v in CORPORA.items() if len(sys.argv) < 3 or k == sys.argv[2]}
    protocol = sys.argv[3] if len(sys.argv) > 3 else "blocks"
    skip = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    scowl = scowl_words()
    for name, path in corpora.items():
        t0 = time.perf_counter()
        X_all, y_all = read_pairs(path)
        X_all, y_all = X_all[: len(X_all) - skip], y_all[: len(y_all) - skip]
        n_tune = TUNE[name]
        parts = split_lines(len(X_all), n_test, n_tune, protocol)
        (X_train, X_tune, X_test), (y_train, y_tune, y_test) = (
            [[z[i] for i in idx] for idx in parts] for z in (X_all, y_all)
        )
        print(
            f"{name}: protocol {protocol}, last {skip} lines skipped, "
            f"{len(X_train)} training lines",
            flush=True,
        )
        enc = Tokens()
        fixer, X_seq, y_seq = train_corrector(X_train, y_train, scowl)
        lexicon = fixer.lexicon_
        words = set(lexicon)
        n_pairs = sum(bool(a and b) for xs, ys in zip(X_seq, y_seq) for a, b in zip(xs, ys))
        print(
            f"{name}: {n_pairs} training token pairs, {len(lexicon)} lexicon words, "
            f"mixed-case prior {fixer.mixed_case_prior_:.4f}",
            flush=True,
        )
        variants = fixer.variants_
        if variants is not None:  # what the spelling-variant channel learned, in nats
            examples = ", ".join(
                f"{x}/{w} {variants.normaliser * variants.metric.distance(x, w):.1f} "
                f"vs OCR {fixer.scale_ * fixer.estimator_.metric_.distance(x, w):.1f}"
                for x, w in (("vnto", "unto"), ("myghty", "mighty"), ("tbe", "the"))
            )
            print(
                f"{name}: {len(variants.pairs)} spelling-variant pairs, P(variant) "
                f"{math.exp(variants.log_share):.4f}; {examples}",
                flush=True,
            )

        # The candidates of a word and the language model's probabilities do not depend
        # on the tuned parameters: every setting shares them.
        cache, lm_cache = {}, {}

        def run(lines, fixer=fixer, cache=cache, lm_cache=lm_cache, **params):
            decoder = fixer.set_params(**corrector_params(params))._decoder()
            decoder._cache, decoder._lm_cache = cache, lm_cache
            decoder.lm_cache_size = 10**7  # this run has the memory; emptying it costs time
            return decoder.correct_lines(lines)

        def tune_wer(setting, lines=X_tune, truth=y_tune, enc=enc, run=run):
            return wer(run(lines, **setting), truth, enc)

        best, results = descend(tune_wer, GRID, START)
        word_for_word = {"split_cost": None, "join_cost": None, "recurrence_weight": 0.0}
        channel_grid = {"real_word_prior": PRIORS, "reject_margin": GRID["reject_margin"]}
        channel, more = descend(
            tune_wer, channel_grid, {**START, **word_for_word, "lm_weight": 0.0}
        )
        print(
            f"{name}: tuned on {len(X_tune)} lines, {len(results) + len(more)} settings "
            f"({time.perf_counter() - t0:.0f} s)",
            flush=True,
        )
        unit = NoisyChannelDecoder(
            EditDistanceNeighbors().fit(lexicon), 1.0, real_word_prior=1.0, reject_cost=float("inf")
        )
        hyp = run(X_test, **best)
        top = ceiling(X_test, y_test, words)
        rows = {
            "raw OCR": X_test,
            "token-wise unit Levenshtein": unit.correct_lines(X_test),
            f"channel only, word for word {channel}": run(X_test, **channel),
            f"channel + trigram LM {best}": hyp,
        }
        # What each feature adds: the tuned setting with it off (not used to choose).
        for off in (
            {"split_cost": None},
            {"join_cost": None},
            {"recurrence_weight": 0.0},
            {"variant_weight": 0.0},
            {"rule_punctuation": False},
            {"rule_case": False},
            {"rule_spacing": False},
            {"rule_mixed_case": False},
            {"real_word_smoothing": None},
            {"rule_capitals": False},
            {"rule_hyphens": False},
        ):
            if any(best[k] != v for k, v in off.items()):
                rows[f"  the same without {next(iter(off))}"] = run(X_test, **{**best, **off})
        rows["  the same, word for word"] = run(X_test, **{**best, **word_for_word})
        no_variants = {**best, "variant_weight": 0.0}
        rows["  the same, greedy (beam_width=1)"] = run(X_test, **{**best, "beam_width": 1})
        rows["lexicon ceiling"] = top
        raw = wer(X_test, y_test, enc)
        cut = raw - wer(top, y_test, enc)
        for label, lines in rows.items():
            w = wer(lines, y_test, enc)
            print(
                f"{name}: {label:<75} WER {w:.4f} ({(w - raw) / raw:+.1%} vs raw, "
                f"{(raw - w) / cut:.0%} of the ceiling's cut)",
                flush=True,
            )
        # The tuned setting's output is hyp already; only the one without variants is new.
        for label, lines in (
            ("tuned", hyp),
            ("tuned without variants", run(X_test, **no_variants)),
        ):
            counts = changes(X_test, lines, y_test)
            print(f"{name}: tokens changed by the {label} setting: {counts}", flush=True)
        for kind, share in error_kinds(hyp, y_test, words).items():
            print(f"{name}: left after correction: {kind:<60} {share:.4f}", flush=True)
        print(f"{name}: {time.perf_counter() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()

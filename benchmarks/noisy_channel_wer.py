"""End-to-end word error rate of noisy-channel correction on held-out real OCR lines.

    python benchmarks/noisy_channel_wer.py [n_test]

For BLN600 (train.lines.tsv) and ICDAR 2017 (lines.tsv): the last ``n_test``
lines (default 1000) are held out, the ``TUNE`` lines before them tune
``lm_weight``, ``real_word_prior`` and ``reject_margin`` by WER, and the rest
train an ``OCRCorrector`` in sequence mode: the training lines are aligned token
by token (word-level Levenshtein), each aligned pair of cores cut into words, and
pairs whose lengths differ by more than a third dropped (split and merged words,
which a word-for-word channel cannot model).  The corrector learns the edit
costs (EditCostEstimator, k = 0.03), the word prior, the out-of-lexicon model
and the trigram KatzBackoffLM (d = 0.7) from those pairs.  Lexicon: SCOWL
british-english and american-english plus the words seen at least twice in the
training truth, lower-cased, most frequent (in the training truth) first.

WER: word-level Levenshtein distance between whitespace tokens (case and
punctuation kept) over the number of truth tokens.  Ceiling: every OCR token
aligned to a different truth token whose core is in the lexicon gets that core
(its own punctuation kept).  The last lines of each corpus break the WER left
after correction down by the kind of error.
"""

import itertools
import sys
import time
from collections import Counter
from pathlib import Path

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
    word_pairs,
)

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
CORPORA = {
    "bln600": DATA / "bln600" / "train.lines.tsv",
    "icdar2017": DATA / "icdar2017_engmono" / "lines.tsv",
}
TUNE = {"bln600": 2000, "icdar2017": 3000}
GRID = {
    "lm_weight": [0.0, 1.0, 2.0],
    "real_word_prior": [0.99, 0.999, 0.9999, 1.0],
    "reject_margin": [0.0, 3.0, 6.0],
}
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


def main():
    n_test = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    scowl = []
    for name in ("british-english", "american-english"):
        scowl += (DATA / "lexicon" / name).read_text(encoding="utf-8").split()
    for name, path in CORPORA.items():
        t0 = time.perf_counter()
        X, y = read_pairs(path)
        n_tune = TUNE[name]
        test = slice(len(X) - n_test, len(X))
        tune = slice(len(X) - n_test - n_tune, len(X) - n_test)
        train = slice(0, len(X) - n_test - n_tune)
        enc = Tokens()
        X_seq, y_seq = word_pairs(X[train], y[train])
        freq = Counter(w for t in y[train] for w in lm_sentence(t))
        seen = [w for w, c in freq.items() if c >= 2]
        lexicon = sorted(dict.fromkeys(w.lower() for w in scowl + seen), key=lambda w: -freq[w])
        words = set(lexicon)
        fixer = OCRCorrector(
            EditCostEstimator(k=0.03),
            lexicon=lexicon,
            language_model=KatzBackoffLM(order=3, discount=0.7),
        ).fit(X_seq, y_seq)
        n_pairs = sum(map(len, X_seq))
        print(f"{name}: {n_pairs} training word pairs, {len(lexicon)} lexicon words", flush=True)

        cache = {}  # the candidates of a word do not depend on the tuned parameters

        def run(lines, fixer=fixer, cache=cache, **params):
            decoder = fixer.set_params(**params)._decoder()
            decoder._cache = cache
            return decoder.correct_lines(lines)

        results = {}
        for values in itertools.product(*GRID.values()):
            results[values] = wer(run(X[tune], **dict(zip(GRID, values))), y[tune], enc)
        best = dict(zip(GRID, min(results, key=results.get)))
        channel = dict(zip(GRID, min((v for v in results if v[0] == 0.0), key=results.get)))
        print(f"{name}: tuned on {n_tune} lines ({time.perf_counter() - t0:.0f} s)", flush=True)
        unit = NoisyChannelDecoder(
            EditDistanceNeighbors().fit(lexicon), 1.0, real_word_prior=1.0, reject_cost=float("inf")
        )
        hyp = run(X[test], **best)
        top = ceiling(X[test], y[test], words)
        rows = {
            "raw OCR": X[test],
            "token-wise unit Levenshtein": unit.correct_lines(X[test]),
            f"channel only {channel}": run(X[test], **channel),
            f"channel + trigram LM {best}": hyp,
            "lexicon ceiling": top,
        }
        raw = wer(X[test], y[test], enc)
        cut = raw - wer(top, y[test], enc)
        for label, lines in rows.items():
            w = wer(lines, y[test], enc)
            print(
                f"{name}: {label:<75} WER {w:.4f} ({(w - raw) / raw:+.1%} vs raw, "
                f"{(raw - w) / cut:.0%} of the ceiling's cut)",
                flush=True,
            )
        for kind, share in error_kinds(hyp, y[test], words).items():
            print(f"{name}: left after correction: {kind:<60} {share:.4f}", flush=True)
        print(f"{name}: {time.perf_counter() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()

"""End-to-end word error rate of noisy-channel correction on held-out real OCR lines.

    python benchmarks/noisy_channel_wer.py [n_test]

For BLN600 (train.lines.tsv) and ICDAR 2017 (lines.tsv): the last ``n_test``
lines (default 1000) are held out, the 300 before them tune lm_weight,
real_word_prior and reject_cost by WER, and the rest train the edit costs
(EditCostEstimator, k = 0.03, on line pairs) and the trigram KatzBackoffLM
(d = 0.7, on the truth lines).  Lexicon: SCOWL british-english and
american-english, lower-cased, most frequent (in the training truth) first.

WER: word-level Levenshtein distance between whitespace tokens (case and
punctuation kept) over the number of truth tokens.  Ceiling: every OCR token
aligned to a different truth token whose core is in the lexicon gets that core
(its own punctuation kept).
"""

import itertools
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
from _pairs import read_pairs

from skocrcost import EditCostEstimator, EditDistanceNeighbors, KatzBackoffLM, WeightedLevenshtein
from skocrcost._noisy_channel import NoisyChannelDecoder, lm_sentence, split_token

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
CORPORA = {
    "bln600": DATA / "bln600" / "train.lines.tsv",
    "icdar2017": DATA / "icdar2017_engmono" / "lines.tsv",
}
# The grid holds the identity (lm_weight 0, prior 1, reject_cost 0: nothing changes), so
# tuning can always fall back to leaving the OCR alone.
GRID = {
    "lm_weight": [0.0, 0.5, 1.0, 2.0, 3.0],
    "real_word_prior": [0.99, 0.999, 1.0],
    "reject_cost": [0.0, 0.25, 0.5, 1.0, 2.0, 4.0, float("inf")],
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


def ceiling(ocr, truth, words, enc):
    out = []
    _, src, tgt, pair = UNIT.align_batch([enc(o) for o in ocr], [enc(t) for t in truth], 1)
    inv = {v: k for k, v in enc.ids.items()}
    for i in range(len(ocr)):
        cols = pair == i
        toks = []
        for s, g in zip(src[cols], tgt[cols]):
            if s < 0:
                continue
            tok = inv[s - 0x10000]
            if g >= 0 and g != s:
                lead, core, trail = split_token(tok)
                truth_core = split_token(inv[g - 0x10000])[1]
                if truth_core.lower() in words and core:
                    tok = lead + truth_core + trail
            toks.append(tok)
        out.append(" ".join(toks))
    return out


def main():
    n_test = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    scowl = []
    for name in ("british-english", "american-english"):
        scowl += (DATA / "lexicon" / name).read_text(encoding="utf-8").split()
    for name, path in CORPORA.items():
        t0 = time.perf_counter()
        X, y = read_pairs(path)
        test = slice(len(X) - n_test, len(X))
        tune = slice(len(X) - n_test - 300, len(X) - n_test)
        train = slice(0, len(X) - n_test - 300)
        est = EditCostEstimator(k=0.03).fit(X[train][:20000], y[train][:20000])
        lm_text = [lm_sentence(t) for t in y[train]]
        lm = KatzBackoffLM(order=3, discount=0.7).fit(lm_text)
        freq = Counter(w for s in lm_text for w in s)
        lexicon = sorted(dict.fromkeys(w.lower() for w in scowl), key=lambda w: -freq[w])
        words = set(lexicon)
        learned = EditDistanceNeighbors(metric=est).fit(lexicon)
        unit = EditDistanceNeighbors().fit(lexicon)
        z = est.channel_.normaliser
        enc = Tokens()

        decoders = {}  # one per index, so that the candidates are searched once

        def run(nn, X_, lm_=lm, z_=z, cache=decoders, **params):
            decoder = cache.setdefault(id(nn), NoisyChannelDecoder(nn, z_))
            decoder.language_model = lm_
            for key, value in params.items():
                setattr(decoder, key, value)
            return decoder.correct_lines(X_)

        best, best_wer, results = None, np.inf, {}
        for values in itertools.product(*GRID.values()):
            params = dict(zip(GRID, values))
            w = wer(run(learned, X[tune], **params), y[tune], enc)
            results[values] = w
            if w < best_wer:
                best, best_wer = params, w
        channel_only = min((v for v in results.items() if v[0][0] == 0.0), key=lambda kv: kv[1])[0]
        channel_params = dict(zip(GRID, channel_only))
        rows = {
            "raw OCR": X[test],
            "token-wise unit Levenshtein": run(
                unit, X[test], lm_=None, z_=1.0, real_word_prior=1.0, reject_cost=np.inf
            ),
            f"channel only {channel_params}": run(learned, X[test], **channel_params),
            f"channel + trigram LM {best}": run(learned, X[test], **best),
            "lexicon ceiling": ceiling(X[test], y[test], words, enc),
        }
        raw = wer(X[test], y[test], enc)
        for label, hyp in rows.items():
            w = wer(hyp, y[test], enc)
            print(f"{name}: {label:<70} WER {w:.4f} ({(raw - w) / raw:+.1%} vs raw)", flush=True)
        print(f"{name}: {time.perf_counter() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()

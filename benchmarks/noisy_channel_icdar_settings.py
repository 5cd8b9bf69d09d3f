"""Held-out WER of fixed noisy-channel settings on ICDAR 2017 lines (no tuning).

    python benchmarks/noisy_channel_icdar_settings.py [--with-training-words]

``--with-training-words`` adds the words seen at least twice in the training
truth to the lexicon.

The same split, costs, LM and lexicon as noisy_channel_wer.py; shows what each
setting does to the 1,000 held-out lines.
"""

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _pairs import read_pairs  # noqa: E402
from noisy_channel_wer import CORPORA, DATA, Tokens, wer  # noqa: E402

from skocrcost import EditCostEstimator, EditDistanceNeighbors, KatzBackoffLM  # noqa: E402
from skocrcost._noisy_channel import NoisyChannelDecoder, lm_sentence  # noqa: E402

SETTINGS = [  # (lm_weight, real_word_prior, reject_cost)
    (1.0, 1.0, 0.25),
    (1.0, 1.0, 0.5),
    (1.0, 1.0, 1.0),
    (0.0, 1.0, 0.5),
    (1.0, 0.9999, 0.5),
    (2.0, 1.0, 0.5),
    (1.0, 0.99, 0.25),
]


def main():
    X, y = read_pairs(CORPORA["icdar2017"])
    n_test = 1000
    test = slice(len(X) - n_test, len(X))
    train = slice(0, len(X) - n_test - 300)
    est = EditCostEstimator(k=0.03).fit(X[train][:20000], y[train][:20000])
    lm_text = [lm_sentence(t) for t in y[train]]
    lm = KatzBackoffLM(order=3, discount=0.7).fit(lm_text)
    freq = Counter(w for s in lm_text for w in s)
    scowl = []
    for name in ("british-english", "american-english"):
        scowl += (DATA / "lexicon" / name).read_text(encoding="utf-8").split()
    if "--with-training-words" in sys.argv:
        scowl += [w for w, c in freq.items() if c >= 2]
    lexicon = sorted(dict.fromkeys(w.lower() for w in scowl), key=lambda w: -freq[w])
    dec = NoisyChannelDecoder(
        EditDistanceNeighbors(metric=est).fit(lexicon), est.channel_.normaliser, lm
    )
    enc = Tokens()
    print("raw OCR", wer(X[test], y[test], enc), flush=True)
    for lm_weight, prior, reject in SETTINGS:
        dec.lm_weight, dec.real_word_prior, dec.reject_cost = lm_weight, prior, reject
        w = wer(dec.correct_lines(X[test]), y[test], enc)
        print(f"lm_weight {lm_weight}, prior {prior}, reject {reject}: WER {w:.4f}", flush=True)


if __name__ == "__main__":
    main()

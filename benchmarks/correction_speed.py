"""How fast OCRCorrector corrects running text, with the tuned BLN600 setting.

    cd benchmarks && PYTHONPATH=.. python correction_speed.py [n_lines]

The corrector is trained as in ``noisy_channel_wer.py`` (the BLN600 lines
before its tuning and held-out lines; the trigram LM, multi-character edits,
30 candidates) and set to that benchmark's tuned setting (``TUNED``); it then
corrects the first ``n_lines`` (default 300) held-out lines in one ``correct``
call, from cold caches.  Prints CPU seconds (``time.process_time``), lines and
whitespace tokens per second, one thread.
"""

import sys
import time

from _pairs import read_pairs
from noisy_channel_wer import CORPORA, TUNE, scowl_words, train_corrector

# The setting noisy_channel_wer.py tuned on BLN600 (docs/katz.md).
TUNED = dict(
    lm_weight=1.0,
    real_word_prior=0.95,
    reject_margin=3.0,
    split_cost=6.0,
    join_cost=0.0,
    recurrence_weight=3.0,
    variant_weight=0.0,
    fix_punctuation=True,
    fix_case=True,
    fix_spacing=True,
)


def main():
    n_lines = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    X, y = read_pairs(CORPORA["bln600"])
    held_out = len(X) - 1000
    train = slice(0, held_out - TUNE["bln600"])
    t = time.process_time()
    fixer, X_seq, _ = train_corrector(X[train], y[train], scowl_words(), **TUNED)
    fit = time.process_time() - t
    text = "\n".join(X[held_out : held_out + n_lines])
    t = time.process_time()
    fixer.correct(text)
    spent = time.process_time() - t
    tokens = len(text.split())
    print(f"fit on {len(X_seq)} lines: {fit:.1f} s CPU")
    print(
        f"correct {n_lines} lines ({tokens} tokens): {spent:.2f} s CPU, "
        f"{n_lines / spent:.1f} lines/s, {tokens / spent:.0f} tokens/s"
    )


if __name__ == "__main__":
    main()

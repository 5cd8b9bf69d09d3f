"""How fast OCRCorrector corrects lines, side by side with symspellpy in the same process.

    cd benchmarks && PYTHONPATH=.. python correction_speed.py [--only NAME] [--max-train N]

For each collection of ``cross_collection.py`` (its held-out lines and training
part): the default ``OCRCorrector`` fitted on the training lines corrects the
held-out lines twice in one ``predict`` call each (cold caches, then warm: the
corrector's caches of candidates and language-model probabilities), and
symspellpy (pip install symspellpy; in the ``benchmark`` extra) corrects the
same lines token by token: each whitespace token's core, lower-cased, looked up
with ``Verbosity.TOP`` up to edit distance 2 in a dictionary of the same
lexicon with the training truth's word counts (lexicon words unseen there count
1), case transferred, punctuation kept.  Prints tokens per CPU second
(``time.process_time``, one thread) and the WER each leaves.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from cross_collection import collections

from skocrcost import OCRCorrector, word_error_rate
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


def rate(n_tokens, seconds):
    return f"{n_tokens / seconds:8.0f} tokens/CPU s"


def wers(truth, ocr, fixed):
    return f"WER {word_error_rate(truth, ocr):.4f} -> {word_error_rate(truth, fixed):.4f}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default=None)
    parser.add_argument("--max-train", type=int, default=None)
    parser.add_argument("--n-test", type=int, default=500)
    args = parser.parse_args(argv)
    for name, (X, y, X_test, y_test) in collections(args.n_test).items():
        if args.only and name != args.only:
            continue
        X, y = X[: args.max_train], y[: args.max_train]
        n_tokens = sum(len(line.split()) for line in X_test)
        fixer = OCRCorrector().fit(X, y)
        for kind in ("cold", "warm"):
            t = time.process_time()
            fixed = list(fixer.predict(X_test))
            seconds = time.process_time() - t
            print(
                f"{name:12s} OCRCorrector ({kind}) {rate(n_tokens, seconds)}  "
                f"{wers(y_test, X_test, fixed)}",
                flush=True,
            )
        speller = symspell_corrector(fixer.lexicon_, y)
        t = time.process_time()
        fixed = [speller(line) for line in X_test]
        seconds = time.process_time() - t
        print(
            f"{name:12s} symspellpy          {rate(n_tokens, seconds)}  "
            f"{wers(y_test, X_test, fixed)}",
            flush=True,
        )


if __name__ == "__main__":
    main()

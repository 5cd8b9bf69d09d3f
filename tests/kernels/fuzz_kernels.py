"""Fuzz target for the compiled entry points: any input gives a right answer or a clear error.

Bytes are decoded into cost tables (any doubles: NaN, inf, negative; a third of
them with multi-character rules and transpositions, for the general kernel), strings
(any code point, lone surrogates included, biased to a small alphabet so that
costs hit), arguments of the wrong type, and JSON for ``from_dict``.  Allowed
outcomes: a result that agrees with the pure-Python twin (short strings) and with
the metric's identities, or TypeError/ValueError.  Anything else (another
exception, a wrong number, a crash) fails.

Driven two ways:
* in the test suite by hypothesis (tests/kernels/test_fuzz.py, ``SKOCRCOST_FUZZ_EXAMPLES``);
* by atheris, coverage-guided, for as long as you like::

      python tests/kernels/fuzz_kernels.py -max_total_time=600

  (libFuzzer flags; tests/kernels/test_fuzz.py runs it for ``SKOCRCOST_FUZZ_SECONDS``, default 3).
"""

import json
import math
import pickle
import struct
import sys

import numpy as np

SMALL = "abc01lIO \u0301\U0001f600\ud800"


class Bytes:
    """Decode a byte string into values; reads past the end give zeros."""

    def __init__(self, data):
        self.data, self.pos = bytes(data), 0

    def take(self, n):
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk.ljust(n, b"\0")

    def int(self, lo, hi):
        return lo + int.from_bytes(self.take(2), "little") % (hi - lo + 1)

    def cost(self):
        kind = self.int(0, 7)
        if kind == 0:  # any double at all
            return struct.unpack("<d", self.take(8))[0]
        if kind == 1:
            return [math.nan, math.inf, -1.0, -0.0, 1e308, "1", None, True][self.int(0, 7)]
        return self.int(0, 400) / 100

    def char(self):
        if self.int(0, 3):
            return SMALL[self.int(0, len(SMALL) - 1)]
        return chr(self.int(0, 0xFFFF) * 17 % 0x110000)

    def text(self, max_len=12):
        return "".join(self.char() for _ in range(self.int(0, max_len)))

    def anything(self):
        """Usually a string; sometimes what OCR pipelines hand over by mistake."""
        kind = self.int(0, 9)
        if kind < 7:
            return self.text(self.int(0, 1) and 80 or 12)
        return [None, 3, math.nan, b"ab", ["a"]][self.int(0, 4)]


def _allowed(call):
    try:
        return call(), None
    except (TypeError, ValueError) as exc:
        return None, exc


def one_input(data):
    from skocrcost import EditDistanceNeighbors, WeightedLevenshtein
    from skocrcost._kernels import _cost_kernel_py as _dp_py
    from skocrcost._kernels import _edit_kernel_py as _edit_py

    b = Bytes(data)
    letters = [b.char() for _ in range(b.int(0, 4))]
    spec = {
        "substitution_costs": {(b.char(), b.char()): b.cost() for _ in range(b.int(0, 6))},
        "insertion_costs": {c: b.cost() for c in letters},
        "deletion_costs": {b.char(): b.cost() for _ in range(b.int(0, 3))},
        "default_substitution_cost": b.cost(),
    }
    if b.int(0, 7) == 0:
        spec["symmetric_substitution"] = [True, False, "no", 1][b.int(0, 3)]
    if b.int(0, 2) == 0:  # the general kernel (_edit.pyx): rules and transpositions
        rules = {(b.text(3), b.text(3)): b.cost() for _ in range(b.int(0, 3))}
        spec["substitution_costs"].update({k: v for k, v in rules.items() if k[0] != k[1]})
        spec["transposition_costs"] = {(b.char(), b.char()): b.cost() for _ in range(b.int(0, 2))}
        spec["default_transposition_cost"] = b.cost()
    wl, err = _allowed(lambda: WeightedLevenshtein(**spec))
    if wl is None:
        return
    if wl.costs.general:
        twin = _edit_py.EditKernel(*wl.costs.kernel_args(), *wl.costs.edit_args())
    else:
        twin = _dp_py.CostKernel(*wl.costs.kernel_args())
    X = [b.anything() for _ in range(b.int(0, 4))]
    Y = [b.anything() for _ in range(b.int(0, 4))]
    a, c = b.anything(), b.anything()

    d, err = _allowed(lambda: wl.distance(a, c))
    if err is None:
        assert d >= 0 and not math.isnan(d), (a, c, d)
        if len(a) <= 12 and len(c) <= 12:
            assert d == twin.distance(a, c), (a, c)
        assert wl.distance(a, a) == 0.0
        ops, err = _allowed(lambda: wl.explain(a, c))
        assert err is None, err
        total = sum(op.cost for op in ops)
        assert total == d or math.isclose(total, d, rel_tol=1e-9, abs_tol=1e-12), (a, c)
        if wl.costs.general and len(a) <= 12 and len(c) <= 12:  # forward: all alignments
            soft = wl._kernel.soft_distance(a, c, 1.0)
            assert soft <= d + 1e-9 or d == math.inf, (a, c, soft, d)
            want = twin.soft_distance(a, c, 1.0)
            assert soft == want or math.isclose(soft, want, rel_tol=1e-9, abs_tol=1e-12)
    else:
        assert not (isinstance(a, str) and isinstance(c, str)), err

    n_jobs = b.int(1, 2)
    D, err = _allowed(lambda: wl.pairwise(X, Y, n_jobs=n_jobs))
    if err is None:
        loop = [[wl.distance(x, y) for y in Y] for x in X]
        np.testing.assert_array_equal(D, np.array(loop).reshape(len(X), len(Y)))
    k = min(len(X), len(Y))
    cols, err = _allowed(lambda: wl._align_batch(X[:k], Y[:k], n_jobs, True))
    if err is None and D is not None and k:
        per_pair = np.bincount(cols[4], weights=cols[3], minlength=k)
        np.testing.assert_allclose(per_pair, np.diagonal(D)[:k], rtol=1e-9, atol=1e-12)
    elif err is not None:
        assert not all(isinstance(s, str) for s in X[:k] + Y[:k]), err

    back = pickle.loads(pickle.dumps(wl))
    assert back == wl
    loaded, err = _allowed(
        lambda: WeightedLevenshtein.from_dict(json.loads(json.dumps(wl.to_dict())))
    )
    assert err is None and loaded == wl, err

    lexicon = [w for w in Y if isinstance(w, str)]
    if lexicon:
        nn = EditDistanceNeighbors(min(len(lexicon), b.int(1, 3)), metric=wl).fit(lexicon)
        got, err = _allowed(lambda: nn.kneighbors(X))
        if err is None:
            brute = wl.pairwise(X, lexicon)
            order = np.argsort(brute, axis=1, kind="stable")[:, : got[0].shape[1]]
            np.testing.assert_array_equal(got[1], order)
        else:
            assert not all(isinstance(x, str) for x in X), err

    # JSON from elsewhere: whatever parses must load or be refused clearly.
    raw = b.take(b.int(0, 64)).decode("utf-8", "replace")
    try:
        data = json.loads(raw)
    except ValueError:
        return
    _allowed(lambda: WeightedLevenshtein.from_dict(data))


def main():
    import atheris

    with atheris.instrument_imports(include=["skocrcost"]):
        import skocrcost.metrics  # noqa: F401  (instrument the Python layers; Cython is not)
        import skocrcost.neighbors  # noqa: F401
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()

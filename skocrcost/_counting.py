"""Edit counts from aligned columns: one sparse matrix, additive across shards.

Row = OCR character, column = truth character, id 0 = the gap: ``M[s, t]`` counts
substitutions (or matches when ``s == t``), ``M[s, 0]`` deletions of ``s`` and
``M[0, t]`` insertions of ``t``.  Every OCR character lies in exactly one column,
so a row sum is ``C(s)``, the number of times ``s`` appears on the OCR side, and a
column sum is ``C(t)`` on the truth side.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

_MAX_CODE_POINT = 0x110000
# Vocabularies up to sqrt(this) characters are counted in a dense table (32 MiB at most).
_DENSE_COUNT_LIMIT = 1 << 22


class EditCounts:
    """Counts of every edit seen in a set of alignments.

    Attributes
    ----------
    vocabulary : ndarray of uint32, shape (V,)
        Sorted code points seen on either side; character ``vocabulary[i]`` has id ``i + 1``.
    matrix : scipy.sparse.csr_array of int64 or float64, shape (V + 1, V + 1)
        See the module docstring.  Counts of aligned columns are integers;
        expected counts over all alignments (forward-backward) are fractional.
        Adding integer and fractional counts gives fractional ones.
    """

    def __init__(self, vocabulary, matrix):
        vocabulary = _code_points(vocabulary, "vocabulary", low=0)
        if np.any(np.diff(vocabulary) <= 0):
            raise ValueError("vocabulary must be strictly increasing code points")
        self.vocabulary = vocabulary.astype(np.uint32)
        n = len(vocabulary) + 1
        matrix = sp.csr_array(matrix)
        # Counts of aligned columns are integers; forward-backward's expected counts are not.
        integral = np.issubdtype(matrix.dtype, np.integer) or matrix.dtype == bool
        self.matrix = matrix.astype(np.int64 if integral else np.float64)
        if self.matrix.shape != (n, n):
            raise ValueError(
                f"matrix must have shape (len(vocabulary) + 1,) * 2 = {(n, n)}, "
                f"got {self.matrix.shape}"
            )
        if self.matrix.nnz and not (self.matrix.data.min() >= 0):  # also refuses NaN
            raise ValueError("matrix must hold counts >= 0")
        self.matrix.sum_duplicates()
        self.matrix.eliminate_zeros()

    @classmethod
    def from_columns(cls, src, tgt):
        """Count aligned columns given as code points (-1 for a gap on that side)."""
        src = _code_points(src, "src", low=-1)
        tgt = _code_points(tgt, "tgt", low=-1)
        if len(src) != len(tgt):
            raise ValueError(
                f"src and tgt must have the same length, got {len(src)} and {len(tgt)}"
            )
        seen = np.zeros(_MAX_CODE_POINT, dtype=bool)
        seen[src[src >= 0]] = True
        seen[tgt[tgt >= 0]] = True
        vocabulary = np.flatnonzero(seen).astype(np.uint32)
        ids = np.zeros(_MAX_CODE_POINT + 1, dtype=np.int64)  # index -1 (the gap) stays 0
        ids[vocabulary] = np.arange(1, len(vocabulary) + 1)
        n = len(vocabulary) + 1
        rows, cols = ids[src], ids[tgt]
        if n * n <= _DENSE_COUNT_LIMIT:
            # One pass of bincount over (row, column) keys: much faster than COO -> CSR.
            dense = np.bincount(rows * n + cols, minlength=n * n).reshape(n, n)
            return cls(vocabulary, sp.csr_array(dense))
        coo = sp.coo_array((np.ones(len(src), dtype=np.int64), (rows, cols)), shape=(n, n))
        return cls(vocabulary, coo.tocsr())

    @property
    def n_chars(self):
        """V, the number of distinct characters seen on either side."""
        return len(self.vocabulary)

    def ocr_totals(self):
        """C(s) for every id: how often each character appears on the OCR side."""
        return np.asarray(self.matrix.sum(axis=1)).ravel()

    def truth_totals(self):
        """C(t) for every id: how often each character appears on the truth side."""
        return np.asarray(self.matrix.sum(axis=0)).ravel()

    def _on(self, vocabulary):
        """The same counts over a larger vocabulary (which must contain this one)."""
        pos = np.concatenate([[0], np.searchsorted(vocabulary, self.vocabulary) + 1])
        coo = self.matrix.tocoo()
        n = len(vocabulary) + 1
        return sp.coo_array((coo.data, (pos[coo.row], pos[coo.col])), shape=(n, n)).tocsr()

    def __add__(self, other):
        if not isinstance(other, EditCounts):
            return NotImplemented
        vocabulary = np.union1d(self.vocabulary, other.vocabulary).astype(np.uint32)
        return EditCounts(vocabulary, self._on(vocabulary) + other._on(vocabulary))

    def __radd__(self, other):
        # sum() starts from 0
        return self if other == 0 else NotImplemented

    def __eq__(self, other):
        if not isinstance(other, EditCounts):
            return NotImplemented
        return np.array_equal(self.vocabulary, other.vocabulary) and (
            (self.matrix != other.matrix).nnz == 0
        )

    __hash__ = None

    def most_common(self, n=10, *, errors_only=True):
        """The ``n`` most frequent edits as ``(source, target, count)``; '' marks a gap."""
        coo = self.matrix.tocoo()
        keep = coo.row != coo.col if errors_only else np.ones(coo.nnz, dtype=bool)
        rows, cols, data = coo.row[keep], coo.col[keep], coo.data[keep]
        order = np.lexsort((cols, rows, -data))[:n]
        letter = self._letter
        as_number = int if np.issubdtype(data.dtype, np.integer) else float
        return [(letter(rows[i]), letter(cols[i]), as_number(data[i])) for i in order]

    def _letter(self, i):
        return chr(self.vocabulary[i - 1]) if i > 0 else ""

    def __repr__(self):
        return f"EditCounts(<{self.n_chars} characters, {self.matrix.sum():g} columns>)"


def _code_points(values, name, *, low):
    """``values`` as a 1-D int64 array of code points >= ``low`` (-1 marks a gap)."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size and arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integer code points, got dtype {arr.dtype}")
    if arr.size and (arr.min() < low or arr.max() >= _MAX_CODE_POINT):
        raise ValueError(f"{name} must hold code points in [{low}, 0x110000)")
    return arr.astype(np.int64)

"""The (OCR, truth) TSV reader the benchmark scripts share (one pair per line, tab-separated)."""


def read_pairs(path, limit=None):
    """Read at most ``limit`` pairs (all when None) as two lists: OCR and truth."""
    X, y = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if limit is not None and len(X) >= limit:
                break
            a, _, b = line.rstrip("\n").partition("\t")
            X.append(a)
            y.append(b)
    return X, y

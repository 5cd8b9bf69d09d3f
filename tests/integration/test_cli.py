"""The command line (fit, distance), plot_costs and the shipped pretrained model."""

import math
import sys

import numpy as np
import pytest
from conftest import require_module, run_skocrcost
from sklearn.exceptions import NotFittedError

from skocrcost import EditCostEstimator, WeightedLevenshtein, cli, plot_costs, pretrained
from skocrcost import _workers as workers
from skocrcost.datasets import load_icdar2017_sample, pretrained_corrector


@pytest.fixture(scope="module")
def pairs_file(tmp_path_factory):
    X, y = load_icdar2017_sample("tokens")
    path = tmp_path_factory.mktemp("cli") / "pairs.tsv"
    path.write_text("".join(f"{a}\t{b}\n" for a, b in zip(X[:3000], y[:3000])), encoding="utf-8")
    return path, X[:3000], y[:3000]


def test_fit_with_a_fixed_k_writes_the_estimators_model(tmp_path, pairs_file, capsys):
    path, X, y = pairs_file
    out = tmp_path / "model.json"
    assert cli.main(["fit", str(path), "-o", str(out), "--k", "0.1", "--model", "bounded"]) == 0
    stdout = capsys.readouterr().out
    assert "wrote" in stdout and "cheapest errors" in stdout
    loaded = EditCostEstimator.load(out)
    direct = EditCostEstimator(k=0.1, model="bounded").fit(X, y)
    assert loaded.metric_ == direct.metric_
    assert WeightedLevenshtein.load(out) == direct.metric_


def test_fit_auto_k_is_grid_search_and_quiet_prints_nothing(tmp_path, pairs_file, capsys):
    from sklearn.model_selection import GridSearchCV, KFold

    from skocrcost._demo import K_SEARCH

    path, X, y = pairs_file
    out = tmp_path / "model.json.gz"
    assert cli.main(["fit", str(path), "-o", str(out), "--cv", "3", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""
    search = GridSearchCV(
        EditCostEstimator(), {"k": list(K_SEARCH)}, cv=KFold(3, shuffle=True, random_state=0)
    ).fit(X, y)
    assert EditCostEstimator.load(out).k == search.best_params_["k"]


def test_fit_progress_bar_goes_to_stderr(tmp_path, pairs_file, capsys):
    path, _, _ = pairs_file
    assert cli.main(["fit", str(path), "-o", str(tmp_path / "m.json"), "--cv", "2"]) == 0
    captured = capsys.readouterr()
    assert "choosing k" in captured.err
    assert "chosen by 2-fold cross-validation" in captured.out


def test_fit_progress_without_tqdm_is_a_stdlib_line(tmp_path, pairs_file, capsys, monkeypatch):
    from skocrcost._demo import K_SEARCH

    monkeypatch.setitem(sys.modules, "tqdm", None)  # import fails as if not installed
    path, _, _ = pairs_file
    assert cli.main(["fit", str(path), "-o", str(tmp_path / "m.json"), "--cv", "2"]) == 0
    total = 2 * len(K_SEARCH) + 1
    assert f"choosing k: {total}/{total}" in capsys.readouterr().err


def test_fit_plot_writes_a_png(tmp_path, pairs_file):
    require_module("matplotlib")
    path, _, _ = pairs_file
    png = tmp_path / "costs.png"
    assert cli.main(["fit", str(path), "-o", str(tmp_path / "m.json"), "--k", "1", "-q",
                     "--plot", str(png)]) == 0  # fmt: skip
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_distance_and_explain_use_the_model_file(tmp_path, capsys):
    metric = WeightedLevenshtein({("b", "h"): 0.25}, default_insertion_cost=0.5)
    metric.save(tmp_path / "costs.json")
    assert cli.main(["distance", "tbe", "thee", "--model", str(tmp_path / "costs.json")]) == 0
    assert float(capsys.readouterr().out) == metric.distance("tbe", "thee") == 0.75
    assert cli.main(["distance", "tbe", "the", "--model", str(tmp_path / "costs.json"),
                     "--explain"]) == 0  # fmt: skip
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "0.25"
    assert lines[2].split() == ["substitute", "b", "->", "h", "0.2500"]


def test_distance_defaults_to_the_shipped_model(capsys):
    assert cli.main(["distance", "tbe", "the"]) == 0
    assert float(capsys.readouterr().out) == pytest.approx(
        pretrained("en-historical").metric_.distance("tbe", "the"), rel=1e-5
    )


@pytest.mark.parametrize(
    ("content", "args", "match"),
    [
        ("a\tb\tc\n", [], "line 1: expected 'OCR<TAB>truth'"),
        ("ab\n", [], "line 1: expected"),
        ("\n\n", [], "holds no pairs"),
        (b"\xff\tx\n", [], "not UTF-8"),
        ("a\tb\n", ["--cv", "5"], "at least --cv=5 pairs"),
    ],
)
def test_bad_pairs_are_one_clear_line(tmp_path, capsys, content, args, match):
    path = tmp_path / "pairs.tsv"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    assert cli.main(["fit", str(path), "-o", str(tmp_path / "m.json"), *args]) == 1
    err = capsys.readouterr().err
    assert err.startswith("skocrcost: error:") and match in err
    assert err.count("\n") == 1
    assert not (tmp_path / "m.json").exists()


def test_missing_files_and_bad_arguments_exit_non_zero(tmp_path, capsys):
    assert cli.main(["fit", str(tmp_path / "missing.tsv"), "-o", "m.json"]) == 1
    assert "missing.tsv" in capsys.readouterr().err
    (tmp_path / "bad.json").write_text("{")
    assert cli.main(["distance", "a", "b", "--model", str(tmp_path / "bad.json")]) == 1
    assert "not a JSON cost model" in capsys.readouterr().err
    for bad in (["fit", "x.tsv", "-o", "m.json", "--k", "-1"], ["fit", "x.tsv", "--k", "nan"],
                ["fit", "x.tsv", "-o", "m", "--cv", "1"], ["distance", "a"]):  # fmt: skip
        with pytest.raises(SystemExit) as exc:
            cli.main(bad)
        assert exc.value.code == 2


def test_help_shows_examples_and_stdin_is_read(tmp_path):
    run = run_skocrcost("--help", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "skocrcost fit pairs.tsv -o model.json" in run.stdout
    assert "distance" in run.stdout
    out = tmp_path / "m.json"
    piped = run_skocrcost(
        "fit", "-", "-o", str(out), "--k", "0.5", "-q", cwd=tmp_path, input="tbe\tthe\ncat\tcat\n"
    )
    assert piped.returncode == 0, piped.stderr
    expected = EditCostEstimator(k=0.5).fit(["tbe", "cat"], ["the", "cat"])
    assert EditCostEstimator.load(out).metric_ == expected.metric_


def test_plot_costs_draws_heatmap_and_bars(pairs_file):
    require_module("matplotlib")
    _, X, y = pairs_file
    est = EditCostEstimator(k=0.1).fit(X, y)
    fig = plot_costs(est, top=12, min_count=1)
    heat, bars, _colorbar = fig.axes
    assert len(bars.patches) == 12
    widths = [p.get_width() for p in bars.patches]
    assert widths == sorted(widths)  # cheapest first
    image = np.ma.filled(heat.get_images()[0].get_array().astype(float), np.nan)
    assert image.shape[0] <= 25 and image.shape[1] <= 25
    assert np.nanmin(image) >= 0 and math.isnan(image[-1, -1])  # gap to gap: no edit


def test_plot_costs_refuses_bad_input():
    require_module("matplotlib")
    with pytest.raises(TypeError, match="estimator"):
        plot_costs(WeightedLevenshtein())
    with pytest.raises(NotFittedError):
        plot_costs(EditCostEstimator())
    est = EditCostEstimator().fit(["tbe"], ["the"])
    with pytest.raises(ValueError, match="top"):
        plot_costs(est, top=0)


def test_plot_costs_names_the_extra_when_matplotlib_is_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)  # import fails as if absent
    est = EditCostEstimator().fit(["tbe"], ["the"])
    with pytest.raises(ImportError, match=r"skocrcost\[plot\]"):
        plot_costs(est)


def test_pretrained_model_is_fitted_and_knows_historical_print():
    est = pretrained("en-historical")
    metric = est.metric_
    assert est.references_ == []
    # Classic historical-print confusions are cheap, arbitrary ones are not.
    assert metric.substitution_cost("1", "I") < 0.5 < metric.substitution_cost("1", "Q")
    X, y = load_icdar2017_sample("lines")
    assert np.isfinite(est.score(X[:50], y[:50]))
    with pytest.raises(ValueError, match="en-historical"):
        pretrained("fr-modern")


def test_neighbors_prints_the_exact_nearest_words(tmp_path, capsys):
    from skocrcost import EditDistanceNeighbors

    lexicon = ["the", "tie", "bee", "the", "Cambridge", "cow"]
    (tmp_path / "words.txt").write_text("\n".join(lexicon) + "\n", encoding="utf-8")
    metric = WeightedLevenshtein({("b", "h"): 0.2, ("0", "o"): 0.1})
    metric.save(tmp_path / "costs.json")
    args = ["neighbors", "tbe", "c0w", "--lexicon", str(tmp_path / "words.txt"), "-n", "2"]
    assert cli.main([*args, "--model", str(tmp_path / "costs.json")]) == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    words = list(dict.fromkeys(lexicon))  # duplicates dropped, the first one kept
    dist, ind = EditDistanceNeighbors(2, metric=metric).fit(words).kneighbors(["tbe", "c0w"])
    expected = [
        [q, words[i], f"{d:.6g}"]
        for q, row_d, row_i in zip(["tbe", "c0w"], dist, ind)
        for d, i in zip(row_d, row_i)
    ]
    assert rows == expected
    assert rows[0][:2] == ["tbe", "the"] and rows[2][:2] == ["c0w", "cow"]


def test_neighbors_reads_queries_from_stdin_with_the_shipped_model(tmp_path):
    (tmp_path / "words.txt").write_text("It\nof\nthe\n", encoding="utf-8")
    run = run_skocrcost(
        "neighbors", "--lexicon", "words.txt", "-n", "1", cwd=tmp_path, input="1t\n0f\n"
    )
    assert run.returncode == 0, run.stderr
    lines = [line.split("\t") for line in run.stdout.splitlines()]
    assert [line[:2] for line in lines] == [["1t", "It"], ["0f", "of"]]
    metric = pretrained("en-historical").metric_
    assert float(lines[0][2]) == pytest.approx(metric.distance("1t", "It"), rel=1e-5)


def test_neighbors_errors(tmp_path, capsys):
    (tmp_path / "empty.txt").write_text("\n\n")
    assert cli.main(["neighbors", "x", "--lexicon", str(tmp_path / "empty.txt")]) == 1
    assert "holds no lines" in capsys.readouterr().err
    assert cli.main(["neighbors", "x", "--lexicon", str(tmp_path / "missing.txt")]) == 1
    assert "missing.txt" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        cli.main(["neighbors", "x", "--lexicon", "w.txt", "-n", "0"])
    assert exc.value.code == 2


CORRECT_WORDS = ["the", "The", "It", "of", "cow", "in", "was", "Cambridge"]
CORRECT_TEXT = "Tbe 1t was 0f the c0w, in Cambridgo.\nSmyth 1852 xyz\n"


def _correct_files(tmp_path):
    (tmp_path / "words.txt").write_text("\n".join(CORRECT_WORDS) + "\n", encoding="utf-8")
    (tmp_path / "page.txt").write_text(CORRECT_TEXT, encoding="utf-8")
    pairs = [("tbe", "the"), ("Smyth", "Smyth"), ("xyz", "xyz"), ("c0w", "cow"), ("the", "the")]
    (tmp_path / "tokens.tsv").write_text("".join(f"{a}\t{b}\n" for a, b in pairs))
    return pairs


def test_correct_fixes_words_and_keeps_everything_else(tmp_path, capsys):
    from sklearn.frozen import FrozenEstimator

    from skocrcost import OCRCorrector

    pairs = _correct_files(tmp_path)
    args = ["correct", str(tmp_path / "page.txt"), "--lexicon", str(tmp_path / "words.txt")]
    assert cli.main([*args, "--pairs", str(tmp_path / "tokens.tsv")]) == 0
    out = capsys.readouterr().out
    # The lines of OCRCorrector with the shipped costs, frozen, fitted on the pairs.
    fixer = OCRCorrector(FrozenEstimator(pretrained()), lexicon=CORRECT_WORDS)
    fixer.fit([a for a, _ in pairs], [b for _, b in pairs])
    assert out == "\n".join(fixer.predict(CORRECT_TEXT.split("\n")))
    assert out == "The It was of the cow, in Cambridge.\nSmyth 1852 xyz\n"
    # Without pairs or a model: the shipped corrector, as pretrained_corrector() corrects.
    assert cli.main(["correct", str(tmp_path / "page.txt")]) == 0
    shipped = pretrained_corrector().predict(CORRECT_TEXT.split("\n"))
    assert capsys.readouterr().out == "\n".join(shipped)
    # Confident changes made, doubtful ones (a rare word from a digit) left alone.
    fixed, changes = pretrained_corrector().correct(CORRECT_TEXT, return_confidence=True)
    assert fixed == "\n".join(shipped) and shipped[0].startswith("The ")
    threshold = pretrained_corrector().min_confidence
    assert all(c.applied == (c.confidence >= threshold) for c in changes)
    assert {c.original for c in changes if not c.applied} >= {"1t", "c0w,", "Smyth"}


def test_fit_corrector_then_correct_with_it(tmp_path, capsys):
    from skocrcost import OCRCorrector

    X, y = load_icdar2017_sample("lines")
    pairs = tmp_path / "lines.tsv"
    pairs.write_text("".join(f"{a}\t{b}\n" for a, b in zip(X[:1500], y[:1500])), encoding="utf-8")
    page = tmp_path / "page.txt"
    lines = [x for x, t in zip(X[1500:], y[1500:]) if x != t][:40]  # each has an error
    page.write_text("\n".join(lines) + "\n", encoding="utf-8")
    model = tmp_path / "corrector.json.gz"
    assert cli.main(["fit", str(pairs), "-o", str(model), "--corrector"]) == 0
    out = capsys.readouterr().out
    assert "learned a corrector from 1500 line pairs" in out and str(model) in out
    assert cli.main(["correct", str(page), "--model", str(model)]) == 0
    corrected = capsys.readouterr().out
    fitted = OCRCorrector().fit(X[:1500], y[:1500])  # what the file holds, fitted here
    assert corrected == "\n".join(fitted.predict([*lines, ""]))
    assert corrected != page.read_text(encoding="utf-8")  # it changed something
    # A corrector file is not a cost file: --pairs needs costs.
    args = ["correct", str(page), "--model", str(model), "--pairs", str(pairs)]
    assert cli.main(args) == 1
    assert "holds no estimator" in capsys.readouterr().err


def test_correct_streams_a_long_text_in_batches_of_lines(tmp_path, capsys, monkeypatch):
    _correct_files(tmp_path)
    monkeypatch.setattr(workers, "BATCH_LINES", 2)  # five batches for the nine lines
    page = "Tbe c0w\r\n  in Cambridgo.\n\n" * 3  # line ends and spacing kept as they are
    (tmp_path / "long.txt").write_text(page, encoding="utf-8", newline="")
    args = ["correct", str(tmp_path / "long.txt"), "--lexicon", str(tmp_path / "words.txt")]
    assert cli.main([*args, "--pairs", str(tmp_path / "tokens.tsv"), "-q"]) == 0
    assert capsys.readouterr().out == "The cow\r\n  in Cambridge.\n\n" * 3


def test_correct_reads_stdin_and_refuses_bad_input(tmp_path, capsys):
    _correct_files(tmp_path)
    run = run_skocrcost("correct", cwd=tmp_path, input="tbe Church of Englaud\n")
    assert run.returncode == 0, run.stderr
    assert run.stdout == "the Church of England\n"
    (tmp_path / "bad.json").write_text("[]")
    WeightedLevenshtein().save(tmp_path / "costs.json")
    for args, match in (
        (["--lexicon", str(tmp_path / "missing.txt"), "--pairs", str(tmp_path / "tokens.tsv")],
         "missing.txt"),
        (["--model", str(tmp_path / "bad.json")], "not an object"),
        (["--lexicon", str(tmp_path / "words.txt"), "--pairs", str(tmp_path / "page.txt")],
         "expected 'OCR<TAB>truth'"),
        (["--model", str(tmp_path / "costs.json")], "holds costs only"),
        (["--lexicon", str(tmp_path / "words.txt")], "--lexicon needs --pairs"),
    ):  # fmt: skip
        assert cli.main(["correct", str(tmp_path / "page.txt"), *args]) == 1
        err = capsys.readouterr().err
        assert err.startswith("skocrcost: error:") and match in err

"""The command line against bad arguments and files: one clear line on stderr and a
non-zero exit, never a traceback, and no output file written."""

import pytest

from skocrcost import WeightedLevenshtein


def _cli_files(tmp_path):
    (tmp_path / "pairs.tsv").write_text("tbe\tthe\ncow\tcow\n", encoding="utf-8")
    (tmp_path / "words.txt").write_text("the\ncow\n", encoding="utf-8")
    (tmp_path / "dir").mkdir()
    (tmp_path / "latin1.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    (tmp_path / "empty.txt").write_text("\n")
    WeightedLevenshtein().save(tmp_path / "costs.json")


# (arguments, exit status, what stderr must say); paths are relative to tmp_path.
CLI_CASES = {
    "fit: pairs a directory": (["fit", "dir", "-o", "m.json", "--k", "0.1"], 1, "dir"),
    "fit: missing pairs": (["fit", "nope.tsv", "-o", "m.json", "--k", "0.1"], 1, "nope.tsv"),
    "fit: output a directory": (["fit", "pairs.tsv", "-o", "dir", "--k", "0.1"], 1, "dir"),
    "fit: output in a missing folder": (
        ["fit", "pairs.tsv", "-o", "no/such/m.json", "--k", "0.1"],
        1,
        "no/such/m.json",
    ),
    "fit: pairs not UTF-8": (["fit", "latin1.txt", "-o", "m.json", "--k", "0.1"], 1, "UTF-8"),
    "fit: k negative": (["fit", "pairs.tsv", "-o", "m.json", "--k", "-1"], 2, "--k"),
    "fit: k inf": (["fit", "pairs.tsv", "-o", "m.json", "--k", "inf"], 2, "--k"),
    "fit: unknown model": (["fit", "pairs.tsv", "-o", "m.json", "--model", "x"], 2, "--model"),
    "fit: cv 1": (["fit", "pairs.tsv", "-o", "m.json", "--cv", "1"], 2, "--cv"),
    "fit: n-jobs 0": (["fit", "pairs.tsv", "-o", "m.json", "--n-jobs", "0"], 2, "--n-jobs"),
    "fit: n-jobs a word": (["fit", "pairs.tsv", "-o", "m.json", "--n-jobs", "all"], 2, "--n-jobs"),
    "fit: no output": (["fit", "pairs.tsv"], 2, "--output"),
    "distance: model a directory": (["distance", "a", "b", "--model", "dir"], 1, "dir"),
    "distance: missing model": (["distance", "a", "b", "--model", "nope.json"], 1, "nope.json"),
    "distance: model not JSON": (
        ["distance", "a", "b", "--model", "pairs.tsv"],
        1,
        "not a JSON cost model",
    ),
    "distance: one string": (["distance", "a"], 2, "B"),
    "neighbors: lexicon a directory": (["neighbors", "a", "--lexicon", "dir"], 1, "dir"),
    "neighbors: missing lexicon": (["neighbors", "a", "--lexicon", "nope.txt"], 1, "nope.txt"),
    "neighbors: empty lexicon": (["neighbors", "a", "--lexicon", "empty.txt"], 1, "no lines"),
    "neighbors: lexicon not UTF-8": (["neighbors", "a", "--lexicon", "latin1.txt"], 1, "UTF-8"),
    "neighbors: n 0": (["neighbors", "a", "--lexicon", "words.txt", "-n", "0"], 2, "--n-neighbors"),
    "neighbors: n a word": (["neighbors", "a", "--lexicon", "words.txt", "-n", "x"], 2, "-n"),
    "neighbors: n-jobs 0": (
        ["neighbors", "a", "--lexicon", "words.txt", "--n-jobs", "0"],
        2,
        "--n-jobs",
    ),
    "neighbors: no lexicon": (["neighbors", "a"], 2, "--lexicon"),
    "correct: text a directory": (["correct", "dir"], 1, "dir"),
    "correct: missing text": (["correct", "nope.txt"], 1, "nope.txt"),
    "correct: lexicon without pairs": (
        ["correct", "words.txt", "--lexicon", "words.txt"],
        1,
        "--lexicon needs --pairs",
    ),
    "correct: min-confidence above 1": (
        ["correct", "words.txt", "--min-confidence", "1.5"],
        2,
        "--min-confidence",
    ),
    "fit: lexicon without --corrector": (
        ["fit", "pairs.tsv", "-o", "m.json", "--lexicon", "words.txt"],
        1,
        "--lexicon is for --corrector",
    ),
    "correct: missing pairs": (
        ["correct", "words.txt", "--lexicon", "words.txt", "--pairs", "nope.tsv"],
        1,
        "nope.tsv",
    ),
    "correct: costs-only model": (
        ["correct", "words.txt", "--model", "costs.json"],
        1,
        "holds costs only",
    ),
    "correct: n-jobs -0": (
        ["correct", "words.txt", "--lexicon", "words.txt", "--n-jobs", "-0"],
        2,
        "--n-jobs",
    ),
    "unknown command": (["bogus"], 2, "invalid choice"),
    "no command": ([], 2, "COMMAND"),
}


@pytest.mark.parametrize(("argv", "status", "match"), CLI_CASES.values(), ids=CLI_CASES)
def test_bad_command_lines_exit_non_zero_with_one_clear_message(
    tmp_path, monkeypatch, capsys, argv, status, match
):
    from skocrcost import cli

    _cli_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    if status == 2:  # argparse: usage and the error, exit status 2
        with pytest.raises(SystemExit) as exc:
            cli.main(argv)
        assert exc.value.code == 2
    else:
        assert cli.main([*argv, "-q"] if argv[0] != "correct" else argv) == 1
    err = capsys.readouterr().err
    assert match in err and "Traceback" not in err
    assert err.rstrip("\n").splitlines()[-1].startswith(("skocrcost: error:", "skocrcost "))
    assert not (tmp_path / "m.json").exists()

"""A CLI that never surprises: bad values refused at once, one error style, hints.

Every refusal here happens before any work: exit 2, one line
``proofsearch <command>: <what>: <why>; <how to fix>``, and no results file.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from proofsearch import __version__
from proofsearch.cli import SUBCOMMANDS, main
from tests.generate.knn_trace import write_trace

#: ``proofsearch <command>: <what>: <why>; <how to fix>``
ERROR_LINE = re.compile(r"^proofsearch (\w+): [^\n]+: [^\n]+; [^\n]+$")


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's own exits (--version, usage errors)
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def error_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.strip()]


@pytest.fixture
def theorems(tmp_path: Path) -> Path:
    path = tmp_path / "thms.jsonl"
    path.write_text(json.dumps({"name": "t", "statement": "Theorem t : True."}) + "\n")
    return path


@pytest.mark.parametrize(
    "argv,option,valid",
    [
        (["search", "THMS", "--generator", "knnn"], "--generator", "knn-portfolio"),
        (["search", "THMS", "--prover", "coqq"], "--prover", "lean"),
        (["check", "R", "THMS", "--prover", "coqq"], "--prover", "coq"),
        (["export", "R", "THMS", "--out", "X", "--prover", "lean4"], "--prover", "lean"),
    ],
)
def test_a_value_outside_a_fixed_set_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
    theorems: Path,
    tmp_path: Path,
    argv: list[str],
    option: str,
    valid: str,
) -> None:
    out = tmp_path / "results.jsonl"
    argv = [str(theorems) if a == "THMS" else a for a in argv]
    code, _, err = cli(capsys, *argv, *(["-o", str(out)] if argv[0] == "search" else []))
    assert code == 2
    (line,) = error_lines(err)  # no traceback
    assert line.startswith(f"proofsearch {argv[0]}: {option}: "), line
    # the valid names, quoted ('coq', 'lean') by Python 3.11's argparse, bare from 3.12 on
    choices = line.partition("choose from ")[2].replace("'", "")
    assert valid in (choices or line) and ERROR_LINE.match(line), line
    assert not out.exists()


BAD_NUMBERS = [
    ("search", "--timeout", "-1"),
    ("search", "--timeout", "0"),
    ("search", "--timeout", "nan"),
    ("search", "--workers", "0"),
    ("search", "--num-sampled-tactics", "0"),
    ("search", "--max-sampled-tactics", "0"),
    ("search", "--max-expansions", "0"),
    ("search", "--slow-tactic-timeouts", "-1"),
    ("prove", "--slow-tactic-timeouts", "x"),
    ("search", "--goal-penalty", "-0.5"),
    ("prove", "--goal-penalty", "much"),
    ("search", "--depth-bonus", "-0.1"),
    ("prove", "--depth-bonus", "deep"),
    ("search", "--tactic-timeout", "0"),
    ("search", "--memory-limit-mb", "0"),
    ("search", "--generator-actors", "-1"),
    ("search", "--max-attempts", "0"),
    ("search", "--limit", "0"),
    ("search", "--deadline-grace", "-5"),
    ("search", "--workers", "two"),
    ("trace", "--jobs", "0"),
    ("trace", "--timeout", "0"),
    ("check", "--tactic-timeout", "-1"),
    ("prove", "--timeout", "0"),
    ("bench", "--sample", "0"),
    ("bench", "--jobs", "0"),
    ("bench", "--timeout", "-1"),
    ("prove", "--num-sampled-tactics", "0"),
    ("prove", "--max-expansions", "-2"),
    ("prove", "--workers", "0"),
    ("prove", "--trace-jobs", "0"),
]


@pytest.mark.parametrize("command,option,value", BAD_NUMBERS)
def test_a_number_out_of_range_is_refused_before_any_work(
    capsys: pytest.CaptureFixture[str],
    theorems: Path,
    tmp_path: Path,
    command: str,
    option: str,
    value: str,
) -> None:
    out = tmp_path / "results.jsonl"
    argv = {
        "search": ["search", str(theorems), "-o", str(out), option, value],
        "trace": ["trace", str(tmp_path), option, value],
        "check": ["check", str(out), str(theorems), option, value],
        "prove": ["prove", str(tmp_path), "--output", str(out), option, value],
        "bench": ["bench", "extract-coq-stdlib", "--out", str(out), option, value],
    }[command]
    code, _, err = cli(capsys, *argv)
    assert code == 2
    (line,) = error_lines(err)
    words = " ".join(argv[:2]) if command == "bench" else command  # bench's sub-subcommand too
    assert line.startswith(f"proofsearch {words}: {option}") and value in line, line
    assert not out.exists()


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "--version")
    assert code == 0 and out.strip() == f"proofsearch {__version__}"


def test_bare_proofsearch_lists_the_subcommands(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys)
    assert code == 2 and not out
    for name in SUBCOMMANDS:
        assert re.search(rf"^\s+{name}\s+\w", err, re.M), (name, err)


@pytest.mark.parametrize("command", ["search", "prove"])
def test_a_widening_limit_below_the_tactics_per_expansion_is_refused(
    capsys: pytest.CaptureFixture[str], theorems: Path, tmp_path: Path, command: str
) -> None:
    out = tmp_path / "results.jsonl"
    given = str(theorems) if command == "search" else str(tmp_path)
    code, _, err = cli(
        capsys, command, given, "-o", str(out), "--num-sampled-tactics", "48",
        "--max-sampled-tactics", "32",
    )  # fmt: skip
    assert code == 2
    (line,) = error_lines(err)
    assert line == (
        f"proofsearch {command}: --max-sampled-tactics: 32 is fewer than "
        "--num-sampled-tactics (48); give at least 48 (equal: never widen)"
    )
    assert not out.exists()


def test_every_subcommand_errs_in_one_style(
    capsys: pytest.CaptureFixture[str], theorems: Path, tmp_path: Path
) -> None:
    missing = str(tmp_path / "missing.jsonl")
    full = tmp_path / "full"
    full.mkdir()
    (full / "stale.v").write_text("")
    empty = tmp_path / "empty"
    empty.mkdir()
    results = tmp_path / "r.jsonl"
    results.write_text(json.dumps({"name": "t", "status": "failed", "proof": None}) + "\n")
    trace = write_trace(tmp_path / "trace")
    cases = [
        ["search", missing],
        ["check", str(results), missing],
        ["check", missing, str(theorems)],
        ["export", str(results), missing, "--out", str(tmp_path / "e")],
        ["export", str(results), str(theorems), "--out", str(full)],
        ["report", missing, "--out", str(tmp_path / "rep")],
        ["report", str(results), "--out", str(results)],  # a file, not a folder
        ["report", str(results), "--out", str(tmp_path / "rep"), "--name", "a", "--name", "b"],
        ["trace", str(empty)],  # no _CoqProject, no .v file
        ["trace"],
        ["search", str(theorems), "--generator", "fixed"],  # no --tactic
        ["search", str(theorems), "--tactics-file", str(tmp_path / "nope.txt")],
        ["search", str(theorems), "--generator", "hf"],  # no --model
        ["search", str(theorems), "--generator", "no_such_package.mod:factory"],
        # The module is there, its factory is not: a traceback (audit 51).
        ["search", str(theorems), "--generator", "tests.distributed.chaos:no_such_factory"],
        ["search", str(theorems), "--generator", "knn"],  # no --index
        ["search", str(theorems), "--index", str(tmp_path)],  # not a trace
        ["search", str(theorems), "--gen-option", "neighbours=3"],  # not portfolio's
        ["search", str(theorems), "--index", str(trace), "--gen-option", "schedule=knn:1,knnn:2"],
        ["search", str(theorems), "--index", str(trace), "--gen-option", "schedule=knn:0"],
        ["search", str(theorems), "--index", str(trace), "--gen-option", "neighbors=3"],
        ["search", str(theorems), "--index", str(trace), "--gen-option", "knn_share=1.5"],
        ["search", str(theorems), "--index", str(trace), "--gen-option", "premise_ranking=x"],
        ["search", str(theorems), "--index", str(trace), "--gen-option", "adapt_names=2"],
        ["search", str(theorems), "--index", str(trace), "--gen-option", "dropped_features=x"],
        ["search", str(theorems), "-o", str(results)],  # exists: no --resume/--overwrite
        ["search", str(theorems), "-o", str(tmp_path), "--overwrite"],  # a folder
        ["prove", str(empty)],  # no _CoqProject, no .v file
        ["prove", str(tmp_path / "nope.v")],
        ["bench", "extract-coq", "--project", str(tmp_path), "--out", str(tmp_path / "b")],
        ["bench", "extract-coq", "--project", str(tmp_path / "no"), "--out", str(tmp_path / "b")],
        ["bench", "extract-coq-stdlib", "--root", str(empty), "--out", str(tmp_path / "b")],
        ["bench", "extract-coq", "--library", "no.such.lib", "--out", str(tmp_path / "b")],
    ]
    for argv in cases:
        code, _, err = cli(capsys, *argv)
        lines = error_lines(err)
        assert code == 2 and len(lines) == 1, (argv, err)
        assert ERROR_LINE.match(lines[0]) and lines[0].startswith(f"proofsearch {argv[0]}: ")
        assert "error: " not in lines[0] and "Fix:" not in lines[0], lines[0]
    assert (full / "stale.v").exists()  # a refused export touched nothing


def test_a_bad_json_line_is_named_once(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "thms.jsonl"
    bad.write_text('{"name": "a", "statement": "Theorem a : True."}\n{oops\n')
    code, _, err = cli(capsys, "search", str(bad), "-o", str(tmp_path / "r.jsonl"))
    assert code == 2
    detail, last = error_lines(err)
    why = "invalid JSON: Expecting property name enclosed in double quotes"
    assert detail.strip() == f"{bad}:2: {why}"
    assert last.startswith(f"proofsearch search: {bad}: 1 bad line(s)") and "--skip-invalid" in last


def test_a_results_file_given_as_the_theorem_file_gets_a_hint(
    capsys: pytest.CaptureFixture[str], theorems: Path, tmp_path: Path
) -> None:
    results = tmp_path / "r.jsonl"
    record = {"name": "t", "status": "proved", "proof": ["exact I"], "checked": True}
    results.write_text(json.dumps(record) + "\n")
    code, _, err = cli(capsys, "search", str(results), "-o", str(tmp_path / "again.jsonl"))
    (line,) = error_lines(err)
    assert code == 2 and "this is a results file" in line and ERROR_LINE.match(line), line
    # check RESULTS THEOREMS given the other way round
    code, _, err = cli(capsys, "check", str(theorems), str(results))
    (line,) = error_lines(err)
    assert code == 2 and "this is a results file" in line, line
    assert "proofsearch check RESULTS THEOREMS" in line


def test_a_missing_v_file_is_said_to_be_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["trace", str(tmp_path / "nosuch.v"), "--out", str(tmp_path / "t")]) == 2
    assert "nosuch.v: no such file" in capsys.readouterr().err


def test_a_mistyped_option_is_said_by_its_command_with_the_closest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["search", str(tmp_path / "t.jsonl"), "--time-out", "5"]) == 2
    assert capsys.readouterr().err.strip() == (
        "proofsearch search: unrecognized arguments: --time-out 5; did you mean --timeout?; "
        "see proofsearch search --help"
    )


def test_a_mistyped_required_option_is_said_mistyped_not_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # argparse checks required options first, so `--outt` read as "--out is required"
    with pytest.raises(SystemExit) as exit_:
        main(["report", str(tmp_path / "r.jsonl"), "--outt", "x.md"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.strip() == (
        "proofsearch report: unrecognized arguments: --outt; did you mean --out?; "
        "see proofsearch report --help"
    )
    # an abbreviation argparse accepts is not a typo; a truly missing option still says so
    with pytest.raises(SystemExit):
        main(["report", str(tmp_path / "r.jsonl"), "--ou"])
    assert "the following arguments are required: --out" not in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["report", str(tmp_path / "r.jsonl")])
    assert "the following arguments are required: --out" in capsys.readouterr().err


def test_an_address_without_workers_is_refused_not_run_here(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--address` with the default one worker ran the search in this process, exit 0,
    the cluster never contacted (an audit's evaluation on the driver machine)."""
    theorems = tmp_path / "t.jsonl"
    theorems.write_text(json.dumps({"name": "t", "statement": "Lemma t : True."}) + "\n")
    out = tmp_path / "r.jsonl"
    argv = ["search", str(theorems), "--generator", "fixed", "--tactic", "exact I", "-o", str(out)]
    code, _, err = cli(capsys, *argv, "--address", "127.0.0.1:6390")
    assert code == 2 and ERROR_LINE.match(err.strip()), err
    assert "--address: 127.0.0.1:6390: with --workers 1 the search runs in this process" in err
    assert not out.exists()
    # RAY_ADDRESS may be set for other tools: said, and the run goes on here.
    monkeypatch.setenv("RAY_ADDRESS", "127.0.0.1:6390")
    code, _, err = cli(capsys, *argv, "--no-check")
    assert code == 0, err
    assert "RAY_ADDRESS=127.0.0.1:6390 is set, but with --workers 1" in " ".join(err.split())


def test_files_after_the_options_are_the_commands_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``prove . --list B.v`` was refused ("unrecognized arguments: B.v") while ``prove .
    B.v --list`` worked (audit 45): trailing words go to the command's list of inputs.
    A command without such a list still refuses them, and so does an unknown option."""
    (tmp_path / "A.v").write_text("Lemma a : True.\nAdmitted.\n")
    (tmp_path / "B.v").write_text("Lemma b : True.\nAdmitted.\n")
    assert main(["prove", str(tmp_path), "--list", str(tmp_path / "B.v")]) == 0
    out = capsys.readouterr().out
    assert "B.v" in out and "A.v" not in out
    assert main(["search", str(tmp_path / "t.jsonl"), "--timeout", "5", "extra"]) == 2
    assert "unrecognized arguments: extra" in capsys.readouterr().err
    assert main(["prove", str(tmp_path), "--list", "B.v", "--nope"]) == 2
    assert "unrecognized arguments: B.v --nope" in capsys.readouterr().err


def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path: Path) -> None:
    """``prove . --list | head -1`` printed a BrokenPipeError traceback (an audit)."""
    import subprocess
    import sys

    for i in range(3):
        (tmp_path / f"A{i}.v").write_text("".join(
            f"Lemma a{i}_{k} : True.\nAdmitted.\n" for k in range(3000)
        ))  # fmt: skip
    command = f"{sys.executable} -m proofsearch.cli prove {tmp_path} --list | head -1"
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", command], capture_output=True, text=True, check=False
    )
    assert done.stdout.strip() == "A0.v:1 a0_0"
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr
    assert done.returncode == 141


def test_proves_help_is_about_coq_projects_only() -> None:
    """``prove`` fills Coq projects: its help listed ``--prover {coq,lean}``,
    ``--lean-repl`` and ``--leandojo-repo``, and a usage ending ``PROJECT [FILES…]
    [PROJECT [FILES…] ...]`` that read as several projects (audit 49)."""
    from proofsearch.cli import build_parser

    parser = build_parser()
    prove = next(
        action.choices["prove"]
        for action in parser._actions
        if isinstance(getattr(action, "choices", None), dict) and "prove" in action.choices
    )
    text = " ".join(prove.format_help().split())  # whatever the terminal's width
    assert "--prover {" not in text and "--prover PROVER" not in text
    for hidden in ("--lean-repl", "--lean-project", "--leandojo-repo", "native_decide"):
        assert hidden not in text
    assert "PATH [PATH ...]" in text and "PROJECT [FILES" not in text
    search = next(
        action.choices["search"]
        for action in parser._actions
        if isinstance(getattr(action, "choices", None), dict) and "search" in action.choices
    )
    assert "--lean-repl" in search.format_help()  # search keeps them: it runs Lean too


def test_a_generator_factory_that_is_not_there_is_named(
    capsys: pytest.CaptureFixture[str],
    theorems: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--generator mygen:nofactory`` was a traceback with exit 1 (audit 51): one line
    now, with the module's functions; a module that fails as it is imported likewise."""
    code, _, err = cli(
        capsys, "search", str(theorems), "--generator", "tests.distributed.chaos:mak"
    )
    assert code == 2
    assert "module 'tests.distributed.chaos' has no function 'mak'" in err and "make" in err
    (tmp_path / "broken_gen.py").write_text("raise RuntimeError('no GPU here')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    code, _, err = cli(capsys, "search", str(theorems), "--generator", "broken_gen:make")
    assert code == 2 and "importing 'broken_gen' failed: RuntimeError: no GPU here" in err

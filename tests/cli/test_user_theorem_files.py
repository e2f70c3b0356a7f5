"""Theorem files as a user writes them by hand, and the mistakes of a first run
(the second new-user audit, 2026-12-06): each was a traceback, a silent default or a
proof found and then reported as an error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proofsearch.cli import main
from proofsearch.cli.search import NO_INDEX_NOTE
from proofsearch.env.coq.header_scopes import with_implied_place
from proofsearch.env.coq.version import without_native_warning
from proofsearch.theorem import Theorem
from tests.conftest import COQ_INSTALLED


def _file(path: Path, *entries: dict[str, object]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    return path


TRIVIAL = {"name": "t", "statement": "Theorem t : 0 = 0."}


@pytest.mark.parametrize(
    ("make", "extra", "why"),
    [
        (lambda d: d / "o.jsonl", ["--tactics-file", "EMPTY"], "no tactics"),
        (lambda d: d / "o.jsonl", ["--tactics-file", "BAD"], "logprob: not a number"),
        (lambda d: d / "afile" / "o.jsonl", [], "its folder cannot be made"),
        (lambda d: d / "o.jsonl", ["--resume", "--overwrite"], "ask for opposite things"),
    ],
)
def test_bad_settings_are_one_line_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: object, extra: list[str], why: str
) -> None:
    (tmp_path / "afile").write_text("")
    (tmp_path / "EMPTY").write_text("")
    (tmp_path / "BAD").write_text("reflexivity\tabc\n")
    extra = [str(tmp_path / e) if e in ("EMPTY", "BAD") else e for e in extra]
    output = make(tmp_path)  # type: ignore[operator]
    argv = ["search", str(_file(tmp_path / "t.jsonl", TRIVIAL)), "--output", str(output), *extra]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and why in err and "Traceback" not in err
    assert not Path(output).exists() or Path(output).stat().st_size == 0


def test_an_empty_theorem_file_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "t.jsonl").write_text("\n")
    assert main(["search", str(tmp_path / "t.jsonl"), "--output", str(tmp_path / "r")]) == 2
    assert "holds no theorem" in capsys.readouterr().err


def test_a_header_that_leaves_scopes_open_implies_its_footer() -> None:
    module = with_implied_place(Theorem("m", "Corollary m : 2 = 2.", "Module M.\nSection S."))
    assert module.extra == {"footer": "End S.\nEnd M.", "qualid": "M.m"}
    given = Theorem("g", "Lemma g : True.", "Section S.", {"footer": ""})
    assert with_implied_place(given) is given  # a footer given (even empty) is kept
    functor = Theorem("f", "Lemma f : True.", "Module Type T.\nEnd T.\nModule F (X : T).")
    assert with_implied_place(functor) is functor  # needs functor_parameters instead


def test_the_native_warning_is_not_the_first_thing_an_error_says() -> None:
    stderr = (
        "While loading initial state:\nWarning: The native-compiler option is deprecated. "
        "To compile native files\nahead of time, use the coqnative binary instead.\n"
        '[deprecated-native-compiler-option,deprecated]\nFile "X.v", line 2:\nError: no.\n'
    )
    assert without_native_warning(stderr) == 'File "X.v", line 2:\nError: no.\n'


@pytest.mark.skipif(not COQ_INSTALLED, reason="Coq is not installed")
def test_hand_written_theorems_are_proved_and_rechecked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Real Coq: a lemma in a Module, one in a Section without ``footer``, a statement
    after a comment and a Unicode name were found and then "rejected" by the re-check;
    a proof resting on an axiom says how to allow it. With a tactics file of one's own,
    no note about the bundled portfolio."""
    theorems = _file(
        tmp_path / "t.jsonl",
        {"name": "mod", "header": "Module M.", "statement": "Corollary mod : 2 = 2."},
        {"name": "sec", "header": "Section S.\nVariable n : nat.",
         "statement": "Lemma sec : n = n."},
        {"name": "cmt", "statement": "(* doc *)\nTheorem cmt : 0 = 0."},
        {"name": "theta", "statement": "Theorem θ : 4 = 4."},
        {"name": "ax", "header": "Require Import Classical.",
         "statement": "Lemma ax : forall P : Prop, P \\/ ~ P."},
    )  # fmt: skip
    tactics = tmp_path / "tactics.txt"
    tactics.write_text("reflexivity\nintro P; apply classic\n")
    out = tmp_path / "r.jsonl"
    argv = ["search", str(theorems), "--tactics-file", str(tactics), "--output", str(out)]
    assert main([*argv, "--timeout", "20"]) == 0
    assert NO_INDEX_NOTE not in " ".join(capsys.readouterr().err.split())
    records = {r["name"]: r for r in map(json.loads, out.read_text().splitlines())}
    for name in ("mod", "sec", "cmt", "theta"):
        assert records[name]["status"] == "proved" and records[name]["checked"], records[name]
    assert "--allow-axiom" in str(records["ax"]["error"])


def test_a_mistyped_place_is_refused_at_load(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entries = [{**TRIVIAL, "line": "6"}, {**TRIVIAL, "name": "u", "line": 0}]
    argv = ["search", str(_file(tmp_path / "t.jsonl", *entries)), "--output", str(tmp_path / "r")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "t.jsonl:1: field 'line'" in err and "t.jsonl:2: field 'line'" in err

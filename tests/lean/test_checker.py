"""The from-scratch re-check: ``LeanProver.check``.

Rejections are tested against real transcripts whose first request is exactly the
whole-proof command the checker sends (``core/self_proof_*``). No transcript records
``#print axioms``: the accepted path uses the real header and proof exchanges of
``mathlib/H20231020`` followed by a SYNTHETIC ``#print axioms`` reply, written here in
the format Lean prints (``'NAME' depends on axioms: [...]``); that format is the one
part of the re-check not verified against real Lean output.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from proofsearch.env.lean.checker import parse_axioms
from proofsearch.env.lean.protocol import CommandReply
from proofsearch.theorem import Theorem

H20231020 = "mathlib/H20231020"
NAME = "mathd_numbertheory_188"
STATEMENT = f"theorem {NAME} : Nat.gcd 180 168 = 12 := by"


def axioms_reply(data: str, severity: str = "info") -> dict[str, Any]:
    position = {"line": 1, "column": 0}
    message = {"severity": severity, "pos": position, "endPos": position, "data": data}
    return {"messages": [message], "env": 2}


def derived_transcript(
    replay_module, repl_dir: Path, tmp_path: Path, fixture: str, keep: int, extra: list
) -> Path:
    """The first ``keep`` real exchanges of ``fixture`` and then ``extra`` (synthetic)."""
    requests_path = repl_dir / f"{fixture}.in"
    real = replay_module.load_transcript(
        requests_path, requests_path.with_name(requests_path.name[:-3] + ".expected.out")
    )[:keep]
    requests = [e.request_text for e in real] + [
        json.dumps(r, ensure_ascii=False) for r, _ in extra
    ]
    replies = [e.reply_text for e in real] + [json.dumps(r, ensure_ascii=False) for _, r in extra]
    base = tmp_path / "derived"
    base.with_suffix(".in").write_text("\n\n".join(requests) + "\n", encoding="utf-8")
    base.with_suffix(".expected.out").write_text("\n\n".join(replies) + "\n", encoding="utf-8")
    return base


def header_of(replay_module, repl_dir: Path, fixture: str) -> str:
    requests = repl_dir / f"{fixture}.in"
    first = next(replay_module.requests_of(requests.read_text().splitlines()))
    return json.loads(first)["cmd"]


@pytest.fixture
def checking(lean, replay_module, repl_dir, tmp_path):
    """A prover whose check process gets H20231020's header and proof replies (real) and
    then ``axioms_text`` as the reply to ``#print axioms`` (synthetic)."""

    def build(axioms_text: str, **options: Any):
        request = {"cmd": f"#print axioms {NAME}", "env": 1}
        extra = [(request, axioms_reply(axioms_text))]
        base = derived_transcript(replay_module, repl_dir, tmp_path, H20231020, 2, extra)
        prover = lean.replay(base, **options)
        theorem = Theorem(NAME, STATEMENT, header_of(replay_module, repl_dir, H20231020))
        return prover, theorem

    return build


@pytest.mark.parametrize(
    ("fixture", "statement", "proof", "expected"),
    [
        ("core/self_proof_check", "theorem ex : False := by", ["exact?"], "could not close"),
        (
            "core/self_proof_apply_check",
            "theorem ex : False := by",
            ["apply ex"],
            "fail to show termination",
        ),
        (
            "core/self_proof_exact_check",
            "theorem ex : False :=",
            ["exact ex"],
            "fail to show termination",
        ),
        (
            "core/self_proof_rw",
            "theorem self_application : 1 = 0 := by",
            ["rw [self_application]"],
            "fail to show termination",
        ),
    ],
)
def test_lean_rejections_are_reported(lean, fixture, statement, proof, expected):
    prover = lean.replay(fixture, unused="the re-check uses the whole-proof exchange only")
    result = prover.check(Theorem("ex", statement), proof)
    assert not result.ok
    assert result.message.startswith("Lean rejected the proof: ")
    assert expected in result.message
    assert prover.pid is None  # the check used its own process, now gone


def test_accepted_with_standard_axioms(checking):
    prover, theorem = checking(f"'{NAME}' depends on axioms: [propext, Quot.sound]")
    result = prover.check(theorem, ["norm_num"])
    assert result.ok, result.message
    assert result.axioms == ("propext", "Quot.sound")
    assert result.message == "accepted"


def test_no_axioms_at_all(checking):
    prover, theorem = checking(f"'{NAME}' does not depend on any axioms")
    result = prover.check(theorem, ["norm_num"])
    assert result.ok and result.axioms == ()


@pytest.mark.parametrize(
    ("printed", "options", "extra", "ok", "why"),
    [
        (f"'{NAME}' depends on axioms: [propext, sorryAx]", {}, {}, False, "sorryAx"),
        (
            f"'{NAME}' depends on axioms: [propext, Classical.choice, Lean.ofReduceBool]",
            {},
            {},
            False,
            "not allowed: Lean.ofReduceBool",
        ),
        (
            f"'{NAME}' depends on axioms: [propext, Lean.ofReduceBool]",
            {"allow_native_decide": True},
            {},
            True,
            "accepted",
        ),
        (f"'{NAME}' depends on axioms: [my_axiom]", {}, {"allowed_axioms": ["my_axiom"]}, True, ""),
        (
            f"'{NAME}' depends on axioms: [propext]",
            {"allowed_axioms": ("Quot.sound",)},
            {},
            False,
            "propext",
        ),
        ("'other_theorem' depends on axioms: [propext]", {}, {}, False, "not 'mathd"),
        ("something else entirely", {}, {}, False, "unexpected #print axioms output"),
    ],
)
def test_axiom_policy(checking, printed, options, extra, ok, why):
    prover, theorem = checking(printed, **options)
    theorem = Theorem(theorem.name, theorem.statement, theorem.header, extra)
    result = prover.check(theorem, ["norm_num"])
    assert result.ok is ok, result.message
    assert why in result.message


def test_guard_refuses_before_any_process_starts(lean, tmp_path):
    prover = lean.prover(f"{tmp_path}/never/started")
    theorem = Theorem("foo", "theorem foo (x : Int) : x = x := by")
    result = prover.check(theorem, ["have h : x = 1 := by sorry"])
    assert not result.ok and "rejected" in result.message and "'sorry'" in result.message
    assert not prover.check(theorem, []).ok


def test_check_that_cannot_start_says_so(lean, tmp_path):
    prover = lean.prover(f"{tmp_path}/never/started")
    result = prover.check(Theorem("foo", "theorem foo : True := by"), ["trivial"])
    assert not result.ok and "cannot start the Lean REPL" in result.message


def test_check_timeout(lean, tmp_path):
    command = lean.faulty_command("hang", 1, "core/self_proof_check")
    prover = lean.prover(command, check_timeout=0.5)
    result = prover.check(Theorem("ex", "theorem ex : False := by"), ["exact?"])
    assert not result.ok and "timed out" in result.message


def test_parse_axioms_formats():
    def reply(text: str) -> CommandReply:
        return CommandReply.model_validate(axioms_reply(text))

    assert parse_axioms(reply("'Foo.bar' depends on axioms: [propext]"), "bar") == ("propext",)
    wrapped = "'t' depends on axioms: [propext,\n Classical.choice,\n Quot.sound]"
    assert parse_axioms(reply(wrapped), "t") == ("propext", "Classical.choice", "Quot.sound")
    assert parse_axioms(reply("'«odd name»' does not depend on any axioms"), "«odd name»") == ()
    with pytest.raises(ValueError, match="failed"):
        parse_axioms(CommandReply.model_validate(axioms_reply("unknown constant", "error")), "t")


def test_check_without_lean_is_a_setup_error_not_rejected_proofs(
    tmp_path, monkeypatch, capsys
) -> None:  # type: ignore[no-untyped-def]
    """No ``lake`` on PATH: every proof was said to be rejected (exit 1), the reason
    "lake not found"; a user re-checking someone's results read the proofs as wrong."""
    from proofsearch.cli import main

    monkeypatch.setenv("PATH", str(tmp_path))  # no lake, no lean
    results = tmp_path / "r.jsonl"
    results.write_text('{"name": "t2", "status": "proved", "proof": ["decide"]}\n')
    theorems = tmp_path / "t.jsonl"
    theorems.write_text('{"name": "t2", "statement": "theorem t2 : 2 + 2 = 4 := by"}\n')
    assert main(["check", str(results), str(theorems), "--prover", "lean"]) == 2
    said = capsys.readouterr()
    assert "--prover lean: cannot start the Lean REPL: lake not found on PATH" in said.err
    assert "rejected" not in said.out + said.err

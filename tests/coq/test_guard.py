"""The tactic guard: one tactic expression, never a command or a cheat."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from proofsearch.env.coq.guard import TacticRejected, check_tactic

#: At least fifteen different ways a model could try to cheat or escape.
CHEATS = [
    "admit",
    "give_up",
    "Admitted",
    "auto. Admitted",
    "Abort",
    "Qed",
    "Defined",
    "Axiom cheat : False",
    "exact I. Qed",
    'Redirect "/tmp/pwned" Print nat',
    'Load "/etc/passwd"',
    "Require Import Coq.Logic.Classical",
    "Set Printing All",
    "Unset Guard Checking",
    'Extraction "/tmp/x.ml" nat',
    'Declare ML Module "evil"',
    "idtac); Admitted; (idtac",
    "auto (* comment",
    "exact (ltac:(admit))",
    "native_compute",
    "Ltac pwn := admit",
    "- admit",
    "Timeout 1000 auto",
    "Abort All. Lemma x : True",
]

#: Commands that slipped past the guard before: behind an attribute, after a ``;`` or
#: inside brackets, or in the middle of the tactic. (tactic, what the refusal names)
GUARD_GAPS = {
    "#[local] Unset Universe Checking": "attributes",
    "#[local]Unset Guard Checking": "attributes",
    "#[global] Opaque plus": "attributes",
    "(Unset Guard Checking)": "'Unset'",
    "(Set Printing All)": "'Set'",
    "idtac; Set Printing All": "'Set'",
    "auto; Time auto": "'Time'",
    "idtac; Fail idtac": "'Fail'",
    "idtac; Succeed idtac": "'Succeed'",
    "idtac; Drop": "'Drop'",
    'idtac; Cd "/tmp"': "'Cd'",
    "idtac; Opaque plus": "'Opaque'",
    "idtac; Transparent plus": "'Transparent'",
    "idtac; Instance i : True := I": "'Instance'",
    "idtac; Section S": "'Section'",
    "idtac; End S": "'End'",
    "idtac; Goal True": "'Goal'",
    "Timeout 0 auto": "'Timeout'",
    "idtac; Timeout 0 auto": "'Timeout'",
    'idtac (* "*)" *) admit': "'admit'",
    "idtac (* (* *) *) admit": "'admit'",
    'idtac "*)" ; admit': "'admit'",
    'idtac "x" (* unterminated': "unterminated comment",
    'idtac "unterminated': "unterminated string",
    "idtac *) auto": "unbalanced comment",
    # Commands that passed until audit 44 (`Extract Inlined Constant` in a proof survives
    # Qed and puts OCaml of the model's choosing into the file's extracted code).
    'Extract Inlined Constant negb => "(fun _ -> Sys.command \\"id\\" = 0)"': "'Extract'",
    'idtac; Extract Constant negb => "x"': "'Extract'",
    "Strategy expand [plus]": "'Strategy'",
    "Debug On": "'Debug'",
    "Inspect 3": "'Inspect'",
    "Pwd": "'Pwd'",
    "Info 1 auto": "'Info'",
    "idtac; Canonical Structure s": "'Canonical'",
    "Existing Class c": "'Existing'",
    "Solve All Goals": "'Solve'",
}

#: Tactics that only look suspicious: comments nest and hold strings, strings hold
#: anything (Coq reads each of these as ``idtac`` with a comment or a string).
TRICKY_BUT_FINE = [
    "idtac (* (* admit *) *)",
    'idtac (* "*)" *)',
    'idtac (* " *) admit (* " *)',
    'idtac "*)"',
    'idtac "(*"',
    'idtac "a. Qed. b"',
    'idtac """ . Qed "',
]


@pytest.mark.parametrize("tactic", CHEATS)
def test_cheats_are_rejected(tactic: str) -> None:
    with pytest.raises(TacticRejected):
        check_tactic(tactic)


@pytest.mark.parametrize("tactic", sorted(GUARD_GAPS))
def test_guard_gaps_are_closed(tactic: str) -> None:
    with pytest.raises(TacticRejected, match=GUARD_GAPS[tactic]):
        check_tactic(tactic)


def test_tricky_comments_and_strings_pass_and_coq_reads_them_alike(tmp_path: Path) -> None:
    """Each tactic passes the guard, and Coq runs it as a no-op (no admit hides in it)."""
    lemmas = []
    for index, tactic in enumerate(TRICKY_BUT_FINE):
        assert check_tactic(tactic) == tactic
        lemmas.append(f"Lemma l{index} : True.\nProof.\nTimeout 5 ({tactic}).\nexact I.\nQed.")
    names = ", ".join(f"l{i}" for i in range(len(TRICKY_BUT_FINE)))
    source = "\n".join(lemmas) + f"\nDefinition all := ({names}).\nPrint Assumptions all.\n"
    (tmp_path / "Tricky.v").write_text(source)
    done = subprocess.run(
        ["coqc", "Tricky.v"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "Closed under the global context" in done.stdout


@pytest.mark.parametrize(
    "tactic,expected",
    [
        ("intros", "intros"),
        ("  auto.  ", "auto"),
        ("rewrite Nat.add_comm", "rewrite Nat.add_comm"),
        ("exact (nat : Set)", "exact (nat : Set)"),
        ('idtac "a. b"', 'idtac "a. b"'),
        ("induction l as [| x l IH]; simpl", "induction l as [| x l IH]; simpl"),
        ("destruct (H 0) as [x [y z]]", "destruct (H 0) as [x [y z]]"),
    ],
)
def test_ordinary_tactics_pass(tactic: str, expected: str) -> None:
    assert check_tactic(tactic) == expected


def test_deny_list_is_configurable() -> None:
    with pytest.raises(TacticRejected):
        check_tactic("lia", extra_denied=["lia"])
    assert check_tactic("native_compute", allowed=["native_compute"]) == "native_compute"

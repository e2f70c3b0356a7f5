"""The tactic guard: one tactic expression, never a command or a cheat."""

from __future__ import annotations

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
    "apply proof_admitted",  # allowed word, but the re-check would reject it: see search test
]


@pytest.mark.parametrize("tactic", CHEATS[:-1])
def test_cheats_are_rejected(tactic: str) -> None:
    with pytest.raises(TacticRejected):
        check_tactic(tactic)


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

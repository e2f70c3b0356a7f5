"""Why a hole stays Admitted, as the user reads it."""

from __future__ import annotations

from pathlib import Path

from proofsearch.project.holes import find_holes
from proofsearch.project.outcome import MUTUAL_NOTE, _why_not, why_left
from proofsearch.trace.sources import Source


def test_tactics_stopped_at_the_per_tactic_limit_are_said() -> None:
    """An audit's `interval with (i_prec 2000)` (3 s) was tried and killed at the 2 s
    limit; the reason said only "no proof within the budget"."""
    record = {
        "status": "open",
        "timeouts": {"interval with (i_prec 2000)": 2, "apply pi_digits_600": 1},
    }
    assert _why_not(record) == (
        "no proof within the budget (2 tactic(s) stopped at the per-tactic limit, such as "
        "`interval with (i_prec 2000)`: a larger --tactic-timeout may prove it)"
    )
    assert _why_not({"status": "failed", "timeouts": {}}) == "no proof: search tree exhausted"
    assert _why_not({"status": "open"}) == "no proof within the budget"


def test_general_automation_at_the_limit_gets_no_advice() -> None:
    """`firstorder` stopped at the limit somewhere in the tree is routine: an audit
    followed the advice (`--tactic-timeout 10`) and nothing changed. A project's own
    slow tactic among them is the one named."""
    record = {"status": "open", "timeouts": {"firstorder using": 3, "eauto": 1}}
    assert _why_not(record) == (  # the kind's lemmas left out, and said so (audit 44)
        "no proof within the budget (2 tactic(s) stopped at the per-tactic limit, such as "
        "`firstorder using …`)"
    )
    record["timeouts"] = {"firstorder using": 3, "my_slow_tac 3": 1}
    assert _why_not(record).endswith("`my_slow_tac 3`: a larger --tactic-timeout may prove it)")


def test_many_different_tactics_at_the_limit_point_to_the_budget() -> None:
    """Five variants of `apply is_derive_scal` ran to the 2 s limit and spent a 10 s
    budget; the advice named --tactic-timeout, and a larger --timeout is what proved it
    (audit 55: `auto_derive` then had its turn)."""
    record = {
        "status": "open",
        "timeouts": {"apply is_derive_scal": 1, "apply @is_derive_scal_l": 1,
                     "apply Coquelicot.Derive.is_derive_scal": 1},
    }  # fmt: skip
    assert _why_not(record).endswith(
        "`apply is_derive_scal`: they spent much of the budget: a larger --timeout may prove it)"
    )


MUTUAL = """\
Inductive ev : nat -> Prop := ev0 : ev 0 | evS n : od n -> ev (S n)
with od : nat -> Prop := odS n : ev n -> od (S n).
Lemma ev_plus_2 : forall n, ev n -> ev (S (S n))
with od_plus_2 : forall n, od n -> od (S (S n)).
Proof. Admitted.
Lemma plain : forall n, n = n.
Proof. Admitted.
"""


def test_a_mutual_lemma_left_open_says_what_its_proof_must_do() -> None:
    """Searched as one hole of two goals: nothing said so (an audit)."""
    mutual, plain = find_holes(Source(Path("M.v"), "M.v", "M"), MUTUAL)[0]
    assert why_left(mutual, {"status": "open"}) == "no proof within the budget" + MUTUAL_NOTE
    assert why_left(plain, {"status": "open"}) == "no proof within the budget"


def test_a_step_that_may_loop_gets_no_advice() -> None:
    """``rewrite ?IHn`` with ``IHn : n = S n`` never ends: "a larger --tactic-timeout may
    prove it" sent a student to raise the limit, and the same line came back."""
    record = {"status": "open", "timeouts": {"intro n; induction n; simpl; rewrite ?IHn": 2}}
    assert _why_not(record) == (
        "no proof within the budget (1 tactic(s) stopped at the per-tactic limit, such as "
        "`intro n; induction n; simpl; rewrite ?IHn`)"
    )
    record["timeouts"] = {"repeat rewrite Nat.add_comm": 2, "my_slow_tac": 1}
    assert _why_not(record).endswith("`my_slow_tac`: a larger --tactic-timeout may prove it)")


def test_a_statement_about_a_value_still_to_write_says_so() -> None:
    """A textbook's ``Example test_nandb1`` before its ``nandb`` is written was searched
    to the end of its budget, and the line said only that."""
    text = (
        "Definition nandb (b1 b2 : bool) : bool.\nAdmitted.\n"
        "Example test_nandb1 : (nandb true false) = true.\nProof. Admitted.\n"
    )
    _, example = find_holes(Source(Path("B.v"), "B.v", "LF.B"), text)[0]
    assert why_left(example, {"status": "open"}, {"nandb", "factorial"}) == (
        "no proof within the budget; it is about nandb, still Admitted: a value to write, "
        "which no proof can see into"
    )
    assert why_left(example, {"status": "open"}, {"factorial"}) == "no proof within the budget"

"""Why a hole stays Admitted, as the user reads it."""

from __future__ import annotations

from proofsearch.project.outcome import _why_not


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
    assert _why_not(record) == (
        "no proof within the budget (2 tactic(s) stopped at the per-tactic limit, such as "
        "`firstorder using`)"
    )
    record["timeouts"] = {"firstorder using": 3, "my_slow_tac 3": 1}
    assert _why_not(record).endswith("`my_slow_tac 3`: a larger --tactic-timeout may prove it)")

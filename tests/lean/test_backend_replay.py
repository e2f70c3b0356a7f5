"""The backend against real REPL transcripts, replayed strictly.

Each test drives :class:`LeanProver` the way the search does (open a theorem, apply
tactics to states) and the replay server checks that every request the backend sends is
the one recorded from Lean, in order: the requests are right, and the outcomes are what
the backend makes of Lean's real replies.
"""

from __future__ import annotations

import pytest

from proofsearch.env.base import EnvError, ProofState, Proved, TacticError
from proofsearch.env.lean import state_key
from proofsearch.theorem import Theorem

BRANCHING = "theorem complex_and (p q r : Prop) (h1 : p ∧ q) (h2 : q → r) : p ∧ r := by"
ALLOW_SORRY = {"allowed_words": ("sorry",)}


def opened(lean, fixture, statement, header="", skip=(), **options):
    prover = lean.replay(fixture, skip, **options)
    return prover, prover.open(Theorem("t", statement, header))


def state(outcome) -> ProofState:
    assert isinstance(outcome, ProofState), outcome
    return outcome


def error(outcome) -> str:
    assert isinstance(outcome, TacticError), outcome
    return outcome.message


def test_proof_branching_steps_to_a_proof(lean):
    prover, session = opened(lean, "core/proof_branching", BRANCHING)
    root = session.root
    assert root.goals == ("p q r : Prop\nh1 : p ∧ q\nh2 : q → r\n⊢ p ∧ r",)
    assert root.path == () and root.key == state_key(root.goals)
    split = state(session.apply(root, "apply And.intro"))
    assert [g.splitlines()[0] for g in split.goals] == ["case left", "case right"]
    assert split.path == ("apply And.intro",)
    assert split.goal_count == 2  # the search's goal penalty reads it
    left_done = state(session.apply(split, "exact h1.left"))
    assert left_done.goal_count == 1
    assert left_done.goals == ("case right\np q r : Prop\nh1 : p ∧ q\nh2 : q → r\n⊢ r",)
    applied = state(session.apply(left_done, "  apply h2  "))  # normalized before sending
    assert applied.goals[0].endswith("⊢ q")
    assert applied.path == ("apply And.intro", "exact h1.left", "apply h2")
    done = session.apply(applied, "exact h1.right")
    assert done == Proved(("apply And.intro", "exact h1.left", "apply h2", "exact h1.right"))
    assert prover.stats.applications == 4 and prover.stats.restarts == 0


def test_proof_branching2_and_readme_prove(lean):
    _, session = opened(lean, "core/proof_branching2", "example (p q : Prop) : p ∧ q → q ∧ p := by")
    current = session.root
    for tactic in ("intro h", "have hp : p := h.left", "have hq : q := h.right", "apply And.intro"):
        current = state(session.apply(current, tactic))
    current = state(session.apply(current, "exact hq"))
    assert isinstance(session.apply(current, "exact hp"), Proved)

    _, session = opened(lean, "core/readme", "def f (x : Unit) : Nat := by")
    as_int = state(session.apply(session.root, "apply Int.natAbs"))
    assert as_int.goals == ("x : Unit\n⊢ Int",)
    assert session.apply(as_int, "exact -37") == Proved(("apply Int.natAbs", "exact -37"))


def test_branching_from_the_root_reuses_its_state(lean):
    # proof_step runs two tactics on proof state 0: branching costs no replay.
    prover, session = opened(lean, "core/proof_step", "def f : Nat := by")
    assert state(session.apply(session.root, "apply Int.natAbs")).goals == ("⊢ Int",)
    have = state(session.apply(session.root, "have t : Nat := 42"))
    assert have.goals == ("t : Nat\n⊢ Nat",)
    assert session.apply(have, "exact t") == Proved(("have t : Nat := 42", "exact t"))
    assert prover.requests == 4


def test_two_theorems_one_process(lean):
    # Two statements without header: each is a fresh `cmd` in the same process.
    prover = lean.replay("core/proof_transitivity")
    first = prover.open(
        Theorem("a", "example (x y z : Nat) (h1 : x = y) (h2 : y = z) : x = z := by")
    )
    assert isinstance(first.apply(first.root, "exact Eq.trans h1 h2"), Proved)
    second = prover.open(
        Theorem("b", "example (f : Nat → Nat) (n : Nat) (h : n = 3) : f n = f 3 := by")
    )
    assert second.root.goals == ("f : Nat → Nat\nn : Nat\nh : n = 3\n⊢ f n = f 3",)
    assert isinstance(second.apply(second.root, "exact congrArg f h"), Proved)


def test_assumption_proves(lean):
    _, session = opened(
        lean, "core/assumption_proof", "theorem aa (x : Nat) (h1 : x  = 2) : x = 2 := by"
    )
    assert session.apply(session.root, "assumption") == Proved(("assumption",))


def test_unknown_tactic_is_an_error(lean):
    _, session = opened(lean, "core/unknown_tactic", "def f : Nat := by")
    assert "unknown tactic" in error(session.apply(session.root, "exat 42"))


def test_elaboration_error_is_an_error_not_a_proof(lean):
    # The REPL answers with a new state, no goals, "Incomplete: contains sorry", and an
    # error message: not a proof.
    _, session = opened(lean, "core/invalid_tactic", "theorem my_theorem (x : Nat) : x = x := by")
    message = error(session.apply(session.root, "exact my_fake_premise"))
    assert "Unknown identifier `my_fake_premise`" in message


def test_unknown_proof_state_is_an_error(lean):
    prover, session = opened(lean, "core/unknown_proof_state", "def f : Nat := by")
    # A state whose handle names proof state 1, which this process never made.
    bogus = ProofState(("⊢ Nat",), "k", ("exact 1",), (prover.generation, 1))
    assert error(session.apply(bogus, "exact 42")) == "Unknown proof state."


@pytest.mark.parametrize(
    ("fixture", "statement", "tactic", "expected"),
    [
        (
            "core/self_proof_apply_check",
            "theorem ex : False :=",
            "apply ex",
            "Error: kernel type check failed",
        ),
        ("core/self_proof_exact_check", "theorem ex : False :=", "exact ex", "free variables"),
        (
            "core/self_proof_rw",
            "set_option pp.fvars.anonymous false in theorem self_application : 1 = 0 := by",
            "rw [self_application]",
            "kernel type check failed",
        ),
        ("core/self_proof_check", "theorem ex : False :=", "exact?", "could not close the goal"),
    ],
)
def test_self_reference_and_kernel_failures_are_errors(lean, fixture, statement, tactic, expected):
    # The transcripts start with the whole-proof check; --skip 1 serves the tactic part.
    unused = "the transcript goes on with other statements" if fixture.endswith("check") else None
    _, session = opened(lean, fixture, statement, skip=(1,), unused=unused)
    assert expected in error(session.apply(session.root, tactic))


def test_self_proof_check_second_theorem(lean):
    prover = lean.replay(
        "core/self_proof_check", skip=(1,), unused="the last four are the term-mode variants"
    )
    term = prover.open(Theorem("ex", "theorem ex : False :="))
    assert "could not close" in error(term.apply(term.root, "exact?"))
    tactic = prover.open(Theorem("ex", "theorem ex : False := by"))
    assert tactic.root.goals == ("⊢ False",)
    assert "could not close" in error(tactic.apply(tactic.root, "exact?"))


def test_metavariables_are_not_a_proof(lean):
    _, session = opened(lean, "core/app_type_mismatch", "example : 1 = 0 :=", skip=(1,))
    cases = state(session.apply(session.root, "cases 1"))
    assert [g.splitlines()[0] for g in cases.goals] == ["case zero", "case succ"]
    succ = state(session.apply(cases, "rfl"))
    assert "contains metavariable(s)" in error(session.apply(succ, "apply ?succ"))


def test_kernel_failure_of_a_multiline_tactic_is_an_error(lean):
    _, session = opened(
        lean, "core/app_type_mismatch2", "example : 1 = 0 :=", skip=(1,),
        unused="the transcript ends with a variant of the tactic",
    )  # fmt: skip
    succ = state(session.apply(state(session.apply(session.root, "cases 1")), "rfl"))
    tactic = "have: true := by\n    apply ?succ\n    trivial"
    assert "Error: kernel type check failed" in error(session.apply(succ, tactic))


def test_sorry_is_refused_before_reaching_lean(lean):
    prover, session = opened(
        lean, "core/tactic_mode_sorry", "def f : Nat := by",
        unused="the recorded `sorry` is refused before it is sent: that is the test",
    )  # fmt: skip
    sent = prover.requests
    assert "'sorry' is not allowed" in error(session.apply(session.root, "sorry"))
    assert prover.requests == sent


@pytest.mark.parametrize(
    ("fixture", "statement", "header", "skip", "path", "tactic"),
    [
        ("core/tactic_mode_sorry", "def f : Nat := by", "", (), (), "sorry"),
        (
            "core/sorry_hypotheses",
            "theorem foo (x : Int) : x = x := by",
            "",
            (),
            (),
            "have h : x = 1 := sorry",
        ),
        (
            "core/by_cases",
            "theorem foo (x : Int) : x = x := by",
            "",
            (3,),  # `case pos => rfl`, which this test does not send
            ("by_cases h : x < 0",),
            "all_goals sorry",
        ),
        (
            "mathlib/on_goal",
            "example {x : ℝ} (h0: |x| > 1) : (x < 0) ∨ (2 * x > 2) := by",
            "import Mathlib\nopen Real",
            (),
            (),
            "on_goal 1 =>\n  have h1 : x = x := by sorry\n  have h2 : x = x := by sorry\n"
            "  by_cases h3 : x < 0",
        ),
    ],
)
def test_sorry_in_a_reply_is_an_error_even_when_the_guard_lets_it_through(
    lean, fixture, statement, header, skip, path, tactic
):
    # Second line of defence: with `sorry` taken off the deny-list, Lean's replies (a new
    # state with a `sorries` entry, or "Incomplete: contains sorry") are not progress.
    prover, session = opened(lean, fixture, statement, header, skip, **ALLOW_SORRY)
    current = session.root
    for step in path:
        current = state(session.apply(current, step))
    sent = prover.requests
    message = error(session.apply(current, tactic))
    # The tactic reached Lean as one request, and the answer is Lean's own, from the same
    # process: a wrong request would have ended the replay and restarted the REPL.
    assert prover.requests == sent + 1 and prover.stats.restarts == 0
    assert "sorry" in message and "differs from the transcript" not in message


def test_mathlib_induction_branches_and_sorry(lean):
    prover, session = opened(
        lean, "mathlib/induction", "theorem foo (x : Nat) : x = x := by", "import Mathlib",
        **ALLOW_SORRY,
    )  # fmt: skip
    inducted = state(session.apply(session.root, "induction x"))
    assert [g.splitlines()[0] for g in inducted.goals] == ["case zero", "case succ"]
    assert state(session.apply(inducted, "next => rfl")).goals == (inducted.goals[1],)
    tactic = "induction x with\n| zero => sorry\n| succ x => sorry"
    sent = prover.requests
    message = error(session.apply(session.root, tactic))
    assert prover.requests == sent + 1 and prover.stats.restarts == 0
    assert "sorry" in message and "differs from the transcript" not in message


def test_by_cases_then_case(lean):
    _, session = opened(
        lean, "core/by_cases", "theorem foo (x : Int) : x = x := by",
        unused="the last exchange (`all_goals sorry`) is the sorry test's",
    )  # fmt: skip
    split = state(session.apply(session.root, "by_cases h : x < 0"))
    assert [g.splitlines()[0] for g in split.goals] == ["case pos", "case neg"]
    assert state(session.apply(split, "case pos => rfl")).goals == (
        "case neg\nx : Int\nh : ¬x < 0\n⊢ x = x",
    )


def test_mathlib_header_is_run_once_and_shared(lean):
    # mathlib/exact: `import Mathlib` once, two theorems in env 0. A second header
    # request would differ from the transcript and fail the replay.
    prover = lean.replay("mathlib/exact")
    first = prover.open(Theorem("test", "theorem test : 0 < 1 := by", "import Mathlib"))
    assert first.apply(first.root, "exact?") == Proved(("exact?",))
    second = prover.open(Theorem("test", "theorem test : 3 = 7 := by", "import Mathlib"))
    assert second.root.goals == ("⊢ 3 = 7",)
    assert "could not close" in error(second.apply(second.root, "exact?"))
    assert prover.requests == 5


def test_mathlib_induction_prime_splits(lean):
    _, session = opened(
        lean,
        "mathlib/H20231115",
        "example {x : Nat} : x + 1 > x := by",
        "import Mathlib.Tactic.Cases",
    )
    split = state(session.apply(session.root, "induction' x with x hx"))
    assert split.goals == (
        "case zero\n⊢ 0 + 1 > 0",
        "case succ\nx : Nat\nhx : x + 1 > x\n⊢ x + 1 + 1 > x + 1",
    )


def test_unsolved_goals_error_is_an_error(lean):
    _, session = opened(lean, "mathlib/20240209", "example : False := by")
    assert "unsolved goals" in error(session.apply(session.root, "simpa using show False by done"))


def test_placeholder_metavariables(lean):
    _, session = opened(
        lean, "mathlib/placeholder_synthesis", "example : 1 = 0 :=", "import Mathlib", skip=(2,)
    )
    cases = state(session.apply(session.root, "cases' exists_ne 2 with n h"))
    assert cases.goals == ("case intro\nn : ℕ\nh : n ≠ 2\n⊢ 1 = 0",)
    assert "metavariable" in error(session.apply(cases, "simpa [] using h _"))


def test_rejected_statement_is_an_env_error(lean):
    # have_by_sorry's first command is `statement + " sorry"` for this statement, and
    # Lean answered with an error ("unsolved goals"): the theorem cannot be opened.
    prover = lean.replay("core/have_by_sorry", unused="the statement cannot be opened")
    statement = "theorem foo (x : Int) : x = x := by\n  have h : x = 1 := by"
    with pytest.raises(EnvError, match="statement was rejected: unsolved goals"):
        prover.open(Theorem("foo", statement))

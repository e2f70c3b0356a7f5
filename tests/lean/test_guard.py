"""The tactic guard, and the Lean text built around statements."""

from __future__ import annotations

import pytest

from proofsearch.env.lean.guard import GuardPolicy, TacticRejected, check_tactic
from proofsearch.env.lean.statements import (
    EXAMPLE_NAME,
    find_declaration,
    mask_comments_and_strings,
    named_for_check,
    proof_text,
    sorry_command,
)

ACCEPTED = [
    "simp",
    "nlinarith [sq_nonneg (a - b), sq_nonneg (b - c)]",
    "exact?",
    "rw [Polynomial.eval_add, h₀] at h₁ ⊢",
    "induction x with\n| zero => simp\n| succ n ih => simp [ih]",
    "have h : x = 1 := by\n    omega",
    "open Real in simp [sqrt_eq_iff]",
    "set_option maxRecDepth 10000 in norm_num",
    "exact ⟨'a', by decide⟩",
    "simp [h'] -- closes the goal",
    "cases' h with x hx",
    "calc a = b := h\n  _ = c := h'",
    "decide",
    "exact #[1, 2].size_pos",  # array literals are fine
    "exact (by omega : (3 : ℕ) < 5)",
    "set_option maxHeartbeats 400000 in simp",  # raising a limit is fine
]

REJECTED = {
    "sorry": "'sorry'",
    "admit": "'admit'",
    "exact sorryAx _ false": "'sorryAx'",
    "all_goals sorry": "'sorry'",
    "have h : False := by sorry\n  exact h.elim": "'sorry'",
    "stop": "'stop'",
    "native_decide": "'native_decide'",
    "decide +native": "'native'",
    "exact Lean.ofReduceBool _ _ rfl": "'Lean.ofReduceBool'",
    "run_tac Lean.Elab.Tactic.closeMainGoal": "'run_tac'",
    "#eval IO.println 1": "'#e…' commands",
    "set_option debug.skipKernelTC true in exact h": "debug.skipKernelTC",
    "set_option trace.Meta.synthInstance true in simp": "set_option trace",
    "exact (unsafeCast () : False)": "'unsafeCast'",
    "simp\ntheorem foo : False := by trivial": "'theorem'",
    "simp\nend": "'end'",
    "simp\naxiom bad : False": "'axiom'",
    "exact (eval% 2 + 2)": "runs code",
    'elab "x" : tactic => pure ()': "'elab'",
    "simp /- unterminated": "unterminated block comment",
    'exact "abc': "unterminated string",
    "exact (h": "unclosed bracket",
    "exact h)": "unbalanced ')'",
    'exact s!"{(sorry : Nat)}"': "'sorry'",  # code inside an interpolated string
    "simp -- sorry": "'sorry'",  # comments are searched too: refusing costs nothing
    'exact r"raw"': "raw string",
    "": "empty",
    "   \n  ": "empty",
    "simp\x00": "control character",
    "simp\r\nring": "control character '\\r'",
    "exact «sorry»": "'sorry'",
    "attribute [local simp] foo in simp": "'attribute'",
    "exact (by exact?\n  ) \ud800": "not valid Unicode",
    # What a proof could hide behind: attributes, unsafe code, syntax, local instances,
    # unproved termination, compiler trust, and limits switched off.
    "exact (@[implemented_by f] def g := 1)": "'implemented_by'",
    "attribute [implemented_by f] g": "'attribute'",
    "exact unsafe (unsafeCast 0)": "'unsafe'",
    'macro "cheat" : tactic => `(tactic| sorry)': "'macro'",
    "local instance : Inhabited False := ⟨h⟩": "'instance'",
    "exact (f 0)\ndecreasing_by sorry": "'sorry'",
    "exact (partial_fix 0)\npartial def x : Nat := x": "'partial'",
    "exact h\nopaque cheat : False": "'opaque'",
    "exact Lean.trustCompiler": "'Lean.trustCompiler'",
    "exact Lean.ofReduceNat _ _ rfl": "'Lean.ofReduceNat'",
    "set_option maxHeartbeats 0 in simp": "maxHeartbeats 0 removes the limit",
    "set_option synthInstance.maxHeartbeats 0 in simp": "removes the limit",
}


@pytest.mark.parametrize("tactic", ACCEPTED)
def test_accepted(tactic):
    assert check_tactic(tactic) == tactic.strip()


@pytest.mark.parametrize(("tactic", "why"), REJECTED.items())
def test_rejected(tactic, why):
    with pytest.raises(TacticRejected) as raised:
        check_tactic(tactic)
    assert why in str(raised.value)


def test_normalizes_surrounding_space():
    assert check_tactic("  intro x\n") == "intro x"


def test_policy_is_configurable():
    allow_sorry = GuardPolicy.build(allowed=["sorry"])
    assert check_tactic("sorry", allow_sorry) == "sorry"
    deny_simp = GuardPolicy.build(denied=["simp_all"])
    with pytest.raises(TacticRejected, match="simp_all"):
        check_tactic("simp_all", deny_simp)
    native = GuardPolicy.build(allow_native_decide=True)
    assert check_tactic("native_decide", native) == "native_decide"
    assert check_tactic("decide +native", native) == "decide +native"
    with pytest.raises(TacticRejected, match="sorry"):
        check_tactic("sorry", native)
    options = GuardPolicy.build(allowed_options=["trace.Meta.synthInstance"])
    assert check_tactic("set_option trace.Meta.synthInstance true in simp", options)
    debug = GuardPolicy.build(allowed_options=["debug.skipKernelTC"])
    with pytest.raises(TacticRejected, match="debug"):
        check_tactic("set_option debug.skipKernelTC true in simp", debug)
    with pytest.raises(TacticRejected, match="longer than 10"):
        check_tactic("simp [foo, bar, baz]", GuardPolicy.build(max_chars=10))


# -- statements ------------------------------------------------------------------------


def test_sorry_command_for_each_statement_form():
    assert sorry_command("theorem t : 1 = 1 := by") == "theorem t : 1 = 1 := by sorry"
    assert sorry_command("theorem t : 1 = 1 :=") == "theorem t : 1 = 1 := sorry"
    assert sorry_command("theorem t : 1 = 1 := by\n") == "theorem t : 1 = 1 := by sorry"
    assert sorry_command("theorem t : 1 = 1") == "theorem t : 1 = 1 := by sorry"
    with pytest.raises(ValueError):
        sorry_command("  ")


def test_proof_text_layout_matches_the_recorded_checks():
    # Recorded commands: core/self_proof_check and core/app_type_mismatch(2).
    assert proof_text("theorem ex : False := by", ["exact?"]) == "theorem ex : False := by exact?"
    assert (
        proof_text("example : 1 = 0 := by", ["cases 1", "rfl", "apply ?succ"])
        == "example : 1 = 0 := by\n  cases 1\n  rfl\n  apply ?succ"
    )
    multi = ["cases 1", "rfl", "have: true := by\n  apply ?succ\n  trivial"]
    assert proof_text("example : 1 = 0 :=", multi) == (
        "example : 1 = 0 := by\n  cases 1\n  rfl\n  have: true := by\n    apply ?succ\n    trivial"
    )
    # A single multi-line tactic goes on its own lines too.
    assert proof_text("theorem t : P := by", ["induction x with\n| zero => rfl"]) == (
        "theorem t : P := by\n  induction x with\n  | zero => rfl"
    )


def test_declaration_names():
    found = find_declaration("/-- doc with theorem fake -/\n@[simp] private theorem Foo.bar : T")
    assert found is not None and (found.keyword, found.name) == ("theorem", "Foo.bar")
    found = find_declaration("-- lemma no\nlemma h₀_pos (x : ℝ) : 0 < x")
    assert found is not None and found.name == "h₀_pos"
    found = find_declaration("theorem «weird name» : True")
    assert found is not None and found.name == "«weird name»"
    assert find_declaration('def s := "theorem in a string"') is not None
    assert find_declaration("no declaration here") is None
    masked = mask_comments_and_strings('a "b" -- c\nd /- e -/ f')
    assert masked == "a" + " " * 9 + "\nd" + " " * 9 + "f"


def test_examples_are_named_for_the_check():
    statement, name = named_for_check("example (p : Prop) (h : p) : p := by")
    assert statement == f"theorem {EXAMPLE_NAME} (p : Prop) (h : p) : p := by"
    assert name == EXAMPLE_NAME
    statement, name = named_for_check(
        "set_option pp.fvars.anonymous false in theorem self_application : 1 = 0 := by"
    )
    assert name == "self_application" and statement.startswith("set_option")
    with pytest.raises(ValueError, match="cannot find the declaration"):
        named_for_check("1 = 1")

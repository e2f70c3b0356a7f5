"""Written proofs without what they do not need (``project/trim.py``): the trimming
rules on a stand-in check, then one real Coq check through ``prove``'s presentation."""

from __future__ import annotations

from proofsearch.project.trim import MOST_CHECKS, trimmed


def test_a_using_clause_nothing_needs_is_left_out() -> None:
    proof = ["intros n", "eauto using Nat.le_add_r, Nat.le_trans with arith"]
    asked: list[list[str]] = []

    def holds(candidate: list[str]) -> bool:
        asked.append(candidate)
        return candidate[0] == "intros n" and candidate[-1] in (
            "eauto with arith",
            "eauto using Nat.le_add_r with arith",
        )

    assert trimmed(proof, holds) == ["intros n", "eauto with arith"]
    assert asked[0] == ["intros n", "eauto with arith"]


def test_only_the_premises_needed_are_kept() -> None:
    proof = ["eauto using a, b, c"]
    assert trimmed(proof, lambda c: c == ["eauto using b"] or c == ["eauto using b, c"]) == [
        "eauto using b"
    ]


def test_a_step_a_later_one_does_the_work_of_is_dropped() -> None:
    """``rewrite map_id`` before ``induction l; …``, which proves the goal alone; the last
    step is never dropped, and a proof that checks only whole stays whole."""
    proof = ["rewrite map_id", "induction l; simpl; f_equal; auto"]
    assert trimmed(proof, lambda c: c == proof[1:]) == proof[1:]
    assert trimmed(proof, lambda c: False) == proof


def test_checks_are_bounded() -> None:
    asked: list[list[str]] = []
    names = "x, y, z, w, v, u, t, s, r, q, p"
    trimmed([f"a using {names}", "b", "c", "d"], lambda c: bool(asked.append(c)))
    assert len(asked) == MOST_CHECKS


def test_a_dead_tail_of_the_last_step_is_cut() -> None:
    """`by case: b => //; case: b` (a neighbour's sentence) proves what `by case: b =>
    //` proves; the closing word stays, and a step that needs its parts keeps them."""
    proof = ["move=> b", "by case: b => //; case: b"]
    assert trimmed(proof, lambda c: c[-1] == "by case: b => //") == [
        "move=> b",
        "by case: b => //",
    ]
    whole = ["induction n; simpl; auto"]
    asked: list[list[str]] = []
    assert trimmed(whole, lambda c: bool(asked.append(c))) == whole
    assert asked == [["induction n"], ["simpl; auto"], ["induction n; simpl"]]
    asked.clear()  # a first part that introduces names is kept (`intros n; lia`)
    assert trimmed(["intros n; lia"], lambda c: bool(asked.append(c))) == ["intros n; lia"]
    assert asked == [["intros n"]]
    # Brackets are not cut inside.
    assert trimmed(["split; [auto; auto | tauto]"], lambda c: c != ["reflexivity"]) == ["split"]


def test_a_dead_head_of_the_last_step_is_cut() -> None:
    """`replace (a - a) with (a + (-1) * a); auto with zarith` on a goal with no `a - a`:
    the `replace` does nothing, and `auto with zarith` proves it alone (audit 45)."""
    proof = ["intros a", "unfold d", "replace (a - a) with (a + (-1) * a); auto with zarith"]
    kept = trimmed(proof, lambda c: c[-1] == "auto with zarith" and len(c) == 3)
    assert kept == ["intros a", "unfold d", "auto with zarith"]


def test_a_dead_intro_pattern_of_the_last_step_is_cut() -> None:
    """`by case: a; case: b => // ->` where `by case: a; case: b` proves the goal (audit 45
    #9, seen again by its verification); a pattern the proof needs is kept, and `move=>`
    (which only introduces) is never cut."""
    proof = ["by case: a; case: b => // ->"]
    assert trimmed(proof, lambda c: c == ["by case: a; case: b"]) == ["by case: a; case: b"]
    asked: list[list[str]] = []
    needed = ["elim: n => [|n IH] //=."]
    assert trimmed(needed, lambda c: bool(asked.append(c))) == needed
    assert asked == [["elim: n."]]
    asked.clear()
    assert trimmed(["by move=> x; case: x"], lambda c: bool(asked.append(c)))
    assert ["by move"] not in asked and all("=>" in c[0] for c in asked)
    assert trimmed(["move/eqP => -> //"], lambda c: c == ["move/eqP"]) == ["move/eqP"]


def test_an_equation_proved_by_its_constructor_reads_reflexivity() -> None:
    """`split` proves `plus O n = n` (eq has one constructor); a person writes
    `reflexivity` (audit 54). Kept only where it holds: `split` of a conjunction stays."""
    holds = {("simpl", "split"), ("simpl", "reflexivity")}
    assert trimmed(["simpl", "split"], lambda c: tuple(c) in holds) == ["simpl", "reflexivity"]
    assert trimmed(["split"], lambda c: c == ["split"]) == ["split"]


def test_the_statement_names_its_variables() -> None:
    """`intros n m` for `forall b c : bool` becomes `intros b c`, everywhere in the proof
    (audit 54); kept only where it holds, and never where a new name is taken."""
    statement = "Theorem andb_commutative : forall b c : bool, andb b c = andb c b."
    proof = ["intros n m", "destruct n, m; reflexivity"]
    renamed = ["intros b c", "destruct b, c; reflexivity"]
    assert trimmed(proof, lambda c: c in (proof, renamed), statement) == renamed
    assert trimmed(proof, lambda c: c == proof, statement) == proof
    taken = ["intros n m", "destruct n, m; apply (f b)"]
    asked: list[list[str]] = []
    assert trimmed(taken, lambda c: bool(asked.append(c)) or c == taken, statement) == taken
    assert all(c[0] != "intros b c" for c in asked)


def test_a_naming_pattern_the_proof_does_not_need_is_left_out() -> None:
    """`induction b as [|b IHn]` on a type with no recursive case: Coq warned of the
    unused `IHn` in the written file (verification 56); kept where the names are used."""
    proof = ["intros b c", "revert c; induction b as [|b IHn]; intro c; destruct c; trivial"]
    bare = ["intros b c", "revert c; induction b; intro c; destruct c; trivial"]
    assert trimmed(proof, lambda c: c in (proof, bare)) == bare
    used = ["induction n as [|n IHn]", "reflexivity", "simpl; rewrite IHn; reflexivity"]
    assert trimmed(used, lambda c: c == used) == used

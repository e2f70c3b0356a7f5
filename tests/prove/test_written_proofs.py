"""The proofs prove writes: bullets from replayed goal counts, short names, each checked."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from proofsearch.data.theorems import parse_theorem_lines
from proofsearch.env.coq.version import binary_version
from proofsearch.project.bullets import bullet, bulleted
from proofsearch.project.written_proofs import Presentation, present_found
from proofsearch.theorem import Theorem

INIT = "Corelib" if binary_version("coqc").rocq else "Coq"


@pytest.mark.parametrize(
    ("tactics", "goals_after", "expected"),
    [
        pytest.param(
            ["induction l", "assumption", "induction l", "auto", "auto"],
            [2, 1, 2, 1, 0],
            ["induction l", "- assumption", "- induction l", "  + auto", "  + auto"],
            id="nested",
        ),
        pytest.param(
            ["intros", "split", "split", "a", "b", "c"],
            [1, 2, 3, 2, 1, 0],
            ["intros", "split", "- split", "  + a", "  + b", "- c"],
            id="first-goal-splits-again",
        ),
        pytest.param(
            ["destruct x", "a", "simpl", "b", "c"],
            [3, 2, 2, 1, 0],
            ["destruct x", "- a", "- simpl", "  b", "- c"],
            id="three-goals-one-continued",
        ),
        pytest.param(["intros", "auto"], [1, 0], None, id="nothing-to-bullet"),
        pytest.param(["split", "a", "b"], [2, 0, 0], None, id="a-step-closed-two-goals"),
        pytest.param(["split", "a"], [2, 1], None, id="ends-with-a-goal-left"),
        pytest.param(["split", "a", "b"], [2, 1], None, id="counts-missing"),
    ],
)
def test_bullets_from_goal_counts(
    tactics: list[str], goals_after: list[int], expected: list[str] | None
) -> None:
    assert bulleted(tactics, goals_after) == expected


def test_bullets_by_depth() -> None:
    assert [bullet(d) for d in range(1, 8)] == ["-", "+", "*", "--", "++", "**", "---"]


def record(name: str, statement: str, header: str = "") -> dict[str, object]:
    return {"name": name, "statement": statement, "header": header, "qualid": name}


def test_found_proofs_presented_and_checked(tmp_path: Path) -> None:
    """Real Coq: split proofs get bullets (an existential's too), a full path its short
    name; without bullets only the names change."""
    records = [
        record("conj3", "Lemma conj3 : True /\\ (True /\\ True)."),
        record("sym", "Lemma sym (n : nat) : n = 2 -> 2 = n."),
        record("ex0", "Lemma ex0 : exists n : nat, n = n /\\ n = 0."),
        # stdpp's and Iris's default: the flat proof fails in the file, bullets do not.
        record("bang", "Lemma bang : True /\\ True.", 'Global Set Default Goal Selector "!".'),
    ]
    found = {
        "conj3": ["split", "exact I", "split", "exact I", "exact I"],
        "sym": ["intros H", f"apply {INIT}.Init.Logic.eq_sym", "exact H"],
        "ex0": ["eexists", "split", "reflexivity", "reflexivity"],
        "bang": ["split", "exact I", "exact I"],
    }
    results = proved(found)
    cache = tmp_path / "written.json"
    out = present_found(records, theorems(records), results, cache, HOW, jobs=2)
    assert out["conj3"]["proof"] == [
        "split", "- exact I", "- split", "  + exact I", "  + exact I",
    ]  # fmt: skip
    assert out["conj3"]["proof_found"] == found["conj3"]
    assert out["sym"]["proof"] == ["intros H", "apply eq_sym", "exact H"]
    assert out["ex0"]["proof"] == ["eexists", "split", "- reflexivity", "- reflexivity"]
    assert out["bang"]["proof"] == ["split", "- exact I", "- exact I"]
    assert len(json.loads(cache.read_text())) == 4  # the answers are kept for --write

    flat = replace(HOW, bullets=False)
    out = present_found(records, theorems(records), results, tmp_path / "flat.json", flat, 1)
    assert out["conj3"] is results["conj3"]
    assert out["sym"]["proof"] == ["intros H", "apply eq_sym", "exact H"]


def test_bullets_that_do_not_compile_are_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bulleted text is compiled at the hole before it replaces the flat proof."""
    import proofsearch.project.written_proofs as written

    monkeypatch.setattr(written, "bulleted", lambda tactics, counts: ["split", "- exact I"])
    records = [record("conj2", "Lemma conj2 : True /\\ True.")]
    results = proved({"conj2": ["split", "exact I", "exact I"]})
    out = present_found(records, theorems(records), results, tmp_path / "w.json", HOW, 1)
    assert out["conj2"] is results["conj2"]


HOW = Presentation(coqc="coqc", args=(), timeout=60.0, prover_options={})


def proved(found: dict[str, list[str]]) -> dict[str, dict[str, object]]:
    return {
        n: {"name": n, "status": "proved", "checked": True, "proof": p} for n, p in found.items()
    }


def theorems(records: list[dict[str, object]]) -> dict[str, Theorem]:
    lines = [json.dumps(r) for r in records]
    return {t.name: t for t in parse_theorem_lines(lines, "t").theorems}


AXIOM_HINT = """\
Definition P (n : nat) := n = n.
Axiom ax : forall n, P n.
Lemma p0 : P 0. Proof. reflexivity. Qed.
Lemma q0 : 0 = 0 -> True. Proof. auto. Qed.
Global Hint Resolve ax : core.
"""


def test_versions_run_in_one_session_and_only_the_one_kept_is_compiled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Trimming tries versions in a session at the hole: of ``eauto using q0, p0``,
    where ``p0`` is needed, the versions without ``p0`` fail there, and only the one
    kept is compiled from scratch (before the session, each version was: four here).
    A version the session accepts but that rests on an axiom the proof found did not
    (``eauto`` alone reaches the ``ax`` hint) is refused by that compile, and the
    proof keeps what it needs."""
    import proofsearch.project.written_proofs as written

    compiled: list[list[str]] = []
    check = written.check_proof

    def counted(header: str, statement: str, proof: list[str], **options: object):  # type: ignore[no-untyped-def]
        compiled.append(list(proof))
        return check(header, statement, proof, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(written, "check_proof", counted)
    header = "Definition P (n : nat) := n = n.\nLemma p0 : P 0. Proof. reflexivity. Qed.\n"
    records = [
        record("keep", "Lemma keep : P 0.", header + "Lemma q0 : True. Proof. exact I. Qed.\n")
    ]
    results = proved({"keep": ["eauto using q0, p0"]})
    out = present_found(records, theorems(records), results, tmp_path / "w.json", HOW, 1)
    assert out["keep"]["proof"] == ["eauto using p0"]
    assert compiled == [["eauto using p0"]]

    compiled.clear()
    records = [record("hinted", "Lemma hinted : P 0.", AXIOM_HINT)]
    results = proved({"hinted": ["eauto using p0"]})
    out = present_found(records, theorems(records), results, tmp_path / "h.json", HOW, 1)
    assert out["hinted"] is results["hinted"]  # "eauto" alone rests on ax: not kept
    assert compiled[0] == ["eauto"]


def test_proofs_in_the_statements_words(tmp_path: Path) -> None:
    """Real Coq (audit 54, a course's exercises): the variables a proof introduces get
    the statement's names (`intros n m` for `forall b c`), and an equation proved by
    `split` reads `reflexivity` (here alone: it introduces `n` itself); each kept only
    as it compiles."""
    records = [
        record("andb_comm", "Lemma andb_comm : forall b c : bool, andb b c = andb c b."),
        record("plus_O", "Lemma plus_O : forall n : nat, 0 + n = n."),
    ]
    found = {
        "andb_comm": ["intros n m", "destruct n, m; reflexivity"],
        "plus_O": ["intro m", "split"],
    }
    out = present_found(records, theorems(records), proved(found), tmp_path / "w.json", HOW, jobs=1)
    assert out["andb_comm"]["proof"] == ["intros b c", "destruct b, c; reflexivity"]
    assert out["plus_O"]["proof"] == ["reflexivity"]  # which introduces n itself

"""A small traced project written as trace records, faithful to what Coq prints.

``Lib.A`` (no dependencies), ``Lib.B`` (requires ``Lib.A``) and ``Lib.Other`` (requires
nothing, and nothing requires it). Lines order the declarations within a file.
"""

from __future__ import annotations

from pathlib import Path

from proofsearch.trace.schema import FileRecord, Goal, Hypothesis, Premise, ProofStep


def goal(conclusion: str, *hypotheses: tuple[str, str]) -> Goal:
    return Goal(
        hypotheses=[Hypothesis(names=names.split(", "), type=t) for names, t in hypotheses],
        conclusion=conclusion,
    )


def step(module: str, lemma: str, lemma_line: int, index: int, g: Goal, tactic: str) -> ProofStep:
    line = lemma_line + 1 + index
    return ProofStep(
        file=f"/src/{module.split('.')[-1]}.v",
        module=module,
        lemma=f"{module}.{lemma}",
        lemma_offset=lemma_line * 40,
        index=index,
        line=line,
        offset=line * 40,
        goals=[g],
        background=0,
        shelved=0,
        tactic=tactic,
        closed_goal=True,
    )


def premise(module: str, name: str, statement: str, line: int, kind: str = "Lemma") -> Premise:
    return Premise(
        name=f"{module}.{name}",
        kind=kind,
        statement=statement,
        file=f"/src/{module.split('.')[-1]}.v",
        module=module,
        line=line,
        offset=line * 40,
    )


#: An equation hypothesis flipped: the recorded state every test starts from.
FLIP = goal("m = n", ("n, m", "nat"), ("Hnm", "n = m"))

STEPS = {
    "Lib.A": [
        step("Lib.A", "flip", 10, 0, FLIP, "symmetry; exact Hnm."),
        step("Lib.A", "zero_r", 20, 0, goal("forall n : nat, n + 0 = n"), "intros n."),
        step("Lib.A", "zero_r", 20, 1, goal("n + 0 = n", ("n", "nat")), "induction n."),
    ],
    "Lib.B": [
        step("Lib.B", "double", 10, 0, goal("double n = n + n", ("n", "nat")), "unfold double."),
        # B.secret's own proof: a lemma searched at B line 30 must never see it.
        step("Lib.B", "secret", 30, 0, goal("secret_pred k", ("k", "nat")), "apply secret_tactic."),
        step(
            "Lib.B", "later", 50, 0, goal("secret_pred (S k)", ("k", "nat")), "apply later_tactic."
        ),
    ],
    "Lib.Other": [
        step("Lib.Other", "o", 10, 0, goal("secret_pred k", ("k", "nat")), "apply other_tactic."),
    ],
}

PREMISES = {
    "Lib.A": [
        premise("Lib.A", "flip", "forall n m : nat, n = m -> m = n", 10),
        premise("Lib.A", "zero_r", "forall n : nat, n + 0 = n", 20),
        premise("Lib.A", "double", "nat -> nat", 5, kind="Definition"),
    ],
    "Lib.B": [
        premise("Lib.B", "double_plus", "forall n : nat, double n = n + n", 10),
        premise("Lib.B", "secret", "forall k : nat, secret_pred k", 30),
        premise("Lib.B", "later", "forall k : nat, secret_pred (S k)", 50),
    ],
    "Lib.Other": [premise("Lib.Other", "other_secret", "forall k : nat, secret_pred k", 10)],
}

REQUIRES = {"Lib.A": [], "Lib.B": ["Lib.A"], "Lib.Other": []}


def write_trace(root: Path) -> Path:
    files = root / "files"
    files.mkdir(parents=True)
    for module, requires in REQUIRES.items():
        record = FileRecord(
            file=f"/src/{module.split('.')[-1]}.v",
            module=module,
            requires=requires,
            key=f"key-{module}",
            coq_version="8.16.1",
            status="traced",
            steps=len(STEPS[module]),
            premises=len(PREMISES[module]),
        )
        (files / f"{module}.meta.json").write_text(record.model_dump_json())
        (files / f"{module}.steps.jsonl").write_text(
            "".join(s.model_dump_json() + "\n" for s in STEPS[module])
        )
        (files / f"{module}.premises.jsonl").write_text(
            "".join(p.model_dump_json() + "\n" for p in PREMISES[module])
        )
    return root


#: A second trace, made apart from the first: ``Proj.P`` requires ``Lib.B`` (of the
#: first trace), and records one proof of its own at line 20.
PROJECT_STEPS = [
    step("Proj.P", "own", 20, 0, goal("proj_pred k", ("k", "nat")), "apply proj_tactic."),
]


def write_project_trace(root: Path) -> Path:
    """The second trace (module ``Proj.P``); read it with :func:`write_trace`'s as one index."""
    files = root / "files"
    files.mkdir(parents=True)
    record = FileRecord(
        file="/proj/P.v",
        module="Proj.P",
        requires=["Lib.B"],
        key="key-Proj.P",
        coq_version="8.16.1",
        status="traced",
        steps=len(PROJECT_STEPS),
        premises=0,
    )
    (files / "Proj.P.meta.json").write_text(record.model_dump_json())
    (files / "Proj.P.steps.jsonl").write_text(
        "".join(s.model_dump_json() + "\n" for s in PROJECT_STEPS)
    )
    (files / "Proj.P.premises.jsonl").write_text("")
    return root

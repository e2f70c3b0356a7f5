"""A trace big enough for the corpus build to drop its most common features (it drops
only in traces of at least ``MAX_DF_MIN_STATES`` states), written as records."""

from __future__ import annotations

from pathlib import Path

from tests.generate.knn_trace import goal, step

from proofsearch.generate.knn.corpus import MAX_DF_MIN_STATES
from proofsearch.trace.schema import FileRecord, Premise, ProofStep

MODULE = "Big.M"


def big_steps(count: int = MAX_DF_MIN_STATES + 400) -> list[ProofStep]:
    """Equations ``fI (gJ x) = hK x`` over ``x : nat``: ``=``, ``nat`` and ``x`` are in
    every state, so the build drops them; the function symbols tell states apart."""
    return [
        step(
            MODULE,
            f"l{i}",
            10 * i,
            0,
            goal(f"f{i % 40} (g{i % 37} x) = h{i % 31} x", ("x", "nat")),
            f"apply L{i % 40}_{i % 37}.",
        )
        for i in range(count)
    ]


def write_records(
    root: Path,
    requires: dict[str, list[str]],
    steps: dict[str, list[ProofStep]],
    premises: dict[str, list[Premise]],
) -> Path:
    """A trace folder holding ``steps`` and ``premises`` by module."""
    files = root / "files"
    files.mkdir(parents=True)
    for module, required in requires.items():
        record = FileRecord(
            file=f"/src/{module.split('.')[-1]}.v",
            module=module,
            requires=required,
            key=f"key-{module}",
            coq_version="8.16.1",
            status="traced",
            steps=len(steps.get(module, [])),
            premises=len(premises.get(module, [])),
        )
        (files / f"{module}.meta.json").write_text(record.model_dump_json())
        (files / f"{module}.steps.jsonl").write_text(
            "".join(s.model_dump_json() + "\n" for s in steps.get(module, []))
        )
        (files / f"{module}.premises.jsonl").write_text(
            "".join(p.model_dump_json() + "\n" for p in premises.get(module, []))
        )
    return root


def write_big_trace(root: Path, steps: list[ProofStep] | None = None) -> Path:
    return write_records(root, {MODULE: []}, {MODULE: big_steps() if steps is None else steps}, {})

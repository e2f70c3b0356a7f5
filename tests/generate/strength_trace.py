"""A trace big enough for the corpus build to drop its most common features (it drops
only in traces of at least ``MAX_DF_MIN_STATES`` states), written as records."""

from __future__ import annotations

from pathlib import Path

from tests.generate.knn_trace import goal, step

from proofsearch.generate.knn.corpus import MAX_DF_MIN_STATES
from proofsearch.trace.schema import FileRecord, ProofStep

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


def write_big_trace(root: Path, steps: list[ProofStep] | None = None) -> Path:
    files = root / "files"
    files.mkdir(parents=True)
    steps = big_steps() if steps is None else steps
    record = FileRecord(
        file="/src/M.v",
        module=MODULE,
        requires=[],
        key="key-big",
        coq_version="8.16.1",
        status="traced",
        steps=len(steps),
        premises=0,
    )
    (files / f"{MODULE}.meta.json").write_text(record.model_dump_json())
    (files / f"{MODULE}.steps.jsonl").write_text("".join(s.model_dump_json() + "\n" for s in steps))
    (files / f"{MODULE}.premises.jsonl").write_text("")
    return root

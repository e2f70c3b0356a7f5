"""A project traced by an older proofsearch is traced again where ``prove`` needs more.

Shards written before the tracer recorded the goals open at ``Admitted`` have no
``admitted`` field; reused as they were, a proof the user began would be searched from
its statement and their tactics dropped, without a word. Real coqc and coqidetop.
"""

from __future__ import annotations

import json
from pathlib import Path

from proofsearch.project.learn import trace_project
from proofsearch.trace.schema import TraceDir
from proofsearch.trace.shards import read_record
from proofsearch.trace.sources import Project, Source

SOURCE = "Lemma l1 : forall n : nat, n + 0 = n.\nProof. intros n. induction n. Admitted.\n"


def _project(root: Path) -> Project:
    root.mkdir()
    (root / "A.v").write_text(SOURCE)
    (root / "B.v").write_text("Lemma b : True.\nProof. exact I. Qed.\n")
    sources = [Source(root / "A.v", "A.v", "P.A"), Source(root / "B.v", "B.v", "P.B")]
    return Project("P", root, ["-R", str(root), "P"], [(root, "P")], sources)


def test_a_shard_without_the_goals_at_admitted_is_traced_again(tmp_path: Path) -> None:
    project = _project(tmp_path / "proj")
    out = tmp_path / "trace"
    trace_project(project, out, jobs=1)
    trace = TraceDir(out)
    first = read_record(trace, "P.A")
    assert first is not None and first.admitted is not None
    assert [len(goals or []) for goals in first.admitted.values()] == [2]
    # B has no Admitted: its record says so ({}), which is not an old shard's None.
    second = read_record(trace, "P.B")
    assert second is not None and second.admitted == {}

    # As an older tracer wrote it: no `admitted` field.
    meta = trace.shard("P.A", "meta")
    old = json.loads(meta.read_text())
    del old["admitted"]
    meta.write_text(json.dumps(old))
    assert read_record(trace, "P.A").admitted is None  # type: ignore[union-attr]

    summary = trace_project(project, out, jobs=1)
    again = read_record(trace, "P.A")
    assert again is not None and again.admitted == first.admitted
    assert summary.skipped == 1  # B reused, A traced again

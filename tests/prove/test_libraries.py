"""Which installed library modules a project requires (coqdep with every library mapped)."""

from __future__ import annotations

from pathlib import Path

from proofsearch.project.config import load_project
from proofsearch.project.libraries import _closure, library_project, required_library_modules
from proofsearch.trace.deps import requires
from tests.prove.project import write_project


def test_the_stdlib_modules_a_project_requires(tmp_path: Path) -> None:
    project = load_project([write_project(tmp_path)])
    wanted = required_library_modules(project)
    assert wanted == {"Coq": {"Coq.Arith.Arith", "Coq.micromega.Lia", "Coq.Strings.String"}}
    stdlib = library_project("Coq")
    assert stdlib is not None
    graph = requires(stdlib)
    closure = _closure(graph, wanted["Coq"])
    assert {"Coq.Arith.PeanoNat", "Coq.micromega.Lia", "Coq.Strings.Ascii"} <= closure
    assert "Coq.Reals.Rdefinitions" not in closure  # only what is required, not everything
    assert len(closure) < len(stdlib.sources)


def test_a_library_without_sources_is_left_out() -> None:
    assert library_project("NoSuchLibraryInstalled") is None

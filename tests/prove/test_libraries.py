"""Which installed library modules a project requires (coqdep with every library mapped)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from proofsearch.cli import main
from proofsearch.cli.prove_output import untraced_lines
from proofsearch.cli.trace import default_out
from proofsearch.env.coq.version import binary_version
from proofsearch.project import libraries
from proofsearch.project.config import load_project
from proofsearch.project.libraries import (
    _closure,
    held_modules,
    library_out,
    library_project,
    required_library_modules,
    stdlib_prefixes,
    trace_libraries,
    without_modules,
)
from proofsearch.trace.deps import order, requires
from proofsearch.trace.schema import TraceDir
from proofsearch.trace.sources import Project, coq_where, stdlib_project, theories_prefix
from tests.prove.project import write_project

STDLIB = binary_version("coqc").stdlib_prefix


def one_file_project(tmp_path: Path, text: str, more: str = "") -> Project:
    """A project ``P`` of one file ``A.v`` (``more``: lines of its ``_CoqProject``)."""
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / "A.v").write_text(text)
    (folder / "_CoqProject").write_text(f"-R . P\n{more}A.v\n")
    return load_project([folder])


def test_the_stdlib_modules_a_project_requires(tmp_path: Path) -> None:
    project = load_project([write_project(tmp_path)])
    wanted = required_library_modules(project)
    p = STDLIB  # the stdlib's logical prefix: Coq, or Stdlib from Rocq 9 on
    assert wanted == {p: {f"{p}.Arith.Arith", f"{p}.micromega.Lia", f"{p}.Strings.String"}}
    stdlib = library_project(p)
    assert stdlib is not None
    graph = requires(stdlib)
    closure = _closure(graph, wanted[p])
    assert {f"{p}.Arith.PeanoNat", f"{p}.micromega.Lia", f"{p}.Strings.Ascii"} <= closure
    assert f"{p}.Reals.Rdefinitions" not in closure  # only what is required, not everything
    assert len(closure) < len(stdlib.sources)


def test_the_stdlib_modules_a_project_requires_have_an_order(tmp_path: Path) -> None:
    """The closure the library trace runs in dependency order. On Rocq 9 it had a cycle
    (``Stdlib.Init.Byte`` read as requiring ``Stdlib.Strings.Byte``: ``theories`` was
    mapped as ``Coq``, so its ``From Corelib Require Export Byte`` found the wrong file)."""
    project = load_project([write_project(tmp_path)])  # requires Arith Lia String
    p = STDLIB
    stdlib = library_project(p)
    assert stdlib is not None
    graph = requires(stdlib)
    closure = _closure(graph, required_library_modules(project)[p])
    ordered = order({module: graph[module] for module in closure})
    assert ordered.index(f"{p}.Init.Byte") < ordered.index(f"{p}.Strings.Byte")
    assert ordered.index(f"{p}.Strings.Byte") < ordered.index(f"{p}.Strings.String")


@pytest.mark.parametrize(
    ("folders", "prefix"),
    [(["Init", "Arith", "Reals"], "Coq"), (["Init", "Lists", "ssr"], "Corelib")],
    ids=["coq-8", "rocq-9"],
)
def test_what_theories_is_bound_to(tmp_path: Path, folders: list[str], prefix: str) -> None:
    for folder in folders:
        (tmp_path / "theories" / folder).mkdir(parents=True)
    assert theories_prefix(tmp_path) == prefix


@pytest.mark.parametrize(
    ("folders", "prefixes"),
    [(["Init", "Arith"], {"Coq"}), (["Init", "Lists"], {"Stdlib", "Corelib"})],
    ids=["coq-8", "rocq-9"],
)
def test_the_prefixes_of_the_standard_library(
    tmp_path: Path, folders: list[str], prefixes: set[str]
) -> None:
    for folder in folders:
        (tmp_path / "theories" / folder).mkdir(parents=True)
    assert stdlib_prefixes(tmp_path) == prefixes


def test_each_stdlib_prefix_is_trace_coq_stdlibs_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``prove`` traces the standard library as ``trace --coq-stdlib`` does, into its
    folder, so a full trace made there is reused. On Rocq 9 ``Stdlib`` and ``Corelib``
    went to ``libraries/9.x/…`` as projects of their own (other keys): the user's full
    trace was never read."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    whole = stdlib_project()
    for prefix in stdlib_prefixes(coq_where()):
        library = library_project(prefix)
        assert library is not None and library.args == whole.args
        assert [s.module for s in library.sources] == [s.module for s in whole.sources]
        assert library_out(prefix) == default_out("coq-stdlib")


def test_a_module_trace_coq_stdlib_traced_is_not_traced_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Real tracer: ``trace --coq-stdlib --only M`` first; a project needing ``M`` (the
    rest of the prelude given with ``--index``) then traces nothing."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / "A.v").write_text("Lemma a : True.\nProof. exact I. Qed.\n")
    (folder / "_CoqProject").write_text("-R . P\nA.v\n")
    prelude = theories_prefix(coq_where())
    stdlib = library_project(prelude)
    assert stdlib is not None
    closure = _closure(requires(stdlib), {f"{prelude}.Init.Prelude"})
    sizes = {s.module: s.path.stat().st_size for s in stdlib.sources if s.module in closure}
    smallest = min(sizes, key=lambda m: (sizes[m], m))
    assert main(["trace", "--coq-stdlib", "--only", smallest, "--no-progress"]) == 0
    given = tmp_path / "given"
    _shards(given, *(closure - {smallest}))
    ran: list[object] = []
    monkeypatch.setattr(libraries, "run", lambda jobs, **_: ran.extend(jobs))
    outs = trace_libraries(load_project([folder]), jobs=1, given=[given])
    assert ran == []
    assert outs == [default_out("coq-stdlib")]
    # A module another release left there (Coq 8's ``Coq.…`` under Rocq 9) is not read.
    _shards(default_out("coq-stdlib"), "Other.Release.Module")
    (view,) = trace_libraries(load_project([folder]), jobs=1, given=[given])
    assert view != default_out("coq-stdlib")
    assert {p.name.split(".meta.json")[0] for p in (view / "files").glob("*.meta.json")} == {
        smallest
    }


def test_a_library_without_sources_is_left_out() -> None:
    assert library_project("NoSuchLibraryInstalled") is None


def _shards(folder: Path, *modules: str) -> None:
    (folder / "files").mkdir(parents=True, exist_ok=True)
    for module in modules:
        for kind in ("meta.json", "steps.jsonl", "premises.jsonl"):
            (folder / "files" / f"{module}.{kind}").write_text(module)


def test_a_view_of_a_library_trace_without_the_given_modules(tmp_path: Path) -> None:
    """A given ``--index`` trace of math-comp's ssreflect holds ``mathcomp.ssreflect.*``
    only: the library folder of ``mathcomp`` is read without those, not skipped."""
    given, out = tmp_path / "given", tmp_path / "mathcomp"
    _shards(given, "mathcomp.ssreflect.seq")
    _shards(out, "mathcomp.ssreflect.seq", "mathcomp.fingroup.perm")
    held = held_modules([given, tmp_path / "not-traced-yet"])
    assert held == {"mathcomp.ssreflect.seq"}
    assert without_modules(out, set()) == out
    assert without_modules(out, {"Coq.Init.Logic"}) == out  # nothing of out is held
    view = without_modules(out, held)
    assert view != out and view.parent == out.parent
    linked = sorted(p.name for p in (view / "files").iterdir())
    assert linked == [
        f"mathcomp.fingroup.perm.{k}" for k in ("meta.json", "premises.jsonl", "steps.jsonl")
    ]
    assert (
        view / "files" / "mathcomp.fingroup.perm.meta.json"
    ).read_text() == "mathcomp.fingroup.perm"
    # a later run traced one more module: the same view shows it too
    _shards(out, "mathcomp.fingroup.action")
    assert without_modules(out, held) == view
    assert len(list((view / "files").iterdir())) == 6


def test_a_given_trace_stands_for_the_modules_it_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Real coqdep and tracer: of the Init modules a one-file project needs, a given trace
    folder holds all but the smallest; only that one is traced, and the index reads the
    library's folder without an earlier run's shard of a given module."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    project = one_file_project(tmp_path, "Lemma a : True.\nProof. exact I. Qed.\n")
    prelude = theories_prefix(coq_where())  # Coq.Init.Prelude, or Rocq 9's Corelib's
    stdlib = library_project(prelude)
    assert stdlib is not None
    closure = _closure(requires(stdlib), {f"{prelude}.Init.Prelude"})
    assert closure
    sizes = {s.module: s.path.stat().st_size for s in stdlib.sources if s.module in closure}
    smallest = min(sizes, key=lambda m: (sizes[m], m))
    given = tmp_path / "given"
    _shards(given, *(closure - {smallest}))
    stale = sorted(closure - {smallest})[0]
    _shards(library_out(prelude), stale)  # as an earlier run without --index left it
    (folder_out,) = trace_libraries(project, jobs=1, given=[given])
    assert folder_out != library_out(prelude)
    modules = {p.name.split(".meta.json")[0] for p in (folder_out / "files").glob("*.meta.json")}
    assert modules == {smallest}
    # everything given: nothing traced, no folder
    _shards(given, smallest)
    assert trace_libraries(project, jobs=1, given=[given]) == []


def test_prove_on_a_machine_that_never_traced_anything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Real tracer and search, an empty cache (a new user's first run): the prelude the
    project loads is traced into ``trace --coq-stdlib``'s folder, and the hole is filled
    by what it learned. Reading the library's folder before it existed crashed ``prove``
    (the check for another release's shards)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = tmp_path / "proj"
    folder.mkdir()
    hole = "Lemma negb_twice : forall b : bool, negb (negb b) = b.\nProof. Admitted.\n"
    (folder / "A.v").write_text(hole)
    (folder / "_CoqProject").write_text("-R . P\nA.v\n")
    assert main(["prove", str(folder), "--quiet", "--write", "--timeout", "30"]) == 0
    traced = held_modules([default_out("coq-stdlib")])
    assert f"{theories_prefix(coq_where())}.Init.Datatypes" in traced
    assert "Admitted" not in (folder / "A.v").read_text()


def test_a_short_require_is_the_projects_own_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Real coqdep: a ``-noinit`` project (HoTT's style) whose ``Basics`` shadows the
    stdlib's ``Program.Basics``: its ``Require Import Basics.`` needs no library module,
    and without the prelude nothing of the stdlib is wanted at all."""
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / "Basics.v").write_text("Inductive unit : Type := tt.\n")
    (folder / "A.v").write_text("Require Import Basics.\nDefinition x := tt.\n")
    (folder / "_CoqProject").write_text("-R . HoTTLike\n-arg -noinit\nBasics.v\nA.v\n")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    project = load_project([folder])
    assert required_library_modules(project) == {}
    assert trace_libraries(project, jobs=1) == []
    assert not (tmp_path / "cache").exists()  # not even the prelude was traced


def test_a_library_the_project_binds_from_outside_is_traced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Real coqdep and tracer: a sibling checkout bound with ``-Q ../dep Dep`` was never
    traced, so none of its lemmas was a premise (``apply weird_id`` was out of reach);
    what the project requires of it is traced now, in a folder of the cache (nothing is
    written into the sibling's folder), and nothing else of it."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    dep, folder = tmp_path / "dep", tmp_path / "proj"
    dep.mkdir()
    folder.mkdir()
    (dep / "D.v").write_text(
        "Parameter weird : nat -> nat.\nAxiom weird_id : forall n, weird n = n.\n"
        "Lemma twice : forall n, weird (weird n) = n.\n"
        "Proof. intros n. now rewrite !weird_id. Qed.\n"
    )
    (dep / "Unused.v").write_text("Lemma unused : True.\nProof. exact I. Qed.\n")
    for name in ("D.v", "Unused.v"):
        subprocess.run(["coqc", "-Q", ".", "Dep", name], cwd=dep, check=True)
    (folder / "_CoqProject").write_text("-Q ../dep Dep\n-R . P\nA.v\n")
    (folder / "A.v").write_text(
        "From Dep Require Import D.\nLemma use (n : nat) : weird n = n.\nProof. Admitted.\n"
    )
    project = load_project([folder])
    prelude = theories_prefix(coq_where())
    stdlib = library_project(prelude)
    assert stdlib is not None
    given = tmp_path / "given"  # the prelude as given: only the sibling is traced
    _shards(given, *_closure(requires(stdlib), {f"{prelude}.Init.Prelude"}))
    before = sorted(p.name for p in dep.iterdir())
    (out,) = trace_libraries(project, jobs=1, given=[given])
    assert out.parent.name == "external" and out.name.startswith("Dep-")
    trace = TraceDir(out)
    assert trace.modules() == {"Dep.D"}
    assert {p.name for p in trace.premises("Dep.D")} >= {"Dep.D.weird_id", "Dep.D.twice"}
    assert sorted(p.name for p in dep.iterdir()) == before


def test_a_library_found_through_coqpath_is_traced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``COQPATH`` folders are mapped by Coq as ``user-contrib`` is: a sibling project
    reached that way compiled, but was neither traced nor said (audit 47)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    dep, folder, coqpath = tmp_path / "dep", tmp_path / "proj", tmp_path / "coqpath"
    for made in (dep, folder, coqpath):
        made.mkdir()
    (dep / "D.v").write_text("Lemma weird_id : forall n : nat, n + 0 = n.\nProof. auto. Qed.\n")
    subprocess.run(["coqc", "-Q", ".", "Dep", "D.v"], cwd=dep, check=True)
    (coqpath / "Dep").symlink_to(dep)
    monkeypatch.setenv("COQPATH", str(coqpath))
    (folder / "_CoqProject").write_text("-R . P\nA.v\n")
    (folder / "A.v").write_text(
        "From Dep Require Import D.\nLemma use (n : nat) : n + 0 = n.\nProof. Admitted.\n"
    )
    project = load_project([folder])
    prelude = theories_prefix(coq_where())
    stdlib = library_project(prelude)
    assert stdlib is not None
    given = tmp_path / "given"
    _shards(given, *_closure(requires(stdlib), {f"{prelude}.Init.Prelude"}))
    unsourced: list[str] = []
    (out,) = trace_libraries(project, jobs=1, given=[given], unsourced=unsourced)
    assert TraceDir(out).modules() == {"Dep.D"}
    assert "Dep.D.weird_id" in {p.name for p in TraceDir(out).premises("Dep.D")}
    assert unsourced == []  # it was also said "installed without its .v files"


def test_a_library_file_that_failed_to_trace_is_said_in_every_run(tmp_path: Path) -> None:
    """It was one bare `failed QuickChick.v:37: …` line among the progress lines of the
    first run (brackets in Coq's message eaten as markup), and nothing afterwards."""
    from proofsearch.cli.prove_output import untraced_lines
    from proofsearch.trace.schema import FileError, FileRecord, ProjectRecord, write_project
    from proofsearch.trace.shards import open_trace_dir, write_shard

    out = tmp_path / "QuickChick-0123"
    trace = open_trace_dir(out)
    error = FileError(line=37, message="Cannot find [Show].\n")
    for module, failed in (("QuickChick.Show", False), ("QuickChick.QuickChick", True)):
        record = FileRecord(
            file=module.split(".")[1] + ".v", module=module, requires=[], key="k",
            coq_version="8.16.1", status="failed" if failed else "traced",
            error=error if failed else None,
        )  # fmt: skip
        write_shard(trace, record, [], [])
    assert untraced_lines([out, tmp_path / "not-made-yet"]) == [
        "library trace: QuickChick.QuickChick (QuickChick.v:37) could not be traced: Cannot "
        "find [Show]; its lemmas are not premises, the search goes on without them (does the "
        "library compile with the project's -R/-Q/-I lines and its typing flags, such as "
        "-noinit or -type-in-type? the library is traced with those the project gives with "
        "-arg, and no others)"
    ]
    # An installed library (its folder under user-contrib): its source need not compile
    # outside its own build (HB's structures.v, audit 49); no advice about the project.
    installed = tmp_path / "HB-0123"
    trace = open_trace_dir(installed)
    root = tmp_path / "coq" / "user-contrib" / "HB"
    write_project(installed, ProjectRecord(name="HB", root=str(root), coq_args=[]))
    hb_error = FileError(
        line=300, message="The syntax 'Elpi Accumulate File \"path\"' is deprecated"
    )
    record = FileRecord(
        file="structures.v", module="HB.structures", requires=[], key="k",
        coq_version="8.20.1", status="failed", error=hb_error,
    )  # fmt: skip
    write_shard(trace, record, [], [])
    (line,) = untraced_lines([installed])
    assert line.startswith("library trace: HB.structures (structures.v:300) could not be traced")
    assert line.endswith(
        "(an installed library's source need not compile outside its own build; your proofs "
        "can still use its lemmas, and nothing in your project needs a change)"
    )


def test_a_library_installed_without_sources_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Debian's Interval ships only .vo files: nothing to trace, and nothing said (an
    audit's two holes that `interval` proves stayed open without a word)."""
    project = load_project([write_project(tmp_path)])
    monkeypatch.setattr(libraries, "library_project", lambda prefix, coqc="coqc", flags=(): None)
    unsourced: list[str] = []
    assert libraries.trace_libraries(project, unsourced=unsourced) == []
    assert unsourced == [libraries.STDLIB]  # the key the stdlib is traced under ("Coq")


def fake_coqlib(tmp_path: Path) -> Path:
    """A Coq installation made for a test: links to the real one's folders, and a
    ``user-contrib`` of its own where a test installs a library."""
    real = coq_where()
    fake = tmp_path / "coqlib"
    fake.mkdir()
    for entry in real.iterdir():
        if entry.name != "user-contrib":
            (fake / entry.name).symlink_to(entry)
    contrib = fake / "user-contrib"
    contrib.mkdir()
    for entry in (real / "user-contrib").iterdir():
        (contrib / entry.name).symlink_to(entry)
    return fake


def test_a_library_is_traced_with_the_projects_typing_flags(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A library built with typing flags (UniMath: `-noinit -indices-matter
    -type-in-type`) failed to trace (5 of 10 files), being traced without them; the
    project requiring it has the same flags, and gives them to it. Real tracer, on a
    library installed in a Coq installation made for the test (links to the real one)."""
    fake = fake_coqlib(tmp_path)
    library = fake / "user-contrib" / "Tit"
    library.mkdir()
    # A universe inconsistency unless -type-in-type.
    (library / "U.v").write_text("Definition U := Type.\nDefinition self : U := U.\n")
    flags = ["-noinit", "-type-in-type"]
    build = ["coqc", *flags, "-R", str(library), "Tit", "U.v"]
    assert subprocess.run(build, cwd=library, capture_output=True).returncode == 0
    assert subprocess.run(build[:1] + build[3:], cwd=library, capture_output=True).returncode
    monkeypatch.setattr(libraries, "coq_where", lambda coqc="coqc": fake)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    text = "Require Import Tit.U.\nDefinition mine : U := U.\n"
    project = one_file_project(tmp_path, text, "-arg -noinit\n-arg -type-in-type\n")
    assert libraries.typing_flags([*project.args, "-w", "x", "-noinit"]) == flags
    said: list[str] = []
    (out,) = trace_libraries(project, jobs=1, say=said.append)
    # Said before the work (audit 45: 212 files traced on a first run without a word).
    assert said == [
        f"library Tit: tracing the 1 file(s) of it that the project loads, to learn from "
        f"their proofs (once: cached in {out})"
    ]
    assert trace_libraries(project, jobs=1, say=said.append) == [out] and len(said) == 1
    (record,) = [r for r in TraceDir(out).files() if r.module == "Tit.U"]
    assert record.status == "traced", record
    assert [p.name for p in TraceDir(out).premises("Tit.U")] == ["Tit.U.U", "Tit.U.self"]


def test_an_installed_librarys_untraceable_file_is_no_fault_of_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Audit 49: HB's ``structures.v`` cannot be traced from its installed source (it
    needs its own build's paths); the line said to check the project's ``-R`` lines.
    The library traces that ``prove`` makes now record where the library lives, so the
    line says an installed library's source need not compile outside its own build.
    Real tracer, on a library installed in a Coq installation made for the test, whose
    compiled file is fine and whose source no longer compiles."""
    fake = fake_coqlib(tmp_path)
    library = fake / "user-contrib" / "Brk"
    library.mkdir()
    source = library / "B.v"
    source.write_text("Definition b := 1.\n")
    build = ["coqc", "-R", str(library), "Brk", "B.v"]
    assert subprocess.run(build, cwd=library, capture_output=True).returncode == 0
    source.write_text("Definition b := 1.\nDefinition c := no_such_thing.\n")
    monkeypatch.setattr(libraries, "coq_where", lambda coqc="coqc": fake)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    project = one_file_project(tmp_path, "Require Import Brk.B.\nDefinition mine := b.\n")
    outs = trace_libraries(project, jobs=1)
    lines = untraced_lines(outs, fake)
    assert len(lines) == 1, lines
    assert lines[0].startswith("library trace: Brk.B (B.v:2) could not be traced"), lines
    assert lines[0].endswith(
        "(an installed library's source need not compile outside its own build; your proofs "
        "can still use its lemmas, and nothing in your project needs a change)"
    )


def test_a_long_first_trace_says_how_long_it_may_take() -> None:
    """Audit 55: 295 stdlib files took 4 min, and the opening line gave no idea of it
    (the progress line's early estimate said 53 s)."""
    from proofsearch.project.libraries import _expected_time

    assert _expected_time(295, 2) == "; about 3 min on 2 core(s)"
    assert _expected_time(20, 2) == ""  # a short one: no word

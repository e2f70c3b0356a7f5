"""Rocq 9's names for a project's description: ``_RocqProject`` (``rocq makefile -f
_RocqProject``) and dune's ``rocq.theory`` stanza (``(using rocq 0.11)``). Before, a
project described only so was "no _CoqProject or dune-project in this folder"."""

from __future__ import annotations

from pathlib import Path

import pytest

from proofsearch.cli import main
from proofsearch.project.config import load_project, locate
from proofsearch.trace.sources import Project
from tests.prove.project import HOLES, write_project


def _modules(project: Project) -> list[tuple[str, str]]:
    return [(source.file, source.module) for source in project.sources]


def test_a_rocqproject_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expected = _modules(load_project([write_project(tmp_path / "coq")]))
    folder = write_project(tmp_path / "rocq")
    (folder / "_CoqProject").rename(folder / "_RocqProject")
    assert _modules(load_project([folder])) == expected != []
    assert main(["prove", str(folder), "--list"]) == 0
    assert capsys.readouterr().out.splitlines() == HOLES


def test_both_project_files_that_differ_are_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A stale `_CoqProject` beside the `_RocqProject` hid 4 of 5 files, silently
    (audit 45): the one read is named, even with --quiet; the same text says nothing."""
    folder = write_project(tmp_path / "both")
    (folder / "_RocqProject").write_text((folder / "_CoqProject").read_text())
    assert main(["prove", str(folder), "--list", "--quiet"]) == 0
    assert capsys.readouterr().err == ""
    (folder / "_CoqProject").write_text("-R . Old\nBase.v\n")
    assert main(["prove", str(folder), "--list", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.err.strip() == (
        f"{folder / '_CoqProject'} read; the _RocqProject beside it differs and is not read "
        "(remove the stale one, or make them the same)"
    )
    assert captured.out.splitlines() == [h for h in HOLES if h.startswith("Base.v")]


def test_a_rocq_theory_stanza(tmp_path: Path) -> None:
    expected = _modules(load_project([write_project(tmp_path / "coq", dune=True)]))
    folder = write_project(tmp_path / "rocq", dune=True)
    (folder / "dune-project").write_text("(lang dune 3.21)\n(using rocq 0.11)\n")
    dune = (folder / "dune").read_text()
    (folder / "dune").write_text(dune.replace("(coq.theory", "(rocq.theory"))
    assert "rocq.theory" in (folder / "dune").read_text()
    assert _modules(load_project([folder])) == expected != []
    (folder / "dune").write_text("(rocq.theory\n (theories Stdlib))\n")
    with pytest.raises(ValueError, match=r"dune: rocq.theory without \(name …\)"):
        load_project([folder])


@pytest.mark.parametrize(
    ("line", "why"),
    [("-R .\nBase.v", "'Base.v' is not a logical name but a file"), ("-Q . a..b", "'a..b'")],
)
def test_a_loadpath_line_broken_in_two(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, why: str
) -> None:
    """``-R .`` with its name on the next line read the first file as the logical name,
    and the project was searched as ``Base.v.Base`` without a word."""
    folder = write_project(tmp_path)
    listed = (folder / "_CoqProject").read_text().split("\n", 1)[1]
    (folder / "_CoqProject").write_text(f"{line}\n{listed}")
    assert main(["prove", str(folder), "--list"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert why in err and "on one line" in err and "_CoqProject" in err


def test_a_folder_without_a_project_file_is_its_v_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As `coqc` run in the folder would: `A.v` is `A`, `sub/C.v` is `sub.C`; hidden
    folders and dune's `_build` are not the project's."""
    folder = tmp_path / "plain"
    (folder / "sub").mkdir(parents=True)
    (folder / ".git").mkdir()
    (folder / "_build").mkdir()
    (folder / "A.v").write_text("Lemma a : True.\nProof. Admitted.\n")
    (folder / "sub" / "C.v").write_text("Require Import A.\nLemma c : True.\nProof. Admitted.\n")
    (folder / ".git" / "X.v").write_text("")
    (folder / "_build" / "Y.v").write_text("")
    project = load_project([folder])
    assert [(s.file, s.module) for s in project.sources] == [("A.v", "A"), ("sub/C.v", "sub.C")]
    assert project.args[:3] == ["-Q", str(folder.resolve()), ""]
    assert project.name == "plain" and project.root == folder.resolve()
    assert main(["prove", str(folder), "--list"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines() == ["A.v:1 a", "sub/C.v:2 c"]
    assert "no _CoqProject: its 2 .v file(s)" in err


def test_an_empty_folder_is_refused_with_what_to_give(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["prove", str(tmp_path), "--list"]) == 2
    assert "no .v file, and no _CoqProject" in capsys.readouterr().err


@pytest.mark.parametrize("dune", [False, True])
def test_files_inside_a_project_are_that_projects(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    dune: bool,
) -> None:
    """`prove Mod.v` run in the project's folder, or `prove proj/sub`: the project's holes
    in those files. Read as loose files, `From Proj Require Import Base` did not compile."""
    folder = write_project(tmp_path, dune=dune)
    monkeypatch.chdir(folder)
    assert locate([Path("Mod.v")]) == ([folder.resolve()], [Path("Mod.v")], folder.resolve())
    assert main(["prove", "Mod.v", "Top.v", "--list"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines() == [h for h in HOLES if h.startswith(("Mod.v", "Top.v"))]
    assert f"inside the project at {folder.resolve()}: its holes in 2 file(s)" in err
    # --coq-arg gives loose files their loadpath by hand: no project is looked for.
    assert locate([Path("Mod.v")], ["-R", ".", "X"]) == ([Path("Mod.v")], [], None)
    # A folder inside the project: the project's files under it.
    if not dune:
        sub = folder / "sub"
        sub.mkdir()
        (folder / "Mod.v").rename(sub / "Mod.v")
        (folder / "_CoqProject").write_text("-R . Proj\nBase.v\nSec.v\nsub/Mod.v\nTop.v\n")
        monkeypatch.chdir(tmp_path)
        assert main(["prove", str(sub), "--list"]) == 0
        out, err = capsys.readouterr()
        assert out.splitlines() == ["sub/Mod.v:5 Arith2.add_comm'", "sub/Mod.v:8 Arith2.impossible"]
        assert "no _CoqProject:" not in err
        # Files after a folder inside the project narrow to them, as after the root (the
        # folder's every hole was selected, with theirs).
        monkeypatch.chdir(sub)
        assert locate([Path("."), Path("../Top.v")]) == (
            [folder.resolve()],
            [Path("../Top.v")],
            folder.resolve(),
        )
        assert main(["prove", ".", "../Top.v", "--list"]) == 0
        assert capsys.readouterr().out.splitlines() == ["Top.v:5 top_twice"]


def test_a_dune_project_is_the_files_dune_builds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A scratch file left out of `(modules …)`, and a subfolder's file without
    `(include_subdirs …)`, were taken for the project's: one that does not compile
    stopped the run, though `dune build` passed."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = tmp_path / "dune"
    (folder / "lib" / "sub").mkdir(parents=True)
    (folder / "app" / "old").mkdir(parents=True)
    (folder / "dune-project").write_text("(lang dune 2.9)\n(using coq 0.3)\n")
    (folder / "lib" / "dune").write_text(
        "(include_subdirs qualified)\n(coq.theory\n (name My.Lib)\n (modules A sub.D))\n"
    )
    (folder / "app" / "dune").write_text(
        "(coq.theory (name App) (theories My.Lib) (modules :standard \\ Skip))\n"
    )
    for file in ("lib/A.v", "lib/Scratch.v", "lib/sub/D.v", "app/Main.v", "app/Skip.v"):
        (folder / file).write_text("Definition x := 0.\n")
    (folder / "app" / "old" / "Old.v").write_text("Require Import Nonexistent.\n")
    assert _modules(load_project([folder])) == [
        ("app/Main.v", "App.Main"),
        ("lib/A.v", "My.Lib.A"),
        ("lib/sub/D.v", "My.Lib.sub.D"),
    ]
    # A file dune builds that does not compile: the line points at the dune stanzas.
    (folder / "app" / "Main.v").write_text("Lemma m : True.\nAdmitted.\nRequire Nonexistent.\n")
    assert main(["prove", str(folder), "--no-library-trace", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "app/Main.v:3: the file does not compile" in err
    assert "check the dune files' (coq.theory …) stanzas" in err and "_CoqProject" not in err


def test_entries_only_coq_makefile_reads_are_not_coqs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A `_CoqProject` that `coq_makefile` builds may hold `-docroot DIR`, a META file,
    plugin sources, `NAME = value` and folders: they were passed to `coqidetop`, which
    stopped at `-docroot` ("the file does not compile"); a folder stands for its `.v`
    files, as `coq_makefile` reads it."""
    folder = write_project(tmp_path)
    (folder / "extra").mkdir()
    (folder / "extra" / "More.v").write_text("Lemma more : 1 = 1.\nProof. Admitted.\n")
    listed = (folder / "_CoqProject").read_text().split("\n", 1)[1]
    (folder / "_CoqProject").write_text(
        "-R . Proj\n-docroot Proj.doc\n-generate-meta-for-package coq-proj\n"
        'COQDOC = "coqdoc -interpolate -utf8"\n-native-compiler ondemand\n'
        "-arg -w -arg -notation-overridden\nsrc/plugin.mlg\nsrc/plugin.mlpack\n"
        f"META.coq-proj\n{listed}extra\n"
    )
    project = load_project([folder])
    assert project.args == ["-R", str(folder.resolve()), "Proj", "-w", "-notation-overridden"]
    assert [s.file for s in project.sources][-1] == "extra/More.v"
    assert main(["prove", str(folder), "--list"]) == 0
    assert capsys.readouterr().out.splitlines() == [*HOLES, "extra/More.v:1 more"]


def test_an_option_coq_does_not_know_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Coq stops at an unknown option before reading any file: the line said "Base.v:1:
    the file does not compile" and sent the user to make a project build that builds."""
    folder = write_project(tmp_path)
    spec = folder / "_CoqProject"
    spec.write_text(spec.read_text().replace("-R . Proj\n", "-R . Proj\n-no-such-option\n"))
    assert main(["prove", str(folder), "--lemma", "dbl_add", "--timeout", "5"]) != 0
    err = " ".join(capsys.readouterr().err.split())
    assert "Coq does not know the option -no-such-option" in err, err
    assert "from the _CoqProject or --coq-arg" in err and "does not compile" not in err
    assert "library trace" not in err  # the libraries fail on it too: not said before
    # Given with -arg already, the advice was to write it with -arg (audit 47).
    spec.write_text(spec.read_text().replace("-no-such-option\n", "-arg -no-such-option\n"))
    assert main(["prove", str(folder), "--lemma", "dbl_add", "--timeout", "5"]) != 0
    err = " ".join(capsys.readouterr().err.split())
    assert "option -no-such-option that the _CoqProject passes it with -arg: remove it" in err
    assert "write it -arg" not in err and "library trace" not in err


def test_a_project_in_a_folder_with_a_space_has_its_dependencies(tmp_path: Path) -> None:
    """coqdep writes `my\\ proofs/…`: split on spaces, no file had a dependency, so the
    holes were searched (and the scratch build compiled) in no order, without the
    stdlib modules the project requires in their scope."""
    from proofsearch.trace.deps import requires

    graph = requires(load_project([write_project(tmp_path / "my proofs")]))
    assert graph["Proj.Top"] == ["Proj.Base", "Proj.Mod", "Proj.Sec"]
    assert any(module.endswith(".Arith.Arith") for module in graph["Proj.Base"])  # Coq or Stdlib

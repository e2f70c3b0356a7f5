"""A workspace of two projects (audit 47): ``lang`` binds its sibling ``base`` with
``-Q ../base Base``. What ``make`` in ``lang`` does when ``base`` changed, ``prove`` does
too, and where it cannot, its one line says what to do there. Real ``coqc``."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from proofsearch.cli import main
from proofsearch.env.coq.version import coq_where

STAND_IN = "tests.prove.stand_in:by_name"
pytestmark = pytest.mark.usefixtures("cache")


def workspace(tmp_path: Path) -> tuple[Path, Path]:
    """``base`` (B.v, built) and ``lang`` (A.v requires Base.B; C.v, a hole, requires A),
    both built as their Makefiles would."""
    base, lang = tmp_path / "base", tmp_path / "lang"
    base.mkdir()
    lang.mkdir()
    (base / "B.v").write_text("Definition base := 3.\n")
    subprocess.run(["coqc", "-Q", ".", "Base", "B.v"], cwd=base, check=True)
    (lang / "_CoqProject").write_text("-Q ../base Base\n-R . Lang\nA.v\nC.v\n")
    (lang / "A.v").write_text("From Base Require Import B.\nDefinition a := base.\n")
    (lang / "C.v").write_text(
        "From Lang Require Import A.\nLemma two_is_2 : 2 = 2.\nProof.\nAdmitted.\n"
    )
    for name in ("A.v", "C.v"):
        subprocess.run(["coqc", "-Q", "../base", "Base", "-R", ".", "Lang", name], cwd=lang,
                       check=True)  # fmt: skip
    return base, lang


def age(path: Path, seconds: float) -> None:
    """Make ``path`` look ``seconds`` older than now (file times, not sleeps)."""
    then = time.time() - seconds
    os.utime(path, (then, then))


def run(lang: Path, tmp_path: Path) -> int:
    return main(["prove", str(lang), "--generator", STAND_IN, "--no-library-trace",
                 "-o", str(tmp_path / "r.jsonl"), "--quiet"])  # fmt: skip


def test_a_sibling_rebuilt_since_rebuilds_what_loads_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Base rebuilt after lang was built: lang's ``.vo`` files then make "inconsistent
    assumptions over library Base.B", and prove stopped with loadpath advice where
    ``make`` rebuilds them (the staleness check looked at the project's own ``.vo``
    files only)."""
    base, lang = workspace(tmp_path)
    (base / "B.v").write_text("Definition base := 3.\nDefinition more := 4.\n")
    subprocess.run(["coqc", "-Q", ".", "Base", "B.v"], cwd=base, check=True)
    for name, seconds in (("A.v", 120), ("C.v", 120), ("A.vo", 60), ("C.vo", 60)):
        age(lang / name, seconds)  # lang as its make left it: only Base's .vo is newer
    assert run(lang, tmp_path) == 0, capsys.readouterr().err
    out = capsys.readouterr()
    assert "inconsistent" not in out.err and "filled" not in out.err
    done = subprocess.run(["coqc", "-Q", "../base", "Base", "-R", ".", "Lang", "C.v"],
                          cwd=lang, capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_a_sibling_edited_and_not_rebuilt_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Base's source edited (a new definition lang now uses) and not rebuilt: the error
    blamed lang's file ("fix it there"); the line now names the stale source."""
    base, lang = workspace(tmp_path)
    age(base / "B.vo", 60)
    (base / "B.v").write_text("Definition base := 3.\nDefinition more := 4.\n")
    (lang / "A.v").write_text("From Base Require Import B.\nDefinition a := more.\n")
    assert run(lang, tmp_path) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert "A.v:2: the file does not compile: The reference more was not found" in err
    assert f"{base / 'B.v'} is newer than the .vo the project compiles against" in err
    assert "rebuild that project first" in err and "fix it there" not in err


def test_a_plugin_not_installed_is_said_in_a_few_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Findlib's error lists every folder it searched: the line was 600 characters of
    paths cut mid-path, then "fix it there" (audit 47)."""
    _base, lang = workspace(tmp_path)
    (lang / "A.v").write_text('Declare ML Module "coq-nosuch.plugin".\nDefinition a := 3.\n')
    assert run(lang, tmp_path) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert (
        "A.v:1: the file does not compile: the OCaml plugin coq-nosuch.plugin is not "
        "installed" in err
    )
    assert "coq-core/plugins" not in err and "fix it there" not in err
    assert "install the plugin" in err
    # coqdep refuses the file, and answered for no file of the project: the others'
    # dependencies are still known (verification 48).
    from proofsearch.project.config import load_project
    from proofsearch.trace.deps import requires

    assert requires(load_project([lang]))["Lang.C"] == ["Lang.A"]


@pytest.mark.skipif(
    not (coq_where() / "user-contrib" / "mathcomp").is_dir(),
    reason="math-comp is not installed (Debian: libcoq-mathcomp-ssreflect)",
)
def test_a_missing_part_of_an_installed_library_is_said_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``all_field`` where math-comp is installed without its field part got advice
    about the _CoqProject's -R/-Q lines (audit 49): the library is there, a part of it
    packaged apart is not."""
    if (coq_where() / "user-contrib" / "mathcomp" / "field").is_dir():
        pytest.skip("math-comp's field part is installed here")
    _base, lang = workspace(tmp_path)
    (lang / "A.v").write_text("From mathcomp Require Import all_field.\nDefinition a := 3.\n")
    assert run(lang, tmp_path) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert "A.v:1: the file does not compile:" in err
    assert "mathcomp is installed but has no all_field" in err
    assert "apt-cache search libcoq-mathcomp" in err and "-R/-Q/-I" not in err


@pytest.mark.skipif(
    not (coq_where() / "user-contrib" / "Coquelicot").is_dir(),
    reason="Coquelicot is not installed (Debian: libcoq-coquelicot)",
)
def test_a_misspelt_module_of_an_installed_library_is_said_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`From Coquelicot Require Import Coquelicott.` was sent to the package manager ("a
    part of it packaged apart may be missing", audit 55): the closest module is named."""
    _base, lang = workspace(tmp_path)
    (lang / "A.v").write_text("From Coquelicot Require Import Coquelicott.\nDefinition a := 3.\n")
    assert run(lang, tmp_path) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert "A.v:1: the file does not compile:" in err
    assert "Coquelicot has no Coquelicott: did you mean Coquelicot?" in err
    assert "apt-cache" not in err


def test_a_library_rebuilt_after_the_project_is_said_so(tmp_path: Path) -> None:
    """An installed library (not bound by the project, so not checked for staleness)
    rebuilt after the project: Coq's "inconsistent assumptions" got loadpath advice."""
    from proofsearch.project.config import load_project
    from proofsearch.project.learn import _failure_line
    from proofsearch.trace.schema import FileError, FileRecord

    _base, lang = workspace(tmp_path)
    message = (
        "Compiled library Lang.A (in file A.vo) makes inconsistent assumptions over library Base.B"
    )
    record = FileRecord(
        file="C.v", module="Lang.C", requires=[], key="k", coq_version="8.16.1",
        status="failed", error=FileError(line=1, message=message),
    )  # fmt: skip
    line = _failure_line(record, 1, load_project([lang]))
    assert line.startswith(f"C.v:1: the file does not compile: {message}; Base.B was ")
    assert "rebuild the project (make), after the project that provides it" in line
    assert "-R/-Q" not in line


def test_a_library_gone_since_the_trace_is_said_as_for_a_fresh_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A library the project loads, uninstalled after the project was traced (here: its
    ``COQPATH`` folder gone): the cached trace was reused, and each hole failed on its own
    with loadpath advice that blamed the project's lines (audit 44 #6). The file is
    traced again, and its failure said once, naming the file and line."""
    base, lang = workspace(tmp_path)
    coqpath = tmp_path / "coqpath"
    coqpath.mkdir()
    (coqpath / "Base").symlink_to(base)
    monkeypatch.setenv("COQPATH", str(coqpath))
    (lang / "_CoqProject").write_text("-R . Lang\nA.v\nC.v\n")  # Base through COQPATH
    assert run(lang, tmp_path) == 0, capsys.readouterr().err
    capsys.readouterr()
    (coqpath / "Base").unlink()  # uninstalled
    assert run(lang, tmp_path) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert "A.v:1: the file does not compile:" in err and "Base" in err, err
    assert "header sentence" not in err


def test_write_shows_the_proofs_no_dry_run_showed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--write`` searched a hole the dry run had left (an error), wrote its proof and
    printed only its table: the user never saw that proof (audit 49). It prints the diff
    of what this run found; a proof kept from the dry run, whose diff that run printed,
    is not printed again."""

    def prove(folder: Path, *extra: str) -> str:
        capsys.readouterr()
        code = main(["prove", str(folder), "--generator", "fixed", "--tactic", "reflexivity",
                     "--no-library-trace", "-o", str(folder / "r.jsonl"), *extra])  # fmt: skip
        assert code == 0
        return capsys.readouterr().out

    for name in ("fresh", "reviewed"):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "_CoqProject").write_text("-R . P\nA.v\n")
        (folder / "A.v").write_text("Lemma t : 2 = 2.\nProof.\nAdmitted.\n")
    assert "+  reflexivity." in prove(tmp_path / "fresh", "--write")
    assert "+  reflexivity." in prove(tmp_path / "reviewed")  # the dry run's diff
    written = prove(tmp_path / "reviewed", "--write")
    assert "reflexivity" not in written  # kept from the dry run: shown there already
    assert "Qed." in (tmp_path / "reviewed" / "A.v").read_text()

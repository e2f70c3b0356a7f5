"""``proofsearch prove`` on a real Coq project made in the test (real coqidetop, coqc).

See :mod:`tests.prove.project` for the project and :mod:`tests.prove.stand_in` for the
generator that makes the found proofs known in advance.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from proofsearch.cli import main
from proofsearch.env.coq.version import binary_version
from tests.conftest import ROOT
from tests.prove.project import FILES, HOLES, ORDER, write_project

STAND_IN = "tests.prove.stand_in:by_name"

#: What the stand-in's proofs make of each file (the dry run's diff, and --write).
FILLED = {
    "Base.v": FILES["Base.v"].replace("Proof.\nAdmitted.\n", "Proof.\n  reflexivity.\nQed.\n"),
    "Sec.v": FILES["Sec.v"].replace(
        "  Proof using f_id.\n    (* a partial attempt *)\n  Admitted.\n",
        "  Proof using f_id.\n    (* a partial attempt *)\n    apply f_id.\n  Qed.\n",
    ),
    # The stand-in's proof names the premise by its full path; prove writes the shortest
    # name Coq resolves at the hole.
    "Mod.v": FILES["Mod.v"].replace(
        "  Proof. Admitted.\n", "  Proof.\n    apply PeanoNat.Nat.add_comm.\n  Qed.\n"
    ),
    "Top.v": FILES["Top.v"].replace("Proof. Admitted.\n", "Proof.\n  reflexivity.\nQed.\n"),
}


pytestmark = pytest.mark.usefixtures("cache")  # a cache of each test's own


def prove(*args: str) -> int:
    return main(["prove", *args, "--quiet", "--no-library-trace"])


def small_project(folder: Path, coqproject: str, files: dict[str, str]) -> Path:
    """A folder with this ``_CoqProject`` and these files."""
    folder.mkdir()
    (folder / "_CoqProject").write_text(coqproject)
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder


def build(folder: Path) -> None:
    """The whole project compiles with coqc, file by file in dependency order."""
    for name in ORDER:
        done = subprocess.run(
            ["coqc", "-R", ".", "Proj", name], cwd=folder, capture_output=True, text=True
        )
        assert done.returncode == 0, f"{name}: {done.stderr}"


def expected_diff() -> str:
    parts = []
    for name in ("Base.v", "Mod.v", "Sec.v", "Top.v"):  # the dependency order
        old, new = FILES[name], FILLED[name]
        parts += difflib.unified_diff(
            old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{name}", f"b/{name}"
        )
    return "".join(parts)


def test_list_and_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = write_project(tmp_path)
    assert prove(str(folder), "--list") == 0
    assert capsys.readouterr().out.splitlines() == HOLES
    assert prove(str(folder), "Mod.v", "--lemma", "impo*", "--list") == 0
    assert capsys.readouterr().out.splitlines() == ["Mod.v:8 Arith2.impossible"]

    assert prove(str(tmp_path), "--list") == 2
    err = capsys.readouterr().err
    assert err.strip() == (
        f"proofsearch prove: {tmp_path}: no _CoqProject, _RocqProject or dune-project in "
        f"this folder, but {folder} has one; give that folder (the project's root)"
    )
    (tmp_path / "lang" / "sub").mkdir(parents=True)  # a workspace: both are named
    (tmp_path / "lang" / "_CoqProject").write_text("-R . Lang\n")
    (tmp_path / "lang" / "sub" / "_CoqProject").write_text("-R . Sub\n")  # inside lang
    assert prove(str(tmp_path), "--list") == 2
    assert f"these folders have one: {tmp_path / 'lang'}, {folder}; give one of them" in (
        capsys.readouterr().err
    )
    for path in (tmp_path / "lang" / "sub" / "_CoqProject", tmp_path / "lang" / "_CoqProject"):
        path.unlink()
    assert prove(str(folder), "--lemma", "nope", "--list") == 2
    assert capsys.readouterr().err.strip() == (
        "proofsearch prove: --lemma nope: no hole of the selected files matches; "
        "--list shows the holes"
    )
    assert prove(str(folder), "Nope.v", "--list") == 2
    assert "Nope.v: not a .v file of the project" in capsys.readouterr().err
    (folder / "Base.v").write_text(
        FILES["Base.v"].replace("Proof.\nAdmitted.", "Proof.\nreflexivity.\nQed.")
    )
    assert prove(str(folder), "Base.v") == 2
    err = capsys.readouterr().err  # Base.v has none left; the other files have some
    assert len(err.strip().splitlines()) == 1
    assert "no proof of the files named ends in Admitted; 5 hole(s) are in the project's" in err
    # An Admitted proof that is not a hole is said, in --list and before "nothing to do".
    (folder / "Base.v").write_text(FILES["Base.v"] + "Fixpoint half (n : nat) : nat.\nAdmitted.\n")
    assert prove(str(folder), "Base.v", "--list") == 0
    line = "not searched: Base.v:{} half: a Fixpoint is not a hole (holes: lemmas, Examples, "
    assert line.format(FILES["Base.v"].count("\n") + 1) in capsys.readouterr().out
    # A run narrowed to other lemmas does not speak of it (audit 47: on every run).
    assert prove(str(folder), "Base.v", "--lemma", "dbl_*", "--list") == 0
    assert "not searched" not in capsys.readouterr().out
    # `--lemma` naming it says why it is not searched (it said "no hole … matches").
    assert prove(str(folder), "Base.v", "--lemma", "half", "--list") == 2
    assert capsys.readouterr().err.strip() == (
        f"proofsearch prove: --lemma half: half (Base.v:{FILES['Base.v'].count(chr(10)) + 1}) "
        "is not searched: a Fixpoint is not a hole (holes: lemmas, Examples, Definitions, "
        "named Instances, Program obligations and the termination proofs of Functions)"
    )
    (folder / "Base.v").write_text("Fixpoint half (n : nat) : nat.\nAdmitted.\n")
    assert prove(str(folder), "Base.v") == 2
    out, err = capsys.readouterr()
    assert out.startswith("not searched: Base.v:1 half: a Fixpoint is not a hole")
    assert "no hole to search: 1 Admitted proof(s) are not holes (listed above)" in err


@pytest.mark.usefixtures("no_new_coq_processes")
def test_diff_write_and_rebuild(
    tmp_path: Path, cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_project(tmp_path)
    patch = tmp_path / "holes.patch"
    results = tmp_path / "results.jsonl"
    common = ["--generator", STAND_IN, "--timeout", "60", "--output", str(results)]
    assert prove(str(folder), *common, "--patch", str(patch)) == 0
    out = capsys.readouterr().out
    assert patch.read_text() == expected_diff()
    for name, text in FILES.items():  # a dry run writes nothing
        assert (folder / name).read_text() == text
    assert "left Admitted: Sec.v:13 zero_zero: breaks Top.v:3:" in out
    assert "inside a Section: Qed generalises the lemma" in out
    assert (
        "left Admitted: Mod.v:8 Arith2.impossible: goal 1 left at Admitted: no proof: search "
        "tree exhausted; from the statement: no proof: search tree exhausted"
    ) in " ".join(out.split())
    # The run's trace records the project's loadpath: check --index re-checks its proofs.
    (run,) = (cache / "proofsearch" / "prove").iterdir()
    check = ["check", str(results), str(run / "theorems.jsonl"), "--index", str(run / "trace")]
    assert main(check) == 0
    assert "re-checked 5 proof(s): 5 passed" in capsys.readouterr().out
    full = tmp_path / "full.patch"
    assert prove(str(folder), *common, "--full-names", "--patch", str(full)) == 0
    assert full.read_text() == expected_diff().replace(
        "apply PeanoNat.Nat.add_comm.", "apply Coq.Arith.PeanoNat.Nat.add_comm."
    )
    capsys.readouterr()

    assert prove(str(folder), *common, "--resume", "--write") == 0
    for name in ORDER:
        assert (folder / name).read_bytes() == FILLED[name].encode(), name
    build(folder)

    summary = json.loads((tmp_path / "results.jsonl.prove.json").read_text())
    assert summary["written"] is True
    assert [f["name"] for f in summary["files"]["Sec.v"]["filled"]] == ["f_twice"]
    assert [f["name"] for f in summary["files"]["Sec.v"]["left"]] == ["zero_zero"]
    report = tmp_path / "report"
    assert main(["report", str(results), "--out", str(report)]) in (0, 1)
    text = (report / "report.md").read_text()
    assert "Holes left" in text and "Arith2.impossible" in text and "apply f_id." in text
    # A later run, the filled holes gone, keeps their theorem lines (the results file
    # keeps their results): check still finds every proof's theorem (it said "not in").
    assert prove(str(folder), *common) == 0
    capsys.readouterr()
    assert main(check) == 0
    assert "re-checked 5 proof(s): 5 passed" in capsys.readouterr().out


@pytest.mark.usefixtures("no_new_coq_processes")
def test_shipped_generators_fill_and_keep_the_build(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_project(tmp_path)
    assert prove(str(folder), "--timeout", "40", "--write") == 0
    out = capsys.readouterr().out
    assert (folder / "Mod.v").read_text().count("Admitted.") == 1  # impossible
    assert "Arith2.impossible" in out
    assert "Proof.\nAdmitted." not in (folder / "Base.v").read_text()  # dbl_add filled
    assert "Proof. Admitted." not in (folder / "Top.v").read_text()  # top_twice filled
    assert "Lemma zero_zero : 0 = 0.\n  Admitted." in (folder / "Sec.v").read_text()
    build(folder)


def test_kill_then_resume(tmp_path: Path, cache: Path) -> None:
    folder = write_project(tmp_path)
    results = tmp_path / "results.jsonl"
    log = tmp_path / "asked.log"
    hang = tmp_path / "hang"
    hang.touch()
    # The same options both times: a resume with other settings searches open holes again.
    command = [
        sys.executable, "-m", "proofsearch.cli", "prove", str(folder), "--quiet",
        "--no-library-trace", "--generator", STAND_IN, "--output", str(results),
        "--gen-option", f"log={log}", "--gen-option", "hang_on=zero_zero",
        "--gen-option", f"hang_while={hang}",
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"}
    process = subprocess.Popen(
        command,
        cwd=ROOT, env=env, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 600
        while "zero_zero" not in (log.read_text() if log.exists() else ""):
            assert process.poll() is None, "prove ended before it reached the hole"
            assert time.monotonic() < deadline
            time.sleep(0.5)
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    done = [json.loads(line)["name"] for line in results.read_text().splitlines()]
    assert done == ["Base.v:dbl_add", "Mod.v:Arith2.add_comm'", "Mod.v:Arith2.impossible#rest1",
                    "Sec.v:f_twice"]  # fmt: skip
    log.unlink()
    hang.unlink()
    again = subprocess.run(
        [*command, "--resume", "--write"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert again.returncode == 0, again.stderr
    # The goal ``intros n.`` left unproved, ``impossible`` is searched whole at the end.
    assert log.read_text().splitlines() == ["zero_zero", "top_twice", "Arith2.impossible"]
    for name in ORDER:
        assert (folder / name).read_text() == FILLED[name]
    build(folder)


def test_dune_project_and_a_file_edited_during_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_project(tmp_path, dune=True)
    assert prove(str(folder), "--list") == 0
    assert capsys.readouterr().out.splitlines() == HOLES
    edit = json.dumps(["Arith2.add_comm'", str(folder / "Mod.v")])
    code = prove(
        str(folder), "--generator", STAND_IN, "--gen-option", f"edit={edit}", "--write",
        "--output", str(tmp_path / "r.jsonl"),
    )  # fmt: skip
    captured = capsys.readouterr()
    assert code == 1
    assert "Mod.v changed since it was" in captured.out + captured.err
    mod = (folder / "Mod.v").read_text()
    assert mod == FILES["Mod.v"] + "(* edited during the run *)\n"
    assert (folder / "Base.v").read_text() == FILLED["Base.v"]
    # Top.v loads Mod.v: its proofs were found against Mod.v's old text, so they wait
    # for the next run (audit 43-b: an edit there broke the file a proof was written in).
    assert (folder / "Top.v").read_text() == FILES["Top.v"]
    assert "Mod.v, which Top.v loads, changed since it was read" in captured.out

    # Again: the results of unchanged files are reused; changed files' holes are searched.
    log = tmp_path / "asked.log"
    again = [str(folder), "--generator", STAND_IN, "--gen-option", f"log={log}"]
    assert prove(*again, "--write", "--output", str(tmp_path / "r.jsonl")) == 0
    # (Sec.v changed only by the first run's write: zero_zero's result is reused.)
    # (impossible: the goal its ``intros n.`` left, then the statement.)
    asked = ["Arith2.add_comm'", "Arith2.impossible_rest1", "Arith2.impossible"]
    assert log.read_text().splitlines() == asked
    assert (folder / "Mod.v").read_text() == FILLED["Mod.v"] + "(* edited during the run *)\n"
    assert (folder / "Top.v").read_text() == FILLED["Top.v"]  # re-checked, not searched
    # dune refuses a source tree holding build products it did not make ("Multiple rules
    # generated"): the compiled files went to the cache.
    products = {".vo", ".vos", ".vok", ".glob", ".aux"}
    assert [p.name for p in folder.rglob("*") if p.suffix in products] == []


@pytest.mark.ray
def test_two_ray_workers(tmp_path: Path, cache: Path) -> None:
    folder = write_project(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "proofsearch.cli", "prove", str(folder), "--workers", "2",
         "--no-library-trace", "--generator", STAND_IN, "--write", "--output",
         str(tmp_path / "r.jsonl")],
        cwd=ROOT, capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "a proof found is learned by the worker that found it" in done.stderr
    for name in ORDER:
        assert (folder / name).read_text() == FILLED[name], name


def test_a_file_whose_holes_cannot_open_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The file names itself (``Self.A.one``): coqc accepts it, but its prefix run as a
    header (another module) does not, so no hole of it can be opened."""
    folder = small_project(
        tmp_path / "self",
        "-R . Self\n",
        {
            "A.v": "Definition one := 1.\nDefinition also_one := Self.A.one.\n"
            "Lemma l1 : also_one = 1.\nProof. Admitted.\nLemma l2 : one = 1.\nAdmitted.\n"
        },
    )
    assert prove(str(folder), "--generator", STAND_IN, "--output", str(tmp_path / "r.jsonl")) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert err.startswith("proofsearch prove: A.v: no hole could be opened: ")
    assert "Self.A.one" in err and "; make the file" in err
    # Beside a file whose holes open, the run goes on: that file's proof is written.
    (folder / "B.v").write_text(
        "Lemma dbl_add : 1 = 1.\nProof. Admitted.\n"
    )  # stand-in: reflexivity
    args = ["--generator", STAND_IN, "--write", "--output", str(tmp_path / "r2.jsonl")]
    assert prove(str(folder), *args) == 1
    assert "Qed." in (folder / "B.v").read_text() and "Admitted" in (folder / "A.v").read_text()
    assert "A.v: no hole could be opened: " in capsys.readouterr().err


ADMITS = """\
Require Import Lia.

Lemma both : forall n : nat, n + 0 = n /\\ 0 + n = n.
Proof.
  intros n. split.
  - admit.
  - (* the second *) admit.
Admitted.
"""


def prove_one_file(tmp_path: Path, name: str, text: str) -> tuple[Path, Path]:
    """A one-file project (logical name ``Adm``) proved with ``--write`` by the stand-in
    generator: its folder, and the log of the holes the generator was asked about."""
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "_CoqProject").write_text(f"-R . Adm\n{name}\n")
    (folder / name).write_text(text)
    log = tmp_path / "asked.log"
    args = ["--generator", STAND_IN, "--gen-option", f"log={log}", "--write"]
    assert prove(str(folder), *args, "--output", str(tmp_path / "r.jsonl")) == 0
    return folder, log


def test_admit_steps_are_searched_one_by_one(tmp_path: Path) -> None:
    folder, log = prove_one_file(tmp_path, "A.v", ADMITS)
    assert log.read_text().splitlines() == ["both_admit1", "both_admit2"]
    assert (folder / "A.v").read_text() == ADMITS.replace(
        "  - admit.\n  - (* the second *) admit.\nAdmitted.\n",
        "  - { revert n. intros n; lia. }\n"
        "  - (* the second *) { revert n. intros n; reflexivity. }\nQed.\n",
    )
    done = subprocess.run(["coqc", "-R", ".", "Adm", "A.v"], cwd=folder, capture_output=True)
    assert done.returncode == 0, done.stderr


UNIVERSES = """\
Require Import List.
Set Printing Universes.

Lemma universes : forall (A : Type) (l : list A), length (l ++ nil) = length l /\\ True.
Proof.
  intros A l. split.
  - admit.
  - exact I.
Admitted.
"""


def test_an_admit_under_the_files_printing_universes(tmp_path: Path) -> None:
    """The goal at ``admit.`` is printed ``A : Type@{Adm.U.1}`` under the file's own
    ``Set Printing Universes``; its statement must still parse (the universe cannot be
    named), so that the user's tactics are kept."""
    folder, log = prove_one_file(tmp_path, "U.v", UNIVERSES)
    assert log.read_text().splitlines() == ["universes_admit1"]
    assert (folder / "U.v").read_text() == UNIVERSES.replace(
        "  - admit.\n  - exact I.\nAdmitted.\n",
        "  - { revert A l. intros A l; rewrite app_nil_r; reflexivity. }\n  - exact I.\nQed.\n",
    )
    done = subprocess.run(["coqc", "-R", ".", "Adm", "U.v"], cwd=folder, capture_output=True)
    assert done.returncode == 0, done.stderr


def test_a_part_that_cannot_be_searched_is_said_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An ``admit.`` on a goal printed with an only-printing notation cannot be a
    statement: the hole is searched from its statement, and the line says why."""
    text = (
        'Notation "< x >" := (S x) (at level 0, only printing).\n'
        "Lemma witness : forall n : nat, S n = n + 1.\nProof.\n  intros n. admit.\nAdmitted.\n"
    )
    folder, log = prove_one_file(tmp_path, "W.v", text)
    assert log.read_text().splitlines() == ["witness"]
    captured = capsys.readouterr()
    out = " ".join((captured.out + captured.err).split())
    assert "1 part(s) could not be searched, such as W.v:witness#admit1: " in out
    assert "rewrite <- plus_n_Sm" in (folder / "W.v").read_text()


def test_a_brace_left_open_is_closed(tmp_path: Path) -> None:
    """The goal left inside the user's open ``{`` is proved in a block after it, and the
    brace is closed before ``Qed`` (it was left open: "This proof is focused")."""
    text = (
        "Lemma brace : forall n : nat, n = n /\\ 0 + n = n.\nProof.\n  intros n. split.\n"
        "  { reflexivity. }\n  {\nAdmitted.\n"
    )
    folder, log = prove_one_file(tmp_path, "B.v", text)
    assert log.read_text().splitlines() == ["brace_rest1"]
    assert (folder / "B.v").read_text() == text.replace(
        "  {\nAdmitted.\n", "  {\n  { revert n. intros n; reflexivity. }\n  }\nQed.\n"
    )
    done = subprocess.run(["coqc", "-R", ".", "Adm", "B.v"], cwd=folder, capture_output=True)
    assert done.returncode == 0, done.stderr


def test_a_definition_is_filled_transparent_and_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ``Definition`` by tactics ends ``Defined.`` (its value computes, as the user's
    would), and a line says its value is whatever the search found."""
    text = "Definition two : {n : nat | n = 2}.\nProof.\nAdmitted.\n"
    folder, _ = prove_one_file(tmp_path, "D.v", text)
    assert (folder / "D.v").read_text() == text.replace(
        "Admitted.\n", "  exists 2; reflexivity.\nDefined.\n"
    )
    assert "definition filled: D.v:1 two: its value is the proof found" in capsys.readouterr().out
    (folder / "Use.v").write_text(
        "From Adm Require Import D.\nExample computes : proj1_sig two = 2 := eq_refl.\n"
    )
    for file in ("D.v", "Use.v"):
        done = subprocess.run(["coqc", "-R", ".", "Adm", file], cwd=folder, capture_output=True)
        assert done.returncode == 0, done.stderr


DATA = """\
Require Import RelationClasses.
Definition f : nat -> nat.
Admitted.
Lemma some_nat : nat.
Proof.
Admitted.
Class Inhab (A : Type) := { inhab : A }.
Instance inhab_nat : Inhab nat.
Admitted.
Definition two : {n : nat | n = 2}.
Proof.
Admitted.
Class Pointed (A : Type) := { point : A; point_ok : point = point }.
Instance nat_pointed : Pointed nat.
Admitted.
Instance le_refl : Reflexive le.
Admitted.
"""


def test_a_hole_whose_type_is_data_is_left_and_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`Definition f : nat -> nat` is a function still to write: the identity would
    type-check and was written (with `Qed.`). A definition whose type is data is left,
    said why; one whose type carries a proposition (`{n | n = 2}`) is searched and
    filled; a lemma is always searched (a `Lemma` in `Type` is most often a
    proof-relevant proposition, which the probe could not tell from data)."""
    folder, log = prove_one_file(tmp_path, "D.v", DATA)
    assert log.read_text().splitlines() == ["some_nat", "two", "nat_pointed", "le_refl"]
    assert (folder / "D.v").read_text() == DATA.replace(
        "{n : nat | n = 2}.\nProof.\nAdmitted.\n",
        "{n : nat | n = 2}.\nProof.\n  exists 2; reflexivity.\nDefined.\n",
    ).replace("nat.\nProof.\nAdmitted.\n", "nat.\nProof.\n  exact 0.\nQed.\n").replace(
        "Pointed nat.\nAdmitted.\n", "Pointed nat.\nProof.\n  now exists 0.\nDefined.\n"
    ).replace("Reflexive le.\nAdmitted.\n", "Reflexive le.\nProof.\n  intros n; auto.\nDefined.\n")
    out = capsys.readouterr().out
    for line, name in ((2, "f"), (8, "inhab_nat")):
        assert f"left Admitted: D.v:{line} {name}: its type is data, not a proposition" in out
    assert "no hole could be opened" not in out
    # An instance with a data field got an arbitrary point without a word: it is said; an
    # instance that is a proof (Reflexive) is not.
    assert "instance filled: D.v:14 nat_pointed: its value is the proof found" in out
    assert "le_refl: its value" not in out
    said = json.loads((tmp_path / "r.jsonl.prove.json").read_text())
    filled = said["files"]["D.v"]["filled"]
    definitions = {item["name"] for item in filled if item.get("definition")}
    assert definitions == {"two", "nat_pointed"}


def test_a_project_without_the_prelude_has_its_type_valued_holes_searched(
    tmp_path: Path,
) -> None:
    """Under `-noinit` (HoTT, UniMath) propositions are types: `paths x x : Type` is no
    `Prop`, and the data probe would refuse every hole. There it is not run."""
    folder = tmp_path / "noinit"
    folder.mkdir()
    (folder / "_CoqProject").write_text("-R . Adm\n-arg -noinit\nH.v\n")
    plugin = "rocq-runtime.plugins.ltac" if binary_version("coqc").rocq else "ltac_plugin"
    (folder / "H.v").write_text(
        f'Declare ML Module "{plugin}".\nGlobal Set Default Proof Mode "Classic".\n'
        # The probe's tactics, as the prelude defines them: so the probe could run.
        'Tactic Notation "assert_fails" tactic3(t) := tryif t then gfail 0 "ok" else idtac.\n'
        'Tactic Notation "assert_succeeds" tactic3(t) := '
        'tryif (assert_fails t) then gfail 0 "fails" else idtac.\n'
        # HoTT's: polymorphic, so Coq does not lower it to Prop.
        "#[universes(polymorphic, cumulative)]\n"
        "Inductive paths {A : Type} (a : A) : forall _ : A, Type := idpath : paths a a.\n"
        "Inductive unit : Type := tt : unit.\n"
        "Definition tt_path : paths tt tt.\nProof.\nAdmitted.\n"
    )
    log = tmp_path / "asked.log"
    args = ["--generator", STAND_IN, "--gen-option", f"log={log}", "--write"]
    assert prove(str(folder), *args, "--output", str(tmp_path / "r.jsonl")) == 0
    assert log.read_text().splitlines() == ["tt_path"]
    assert "Admitted." not in (folder / "H.v").read_text()


def test_a_write_run_that_fills_nothing_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its table was titled "prove: written" with nothing written."""
    text = "Lemma no_proof_known : False.\nAdmitted.\n"
    folder, _ = prove_one_file(tmp_path, "N.v", text)
    assert (folder / "N.v").read_text() == text
    out = capsys.readouterr().out
    assert "prove: nothing to write" in out and "prove: written" not in out


LTAC2 = """\
Require Import Lia.
From Ltac2 Require Import Ltac2.

Lemma linear : forall n : nat, 2 * n <= 3 * n.
Proof.
Admitted.

Lemma begun : forall n : nat, n + 0 = n /\\ 1 = 1.
Proof.
  intros n. split.
  - admit.
  - reflexivity.
Admitted.
"""


def test_a_file_in_ltac2s_proof_mode(tmp_path: Path) -> None:
    """Where Ltac2 is the default proof mode, Ltac1's `lia` is no tactic: the search
    runs in Ltac1's mode, and the written proof says so for itself (`Proof Mode`), or
    for its block only, amid the user's Ltac2 tactics."""
    folder, log = prove_one_file(tmp_path, "L.v", LTAC2)
    assert log.read_text().splitlines() == ["linear", "begun_admit1"]
    assert (folder / "L.v").read_text() == LTAC2.replace(
        "Proof.\nAdmitted.\n", 'Proof.\n  Proof Mode "Classic".\n  intros n; lia.\nQed.\n'
    ).replace(
        "  - admit.\n  - reflexivity.\nAdmitted.\n",
        '  - { Proof Mode "Classic". revert n. intros n; lia. Proof Mode "Ltac2". }\n'
        "  - reflexivity.\nQed.\n",
    )
    done = subprocess.run(["coqc", "-R", ".", "Adm", "L.v"], cwd=folder, capture_output=True)
    assert done.returncode == 0, done.stderr


def test_a_proof_using_clause_is_part_of_the_search(tmp_path: Path) -> None:
    """A proof that uses the section hypothesis `Proof using -(H0).` excludes is refused
    by the re-check (it failed only at the rebuild, and the hole stayed Admitted), and the
    search goes on to one that does not."""
    text = (
        "Section Sec.\n  Variable x y : nat.\n  Hypothesis H0 : x + 0 = x.\n"
        "  Hypothesis Hxy : x = y.\n  Lemma u2 : y = x.\n  Proof using -(H0).\n"
        "  Admitted.\nEnd Sec.\n"
    )
    folder, _ = prove_one_file(tmp_path, "U.v", text)
    assert (folder / "U.v").read_text() == text.replace(
        "  Admitted.\n", "    symmetry; exact Hxy.\n  Qed.\n"
    )


def test_a_begun_proof_under_proof_using_keeps_the_section_free(tmp_path: Path) -> None:
    """A block that reverted the Section's variables and hypotheses made the proof use
    all of them, and `Proof using Hxy.` broke at `Qed`: they stay free in the part's
    statement, and only the proof's own hypotheses are reverted."""
    text = (
        "Section Sec.\n  Variable x y : nat.\n  Hypothesis H0 : x + 0 = x.\n"
        "  Hypothesis Hxy : x = y.\n  Lemma used : forall n : nat, n = n /\\ x = y.\n"
        "  Proof using Hxy.\n    intros n. split.\n    - reflexivity.\n    - admit.\n"
        "  Admitted.\nEnd Sec.\n"
    )
    folder, log = prove_one_file(tmp_path, "P.v", text)
    assert log.read_text().splitlines() == ["used_admit1"]
    assert (folder / "P.v").read_text() == text.replace(
        "    - admit.\n  Admitted.\n", "    - { revert n. intros n; exact Hxy. }\n  Qed.\n"
    )


def test_the_line_a_proof_breaks_is_the_users(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``breaks FILE:LINE`` names the line of the user's file (line 10, ``Check``), not
    the line of the file with the proofs filled in (12: two proofs gained a line each)."""
    text = (
        "Section Gen.\n  Variable k : nat.\n  Lemma gen_true : 0 + 0 = 0.\n  Proof.\n"
        "  Admitted.\n  Lemma uses_k : k + 0 = k.\n  Proof.\n  Admitted.\nEnd Gen.\n"
        "Check (gen_true 3).\n"
    )
    folder, _ = prove_one_file(tmp_path, "G.v", text)
    out = capsys.readouterr().out
    assert "left Admitted: G.v:3 gen_true: breaks G.v:10: " in out, out
    assert "symmetry; apply plus_n_O" in (folder / "G.v").read_text()


PARTIAL = """\
Require Import Lia.

Lemma add0 : forall n : nat, n + 0 = n.
Proof.
  intros n. induction n.
  - reflexivity.
  - simpl.
Admitted.

Lemma mixed : forall n : nat, n + 0 = n /\\ 0 + n = n.
Proof.
  intros n. split.
  - admit.
  - simpl.
Admitted.

Lemma unfocused : forall n : nat, n + 0 = n /\\ 0 + n = n.
Proof.
  intros n. split.
  - simpl.
Admitted.

Lemma dead : forall n : nat, n = n.
Proof.
  intros n. destruct n.
Admitted.
"""


def test_a_proof_left_unfinished_is_continued_where_it_stopped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The goals open at ``Admitted`` are searched, and their proofs written after the
    user's last tactic; with a goal outside the focus (an unfinished bullet before
    another), the statement is searched whole, and so it is when a goal the user's
    tactics left finds no proof."""
    folder, log = prove_one_file(tmp_path, "P.v", PARTIAL)
    asked = ["add0_rest1", "mixed_admit1", "mixed_rest1", "unfocused", "dead_rest1", "dead_rest2"]
    assert log.read_text().splitlines() == [*asked, "dead"]
    text = (folder / "P.v").read_text()
    expected = PARTIAL.replace(
        "  - simpl.\nAdmitted.\n\nLemma mixed",
        "  - simpl.\n    { revert n IHn. intros n IHn; rewrite IHn; reflexivity. }\nQed.\n\n"
        "Lemma mixed",
    )
    expected = expected.replace(
        "  - admit.\n  - simpl.\nAdmitted.\n",
        "  - { revert n. intros n; lia. }\n  - simpl.\n    { revert n. intros n; reflexivity. }\n"
        "Qed.\n",
    )
    expected = expected.replace(
        "Proof.\n  intros n. split.\n  - simpl.\nAdmitted.\n", "Proof.\n  intros n; lia.\nQed.\n"
    )
    expected = expected.replace(
        "  intros n. destruct n.\nAdmitted.\n", "  intros n; reflexivity.\nQed.\n"
    )
    assert text == expected
    # The user is told which holes' tactics the written proofs drop, and only those.
    replaced = [
        line.split(":")[2] for line in capsys.readouterr().out.splitlines()
        if line.startswith("your tactics replaced: ")
    ]  # fmt: skip
    assert replaced == ["17 unfocused", "23 dead"]
    done = subprocess.run(["coqc", "-R", ".", "Adm", "P.v"], cwd=folder, capture_output=True)
    assert done.returncode == 0, done.stderr


def test_a_proof_resting_on_an_admitted_lemma(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # the table's columns on one line, whatever the terminal
    folder = tmp_path / "rests"
    folder.mkdir()
    (folder / "_CoqProject").write_text("-R . Rest\nA.v\n")
    text = (
        "Lemma ax : forall n : nat, n = S n.\nProof. Admitted.\n\n"
        "Lemma uses_ax : 0 = 1.\nAdmitted.\n"
    )
    (folder / "A.v").write_text(text)
    args = [str(folder), "--generator", STAND_IN, "--output", str(tmp_path / "r.jsonl")]
    assert prove(*args, "--strict", "--write") == 0
    out = capsys.readouterr().out
    # ax is false as stated (n := 0), and said so where a proof rests on it.
    assert "left Admitted: A.v:4 uses_ax: --strict: rests on ax (false as stated), still" in out
    assert (folder / "A.v").read_text() == text
    assert prove(*args, "--write") == 0
    out = capsys.readouterr().out
    assert "rests on Admitted: A.v:4 uses_ax uses ax (false as stated) (Print Assumptions)" in out
    # The table counts it apart (audit 54: a false exercise proves anything).
    assert "of them on Admitted" in out
    rows = [line.split("│") for line in out.splitlines() if line.lstrip("│ ").startswith("A.v")]
    # file, holes (ax, uses_ax), filled, of them on Admitted, left (the time left out)
    assert [[cell.strip() for cell in row[1:6]] for row in rows] == [["A.v", "2", "1", "1", "1"]]
    assert (folder / "A.v").read_text() == text.replace(
        "0 = 1.\nAdmitted.", "0 = 1.\nProof.\n  exact (ax 0).\nQed."
    )


def test_a_proof_resting_on_a_sibling_projects_admitted_lemma(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A workspace of two projects (audit 47): ``lang`` binds ``-Q ../base Base``, whose
    ``dep_ax`` is still ``Admitted``. A proof through it was said "filled", with no
    "rests on Admitted" line, and ``--strict`` wrote it too: only the project's own
    ``Admitted`` lemmas counted, though Base's sources were traced for the run."""
    base, lang = tmp_path / "base", tmp_path / "lang"
    base.mkdir()
    lang.mkdir()
    (base / "B.v").write_text("Lemma dep_ax : forall n : nat, n = S n.\nProof. Admitted.\n")
    subprocess.run(["coqc", "-Q", ".", "Base", "B.v"], cwd=base, check=True)
    (lang / "_CoqProject").write_text("-Q ../base Base\n-R . Lang\nA.v\n")
    text = "From Base Require Import B.\nLemma uses_dep_ax : 0 = 1.\nAdmitted.\n"
    (lang / "A.v").write_text(text)
    args = ["prove", str(lang), "--generator", STAND_IN, "-o", str(tmp_path / "r.jsonl"), "--quiet"]
    assert main([*args, "--strict", "--write"]) == 0  # Base is traced, as a library
    out = capsys.readouterr().out
    assert "left Admitted: A.v:2 uses_dep_ax: --strict: rests on B.dep_ax, still Admitted" in out
    assert (lang / "A.v").read_text() == text
    assert main([*args, "--write"]) == 0
    out = capsys.readouterr().out
    assert "rests on Admitted: A.v:2 uses_dep_ax uses B.dep_ax (Print Assumptions)" in out


AXIOMS_AND_FUNCTORS = """\
Require Import RelationClasses.
#[export] Instance nat_refl : Reflexive (@eq nat).
Proof. Admitted.
Axiom excluded : forall P : Prop, P \\/ ~ P.
Lemma zero_or_not : forall n : nat, n = 0 \\/ n <> 0.
Proof. Admitted.
Module Type T.
  Parameter t : Type.
  Parameter default : t.
End T.
Module Make (Import A : T).
  Definition pick (b : bool) : t := if b then default else default.
  Lemma pick_default : forall b, pick b = default.
  Proof. Admitted.
  Lemma hard : forall x : t, x = default.
  Proof. Admitted.
  Lemma uses_hard : forall x y : t, x = y.
  Proof. Admitted.
End Make.
From Coq Require Import Program.Tactics.
Program Lemma sig_pos (x : {n : nat | n > 0}) : proj1_sig x > 0.
Proof. Admitted.
"""


def test_instances_axioms_and_holes_inside_a_functor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An ``Instance`` and a ``Program Lemma`` are holes; a user's proof may rest on the
    axioms the user's own development makes available (here its own ``Axiom``; the
    Reals' axioms likewise);
    a hole inside a functor is filled (re-checked in place, ``env/coq/checker.py``), and
    one resting on another hole inside the functor is reported as such."""
    folder = tmp_path / "functors"
    folder.mkdir()
    (folder / "_CoqProject").write_text("-R . Fun\nF.v\n")
    (folder / "F.v").write_text(AXIOMS_AND_FUNCTORS)
    args = [str(folder), "--generator", STAND_IN, "--output", str(tmp_path / "r.jsonl")]
    assert prove(*args, "--write") == 0
    out = capsys.readouterr().out
    assert "rests on Admitted: F.v:17 Make.uses_hard uses Make.hard (Print Assumptions)" in out
    written = (folder / "F.v").read_text()
    assert written == (
        AXIOMS_AND_FUNCTORS.replace(
            # An Instance ends Defined. (its value computes, as one given with := would)
            "(@eq nat).\nProof. Admitted.",
            "(@eq nat).\nProof.\n  intros x; reflexivity.\nDefined.",
        )
        .replace("n <> 0.\nProof. Admitted.", "n <> 0.\nProof.\n  intros n; apply excluded.\nQed.")
        .replace(
            "default.\n  Proof. Admitted.\n  Lemma hard",
            "default.\n  Proof.\n    intros []; reflexivity.\n  Qed.\n  Lemma hard",
        )
        .replace(
            "x = y.\n  Proof. Admitted.",
            "x = y.\n  Proof.\n    intros x y; rewrite (hard x), (hard y); reflexivity.\n  Qed.",
        )
        .replace(
            "> 0.\nProof. Admitted.", "> 0.\nProof.\n  destruct x as [n H]; simpl; exact H.\nQed."
        )
    )
    assert written.count("Admitted.") == 1  # hard
    done = subprocess.run(
        ["coqc", "-R", ".", "Fun", "F.v"], cwd=folder, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


#: Holes inside a functor whose proofs need its parameter's axiom (`X.op_comm`) and
#: the functor's own earlier lemma (`twice_idem`, twice): neither was offered.
FUNCTOR_PREMISES = """Module Type T.
  Parameter t : Type.
  Parameter op : t -> t -> t.
  Axiom op_comm : forall a b, op a b = op b a.
End T.
Module F (X : T).
  Definition twice a := X.op a a.
  Axiom twice_idem_ax : forall a, twice (twice a) = twice a.
  Lemma twice_idem : forall a, twice (twice a) = twice a.
  Proof. exact twice_idem_ax. Qed.
  Lemma f_comm : forall a b, X.op a b = X.op b a.
  Proof.
  Admitted.
  Lemma use_own : forall a, twice (twice (twice a)) = twice a.
  Proof.
  Admitted.
End F.
"""


def test_a_functors_parameter_and_own_lemmas_are_premises_inside_it(tmp_path: Path) -> None:
    """The default generator, on the project's own trace: inside the functor it offers
    `X.op_comm` (named as the body names it) and the functor's earlier `twice_idem`; an
    audit found neither holes filled after 8,795 tactics."""
    written = prove_by_default_and_build(tmp_path, "F.v", FUNCTOR_PREMISES)
    assert "Admitted." not in written
    assert "X.op_comm" in written and written.count("twice_idem") > 2


def prove_by_default_and_build(tmp_path: Path, name: str, text: str) -> str:
    """A one-file project proved with `--write` by the default generator on its own
    trace (20 s a hole); the file as written, checked to build with coqc."""
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "_CoqProject").write_text(f"-R . Own\n{name}\n")
    (folder / name).write_text(text)
    args = [str(folder), "--timeout", "20", "--output", str(tmp_path / "r.jsonl"), "--write"]
    assert prove(*args) == 0
    done = subprocess.run(["coqc", "-R", ".", "Own", name], cwd=folder, capture_output=True)
    assert done.returncode == 0, done.stderr
    return (folder / name).read_text()


#: An audit's setoid project, cut down: the hole needs `rewrite H` with `H : eqmod3 x y`
#: (the project's own equivalence, and its `Proper` fact about `Nat.add`).
SETOID = """Require Import Setoid Morphisms Arith.
Definition eqmod3 (a b : nat) : Prop := a mod 3 = b mod 3.
#[export] Instance eqmod3_equiv : Equivalence eqmod3.
Proof. split; unfold eqmod3; congruence. Qed.
#[export] Instance add_eqmod3_proper : Proper (eqmod3 ==> eqmod3 ==> eqmod3) Nat.add.
Proof.
  intros a b H c d H'. unfold eqmod3 in *.
  rewrite (Nat.add_mod a c), (Nat.add_mod b d), H, H' by discriminate. reflexivity.
Qed.
Lemma rewrite_under_add : forall x y z, eqmod3 x y -> eqmod3 (x + z) (y + z).
Proof.
Admitted.
"""


def test_a_hypothesis_along_the_projects_setoid_relation_is_rewritten(tmp_path: Path) -> None:
    """The default generator on the project's own trace: `rewrite H` along `eqmod3` was
    never offered (an audit's hole left after 30 s); the project's `Equivalence`
    instance makes its relation one the portfolio rewrites along."""
    written = prove_by_default_and_build(tmp_path, "M.v", SETOID)
    assert "Admitted." not in written and "rewrite H" in written, written


#: A hole whose only known route is the proof of a lemma further down: a tactic of the
#: file's own (no generator offers ``crunch`` unless it learned it from that proof).
LATER_PROOF = """Definition f (n : nat) := n + 0.
Ltac crunch := intros; unfold f; rewrite <- plus_n_O; reflexivity.

Lemma hole_first : forall n, f n = n.
Proof. Admitted.

Lemma proved_below : forall m, f m = m.
Proof. crunch. Qed.
"""


@pytest.mark.parametrize("learn_from", ["project", "earlier"])
def test_a_hole_learns_from_a_proof_below_it(tmp_path: Path, cache: Path, learn_from: str) -> None:
    folder = tmp_path / "later"
    folder.mkdir()
    (folder / "_CoqProject").write_text("-R . Later\n")
    (folder / "Later.v").write_text(LATER_PROOF)
    args = ["--generator", "knn", "--timeout", "10", "--learn-from", learn_from, "--write"]
    assert prove(str(folder), *args) == 0
    text = (folder / "Later.v").read_text()
    [theorems] = cache.glob("proofsearch/prove/*/theorems.jsonl")
    [record] = [json.loads(line) for line in theorems.read_text().splitlines()]
    if learn_from == "project":
        assert record["learn_from"] == ["Later.Later"]
        assert "Admitted" not in text and text.count("crunch.") == 2
    else:
        assert "learn_from" not in record
        assert "Proof. Admitted." in text


@pytest.mark.ray
def test_a_hole_learns_from_a_proof_below_it_on_ray_generator_actors(tmp_path: Path) -> None:
    """The same hole on two Ray workers that ask one shared generator actor: the theorem's
    ``learn_from`` must reach the actor's knn, which holds the index, not only the
    workers."""
    folder = tmp_path / "later"
    folder.mkdir()
    (folder / "_CoqProject").write_text("-R . Later\n")
    (folder / "Later.v").write_text(LATER_PROOF)
    done = subprocess.run(
        [sys.executable, "-m", "proofsearch.cli", "prove", str(folder), "--workers", "2",
         "--generator-actors", "1", "--no-library-trace", "--generator", "knn",
         "--timeout", "10", "--write"],
        cwd=ROOT, capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "learned by every generator actor" in done.stderr
    text = (folder / "Later.v").read_text()
    assert "Admitted" not in text and text.count("crunch.") == 2, done.stderr


def test_index_auto_is_what_prove_does_anyway(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--index auto` (search's option) is accepted with a note; other folders are still
    checked, before any trace."""
    folder = write_project(tmp_path)
    missing = tmp_path / "none"
    assert prove(str(folder), "--index", "auto", "--index", str(missing)) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "--index auto: prove always traces what the project loads" in err
    assert f"--index {missing}: not a trace folder" in err


def test_tactics_replaced_by_a_proof_from_the_statement_are_said_even_quietly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`top_twice`'s own `intros n.` leads nowhere the stand-in knows; its statement is
    proved. The line that says so was hidden by --quiet, and the summary file said only
    "filled"."""
    folder = write_project(tmp_path)
    top = (folder / "Top.v").read_text()
    (folder / "Top.v").write_text(top.replace("Proof. Admitted.", "Proof. intros n. Admitted."))
    results = tmp_path / "results.jsonl"
    code = prove(
        str(folder), "Top.v", "--quiet", "--no-library-trace", "--generator", STAND_IN,
        "--output", str(results),
    )  # fmt: skip
    assert code == 0
    assert "1 hole(s) whose own tactics could not be finished" in capsys.readouterr().err
    summary = json.loads((tmp_path / "results.jsonl.prove.json").read_text())
    (filled,) = summary["files"]["Top.v"]["filled"]
    assert filled["name"] == "top_twice" and filled["your_tactics_replaced"] is True
    assert filled["proof"] == ["reflexivity"]


def _logged_project(tmp_path: Path) -> tuple[Path, Path, list[str]]:
    """The test project, the stand-in's log of the holes it is asked, the options."""
    folder = write_project(tmp_path)
    log = tmp_path / "asked.log"
    common = [
        str(folder), "--quiet", "--no-library-trace", "--generator", STAND_IN,
        "--gen-option", f"log={log}", "--output", str(tmp_path / "results.jsonl"),
    ]  # fmt: skip
    return folder, log, common


def test_a_rerun_after_write_searches_nothing_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--write` changed the files it filled; the holes it left there were searched
    again on the next run (an audit: 261 s to find the same six holes open)."""
    folder, log, common = _logged_project(tmp_path)
    assert prove(*common, "--write") == 0
    assert "Arith2.impossible" in log.read_text()
    assert (folder / "Mod.v").read_text() == FILLED["Mod.v"]  # written: its digest changed
    log.unlink()
    capsys.readouterr()
    assert prove(*common) == 0
    assert not log.exists()  # nothing asked: every open hole's result reused
    out = capsys.readouterr().out
    assert re.search(r"left Admitted: Mod.v:\d+ Arith2.impossible: goal 1 left at", out), out
    # A change of the user's own is another matter: that file's holes are searched.
    (folder / "Mod.v").write_text(FILLED["Mod.v"] + "(* edited *)\n")
    assert prove(*common) == 0
    assert "Arith2.impossible" in log.read_text()
    # And so is a file the hole's file loads: what the hole can use may have changed.
    log.unlink()
    (folder / "Base.v").write_text(FILLED["Base.v"] + "(* edited *)\n")
    assert prove(*common) == 0
    assert "Arith2.impossible" in log.read_text().splitlines()


def test_overwrite_with_lemma_forgets_that_holes_results_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An audit's `--lemma X --overwrite` emptied the results file: the next run searched
    seven holes again (206 s)."""
    _, log, common = _logged_project(tmp_path)
    assert prove(*common) == 0
    log.unlink()
    assert prove(*common, "--lemma", "top_twice", "--overwrite") == 0
    assert log.read_text().splitlines() == ["top_twice"]
    log.unlink()
    assert prove(*common) == 0
    assert not log.exists()  # the others' results were kept
    capsys.readouterr()


def test_holes_below_a_value_filled_by_write_are_searched_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--write` filled a `Definition` (`Defined.`: it computes now), and the holes that
    hold by computing it, in its file and in a file loading it, kept their earlier
    result: "no proof", never searched again (an audit's `two_pred = 2`)."""
    folder = small_project(
        tmp_path / "project",
        "-R . Adm\nD.v\nUse.v\n",
        {
            "D.v": "Definition two : {n : nat | n = 2}.\nProof.\nAdmitted.\n"
            "Lemma two_is_2 : proj1_sig two = 2.\nProof.\nAdmitted.\n",
            "Use.v": "From Adm Require Import D.\n"
            "Lemma two_plus : proj1_sig two + 0 = 2.\nProof.\nAdmitted.\n",
        },
    )
    log = tmp_path / "asked.log"
    common = [
        str(folder), "--generator", STAND_IN, "--gen-option", f"log={log}",
        "--output", str(tmp_path / "r.jsonl"),
    ]  # fmt: skip
    assert prove(*common, "--write") == 0
    assert log.read_text().splitlines() == ["two", "two_is_2", "two_plus"]
    assert "Defined." in (folder / "D.v").read_text()
    log.unlink()
    capsys.readouterr()
    assert prove(*common, "--write") == 0
    assert sorted(log.read_text().splitlines()) == ["two_is_2", "two_plus"]
    assert "Admitted" not in (folder / "D.v").read_text() + (folder / "Use.v").read_text()


def test_a_read_only_file_is_not_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file the user made read-only was replaced all the same (by a rename, which its
    mode does not stop), without a word."""
    folder, _, common = _logged_project(tmp_path)
    (folder / "Mod.v").chmod(0o444)
    assert prove(*common, "--write") == 0
    assert (folder / "Mod.v").read_text() == FILES["Mod.v"]
    assert (folder / "Top.v").read_text() == FILLED["Top.v"]
    out = capsys.readouterr().out
    assert "left Admitted: Mod.v:5 Arith2.add_comm': Mod.v is read-only: not written" in out


def test_a_file_the_system_will_not_replace_is_named_and_the_others_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read-only folder or mount (an immutable file for root): `--write` stopped with a
    traceback at that file, the files after it unwritten, no table."""
    from proofsearch.project import patch

    folder, _, common = _logged_project(tmp_path)
    real = patch.write_atomic

    def refuse_mod(path: Path, text: str) -> None:
        if path.name == "Mod.v":
            raise PermissionError(1, "Operation not permitted")
        real(path, text)

    monkeypatch.setattr(patch, "write_atomic", refuse_mod)
    assert prove(*common, "--write") == 1
    assert (folder / "Mod.v").read_text() == FILES["Mod.v"]
    for name in ("Base.v", "Top.v"):  # before and after Mod.v in the order written
        assert (folder / name).read_text() == FILLED[name]
    out, err = capsys.readouterr()
    assert "Mod.v: cannot be written (Operation not permitted): not written" in err
    assert "Arith2.add_comm': Mod.v cannot be written: Operation not permitted" in out
    assert "Traceback" not in err

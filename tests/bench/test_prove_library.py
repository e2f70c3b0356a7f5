"""``benchmarks/prove_library.py``: the sample and the holes, on a tiny made-up library.

The library has what the real one (stdpp) has: a first file that Requires nothing of
the library, a later file with a Section, ``Proof using``, ``Default Proof Using``
unset, a ``Defined`` lemma, a proof without a ``Proof.`` sentence and one-line proofs.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from .conftest import ROOT, requires_coq

BASE = """\
(* The library's first file: nothing of the library before it. *)
Definition double (n : nat) := n + n.
Lemma double_0 : double 0 = 0.
Proof. reflexivity. Qed.
"""

LISTS = """\
From Tiny Require Import base.
Set Default Proof Using "Type".

Lemma double_1 : double 1 = 2.
Proof. reflexivity. Qed.

(** A comment between lemmas stays. *)
Lemma double_S n : double (S n) = S (S (double n)).
Proof.
  unfold double. simpl.
  rewrite <- plus_n_Sm.
  reflexivity.
Qed.

Section with_vars.
  Context (A : Type) (x : A).
  Hypothesis Hx : x = x.

  Lemma uses_Hx : x = x.
  Proof using Hx.
    exact Hx.
  Qed.

  Lemma only_type : A -> A.
  Proof. intros a. exact a. Qed.
End with_vars.

Lemma computed : 1 + 1 = 2.
Proof. reflexivity. Defined.

Lemma no_proof_sentence : 2 = 2.
  reflexivity.
Qed.

Unset Default Proof Using.
Section generalising.
  Variable B : Type.
  Lemma generalised : B -> B.
  Proof. intros b. exact b. Qed.
End generalising.

Lemma last_one : double 2 = 4.
Proof. reflexivity. Qed.
"""


@pytest.fixture(scope="module")
def prove_library() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "prove_library", ROOT / "benchmarks" / "prove_library.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["prove_library"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture()
def theories(tmp_path: Path) -> Path:
    folder = tmp_path / "theories"
    folder.mkdir()
    (folder / "base.v").write_text(BASE)
    (folder / "lists.v").write_text(LISTS)
    return folder


def test_eligibility(prove_library: ModuleType, theories: Path) -> None:
    holes, reasons, requires = prove_library.eligible_lemmas(theories, "Tiny")
    names = [hole.lemma.qualid for hole in holes]
    assert names == ["double_1", "double_S", "uses_Hx", "only_type", "last_one"]
    assert requires == {"base.v": [], "lists.v": ["base"]}
    assert reasons == {
        "no_earlier_material": 1,  # double_0: base.v Requires nothing of Tiny
        "not_qed": 1,  # computed
        "no_proof_sentence": 1,
        "section_generalisation": 1,  # generalised
    }


@pytest.mark.parametrize(
    ("sentence", "modules"),
    [
        ("From Tiny Require Import base lists.", ["base", "lists"]),
        ("Require Import Tiny.Core.RelDec.", ["Core.RelDec"]),  # ExtLib's form
        ("Require Tiny.base Coq.Lists.List.", ["base"]),
        ("Require Import Coq.Lists.List.", []),
        ("Require Import base.", ["base"]),  # MenhirLib's form, under -R
        ("Require Import Bool lists.", ["sub.lists"]),
        ("From Coq Require Import base.", []),
    ],
)
def test_requires_of_either_form(
    prove_library: ModuleType, sentence: str, modules: list[str]
) -> None:
    from proofsearch.env.coq.sentences import split_sentences

    own = frozenset({"base", "sub.lists"})
    assert prove_library._requires(split_sentences(sentence)[0], "Tiny", own) == modules


@pytest.mark.parametrize(
    ("sentence", "modules"),
    [
        ("From mathcomp Require Import ssreflect eqtype fingroup perm.", ["fingroup", "perm"]),
        ("From mathcomp.fingroup Require Import perm.", ["perm"]),
        ("From mathcomp Require Import fingroup.perm.", ["perm"]),
        ("From mathcomp Require Import all_ssreflect.", []),
        ("From Coq Require Import fingroup.", []),
    ],
)
def test_requires_of_a_library_one_level_down(
    prove_library: ModuleType, sentence: str, modules: list[str]
) -> None:
    """math-comp's fingroup loads its own modules as ``From mathcomp Require fingroup``."""
    from proofsearch.env.coq.sentences import split_sentences

    own = frozenset({"fingroup", "perm"})
    found = prove_library._requires(split_sentences(sentence)[0], "mathcomp.fingroup", own)
    assert found == modules


def test_draw_is_deterministic_and_in_file_order(prove_library: ModuleType, theories: Path) -> None:
    holes, _, _ = prove_library.eligible_lemmas(theories, "Tiny")
    first = prove_library.draw(holes, 3, prove_library.SEED)
    again = prove_library.draw(list(reversed(holes)), 3, prove_library.SEED)
    assert [h.name for h in first] == [h.name for h in again]
    assert len(first) == 3
    assert [h.start for h in first] == sorted(h.start for h in first)
    assert len(prove_library.draw(holes, 100, prove_library.SEED)) == len(holes)


def test_holes_keep_proof_using_and_every_other_byte(
    prove_library: ModuleType, theories: Path
) -> None:
    holes, _, _ = prove_library.eligible_lemmas(theories, "Tiny")
    holed = prove_library.make_holes(LISTS, holes)
    assert holed.count("Admitted.") == 5
    assert "Proof using Hx. Admitted." in holed
    assert "exact Hx" not in holed and "plus_n_Sm" not in holed
    # Outside the holes' spans the text is the original, byte for byte.
    pieces, cursor = [], 0
    for hole in sorted(holes, key=lambda h: h.start):
        pieces.append(LISTS[cursor : hole.start])
        cursor = hole.end
    pieces.append(LISTS[cursor:])
    rest = holed
    for piece, hole in zip(pieces, sorted(holes, key=lambda h: h.start), strict=False):
        assert rest.startswith(piece)
        rest = rest[len(piece) :]
        assert rest.startswith(hole.replacement)
        rest = rest[len(hole.replacement) :]
    assert rest == pieces[-1]
    assert "(** A comment between lemmas stays. *)" in holed


def test_records_header_is_the_holed_prefix(prove_library: ModuleType, theories: Path) -> None:
    holes, _, _ = prove_library.eligible_lemmas(theories, "Tiny")
    records = prove_library.holed_records(theories, holes)
    holed_lines = prove_library.make_holes(LISTS, holes).splitlines()
    by_name = {r["qualid"]: r for r in records}
    assert set(by_name) == {h.lemma.qualid for h in holes}
    for record in records:
        assert record["file"] == "theories/lists.v"
        assert holed_lines[record["line"] - 1].lstrip().startswith("Lemma " + record["qualid"])
        assert record["qualid"] not in record["header"]
    # An earlier hole is Admitted in a later one's header, as Coq sees the holed file.
    assert "Admitted." in by_name["only_type"]["header"]
    assert "exact Hx" not in by_name["only_type"]["header"]
    assert by_name["only_type"]["footer"] == "End with_vars."


@requires_coq
def test_holed_library_builds(prove_library: ModuleType, theories: Path, tmp_path: Path) -> None:
    holes, _, _ = prove_library.eligible_lemmas(theories, "Tiny")
    project = tmp_path / "project"
    prove_library.copy_project(theories, project, "Tiny")
    assert (project / "_CoqProject").read_text().startswith("-R theories Tiny\n")
    path = project / "theories" / "lists.v"
    path.write_text(prove_library.make_holes(path.read_text(), holes))
    if shutil.which("coq_makefile") is None:
        pytest.skip("coq_makefile is not installed")
    (project / "_CoqProject").write_text("-Q theories Tiny\ntheories/base.v\ntheories/lists.v\n")
    built = prove_library.build_project(project, 1, tmp_path / "build.log")
    assert built.ok, (tmp_path / "build.log").read_text()
    check = project / "Check.v"
    check.write_text("From Tiny Require Import lists.\nCheck uses_Hx.\n")
    done = subprocess.run(
        ["coqc", "-Q", "theories", "Tiny", "Check.v"],
        cwd=project, capture_output=True, text=True, check=True,
    )  # fmt: skip
    # Proof using kept: the hole is quantified over Hx, as the Qed lemma was.
    assert "x = x -> x = x" in " ".join(done.stdout.split())


def test_compare_counts_per_hole(
    prove_library: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    holes = [("theories/a.v", "x"), ("theories/a.v", "y"), ("theories/b.v", "z")]
    (tmp_path / "sample.json").write_text(
        json.dumps({"holes": [{"file": f, "qualid": q, "line": 1} for f, q in holes]})
    )
    (tmp_path / "hammer").mkdir()
    (tmp_path / "hammer" / "hammer.jsonl").write_text(
        json.dumps({"file": "theories/a.v", "qualid": "x", "status": "proved"}) + "\n"
        + json.dumps({"file": "theories/b.v", "qualid": "z", "status": "open"}) + "\n"
    )  # fmt: skip
    (tmp_path / "prove").mkdir()
    (tmp_path / "prove" / "results.jsonl").write_text(
        json.dumps({"file": "theories/a.v", "qualid": "x", "status": "proved"}) + "\n"
        + json.dumps({"file": "theories/a.v", "qualid": "y", "status": "proved"}) + "\n"
    )  # fmt: skip
    (tmp_path / "prove" / "results.jsonl.prove.json").write_text(
        json.dumps({"files": {"theories/a.v": {"filled": [{"name": "y"}], "left": []}}})
    )
    assert prove_library.main(["compare", "--workdir", str(tmp_path)]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[-1] == "| **all** | **3** | **2** | **2** | **1** | **2** | **1** | **1** | **1** |"
    assert rows[2] == "| theories/a.v | 2 | 2 | 2 | 1 | 1 | 1 | 1 | 1 |"


FUNCTOR = """\
Require Import base.
Module Type T.
  Parameter t : Type.
End T.
Module Make (A : T).
  Lemma in_make : double 0 = 0.
  Proof. reflexivity. Qed.
End Make.
"""


def test_functor_lemmas_only_with_functors(prove_library: ModuleType, theories: Path) -> None:
    """MenhirLib's files Require each other by short name and keep most lemmas in
    functors: ``--functors`` makes those holes (``prove`` fills them), named as ``prove``
    names them, with the functor's parameters for the in-place re-check."""
    (theories / "functor.v").write_text(FUNCTOR)
    holes, reasons, requires = prove_library.eligible_lemmas(theories, "Tiny")
    assert "functor.v" not in {h.lemma.file for h in holes} and reasons["in_functor"] == 1
    holes, _, requires = prove_library.eligible_lemmas(theories, "Tiny", functors=True)
    assert requires["functor.v"] == ["base"]
    (hole,) = [h for h in holes if h.lemma.file == "functor.v"]
    assert hole.lemma.qualid == "Make.in_make"
    (record,) = prove_library.holed_records(theories, [hole])
    assert record["functor_parameters"] == ["A"] and record["footer"] == "End Make."
    assert record["any_axiom"] is True  # hammer's re-check as prove's


SECTIONS = """\
From Tiny Require Import base.
Section S.
  Variable n : nat.
  Hypothesis Hn : n = 0.
  Hypothesis unused : n = n.
  Lemma uses_Hn : double n = 0.
  Proof. rewrite Hn. reflexivity. Qed.
End S.
"""


def test_suggested_proof_using_is_read(prove_library: ModuleType) -> None:
    output = (
        "The proof of a should start with one of the following commands:\n"
        "Proof using H. \nProof using All. \n"
        "The proof of b should start with one of the following commands:\n"
        "Proof using . \nProof using Type*. \n"
        "The proof of c should start with one of the following commands:\n"
        "Proof using x y. \n"
        "The proof of c should start with one of the following commands:\n"
        "Proof using . \n"
        # Coq breaks the line after a long name (math-classes):
        "The proof of invert_monoid_morphism\nshould start with one of the following "
        "commands:\nProof using . \nProof using Type. \n"
    )
    assert prove_library.suggested_proof_using(output) == {
        "a": "Proof using H.",
        "b": "Proof using.",
        "invert_monoid_morphism": "Proof using.",
    }


@requires_coq
def test_a_section_hole_keeps_the_variables_its_proof_used(
    prove_library: ModuleType, theories: Path, tmp_path: Path
) -> None:
    """Where no ``Default Proof Using`` is set (Coq's default, MenhirLib's files),
    ``Admitted`` would generalise ``uses_Hn`` over ``unused`` too (every section
    variable) where ``Qed`` generalised it over ``n`` and ``Hn`` alone: the hole says
    ``Proof using`` what Coq suggests when it compiles the original. (``only_type``,
    under ``Default Proof Using "Type"``, gets no suggestion and stays as it was.)"""
    if shutil.which("coq_makefile") is None:
        pytest.skip("coq_makefile is not installed")
    library = tmp_path / "Tiny"
    shutil.copytree(theories, library)
    (library / "sections.v").write_text(SECTIONS)
    holes, _, _ = prove_library.eligible_lemmas(library, "Tiny")
    chosen = [h for h in holes if h.lemma.qualid in ("uses_Hn", "only_type")]
    assert [h.replacement for h in chosen] == ["Proof. Admitted."] * 2
    made = prove_library.with_proof_using(chosen, library, "Tiny", tmp_path / "original", 1)
    assert [h.replacement for h in made] == ["Proof. Admitted.", "Proof using Hn. Admitted."]


INSTANCES = """\
From Tiny Require Import base.
From Coq Require Import RelationClasses.
#[export] Instance eq_nat_refl : Reflexive (@eq nat).
Proof. intros x. reflexivity. Qed.
Instance : Symmetric (@eq nat).
Proof. intros x y H. symmetry. exact H. Qed.
"""


def test_instances_only_with_instances(prove_library: ModuleType, theories: Path) -> None:
    """``--instances``: a named ``Instance`` with a proof may be a hole (``prove`` fills
    them); an anonymous one never (nothing to name)."""
    (theories / "inst.v").write_text(INSTANCES)
    holes, _, _ = prove_library.eligible_lemmas(theories, "Tiny")
    assert "inst.v" not in {h.lemma.file for h in holes}
    holes, reasons, _ = prove_library.eligible_lemmas(theories, "Tiny", instances=True)
    assert [h.lemma.qualid for h in holes if h.lemma.file == "inst.v"] == ["eq_nat_refl"]
    assert reasons["anonymous_instance"] == 1


def test_bad_command_lines_are_one_line_before_any_work(
    prove_library: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A shortened option is not taken for another (``--functor`` once ran a whole
    prepare as ``--functors``), and a later step without a prepared folder names it."""
    with pytest.raises(SystemExit) as refused:
        prove_library.main(["prepare", "--functor", "--workdir", str(tmp_path / "w")])
    assert refused.value.code == 2 and "--functor" in capsys.readouterr().err
    assert not (tmp_path / "w").exists()
    with pytest.raises(SystemExit) as refused:
        prove_library.main(["build", "--workdir", str(tmp_path / "none")])
    assert refused.value.code == 2
    assert "no prepared sample there" in capsys.readouterr().err


def test_the_probe_module_of_a_library_in_subfolders(
    prove_library: ModuleType, tmp_path: Path
) -> None:
    """math-classes keeps every file in a subfolder (``interfaces/abstract_algebra.v``):
    the probe is a dotted path; stdpp's ``base`` is preferred; no file is one line."""
    library = tmp_path / "MathClasses"
    (library / "theory").mkdir(parents=True)
    (library / "interfaces").mkdir()
    (library / "theory" / "rings.v").write_text("")
    (library / "interfaces" / "abstract_algebra.v").write_text("")
    assert prove_library.first_module(library) == "interfaces.abstract_algebra"
    (library / "base.v").write_text("")
    assert prove_library.first_module(library) == "base"
    with pytest.raises(SystemExit, match=r"holds no \.v file"):
        prove_library.first_module(tmp_path / "empty")


@requires_coq
def test_a_library_inside_a_shared_folder(
    prove_library: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """finmap ships as ``user-contrib/mathcomp/finmap``: its folder is the one below the
    shared ``mathcomp`` (which exists whenever ssreflect is installed, so it says nothing
    of finmap), its logical name ``mathcomp.finmap``; the installed-copy check looks for
    that folder, not ``mathcomp``."""
    top = tmp_path / "contrib" / "mathcomp"
    (top / "finmap").mkdir(parents=True)
    (top / "finmap" / "finmap.v").write_text("")
    assert prove_library.library_folder(top) == top / "finmap"
    (top / "top.v").write_text("")  # a library with files of its own stays itself
    assert prove_library.library_folder(top) == top
    monkeypatch.setenv("COQPATH", str(tmp_path / "contrib"))
    package = "proofsearch-no-such-package"
    seen = prove_library.library_visible(package, "mathcomp.finmap", "finmap")
    assert seen == [f"{tmp_path / 'contrib' / 'mathcomp' / 'finmap'} exists"]
    assert prove_library.library_visible(package, "mathcomp.nothing_here", "x") == []


@pytest.mark.parametrize(
    "contrib",
    [
        "usr/lib/ocaml/coq/user-contrib",  # Debian 12
        "usr/lib/x86_64-linux-gnu/ocaml/5.3.0/coq/user-contrib",  # Debian 13
    ],
)
def test_the_library_folder_of_an_unpacked_package(
    prove_library: ModuleType, tmp_path: Path, contrib: str
) -> None:
    """Debian 13 puts a library under an architecture and OCaml version folder; the
    sources are found there as under Debian 12's layout."""
    shared = tmp_path / contrib / "mathcomp"
    (shared / "finmap").mkdir(parents=True)
    (shared / "finmap" / "finmap.v").write_text("Lemma x : True. Proof. exact I. Qed.\n")
    assert prove_library.unpacked_library(tmp_path) == (shared / "finmap", "mathcomp.finmap")
    assert prove_library.unpacked_library(tmp_path / "usr" / "share") is None


@requires_coq
def test_coq_flags_and_a_subset_of_the_library(
    prove_library: ModuleType, theories: Path, tmp_path: Path
) -> None:
    """HoTT builds only under ``-noinit -indices-matter``: each ``--coq-flag`` is an
    ``-arg`` line of the ``_CoqProject`` (``coq_makefile`` hands it to coqc); a
    ``--subset`` keeps the files named and what they Require, nothing else."""
    if shutil.which("coq_makefile") is None:
        pytest.skip("coq_makefile is not installed")
    library = tmp_path / "Tiny"
    shutil.copytree(theories, library)
    # The prelude has ``_ = _`` at level 70: this file compiles only under -noinit.
    (library / "noinit.v").write_text(
        'Inductive T : Type := t.\nNotation "x = y" := (x y) (at level 10).\n'
    )
    (library / "other").mkdir()
    (library / "other" / "more.v").write_text("From Tiny Require Import noinit.\n")
    project = tmp_path / "project"
    flags = ["-noinit", "-indices-matter"]
    files = prove_library.copy_project(library, project, "Tiny", flags, ["other"])
    assert [f.relative_to(project).as_posix() for f in files] == [
        "theories/noinit.v",
        "theories/other/more.v",
    ]
    assert (project / "_CoqProject").read_text() == (
        "-R theories Tiny\n-arg -noinit\n-arg -indices-matter\n"
        "theories/noinit.v\ntheories/other/more.v\n"
    )
    built = prove_library.build_project(project, 1, tmp_path / "build.log")
    assert built.ok, (tmp_path / "build.log").read_text()
    with pytest.raises(SystemExit, match="--subset nowhere"):
        prove_library.copy_project(library, project, "Tiny", flags, ["nowhere"])


def test_a_librarys_own_plugin_is_kept_and_loadable(
    prove_library: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """relation-algebra loads its own plugin (``Declare ML Module``): the unpacked
    package's ``.cmxs`` was deleted with the compiled proofs, and the library did not
    build. Its findlib folder goes on ``OCAMLPATH``, its ``.cmxs`` folders into the
    ``_CoqProject`` as ``-I``; its ``.vo`` files are still gone."""
    unpacked = tmp_path / "deb" / "unpacked"
    contrib = unpacked / "usr" / "lib" / "ocaml" / "coq" / "user-contrib" / "Lib"
    contrib.mkdir(parents=True)
    (contrib / "A.v").write_text("Lemma a : True. Proof. exact I. Qed.\n")
    (contrib / "lib_plugin.cmxs").write_bytes(b"\0")
    findlib = unpacked / "usr" / "lib" / "ocaml" / "coq-lib"
    findlib.mkdir(parents=True)
    (findlib / "META").write_text('package "plugin" ()\n')
    monkeypatch.setenv("OCAMLPATH", "/elsewhere")
    project = tmp_path / "holed"
    prove_library.copy_project(contrib, project, "Lib")
    lines = (project / "_CoqProject").read_text().splitlines()
    assert lines[:2] == ["-R theories Lib", f"-I {contrib.resolve()}"]
    ocamlpath = os.environ["OCAMLPATH"].split(":")
    assert ocamlpath == [str((unpacked / "usr" / "lib" / "ocaml").resolve()), "/elsewhere"]

"""``bench extract-coq --project``: a small project made here, traced and compiled by
``proofsearch trace``, extracted and validated with real Coq (headers, footers, lines,
axioms exact; entries re-check with their reference proofs; the leak rule on headers
and on the index)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from proofsearch.bench.library import LibraryError, LibraryFile, project_library
from proofsearch.bench.stdlib_extract import extract_file
from proofsearch.bench.stdlib_validate import validate
from proofsearch.env.coq.backend import CoqConfig, CoqProver
from proofsearch.env.coq.sentences import split_sentences
from proofsearch.generate.knn.corpus import load_corpus
from proofsearch.generate.knn.generator import KnnGenerator
from proofsearch.theorem import Theorem

from .conftest import requires_coq, traced_project

pytestmark = requires_coq

A = """\
(* A small project: sections with variables, a module, Proof using. *)
Require Import Arith.

Axiom excluded : forall P : Prop, P \\/ ~ P.

Section Sec.
Variable n : nat.
Hypothesis Hn : 0 < n.

Lemma sec_pos : n <> 0.
Proof using Hn.
  intro H. rewrite H in Hn. inversion Hn.
Qed.

Lemma uses_axiom (P : Prop) : P \\/ ~ P.
Proof. exact (excluded P). Qed.
End Sec.

Module M.
  Section Inner.
  Variable k : nat.
  Lemma in_module : k + 0 = k.
  Proof. rewrite Nat.add_0_r. reflexivity. Qed.
  End Inner.
End M.

Theorem twice (m : nat) : m + m = 2 * m.
Proof. simpl. rewrite Nat.add_0_r. reflexivity. Qed.
"""
B = """\
Require Import Lib.A.

Lemma from_b (j : nat) : j + 0 = j.
Proof. exact (M.in_module j). Qed.
"""

PREFIX = "Require Import Arith.\nAxiom excluded : forall P : Prop, P \\/ ~ P.\n"
SECTION = "Section Sec.\nVariable n : nat.\nHypothesis Hn : 0 < n.\n"
SEC_POS = (
    "Lemma sec_pos : n <> 0.\nProof using Hn.\nintro H.\nrewrite H in Hn.\ninversion Hn.\nQed.\n"
)
USES_AXIOM = "Lemma uses_axiom (P : Prop) : P \\/ ~ P.\nProof.\nexact (excluded P).\nQed.\n"
IN_MODULE = "Lemma in_module : k + 0 = k.\nProof.\nrewrite Nat.add_0_r.\nreflexivity.\nQed.\n"
INNER = "Module M.\nSection Inner.\nVariable k : nat.\n"
#: name → (module, line, header, footer, qualid, reference proof, axioms): each header
#: is the file's prefix, sentence by sentence, comments and blank lines dropped.
EXPECTED = {
    "theories/A.v:sec_pos": (
        "Lib.A", 10, PREFIX + SECTION, "End Sec.", "sec_pos",
        "intro H. rewrite H in Hn. inversion Hn.", [],
    ),
    "theories/A.v:uses_axiom": (
        "Lib.A", 15, PREFIX + SECTION + SEC_POS, "End Sec.", "uses_axiom",
        "exact (excluded P).", ["excluded"],
    ),
    "theories/A.v:M.in_module": (
        "Lib.A", 22, PREFIX + SECTION + SEC_POS + USES_AXIOM + "End Sec.\n" + INNER,
        "End Inner.\nEnd M.", "M.in_module", "rewrite Nat.add_0_r. reflexivity.", [],
    ),
    "theories/A.v:twice": (
        "Lib.A", 27,
        PREFIX + SECTION + SEC_POS + USES_AXIOM + "End Sec.\n" + INNER + IN_MODULE
        + "End Inner.\nEnd M.\n",
        "", "twice", "simpl. rewrite Nat.add_0_r. reflexivity.", [],
    ),
    "theories/B.v:from_b": (
        "Lib.B", 3, "Require Import Lib.A.\n", "", "from_b", "exact (M.in_module j).", [],
    ),
}  # fmt: skip


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    yield from traced_project(tmp_path_factory, "extract", {"A.v": A, "B.v": B})


@pytest.fixture(scope="module")
def entries(project: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    """The whole project through ``bench extract-coq --project`` (every lemma validated)."""
    from proofsearch.cli import main

    root, _ = project
    out = tmp_path_factory.mktemp("entries") / "project.jsonl"
    summary = out.with_suffix(".json")
    argv = ["bench", "extract-coq", "--project", str(root), "--out", str(out), "--jobs", "1",
            "--summary", str(summary), "--quiet"]  # fmt: skip
    assert main(argv) == 0
    counts = json.loads(summary.read_text())
    assert counts["kept"] == 5 and counts["rejected"] == [] and counts["open_failures"] == []
    return [json.loads(line) for line in out.read_text().splitlines()]


def test_headers_footers_lines_and_axioms_are_exact(entries: list[dict]) -> None:
    assert [e["name"] for e in entries] == list(EXPECTED)
    for entry in entries:
        module, line, header, footer, qualid, proof, axioms = EXPECTED[entry["name"]]
        got = (entry["module"], entry["line"], entry["footer"], entry["qualid"])
        assert got == (module, line, footer, qualid), entry["name"]
        assert entry["reference_proof"] == proof, entry["name"]
        assert entry["allowed_axioms"] == axioms, entry["name"]
        assert entry["file"] == entry["name"].split(":")[0]
        assert entry["header"] == header, entry["name"]
    # Proof using is dropped, the statement is one sentence with its keyword.
    assert entries[0]["statement"] == "Lemma sec_pos : n <> 0."


def test_entries_recheck_with_their_reference_proofs(
    project: tuple[Path, Path], entries: list[dict]
) -> None:
    """The search's own re-checker (coqc + Print Assumptions on ``qualid`` after the
    footer, the entry's ``allowed_axioms``) accepts every reference proof; a wrong
    proof is refused, and so is the axiom lemma without its ``allowed_axioms``."""
    root, _ = project
    config = CoqConfig(args=("-R", str(root / "theories"), "Lib"))
    prover = CoqProver(config)
    try:
        for entry in entries:
            record = dict(entry)
            theorem = Theorem(record.pop("name"), record.pop("statement"), record.pop("header"),
                              extra=record)  # fmt: skip
            proof = [s.text.removesuffix(".") for s in split_sentences(entry["reference_proof"])]
            checked = prover.check(theorem, proof)
            assert checked.ok, (entry["name"], checked)
        axiom = entries[1]
        record = {k: v for k, v in axiom.items() if k not in ("name", "statement", "header")}
        record["allowed_axioms"] = []
        bare = Theorem(axiom["name"], axiom["statement"], axiom["header"], extra=record)
        assert not prover.check(bare, ["exact (excluded P)"]).ok
        assert not prover.check(bare, ["left; exact I"]).ok
    finally:
        prover.close()


def test_header_that_loads_the_lemmas_module_is_rejected(project: tuple[Path, Path]) -> None:
    """Leak rule, on Coq's own ``Print Libraries``: ``Lib.A`` is loaded by the later file
    ``Lib.B``, so a header requiring ``Lib.B`` puts a compiled ``Lib.A`` (the lemma
    itself) in reach. Such a lemma of ``Lib.A`` is rejected; A's real prefix is not."""
    root, _ = project
    args = ("-R", str(root / "theories"), "Lib")
    evil_root = root.parent / "evil"
    evil_root.mkdir(exist_ok=True)
    evil = evil_root / "A.v"
    evil.write_text("Require Import Lib.B.\n\nLemma twice (m : nat) : m + m = 2 * m.\n"
                    "Proof. simpl. rewrite <- plus_n_O. reflexivity. Qed.\n")  # fmt: skip
    leaky = extract_file(evil, evil_root, module="Lib.A").lemmas[0]
    verdict = validate(leaky, args=args)
    assert (verdict.ok, verdict.reason) == (False, "header_leaks")
    assert "Lib.A" in verdict.message
    honest = extract_file(evil, evil_root, module="Lib.Evil").lemmas[0]
    assert validate(honest, args=args).ok
    library = project_library(root)
    lemma = next(x for x in library.extract().lemmas if x.qualid == "twice")
    assert lemma.module == "Lib.A" and validate(lemma, args=args).ok


def test_index_hides_the_lemmas_module_and_later_files(project: tuple[Path, Path]) -> None:
    """Leak rule, on the index: from ``Lib.A`` at ``in_module``, neither B's proof
    (``Lib.B`` requires ``Lib.A``: a later module) nor A's own later proofs are
    suggested; placed in ``Lib.B``, B's earlier proof is."""
    _, trace = project
    knn = KnnGenerator(load_corpus(trace))
    state = "j : nat\n============================\nj + 0 = j"
    in_a = Theorem("a", "L", extra={"module": "Lib.A", "line": 22})
    seen = [s.tactic for s in knn.generate(state, in_a, 100)]
    assert not any("in_module" in t or "add_0_r" in t for t in seen), seen
    after_b = Theorem("b", "L", extra={"module": "Lib.B", "line": 100})
    assert "exact (M.in_module j)" in [s.tactic for s in knn.generate(state, after_b, 100)]


def test_bad_project_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from proofsearch.cli import main

    with pytest.raises(LibraryError, match=r"no _CoqProject \(or _RocqProject\) and no dune"):
        project_library(tmp_path)
    argv = ["bench", "extract-coq", "--project", str(tmp_path / "missing"), "--out",
            str(tmp_path / "x.jsonl")]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "missing" in err[0] and "no such folder" in err[0]
    unbuilt = tmp_path / "unbuilt"
    (unbuilt / "theories").mkdir(parents=True)
    (unbuilt / "_CoqProject").write_text("-R theories Lib\n")
    (unbuilt / "theories" / "A.v").write_text("Lemma a : True.\nProof. exact I. Qed.\n")
    argv = ["bench", "extract-coq", "--project", str(unbuilt), "--out", str(tmp_path / "x")]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "theories/A.v is not compiled" in err[0]
    argv = ["bench", "extract-coq", "--library", "no.such.lib", "--out", str(tmp_path / "x")]
    assert main(argv) == 2
    assert "no.such.lib" in capsys.readouterr().err


def test_dune_project_maps_its_theory(tmp_path: Path) -> None:
    (tmp_path / "theories").mkdir()
    (tmp_path / "theories" / "dune").write_text("(coq.theory\n (name Foo)\n (package foo))\n")
    (tmp_path / "theories" / "X.v").write_text("Lemma x : True.\nProof. exact I. Qed.\n")
    library = project_library(tmp_path)
    assert library.files == [
        LibraryFile(tmp_path / "theories" / "X.v", "theories/X.v", "Foo.X", "Foo.X")
    ]
    assert library.args == ["-Q", str(tmp_path / "theories"), "Foo"]


def test_an_installed_library_that_requires_by_short_name_validates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Flocq's files ``Require Import Zaux Raux`` by short name, which resolves only under
    the ``-R`` of the library's own build (installed, ``user-contrib`` is bound as with
    ``-Q``): ``--library`` must give its headers that ``-R``, or every lemma of a later
    file is rejected with ``header_fails``."""
    import subprocess

    import proofsearch.env.coq.version as version
    from proofsearch.bench.library import installed_library
    from proofsearch.cli import main

    where = tmp_path / "where"
    folder = where / "user-contrib" / "Short"
    folder.mkdir(parents=True)
    (folder / "A.v").write_text(
        "Definition two := 2.\nLemma two_eq : two = 2.\nProof. reflexivity. Qed.\n"
    )
    (folder / "B.v").write_text(
        "Require Import A.\nLemma two_plus : two + 0 = 2.\nProof. reflexivity. Qed.\n"
    )
    for name in ("A.v", "B.v"):
        subprocess.run(["coqc", "-R", str(folder), "Short", str(folder / name)], check=True)
    monkeypatch.setattr(version, "coq_where", lambda coqc="coqc": where)
    library = installed_library("Short")
    assert library.args == ["-R", str(folder), "Short"]
    out = tmp_path / "short.jsonl"
    summary = tmp_path / "short.json"
    argv = ["bench", "extract-coq", "--library", "Short", "--only", "B.v", "--out", str(out),
            "--jobs", "1", "--open-check", "off", "--summary", str(summary), "--quiet"]  # fmt: skip
    assert main(argv) == 0
    counts = json.loads(summary.read_text())
    assert counts["kept"] == 1 and counts["rejected"] == [], counts
    (entry,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert entry["module"] == "Short.B" and entry["header"] == "Require Import A.\n"


INSTANCES = """\
Require Import Coq.Classes.Morphisms Coq.Setoids.Setoid.
Definition twice (n : nat) := n + n.
Instance twice_proper : Proper (eq ==> eq) twice.
Proof. intros x y ->. reflexivity. Qed.
Instance : Proper (eq ==> eq ==> eq) plus.
Proof. intros x y -> a b ->. reflexivity. Qed.
Lemma twice_0 : twice 0 = 0.
Proof. reflexivity. Qed.
"""


def test_named_instances_are_counted_and_entries_with_instances(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """On a typeclass library a fifth of the proofs were Instances: left out without a
    word (not found, not skipped), with no option to keep them (an audit, math-classes)."""
    import subprocess

    from proofsearch.cli import main

    (tmp_path / "_CoqProject").write_text("-R . Inst\nI.v\n")
    (tmp_path / "I.v").write_text(INSTANCES)
    built = subprocess.run(["coqc", "-R", ".", "Inst", "I.v"], cwd=tmp_path, capture_output=True)
    assert built.returncode == 0, built.stderr
    out = tmp_path / "x.jsonl"
    argv = ["bench", "extract-coq", "--project", str(tmp_path), "--out", str(out), "--quiet"]
    assert main([*argv, "--open-check", "off"]) == 0
    captured = capsys.readouterr()
    said = captured.out + captured.err
    assert "named Instances left out: 1 (--instances makes those with a proof entries" in said
    assert [json.loads(line)["name"] for line in out.read_text().splitlines()] == ["I.v:twice_0"]
    assert main([*argv, "--instances"]) == 0  # validated: the entry re-checks, and opens
    names = sorted(json.loads(line)["name"] for line in out.read_text().splitlines())
    assert names == ["I.v:twice_0", "I.v:twice_proper"]


def test_a_program_instance_with_a_body_is_no_entry(tmp_path: Path) -> None:
    """Its `Next Obligation … Qed.` was taken for the instance's reference proof (an
    audit: math-classes' `slow_nat_le_dec` kept with its first obligation's tactics)."""
    text = (
        "Require Import Coq.Program.Program.\nLocal Obligation Tactic := idtac.\n"
        "Class Dec (P : Prop) := dec : {P} + {~P}.\n"
        "#[global] Program Instance dec_le (x y : nat) : Dec (x <= y) :=\n"
        "  match Compare_dec.le_dec x y with\n  | left E => left _\n  | right E => right _\n"
        "  end.\nNext Obligation. intros; exact E. Qed.\nNext Obligation. intros; exact E. Qed.\n"
        "Lemma l0 : 0 <= 0.\nProof. auto. Qed.\n"
    )
    (tmp_path / "P.v").write_text(text)
    found = extract_file(tmp_path / "P.v", tmp_path, instances=True)
    assert [lemma.name for lemma in found.lemmas] == ["P.v:l0"]
    assert [(s.ident, s.reason) for s in found.skipped] == [("dec_le", "given_body")]


def test_training_pairs_leave_out_the_extracted_lemmas(
    project: tuple[Path, Path], entries: list[dict], tmp_path: Path
) -> None:
    """``bench pairs`` finds each extracted lemma's own proof in a trace made by real Coq
    (by ``module`` and ``qualid``: ``M.in_module`` inside a Module and a Section), and
    ``--leave-out after`` also drops A's later lemma and every step of ``Lib.B``."""
    from proofsearch.cli import main

    _, trace = project
    held = tmp_path / "held.jsonl"
    chosen = [e for e in entries if e["qualid"] in ("M.in_module", "from_b")]
    held.write_text("".join(json.dumps(e) + "\n" for e in chosen))

    def lemmas(rule: str) -> tuple[set[str], dict]:
        out = tmp_path / rule
        argv = ["bench", "pairs", "--index", str(trace), "--out", str(out), "--held-out",
                str(held), "--leave-out", rule, "--valid", "0"]  # fmt: skip
        assert main(argv) == 0
        pairs = [json.loads(line) for line in (out / "train.jsonl").read_text().splitlines()]
        return {p["lemma"] for p in pairs}, json.loads((out / "summary.json").read_text())

    proof, summary = lemmas("proof")
    assert proof == {"Lib.A.sec_pos", "Lib.A.uses_axiom", "Lib.A.twice"}
    assert summary["held_out_found"] == 2 and summary["held_out_without_steps"] == []
    after, _ = lemmas("after")
    assert after == {"Lib.A.sec_pos", "Lib.A.uses_axiom"}

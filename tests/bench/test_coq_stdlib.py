"""The stdlib extractor: parsing (synthetic and real files), sampling, and validation."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from proofsearch.bench.header_leak import declares
from proofsearch.bench.stdlib_extract import Extraction, StdlibLemma, extract_file, extract_library
from proofsearch.bench.stdlib_sample import allocate, sample_stratified
from proofsearch.bench.stdlib_validate import validate
from proofsearch.env.coq.sentences import split_sentences

from .conftest import requires_coq

SYNTHETIC = """\
(* A file that exercises every case of the extractor. *)
Require Import Arith.
(* Lemma commented_out : True. Proof. Qed. *)
Lemma top : forall n, n + 0 = n.
Proof. intros; now rewrite Nat.add_0_r. Qed.
Section S.
Variable A : Type.
Lemma in_section : forall x : A, x = x.
Proof using. reflexivity. Qed.
End S.
Module M.
Theorem in_module : True.
Proof I.
End M.
Module Type T.
Parameter t : Type.
Lemma in_type : t = t.
Proof. reflexivity. Qed.
End T.
Module F (X : T).
Lemma in_functor : X.t = X.t.
Proof. reflexivity. Qed.
End F.
Module Type T2.
Parameter t : Type.
Parameter u : nat.
End T2.
Module Sealed <: T2.
Definition t := nat.
Lemma in_sealed : t = t.
Proof. reflexivity. Qed.
Definition u := 0.
End Sealed.
Lemma admitted : False.
Admitted.
Lemma with_default : True /\\ True.
Proof with auto.
split...
Qed.
Lemma transparent : nat.
Proof. exact 0. Defined.
Corollary last : 1 = 1.
- reflexivity.
Qed.
"""


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> Extraction:
    root = tmp_path_factory.mktemp("theories")
    (root / "Demo").mkdir()
    (root / "Demo" / "Synth.v").write_text(SYNTHETIC)
    return extract_file(root / "Demo" / "Synth.v", root)


def by_ident(extraction: Extraction) -> dict[str, StdlibLemma]:
    return {lemma.ident: lemma for lemma in extraction.lemmas}


def test_synthetic_counts(synthetic: Extraction) -> None:
    assert synthetic.found == 10  # the commented-out lemma is not one
    assert sorted(by_ident(synthetic)) == sorted(
        ["top", "in_section", "in_module", "in_sealed", "transparent", "last"]
    )
    assert synthetic.skipped_by_reason() == Counter(
        {"in_module_type": 1, "in_functor": 1, "admitted": 1, "proof_with": 1}
    )
    assert synthetic.kept_by_scope() == Counter({"top_level": 3, "section": 1, "module": 2})


def test_synthetic_fields(synthetic: Extraction) -> None:
    lemmas = by_ident(synthetic)
    top = lemmas["top"].to_record()
    assert top["name"] == "Demo/Synth.v:top"
    assert top["statement"] == "Lemma top : forall n, n + 0 = n."
    assert top["header"] == "Require Import Arith.\n"
    assert top["reference_proof"] == "intros; now rewrite Nat.add_0_r."
    assert (top["file"], top["line"], top["part"], top["footer"]) == ("Demo/Synth.v", 4, "Demo", "")
    section = lemmas["in_section"]
    assert section.header.endswith("Section S.\nVariable A : Type.\n")
    assert section.reference_proof == "reflexivity."  # ``Proof using.`` dropped
    assert section.footer == "End S."
    module = lemmas["in_module"]
    assert (module.name, module.qualid, module.footer) == (
        "Demo/Synth.v:M.in_module",
        "M.in_module",
        "End M.",
    )
    assert (module.reference_proof, module.ends_with) == ("exact (I).", "term")
    assert lemmas["transparent"].ends_with == "defined"
    assert lemmas["last"].keyword == "Corollary"
    assert lemmas["last"].reference_proof == "- reflexivity."


def test_sealed_module_is_opened_without_its_signature(
    synthetic: Extraction,
) -> None:
    lemmas = by_ident(synthetic)
    inside = lemmas["in_sealed"].header
    assert "Module Sealed.\n" in inside and "<: T2" not in inside
    # After the module is closed, later headers keep the original sentence.
    assert "Module Sealed <: T2." in lemmas["transparent"].header


def test_headers_are_prefixes_and_never_declare_the_lemma(
    synthetic: Extraction,
) -> None:
    for lemma in synthetic.lemmas:
        assert not declares(lemma.header, lemma.qualid), lemma.name
        assert lemma.statement in SYNTHETIC
        assert len(split_sentences(lemma.statement)) == 1
    last = by_ident(synthetic)["last"].header
    assert declares(last, "transparent") and declares(last, "M.in_module")
    assert not declares(last, "in_module")  # M.in_module is another constant


@requires_coq
def test_synthetic_lemmas_compile_outside_the_file(synthetic: Extraction) -> None:
    """Header + statement + proof + Qed + footer compiles in each kind of scope."""
    cases = ("in_section", "in_module", "in_sealed", "last")
    for lemma in (x for x in synthetic.lemmas if x.ident in cases):
        verdict = validate(lemma, timeout=120)
        assert verdict.ok, (lemma.name, verdict.reason, verdict.message)
        assert verdict.axioms == ()


# -- sampling (no Coq) -----------------------------------------------------------


def fake_lemmas(sizes: dict[str, int]) -> list[StdlibLemma]:
    return [
        StdlibLemma(
            file=f"{part}/F.v",
            part=part,
            line=i + 1,
            keyword="Lemma",
            ident=f"l{i}",
            qualid=f"l{i}",
            statement=f"Lemma l{i} : True.",
            reference_proof="exact I.",
            ends_with="qed",
            scopes=(),
            index=0,
        )
        for part, size in sizes.items()
        for i in range(size)
    ]


def test_allocate_is_proportional_with_one_per_part() -> None:
    quota = allocate({"A": 1000, "B": 100, "C": 1}, 101)
    assert sum(quota.values()) == 101
    assert quota["C"] == 1 and quota["A"] > 8 * quota["B"]
    assert allocate({"A": 3, "B": 2}, 10) == {"A": 3, "B": 2}


def test_fewer_draws_than_parts_give_as_many_lemmas() -> None:
    """``--sample 12`` over the stdlib's 31 parts wrote 31 lemmas (audit 51): one each
    to the largest parts now."""
    sizes = {"A": 50, "B": 400, "C": 7, "D": 400, "E": 0}
    assert allocate(sizes, 2) == {"A": 0, "B": 1, "C": 0, "D": 1, "E": 0}
    assert sum(allocate(sizes, 3).values()) == 3
    assert allocate(sizes, 4) == {"A": 1, "B": 1, "C": 1, "D": 1, "E": 0}  # one per part
    lemmas = fake_lemmas({"A": 30, "B": 60, "C": 5})
    assert len(sample_stratified(lemmas, 2, seed=7)) == 2


def test_sample_is_deterministic_and_stratified() -> None:
    lemmas = fake_lemmas({"A": 300, "B": 60, "C": 5})
    shuffled = random.Random(1).sample(lemmas, len(lemmas))
    first = [x.name for x in sample_stratified(lemmas, 40, seed=7)]
    again = [x.name for x in sample_stratified(shuffled, 40, seed=7)]
    other = [x.name for x in sample_stratified(lemmas, 40, seed=8)]
    assert first == again and first != other
    assert len(first) == len(set(first)) == 40
    parts = Counter(name.split("/")[0] for name in first)
    assert set(parts) == {"A", "B", "C"} and parts["A"] > parts["B"] > parts["C"]


def test_rejected_draws_are_replaced_from_the_same_part() -> None:
    lemmas = fake_lemmas({"A": 50, "B": 10})
    rejected: list[str] = []

    def accept(batch: list[StdlibLemma]) -> list[bool]:
        verdicts = [lemma.line % 3 != 0 for lemma in batch]
        rejected.extend(x.name for x, ok in zip(batch, verdicts, strict=True) if not ok)
        return verdicts

    chosen = sample_stratified(lemmas, 20, seed=0, accept=accept)
    plain = sample_stratified(lemmas, 20, seed=0)
    assert len(chosen) == 20 and rejected
    assert all(x.line % 3 != 0 for x in chosen)
    assert Counter(x.part for x in chosen) == Counter(x.part for x in plain)


# -- the real library ------------------------------------------------------------


@pytest.fixture(scope="module")
def library(stdlib_root: Path) -> Extraction:
    return extract_library(stdlib_root)


def test_whole_library_counts(library: Extraction, pinned_counts: None) -> None:
    assert library.files == 562 and not library.files_unsplittable
    assert library.found == 11763
    assert len(library.lemmas) == 8053
    assert library.skipped_by_reason() == Counter(
        {"in_functor": 2186, "in_module_type": 1370, "init": 138, "proof_with": 16}
    )
    assert library.kept_by_scope() == Counter(
        {"top_level": 4552, "section": 2115, "module": 1293, "module+section": 93}
    )
    names = [lemma.name for lemma in library.lemmas]
    assert len(names) == len(set(names))


@pytest.mark.parametrize(
    ("file", "found", "kept", "skipped", "scopes"),
    [
        ("Lists/List.v", 331, 331, {}, {"section": 299, "top_level": 32}),
        ("Arith/PeanoNat.v", 102, 102, {}, {"module": 102}),
        ("Numbers/NatInt/NZAdd.v", 14, 0, {"in_module_type": 14}, {}),
        ("Structures/OrdersFacts.v", 65, 0, {"in_module_type": 34, "in_functor": 31}, {}),
        ("Init/Logic.v", 69, 0, {"init": 69}, {}),
    ],
)
def test_real_file_counts(
    stdlib_root: Path,
    pinned_counts: None,
    file: str,
    found: int,
    kept: int,
    skipped: dict[str, int],
    scopes: dict[str, int],
) -> None:
    extraction = extract_file(stdlib_root / file, stdlib_root)
    assert (extraction.found, len(extraction.lemmas)) == (found, kept)
    assert extraction.skipped_by_reason() == Counter(skipped)
    assert extraction.kept_by_scope() == Counter(scopes)


def test_real_boundaries(stdlib_root: Path) -> None:
    """Header + statement are exactly the file's sentences up to the lemma."""
    path = stdlib_root / "Lists" / "List.v"
    text = path.read_text()
    sentences = [s.text for s in split_sentences(text)]
    extraction = extract_file(path, stdlib_root)
    lines = text.splitlines()
    for lemma in extraction.lemmas[::40]:
        header = [s.text for s in split_sentences(lemma.header)]
        assert header == sentences[: lemma.index]
        assert sentences[lemma.index] == lemma.statement
        assert lemma.ident in lines[lemma.line - 1]
        assert not declares(lemma.header, lemma.qualid)
        assert lemma.footer == "\n".join(f"End {s.name}." for s in reversed(lemma.scopes))
    nat = extract_file(stdlib_root / "Arith" / "PeanoNat.v", stdlib_root).lemmas[0]
    assert nat.name.startswith("Arith/PeanoNat.v:Nat.") and "\nModule Nat.\n" in nat.header


@requires_coq
@pytest.mark.parametrize(
    ("file", "ident", "axioms"),
    [
        ("Lists/List.v", "app_nil_r", ()),  # inside Section Facts
        ("Arith/PeanoNat.v", "pred_succ", ()),  # inside Module Nat <: NAxiomsSig ...
        ("Logic/Classical_Prop.v", "NNPP", ("classic",)),  # the file's own axiom
    ],
)
def test_real_lemmas_compile_with_their_axioms(
    stdlib_root: Path, file: str, ident: str, axioms: tuple[str, ...]
) -> None:
    extraction = extract_file(stdlib_root / file, stdlib_root)
    lemma = next(x for x in extraction.lemmas if x.ident == ident)
    verdict = validate(lemma, timeout=240)
    assert verdict.ok, verdict.message
    assert verdict.axioms == axioms


@requires_coq
def test_section_lemma_opens_and_closes_in_coqidetop(
    stdlib_root: Path, no_new_coq_processes: None
) -> None:
    """The header may end inside a section: coqidetop opens the lemma and Qed works."""
    from proofsearch.env.base import Proved
    from proofsearch.env.coq.backend import CoqProver
    from proofsearch.theorem import Theorem

    extraction = extract_file(stdlib_root / "Lists" / "List.v", stdlib_root)
    lemma = next(x for x in extraction.lemmas if x.ident == "app_nil_r")
    assert [s.kind for s in lemma.scopes] == ["section"]
    theorem = Theorem(lemma.name, lemma.statement, lemma.header)
    with CoqProver() as prover:
        session = prover.open(theorem)
        outcome = session.apply(session.root, "induction l; simpl; congruence")
    assert isinstance(outcome, Proved)


@requires_coq
def test_extract_coq_stdlib_is_extract_coq_on_the_stdlib(tmp_path: Path) -> None:
    """One code path: the shortcut and ``extract-coq --root`` write the same entries, each
    with its stdlib ``module``; ``--only`` keeps the matching files, or is one error line."""
    from proofsearch.cli import main
    from proofsearch.env.coq.version import binary_version

    root = tmp_path / "theories"
    (root / "Demo").mkdir(parents=True)
    (root / "Demo" / "Synth.v").write_text(SYNTHETIC)
    (root / "Other.v").write_text("Lemma o : True.\nProof. exact I. Qed.\n")
    common = ["--root", str(root), "--no-validate", "--open-check", "off", "--quiet"]
    outs = []
    for command in ("extract-coq-stdlib", "extract-coq"):
        out = tmp_path / f"{command}.jsonl"
        assert main(["bench", command, *common, "--out", str(out)]) == 0
        outs.append(out.read_text())
    assert outs[0] == outs[1]
    records = [json.loads(line) for line in outs[0].splitlines()]
    prefix = binary_version("coqc").stdlib_prefix
    assert {r["module"] for r in records} == {f"{prefix}.Demo.Synth", f"{prefix}.Other"}
    only = tmp_path / "only.jsonl"
    assert main(["bench", "extract-coq", *common, "--only", "Demo/*.v", "--out", str(only)]) == 0
    assert {r["file"] for r in map(json.loads, only.read_text().splitlines())} == {"Demo/Synth.v"}
    argv = ["bench", "extract-coq", *common, "--only", "Nope/*.v", "--out", str(only)]
    assert main(argv) == 2

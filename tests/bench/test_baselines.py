"""The baselines write results lines in the search's format, with re-checked proofs."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from proofsearch.cli import main
from proofsearch.env.coq.version import binary_version
from proofsearch.search.result import SearchResult, Status
from proofsearch.theorem import Theorem

from .conftest import ROOT, requires_coq, requires_hammer, requires_mathcomp


def load_baselines() -> ModuleType:
    spec = importlib.util.spec_from_file_location("baselines", ROOT / "benchmarks" / "baselines.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["baselines"] = module
    spec.loader.exec_module(module)
    return module


baselines = load_baselines()

THEOREMS = [
    {"name": "easy", "statement": "Lemma easy : 2 + 2 = 4.", "header": "", "part": "X"},
    {
        "name": "swap",
        "statement": "Lemma swap : forall A B : Prop, A /\\ B -> B /\\ A.",
        "header": "Section S.\nVariable C : Prop.\n",
        "footer": "End S.",
    },
    {"name": "false", "statement": "Lemma false : forall n, n * 0 = n + 1.", "header": ""},
]
RECORD_KEYS = set(SearchResult(Theorem("x", "Lemma x : True."), Status.OPEN).to_record())


def write_theorems(tmp_path: Path) -> Path:
    path = tmp_path / "theorems.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in THEOREMS))
    return path


def read(path: Path) -> dict[str, dict[str, object]]:
    return {r["name"]: r for r in map(json.loads, path.read_text().splitlines())}


@requires_coq
def test_one_shot(
    tmp_path: Path, no_new_coq_processes: None, capsys: pytest.CaptureFixture[str]
) -> None:
    theorems = write_theorems(tmp_path)
    argv = ["one-shot", str(theorems), "--slice", "0:1", "--budget", "10"]
    assert baselines.main([*argv, "--out-dir", str(tmp_path), "--quiet"]) == 0
    argv = ["one-shot", str(theorems), "--slice", "2:", "--budget", "10"]
    assert baselines.main([*argv, "--out-dir", str(tmp_path), "--quiet", "--resume"]) == 0
    # The summary counts the whole file, the first sitting's result too; the stdlib's
    # published anchors only beside a sample of stdlib lemmas (these are the user's).
    out = capsys.readouterr().out
    assert "one-shot: 1/2 proved (50.0%)   -> " in out and "anchors" not in out
    records = read(tmp_path / "one-shot.jsonl")
    assert set(records) == {"easy", "false"}
    easy = records["easy"]
    assert set(easy) >= RECORD_KEYS
    assert (easy["status"], easy["checked"], easy["part"]) == ("proved", True, "X")
    assert easy["proof"] in (["reflexivity"], ["auto"], ["lia"], ["easy"], ["trivial"])
    assert easy["num_searched_nodes"] == 1
    assert records["false"]["status"] == "failed" and records["false"]["proof"] is None


def test_the_published_anchors_are_said_beside_stdlib_samples_only() -> None:
    records = [{"status": "proved"}, {"status": "failed"}]
    assert baselines.summarize("x", records, anchors=False) == "x: 1/2 proved (50.0%)"
    assert "[anchors: Tactician (published) 39.3%" in baselines.summarize("x", records)
    stdlib = [Theorem("a", "Lemma a : True.", extra={"module": m}) for m in ("Coq.A", "Stdlib.B")]
    assert baselines.stdlib_sample(stdlib)
    library = [*stdlib, Theorem("b", "Lemma b : True.", extra={"module": "Flocq.Core.Zaux"})]
    assert not baselines.stdlib_sample(library)
    assert not baselines.stdlib_sample([Theorem("c", "Lemma c : True.")])


@requires_coq
def test_coq_args_reach_the_baseline(
    tmp_path: Path, no_new_coq_processes: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """A library's headers need its loadpath (``--coq-arg``, as the search's): without it
    the header cannot load; with it the lemma is proved and re-checked."""
    import subprocess

    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "Two.v").write_text("Definition two := 2.\n")
    subprocess.run(["coqc", "-R", str(lib), "Short", str(lib / "Two.v")], check=True)
    theorems = tmp_path / "t.jsonl"
    entry = {
        "name": "uses",
        "statement": "Lemma uses : two = 2.",
        "header": "Require Import Two.\n",
    }
    theorems.write_text(json.dumps(entry) + "\n")
    argv = ["one-shot", str(theorems), "--budget", "10", "--quiet"]
    # Every header failed: no measurement ("0/1 proved", exit 0 before), a setup problem.
    assert baselines.main([*argv, "--out-dir", str(tmp_path / "bare")]) == 1
    assert read(tmp_path / "bare" / "one-shot.jsonl")["uses"]["status"] == "error"
    err = capsys.readouterr().err
    assert "error: one-shot: every header failed" in err and "--index TRACE" in err
    loadpath = ["--coq-arg=-R", f"--coq-arg={lib}", "--coq-arg=Short"]
    assert baselines.main([*argv, *loadpath, "--out-dir", str(tmp_path / "lib-out")]) == 0
    record = read(tmp_path / "lib-out" / "one-shot.jsonl")["uses"]
    assert record["status"] == "proved" and record["checked"], record
    # Or the loadpath the project's trace recorded, as search --index reads it.
    (lib / "_CoqProject").write_text("-R . Short\nTwo.v\n")
    trace = tmp_path / "trace"
    assert main(["trace", str(lib), "--out", str(trace), "--no-progress"]) == 0
    out = tmp_path / "traced"
    # A folder that is no trace: one line, before any work.
    assert baselines.main([*argv, "--index", str(lib), "--out-dir", str(out)]) == 2
    assert "error: --index: " in capsys.readouterr().err and not out.exists()
    assert baselines.main([*argv, "--index", str(trace), "--out-dir", str(out)]) == 0
    assert read(out / "one-shot.jsonl")["uses"]["status"] == "proved"


@requires_hammer
def test_hammer_on_headers_that_cannot_load_is_a_setup_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`hammer` printed "0/3 proved" and exit 0 when no header loaded (an audit): only
    `sauto` and one-shot, which open headers sentence by sentence, were caught."""
    theorems = tmp_path / "t.jsonl"
    headers = [f"Require Import NoSuchLib.M{i}.\n" for i in range(3)]
    entries = [
        {"name": f"t{i}", "statement": f"Lemma t{i} : True.", "header": header}
        for i, header in enumerate(headers)
    ]
    theorems.write_text("".join(json.dumps(entry) + "\n" for entry in entries))
    argv = ["hammer", str(theorems), "--budget", "5", "--out-dir", str(tmp_path), "--quiet"]
    assert baselines.main(argv) == 1
    err = capsys.readouterr().err
    assert "error: hammer: every header failed" in err and "NoSuchLib.M0" in err


@requires_hammer
def test_sauto_and_hammer(tmp_path: Path, no_new_coq_processes: None) -> None:
    """``sauto`` proves ``swap``; ``hammer`` reconstructs a proof that re-checks.

    ``swap`` sits in an open section (its footer closes it), so the re-check needs
    footer support from the checker; without it the result is an ``error`` that says
    the section is not closed, which this test accepts.
    """
    theorems = write_theorems(tmp_path)
    for name in ("sauto", "hammer"):
        argv = [name, str(theorems), "--slice", ":2", "--budget", "15", "--quiet"]
        assert baselines.main([*argv, "--out-dir", str(tmp_path)]) == 0
        records = read(tmp_path / f"{name}.jsonl")
        assert set(records["easy"]) >= RECORD_KEYS
        assert records["easy"]["status"] == "proved" and records["easy"]["checked"]
        swap = records["swap"]
        if swap["status"] == "error":
            assert "needs to be closed" in str(swap["error"])
            assert swap["rejected_proof"]
        else:
            assert swap["status"] == "proved" and swap["checked"]
    hammer = read(tmp_path / "hammer.jsonl")["easy"]
    assert hammer["proof"] == [hammer["hammer_reconstruction"]]


def test_reconstruction_is_read_from_the_output() -> None:
    output = (
        "noise\nproofsearch-hammer-start\nCVC4 (knn-64) succeeded\nReplace the hammer tactic"
        " with:\n\tscongruence use: Nat.add_comm,\n rev_length.\nFinished transaction in"
        " 12.5 secs (3.1u,0.5s) (successful)\n"
    )
    after = output.split("proofsearch-hammer-start", 1)[1]
    assert baselines.read_reconstruction(after) == "scongruence use: Nat.add_comm, rev_length"
    assert baselines._FINISHED.findall(after) == [("", "12.5")]
    same_line = "Replace the hammer tactic with: sfirstorder \nFinished transaction in 0.3 secs"
    assert baselines.read_reconstruction(same_line) == "sfirstorder"
    assert baselines.read_reconstruction("Error: Hammer failed") is None
    srun = "Replace the hammer tactic with:\n\tsrun eauto use: Nat.sqrt_spec'.\n"
    assert baselines.read_reconstruction(srun) == "srun (eauto) use: Nat.sqrt_spec'"


def test_hammer_script_puts_options_after_the_header() -> None:
    theorem = Theorem("t", "Lemma t : True.", "Section S.\n", extra={"footer": "End S."})
    config = baselines.BaselineConfig(budget=20, hammer_gsmode=2)
    script = baselines.hammer_script(theorem, config).splitlines()
    assert script[:3] == ["Section S.", baselines.HAMMER_IMPORT, "Set Hammer ATPLimit 12."]
    assert "Time Timeout 20 (hammer)." in script and script[-2:] == ["Qed.", "End S."]


def test_slices() -> None:
    assert list(baselines.parse_slice("2:4", 10)) == [2, 3]
    assert list(baselines.parse_slice(":2", 10)) == [0, 1]
    assert list(baselines.parse_slice(None, 3)) == [0, 1, 2]
    with pytest.raises(ValueError):
        baselines.parse_slice("3", 10)


@requires_hammer
def test_leaks_through_the_hammer_import_are_caught() -> None:
    """The Hammer import loads ``Coq.Bool.Bool``: a stdlib ``Bool/Bool.v`` lemma must not
    be proved with it, though the same proof is fine when the header loads it."""
    statement = "Lemma l : forall b1 b2 : bool, andb b1 b2 = true -> b1 = true."
    theorem = Theorem("Bool/Bool.v:l", statement, "", extra={"file": "Bool/Bool.v"})
    config = baselines.BaselineConfig()
    forbidden = baselines.forbidden_libraries(theorem, config, baselines.TACTICS_IMPORT)
    stdlib = binary_version("coqc").stdlib_prefix  # Coq 8.x, Stdlib 9.x (prelude: Corelib)
    prelude = "Corelib" if stdlib == "Stdlib" else "Coq"
    assert f"{stdlib}.Bool.Bool" in forbidden and f"{prelude}.Init.Datatypes" not in forbidden
    target = baselines.with_header_suffix(theorem, baselines.TACTICS_IMPORT)
    leaky = ["intros b1 b2 H; exact (proj1 (proj1 (Bool.andb_true_iff b1 b2) H))"]
    assert baselines.leaked_dependencies(target, leaky, forbidden, config) == ["Bool.andb_true_iff"]
    clean = ["intros b1 b2 H; destruct b1; easy"]
    assert baselines.leaked_dependencies(target, clean, forbidden, config) == []
    elsewhere = Theorem("x", statement, "Require Import Bool.", extra={"file": "Demo/X.v"})
    assert f"{stdlib}.Bool.Bool" not in baselines.forbidden_libraries(
        elsewhere, config, baselines.TACTICS_IMPORT
    )


@requires_hammer
@requires_mathcomp
def test_leak_check_resolves_names_to_their_library() -> None:
    """math-comp's ``eqtype.Equality.sort`` is not the stdlib's ``Coq.Program.Equality``
    (which the Hammer import loads and a math-comp header does not): a proof through
    ``eqtype``, which the header loads, is no leak. Before names were located, the
    check matched the ``Equality`` component and reported four such constants."""
    header = "From mathcomp Require Import ssreflect ssrfun ssrbool eqtype.\n"
    statement = "Lemma same (T : eqType) (x : T) : x == x."
    extra = {"file": "seq.v", "module": "mathcomp.ssreflect.seq"}
    theorem = Theorem("seq.v:same", statement, header, extra=extra)
    config = baselines.BaselineConfig()
    forbidden = baselines.forbidden_libraries(theorem, config, baselines.HAMMER_IMPORT)
    stdlib = binary_version("coqc").stdlib_prefix
    assert {"mathcomp.ssreflect.seq", f"{stdlib}.Program.Equality"} <= forbidden
    assert "mathcomp.ssreflect.eqtype" not in forbidden
    target = baselines.with_header_suffix(theorem, baselines.HAMMER_IMPORT)
    assert baselines.leaked_dependencies(target, ["by rewrite eqxx"], forbidden, config) == []
    # The same proof is a leak when eqtype is what the protocol forbids.
    eqtype = frozenset({"mathcomp.ssreflect.eqtype"})
    leaks = baselines.leaked_dependencies(target, ["by rewrite eqxx"], eqtype, config)
    assert "eqtype.Equality.sort" in leaks and "eqtype.eq_refl" in leaks


@requires_hammer
def test_hammer_leaves_nothing_in_the_temporary_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_new_coq_processes: None
) -> None:
    """A budget that kills coqc mid-hammer left CoqHammer's `predict*` and
    `coqhammer_out*` files (28 MB) in the temporary folder (audit 55): they go to the
    run's private folder now, and the provers go with coqc."""
    watched = tmp_path / "tmp"
    watched.mkdir()
    monkeypatch.setenv("TMPDIR", str(watched))
    theorems = tmp_path / "t.jsonl"
    statement = "Lemma false1 : forall n : nat, n + 1 = n."
    theorems.write_text(json.dumps({"name": "false1", "statement": statement,
                                    "header": "Require Import Arith."}) + "\n")  # fmt: skip
    argv = ["hammer", str(theorems), "--budget", "4", "--quiet", "--out-dir", str(tmp_path)]
    assert baselines.main(argv) == 0
    left = [p.name for p in watched.iterdir() if p.name.startswith(("predict", "coqhammer"))]
    assert left == []

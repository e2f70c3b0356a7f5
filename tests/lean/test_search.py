"""Best-first search over the Lean backend, end to end, against recorded transcripts.

The replay server is strict, so the search must send exactly the recorded requests in
the recorded order: a generator that proposes the recorded tactic for each state makes
the search retrace the recorded proof. No transcript records a whole-proof check of
these theorems, so these searches run with the re-check off (``check=False`` /
``--no-check``); the re-check is tested on its own in ``test_checker.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from proofsearch.generate.base import Suggestion, TacticGenerator
from proofsearch.generate.fixed import FixedTacticGenerator
from proofsearch.search import BestFirstSearchProver, SearchConfig, Status
from proofsearch.theorem import Theorem

BRANCHING = Theorem(
    "complex_and", "theorem complex_and (p q r : Prop) (h1 : p ∧ q) (h2 : q → r) : p ∧ r := by"
)


class ScriptedGenerator(TacticGenerator):
    """Proposes, for goals whose last line is a key of ``by_target``, its tactics."""

    def __init__(self, by_target: dict[str, list[str]]) -> None:
        self.by_target = by_target
        self.asked: list[str] = []

    def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        target = goals.split("\n\n")[0].splitlines()[-1]
        self.asked.append(target)
        tactics = self.by_target.get(target, [])
        return [Suggestion(t, -0.1 * i) for i, t in enumerate(tactics[:n])]


def test_search_replays_proof_branching(lean):
    prover = lean.prover(
        lean.replay_command("core/proof_branching", fails="the re-check's request differs")
    )
    generator = ScriptedGenerator(
        {
            "⊢ p ∧ r": ["apply And.intro"],
            "⊢ p": ["exact h1.left"],  # first goal of `case left`/`case right`
            "⊢ r": ["apply h2"],
            "⊢ q": ["exact h1.right"],
        }
    )
    search = BestFirstSearchProver(prover, generator, SearchConfig(timeout=30, check=False))
    result = search.search(BRANCHING)
    assert result.status is Status.PROVED, result.error
    assert result.proof == ["apply And.intro", "exact h1.left", "apply h2", "exact h1.right"]
    assert generator.asked == ["⊢ p ∧ r", "⊢ p", "⊢ r", "⊢ q"]
    assert result.num_searched_nodes == 4 and result.num_total_nodes == 4
    assert result.num_tactic_applications == 4 and not result.checked
    assert result.environment_time > 0


def test_search_with_the_fixed_generator_and_a_shared_header(lean):
    prover = lean.replay("mathlib/exact")
    search = BestFirstSearchProver(
        prover, FixedTacticGenerator("exact?"), SearchConfig(timeout=30, check=False)
    )
    proved = search.search(Theorem("test", "theorem test : 0 < 1 := by", "import Mathlib"))
    assert proved.status is Status.PROVED and proved.proof == ["exact?"]
    # Same process, same header environment: the second theorem's search fails (the
    # tree is exhausted after `exact?` errs).
    failed = search.search(Theorem("test", "theorem test : 3 = 7 := by", "import Mathlib"))
    assert failed.status is Status.FAILED and failed.proof is None
    assert prover.requests == 5 and prover.stats.restarts == 0


def test_search_reports_a_statement_lean_rejects(lean):
    prover = lean.replay("core/have_by_sorry", unused="the statement cannot be opened")
    search = BestFirstSearchProver(prover, FixedTacticGenerator("rfl"), SearchConfig(check=False))
    statement = "theorem foo (x : Int) : x = x := by\n  have h : x = 1 := by"
    result = search.search(Theorem("foo", statement))
    assert result.status is Status.ERROR and "unsolved goals" in (result.error or "")


def test_search_with_check_reports_a_rejected_recheck(lean):
    # With the re-check on, the proof found in the transcript's tactic part is re-checked
    # in a fresh process; the transcript then receives the recheck's command where it
    # expects the statement, the replay fails, and the search must say the re-check
    # failed rather than report an unchecked proof.
    prover = lean.prover(
        lean.replay_command("core/proof_branching", fails="the re-check's request differs")
    )
    generator = ScriptedGenerator(
        {
            "⊢ p ∧ r": ["apply And.intro"],
            "⊢ p": ["exact h1.left"],
            "⊢ r": ["apply h2"],
            "⊢ q": ["exact h1.right"],
        }
    )
    search = BestFirstSearchProver(prover, generator, SearchConfig(timeout=30, check=True))
    result = search.search(BRANCHING)
    assert result.status is Status.ERROR and not result.checked
    assert "re-check rejected it" in (result.error or "")
    assert "differs from the transcript" in (result.error or "")


@pytest.mark.parametrize("generator", ["fixed", "portfolio"])
def test_cli_search_with_the_lean_prover(lean, tmp_path: Path, generator: str):
    theorems = tmp_path / "theorems.jsonl"
    record = {"name": "test", "header": "import Mathlib", "statement": "theorem test : 0 < 1 := by"}
    theorems.write_text(json.dumps(record) + "\n", encoding="utf-8")
    output = tmp_path / "results.jsonl"
    command = [
        sys.executable, "-m", "proofsearch.cli", "search", str(theorems),
        "--prover", "lean",
        "--lean-repl",
        lean.replay_command("mathlib/exact", unused="the second theorem is another test's"),
        "--lean-project", str(tmp_path),
        "--output", str(output),
        "--no-check",
    ]  # fmt: skip
    if generator == "fixed":
        command += ["--generator", "fixed", "--tactic", "exact?"]
    else:
        tactics = tmp_path / "tactics.txt"
        tactics.write_text("exact?\n", encoding="utf-8")
        command += ["--generator", "portfolio", "--tactics-file", str(tactics)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    (line,) = output.read_text(encoding="utf-8").splitlines()
    result = json.loads(line)
    assert result["name"] == "test"
    assert result["status"] == "proved" and result["proof"] == ["exact?"]

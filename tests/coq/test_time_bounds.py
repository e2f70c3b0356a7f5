"""``Qed`` and the re-check are bounded by the theorem's budget (real Coq).

``exact_no_check (eq_refl true)`` returns at once and leaves the computation to ``Qed``:
on ``slow 26 = true`` (twice the work per step) a search under ``--timeout 5`` reported
``proved`` after 84 s (43 s in ``Qed``, 41 s in the re-check). ``slow 60`` below would
take centuries: only a bound ends these tests, and a proof whose ``Qed`` does not finish
in time is no proof.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from proofsearch.env.coq import CoqConfig, CoqProver
from proofsearch.env.coq.backend import batch_before
from proofsearch.env.coq.checker import check_proof
from proofsearch.generate.base import Suggestion, TacticGenerator
from proofsearch.search import BestFirstSearchProver, SearchConfig, Status
from proofsearch.search.result import UNFINISHED_PROOF
from proofsearch.theorem import Theorem
from tests.conftest import ROOT

SLOW = (
    "Fixpoint slow (n : nat) : bool := match n with 0 => true | S m => andb (slow m) (slow m) end."
)
NEVER = Theorem("never", "Theorem never : slow 60 = true.", SLOW)
QUICK = Theorem("quick", "Theorem quick : slow 3 = true.", SLOW)
NO_CHECK = "exact_no_check (eq_refl true)"


class Fixed(TacticGenerator):
    def __init__(self, *tactics: str) -> None:
        self.tactics = tactics

    def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        return [Suggestion(t, -0.1 * i) for i, t in enumerate(self.tactics)]


@pytest.fixture(scope="module")
def prover() -> CoqProver:
    with CoqProver(CoqConfig(tactic_timeout=1, kill_grace=2)) as instance:
        yield instance  # type: ignore[misc]


def test_a_qed_that_does_not_finish_in_time_is_no_proof(prover: CoqProver) -> None:
    searcher = BestFirstSearchProver(prover, Fixed(NO_CHECK), SearchConfig(timeout=2))
    result = searcher.search(NEVER)
    # Qed ran to the deadline (or one tactic limit past it): the budget is spent.
    assert result.status is Status.OPEN and result.proof is None, result
    assert result.error is None and result.check_time == 0  # no re-check ran
    reason = result.extra[UNFINISHED_PROOF]
    assert reason.startswith("every goal was closed, but Qed did not finish within"), reason
    # The statistics are the search's own, not zeroed.
    assert result.num_tactic_applications == 1 and result.num_searched_nodes == 1
    assert result.environment_time > 0
    record = result.to_record()
    assert record["status"] == "open" and record[UNFINISHED_PROOF] == reason


def test_the_same_tactic_still_proves_what_qed_can_check(prover: CoqProver) -> None:
    searcher = BestFirstSearchProver(prover, Fixed(NO_CHECK), SearchConfig(timeout=2))
    result = searcher.search(QUICK)
    assert result.status is Status.PROVED and result.checked, result.error
    assert UNFINISHED_PROOF not in result.extra


def test_a_late_qed_does_not_hide_a_proof_in_the_same_batch(prover: CoqProver) -> None:
    generator = Fixed(NO_CHECK, "idtac", "reflexivity")
    result = BestFirstSearchProver(prover, generator, SearchConfig(timeout=2)).search(QUICK)
    # Both close it in the one expansion; of proofs as short, the one with less text is
    # re-checked first (``reflexivity``, since 2026-12-07), and it passes.
    assert result.status is Status.PROVED and result.proof == ["reflexivity"], result
    assert result.checked


def test_qed_gets_the_budget_left_but_at_least_the_tactic_limit(prover: CoqProver) -> None:
    import time

    with prover.open(QUICK) as session:
        assert session.qed_limit(1) == 300  # no deadline: the re-check's limit
        session.deadline = time.perf_counter() - 10  # budget spent
        assert session.qed_limit(3) == 3
        session.deadline = time.perf_counter() + 1000
        assert 990 <= session.qed_limit(3) <= 1000


def test_no_tactic_starts_after_the_deadline(prover: CoqProver) -> None:
    # Ten tactics that each run to the 1 s limit, one expansion: run to its end it took
    # 10 s against a 3 s budget. Sent in batches that fit the time left, the search stops
    # within about one tactic's limit (and the kill grace) of the deadline.
    slow = [f"do {10**8 + i} (idtac)" for i in range(10)]
    searcher = BestFirstSearchProver(prover, Fixed(*slow), SearchConfig(timeout=3))
    result = searcher.search(QUICK)
    assert result.status is Status.OPEN, result
    assert 1 <= result.num_tactic_applications <= 4, result.num_tactic_applications
    assert result.total_time < 3 + 1 + 2 + 1.5, result.total_time
    assert sum(result.extra["timeouts"].values()) == result.num_tactic_applications


def test_batches_fit_the_time_left() -> None:
    pending = list(range(64))
    assert batch_before(pending, 2, None) == (pending, 2)  # no deadline: one batch
    assert batch_before(pending, 2, 20.5) == (pending[:10], 2)  # 10 × 2 s fit in 20.5 s
    assert batch_before(pending, 2, 1.2) == (pending[:1], 2)  # one, its limit 2 s
    assert batch_before(pending, 2, 0.3) == (pending[:1], 1)  # one, cut to 1 s
    assert batch_before(pending, 2, 0.0) == ([], 2)  # the deadline passed: none
    assert batch_before([3, 4], 1, 50.0) == ([3, 4], 1)


def test_the_recheck_is_bounded() -> None:
    verdict = check_proof(SLOW, NEVER.statement, [NO_CHECK], timeout=2)
    assert not verdict.ok and not verdict.disagreement
    assert verdict.message == "coqc did not finish within 2 s (--check-timeout): not a proof"


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "proofsearch.cli", *args],
        cwd=ROOT, capture_output=True, text=True, check=False,
        env={**os.environ, "COLUMNS": "200"},
    )  # fmt: skip


def test_search_on_the_command_line(tmp_path: Path) -> None:
    theorems = tmp_path / "thms.jsonl"
    rows = [
        {"name": "never", "header": SLOW, "statement": NEVER.statement},
        {"name": "quick", "header": SLOW, "statement": QUICK.statement},
    ]
    theorems.write_text("".join(json.dumps(row) + "\n" for row in rows))
    results = tmp_path / "r.jsonl"
    done = cli(
        "search", str(theorems), "--generator", "fixed", "--tactic", NO_CHECK,
        "--timeout", "2", "--tactic-timeout", "1", "--output", str(results), "--quiet",
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    records = {r["name"]: r for r in map(json.loads, results.read_text().splitlines())}
    assert records["never"]["status"] == "open"
    assert "Qed did not finish" in records["never"][UNFINISHED_PROOF]
    assert records["quick"]["status"] == "proved" and records["quick"]["checked"]


def test_check_timeout_on_the_check_command(tmp_path: Path) -> None:
    theorems = tmp_path / "thms.jsonl"
    theorems.write_text(
        json.dumps({"name": "never", "header": SLOW, "statement": NEVER.statement}) + "\n"
    )
    results = tmp_path / "r.jsonl"
    record = {"name": "never", "status": "proved", "proof": [NO_CHECK], "checked": True}
    results.write_text(json.dumps(record) + "\n")
    done = cli("check", str(results), str(theorems), "--check-timeout", "2")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "coqc did not finish within 2 s (--check-timeout): not a proof" in done.stdout


@pytest.mark.parametrize("command", ["search", "check"])
@pytest.mark.parametrize("value", ["0", "-1"])
def test_a_check_timeout_that_is_not_positive_is_a_usage_error(
    tmp_path: Path, command: str, value: str
) -> None:
    theorems = tmp_path / "thms.jsonl"
    theorems.write_text(json.dumps({"name": "t", "statement": "Theorem t : True."}) + "\n")
    results = tmp_path / "r.jsonl"
    files = [str(theorems), f"--output={results}"]
    if command == "check":
        results.write_text(json.dumps({"name": "t", "status": "proved", "proof": ["exact I"]}))
        files = [str(results), str(theorems)]
    done = cli(command, *files, f"--check-timeout={value}")
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"--check-timeout {value}: must be more than 0 s" in done.stderr + done.stdout

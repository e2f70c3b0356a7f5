"""Process management with stand-in REPLs: hangs, deaths, garbage, kills, recycling.

``faulty_repl.py`` replays ``core/proof_branching`` (requests: 1 statement, 2 ``apply
And.intro``, 3 ``exact h1.left``, 4 ``apply h2``, 5 ``exact h1.right``) and injects one
fault. After a restart the backend must rebuild the state it is asked to extend by
replaying its path from the root; the strict replay server checks that it does exactly
that (a wrong or missing replay request fails the test).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from proofsearch.env.base import EnvError, ProofState, Proved, TacticError, TacticTimeout
from proofsearch.theorem import Theorem

FIXTURE = "core/proof_branching"
THEOREM = Theorem(
    "complex_and", "theorem complex_and (p q r : Prop) (h1 : p ∧ q) (h2 : q → r) : p ∧ r := by"
)
PROOF = ("apply And.intro", "exact h1.left", "apply h2", "exact h1.right")


def walk(session, state, tactics):
    for tactic in tactics:
        state = session.apply(state, tactic)
        assert isinstance(state, ProofState), state
    return state


def pid_pairs(path: Path) -> list[tuple[int, int]]:
    return [tuple(map(int, line.split())) for line in path.read_text().splitlines()]  # type: ignore[misc]


def test_hanging_tactic_times_out_kills_the_group_and_replays(lean, tmp_path, gone):
    pids = tmp_path / "pids"
    command = lean.faulty_command("hang", 4, FIXTURE, once=True, pids=pids)
    prover = lean.prover(command)
    session = prover.open(THEOREM)
    left_done = walk(session, session.root, PROOF[:2])
    first_pid = prover.pid
    outcome = session.apply(left_done, "apply h2", timeout=0.5)
    assert isinstance(outcome, TacticTimeout) and outcome.killed, outcome
    assert "no reply within 0.5 s" in outcome.message
    # The REPL and the grandchild it started (as `lake env` starts the REPL) are gone.
    ((repl_pid, grandchild),) = pid_pairs(pids)
    assert repl_pid == first_pid
    assert gone(repl_pid) and gone(grandchild)
    assert prover.pid is None
    # The same state again: a fresh process, the path replayed, then the tactic.
    applied = session.apply(left_done, "apply h2")
    assert isinstance(applied, ProofState) and applied.goals[0].endswith("⊢ q")
    assert prover.pid != first_pid and prover.stats.restarts == 1
    assert prover.requests == 4  # statement, two replayed tactics, the tactic
    assert session.apply(applied, "exact h1.right") == Proved(PROOF)
    prover.close()
    assert gone(pid_pairs(pids)[1][0]) and gone(pid_pairs(pids)[1][1])


def test_death_mid_reply_restarts_and_retries(lean, gone):
    prover = lean.prover(lean.faulty_command("die", 3, FIXTURE, once=True))
    session = prover.open(THEOREM)
    split = walk(session, session.root, PROOF[:1])
    first_pid = prover.pid
    left_done = session.apply(split, "exact h1.left")  # dies mid-reply, then retried
    assert isinstance(left_done, ProofState)
    assert left_done.path == PROOF[:2]
    assert gone(first_pid) and prover.pid != first_pid
    assert prover.stats.restarts == 1
    # States from before the death still work: they are rebuilt on demand.
    assert isinstance(session.apply(split, "exact h1.left"), ProofState)
    assert isinstance(walk(session, left_done, PROOF[2:3]), ProofState)


def test_repeated_death_is_a_clear_error_with_stderr(lean, gone):
    prover = lean.prover(lean.faulty_command("die", 3, FIXTURE))
    session = prover.open(THEOREM)
    split = walk(session, session.root, PROOF[:1])
    outcome = session.apply(split, "exact h1.left")
    assert isinstance(outcome, TacticError), outcome
    assert "failed twice" in outcome.message
    assert "exited with code 1" in outcome.message
    assert "faulty_repl: dying on request 3" in outcome.message  # its stderr
    assert "partial reply" in outcome.message
    assert prover.stats.restarts == 1


def test_garbage_is_reported_at_once_and_recovered(lean):
    prover = lean.prover(lean.faulty_command("garbage", 2, FIXTURE, once=True))
    session = prover.open(THEOREM)
    split = session.apply(session.root, "apply And.intro", timeout=600)
    # Had the garbage been waited out, the outcome would be a timeout (and the test
    # would hit pytest's limit first): it is the tactic's state, from a fresh process.
    assert isinstance(split, ProofState) and len(split.goals) == 2
    assert prover.stats.restarts == 1


def test_persistent_garbage_is_a_clear_error(lean):
    prover = lean.prover(lean.faulty_command("garbage", 2, FIXTURE))
    session = prover.open(THEOREM)
    outcome = session.apply(session.root, "apply And.intro")
    assert isinstance(outcome, TacticError)
    assert "not JSON" in outcome.message and "this is not JSON at all" in outcome.message


def test_killed_between_requests_is_restarted_and_replayed(lean, gone):
    prover = lean.replay(FIXTURE, restarts=1, unused="the first process is killed")
    session = prover.open(THEOREM)
    applied = walk(session, session.root, PROOF[:3])
    first_pid = prover.pid
    assert first_pid is not None
    os.kill(first_pid, signal.SIGKILL)
    assert gone(first_pid)
    # The next application notices, restarts, replays three tactics, then proves.
    assert session.apply(applied, "exact h1.right") == Proved(PROOF)
    assert prover.pid != first_pid and prover.stats.restarts == 1
    assert prover.requests == 5


def test_recycling_after_n_requests(lean, gone):
    prover = lean.replay(
        FIXTURE, recycle_after=3, restarts=1, unused="the first process is recycled"
    )
    session = prover.open(THEOREM)
    left_done = walk(session, session.root, PROOF[:2])
    first_pid = prover.pid
    assert prover.requests == 3
    # Request budget reached: the next application starts a new process first.
    applied = session.apply(left_done, "apply h2")
    assert isinstance(applied, ProofState)
    assert gone(first_pid) and prover.pid != first_pid
    assert prover.stats.restarts == 1


def test_replay_that_reaches_another_state_is_an_error(lean):
    prover = lean.replay(FIXTURE, unused="the forged state stops the walk")
    session = prover.open(THEOREM)
    # A stale handle (old generation) and a key that the replay will not reproduce.
    forged = ProofState(("⊢ nothing",), "not-the-key", ("apply And.intro",), (0, 99))
    outcome = session.apply(forged, "exact h1.left")
    assert isinstance(outcome, TacticError)
    assert "replaying the path reached a different state" in outcome.message


def test_timeout_while_opening_is_an_env_error(lean, tmp_path):
    prover = lean.prover(lean.faulty_command("hang", 1, FIXTURE), statement_timeout=0.5)
    with pytest.raises(EnvError, match=r"more than 0\.5 s"):
        prover.open(THEOREM)
    assert prover.pid is None


def test_missing_program_is_a_clear_env_error(lean, tmp_path):
    prover = lean.prover(f"{tmp_path}/no/such/repl")
    with pytest.raises(EnvError, match="does not exist"):
        prover.open(THEOREM)
    prover = lean.prover("lake-not-installed-here env repl")
    with pytest.raises(EnvError, match="not found on PATH"):
        prover.open(THEOREM)
    prover = lean.prover(lean.replay_command(FIXTURE), project_dir=str(tmp_path / "absent"))
    with pytest.raises(EnvError, match=r"project directory .* does not exist"):
        prover.open(THEOREM)


def test_repl_that_exits_at_once_reports_its_stderr(lean):
    script = "import sys; sys.stderr.write('error: no such file repl\\n'); sys.exit(2)"
    prover = lean.prover(f'{sys.executable} -c "{script}"')
    with pytest.raises(EnvError) as raised:
        prover.open(THEOREM)
    assert "exited with code 2" in str(raised.value)
    assert "error: no such file repl" in str(raised.value)


def test_out_of_memory_hint(lean):
    script = "import sys; sys.stderr.write('INTERNAL PANIC: out of memory\\n'); sys.exit(1)"
    prover = lean.prover(f'{sys.executable} -c "{script}"', memory_limit_mb=64)
    with pytest.raises(EnvError, match="memory cap of 64 MiB"):
        prover.open(THEOREM)


def test_close_kills_the_process(lean, gone):
    prover = lean.replay(FIXTURE, unused="closed after opening")
    prover.open(THEOREM)
    pid = prover.pid
    assert pid is not None and not gone(pid, wait=0)
    prover.close()
    assert gone(pid) and prover.pid is None


def test_memory_cap_is_applied(lean, tmp_path):
    # The stand-in reports its own RLIMIT_AS on stderr and dies: the cap reached it.
    script = (
        "import resource, sys; soft, _ = resource.getrlimit(resource.RLIMIT_AS);"
        " sys.stderr.write(f'limit={soft}\\n'); sys.exit(1)"
    )
    prover = lean.prover(f'{sys.executable} -c "{script}"', memory_limit_mb=2048)
    with pytest.raises(EnvError, match=f"limit={2048 * 1024 * 1024}"):
        prover.open(THEOREM)


# -- `lake env` ------------------------------------------------------------------------

FAKE_LAKE = """#!{python}
# A stand-in for `lake env CMD...`: runs CMD as a child with LEAN_PATH set, like lake.
import os, subprocess, sys
if sys.argv[1:2] != ["env"]:
    sys.exit("fake lake: only `lake env` is supported")
sys.exit(subprocess.call(sys.argv[2:], env=dict(os.environ, LEAN_PATH="/fake/lean/path")))
"""


@pytest.fixture
def fake_lake(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "bin"
    folder.mkdir()
    lake = folder / "lake"
    lake.write_text(FAKE_LAKE.format(python=sys.executable), encoding="utf-8")
    lake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    return lake


def test_lake_env_is_resolved_so_the_repl_is_our_child(lean, fake_lake):
    command = lean.replay_command(FIXTURE, unused="one step is enough")
    prover = lean.prover("lake env " + command)
    session = prover.open(THEOREM)
    repl = psutil.Process(prover.pid)
    assert repl.ppid() == os.getpid()
    assert any("replay_repl.py" in part for part in repl.cmdline())
    assert repl.environ()["LEAN_PATH"] == "/fake/lean/path"
    assert isinstance(session.apply(session.root, "apply And.intro"), ProofState)


def test_lake_env_kept_when_asked(lean, fake_lake):
    command = lean.replay_command(FIXTURE, unused="opening is enough")
    prover = lean.prover("lake env " + command, resolve_lake_env=False)
    prover.open(THEOREM)
    lake = psutil.Process(prover.pid)
    assert any(part.endswith("/lake") for part in lake.cmdline())
    (repl,) = lake.children()
    assert repl.environ()["LEAN_PATH"] == "/fake/lean/path"


def test_failing_lake_env_is_a_clear_error(lean, fake_lake, tmp_path):
    fake_lake.write_text(f"#!{sys.executable}\nimport sys\nsys.exit('error: no lakefile')\n")
    prover = lean.prover("lake env ../repl/.lake/build/bin/repl")
    with pytest.raises(EnvError, match=r"no lakefile.*resolve_lake_env"):
        prover.open(THEOREM)


DRIVER = """
import sys
from proofsearch.env.lean import LeanConfig, LeanProver
from proofsearch.theorem import Theorem
prover = LeanProver(LeanConfig(repl_command=sys.argv[1], tactic_timeout=600))
session = prover.open(Theorem("t", sys.argv[2]))
print(prover.pid, flush=True)
session.apply(session.root, "apply And.intro")  # the stand-in never answers
"""


def test_repl_dies_with_a_worker_killed_by_sigkill(lean, fake_lake, gone):
    # A worker killed with SIGKILL runs no cleanup: only the parent-death signal stops
    # a REPL stuck in a tactic. With `lake env` resolved, the REPL is the worker's child.
    command = "lake env " + lean.faulty_command("hang", 2, FIXTURE)
    driver = subprocess.Popen(
        [sys.executable, "-c", DRIVER, command, THEOREM.statement],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert driver.stdout is not None
        repl_pid = int(driver.stdout.readline())
        time.sleep(0.5)  # the tactic request is sent and the stand-in hangs
        started = [p.pid for p in psutil.Process(driver.pid).children(recursive=True)]
        assert repl_pid in started and not gone(repl_pid, wait=0)
    finally:
        driver.kill()
        driver.wait()
    assert all(gone(pid) for pid in started), started

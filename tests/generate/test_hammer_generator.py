"""The ``hammer`` stage's generator: CoqHammer's tactics, only where they are defined."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.generate.knn_trace import write_trace

from proofsearch.generate.hammer import (
    HAMMER_TACTICS_IMPORT,
    PLAIN,
    HammerTacticsGenerator,
    loads_hammer_tactics,
)
from proofsearch.generate.knn.corpus import build_corpus
from proofsearch.generate.registry import DEFAULT_SCHEDULE, make_generator
from proofsearch.generate.schedule import without_stage
from proofsearch.theorem import Theorem

GOALS = "n : nat\n============================\nn + 0 = n"


@pytest.fixture
def trace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    yield write_trace(tmp_path / "trace")


def theorem(**extra: object) -> Theorem:
    extra = {"module": "Lib.A", "line": 90, **extra}  # sees Lib.A's lemmas only
    return Theorem("t", "Lemma t (n : nat) : n + 0 = n.", extra=extra)


def test_nothing_is_offered_where_the_tactics_are_not_defined(trace: Path) -> None:
    generator = HammerTacticsGenerator(build_corpus(trace))
    assert generator.generate(GOALS, theorem(), 16) == []
    assert not loads_hammer_tactics(theorem(header_suffix="From Hammer Require Import Hammer."))


def test_the_tactics_alone_and_with_the_retrieved_premises(trace: Path) -> None:
    generator = HammerTacticsGenerator(build_corpus(trace), premises=6)
    suggestions = generator.generate(GOALS, theorem(header_suffix=HAMMER_TACTICS_IMPORT), 16)
    tactics = [s.tactic for s in suggestions]
    assert set(PLAIN) <= set(tactics)
    (hauto,) = [t for t in tactics if t.startswith("hauto use: ")]
    # The premise that states the goal comes first; what the theorem may not see never.
    assert hauto.split("use: ")[1].split(", ")[0].endswith("zero_r")
    assert all("double_plus" not in t and "secret" not in t for t in tactics)
    assert len(generator.generate(GOALS, theorem(header_suffix=HAMMER_TACTICS_IMPORT), 3)) == 3
    # A header that imports the tactics itself is enough.
    header = Theorem("t", "Lemma t : True.", header=HAMMER_TACTICS_IMPORT)
    assert loads_hammer_tactics(header)


def test_the_default_schedule_runs_the_hammer_stage_after_knn(trace: Path) -> None:
    """``knn`` keeps its quarter of the budget; the ``hammer`` stage's share comes out of
    ``knn-portfolio``'s, and the stage is only there when asked for."""
    assert DEFAULT_SCHEDULE == "knn:1,hammer:0.5,knn-portfolio:2.5"
    off = make_generator("knn-portfolio", {"index": str(trace)})
    assert off.schedule() == [("knn", 1.0), ("knn-portfolio", 3.0)]
    on = make_generator("knn-portfolio", {"index": str(trace), "hammer_tactics": True})
    assert [name for name, _ in on.schedule()] == ["knn", "hammer", "knn-portfolio"]
    stage = on.stage(1)
    assert isinstance(stage, HammerTacticsGenerator)
    assert stage.header_suffix == HAMMER_TACTICS_IMPORT


def test_a_stage_switched_off_gives_its_share_to_the_next() -> None:
    plan = [("hammer", 1.0), ("knn", 1.0), ("hammer", 0.5), ("knn-portfolio", 2.5)]
    assert without_stage(plan, "hammer") == [("knn", 2.0), ("knn-portfolio", 3.0)]
    # The last stage's share goes to the one before it.
    assert without_stage([("knn", 1.0), ("hammer", 2.0)], "hammer") == [("knn", 3.0)]
    with pytest.raises(ValueError, match="no stage but 'hammer'"):
        without_stage([("hammer", 1.0)], "hammer")

"""Calibrated merging: each part's suggestions are worth what they were worth on the
trace's own held-out steps, not what the part's raw scale claims."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.generate.knn_trace import goal
from tests.generate.strength_trace import write_big_trace

from proofsearch.generate.base import Suggestion, TacticGenerator
from proofsearch.generate.calibration import EDGES, _falling, band, load_or_calibrate
from proofsearch.generate.knn.corpus import build_corpus
from proofsearch.generate.knn.generator import KnnGenerator
from proofsearch.generate.merged import MergedGenerator, calibrated_merge
from proofsearch.theorem import Theorem


class Boastful(TacticGenerator):
    """Scores its (always useless) tactics as certain."""

    def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        return [Suggestion(f"boast{i}", 0.0) for i in range(min(n, 4))]


def test_bands_and_falling_precision() -> None:
    assert band(0.0) == 0 and band(EDGES[0]) == 1 and band(-100.0) == len(EDGES)
    assert _falling([0.1, 0.3, 0.2, 0.05], [1, 1, 1, 1]) == pytest.approx([0.2, 0.2, 0.2, 0.05])


def test_a_boastful_part_sinks_below_the_part_that_is_right(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    trace = write_big_trace(tmp_path / "trace")
    knn = KnnGenerator(build_corpus(trace))
    parts: list[TacticGenerator] = [Boastful(), knn]
    # A combination no recorded state has: knn's best is close, not identical (< 0).
    query = goal("f3 (g5 x) = h9 x", ("x", "nat")).render()
    new = Theorem("new", "Lemma new : True.")
    raw = MergedGenerator(parts).generate(query, new, 6)
    assert raw[0].tactic.startswith("boast")
    merged = calibrated_merge(parts, ["boastful", "knn"], trace)
    assert merged.calibration is not None and merged.calibration.steps >= 100
    found = merged.generate(query, new, 6)
    assert found[0].tactic.startswith("apply L3_5")
    assert all(s.logprob <= 0 for s in found)
    boasts = [s.logprob for s in merged.generate(query, new, 64) if s.tactic.startswith("boast")]
    assert boasts and max(boasts) < found[0].logprob
    # Cached with the corpus cache: the next load reads it.
    again = load_or_calibrate([trace], {"boastful": parts[0], "knn": knn})
    assert again == merged.calibration
    assert list((tmp_path / "cache" / "proofsearch" / "knn").glob("calibration-*.json"))


def test_a_trace_too_small_to_learn_from_merges_by_raw_score(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.generate.knn_trace import write_trace

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    trace = write_trace(tmp_path / "small")
    merged = calibrated_merge([Boastful()], ["boastful"], trace)
    assert merged.calibration is None


def test_the_knn_generators_calibrate_on_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from proofsearch.generate.registry import make_generator

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    trace = str(write_big_trace(tmp_path / "trace"))
    one_stage = {"index": trace, "schedule": "knn-portfolio"}
    plain = make_generator("knn-portfolio", one_stage)
    assert isinstance(plain, MergedGenerator) and plain.calibration is None
    calibrated = make_generator("knn-portfolio", {**one_stage, "calibrate": True})
    assert isinstance(calibrated, MergedGenerator) and calibrated.calibration is not None
    assert set(calibrated.calibration.parts) == {"knn", "premises", "portfolio"}

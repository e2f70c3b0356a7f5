"""A later ``prove`` with other settings searches again the holes left open under others.

``prove`` reuses its results file (a ``--write`` after a dry run searches nothing). A
user who raises ``--timeout`` after a first try expects the open holes to be searched
with the new budget; reused as they were, nothing would have been searched.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from proofsearch.cli.prove_reuse import settings_changed
from proofsearch.distributed.store import ResultsStore

ALL = {"a", "b", "c", "slow"}


def _spec(timeout: float, tactic_timeout: float = 2.0) -> SimpleNamespace:
    return SimpleNamespace(
        generator="knn-portfolio",
        generator_options={"index": ["t"]},
        search={"timeout": timeout},
        prover_options={"tactic_timeout": tactic_timeout},
    )


def _after_a_20_s_run(tmp_path: Path) -> Path:
    """A results file of a 20 s run that proved `a` and left `b` and `c` open."""
    results = tmp_path / "results.jsonl"
    lines = [{"name": "a", "status": "proved"}, {"name": "b", "status": "failed"},
             {"name": "c", "status": "failed"}]  # fmt: skip
    results.write_text("".join(json.dumps(r) + "\n" for r in lines))
    assert settings_changed(_store(results), results, _spec(20), fresh=False, selected=ALL) is None
    return results


def _store(path: Path) -> ResultsStore:
    return ResultsStore(path, resume=True)


def test_open_holes_are_searched_again_when_the_settings_change(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    results.write_text(
        json.dumps({"name": "a", "status": "proved"}) + "\n"
        + json.dumps({"name": "b", "status": "failed"}) + "\n"
    )  # fmt: skip
    # The first run that records its settings: nothing to compare with, all reused.
    store = _store(results)
    assert settings_changed(store, results, _spec(20), fresh=False, selected=ALL) is None
    assert store.done("a") and store.done("b")
    # The same settings again (`--write` after a dry run): all reused.
    store = _store(results)
    assert settings_changed(store, results, _spec(20), fresh=False, selected=ALL) is None
    assert store.done("a") and store.done("b")
    # A larger budget: the open hole is searched again, the proof kept.
    store = _store(results)
    line = settings_changed(store, results, _spec(60), fresh=False, selected=ALL)
    assert line is not None and "search.timeout (--timeout): 20 → 60" in line, line
    assert "left 1 of these hole(s) open" in line and "proofs found before are kept" in line
    assert store.done("a") and not store.done("b")
    # The 60 s run is stopped before it searches `b`: the next 60 s run searches it.
    store = _store(results)
    line = settings_changed(store, results, _spec(60), fresh=False, selected=ALL)
    assert line is not None and "left 1 of these hole(s) open" in line  # still b
    assert store.done("a") and not store.done("b")


def test_overwrite_starts_the_settings_record_again(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    store = ResultsStore(results, overwrite=True)
    assert settings_changed(store, results, _spec(20), fresh=True, selected=ALL) is None
    assert settings_changed(store, results, _spec(30), fresh=True, selected=ALL) is None
    runs = (tmp_path / "results.jsonl.runs.jsonl").read_text().splitlines()
    assert len(runs) == 1 and json.loads(runs[0])["settings"]["search"] == {"timeout": 30}


def test_a_run_stopped_after_the_change_leaves_the_rest_to_the_next(tmp_path: Path) -> None:
    """The 60 s run searched `b` and was killed before `c`: the next 60 s run searches
    `c` (its only result is the 20 s run's) and keeps `b`'s 60 s result."""
    results = _after_a_20_s_run(tmp_path)
    store = _store(results)
    assert settings_changed(store, results, _spec(60), fresh=False, selected=ALL) is not None
    assert not store.done("b") and not store.done("c")
    with results.open("a") as handle:  # b searched again at 60 s, then the run stopped
        handle.write(json.dumps({"name": "b", "status": "failed"}) + "\n")
    store = _store(results)
    line = settings_changed(store, results, _spec(60), fresh=False, selected=ALL)
    assert line is not None and "left 1 of these hole(s) open" in line  # c, not b
    assert store.done("a") and store.done("b") and not store.done("c")


def test_the_first_run_into_a_new_folder_records_its_settings(tmp_path: Path) -> None:
    results = tmp_path / "new" / "folder" / "results.jsonl"
    assert settings_changed(_store(results), results, _spec(20), fresh=False, selected=ALL) is None
    [run] = (results.parent / "results.jsonl.runs.jsonl").read_text().splitlines()
    assert json.loads(run)["resumed"] is False  # an audit saw `true` on every first run


def test_a_larger_tactic_limit_searches_open_holes_again(tmp_path: Path) -> None:
    """`--tactic-timeout 10` for a slow `interval` call: the 2 s run's failure was reused."""
    results = tmp_path / "results.jsonl"
    results.write_text(json.dumps({"name": "slow", "status": "failed"}) + "\n")
    assert settings_changed(_store(results), results, _spec(20), fresh=False, selected=ALL) is None
    store = _store(results)
    line = settings_changed(store, results, _spec(20, tactic_timeout=10), fresh=False, selected=ALL)
    said = "prover_options.tactic_timeout (--tactic-timeout): 2.0 → 10"
    assert line is not None and said in line, line
    assert not store.done("slow")


def test_a_run_recorded_before_prover_options_were_is_no_difference(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    results.write_text(json.dumps({"name": "b", "status": "failed"}) + "\n")
    old = {"prover": "coq", "generator": "knn-portfolio",
           "generator_options": {"index": ["t"]}, "search": {"timeout": 20}}  # fmt: skip
    (tmp_path / "results.jsonl.runs.jsonl").write_text(json.dumps({"settings": old}) + "\n")
    store = _store(results)
    assert settings_changed(store, results, _spec(20), fresh=False, selected=ALL) is None
    assert store.done("b")


def test_a_failure_under_these_very_settings_is_kept(tmp_path: Path) -> None:
    """An audit's sequence: a default run (`b`, `c` open), then `--timeout 60 --lemma b`,
    then the defaults again: `c`'s failure was found under the defaults and is kept (it
    was searched again, 305 s for nothing); so is `b`'s, found at 60 s: 20 s cannot find
    what 60 s did not (audit 55: searched again at 10 s after 30 s, for nothing)."""
    results = _after_a_20_s_run(tmp_path)
    store = _store(results)
    line = settings_changed(store, results, _spec(60), fresh=False, selected={"b"})
    assert line is not None and "left 1 of these hole(s) open" in line, line  # not 2
    with results.open("a") as handle:  # b searched at 60 s
        handle.write(json.dumps({"name": "b", "status": "failed"}) + "\n")
    store = _store(results)
    assert settings_changed(store, results, _spec(20), fresh=False, selected=ALL) is None
    assert store.done("a") and store.done("c") and store.done("b")


def test_only_a_smaller_budget_keeps_the_failures(tmp_path: Path) -> None:
    """A smaller budget alone keeps the holes left open; a smaller budget with another
    change (a larger tactic limit) searches them again."""
    results = _after_a_20_s_run(tmp_path)
    store = _store(results)
    assert settings_changed(store, results, _spec(10), fresh=False, selected=ALL) is None
    assert store.done("b") and store.done("c")
    store = _store(results)
    line = settings_changed(store, results, _spec(10, tactic_timeout=5), fresh=False, selected=ALL)
    assert line is not None and "left 2 of these hole(s) open" in line, line
    assert not store.done("b") and not store.done("c")


def test_the_check_limit_that_follows_the_timeout_is_not_named(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    results.write_text(json.dumps({"name": "b", "status": "failed"}) + "\n")
    spec = _spec(20)
    spec.prover_options = {"tactic_timeout": 2.0, "check_timeout": 40.0}
    assert settings_changed(_store(results), results, spec, fresh=False, selected=ALL) is None
    spec = _spec(60)
    spec.prover_options = {"tactic_timeout": 2.0, "check_timeout": 120.0}
    line = settings_changed(_store(results), results, spec, fresh=False, selected=ALL)
    assert line is not None and "search.timeout (--timeout): 20 → 60" in line
    assert "check_timeout" not in line

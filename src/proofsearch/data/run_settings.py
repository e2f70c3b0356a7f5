"""What each run that wrote a results file was: ``RESULTS.runs.jsonl`` beside it.

A results file says how each theorem ended, not what searched it. A ``--resume`` with
another generator, model or budget appended to the same file without a word, and the
file then mixed two systems that nothing could tell apart. Each ``search`` now appends
one line to ``RESULTS.runs.jsonl`` (its settings, the proofsearch version, the time,
whether it resumed), and a resume whose settings differ from the last run's says which
differ before it starts.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Mapping
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import Any

#: The settings whose change makes results incomparable (what a resume compares):
#: ``prover_options`` holds the per-tactic limit, the memory cap, the loadpath.
COMPARED = ("prover", "prover_options", "generator", "generator_options", "search")


def runs_path(results: str | Path) -> Path:
    results = Path(results)
    return results.with_name(results.name + ".runs.jsonl")


def settings_of(
    prover: str,
    generator: str,
    options: Mapping[str, Any],
    search: Any,
    prover_options: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The comparable settings of a run, as plain JSON."""
    config = asdict(search) if is_dataclass(search) and not isinstance(search, type) else search
    settings = {"prover": prover, "generator": generator, "generator_options": dict(options),
                "search": config}  # fmt: skip
    if prover_options is not None:
        settings["prover_options"] = dict(prover_options)
    plain: dict[str, Any] = json.loads(json.dumps(settings, default=str))
    return plain


def last_settings(results: str | Path) -> dict[str, Any] | None:
    """The settings of the last run recorded beside ``results`` (``None``: none)."""
    path = runs_path(results)
    try:
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        last = json.loads(lines[-1]) if lines else None
    except (OSError, ValueError):
        return None
    return last.get("settings") if isinstance(last, dict) else None


#: The command-line option of a setting whose name is not the option's (a user read
#: ``search.budget_after_open`` and looked for such an option in vain).
OPTIONS = {
    "search.timeout": "--timeout",
    "search.budget_after_open": "--budget-after-header",
    "search.max_expansions": "--max-expansions",
    "search.num_sampled_tactics": "--num-sampled-tactics",
    "search.max_sampled_tactics": "--max-sampled-tactics",
    "search.tactic_timeout": "--tactic-timeout",
    "search.slow_timeouts": "--slow-tactic-timeouts",
    "search.reuse_outcomes": "--stage-outcomes",
    "search.goal_penalty": "--goal-penalty",
    "search.depth_bonus": "--depth-bonus",
    "prover_options.tactic_timeout": "--tactic-timeout",
    "prover_options.check_timeout": "--check-timeout",
    "prover_options.memory_limit_mb": "--memory-limit-mb",
    "prover_options.args": "--coq-arg",
    "generator": "--generator",
    "generator_options.index": "--index",
}


def differences(before: Mapping[str, Any], now: Mapping[str, Any]) -> list[str]:
    """``key: old → new`` for each compared setting that changed (nested keys dotted),
    with its command-line option where it has one."""
    out: list[str] = []

    def walk(prefix: str, old: Any, new: Any) -> None:
        if isinstance(old, dict) and isinstance(new, dict):
            for key in sorted(set(old) | set(new)):
                walk(f"{prefix}.{key}" if prefix else key, old.get(key), new.get(key))
        elif old != new:
            option = f" ({OPTIONS[prefix]})" if prefix in OPTIONS else ""
            out.append(f"{prefix}{option}: {json.dumps(old)} → {json.dumps(new)}")

    for key in COMPARED:
        if key in before:  # a run recorded before the key was: not a difference
            walk(key, before.get(key), now.get(key))
    return out


def record_run(
    results: str | Path,
    settings: Mapping[str, Any],
    *,
    resumed: bool,
    results_from: int | None = None,
) -> None:
    """Append this run's line (``resumed``: it kept earlier results; ``results_from``:
    the results file's line count when it started, see :func:`run_starts`)."""
    from proofsearch import __version__

    line: dict[str, Any] = {
        "started": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "proofsearch": __version__,
        "resumed": resumed,
        "settings": dict(settings),
    }
    if results_from is not None:
        line["results_from"] = results_from
    path = runs_path(results)
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = "a" if resumed else "w"
    with path.open(mode, encoding="utf-8") as handle:
        handle.write(json.dumps(line) + "\n")


def run_starts(results: str | Path) -> list[tuple[int, dict[str, Any]]]:
    """Each recorded run's first line in ``results`` and its settings, in order: a
    results line was written under the settings of the last run starting at or before
    it. A run recorded without ``results_from`` (before every run recorded it) kept the
    previous run's settings, so it starts nothing new."""
    try:
        lines = runs_path(results).read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    starts: list[tuple[int, dict[str, Any]]] = []
    for text in lines:
        try:
            run = json.loads(text)
        except ValueError:
            continue
        if not isinstance(run, dict) or not isinstance(run.get("settings"), dict):
            continue
        start = run.get("results_from")
        if isinstance(start, int):
            starts.append((start, run["settings"]))
        elif not starts:
            starts.append((0, run["settings"]))
    return starts


def settings_at(starts: list[tuple[int, dict[str, Any]]], line: int) -> dict[str, Any] | None:
    """The settings a results line was written under (``None``: no run was recorded). A
    line older than the first recorded run (a proofsearch that recorded none) counts as
    that run's."""
    found = starts[0][1] if starts else None
    for start, settings in starts:
        if start <= line:
            found = settings
    return found


def last_lines(results: str | Path) -> tuple[int, dict[str, int]]:
    """The results file's line count, and each theorem's last line in it."""
    last: dict[str, int] = {}
    count = 0
    try:
        with Path(results).open(encoding="utf-8") as handle:
            for count, text in enumerate(handle, start=1):
                try:
                    name = json.loads(text).get("name")
                except (ValueError, AttributeError):
                    continue
                if isinstance(name, str):
                    last[name] = count - 1
    except OSError:
        return 0, {}
    return count, last

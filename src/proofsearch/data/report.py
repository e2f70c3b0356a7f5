"""Reports comparing results files: Markdown, a self-contained HTML page and PNG plots.

A run is one results file (the lines :meth:`SearchResult.to_record` writes, whether a
search or a baseline produced them). The report puts several runs side by side: a table
of proof rates, times and expansions, proved-versus-time (cactus) curves, the status
breakdown, time distributions, and a per-theorem table with the runs as columns.

The HTML page refers to its PNGs by relative path, so the output folder opens in a
browser from disk, with no server. Plots use matplotlib's ``Figure`` directly (the Agg
canvas), never ``pyplot``'s global state, so that reporting works headless and from
threads.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proofsearch.data.jsonl import read_json_lines
from proofsearch.data.prove_report import prove_html, prove_markdown
from proofsearch.search.result import Status

#: Status order in tables and plots (best first).
STATUS_ORDER: tuple[str, ...] = tuple(str(s) for s in Status)
STATUS_COLORS: dict[str, str] = {
    "proved": "#2e7d32",
    "failed": "#c62828",
    "open": "#f9a825",
    "error": "#6a1b9a",
    "invalid": "#757575",
}
#: Published results on the whole Coq standard library, to print beside ours.
STDLIB_ANCHORS: tuple[tuple[str, float], ...] = (
    ("Tactician (published, Coq stdlib)", 39.3),
    ("CoqHammer (published, ~40 s, 8 CPUs)", 40.8),
    ("Tactician + CoqHammer (published)", 56.7),
)
PLOTS = ("cactus.png", "status.png", "times.png")


class ReportError(Exception):
    """A results file cannot be used at all (unreadable, or not one valid line)."""


@dataclass(frozen=True)
class ResultLine:
    """The fields of one results line that the report uses."""

    name: str
    status: str
    checked: bool
    total_time: float
    actor_time: float
    environment_time: float
    check_time: float
    searched: int
    applications: int
    proof_length: int | None
    error: str | None
    #: The tactics of a proved line (shown in the report's "Proofs" section).
    proof: tuple[str, ...] | None = None

    @property
    def proved(self) -> bool:
        return self.status == "proved"


@dataclass
class Run:
    """One results file: its lines by theorem name, and what was wrong with the file."""

    name: str
    path: Path
    results: dict[str, ResultLine] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    duplicates: int = 0

    @property
    def total(self) -> int:
        return len(self.results)

    def count(self, status: str) -> int:
        return sum(1 for r in self.results.values() if r.status == status)

    @property
    def proved(self) -> int:
        return self.count("proved")

    @property
    def checked(self) -> int:
        return sum(1 for r in self.results.values() if r.proved and r.checked)

    def proved_times(self) -> list[float]:
        return sorted(r.total_time for r in self.results.values() if r.proved)


def _number(data: dict[str, Any], key: str, kind: type, default: Any) -> Any:
    value = data.get(key, default)
    if value is None:
        return default
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or isinstance(value, bool) != (kind is bool):
        raise ValueError(f"field '{key}': expected {kind.__name__}, got {value!r}")
    if isinstance(value, float) and (math.isnan(value) or value < 0):
        raise ValueError(f"field '{key}': expected a time ≥ 0, got {value!r}")
    return value


def parse_result_line(data: Any) -> ResultLine:
    """Read one decoded results line; raise ``ValueError`` saying what is wrong."""
    if not isinstance(data, dict):
        raise ValueError("expected a JSON object")
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError("field 'name': missing or not a non-empty string")
    status = data.get("status")
    if status not in STATUS_ORDER:
        expected = ", ".join(STATUS_ORDER)
        raise ValueError(f"field 'status': expected one of {expected}, got {status!r}")
    proof = data.get("proof")
    if proof is not None and not (
        isinstance(proof, list) and all(isinstance(t, str) for t in proof)
    ):
        raise ValueError("field 'proof': expected a list of tactics or null")
    error = data.get("error")
    return ResultLine(
        name=name,
        status=status,
        checked=_number(data, "checked", bool, False),
        total_time=_number(data, "total_time", float, 0.0),
        actor_time=_number(data, "actor_time", float, 0.0),
        environment_time=_number(data, "environment_time", float, 0.0),
        check_time=_number(data, "check_time", float, 0.0),
        searched=_number(data, "num_searched_nodes", int, 0),
        applications=_number(data, "num_tactic_applications", int, 0),
        proof_length=len(proof) if isinstance(proof, list) else None,
        error=error if isinstance(error, str) else None,
        proof=tuple(proof) if isinstance(proof, list) else None,
    )


def load_run(path: str | Path, name: str | None = None) -> Run:
    """Read a results file; bad lines are recorded in ``problems`` (file:line: why).

    A theorem listed twice keeps its last line (a re-run appended after an earlier
    attempt). Raises :class:`ReportError` if the file cannot be read.
    """
    path = Path(path)
    run = Run(name or path.stem, path)
    theorem_lines = 0
    for entry in read_json_lines(path, ReportError):
        if entry.error is not None:
            run.problems.append(entry.problem(entry.invalid))
            continue
        try:
            line = parse_result_line(entry.value)
        except ValueError as exc:
            run.problems.append(entry.problem(str(exc)))
            theorem_lines += _is_theorem_entry(entry.value)
            continue
        if line.name in run.results:
            run.duplicates += 1
            del run.results[line.name]  # keep the order of the last occurrence
        run.results[line.name] = line
    if run.problems and not run.results:
        what = "a theorem file, not a results file" if theorem_lines else "no valid results line"
        raise ReportError(f"{path}: {what} ({run.problems[0]})")
    return run


def _is_theorem_entry(value: Any) -> bool:
    """Whether a line looks like a theorem file's (a statement, no status): the
    mistake of giving ``report`` the file ``search`` read instead of the one it wrote."""
    return isinstance(value, dict) and "statement" in value and "status" not in value


def run_names(paths: Sequence[Path], names: Sequence[str] | None = None) -> list[str]:
    """Names for the runs: given ones first, then file stems made unique."""
    given = list(names or [])
    out: list[str] = []
    for i, path in enumerate(paths):
        if i < len(given):
            out.append(given[i])
            continue
        candidate = path.stem
        if candidate in out or any(
            p.stem == candidate for j, p in enumerate(paths) if j != i and j >= len(given)
        ):
            candidate = f"{path.parent.name}/{path.stem}" if path.parent.name else candidate
        while candidate in out:
            candidate += "'"
        out.append(candidate)
    return out


# -- numbers -------------------------------------------------------------------


def _mean(values: Iterable[float]) -> float | None:
    items = list(values)
    return statistics.fmean(items) if items else None


def _median(values: Iterable[float]) -> float | None:
    items = list(values)
    return statistics.median(items) if items else None


def run_summary(run: Run) -> dict[str, Any]:
    """The side-by-side table's row for a run (JSON-ready)."""
    results = list(run.results.values())
    proved = [r for r in results if r.proved]
    return {
        "name": run.name,
        "file": str(run.path),
        "theorems": run.total,
        "proved": run.proved,
        "checked": run.checked,
        "proof_rate": run.proved / run.total if run.total else 0.0,
        "checked_rate": run.checked / run.total if run.total else 0.0,
        "by_status": {s: run.count(s) for s in STATUS_ORDER},
        "mean_time": _mean(r.total_time for r in results),
        "mean_time_proved": _mean(r.total_time for r in proved),
        "median_time_proved": _median(r.total_time for r in proved),
        "mean_expansions": _mean(r.searched for r in results),
        "mean_expansions_proved": _mean(r.searched for r in proved),
        "mean_proof_length": _mean(r.proof_length for r in proved if r.proof_length is not None),
        "mean_actor_time": _mean(r.actor_time for r in results),
        "mean_environment_time": _mean(r.environment_time for r in results),
        "mean_check_time": _mean(r.check_time for r in results),
        "problems": len(run.problems),
        "duplicates": run.duplicates,
        "settings": run_settings(run.path),
    }


def run_settings(path: str | Path) -> dict[str, Any] | None:
    """What the last run recorded beside the results file ran with (``RESULTS.runs.jsonl``:
    generator, budget, index, model), so that a report comparing a model with the default
    says which run used which; ``None`` for a file without that record."""
    from proofsearch.data.run_settings import last_settings

    settings = last_settings(path)
    if settings is None:
        return None
    search = settings.get("search") or {}
    options = dict(settings.get("generator_options") or {})
    index = options.pop("index", None)
    model = options.pop("model", None) or options.pop("base_url", None)
    options.pop("prover", None)
    return {
        "prover": settings.get("prover"),
        "generator": settings.get("generator"),
        "timeout": search.get("timeout") if isinstance(search, dict) else None,
        "model": model,
        "index": len(index) if isinstance(index, list) else int(index is not None),
        "options": ", ".join(f"{k}={v}" for k, v in sorted(options.items())),
    }


# -- plots ---------------------------------------------------------------------


def _figure(width: float, height: float) -> Any:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=100, layout="constrained")


#: Mantissas of the labelled ticks of a log axis: 1, 2, 5, 10, 20, 50, ...
LOG_TICKS = (1.0, 2.0, 5.0)


def _log_span(low: float, high: float) -> tuple[float, float]:
    """Limits of a log axis spanning at least a decade, so that it always carries
    several labelled 1-2-5 ticks (times between 0.3 s and 3 s would otherwise show a
    single "1")."""
    low = min(low / 1.5, high / 10)
    return low, high


def _log_ticks(axis: Any) -> None:
    """Label a log axis at 1, 2, 5 times each power of ten, in plain numbers."""
    from matplotlib.ticker import FormatStrFormatter, LogLocator, NullFormatter

    axis.set_major_locator(LogLocator(base=10, subs=LOG_TICKS))
    axis.set_major_formatter(FormatStrFormatter("%g"))
    axis.set_minor_formatter(NullFormatter())


def plot_cactus(runs: Sequence[Run], path: Path, anchors: Sequence[tuple[str, float]] = ()) -> None:
    """Proved-versus-time: how many theorems each run proved within t seconds."""
    cactus_figure(runs, anchors).savefig(path, format="png")


def cactus_figure(runs: Sequence[Run], anchors: Sequence[tuple[str, float]] = ()) -> Any:
    """The figure of :func:`plot_cactus` (tests look at its axes)."""
    from matplotlib.ticker import MaxNLocator

    figure = _figure(7.5, 4.5)
    axes = figure.add_subplot()
    largest = max((r.total for r in runs), default=0)
    right = max((max(r.proved_times(), default=0.0) for r in runs), default=0.0)
    right = max(right * 1.3, 1e-2)
    top = 0
    for run in runs:
        times = run.proved_times()
        label = f"{run.name} ({len(times)}/{run.total})"
        if not times:
            axes.plot([], [], label=label)
            continue
        # Start at 0 on the first proof's time and run on to the right edge, so that a
        # run with a single proof still draws a visible step.
        xs = [max(times[0], 1e-3), *(max(t, 1e-3) for t in times), right]
        ys = [0, *range(1, len(times) + 1), len(times)]
        axes.step(xs, ys, where="post", label=label, marker="", linewidth=1.6)
        top = max(top, len(times))
    for label, percent in anchors:
        level = percent / 100 * largest
        axes.axhline(level, linestyle="--", linewidth=0.8, color="#888888")
        axes.annotate(
            f"{label}: {percent:g}%",
            (0.01, level),
            xycoords=("axes fraction", "data"),
            fontsize=7,
            color="#555555",
            va="bottom",
        )
        top = max(top, math.ceil(level))
    axes.set_xscale("log")
    _log_ticks(axes.xaxis)
    first = min((min(r.proved_times(), default=right) for r in runs), default=right)
    axes.set_xlim(_log_span(max(first, 1e-3), right))
    axes.set_xlabel("time per theorem (s, log scale)")
    axes.set_ylabel("theorems proved within that time")
    axes.set_ylim(0, max(1, top) * 1.05)
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))  # theorems are counted whole
    axes.set_title("Proved versus time")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(loc="lower right", fontsize=8)
    return figure


def plot_status(runs: Sequence[Run], path: Path) -> None:
    """One horizontal bar per run, split by status."""
    figure = _figure(7.5, 1.2 + 0.45 * max(1, len(runs)))
    axes = figure.add_subplot()
    names = [run.name for run in runs][::-1]
    left = [0] * len(names)
    for status in STATUS_ORDER:
        counts = [run.count(status) for run in runs][::-1]
        if not any(counts):
            continue
        axes.barh(names, counts, left=left, color=STATUS_COLORS[status], label=status)
        for i, count in enumerate(counts):
            if count:
                axes.text(
                    left[i] + count / 2, i, str(count), ha="center", va="center",
                    color="white", fontsize=8,
                )  # fmt: skip
        left = [a + b for a, b in zip(left, counts, strict=True)]
    axes.set_xlabel("theorems")
    axes.set_title("Status breakdown")
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.35), ncol=5, fontsize=8)
    figure.savefig(path, format="png")


def plot_times(runs: Sequence[Run], path: Path) -> None:
    """Time per theorem (box per run, proved and not) and where the time went."""
    times_figure(runs).savefig(path, format="png")


def times_figure(runs: Sequence[Run]) -> Any:
    """The figure of :func:`plot_times` (tests look at its axes)."""
    figure = _figure(9.5, 4.5)
    left, right = figure.subplots(1, 2)
    data: list[list[float]] = []
    labels: list[str] = []
    for run in runs:
        for proved in (True, False):
            times = [max(r.total_time, 1e-3) for r in run.results.values() if r.proved == proved]
            if times:  # no empty column for a run that proved (or missed) everything
                data.append(times)
                labels.append(f"{run.name}\n{'proved' if proved else 'not proved'}")
    if data:
        left.boxplot(data)
        left.set_xticks(range(1, len(labels) + 1), labels, fontsize=7, rotation=30, ha="right")
    left.set_yscale("log")
    _log_ticks(left.yaxis)
    every = [t for times in data for t in times]
    if every:
        left.set_ylim(_log_span(min(every), max(every) * 1.3))
    left.set_ylabel("total time (s, log scale)")
    left.set_title("Time per theorem")
    names = [run.name for run in runs]
    bottom = [0.0] * len(runs)
    for key, label, color in (
        ("actor_time", "actor (tactic generation)", "#1565c0"),
        ("environment_time", "environment (prover)", "#ef6c00"),
        ("check_time", "re-check", "#2e7d32"),
    ):
        means = [_mean(getattr(r, key) for r in run.results.values()) or 0.0 for run in runs]
        right.bar(names, means, bottom=bottom, label=label, color=color)
        bottom = [a + b for a, b in zip(bottom, means, strict=True)]
    right.set_ylim(bottom=0)  # times are never negative, even when all are 0
    right.set_ylabel("mean seconds per theorem")
    right.set_title("Where the time went")
    right.tick_params(axis="x", labelsize=7, labelrotation=30)
    # Below the bars, never on them.
    right.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3)
    return figure


# -- the report ----------------------------------------------------------------


def _cell(line: ResultLine | None) -> dict[str, Any]:
    if line is None:
        return {"status": "", "text": "—", "title": "not in this run"}
    mark = {"proved": "✓" if line.checked else "✓?"}.get(line.status, line.status)
    text = f"{mark} {line.total_time:.1f}s"
    title = line.status
    if line.proved:
        title += " (checked)" if line.checked else " (not checked)"
    if line.error:
        title += f": {line.error[:300]}"
    return {"status": line.status, "text": text, "title": title}


def theorem_rows(runs: Sequence[Run]) -> list[dict[str, Any]]:
    """Per-theorem rows: every theorem of any run, in first-seen order, runs as columns."""
    order: dict[str, None] = {}
    for run in runs:
        for name in run.results:
            order.setdefault(name, None)
    rows = []
    for name in order:
        lines = [run.results.get(name) for run in runs]
        rows.append(
            {
                "name": name,
                "cells": [_cell(line) for line in lines],
                "proved_by": sum(1 for line in lines if line is not None and line.proved),
            }
        )
    return rows


def proof_rows(runs: Sequence[Run]) -> list[dict[str, Any]]:
    """Every theorem some run proved, with each run's proof (tactics, checked or not)."""
    rows = []
    for row in theorem_rows(runs):
        proofs = []
        for run in runs:
            line = run.results.get(row["name"])
            if line is not None and line.proved and line.proof is not None:
                proofs.append({"run": run.name, "checked": line.checked, "tactics": line.proof})
        if proofs:
            rows.append({"name": row["name"], "proofs": proofs})
    return rows


def error_rows(runs: Sequence[Run]) -> list[dict[str, Any]]:
    """Every ``error`` result with its reason, run by run: the Markdown has no tooltip,
    and a report read as text said "error" without why (an audit)."""
    return [
        {"run": run.name, "name": name, "error": line.error or "(no reason given)"}
        for run in runs
        for name, line in run.results.items()
        if line.status == "error"
    ]


def _format(value: Any, kind: str = "") -> str:
    if value is None:
        return "—"
    if kind == "pct":
        return f"{100 * value:.1f}%"
    if kind == "s":
        return f"{value:.2f}"
    if isinstance(value, float):
        return f"{value:.1f}"
    return str(value)


def _templates() -> Any:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("proofsearch.data", "templates"),
        autoescape=jinja2.select_autoescape(["html.j2"], default_for_string=False),
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["md"] = _markdown_cell
    return env


def _markdown_cell(value: Any) -> str:
    """Text safe inside a Markdown table cell (pipes and newlines would break the row)."""
    return str(value).replace("|", "\\|").replace("\n", " ")


def write_report(
    runs: Sequence[Run],
    out: str | Path,
    *,
    title: str = "proofsearch report",
    anchors: Sequence[tuple[str, float]] = (),
) -> Path:
    """Write ``index.html``, ``report.md``, ``summary.json`` and the PNGs; return the HTML."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    plot_cactus(runs, out / "cactus.png", anchors)
    plot_status(runs, out / "status.png")
    plot_times(runs, out / "times.png")
    summaries = [run_summary(run) for run in runs]
    rows = theorem_rows(runs)
    problems = [problem for run in runs for problem in run.problems]
    context = {
        "title": title,
        "runs": runs,
        "summaries": summaries,
        "rows": rows,
        "proofs": proof_rows(runs),
        "errors": error_rows(runs),
        "statuses": STATUS_ORDER,
        "anchors": anchors,
        "problems": problems,
        "plots": PLOTS,
        "fmt": _format,
        "both_proved": sum(1 for row in rows if row["proved_by"] == len(runs)),
        "any_proved": sum(1 for row in rows if row["proved_by"]),
    }
    env = _templates()
    html = env.get_template("report.html.j2").render(**context)
    html = html.replace("</body>", prove_html(runs) + "</body>")  # prove runs' holes
    (out / "index.html").write_text(html, encoding="utf-8")
    markdown = env.get_template("report.md.j2").render(**context) + prove_markdown(runs)
    (out / "report.md").write_text(markdown, encoding="utf-8")
    (out / "summary.json").write_text(
        json.dumps(
            {"runs": summaries, "anchors": [list(a) for a in anchors], "problems": problems},
            indent=2,
        )
        + "\n",
        encoding="utf-8",
    )
    return out / "index.html"

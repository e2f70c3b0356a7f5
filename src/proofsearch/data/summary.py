"""The end-of-run summary: counts by status, pass rate, times."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from rich.table import Table

from proofsearch.search.result import CHECK_DISAGREEMENT, Status


@dataclass
class Summary:
    """Aggregate figures over result records."""

    total: int = 0
    counts: Counter[str] = field(default_factory=Counter)
    checked: int = 0
    total_time: float = 0.0
    proved_time: float = 0.0
    applications: int = 0
    environment_time: float = 0.0
    #: Proofs the search's prover accepted and the re-check rejected, not as a cheat.
    disagreements: int = 0

    @property
    def proved(self) -> int:
        return self.counts[Status.PROVED]

    @property
    def pass_rate(self) -> float:
        return self.proved / self.total if self.total else 0.0

    @property
    def mean_time(self) -> float:
        return self.total_time / self.total if self.total else 0.0


def summarize(records: Iterable[dict[str, Any]]) -> Summary:
    summary = Summary()
    for record in records:
        summary.total += 1
        summary.counts[record["status"]] += 1
        summary.checked += bool(record.get("checked"))
        summary.disagreements += bool(record.get(CHECK_DISAGREEMENT))
        spent = float(record.get("total_time") or 0.0)
        summary.total_time += spent
        summary.environment_time += float(record.get("environment_time") or 0.0)
        summary.applications += int(record.get("num_tactic_applications") or 0)
        if record["status"] == Status.PROVED:
            summary.proved_time += spent
    return summary


def summary_table(summary: Summary, wall_time: float | None = None) -> Table:
    """A rich table of the summary (printed at the end of ``proofsearch search``)."""
    table = Table(title="proofsearch results", show_header=True)
    table.add_column("status")
    table.add_column("count", justify="right")
    table.add_column("share", justify="right")
    for status in Status:
        count = summary.counts[status]
        share = f"{count / summary.total:.1%}" if summary.total else "-"
        table.add_row(str(status), str(count), share)
    table.add_section()
    table.add_row("total", str(summary.total), "")
    table.add_row("pass rate", f"{summary.pass_rate:.1%}", f"{summary.proved}/{summary.total}")
    table.add_row("re-checked proofs", str(summary.checked), "")
    table.add_row("search/check disagreements", str(summary.disagreements), "")
    table.add_row("search time, total", f"{summary.total_time:.1f} s", "")
    table.add_row("search time, mean", f"{summary.mean_time:.2f} s", "")
    if summary.proved:
        table.add_row("time to proof, mean", f"{summary.proved_time / summary.proved:.2f} s", "")
    if wall_time is not None:
        table.add_row("wall time", f"{wall_time:.1f} s", "")
    return table

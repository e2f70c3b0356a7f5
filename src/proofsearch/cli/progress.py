"""The live progress bar of ``proofsearch search`` (rich), fed by run events."""

from __future__ import annotations

from collections import Counter
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text


class ProgressDisplay:
    """Done / proved / failed / errors, rate, ETA, and worker restarts."""

    def __init__(self, total: int, console: Console | None = None, enabled: bool = True) -> None:
        self.console = console or Console(stderr=True, soft_wrap=True)
        self.counts: Counter[str] = Counter()
        self.restarts = 0
        self._abandoned = False
        self.progress = Progress(
            TextColumn("[bold]search"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[tally]}"),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=self.console,
            disable=not enabled,
            transient=False,
        )
        self.task: TaskID = self.progress.add_task("search", total=total, tally="", rate="")
        self._refresh_fields()

    def _refresh_fields(self) -> None:
        counts = self.counts
        tally = (
            f"[green]proved {counts['proved']}[/] · failed {counts['failed']} · "
            f"open {counts['open']} · [red]errors {counts['error'] + counts['invalid']}[/]"
        )
        if self.restarts:
            tally += f" · [yellow]worker restarts {self.restarts}[/]"
        task = self.progress.tasks[0]
        elapsed = task.elapsed or 0.0
        done = sum(counts.values())
        rate = f"{done / elapsed * 60:.1f} thm/min" if elapsed > 0 and done else ""
        self.progress.update(self.task, tally=tally, rate=rate)

    def __enter__(self) -> ProgressDisplay:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._abandoned:
            # Progress.stop would print a blank line on a non-terminal: stop the Live only.
            self.progress.live.stop()
        else:
            self.progress.stop()

    def abandon(self) -> None:
        """The run failed: erase the bar when it stops, so the error is the last word."""
        self._abandoned = True
        self.progress.live.transient = True

    # RunEvents
    def result(self, record: dict[str, Any]) -> None:
        self.counts[record["status"]] += 1
        self.progress.advance(self.task)
        self._refresh_fields()

    def worker_restarted(self, reason: str) -> None:
        self.restarts += 1
        self._refresh_fields()
        self.progress.console.print(
            Text(f"worker restarted: {reason}", style="yellow"), soft_wrap=True
        )

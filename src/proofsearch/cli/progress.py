"""The live progress of ``proofsearch search`` (rich), fed by run events.

On a terminal it is a bar. Without one (a log file, CI), a bar cannot be redrawn: rich
would print it once, cut to the width it assumes ("0:… ETA 0:…"). There the progress is
a plain line instead, printed when a result arrives at most once every
:data:`PLAIN_INTERVAL` seconds, and once more at the end (:class:`PlainTicker`).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
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

#: Seconds between two plain progress lines (no terminal).
PLAIN_INTERVAL = 10.0


class PlainTicker:
    """Prints a line of progress at most once every ``interval`` seconds.

    ``clock`` is injectable so that tests decide when time passes, whatever the load.
    """

    def __init__(
        self,
        console: Console,
        interval: float = PLAIN_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.console = console
        self.interval = interval
        self.clock = clock
        self.start = clock()
        self._last = self.start
        self._printed = ""

    def elapsed(self) -> float:
        return self.clock() - self.start

    def tick(self, line: Callable[[], str], force: bool = False) -> bool:
        """Print the line if it is time (or ``force``); whether it was printed."""
        now = self.clock()
        if force or now - self._last >= self.interval:
            text = line()
            if force and text == self._printed:
                return False  # the closing line, printed already by the last tick
            self._last, self._printed = now, text
            self.console.print(Text(text), soft_wrap=True, highlight=False)
            return True
        return False


def clock_text(seconds: float) -> str:
    """``H:MM:SS``, as rich's bar shows time."""
    whole = int(max(seconds, 0))
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


class ProgressDisplay:
    """Done / proved / failed / errors, rate, ETA, and worker restarts."""

    def __init__(
        self,
        total: int,
        console: Console | None = None,
        enabled: bool = True,
        *,
        plain: bool | None = None,
        ticker: PlainTicker | None = None,
    ) -> None:
        self.console = console or Console(stderr=True, soft_wrap=True)
        self.total = total
        self.counts: Counter[str] = Counter()
        self.restarts = 0
        self._abandoned = False
        #: Whether the last plain line printed holds the counts as they are.
        self._said_last = False
        #: Plain lines instead of a bar: no terminal to redraw a bar on.
        self.plain = enabled and (not self.console.is_terminal if plain is None else plain)
        self.ticker = ticker or PlainTicker(self.console)
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
            disable=not enabled or self.plain,
            transient=False,
        )
        self.task: TaskID = self.progress.add_task("search", total=total, tally="", rate="")
        self._refresh_fields()

    def _tally(self, markup: bool) -> str:
        counts = self.counts

        def style(text: str, color: str) -> str:
            return f"[{color}]{text}[/]" if markup else text

        tally = (
            f"{style('proved ' + str(counts['proved']), 'green')} · failed {counts['failed']} · "
            f"open {counts['open']} · "
            f"{style('errors ' + str(counts['error'] + counts['invalid']), 'red')}"
        )
        if self.restarts:
            tally += f" · {style(f'worker restarts {self.restarts}', 'yellow')}"
        return tally

    def _rate(self, elapsed: float) -> str:
        done = sum(self.counts.values())
        return f"{done / elapsed * 60:.1f} thm/min" if elapsed > 0 and done else ""

    def _refresh_fields(self) -> None:
        task = self.progress.tasks[0]
        rate = self._rate(task.elapsed or 0.0)
        self.progress.update(self.task, tally=self._tally(markup=True), rate=rate)

    def plain_line(self) -> str:
        """``search 3/10 · proved 2 · ... · 1.5 thm/min · elapsed 0:02:00``."""
        elapsed = self.ticker.elapsed()
        done = sum(self.counts.values())
        parts = [f"search {done}/{self.total}", self._tally(markup=False)]
        rate = self._rate(elapsed)
        if rate:
            parts.append(rate)
        parts.append(f"elapsed {clock_text(elapsed)}")
        return " · ".join(parts)

    def __enter__(self) -> ProgressDisplay:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        # The last line, unless the last result printed it already (it came twice).
        if self.plain and not self._abandoned and not self._said_last:
            self.ticker.tick(self.plain_line, force=True)
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
        if self.plain:
            self._said_last = self.ticker.tick(self.plain_line)

    def worker_restarted(self, reason: str) -> None:
        self.restarts += 1
        self._said_last = False
        self._refresh_fields()
        self.progress.console.print(
            Text(f"worker restarted: {reason}", style="yellow"), soft_wrap=True
        )

    def notice(self, text: str) -> None:
        self.progress.console.print(Text(text, style="yellow"), soft_wrap=True)

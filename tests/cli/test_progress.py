"""Without a terminal, progress is a plain line every few seconds, never a cut bar.

Time is a fake clock here: the test decides when seconds pass, whatever the load.
"""

from __future__ import annotations

import io
from pathlib import Path
from types import SimpleNamespace

from rich.console import Console

from proofsearch.cli.progress import PlainTicker, ProgressDisplay
from proofsearch.cli.trace import TraceProgress
from proofsearch.trace.runner import Summary
from proofsearch.trace.schema import FileRecord


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def trace_bar(
    folder: Path, sizes: tuple[int, ...], interval: float
) -> tuple[TraceProgress, io.StringIO, FakeClock, FileRecord]:
    """A trace's progress over files of ``sizes`` bytes, printing plain lines to a
    string at most every ``interval`` seconds of a fake clock; a record to report."""
    jobs = []
    for number, size in enumerate(sizes):
        (folder / f"F{number}.v").write_text("x" * size)
        jobs.append(SimpleNamespace(source=SimpleNamespace(path=folder / f"F{number}.v")))
    stream, clock = io.StringIO(), FakeClock()
    bar = TraceProgress(jobs, Summary(files=len(sizes)))
    console = Console(file=stream, force_terminal=False, width=40, soft_wrap=True)
    bar.plain, bar.ticker = True, PlainTicker(console, interval=interval, clock=clock)
    record = FileRecord(
        file="A.v", module="A", requires=[], key="k", coq_version="8.16.1", status="traced"
    )
    return bar, stream, clock, record


def display(stream: io.StringIO, clock: FakeClock, total: int = 5) -> ProgressDisplay:
    console = Console(file=stream, force_terminal=False, width=40, soft_wrap=True)
    return ProgressDisplay(total, console, ticker=PlainTicker(console, interval=10.0, clock=clock))


def test_plain_lines_at_most_every_interval_and_at_the_end() -> None:
    stream, clock = io.StringIO(), FakeClock()
    progress = display(stream, clock)
    assert progress.plain  # not a terminal
    with progress:
        progress.result({"status": "proved"})
        assert stream.getvalue() == ""  # less than 10 s since the start
        clock.now += 10
        progress.result({"status": "failed"})
        clock.now += 3
        progress.result({"status": "error"})  # 3 s after the last line: quiet
        clock.now += 62
    lines = stream.getvalue().splitlines()
    assert lines == [
        "search 2/5 · proved 1 · failed 1 · open 0 · errors 0 · 12.0 thm/min · elapsed 0:00:10",
        "search 3/5 · proved 1 · failed 1 · open 0 · errors 1 · 2.4 thm/min · elapsed 0:01:15",
    ]  # whole lines, never cut to the 40 columns the console assumes; no bar, no "ETA"


def test_the_last_result_s_line_is_not_printed_again_at_the_end() -> None:
    """An audit's run ended with the same `search 12/12 …` line twice."""
    stream, clock = io.StringIO(), FakeClock()
    with display(stream, clock, total=2) as progress:
        clock.now += 10
        progress.result({"status": "proved"})
        clock.now += 10
        progress.result({"status": "proved"})  # the last result prints the last line
    assert [line.split(" · ")[0] for line in stream.getvalue().splitlines()] == [
        "search 1/2", "search 2/2"
    ]  # fmt: skip


def test_a_terminal_gets_the_bar_and_no_plain_lines() -> None:
    stream, clock = io.StringIO(), FakeClock()
    console = Console(file=stream, force_terminal=True, width=120)
    ticker = PlainTicker(console, interval=10.0, clock=clock)
    progress = ProgressDisplay(2, console, ticker=ticker)
    assert not progress.plain
    with progress:
        clock.now += 100
        progress.result({"status": "proved"})
    assert "elapsed" not in stream.getvalue() and "search" in stream.getvalue()


def test_an_abandoned_run_prints_no_last_line() -> None:
    stream, clock = io.StringIO(), FakeClock()
    progress = display(stream, clock)
    with progress:
        progress.result({"status": "error"})
        progress.abandon()
    assert stream.getvalue() == ""


def test_a_traces_plain_lines_say_how_long_is_left(tmp_path: Path) -> None:
    """Without a terminal the trace's lines had no end in sight (a large library's trace
    ran for minutes with only "elapsed"): they estimate what is left by source bytes,
    as the bar's ETA does, and the last line (everything done) has no estimate."""
    bar, stream, clock, record = trace_bar(tmp_path, (100, 300), interval=10.0)
    with bar:
        clock.now += 30
        bar.record(record, False, 100)  # a quarter of the bytes in 30 s: 90 s left
        clock.now += 5
        bar.record(record, False, 300)  # 5 s after the last line: quiet until the end
    assert stream.getvalue().splitlines() == [
        "trace files 1/2 · lemmas 0 · steps 0 · failed 0 · elapsed 0:00:30 · about 0:01:30 left",
        "trace files 2/2 · lemmas 0 · steps 0 · failed 0 · elapsed 0:00:35",
    ]


def test_a_traces_estimate_follows_a_slowing_rate(tmp_path: Path) -> None:
    """Later files of a library are slower per byte (the stdlib's trace was promised 1:44
    more after 10 s and took 7:02): where the last minute's rate is slower than the whole
    run's, the plain line's estimate uses it."""
    bar, _, clock, record = trace_bar(tmp_path, (100, 100, 100, 100), interval=1000.0)
    with bar:
        for seconds in (10, 10, 60):  # 100 bytes each: the third takes 60 s
            clock.now += seconds
            bar.record(record, False, 100)
        # The whole run's rate (300 bytes in 80 s) says 27 s; the last 60 s's says 60 s.
        assert bar.plain_line().endswith("elapsed 0:01:20 · about 0:01:00 left")
        clock.now -= 60  # as if the third file had come at 20 s: the whole run's rate, 6.7 s
        bar._samples[-1] = (20.0, 300)
        assert bar.plain_line().endswith("elapsed 0:00:20 · about 0:00:06 left")


def test_the_closing_line_is_not_printed_twice() -> None:
    """A trace whose last file ended just as a line was due printed that line, then the
    same line again as its closing one (verification 48)."""
    stream, clock = io.StringIO(), FakeClock()
    ticker = PlainTicker(Console(file=stream, width=40), interval=10.0, clock=clock)
    clock.now += 10
    assert ticker.tick(lambda: "files 5/5")
    assert not ticker.tick(lambda: "files 5/5", force=True)
    assert ticker.tick(lambda: "files 5/5 · 1 failed", force=True)  # something new: printed
    assert stream.getvalue().splitlines() == ["files 5/5", "files 5/5 · 1 failed"]


def test_a_long_file_is_not_silence(tmp_path: Path) -> None:
    """A library's trace log stood at "17/22 · about 0:00:53 left" for 4 minutes while
    one big file was traced: lines came only when a file ended. A heartbeat now asks for a
    line between files too (at most one per interval, as before), and stops with the bar."""
    bar, stream, clock, record = trace_bar(tmp_path, (100, 300), interval=10.0)
    with bar:
        assert bar._beating is not None and bar._beating.is_alive()
        clock.now += 30
        bar.record(record, False, 100)
        clock.now += 60  # the second file still running
        bar.beat()  # what the heartbeat does every few seconds
        clock.now += 5
        bar.beat()  # 5 s after the last line: quiet
        clock.now += 5
        bar.record(record, False, 300)
    assert not bar._beating.is_alive()
    assert stream.getvalue().splitlines() == [
        "trace files 1/2 · lemmas 0 · steps 0 · failed 0 · elapsed 0:00:30 · about 0:01:30 left",
        "trace files 1/2 · lemmas 0 · steps 0 · failed 0 · elapsed 0:01:30 · about 0:04:30 left",
        "trace files 2/2 · lemmas 0 · steps 0 · failed 0 · elapsed 0:01:40",
    ]

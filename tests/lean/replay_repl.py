#!/usr/bin/env python3
"""A strict stand-in for the Lean REPL that replays a transcript recorded from real Lean.

    python tests/lean/replay_repl.py FIXTURE.in FIXTURE.expected.out [--skip 1,2]

It reads requests exactly as the REPL does (lines up to a blank one, each stripped on
the right and concatenated; a request starting with ``#`` or ``--`` gets no reply; end
of input ends the session) and answers the N-th request with the N-th recorded reply,
verbatim (Lean's own pretty-printing) and followed by a blank line, when -- and only
when -- the request equals the N-th recorded request as parsed JSON. Anything else is a
loud failure: a message on stderr and a non-zero exit, like the real REPL on a request
it cannot parse (exit 1: not JSON; 3: a request that differs from the transcript; 4:
more requests than recorded).

``--skip 1,2`` drops recorded exchanges (1-based, comments not counted): a transcript
that starts with a whole-proof check can then serve the tactic-mode part alone. Replies
keep their recorded ids, which is sound because the backend only uses ids it was given.

``--report-dir DIR`` writes ``DIR/PID.json`` after every request and at exit: the
exchanges used and recorded, and the exit code with its message. The backend takes a
replay that exits on a wrong request for a crashed REPL and starts another, so the
exit code alone is not seen by a test: the tests read these reports (a process killed
by the backend leaves its last report, with no exit code). ``--allow-unused`` marks
the report of a replay the test does not expect to use up.

Standard library only, on purpose: it must not share code (or bugs) with the backend.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO


@dataclass(frozen=True)
class Exchange:
    """One recorded request (as sent and as parsed) and the reply Lean gave."""

    request_text: str
    request: Any
    reply_text: str


def requests_of(lines: Iterable[str]) -> Iterator[str]:
    """Requests as the REPL's ``getLines`` reads them: non-blank lines, right-stripped and
    concatenated, up to a blank line."""
    current: list[str] = []
    for line in lines:
        if line.strip():
            current.append(line.rstrip())
        elif current:
            yield "".join(current)
            current = []
    if current:
        yield "".join(current)


def replies_of(text: str) -> list[str]:
    """Replies: blocks of lines separated by blank lines (JSON never holds a blank line)."""
    blocks: list[str] = []
    current: list[str] = []
    for line in text.splitlines():
        if line.strip():
            current.append(line)
        elif current:
            blocks.append("\n".join(current))
            current = []
    if current:
        blocks.append("\n".join(current))
    return blocks


def is_comment(request: str) -> bool:
    return request.startswith("#") or request.startswith("--")


def load_transcript(in_path: Path, out_path: Path) -> list[Exchange]:
    """Pair each non-comment request with its reply; raise ``ValueError`` on a mismatch."""
    requests = [
        r
        for r in requests_of(in_path.read_text(encoding="utf-8").splitlines())
        if not is_comment(r)
    ]
    replies = replies_of(out_path.read_text(encoding="utf-8"))
    if len(requests) != len(replies):
        raise ValueError(
            f"{in_path}: {len(requests)} requests but {out_path}: {len(replies)} replies"
        )
    exchanges = []
    for number, (request, reply) in enumerate(zip(requests, replies, strict=True), start=1):
        try:
            parsed = json.loads(request)
            json.loads(reply)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{in_path}: exchange {number} is not JSON: {exc}") from None
        exchanges.append(Exchange(request, parsed, reply))
    return exchanges


def read_request(stream: TextIO) -> str | None:
    """The next request from ``stream`` as the REPL reads it; ``None`` at end of input."""
    parts: list[str] = []
    while True:
        line = stream.readline()
        if line == "":
            return "".join(parts) if parts else None
        if not line.strip():
            return "".join(parts) + line
        parts.append(line.rstrip())


#: Where this process reports (``--report-dir``), and what it reports.
REPORT: dict[str, Any] = {}
REPORT_PATH: list[Path] = []


def write_report(**fields: Any) -> None:
    """Rewrite this process's report (atomically: a reader never sees half of it)."""
    if not REPORT_PATH:
        return
    REPORT.update(fields)
    path = REPORT_PATH[0]
    partial = path.with_suffix(".part")
    partial.write_text(json.dumps(REPORT), encoding="utf-8")
    partial.replace(path)


def fail(code: int, message: str) -> int:
    sys.stderr.write(f"replay_repl: {message}\n")
    sys.stderr.flush()
    write_report(exit=code, message=message)
    return code


class Replayer:
    """Answers requests from a transcript, strictly in order."""

    def __init__(self, exchanges: list[Exchange], name: str) -> None:
        self.exchanges = exchanges
        self.name = name
        self.index = 0

    def answer(self, raw: str) -> tuple[int, str | None]:
        """(exit code or 0, reply text or None when no reply is due)."""
        if is_comment(raw):
            return 0, None
        try:
            request = json.loads(raw)
        except json.JSONDecodeError as exc:
            return fail(1, f"could not parse JSON: {exc}: {raw!r}"), None
        number = self.index + 1
        if self.index >= len(self.exchanges):
            return fail(
                4,
                f"{self.name}: request {number} is beyond the transcript"
                f" ({len(self.exchanges)} recorded): got {json.dumps(request, ensure_ascii=False)}",
            ), None
        expected = self.exchanges[self.index]
        if request != expected.request:
            return fail(
                3,
                f"{self.name}: request {number} differs from the transcript\n"
                f"  expected: {json.dumps(expected.request, ensure_ascii=False)}\n"
                f"  got:      {json.dumps(request, ensure_ascii=False)}",
            ), None
        self.index += 1
        return 0, expected.reply_text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("requests", type=Path)
    parser.add_argument("replies", type=Path)
    parser.add_argument("--skip", default="", help="1-based exchanges to drop, e.g. 1,2")
    parser.add_argument("--report-dir", type=Path, help="write DIR/PID.json (see above)")
    parser.add_argument(
        "--allow-unused", action="store_true", help="the test does not use up the transcript"
    )
    args = parser.parse_args(argv)
    exchanges = load_transcript(args.requests, args.replies)
    skip = {int(x) for x in args.skip.split(",") if x.strip()}
    exchanges = [e for number, e in enumerate(exchanges, start=1) if number not in skip]
    replayer = Replayer(exchanges, args.requests.name)
    if args.report_dir is not None:
        REPORT_PATH.append(args.report_dir / f"{os.getpid()}.json")
        REPORT.update(
            fixture=str(args.requests), pid=os.getpid(), recorded=len(exchanges),
            allow_unused=args.allow_unused,
        )  # fmt: skip
    write_report(used=0, exit=None, message="")
    while True:
        raw = read_request(sys.stdin)
        if raw is None:
            write_report(exit=0)
            return 0
        code, reply = replayer.answer(raw)
        if code:
            return code
        write_report(used=replayer.index)
        if reply is not None:
            sys.stdout.write(reply + "\n\n")
            sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())

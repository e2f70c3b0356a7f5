#!/usr/bin/env python3
"""The replay server with one fault injected, to test the backend's process management.

    python tests/lean/faulty_repl.py FAULT AT FIXTURE.in FIXTURE.expected.out
        [--once MARKER] [--pids FILE]

FAULT happens on the AT-th request (1-based) instead of its reply:

* ``hang``: never answer (sleep);
* ``die``: write the first half of the reply, a message on stderr, and exit 1;
* ``garbage``: write a line that is not JSON (and a blank line).

``--once MARKER``: only when the file MARKER does not exist yet (it is created), so that
the restarted process behaves. ``--pids FILE``: start a grandchild (``sleep``) in the
same process group, as ``lake env`` starts the REPL, and write both pids to FILE.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from replay_repl import Replayer, load_transcript, read_request


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("fault", choices=["hang", "die", "garbage"])
    parser.add_argument("at", type=int)
    parser.add_argument("requests", type=Path)
    parser.add_argument("replies", type=Path)
    parser.add_argument("--once", type=Path)
    parser.add_argument("--pids", type=Path)
    args = parser.parse_args()
    if args.pids:
        child = subprocess.Popen(["sleep", "600"])
        with args.pids.open("a") as handle:
            handle.write(f"{os.getpid()} {child.pid}\n")
    faulty = True
    if args.once is not None:
        faulty = not args.once.exists()
    replayer = Replayer(load_transcript(args.requests, args.replies), args.requests.name)
    received = 0
    while True:
        raw = read_request(sys.stdin)
        if raw is None:
            return 0
        received += 1
        code, reply = replayer.answer(raw)
        if code:
            return code
        if faulty and received == args.at and reply is not None:
            if args.once is not None:
                args.once.touch()
            if args.fault == "hang":
                time.sleep(3600)
            if args.fault == "die":
                sys.stdout.write(reply[: len(reply) // 2])
                sys.stdout.flush()
                sys.stderr.write(f"faulty_repl: dying on request {received}\n")
                sys.stderr.flush()
                os._exit(1)
            sys.stdout.write("this is not JSON at all\n\n")
            sys.stdout.flush()
            continue
        if reply is not None:
            sys.stdout.write(reply + "\n\n")
            sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())

"""A prover process that answers while it is still being written to must not deadlock us.

coqidetop answers the first calls of a batch before it reads the rest. When the batch is
larger than the pipe and the answers fill the other pipe, a blocking write waits for a
process that waits for us: tracing stdpp's ``fin_maps.v`` hung for ever that way.
"""

from __future__ import annotations

import sys
import threading

from proofsearch.env.process import ManagedProcess, ProcessDied

#: Reads a line, answers it with 16 KiB, and only then reads the next one.
ECHO_BIG = (
    "import sys\n"
    "for line in sys.stdin.buffer:\n"
    "    sys.stdout.buffer.write(line.strip() + b':' + b'x' * 16384 + b'\\n')\n"
    "    sys.stdout.buffer.flush()\n"
)


def test_a_batch_larger_than_the_pipe_is_written_while_answers_pile_up() -> None:
    process = ManagedProcess([sys.executable, "-c", ECHO_BIG])
    lines = 3000  # 3000 x 100 bytes in, 3000 x 16 KiB out: both far over a 64 KiB pipe
    batch = b"".join(f"{i:099d}\n".encode() for i in range(lines))
    written = threading.Event()

    def write() -> None:
        process.write(batch)
        written.set()

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    try:
        # A deadlocked write never returns; a working one returns as soon as the child has
        # read everything (seconds even on a loaded machine).
        assert written.wait(timeout=120), "the write blocked on a full pipe (deadlock)"
        received = b""
        while received.count(b"\n") < lines:
            data = process.read(deadline=None)
            assert data is not None
            received += data
        answers = received.split(b"\n")[:lines]
        assert [a.split(b":")[0] for a in answers] == [f"{i:099d}".encode() for i in range(lines)]
        assert all(len(a) == 99 + 1 + 16384 for a in answers)
    finally:
        process.kill()


def test_a_process_that_dies_while_written_to_is_reported() -> None:
    process = ManagedProcess([sys.executable, "-c", "import sys; sys.stdin.readline()"])
    try:
        try:
            for _ in range(50):  # the first write may fit the pipe before the child exits
                process.write(b"y\n" * (1 << 19))
            raise AssertionError("writing to a process that exited did not fail")
        except ProcessDied as exc:
            assert "exited with code" in str(exc)
    finally:
        process.kill()

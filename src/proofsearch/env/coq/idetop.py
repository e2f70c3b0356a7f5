"""A coqidetop process and the pipelined calls made to it.

Calls are written all at once and their replies read in order: a node expansion sends
``Add``/``Goal``/``Edit_at`` for every candidate tactic in one write, which saves two
process wake-ups per call. Each call has its own time limit, counted from the moment
the previous reply arrived (coqidetop answers calls one at a time).
"""

from __future__ import annotations

import collections
import shutil
import time
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from proofsearch.env.base import EnvError, ProverStartError
from proofsearch.env.coq import xml
from proofsearch.env.coq.version import (
    NATIVE_OFF,
    CoqVersion,
    check_supported,
    coq_env,
    find_idetop,
    supported_range,
)
from proofsearch.env.process import ManagedProcess, ProcessDied


@dataclass
class Reply:
    """The ``<value>`` answering one call, and the errors fed back before it.

    ``errors`` pairs each error message with the state it is about: a failing command
    that is not at the tip (``Check undefined.`` in a header) is reported only there,
    while the ``Goal`` reply itself says ``good``. The value is parsed on first use.
    """

    element: xml.RawElement
    feedback: list[xml.RawElement] = field(default_factory=list)

    @property
    def errors(self) -> list[tuple[int, str]]:
        """(state id, message) of each error fed back before the value."""
        found = (_error_message(element.tree) for element in self.feedback)
        return [error for error in found if error is not None]

    @property
    def messages(self) -> list[tuple[int, str, str]]:
        """(state id, level, text) of each message fed back before the value.

        Only filled when the process keeps messages (``keep_messages=True``); errors
        are always there.
        """
        found = (_message(element.tree) for element in self.feedback)
        return [message for message in found if message is not None]

    @property
    def value(self) -> ET.Element:
        return self.element.tree

    @property
    def good(self) -> bool:
        return self.element.good

    @property
    def message(self) -> str:
        """The failure's message (or the first error fed back)."""
        text = xml.failure_message(self.value) if not self.good else ""
        return text or (self.errors[0][1] if self.errors else "")


class ReplyTimeout(Exception):
    """Call ``index`` got no reply in time; ``replies`` holds those that came before."""

    def __init__(self, index: int, replies: list[Reply]) -> None:
        super().__init__(f"no reply to call {index} in time")
        self.index = index
        self.replies = replies


class CallsInterrupted(Exception):
    """The process died during a batch; ``replies`` holds those that came before."""

    def __init__(self, cause: ProcessDied, replies: list[Reply]) -> None:
        super().__init__(str(cause))
        self.replies = replies


@dataclass(frozen=True)
class Call:
    """One XML call and its time limit in seconds (``None``: wait as long as it takes)."""

    xml: str
    timeout: float | None = None


class CoqIdeTop:
    """One ``coqidetop[.opt] -main-channel stdfds -async-proofs off`` process.

    Native compilation is off (:data:`~proofsearch.env.coq.version.NATIVE_OFF`, after
    ``args`` so that it wins), and ``tmpdir`` is its temporary folder. The version its
    ``About`` reply gives is checked against the supported ones
    (:mod:`~proofsearch.env.coq.version`); ``allow_unsupported_version`` turns the
    refusal into a warning.
    """

    def __init__(
        self,
        binary: str = "coqidetop.opt",
        args: Sequence[str] = (),
        *,
        memory_limit: int | None = None,
        cwd: str | Path | None = None,
        start_timeout: float = 30.0,
        keep_messages: bool = False,
        allow_unsupported_version: bool = False,
        tmpdir: str | Path | None = None,
    ) -> None:
        binary = find_idetop(binary)
        command = [binary, "-main-channel", "stdfds", "-async-proofs", "off", *args, *NATIVE_OFF]
        if shutil.which(binary) is None:
            raise ProverStartError(
                f"{binary} not found: install Coq {supported_range()} "
                "(Debian/Ubuntu: apt-get install coq)"
            )
        self.process = ManagedProcess(
            command, cwd=cwd, memory_limit=memory_limit, env=coq_env(tmpdir=tmpdir)
        )
        self._stream = xml.ReplyStream(keep_messages)
        #: Seconds to wait before reading when more replies of a batch are due.
        self.coalesce = 0.001
        self._pending: collections.deque[xml.RawElement] = collections.deque()
        try:
            about, init = self.calls(
                [Call(xml.about_call(), start_timeout), Call(xml.init_call(), start_timeout)]
            )
        except (ReplyTimeout, CallsInterrupted, ProcessDied) as exc:
            self.close()
            tail = self.process.stderr_tail
            raise ProverStartError(f"{binary} did not start: {exc} {tail}") from exc
        self.version = xml.text_of(about.value.find("coq_info/string"))
        try:
            self.coq_version = CoqVersion.parse(self.version)
            check_supported(self.coq_version, binary, allow_unsupported_version)
        except EnvError:
            self.close()
            raise
        state = init.value.find("state_id")
        assert state is not None
        self.root_state = int(state.get("val", "1"))

    @property
    def pid(self) -> int:
        return self.process.pid

    def calls(self, calls: Sequence[Call]) -> list[Reply]:
        """Send every call in one write and return their replies, in order."""
        try:
            self.process.write("".join(c.xml for c in calls).encode())
        except ProcessDied as exc:  # killed between two batches: no reply came
            raise CallsInterrupted(exc, []) from exc
        replies: list[Reply] = []
        for index, item in enumerate(calls):
            deadline = None if item.timeout is None else time.monotonic() + item.timeout
            if not self._pending and index + 1 < len(calls):
                # More replies are coming: let a few pile up in the pipe and take them in
                # one read (one wake-up per reply costs more CPU than coqidetop saves).
                time.sleep(self.coalesce)
            try:
                reply = self._next_reply(deadline)
            except ProcessDied as exc:
                raise CallsInterrupted(exc, replies) from exc
            if reply is None:
                raise ReplyTimeout(index, replies)
            replies.append(reply)
        return replies

    def _next_reply(self, deadline: float | None) -> Reply | None:
        feedback: list[xml.RawElement] = []
        while True:
            while self._pending:
                element = self._pending.popleft()
                if element.tag == b"value":
                    return Reply(element, feedback)
                feedback.append(element)
            data = self.process.read(deadline)
            if data is None:
                return None
            self._pending.extend(self._stream.feed(data))

    def close(self) -> None:
        self.process.kill()


def _message(element: ET.Element) -> tuple[int, str, str] | None:
    """The state, level and text of the message a ``<feedback>`` carries, if any."""
    message = element.find("feedback_content/message")
    if message is None:
        return None
    level = message.find("message_level")
    state = element.find("state_id")
    return (
        int(state.get("val", "0")) if state is not None else 0,
        level.get("val", "") if level is not None else "",
        xml.text_of(message.find("richpp")).strip(),
    )


def _error_message(element: ET.Element) -> tuple[int, str] | None:
    """The state and text of an error-level message carried by a ``<feedback>``."""
    for message in element.iter("message"):
        level = message.find("message_level")
        if level is not None and level.get("val") == "error":
            state = element.find("state_id")
            state_id = int(state.get("val", "0")) if state is not None else 0
            return state_id, xml.text_of(message.find("richpp")).strip()
    return None

"""How a run reports what happens to whoever shows it (a progress bar, a test)."""

from __future__ import annotations

from typing import Any, Protocol


class RunEvents(Protocol):
    """Callbacks a runner makes; all are called from the driver's thread."""

    def result(self, record: dict[str, Any]) -> None:
        """A theorem's result was written to the results file."""

    def worker_restarted(self, reason: str) -> None:
        """A worker died or was killed and has been replaced."""

    def notice(self, text: str) -> None:
        """Something the user should know that is not an error (the cluster is short
        of CPUs for the workers asked for)."""


class NoEvents:
    """Ignores every event."""

    def result(self, record: dict[str, Any]) -> None:
        pass

    def worker_restarted(self, reason: str) -> None:
        pass

    def notice(self, text: str) -> None:
        pass

"""One error style for every subcommand.

Every message that stops a command is one line::

    proofsearch <command>: <what>: <why>; <how to fix>

``<what>`` names the file (with its line), the field or the option; ``<how to fix>``
is omitted only where there is nothing the user can do. A subcommand raises
:class:`CommandError`; :func:`proofsearch.cli.main` prints it and returns its exit code,
so no subcommand formats the prefix itself.
"""

from __future__ import annotations

from proofsearch.cli.codes import EXIT_USAGE


class CommandError(Exception):
    """The command cannot go on: ``what``, ``why`` and ``fix`` make its one line."""

    def __init__(self, what: str, why: str, fix: str = "", code: int = EXIT_USAGE) -> None:
        super().__init__(error_body(what, why, fix))
        self.code = code


def error_body(what: str, why: str, fix: str = "") -> str:
    """``<what>: <why>; <fix>``, one line whatever the parts hold."""
    body = f"{what}: {why}" if what else why
    if fix:
        body += f"; {fix}"
    return " ".join(body.split())


def error_line(command: str | None, body: str) -> str:
    """``proofsearch <command>: <body>``."""
    prefix = f"proofsearch {command}" if command else "proofsearch"
    return f"{prefix}: {body}"

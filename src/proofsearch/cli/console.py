"""Consoles for the CLI's messages: never hard-wrapped, never read as markup.

rich wraps printed text at the terminal's width (80 columns when the output is not a
terminal), in the middle of words and paths. An error message must survive being
copied, and tests must not depend on ``COLUMNS``: messages are printed with
``soft_wrap`` (one line stays one line; the terminal wraps it if it wants).
"""

from __future__ import annotations

from rich.console import Console
from rich.text import Text


def message_console(stderr: bool = True) -> Console:
    """A console whose ``print`` never inserts line breaks."""
    return Console(stderr=stderr, soft_wrap=True)


def print_error(console: Console, message: str) -> None:
    """One error, in red, exactly as given (brackets in paths are not markup)."""
    console.print(Text(message, style="red"), soft_wrap=True)


def print_notice(console: Console, message: str, style: str = "yellow") -> None:
    """A notice that is not fatal (a bad line skipped, a worker restarted)."""
    console.print(Text(message, style=style), soft_wrap=True)

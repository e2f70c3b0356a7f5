"""The Lean text the backend builds around a statement: the ``sorry`` that opens a proof
state, the whole-proof command of the re-check, and the declaration's name.

A miniF2F statement ends in ``:= by``; LeanDojo's end in ``:=``; a bare ``theorem foo :
T`` has neither. All three are accepted. The layout of the whole-proof command matters
twice: Lean's tactic blocks are indentation-sensitive (every tactic is indented by the
same two spaces, so that the relative layout of a multi-line tactic is kept), and the
recorded REPL transcripts use exactly this layout (one single-line tactic on the
``by`` line, several tactics on their own indented lines), so the re-check can be
tested against them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_BY_END = re.compile(r":=\s*by\s*\Z")
_ASSIGN_END = re.compile(r":=\s*\Z")
_KEYWORD = re.compile(r"(?<![\w.'«])(theorem|lemma|example|def|abbrev|instance)(?![\w'!?])")
_NAME = re.compile(r"\s+((?:«[^»]*»|[^\s:({\[⦃«.]+)(?:\.(?:«[^»]*»|[^\s:({\[⦃«.]+))*)")

#: The name an ``example`` gets in the re-check, so that ``#print axioms`` can name it.
EXAMPLE_NAME = "proofsearch_checked_example"


def block_comment_end(text: str, start: int) -> int | None:
    """The index just past the (nested) ``/- … -/`` comment opened at ``start``, or
    ``None`` when it is never closed (Lean reads the rest of the file as comment)."""
    depth, i, n = 1, start + 2, len(text)
    while i < n and depth:
        if text.startswith("/-", i):
            depth, i = depth + 1, i + 2
        elif text.startswith("-/", i):
            depth, i = depth - 1, i + 2
        else:
            i += 1
    return None if depth else i


def mask_comments_and_strings(text: str) -> str:
    """``text`` with comments and string literals blanked out (positions kept)."""
    out = list(text)
    i, n = 0, len(text)

    def blank(start: int, end: int) -> None:
        for k in range(start, min(end, n)):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        if text.startswith("--", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            blank(i, end)
            i = end
        elif text.startswith("/-", i):
            j = block_comment_end(text, i)
            j = n if j is None else j
            blank(i, j)
            i = j
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            blank(i, j + 1)
            i = j + 1
        else:
            i += 1
    return "".join(out)


@dataclass(frozen=True)
class Declaration:
    """Where a statement declares what: ``keyword`` at ``start``, ``name`` (``None`` for an
    ``example``) ending at ``end``."""

    keyword: str
    name: str | None
    start: int
    end: int


def find_declaration(statement: str) -> Declaration | None:
    """The first declaration keyword of ``statement`` and the name after it."""
    masked = mask_comments_and_strings(statement)
    match = _KEYWORD.search(masked)
    if match is None:
        return None
    keyword = match.group(1)
    if keyword == "example":
        return Declaration(keyword, None, match.start(), match.end())
    name = _NAME.match(masked, match.end())
    if name is None:
        return None
    return Declaration(keyword, statement[name.start(1) : name.end(1)], match.start(), name.end())


def proof_head(statement: str) -> str:
    """The statement, ending in ``:= by``."""
    text = statement.rstrip()
    if not text:
        raise ValueError("empty statement")
    if _BY_END.search(text):
        return text
    if _ASSIGN_END.search(text):
        return text + " by"
    return text + " := by"


def sorry_command(statement: str) -> str:
    """The command whose only ``sorry`` opens the proof state of the statement."""
    text = statement.rstrip()
    if not text:
        raise ValueError("empty statement")
    if _BY_END.search(text) or _ASSIGN_END.search(text):
        return text + " sorry"
    return text + " := by sorry"


def proof_text(statement: str, tactics: Sequence[str]) -> str:
    """Statement and tactics as one command: a single one-line tactic on the ``by`` line,
    otherwise one tactic after another, each line indented by two spaces."""
    head = proof_head(statement)
    if len(tactics) == 1 and "\n" not in tactics[0]:
        return f"{head} {tactics[0]}"
    lines = [head]
    for tactic in tactics:
        lines.extend("  " + line if line.strip() else line for line in tactic.split("\n"))
    return "\n".join(lines)


def named_for_check(statement: str) -> tuple[str, str]:
    """The statement as the re-check runs it, and the name ``#print axioms`` needs.

    An ``example`` has no name to print the axioms of: it becomes a ``theorem`` named
    :data:`EXAMPLE_NAME`. Raises ``ValueError`` when no declaration is found.
    """
    declaration = find_declaration(statement)
    if declaration is None:
        raise ValueError(
            "cannot find the declaration (theorem/lemma/example/def NAME ...) in the statement"
        )
    if declaration.name is None:
        before, after = statement[: declaration.start], statement[declaration.end :]
        return f"{before}theorem {EXAMPLE_NAME}{after}", EXAMPLE_NAME
    return statement, declaration.name

"""Reading what a sentence declared from Coq's own answers.

Two sources, both from coqidetop: the announcements a verbose ``Add`` makes
(``t is defined``, ``t_rect is defined``, ``ax is declared``), which name schemes,
projections and unnamed instances that no parse of the source would find, and the
``About`` query, which says what a name is (``Expands to: Constant Coq.Init.Nat.add``)
and gives its type as Coq prints it (on one line: Coq breaks query answers at a
fixed margin). Constructors are never announced: ``Print`` of
their inductive lists them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ANNOUNCED = re.compile(
    r"^([^\W\d][\w'.]*(?:, [^\W\d][\w'.]*)*) (?:is|are) "
    r"(?:defined|declared|assumed|recursively defined|corecursively defined)\b"
)
_EXPANDS = re.compile(r"Expands to:\s+(\w+)\s+(\S+)")
_LINE_BREAK = re.compile(r"\s*\n\s*")
_ABOUT_HEAD = re.compile(r"^\S+?(?:@\{[^}]*\})?\s*:\s*", re.S)
_CONSTRUCTOR = re.compile(r"(?:^|:=|\|)\s*([^\W\d][\w']*)\s*(?::|\{)")


def announced_names(messages: list[str]) -> list[str]:
    """Names in ``foo is defined`` / ``f, g are recursively defined`` messages, in order."""
    names: list[str] = []
    for message in messages:
        match = _ANNOUNCED.match(message)
        if match is None or message.startswith(("Module ", "Interactive ")):
            continue
        for name in match.group(1).split(", "):
            if name not in names:
                names.append(name)
    return names


@dataclass(frozen=True)
class About:
    """What ``About name.`` said: the object's class, its kernel name and its type."""

    what: str
    kernel_name: str
    statement: str


def parse_about(text: str) -> About | None:
    """Read an ``About`` answer; ``None`` for anything that is not a global object."""
    expands = _EXPANDS.search(text)
    if expands is None:
        return None
    head = text.split("\n\n", 1)[0]
    match = _ABOUT_HEAD.match(head)
    statement = head[match.end() :].strip() if match else head.strip()
    # Coq breaks query answers at its default margin, whatever the printing width:
    # a statement is kept on one line, like the goals.
    statement = _LINE_BREAK.sub(" ", statement)
    return About(expands.group(1), expands.group(2), statement)


def constructor_candidates(printed: str) -> list[str]:
    """Names that look like constructors in a ``Print`` of an inductive or record.

    Candidates only: each one is confirmed by ``About`` (``Expands to: Constructor``),
    so a ``|`` inside a type that happens to match costs a query, never a wrong record.
    """
    head = printed.split("\n\n", 1)[0]
    found: list[str] = []
    for match in _CONSTRUCTOR.finditer(head):
        name = match.group(1)
        if name not in found:
            found.append(name)
    return found

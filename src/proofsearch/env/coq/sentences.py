"""Splitting Coq source into sentences, as coqidetop's ``Add`` needs them one at a time.

``Add`` parses exactly one sentence and silently ignores the rest of its string, so a
splitter that is too coarse would drop code without a word. The rules follow Coq's
lexer: a sentence ends at a ``.`` followed by a blank or the end of input; ``..`` does
not end one, ``...`` (a tactic run with the default of ``Proof with``) does. Comments
``(* *)`` nest, strings double their quotes, and at the start of a sentence a bullet
(``-``, ``+``, ``*`` repeated), a brace, or a goal selector before a brace (``2: {``) is
a sentence of its own. Coq-Elpi's quotations (``Elpi Accumulate lp:{{ main _ :- … .
}}.``) are Elpi code, whose dots and braces are not Coq's: read as one token.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_BULLET = re.compile(r"(-+|\++|\*+|\{|\})")
_SELECTOR_BRACE = re.compile(r"(\d+|\[\s*[\w']+\s*\])\s*:\s*\{")


class SentenceError(ValueError):
    """The text cannot be split: an unterminated comment or string. ``line``: the line
    of the text it opens on (a file's line when the text is a file's)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


def _unterminated(what: str, text: str, start: int) -> SentenceError:
    """The error for ``what`` opened at ``start`` and never closed (as Coq says it: where
    it opens, not at the end of the file)."""
    line = text.count("\n", 0, start) + 1
    return SentenceError(f"unterminated {what} opened on line {line}", line)


@dataclass(frozen=True)
class Sentence:
    """One sentence and its offset in the text it came from."""

    text: str
    start: int


def _skip_comment(text: str, i: int) -> int:
    """Index just after the comment that opens at ``i`` (nested comments included)."""
    start = i
    depth = 0
    n = len(text)
    while i < n:
        if text.startswith("(*", i):
            depth += 1
            i += 2
        elif text.startswith("*)", i):
            depth -= 1
            i += 2
            if depth == 0:
                return i
        elif text[i] == '"':
            i = _skip_string(text, i)
        else:
            i += 1
    raise _unterminated("comment", text, start)


def _skip_string(text: str, i: int) -> int:
    """Index just after the string literal that opens at ``i``."""
    start = i
    i += 1
    n = len(text)
    while i < n:
        if text[i] == '"':
            if i + 1 < n and text[i + 1] == '"':
                i += 2
                continue
            return i + 1
        i += 1
    raise _unterminated("string", text, start)


_QUOTATION = re.compile(r"lp:(\{\{+)")


def _quotation_at(text: str, i: int) -> bool:
    """Whether a Coq-Elpi quotation ``lp:{{`` begins at ``i`` (not inside a name)."""
    return text.startswith("lp:{{", i) and (
        i == 0 or not (text[i - 1].isalnum() or text[i - 1] in "_'.")
    )


def _skip_quotation(text: str, i: int) -> int:
    """Index just after the quotation that opens at ``i``: ``lp:{{ … }}``, whose Elpi
    code may hold Coq terms in ``{{ … }}`` (so pairs nest), or ``lp:{{{ … }}}`` with
    more braces, closed by as many."""
    match = _QUOTATION.match(text, i)
    assert match is not None
    width = len(match.group(1))
    j = match.end()
    if width > 2:
        end = text.find("}" * width, j)
        if end < 0:
            raise _unterminated("Elpi quotation", text, i)
        return end + width
    depth = 1
    while j < len(text):
        if text.startswith("{{", j):
            depth, j = depth + 1, j + 2
        elif text.startswith("}}", j):
            depth, j = depth - 1, j + 2
            if depth == 0:
                return j
        else:
            j += 1
    raise _unterminated("Elpi quotation", text, i)


def _skip_blanks(text: str, i: int) -> int:
    n = len(text)
    while i < n:
        if text[i].isspace():
            i += 1
        elif text.startswith("(*", i):
            i = _skip_comment(text, i)
        else:
            break
    return i


def split_sentences(text: str) -> list[Sentence]:
    """Split ``text`` into sentences; trailing text without a final ``.`` is an error."""
    sentences: list[Sentence] = []
    n = len(text)
    i = _skip_blanks(text, 0)
    while i < n:
        start = i
        match = _SELECTOR_BRACE.match(text, i) or _BULLET.match(text, i)
        if match and not text.startswith("(*", i):
            i = match.end()
            sentences.append(Sentence(text[start:i], start))
            i = _skip_blanks(text, i)
            continue
        while True:
            if i >= n:
                raise SentenceError(f"text after the last sentence: {text[start:].strip()!r}")
            char = text[i]
            if text.startswith("(*", i):
                i = _skip_comment(text, i)
            elif char == '"':
                i = _skip_string(text, i)
            elif char == "l" and _quotation_at(text, i):
                i = _skip_quotation(text, i)
            elif (
                char == "."
                and (i + 1 >= n or text[i + 1].isspace())
                and (i == 0 or text[i - 1] != "." or text[i - 2 : i + 1] == "...")
            ):
                i += 1
                sentences.append(Sentence(text[start:i], start))
                break
            else:
                i += 1
        i = _skip_blanks(text, i)
    return sentences


def blank_comments_and_strings(text: str) -> str:
    """``text`` with each comment and string literal replaced by one blank.

    Lexed as Coq does (comments nest, a string inside a comment is a string, so
    ``(* "*)" *)`` is one comment), so that what is left is the code Coq reads.
    Raises :class:`SentenceError` for an unterminated comment or string.
    """
    parts: list[str] = []
    i = start = 0
    n = len(text)
    while i < n:
        if text.startswith("(*", i):
            end = _skip_comment(text, i)
        elif text[i] == '"':
            end = _skip_string(text, i)
        else:
            i += 1
            continue
        parts += [text[start:i], " "]
        i = start = end
    parts.append(text[start:])
    return "".join(parts)


def comments_in(text: str) -> list[str]:
    """The comments of ``text`` (outermost ones, nested ones inside them), in order;
    a ``(*`` inside a string literal opens none."""
    found: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        if text.startswith("(*", i):
            end = _skip_comment(text, i)
            found.append(text[i:end])
            i = end
        elif text[i] == '"':
            i = _skip_string(text, i)
        else:
            i += 1
    return found

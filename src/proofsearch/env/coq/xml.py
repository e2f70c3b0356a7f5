"""Coq's IDE protocol as XML: encoding calls and decoding the reply stream.

coqidetop answers with a stream of top-level elements (``<feedback>``, ``<value>``,
``<message>``) that has no root element and uses the HTML entity ``&nbsp;``.
:class:`ReplyStream` cuts the stream into those elements and hands each one that
matters to the standard library's XML parser, with ``&nbsp;`` spelled as ``&#160;``.
"""

from __future__ import annotations

import hashlib
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from xml.sax.saxutils import escape


def string(text: str) -> str:
    return f"<string>{escape(text)}</string>"


def integer(value: int) -> str:
    return f"<int>{value}</int>"


def state_id(value: int) -> str:
    return f'<state_id val="{value}"/>'


def boolean(value: bool) -> str:
    return f'<bool val="{"true" if value else "false"}"/>'


def pair(first: str, second: str) -> str:
    return f"<pair>{first}{second}</pair>"


def call(name: str, argument: str) -> str:
    return f'<call val="{name}">{argument}</call>'


def add_call(sentence: str, parent: int, verbose: bool = False) -> str:
    """``Add``: parse one sentence on top of state ``parent`` (the tip).

    ``verbose`` makes Coq announce what the sentence declares (``foo is defined``).
    """
    # Coq 8.16: ((((sentence, edit_id), (state_id, verbose)), bp), (line_nb, bol_pos)).
    head = pair(pair(string(sentence), integer(-1)), pair(state_id(parent), boolean(verbose)))
    return call("Add", pair(pair(head, integer(0)), pair(integer(1), integer(0))))


def goal_call() -> str:
    """``Goal``: run what was added and return the goals of the tip."""
    return call("Goal", "<unit/>")


def query_call(text: str, state: int, route: int = 0) -> str:
    """``Query``: run a query command (``About foo.``) at ``state``; its answer comes
    back as a message feedback, before a ``<unit/>`` value."""
    return call("Query", pair(f'<route_id val="{route}"/>', pair(string(text), state_id(state))))


def edit_at_call(target: int) -> str:
    """``Edit_at``: make ``target`` the tip, discarding every later state."""
    return call("Edit_at", state_id(target))


def init_call() -> str:
    return call("Init", '<option val="none"/>')


def about_call() -> str:
    return call("About", "<unit/>")


def set_int_option_call(name: tuple[str, ...], value: int) -> str:
    names = "".join(string(part) for part in name)
    option = (
        f'<option_value val="intvalue"><option val="some">{integer(value)}</option></option_value>'
    )
    return call("SetOptions", f"<list>{pair(f'<list>{names}</list>', option)}</list>")


def text_of(element: ET.Element | None) -> str:
    """The plain text of a rich-printed element, with ``&nbsp;`` turned into spaces."""
    if element is None:
        return ""
    return "".join(element.itertext()).replace("\xa0", " ")


#: Rich-printing markup inside ``<richpp>``: ``<_>``, ``<pp>`` and dotted tags such as
#: ``<constr.variable>``. The protocol's own tags never contain a dot, so removing these
#: before parsing keeps the text and drops most of the elements the parser would build.
_RICH_MARKUP = re.compile(rb"</?(?:_|pp|[A-Za-z_]+\.[A-Za-z_.]+)>")


#: Characters XML 1.0 forbids, raw (C0 controls but tab, newline, carriage return; the
#: two non-characters U+FFFE/U+FFFF; lone surrogates), and as character references.
_FORBIDDEN_CHAR = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
_CHAR_REFERENCE = re.compile(r"&#(?:x([0-9A-Fa-f]+)|([0-9]+));")


def _visible(char: str) -> str:
    return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"


def _reference(match: re.Match[str]) -> str:
    hexadecimal, decimal = match.groups()
    code = int(hexadecimal, 16) if hexadecimal else int(decimal)
    if code > 0x10FFFF:
        return "\\u{...}"
    char = chr(code)
    return _visible(char) if _FORBIDDEN_CHAR.match(char) else match.group(0)


def xml_safe(raw: bytes) -> bytes:
    """``raw`` with what XML 1.0 forbids spelled out as text (``\\x01``).

    coqidetop copies a message's characters as they are: ``fail "<U+0001>"`` makes it
    send a raw control character, which the parser rejects (the whole theorem then
    ended as an ``error``, although the tactic had only failed). Invalid UTF-8 becomes
    U+FFFD.
    """
    text = raw.decode("utf-8", "replace")
    text = _FORBIDDEN_CHAR.sub(lambda m: _visible(m.group(0)), text)
    return _CHAR_REFERENCE.sub(_reference, text).encode("utf-8")


@dataclass
class RawElement:
    """A top-level element as bytes, parsed only if someone asks for its tree."""

    tag: bytes
    raw: bytes
    _tree: ET.Element | None = None

    @property
    def tree(self) -> ET.Element:
        if self._tree is None:
            flat = _RICH_MARKUP.sub(b"", self.raw).replace(b"&nbsp;", b"&#160;")
            try:
                self._tree = ET.fromstring(flat)
            except ET.ParseError:
                # Only then: the common reply needs no cleaning, and this one may.
                self._tree = ET.fromstring(xml_safe(flat))
        return self._tree

    @property
    def good(self) -> bool:
        return self.raw.startswith(b'<value val="good"')


class ReplyStream:
    """Incremental splitter of coqidetop's output into top-level elements.

    Top-level elements (``<value>``, ``<feedback>``, ``<message>``) never nest, and text
    inside them is escaped, so each one ends at the first ``</TAG>`` after its start.
    Splitting on bytes first and parsing only what is read keeps the cost per reply
    small: most feedback (``processingin``, ``processed``) is never parsed at all, and an
    ``Add`` or ``Edit_at`` answer is rarely more than a ``good``.
    """

    def __init__(self, keep_messages: bool = False) -> None:
        self._buffer = b""
        #: Keep every feedback that carries a message (``info``, ``notice``...), not
        #: only errors: the tracer reads ``foo is defined`` and query answers from them.
        self.keep_messages = keep_messages

    def feed(self, data: bytes) -> Iterator[RawElement]:
        """Take ``data`` and yield each top-level element it completes (boring ones skipped)."""
        buffer = self._buffer + data
        position = 0
        while True:
            start = buffer.find(b"<", position)
            if start < 0:
                position = len(buffer)
                break
            head_end = buffer.find(b">", start)
            if head_end < 0:
                position = start
                break
            name_end = start + 1
            while name_end < head_end and buffer[name_end] not in b" />\t\n\r":
                name_end += 1
            tag = buffer[start + 1 : name_end]
            if buffer[head_end - 1] == ord("/"):
                end = head_end + 1
            else:
                close = buffer.find(b"</" + tag + b">", head_end)
                if close < 0:
                    position = start
                    break
                end = close + len(tag) + 3
            position = end
            chunk = buffer[start:end]
            if (
                tag == b"feedback"
                and b'message_level val="error"' not in chunk
                and not (self.keep_messages and b"<message>" in chunk)
            ):
                continue  # progress notices: nothing to read in them
            yield RawElement(tag, chunk)
        self._buffer = buffer[position:]


@dataclass(frozen=True)
class Goal:
    """One goal: hypotheses and conclusion as text."""

    hypotheses: tuple[str, ...]
    conclusion: str

    def render(self) -> str:
        return "\n".join((*self.hypotheses, "============================", self.conclusion))


@dataclass(frozen=True)
class Goals:
    """The four goal lists of a Coq proof."""

    focused: tuple[Goal, ...]
    background: tuple[Goal, ...]
    shelved: tuple[Goal, ...]
    given_up: tuple[Goal, ...]

    @property
    def empty(self) -> bool:
        return not (self.focused or self.background or self.shelved or self.given_up)


def _goal(element: ET.Element) -> Goal:
    children = list(element)
    hypotheses = tuple(text_of(h) for h in children[1])
    return Goal(hypotheses, text_of(children[2]))


def _goal_list(element: ET.Element) -> tuple[Goal, ...]:
    return tuple(_goal(g) for g in element.iter("goal"))


_GOAL_ID = re.compile(rb"<goal><string>\d+</string>")


def goals_key(raw: bytes) -> str | None:
    """A canonical key of the goals in a good ``Goal`` reply, without parsing it.

    The printed goals (all four lists, focus structure included) are hashed with the
    goals' internal numbers left out: the same state reached another way is printed the
    same, but numbered differently. ``None`` when no proof is open.
    """
    start = raw.find(b"<goals>")
    if start < 0:
        return None
    body = _GOAL_ID.sub(b"<goal>", raw[start : raw.rfind(b"</goals>")])
    return hashlib.blake2b(body, digest_size=16).hexdigest()


def goal_count(raw: bytes) -> int:
    """How many goals a good ``Goal`` reply shows, in all four lists (each is printed as
    one ``<goal>`` element; goal text is escaped, so the tag cannot occur inside it)."""
    start = raw.find(b"<goals>")
    return 0 if start < 0 else raw.count(b"<goal>", start)


def goals_empty(raw: bytes) -> bool:
    """Whether a good ``Goal`` reply shows four empty goal lists (all goals solved)."""
    return b"<goals><list/><list/><list/><list/></goals>" in raw


def parse_goals(value: ET.Element) -> Goals | None:
    """Goals from a good ``Goal`` reply, or ``None`` when no proof is open."""
    option = value.find("option")
    if option is None or option.get("val") == "none":
        return None
    goals = option.find("goals")
    assert goals is not None
    lists = list(goals)
    focused = _goal_list(lists[0])
    # Background: a focus stack of (before, after) pairs; their order does not matter
    # for a canonical key as long as it is deterministic.
    background = _goal_list(lists[1])
    return Goals(focused, background, _goal_list(lists[2]), _goal_list(lists[3]))


def failure_message(value: ET.Element) -> str:
    """The error message of a ``<value val="fail">`` reply."""
    return text_of(value.find("richpp")).strip()

"""Typed requests and replies of the Lean REPL (leanprover-community/repl).

Why typed requests: the REPL dies on a request it cannot parse (invalid JSON, or JSON of
no known shape), which would cost a restart and the replay of every open state. Every
request is therefore built from a model that forbids unknown fields, and encoded by
:func:`encode_request` as ONE line of JSON followed by a blank line: the REPL reads
lines up to a blank one and concatenates them with the newlines dropped, so a
pretty-printed request would reach Lean mangled, and a stray blank line is an empty
request that kills it.

Why parsed replies: the REPL pretty-prints replies over several lines (key order is not
stable) and ends each with a blank line; a reply is compared and read only as parsed
JSON. Three shapes exist: a command reply (``env``, ``messages``, ``sorries``), a
tactic reply (``proofState``, ``goals``, ``proofStatus``, ...) and an error
(``{"message": ...}``).
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError


class ProtocolError(Exception):
    """A reply that is not JSON, or JSON of no known shape."""


def _check_text(value: str) -> str:
    """Text must survive UTF-8 and Lean's JSON parser: no lone surrogates, no NUL."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"not encodable as UTF-8: {exc.reason}") from None
    if "\x00" in value:
        raise ValueError("contains a NUL character")
    return value


NonNegative = Annotated[int, Field(ge=0, strict=True)]
#: Lean source sent in a request: non-empty, and see :func:`_check_text`.
LeanText = Annotated[str, Field(min_length=1), AfterValidator(_check_text)]


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class CommandRequest(_Request):
    """``{"cmd": ..., "env": E}``: run commands, in environment ``env`` or a fresh one.

    Only a command without ``env`` may contain ``import``.
    """

    cmd: LeanText
    env: NonNegative | None = None
    allTactics: bool | None = None
    rootGoals: bool | None = None
    infotree: Literal["full", "tactics", "original", "substantive"] | None = None


class TacticRequest(_Request):
    """``{"tactic": ..., "proofState": S}``: run one tactic on a recorded proof state."""

    tactic: LeanText
    proofState: NonNegative


class PickleEnvRequest(_Request):
    pickleTo: str = Field(min_length=1)
    env: NonNegative


class PickleProofStateRequest(_Request):
    pickleTo: str = Field(min_length=1)
    proofState: NonNegative


class UnpickleEnvRequest(_Request):
    unpickleEnvFrom: str = Field(min_length=1)


class UnpickleProofStateRequest(_Request):
    unpickleProofStateFrom: str = Field(min_length=1)
    env: NonNegative | None = None


Request = (
    CommandRequest
    | TacticRequest
    | PickleEnvRequest
    | PickleProofStateRequest
    | UnpickleEnvRequest
    | UnpickleProofStateRequest
)


def encode_request(request: Request) -> bytes:
    """The bytes to write: one line of JSON and a blank line."""
    data = request.model_dump(exclude_none=True)
    line = json.dumps(data, ensure_ascii=False, separators=(", ", ": "))
    # json.dumps escapes every control character inside strings, so the line holds no
    # newline; the check guards the framing against a future change of encoder.
    assert "\n" not in line and "\r" not in line
    return (line + "\n\n").encode("utf-8")


# -- replies --------------------------------------------------------------------------


class _Reply(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class Pos(_Reply):
    line: int
    column: int


class Message(_Reply):
    """A Lean message; ``severity`` is ``error``, ``warning``, ``info`` or ``trace``."""

    severity: str
    data: str
    pos: Pos | None = None
    endPos: Pos | None = None

    @property
    def is_error(self) -> bool:
        return self.severity == "error"


class Sorry(_Reply):
    goal: str
    proofState: int | None = None
    pos: Pos | None = None
    endPos: Pos | None = None


class CommandReply(_Reply):
    env: int
    messages: tuple[Message, ...] = ()
    sorries: tuple[Sorry, ...] = ()

    @property
    def errors(self) -> tuple[Message, ...]:
        return tuple(m for m in self.messages if m.is_error)


class TacticReply(_Reply):
    proofState: int
    goals: tuple[str, ...]
    proofStatus: str | None = None
    messages: tuple[Message, ...] = ()
    sorries: tuple[Sorry, ...] = ()
    traces: tuple[str, ...] = ()

    @property
    def errors(self) -> tuple[Message, ...]:
        return tuple(m for m in self.messages if m.is_error)


class ErrorReply(_Reply):
    """``{"message": ...}``: the REPL refused the request (unknown state, parse error)."""

    message: str


Reply = CommandReply | TacticReply | ErrorReply


def parse_reply(data: Any) -> Reply:
    """Read a parsed JSON reply into its model; raise :class:`ProtocolError` otherwise."""
    if not isinstance(data, dict):
        raise ProtocolError(f"expected a JSON object, got {type(data).__name__}")
    model: type[_Reply]
    if "message" in data and "proofState" not in data and "env" not in data:
        model = ErrorReply
    elif "proofState" in data and "goals" in data:
        model = TacticReply
    elif "env" in data:
        model = CommandReply
    else:
        raise ProtocolError(f"reply of no known shape: keys {sorted(data)}")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ProtocolError(f"malformed {model.__name__}: {exc}") from None


def decode_reply(block: bytes) -> Reply:
    """Parse one reply block (the text between blank lines)."""
    try:
        data = json.loads(block.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        shown = block[:300].decode("utf-8", "replace")
        raise ProtocolError(
            f"the REPL answered with text that is not JSON ({exc}): {shown!r}"
        ) from None
    return parse_reply(data)

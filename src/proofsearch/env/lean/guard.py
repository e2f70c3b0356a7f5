"""The first line of defence against untrusted Lean tactics.

A model's output reaches the REPL (and the re-check) only through :func:`check_tactic`.
It refuses what ends a proof without proving it (``sorry``, ``admit``), what runs code
or changes the checker (``run_tac``, ``#eval``, ``set_option debug.*``, ``unsafe``,
``elab``, ``macro``, ``native_decide`` unless allowed), a limit removed
(``set_option maxHeartbeats 0``: see :data:`UNLIMITED_AT_ZERO`), and every command
keyword: in
the re-check the tactics are spliced under the statement, and a command keyword there
would end the ``by`` block and run a command of the attacker's choice.

Words are looked for everywhere, strings and comments included: an interpolated string
(``s!"{...}"``) holds code, and refusing a comment that says "sorry" costs nothing.
The second line of defence is the REPL's own verdict (only ``proofStatus: Completed``
with no error counts), the third the from-scratch re-check with ``#print axioms``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from proofsearch.env.lean.statements import block_comment_end

#: Identifiers refused when a whole (dotted) name equals one of them.
DENIED_WORDS: frozenset[str] = frozenset(
    {
        # end a goal without proving it
        "sorry", "admit", "stop", "sorryAx",
        # run code at elaboration time, or define syntax and elaborators
        "run_tac", "run_cmd", "run_elab", "run_meta", "by_elab", "elab", "elab_rules",
        "macro", "macro_rules", "syntax", "declare_syntax_cat", "notation", "infix",
        "infixl", "infixr", "prefix", "postfix", "unsafe", "partial", "implemented_by",
        "extern", "initialize", "builtin_initialize",
        # commands: they would escape the proof block in the re-check
        "theorem", "lemma", "def", "example", "abbrev", "instance", "axiom", "opaque",
        "structure", "class", "inductive", "coinductive", "mutual", "namespace",
        "section", "end", "universe", "variable", "import", "export", "attribute",
        "deriving", "private", "protected", "noncomputable", "omit", "include",
        "add_decl_doc", "compile_inductive",
        # native evaluation (allowed only with allow_native_decide)
        "native_decide", "native",
    }
)  # fmt: skip

#: Refused when the last component of a dotted name equals one of them
#: (``Lean.ofReduceBool`` is as bad as ``ofReduceBool``).
DENIED_COMPONENTS: frozenset[str] = frozenset(
    {
        "sorryAx", "ofReduceBool", "ofReduceNat", "reduceBool", "reduceNat",
        "trustCompiler", "unsafeCast", "unsafeIO", "unsafeEIO", "unsafeBaseIO",
        "skipKernelTC", "implemented_by",
    }
)  # fmt: skip

#: What ``allow_native_decide`` takes out of the deny-lists.
NATIVE_WORDS: frozenset[str] = frozenset(
    {"native_decide", "native", "ofReduceBool", "reduceBool", "trustCompiler"}
)

#: ``set_option NAME`` is refused unless NAME is listed (``debug.*`` never is).
DEFAULT_ALLOWED_OPTIONS: tuple[str, ...] = (
    "maxHeartbeats",
    "maxRecDepth",
    "synthInstance.maxHeartbeats",
    "synthInstance.maxSize",
)

_IDENT_PART = r"(?:«[^»\n]*»|[^\W\d][\w'!?]*)"
_NAME = re.compile(rf"{_IDENT_PART}(?:\.{_IDENT_PART})*")
_SET_OPTION = re.compile(r"set_option\s+([^\s]+)(?:\s+([^\s]+))?")

#: Options whose value 0 removes the limit altogether. Policy: a tactic may raise these
#: limits (``set_option maxHeartbeats 400000 in``) but not remove them: without a
#: heartbeat limit the wall-clock tactic timeout is the only stop left, and it kills the
#: REPL (a restart, and the replay of the search's path).
UNLIMITED_AT_ZERO: frozenset[str] = frozenset({"maxHeartbeats", "synthInstance.maxHeartbeats"})
_HASH_COMMAND = re.compile(r"#[A-Za-z_]")
_EVAL_PERCENT = re.compile(r"(?<![\w.])[A-Za-z_][\w.]*%")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_RAW_STRING = re.compile(r"(?<![\w'])r#*\"")


class TacticRejected(ValueError):
    """The tactic is not allowed (the message says why)."""


@dataclass(frozen=True)
class GuardPolicy:
    """What the guard refuses; built from the backend's options."""

    extra_denied: frozenset[str] = frozenset()
    allowed: frozenset[str] = frozenset()
    allow_native_decide: bool = False
    allowed_options: frozenset[str] = frozenset(DEFAULT_ALLOWED_OPTIONS)
    max_chars: int = 8192

    @classmethod
    def build(
        cls,
        denied: Iterable[str] = (),
        allowed: Iterable[str] = (),
        *,
        allow_native_decide: bool = False,
        allowed_options: Iterable[str] = DEFAULT_ALLOWED_OPTIONS,
        max_chars: int = 8192,
    ) -> GuardPolicy:
        return cls(
            frozenset(denied),
            frozenset(allowed),
            allow_native_decide,
            frozenset(allowed_options),
            max_chars,
        )

    def _denied(self, base: frozenset[str]) -> frozenset[str]:
        denied = base | self.extra_denied
        if self.allow_native_decide:
            denied -= NATIVE_WORDS
        return denied - self.allowed

    @property
    def words(self) -> frozenset[str]:
        return self._denied(DENIED_WORDS)

    @property
    def components(self) -> frozenset[str]:
        return self._denied(DENIED_COMPONENTS)


def _unescape(name: str) -> str:
    return name.replace("«", "").replace("»", "")


def _check_delimiters(text: str) -> None:
    """Refuse unterminated strings, char literals and block comments (they would swallow
    the following tactics in the re-check), and unbalanced brackets."""
    closing = {"(": ")", "[": "]", "{": "}", "⟨": "⟩", "⦃": "⦄", "‹": "›"}
    stack: list[str] = []
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if text.startswith("--", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if text.startswith("/-", i):
            comment_end = block_comment_end(text, i)
            if comment_end is None:
                raise TacticRejected("unterminated block comment")
            i = comment_end
            continue
        if char == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            if i >= n:
                raise TacticRejected("unterminated string")
            i += 1
            continue
        if char == "'" and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] in "_'!?.")):
            match = re.match(r"'(?:\\.[^']*|[^\\'\n])'", text[i:])
            if match:
                i += match.end()
                continue
        if char in closing:
            stack.append(closing[char])
        elif char in closing.values() and (not stack or stack.pop() != char):
            raise TacticRejected(f"unbalanced '{char}'")
        i += 1
    if stack:
        raise TacticRejected(f"unclosed bracket (expected '{stack[-1]}')")


def normalize_tactic(tactic: str) -> str:
    """Strip surrounding blank space (the REPL and the re-check both see this text)."""
    return tactic.strip()


def check_tactic(tactic: str, policy: GuardPolicy | None = None) -> str:
    """Return the normalized tactic, or raise :class:`TacticRejected` saying why."""
    policy = policy or GuardPolicy()
    text = normalize_tactic(tactic)
    if not text:
        raise TacticRejected("empty tactic")
    if len(text) > policy.max_chars:
        raise TacticRejected(f"longer than {policy.max_chars} characters")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise TacticRejected("not valid Unicode text") from None
    control = _CONTROL.search(text)
    if control:
        raise TacticRejected(f"control character {control.group()!r}")
    if _RAW_STRING.search(text):
        raise TacticRejected("raw string literals are not allowed")
    hashed = _HASH_COMMAND.search(text)
    if hashed:
        raise TacticRejected(f"'{hashed.group()}…' commands are not allowed")
    percent = _EVAL_PERCENT.search(text)
    if percent and percent.group().rstrip("%").split(".")[-1] in {"eval", "run", "run_tac"}:
        raise TacticRejected(f"'{percent.group()}' runs code")
    words = policy.words
    components = policy.components
    for match in _NAME.finditer(text):
        name = _unescape(match.group())
        if name in words:
            raise TacticRejected(f"'{name}' is not allowed in a tactic")
        if name.rsplit(".", 1)[-1] in components:
            raise TacticRejected(f"'{name}' is not allowed in a tactic")
    for match in _SET_OPTION.finditer(text):
        option = _unescape(match.group(1))
        if option.startswith("debug.") or option not in policy.allowed_options:
            raise TacticRejected(f"set_option {option} is not allowed")
        value = match.group(2) or ""
        if option in UNLIMITED_AT_ZERO and value.isdigit() and int(value) == 0:
            raise TacticRejected(f"set_option {option} 0 removes the limit: give a number")
    _check_delimiters(text)
    return text

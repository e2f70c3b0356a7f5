"""The first line of defence against untrusted tactics: one tactic expression, nothing else.

A model's output reaches coqidetop only through :func:`check_tactic`. The second line of
defence is the wrapper ``Timeout N (TACTIC ).`` (any command inside parentheses is a
parse error), the third is that a proof counts only after ``Qed`` and a from-scratch
``coqc`` re-check with ``Print Assumptions``.

Words are looked for in the code Coq reads: comments (nested, with strings inside) and
strings are taken out first, as Coq's lexer would. Attributes (``#[local] ...``) only
ever qualify commands and are refused, so no command hides behind one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from proofsearch.env.coq.sentences import (
    SentenceError,
    blank_comments_and_strings,
    split_sentences,
)

#: Words refused anywhere outside strings: they end proofs without proving, add
#: axioms, touch files, or run compilers. None of them names a term.
DENIED_ANYWHERE: frozenset[str] = frozenset(
    {
        "admit", "give_up", "Admitted", "Abort", "Qed", "Defined", "Save", "Axiom",
        "Axioms", "Parameter", "Parameters", "Conjecture", "Conjectures", "Hypothesis",
        "Hypotheses", "Variable", "Variables", "Redirect", "Load", "Require", "Extraction",
        "Drop", "Declare", "Cd", "Restart", "Undo", "Back", "BackTo", "Reset", "Admit",
        "native_compute", "native_cast_no_check", "Ltac", "Ltac2", "Obligation",
        "Obligations", "Unshelve", "Existential", "Instance", "Context", "Timeout",
        "Optimize", "Register", "Primitive", "Unset", "Time", "Fail", "Succeed",
        "Opaque", "Transparent", "Section", "End", "Goal", "Guarded", "Focus", "Unfocus",
        # CoqHammer's hammer writes files and runs external provers (its own tactics,
        # sauto, hauto ..., do neither and stay allowed).
        "hammer",
    }
)  # fmt: skip

#: Words refused as the first word (or right after a ``;``): commands whose names are
#: also ordinary terms or identifiers elsewhere (``Set`` is a sort).
DENIED_FIRST: frozenset[str] = frozenset(
    {
        "Set", "Unset", "Import", "Export", "Proof", "Goal", "Lemma", "Theorem",
        "Definition", "Fixpoint", "CoFixpoint", "Inductive", "CoInductive", "Record",
        "Structure", "Class", "Module", "Section", "End", "Print", "Show", "Check",
        "Eval", "Compute", "Search", "Locate", "About", "Notation", "Infix", "Tactic",
        "Hint", "Create", "Add", "Remove", "Local", "Global", "Time", "Fail", "Succeed",
        "Focus", "Unfocus", "Guarded", "Opaque", "Transparent", "Arguments", "Open",
        "Close", "Bind", "Delimit", "Scheme", "Derive", "Program", "Let", "Example",
        "Fact", "Remark", "Corollary", "Proposition", "Property", "Typeclasses",
        # More commands, none a tactic (audit 44 saw the first six pass): `Extract
        # Inlined Constant` in a proof survives Qed and changes the file's extracted code.
        "Extract", "Strategy", "Debug", "Inspect", "Pwd", "Info", "Inline", "NoInline",
        "Separate", "Recursive", "Canonical", "Coercion", "Identity", "Existing",
        "Implicit", "Generalizable", "Universe", "Universes", "Constraint", "Include",
        "Solve", "Next", "Reserved", "Variant", "Combined", "Comments", "Function",
        "Functional", "Polymorphic", "Monomorphic", "Cumulative", "NonCumulative",
        "Private", "Number", "Numeral", "Profile", "Test",
    }
)  # fmt: skip

#: Native compilation's entry points: the ``<<:`` cast, and every word that starts with
#: ``native`` (``native_compute``, ``native_cast_no_check``, ``NativeCompute``...). Coq
#: also runs with native compilation off (``version.NATIVE_OFF``); refusing them here
#: means no tactic depends on that second line.
NATIVE_CAST = "<<:"
NATIVE_PREFIX = "native"

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_']*")
_COMMAND_START = re.compile(r"(?:^|;)\W*?([A-Za-z_][A-Za-z0-9_']*)")
_OPEN = {"(": ")", "[": "]", "{": "}"}


class TacticRejected(ValueError):
    """The tactic is not one plain tactic expression."""


def _balanced(text: str) -> bool:
    stack: list[str] = []
    for char in text:
        if char in _OPEN:
            stack.append(_OPEN[char])
        elif char in _OPEN.values() and (not stack or stack.pop() != char):
            return False
    return not stack


def normalize_tactic(tactic: str) -> str:
    """Strip blanks and one trailing sentence-ending ``.`` (models often add it)."""
    text = tactic.strip()
    if text.endswith(".") and not text.endswith(".."):
        text = text[:-1].rstrip()
    return text


def check_tactic(
    tactic: str,
    extra_denied: Iterable[str] = (),
    allowed: Iterable[str] = (),
) -> str:
    """Return the normalized tactic, or raise :class:`TacticRejected` saying why.

    ``extra_denied`` adds words to the deny-list; ``allowed`` takes words out of it.
    """
    text = normalize_tactic(tactic)
    if not text:
        raise TacticRejected("empty tactic")
    if "\x00" in text:
        raise TacticRejected("NUL byte in tactic")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:  # a model's broken bytes: Coq could not be sent it
        reason = f"not text Coq can read ({exc.reason}: {exc.object[exc.start]!r})"
        raise TacticRejected(reason) from None
    try:
        sentences = split_sentences(text + ".")
    except SentenceError as exc:
        raise TacticRejected(str(exc)) from None
    if len(sentences) != 1 or sentences[0].text != text + ".":
        raise TacticRejected("more than one sentence (a '.' ends a sentence before the end)")
    try:
        bare = blank_comments_and_strings(text)
    except SentenceError as exc:
        raise TacticRejected(str(exc)) from None
    if "*)" in bare:
        raise TacticRejected("unbalanced comment")
    if "#[" in bare:
        raise TacticRejected("attributes (#[...]) qualify commands, not tactics")
    if not _balanced(bare):
        raise TacticRejected("unbalanced brackets")
    allowed_set = set(allowed)
    denied_anywhere = (DENIED_ANYWHERE | set(extra_denied)) - allowed_set
    if NATIVE_CAST in bare and NATIVE_CAST not in allowed_set:
        raise TacticRejected(f"'{NATIVE_CAST}' (the native-compiler cast) is not allowed")
    for word in _WORD.findall(bare):
        if word in denied_anywhere:
            raise TacticRejected(f"'{word}' is not allowed in a tactic")
        if word.lower().startswith(NATIVE_PREFIX) and word not in allowed_set:
            raise TacticRejected(f"'{word}': native compilation is not allowed")
    for match in _COMMAND_START.finditer(bare):
        if match.group(1) in DENIED_FIRST - allowed_set:
            raise TacticRejected(f"'{match.group(1)}' starts a command, not a tactic")
    if re.match(r"\s*[-+*{}]", bare):
        raise TacticRejected("bullets and braces are not tactics")
    return text

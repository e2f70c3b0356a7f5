"""What a Coq sentence is, read from its text: its command word, and the scopes it opens.

Shared by everything that reads ``.v`` files without running them (the stdlib
benchmark's extraction, the header leak check) and by the tracer, which runs them but
still needs to know, before sending a sentence, whether it may declare something or end
a proof, and which ``Section``/``Module`` it sits in. The classification looks only at
the first words of a sentence (after attributes and ``Local``/``Program``...): it never
has to understand terms.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

IDENT = r"[^\W\d][\w']*"
_WORD = re.compile(IDENT)
_ATTRIBUTES = re.compile(r"#\[[^\]]*\]\s*")
#: Control prefixes that change how a command runs, not what it is: ``Time Qed.`` ends a
#: proof, ``Timeout 30 Lemma x …`` states one (audit 44: such holes were skipped).
_CONTROL = re.compile(r'(?:Time|Instructions|Timeout\s+\d+|Redirect\s+"(?:[^"]|"")*")\s+')
_WITH_DEFINITION = re.compile(r"\bwith\s+(?:Module|Definition)\s+[\w.']+\s*:=")

#: Words that may precede the keyword of a command.
PREFIXES = frozenset(
    {"Local", "Global", "Polymorphic", "Monomorphic", "Program", "Cumulative", "NonCumulative"}
)

#: Keywords that state a lemma with a proof.
LEMMA_KEYWORDS = frozenset(
    {"Theorem", "Lemma", "Fact", "Remark", "Corollary", "Proposition", "Property"}
)

#: Sentences that end a proof, and what they make of it.
PROOF_ENDERS = {"Qed": "qed", "Defined": "defined", "Admitted": "admitted", "Abort": "aborted"}

#: Commands that may declare constants, by the kind their main name gets in a trace.
DECLARING_KINDS: dict[str, str] = {
    **dict.fromkeys(LEMMA_KEYWORDS, "Lemma"),
    "Theorem": "Theorem",
    "Example": "Lemma",
    "Goal": "Lemma",
    "Definition": "Definition",
    "Let": "Definition",
    "Function": "Fixpoint",
    "Fixpoint": "Fixpoint",
    "CoFixpoint": "CoFixpoint",
    "Inductive": "Inductive",
    "Variant": "Inductive",
    "CoInductive": "CoInductive",
    "Record": "Record",
    "Structure": "Record",
    "Class": "Record",
    "Instance": "Instance",
    "Axiom": "Axiom",
    "Axioms": "Axiom",
    "Conjecture": "Axiom",
    "Parameter": "Parameter",
    "Parameters": "Parameter",
    "Hypothesis": "Parameter",
    "Hypotheses": "Parameter",
    "Variable": "Parameter",
    "Variables": "Parameter",
    "Scheme": "Scheme",
    "Combined": "Scheme",
    "Derive": "Definition",
    "Equations": "Definition",
    "Next": "Lemma",
    "Primitive": "Primitive",
    "Canonical": "Definition",
    "Coercion": "Definition",
}

#: Commands that may appear inside a proof but are not tactics (``Proof``, queries,
#: options, hints). Any other sentence run while a proof is open is a tactic step.
NON_TACTIC_WORDS = frozenset(
    {
        "Proof", "Qed", "Defined", "Admitted", "Abort", "Save", "Show", "Check", "Print",
        "About", "Locate", "Search", "SearchPattern", "SearchRewrite", "SearchHead", "Eval",
        "Compute", "Set", "Unset", "Opaque", "Transparent", "Hint", "Hints", "Require",
        "Import", "Export", "Arguments", "Notation", "Infix", "Reserved", "Ltac", "Ltac2",
        "Tactic", "Focus", "Unfocus", "Unfocused", "Undo", "Restart", "Guarded", "Test",
        "Remove", "Create", "Open", "Close", "Bind", "Delimit", "Implicit", "Generalizable",
        "Strategy", "Declare", "Typeclasses", "Existing", "Instance", "Context", "Collection",
        "Obligation", "Obligations", "Solve", "Next", "Preterm", "Debug", "Inspect",
        "Optimize",
    }
)  # fmt: skip


def strip_comments(text: str) -> str:
    """``text`` with comments (nested) and string contents blanked, for classifying."""
    out: list[str] = []
    i, n, depth = 0, len(text), 0
    while i < n:
        if text.startswith("(*", i):
            depth += 1
            i += 2
            continue
        if depth and text.startswith("*)", i):
            depth -= 1
            i += 2
            out.append(" ")
            continue
        char = text[i]
        if char == '"':
            end = i + 1
            while end < n and not (text[end] == '"' and text[end + 1 : end + 2] != '"'):
                end += 2 if text[end] == '"' else 1
            if not depth:
                out.append('""')
            i = end + 1
            continue
        if not depth:
            out.append(char)
        i += 1
    return "".join(out)


@dataclass(frozen=True)
class Command:
    """A sentence's command word (after attributes and ``Local``/``Program``...)."""

    word: str
    words: tuple[str, ...]
    bare: str

    @property
    def ident(self) -> str:
        """The name right after the command word (``Lemma foo``), or ``""``.

        ``Instance : C nat.`` names nothing: the word after the keyword must follow it
        directly, not after a colon.
        """
        if len(self.words) < 2:
            return ""
        follows = re.search(rf"\b{self.word}\s+{re.escape(self.words[1])}(?![\w'])", self.bare)
        return self.words[1] if follows else ""


def without_control(sentence: str) -> str:
    """``sentence`` without its control prefixes (``Time``, ``Timeout 30``,
    ``Redirect "f"``): the command a search states (``Time Lemma x …`` is ``Lemma x …``)."""
    rest = sentence.lstrip()
    while match := _CONTROL.match(rest):
        rest = rest[match.end() :]
    return rest if rest != sentence.lstrip() else sentence


def command_of(sentence: str) -> Command:
    """Classify a sentence by its first words, ignoring attributes and prefixes."""
    bare = strip_comments(sentence).strip()
    while match := _CONTROL.match(bare):
        bare = bare[match.end() :]
    rest = bare
    while True:
        match = _ATTRIBUTES.match(rest)
        if not match:
            break
        rest = rest[match.end() :]
    words = _WORD.findall(rest[:400])
    while words and words[0] in PREFIXES:
        words = words[1:]
    if not rest[:1].isalpha():
        words = []
    return Command(words[0] if words else "", tuple(words), bare)


def is_proof_ender(command: Command) -> bool:
    """``Qed.``, ``Defined.``, ``Admitted.``, ``Abort.`` (also ``Abort All.``)."""
    return command.word in PROOF_ENDERS and command.bare.rstrip(".").strip() in (
        command.word,
        "Abort All",
    )


@dataclass(frozen=True)
class Scope:
    """An open ``Section`` or ``Module`` (``kind``: section, module, module_type, functor).

    ``index`` is the sentence that opened it. ``unsealed`` is set for a module with a
    signature (``Module Z <: ZAxiomsSig.``): closing it right after a lemma fails
    because the signature's later fields are still missing, so a header that ends
    inside it opens the module without the signature (which changes nothing inside).
    """

    kind: str
    name: str
    index: int = -1
    unsealed: str | None = None
    #: A functor's parameters (``Module Make (A B : T) (Import C : U).``: A, B, C).
    parameters: tuple[str, ...] = ()

    @property
    def closer(self) -> str:
        """The sentence that closes it: ``End name.``, or ``HB.end.`` for a scope
        Hierarchy-Builder opened."""
        return "HB.end." if self.kind == "hb" else f"End {self.name}."


#: Hierarchy-Builder's commands that open a section and a module of its own (the
#: module's name is generated: ``Builders_12``), closed by ``HB.end.``
HB_OPENERS = frozenset({"HB.builders", "HB.section"})
#: The first words of the sentences that may change the scopes open (every ``HB.``
#: command: a proof before one has ended).
SCOPE_WORDS = frozenset({"Section", "Module", "End", "HB"})


def hb_command(command: Command) -> str:
    """``HB.builders`` for ``HB.builders Context T of F T.`` ("" for other sentences)."""
    words = command.words
    return f"HB.{words[1]}" if command.word == "HB" and len(words) >= 2 else ""


_BRACKETS = {"(": 1, "{": 1, "[": 1, ")": -1, "}": -1, "]": -1}


def _top_level(text: str) -> Iterator[int]:
    """The offsets of ``text`` outside every bracket (a closing bracket's own included)."""
    depth = 0
    for offset, char in enumerate(text):
        depth += _BRACKETS.get(char, 0)
        if depth == 0:
            yield offset


_LET_OR_IN = re.compile(r"\b(let|in)\b")


_MUTUAL = re.compile(rf"\bwith\s+{IDENT}\s*[(:{{]")


def is_mutual(command: Command) -> bool:
    """``Lemma a : A with b : B.``: mutual statements, whose goals are proved together
    (a proof may use the others' names on smaller arguments only, which ``Qed`` checks)."""
    return _MUTUAL.search(command.bare) is not None


def gives_body(command: Command) -> bool:
    """Whether a sentence has ``:=`` outside brackets (``Definition d : T := t.``,
    ``Instance i : C := {| … |}.``): it opens no proof, whatever ``Admitted`` follows.
    A ``let x := v in`` of the statement is not a body (the stdlib's ``Lemma divmod_spec
    : … let (q',u') := divmod x y q u in …``)."""
    text = command.bare
    for offset in _top_level(text):
        if text.startswith(":=", offset):
            words = [m[1] for m in _LET_OR_IN.finditer(text[:offset])]
            if words.count("let") <= words.count("in"):
                return True
    return False


_SORT = re.compile(r"(?:Type|Set|Prop|SProp)(?:@\{[^}]*\})?")


def defines_a_type(command: Command) -> bool:
    """Whether a statement's type ends in a sort (``Definition T : Type.``, ``Definition
    F (A : Type) : Type -> Type.``): its proof would be a type, not a proof."""
    text = command.bare.rstrip().removesuffix(".")
    top = list(_top_level(text))
    colon = next((i for i in top if text[i] == ":" and text[i + 1 : i + 2] != "="), None)
    if colon is None:
        return False
    kind = text[colon + 1 :]
    cuts = [i + 1 for i in _top_level(kind) if kind[i] == ","]
    cuts += [i + 2 for i in _top_level(kind) if kind.startswith("->", i)]
    return bool(_SORT.fullmatch(kind[max(cuts, default=0) :].strip()))


def functor_binders(after_name: str) -> tuple[tuple[str, ...], str, str]:
    """The names bound by the ``(A B : T)`` groups that follow a functor's name, those
    groups' text, and the text after them."""
    names: list[str] = []
    rest = after_name.lstrip()
    groups: list[str] = []
    while rest.startswith("("):
        end = next(_top_level(rest), None)
        if end is None:
            break
        groups.append(rest[: end + 1])
        bound = rest[1:end].split(":", 1)[0].split()
        names += [word for word in bound if word not in ("Import", "Export", "!")]
        rest = rest[end + 1 :].lstrip()
    return tuple(names), " ".join(groups), rest


def scope_of(command: Command, index: int = -1) -> Scope | None:
    """The scope a ``Section``/``Module`` sentence opens, or None if it opens none."""
    words = command.words
    if hb_command(command) in HB_OPENERS:
        return Scope("hb", hb_command(command), index)
    if command.word == "Section" and len(words) >= 2:
        return Scope("section", words[1], index)
    if command.word != "Module" or len(words) < 2:
        return None
    # ``S with Definition t := u`` constrains a signature; only a remaining ``:=``
    # gives the module a body (and then it opens no scope).
    if ":=" in _WITH_DEFINITION.sub("with ", command.bare):
        return None
    kind = "module"
    index_word = 1
    if words[1] == "Type":
        kind, index_word = "module_type", 2
    elif words[1] in ("Import", "Export"):
        index_word = 2
    if index_word >= len(words):
        return None
    name = words[index_word]
    after = command.bare.split(name, 1)[1].lstrip() if name in command.bare else ""
    unsealed = None
    if kind == "module" and after.startswith("("):
        parameters, binders, rest = functor_binders(after)
        if rest[:1] in (":", "<"):
            unsealed = " ".join(["Module", *words[1:index_word], name, binders]) + "."
        return Scope("functor", name, index, unsealed, parameters)
    if kind == "module" and after[:1] in (":", "<"):
        unsealed = " ".join(["Module", *words[1:index_word], name]) + "."
    return Scope(kind, name, index, unsealed)


@dataclass
class ScopeStack:
    """The ``Section``/``Module`` scopes open at a point of a file, sentence by sentence.

    ``broken`` is set once an ``End`` closes no open scope (the stack is then no longer
    trustworthy: the file uses a construct this reading does not follow).
    """

    scopes: list[Scope] = field(default_factory=list)
    broken: bool = False

    def apply(self, command: Command, index: int = -1) -> None:
        """Update the stack with one sentence (``Section``, ``Module``, ``End``)."""
        if command.word == "End" and len(command.words) >= 2:
            if self.scopes and self.scopes[-1].name == command.words[1]:
                self.scopes.pop()
            else:
                self.broken = True
        elif hb_command(command) == "HB.end":
            if self.scopes and self.scopes[-1].kind == "hb":
                self.scopes.pop()
            else:
                self.broken = True
        elif command.word in ("Section", "Module", "HB"):
            scope = scope_of(command, index)
            if scope is not None:
                self.scopes.append(scope)

    @property
    def kinds(self) -> set[str]:
        return {scope.kind for scope in self.scopes}

    def functor_parameters(self) -> tuple[str, ...]:
        """The parameters of every functor open here, outermost first."""
        return tuple(name for scope in self.scopes for name in scope.parameters)

    def module_path(self) -> list[str]:
        """The names that qualify a constant declared here: modules, not sections.

        Module types and functors count too: Coq names their fields by them, although
        those fields are not constants of the library.
        """
        return [scope.name for scope in self.scopes if scope.kind not in ("section", "hb")]

    def qualify(self, ident: str) -> str:
        """``ident`` qualified by the open modules (sections add nothing once closed)."""
        return ".".join([*self.module_path(), ident])


_PROOF_MODE = re.compile(r'\bSet\s+Default\s+Proof\s+Mode\s+"(\w+)"')
_LTAC2_IMPORT = re.compile(
    r"\b(?:Import|Export)\b.*\bLtac2\b|\bFrom\s+Ltac2\s+Require\s+(?:Import|Export)\b"
)


def ltac2_mode_after(text: str, ltac2: bool) -> bool:
    """Whether Ltac2 is the default proof mode after this sentence (``ltac2``: before
    it). Importing any of Ltac2's modules makes it so (``From Ltac2 Require Import
    Ltac2.``, checked with ``coqc``; a bare ``Require`` does not); ``Set Default Proof
    Mode "…"`` sets it."""
    mode = _PROOF_MODE.search(text)
    if mode:
        return mode.group(1) == "Ltac2"
    word = command_of(text).word
    if word in {"From", "Require", "Import", "Export"} and _LTAC2_IMPORT.search(text):
        return True
    return ltac2

"""Where a file's holes are: every proof that ends in ``Admitted.``.

The file is read with the project's own sentence splitter
(:mod:`proofsearch.env.coq.sentences`: nested comments, strings, bullets, braces) and
its scopes with :mod:`proofsearch.env.coq.vernac`, never with regexes over lines. A
hole is a lemma statement, an optional ``Proof``/``Proof using …`` sentence, any
tactics, and ``Admitted.``. Its theorem entry is what Coq would let that point see:
the file's prefix as ``header`` (built by the stdlib extractor's
:class:`~proofsearch.bench.stdlib_extract.StdlibLemma`, so sealed modules are opened
the same way), the ``End`` sentences as ``footer``, and ``module``/``file``/``line``
for the index's no-leak rule.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from proofsearch.bench.stdlib_extract import StdlibLemma
from proofsearch.env.coq import vernac
from proofsearch.env.coq.checker import PROOF_USING
from proofsearch.env.coq.obligations import ADMIT_LATER, obligation_statement
from proofsearch.env.coq.sentences import Sentence, comments_in, split_sentences
from proofsearch.env.coq.vernac import ScopeStack, command_of
from proofsearch.trace.sources import Source

#: Statements whose ``Admitted`` proof is a hole (``Definition``s and ``Instance``s too,
#: written with ``Defined.``; one whose type is a sort is not searched).
HOLE_KEYWORDS = vernac.LEMMA_KEYWORDS | {"Example", "Definition", "Instance", "Function"}
#: A ``Function`` opens a proof (its termination conditions) only by well-founded
#: recursion: ``{measure …}``, ``{wf …}``.
_WELL_FOUNDED = re.compile(r"\{\s*(?:measure|wf)\b")
#: Why an ``Admitted`` obligation is not searched (a proof resting on one is marked,
#: :func:`proofsearch.project.writeback.resting_on_admitted`): Program's are holes
#: (``Next Obligation. Admitted.``), but not Equations' (Equations names its obligations
#: its own way, and is not installed where this was built), nor one inside a functor or
#: a Hierarchy-Builder scope (their re-check needs a name the file gives).
OBLIGATION_REASON = "an Equations obligation is not searched"
OBLIGATION_IN_FUNCTOR_REASON = (
    "an obligation inside a functor or a Hierarchy-Builder scope is not searched"
)
#: ``Admit Obligations.``: the obligations left are admitted without an ``Admitted``.
ADMIT_OBLIGATIONS_REASON = "its obligations, admitted by Admit Obligations, are not searched"
_ADMIT_OBLIGATIONS = re.compile(r"\s*(?:#\[[^\]]*\]\s*)?Admit\s+Obligations\b")
_PROGRAM = re.compile(r"(?:#\[[^\]]*\]\s*)*(?:(?:Local|Global)\s+)?Program\b")
#: What the message for another ``Admitted`` proof says holes are.
HOLE_KINDS = (
    "lemmas, Examples, Definitions, named Instances, Program obligations and the termination"
    " proofs of Functions"
)
#: Section commands that declare names the lemmas of the Section see.
_SECTION_CONTEXT = frozenset(
    {"Variable", "Variables", "Hypothesis", "Hypotheses", "Context", "Let", "Parameter"}
)
_BINDER_NAMES = re.compile(
    rf"(?:[({{\[`]|\b(?:{'|'.join(sorted(_SECTION_CONTEXT))})\b)\s*"
    rf"((?:{vernac.IDENT}\s+)*{vernac.IDENT})\s*:(?!=)"
)


def _declared_names(text: str) -> list[str]:
    """The names a Section command declares (over-approximated: a name that is not
    one is never among a proof's first hypotheses, which it is compared with)."""
    return [name for group in _BINDER_NAMES.findall(text) for name in group.split()]


#: What the search's header adds where Ltac2 is the default proof mode: its tactics,
#: learned and built-in, are Ltac1's (``lia`` is not an Ltac2 tactic).
CLASSIC_MODE = '\nSet Default Proof Mode "Classic".\n'
#: Holes that define a value by tactics (written ``Defined.``, see :attr:`Hole.ender`).
DEFINITION_KEYWORDS = frozenset({"Definition", "Instance"})
#: Statements that may carry their body after ``:=`` (then they open no proof).
_MAY_HAVE_BODY = frozenset({"Definition", "Instance", "Example"})


@dataclass(frozen=True)
class Hole:
    """One ``Admitted`` proof: where it is, and the text around it."""

    source: Source
    line: int
    ident: str
    #: Qualified by the enclosing modules (``M.lemma``), as ``Print Assumptions`` names it.
    qualid: str
    statement: str
    #: Offsets of the span a proof replaces: from ``Proof``'s start (or the statement's
    #: end when there is no ``Proof`` sentence) to ``Admitted.``'s end.
    start: int
    end: int
    #: The ``Proof``/``Proof using …`` sentence, kept as written ("" when absent).
    proof_sentence: str
    #: Indentation of the statement's line, of the tactics, and of ``Admitted``.
    indent: str
    tactic_indent: str
    qed_indent: str
    #: Tactics written before ``Admitted`` (``admit.`` steps included).
    partial: tuple[str, ...]
    header: str
    footer: str
    in_section: bool
    #: The span's original text, and the ``admit.`` sentences in it (offsets relative
    #: to ``start``): each is a goal of its own (see :mod:`.admits`).
    original: str = ""
    admits: tuple[tuple[int, int], ...] = ()
    #: The file's line ending (``\r\n`` when it uses it), for the lines written.
    newline: str = "\n"
    #: The comments inside the span after its ``Proof`` sentence: kept in a filled
    #: proof, after ``Proof`` (the user's notes; their partial tactics are replaced).
    comments: tuple[str, ...] = ()
    #: The parameters of the functors the hole is inside (``Module Make (A : T).``):
    #: its re-check prints its assumptions in place (:mod:`proofsearch.env.coq.checker`).
    functor_parameters: tuple[str, ...] = ()
    #: Inside a scope Hierarchy-Builder opened: no name reaches it after the footer.
    check_in_place: bool = False
    #: Ltac2 is the file's default proof mode at the hole: the search runs in Ltac1's
    #: (``Set Default Proof Mode "Classic"`` after the header), and the written proof
    #: says ``Proof Mode "Classic".`` (:mod:`.patch`).
    ltac2_mode: bool = False
    #: The names the open Sections declare (``Variable x y : nat.``, ``Context (A :
    #: Type).``, ``Hypothesis H : …``): a begun proof's block leaves them free.
    section_names: frozenset[str] = frozenset()
    #: The statement's offset in the file (the trace's ``lemma_offset``): an
    #: obligation's trace steps are found by it, since only Coq knows its name.
    statement_start: int = -1
    #: A ``Program`` above it in the file may leave obligations unsolved at the hole.
    after_program: bool = False

    @property
    def name(self) -> str:
        """Unique in the project: the file and the qualified name."""
        return f"{self.source.file}:{self.qualid}"

    @property
    def keyword(self) -> str:
        """The statement's command word (``Lemma``, ``Definition``, ``Instance``, …)."""
        return command_of(self.statement).word

    @property
    def is_mutual(self) -> bool:
        """``Lemma a : A with b : B.``: one hole whose goals are proved together."""
        return vernac.is_mutual(command_of(self.statement))

    @property
    def is_obligation(self) -> bool:
        """A Program obligation (``Next Obligation.``): Coq names its constant."""
        return obligation_statement(self.statement) is not None

    @property
    def is_definition(self) -> bool:
        """A ``Definition`` or ``Instance`` by tactics: its value may matter to the code
        after it, not only its type."""
        return self.keyword in DEFINITION_KEYWORDS

    @property
    def ender(self) -> str:
        """How a filled proof ends: ``Defined.`` for a definition, so that it computes as
        one the user wrote would (an ``Admitted`` one was opaque: it computed nothing),
        ``Qed.`` otherwise."""
        return "Defined." if self.is_definition else "Qed."

    def to_record(self, allowed_axioms: Sequence[str] = ()) -> dict[str, Any]:
        """The theorem-file line for ``search``: header, statement, footer, place."""
        return {
            "name": self.name,
            # `Time Lemma x …` is searched as `Lemma x …` (its timing is the user's).
            "statement": vernac.without_control(self.statement),
            "header": self.header + (CLASSIC_MODE if self.ltac2_mode else ""),
            # Its re-check opens the proof as the file does: a proof using a section
            # variable the clause excludes is refused there, and the search goes on.
            **(
                {"proof_using": self.proof_sentence}
                if PROOF_USING.fullmatch(self.proof_sentence.strip())
                else {}
            ),
            # After an obligation (or a part of one), or a lemma between a program and its
            # obligations, the obligations left are admitted: the re-check's file may end
            # only without them (env/coq/obligations.py; a no-op when none is left).
            "footer": (
                f"{ADMIT_LATER}\n{self.footer}"
                if self.is_obligation or self.after_program
                else self.footer
            ),
            "qualid": self.qualid,
            "module": self.source.module,
            "file": self.source.file,
            "line": self.line,
            "allowed_axioms": list(allowed_axioms),
            # The user's development: any axiom its header loads is theirs to use.
            "any_axiom": True,
            # A data type (``Definition f : nat -> nat``) is the user's to write. Only for
            # a definition or an obligation (a program's ``_`` may stand for a number):
            # a lemma's type in ``Type`` is a proof-relevant proposition (a typing
            # derivation), which the probe could not tell from data.
            **({"propositions_only": True} if self.is_definition or self.is_obligation else {}),
            **(
                {"functor_parameters": list(self.functor_parameters)}
                if self.functor_parameters
                else {}
            ),
            **({"check_in_place": True} if self.check_in_place else {}),
            "hole": True,
        }


@dataclass(frozen=True)
class Skipped:
    """An ``Admitted`` proof that is not searched, and why."""

    source: Source
    line: int
    ident: str
    reason: str


def _indent_of(text: str, offset: int) -> tuple[str, bool]:
    """The indentation of the line holding ``offset``, and whether ``offset`` starts it."""
    line_start = text.rfind("\n", 0, offset) + 1
    before = text[line_start:offset]
    indent = before[: len(before) - len(before.lstrip(" \t"))]
    return indent, before.strip() == ""


def _line_ending(text: str, offset: int) -> str:
    """The line ending of the line holding ``offset`` (``\r\n`` or ``\n``): a file may
    mix them, and each hole is written as its own lines are."""
    end = text.find("\n", offset)
    if end == -1:  # the last line: as the line before it
        end = text.rfind("\n", 0, offset)
    return "\r\n" if end > 0 and text[end - 1] == "\r" else "\n"


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


#: Why a proof nested in another, and the proof around it, are not searched.
NESTED_REASON = "a lemma inside another's proof (Set Nested Proofs Allowed) is not searched"
OUTER_REASON = "a proof with a lemma nested inside it (Set Nested Proofs Allowed) is not searched"


def _nested_proofs(sentences: Sequence[Sentence]) -> tuple[set[int], dict[int, int]]:
    """The statements opened inside another's proof, and each statement around one →
    the index of its proof's end. Neither can be searched: the inner one's header would
    end inside the outer proof, and the outer one's tactics are split by the inner."""
    opened: list[int] = []
    inner: set[int] = set()
    outer: dict[int, int] = {}
    for index, sentence in enumerate(sentences):
        command = command_of(sentence.text)
        if command.word in HOLE_KEYWORDS or command.word == "Goal":
            if command.word in _MAY_HAVE_BODY and vernac.gives_body(command):
                continue
            if _leaves_obligations(command) or _no_proof_of_its_own(command):
                continue
            if opened:
                inner.add(index)
                outer.setdefault(opened[-1], -1)
            opened.append(index)
        elif (vernac.is_proof_ender(command) or _proof_term(command)) and opened:
            start = opened.pop()
            if start in outer:
                outer[start] = index
    return inner, outer


def _proof_term(command: vernac.Command) -> bool:
    """``Proof term.``: a proof given whole, which ends it (not ``Proof using …``, nor
    ``Proof Mode "Classic".``, which a written proof may hold)."""
    rest = command.words[1:2]
    return (
        command.word == "Proof"
        and command.bare.rstrip(".").strip() != "Proof"
        and rest not in (("using",), ("with",), ("Mode",))
    )


def _proof_end(sentences: Sequence[Sentence], start: int) -> tuple[int | None, int] | None:
    """(index of ``Proof…``, index of ``Admitted``) after the statement at ``start``."""
    proof: int | None = None
    for index in range(start + 1, len(sentences)):
        command = command_of(sentences[index].text)
        if index == start + 1 and command.word == "Proof":
            if _proof_term(command):
                return None  # ``Proof term.``: a finished proof
            proof = index
            continue
        if vernac.is_proof_ender(command):
            return (proof, index) if command.word == "Admitted" else None
        if command.word in HOLE_KEYWORDS or command.word in vernac.SCOPE_WORDS | {"Goal"}:
            return None
    return None


def _footer(closers: str, stack: ScopeStack, sentences: Sequence[Sentence], admitted: int) -> str:
    """What closes the scopes open at a hole: their ``End`` sentences, except inside a
    scope Hierarchy-Builder opened (``HB.builders``), whose ``HB.end.`` fails until the
    ``HB.instance`` declarations after the hole have run: there, the file's own
    sentences up to that ``HB.end.``, then the ``End`` of the scopes around it."""
    depths = [i for i, scope in enumerate(stack.scopes) if scope.kind == "hb"]
    if not depths:
        return closers
    depth = depths[-1]
    after = ScopeStack(list(stack.scopes))
    texts: list[str] = []
    for sentence in sentences[admitted + 1 :]:
        texts.append(sentence.text)
        after.apply(command_of(sentence.text))
        if after.broken:
            return closers
        if len(after.scopes) <= depth:
            outer = [scope.closer for scope in reversed(stack.scopes[:depth])]
            return "\n".join([*texts, *outer])
    return closers


def _no_proof_of_its_own(command: vernac.Command) -> bool:
    """A ``Function`` by structural recursion: its body is all of it."""
    return command.word == "Function" and _WELL_FOUNDED.search(command.bare) is None


def _leaves_obligations(command: vernac.Command) -> bool:
    """``Program Definition``/``Program Instance`` (or ``#[program]``): obligations,
    not one proof. A ``Program Lemma`` only elaborates its statement with Program and is
    then proved as any lemma (math-classes' ``initials_unique``): a hole. Only what
    precedes the keyword counts (``Lemma l : Program = …``)."""
    if command.word not in _MAY_HAVE_BODY:
        return False
    before = command.bare.split(command.word, 1)[0]
    return "Program" in before.split() or "program" in before


def find_holes(source: Source, text: str) -> tuple[list[Hole], list[Skipped]]:
    """The holes of one file, top to bottom, and the ``Admitted`` proofs left out.

    Raises :class:`~proofsearch.env.coq.sentences.SentenceError` for a file that cannot
    be split (an unterminated comment or string).
    """
    sentences = split_sentences(text)
    stack = ScopeStack()
    holes: list[Hole] = []
    skipped: list[Skipped] = []
    covered: set[int] = set()  # the Admitted sentences of holes and of skipped proofs
    ltac2 = False
    program_seen = False
    section_names: set[str] = set()
    nested, around_nested = _nested_proofs(sentences)
    for index, sentence in enumerate(sentences):
        command = command_of(sentence.text)
        stack.apply(command, index)
        ltac2 = vernac.ltac2_mode_after(sentence.text, ltac2)
        if "section" not in stack.kinds:
            section_names = set()
        elif command.word in _SECTION_CONTEXT:
            section_names |= set(_declared_names(sentence.text))
        goal = command.word == "Goal"
        obligation = (
            obligation_statement(sentence.text) if command.word in ("Next", "Obligation") else None
        )
        if command.word not in HOLE_KEYWORDS and not goal and obligation is None:
            continue
        if _leaves_obligations(command):
            program_seen = True
            continue  # its obligations are holes (``Next Obligation``)
        if _no_proof_of_its_own(command):
            continue
        if command.word in _MAY_HAVE_BODY and vernac.gives_body(command):
            continue  # a body given with ``:=``: no proof to fill
        end = around_nested.get(index, -1)
        if end >= 0 and command_of(sentences[end].text).word == "Admitted":
            covered.add(end)
            ident = "" if goal else command.ident
            skipped.append(Skipped(source, _line_of(text, sentence.start), ident, OUTER_REASON))
            continue
        found = _proof_end(sentences, index)
        if found is None:
            continue
        proof, admitted = found
        line = _line_of(text, sentence.start)
        ident = "" if goal else command.ident
        kinds = stack.kinds
        reason = ""
        owner, owner_word = "", ""
        if obligation is not None:
            owner, owner_word = _obligations_owner_and_word(sentences, index)
            program = obligation.program or owner or "obligation"
            if obligation.number is not None:
                ident = f"{program}_obligation_{obligation.number}"
            else:  # Coq numbers it: ``Next Obligation`` takes the first one left
                ident = f"{program}_obligation@{line}"
        if index in nested:
            reason = NESTED_REASON
        elif obligation is not None and owner_word == "Equations":
            reason = OBLIGATION_REASON
        elif obligation is not None and (stack.functor_parameters() or "hb" in kinds):
            reason = OBLIGATION_IN_FUNCTOR_REASON
        elif goal:
            reason = "an anonymous Goal"
        elif not ident:
            reason = "no name"
        elif command.word in _MAY_HAVE_BODY and vernac.defines_a_type(command):
            reason = "its type is a sort: it defines a type, which no proof search should pick"
        elif "module_type" in kinds:
            reason = "inside a Module Type: not a constant of the library"
        elif stack.broken:
            reason = "an End before it closes no open Section/Module"
        covered.add(admitted)
        if reason:
            # A skipped obligation is said by its program's name, as the others are.
            said = owner if obligation is not None and owner else ident
            skipped.append(Skipped(source, line, said, reason))
            continue
        first_tactic = (proof if proof is not None else index) + 1
        partial = [s.text for s in sentences[first_tactic:admitted]]
        indent, _ = _indent_of(text, sentence.start)
        tactic_indent = indent + "  "
        if first_tactic < admitted:
            own, alone = _indent_of(text, sentences[first_tactic].start)
            if alone:
                tactic_indent = own
        admitted_indent, alone = _indent_of(text, sentences[admitted].start)
        lemma = StdlibLemma(
            file=source.file,
            part="",
            line=line,
            keyword=command.word,
            ident=ident,
            qualid=stack.qualify(ident),
            statement=sentence.text,
            reference_proof="",
            ends_with="admitted",
            scopes=tuple(stack.scopes),
            index=index,
            sentences=sentences,
        )
        statement_end = sentence.start + len(sentence.text)
        span_start = sentences[proof].start if proof is not None else statement_end
        after_proof = span_start + len(sentences[proof].text) if proof is not None else span_start
        admits = tuple(
            (s.start - span_start, s.start - span_start + len(s.text))
            for s in sentences[first_tactic:admitted]
            if command_of(s.text).bare == "admit."
        )
        holes.append(
            Hole(
                source=source,
                line=line,
                ident=ident,
                qualid=lemma.qualid,
                statement=sentence.text,
                start=span_start,
                end=sentences[admitted].start + len(sentences[admitted].text),
                proof_sentence=sentences[proof].text if proof is not None else "",
                indent=indent,
                tactic_indent=tactic_indent,
                qed_indent=admitted_indent if alone else indent,
                partial=tuple(partial),
                header=lemma.header,
                footer=_footer(lemma.footer, stack, sentences, admitted),
                in_section=bool(kinds & {"section", "hb"}),
                original=text[
                    span_start : sentences[admitted].start + len(sentences[admitted].text)
                ],
                admits=admits,
                newline=_line_ending(text, sentences[admitted].start),
                comments=tuple(comments_in(text[after_proof : sentences[admitted].start])),
                functor_parameters=stack.functor_parameters(),
                check_in_place="hb" in kinds,
                ltac2_mode=ltac2,
                section_names=frozenset(section_names),
                statement_start=sentence.start,
                after_program=program_seen,
            )
        )
    skipped += _other_admitted(source, text, sentences, covered)
    skipped.sort(key=lambda s: s.line)
    return holes, skipped


def _other_admitted(
    source: Source, text: str, sentences: Sequence[Sentence], covered: set[int]
) -> list[Skipped]:
    """Every other ``Admitted`` proof (a ``Fixpoint`` or ``Let`` by tactics, a second
    ``Next Obligation``), so that none is passed over without a word."""
    found = []
    for index, sentence in enumerate(sentences):
        if _ADMIT_OBLIGATIONS.match(sentence.text):  # no Admitted, and yet a hole left
            owner = _obligations_owner(sentences, index)
            line = _line_of(text, sentence.start)
            found.append(Skipped(source, line, owner, ADMIT_OBLIGATIONS_REASON))
            continue
        if index in covered or command_of(sentence.text).word != "Admitted":
            continue
        if not vernac.is_proof_ender(command_of(sentence.text)):
            continue
        # The statement before ``Proof``, else the nearest command (tactics are lower
        # case), else the sentence after the last proof.
        opener = 0
        for before in range(index - 1, -1, -1):
            command = command_of(sentences[before].text)
            if vernac.is_proof_ender(command):
                opener = before + 1
                break
            if command.word == "Proof":
                opener = max(before - 1, 0)
                break
            if command.word[:1].isupper():
                opener = before
                break
        command = command_of(sentences[opener].text)
        line = _line_of(text, sentences[opener].start)
        if command.word in ("Next", "Obligation", "Solve"):
            owner = _obligations_owner(sentences, opener)
            found.append(Skipped(source, line, owner, OBLIGATION_REASON))
        else:
            what = command.word if command.word[:1].isupper() else "proof"
            article = "an" if what[:1] in "AEIOU" else "a"
            if what in HOLE_KEYWORDS:  # `#[refine] Instance … := {…}. Proof. Admitted.`
                reason = (
                    f"{article} {what} whose value is given with := and finished by tactics "
                    "(#[refine], Program) is not a hole"
                )
            else:
                reason = f"{article} {what} is not a hole (holes: {HOLE_KINDS})"
            found.append(Skipped(source, line, command.ident, reason))
    return found


def select_lemmas(holes: Sequence[Hole], patterns: Sequence[str]) -> list[Hole]:
    """The holes whose name (``ident``, ``qualid``, ``file:qualid`` with the file's path
    from the project's root, or with its name alone: ``Stack.v:*``, as the file is named
    where it is edited) matches a glob."""
    if not patterns:
        return list(holes)
    return [
        hole
        for hole in holes
        if any(
            fnmatch.fnmatchcase(candidate, pattern)
            for pattern in patterns
            for candidate in (
                hole.ident, hole.qualid, hole.name,
                f"{hole.source.file.rsplit('/', 1)[-1]}:{hole.qualid}",
            )
        )
    ]  # fmt: skip


def _obligations_owner(sentences: Sequence[Sentence], index: int) -> str:
    """The definition whose obligation the sentence at ``index`` proves (the nearest
    ``Program …``/``Equations`` before it, or ``Obligation N of X``), or ``""``."""
    return _obligations_owner_and_word(sentences, index)[0]


def _obligations_owner_and_word(sentences: Sequence[Sentence], index: int) -> tuple[str, str]:
    """:func:`_obligations_owner`, and the word that says whose: ``Obligation``,
    ``Program`` or ``Equations`` (``""`` when none is found)."""
    for sentence in reversed(sentences[max(0, index - 200) : index + 1]):
        command = command_of(sentence.text)
        words = command.words
        if command.word == "Obligation" and "of" in words[1:-1]:
            return words[words.index("of") + 1].rstrip("."), "Obligation"
        if (_PROGRAM.match(command.bare) or _leaves_obligations(command)) and command.ident:
            return command.ident, "Program"
        if command.word == "Equations" and len(words) > 1:
            return words[1], "Equations"
    return "", ""

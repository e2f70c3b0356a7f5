"""The premises of a file: what each sentence declared, as Coq says it.

Names come from two places: the sentence (``Lemma foo``, a class's field) and what a
verbose ``Add`` announced (``t_rect is defined``, ``Foo_instance_0 is defined``). Each
name is asked about (``About``): only global objects (constants, inductives,
constructors) are premises, with their kernel name and type; ``Print`` of an inductive
gives its constructors. When a ``Section`` closes, its premises are asked about again,
for their type as seen from outside; when a module closes, ``Search _ inside M`` finds
the constants ``Include`` or a functor application put in it. Declarations inside a
``Module Type`` are not premises (they are fields of a signature). Those inside a functor's
body, and the fields of its parameters (``Search _ inside X`` when the functor opens), are
premises of the body only: named as the body names them (``twice_idem``, ``X.op_comm``),
with ``until`` the line of the functor's ``End`` (:class:`~proofsearch.trace.schema.Premise`).

The collector does not talk to Coq itself: it hands each query to ``ask``, which sends
it while the declaring sentence is the tip, and gets the answer's text back.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from proofsearch.env.coq import vernac
from proofsearch.env.coq.sentences import Sentence
from proofsearch.trace.declarations import About, constructor_candidates, parse_about
from proofsearch.trace.schema import Premise

_INDUCTIVE_WORDS = frozenset(
    {"Inductive", "CoInductive", "Variant", "Record", "Structure", "Class"}
)
_SCHEME_SUFFIXES = ("_rect", "_ind", "_rec", "_sind")
_QUALID = re.compile(r"[^\W\d][\w']*(?:\.[^\W\d][\w']*)*")
_LINE_BREAK = re.compile(r"\s*\n\s*")
#: One answer of ``Search``: ``name: statement``, or, when the statement is too long for
#: the line, ``name:`` with the statement on the lines after it.
_SEARCH_ENTRY = re.compile(rf"(?P<name>{_QUALID.pattern}):\s+(?P<statement>.+)", re.DOTALL)
#: The field of a definitional class: ``Class C (A : Type) := field : A -> A.``
_CLASS_FIELD = re.compile(r":=\s*([^\W\d][\w']*)\s*:(?!=)")
_GLOBAL = ("Constant", "Inductive", "Constructor")

#: Sends a query (``About foo.``) and calls back with the text of its answer.
Ask = Callable[[str, Callable[[str], None]], None]


#: The line a premise of a functor that never closes is seen until.
LAST_LINE = 2**31 - 1


@dataclass(frozen=True)
class Place:
    """Where a declaration is, for its premise: inside a ``Module Type`` (``skip``: no
    premise), inside a functor (``functor``: the offset of the sentence that opened it;
    ``path``: the modules below it), or in the library (``path``: every module around
    it)."""

    skip: bool
    functor: int | None
    path: tuple[str, ...]


@dataclass
class _Declaring:
    """A sentence whose declarations are being asked about."""

    sentence: Sentence
    command: vernac.Command
    place: Place
    main: str


class PremiseCollector:
    """The premises of one file, in the order they were found."""

    def __init__(
        self,
        file: str,
        module: str,
        scopes: vernac.ScopeStack,
        line_of: Callable[[int], int],
        ask: Ask,
    ) -> None:
        self.file = file
        self.module = module
        self.scopes = scopes
        self.line_of = line_of
        self.ask = ask
        self.premises: list[Premise] = []
        self._seen: set[str] = set()
        #: Premises declared inside the open sections: asked about again when a section
        #: closes, for their type as seen from outside (section variables generalized).
        self._in_section: list[int] = []
        self._dropped: set[int] = set()
        #: The last ``Include`` of each open module, by nesting depth.
        self._includes: dict[int, Sentence] = {}
        #: Premise index → the functor (its scope's sentence index) it belongs to, and
        #: each closed functor → the line of its ``End``.
        self._local: dict[int, int] = {}
        self._functor_ends: dict[int, int] = {}
        #: The open functors, innermost last: the offsets of their opening sentences.
        self._functors: list[int] = []

    def in_signature(self) -> bool:
        """Inside a ``Module Type`` or a functor: fields, not constants of the library."""
        return bool(self.scopes.kinds & {"module_type", "functor"})

    def place(self) -> Place:
        """Where a declaration made here goes (see :class:`Place`)."""
        if "module_type" in self.scopes.kinds:
            return Place(True, None, ())
        functors = [i for i, scope in enumerate(self.scopes.scopes) if scope.kind == "functor"]
        if not functors:
            return Place(False, None, tuple(self.scopes.module_path()))
        below = self.scopes.scopes[functors[-1] + 1 :]
        path = tuple(scope.name for scope in below if scope.kind not in ("section", "hb"))
        return Place(False, self._functors[-1] if self._functors else -1, path)

    def premise_name(self, place: Place, ident: str) -> str:
        """The name a premise declared at ``place`` is used by."""
        if place.functor is not None:
            return ".".join([*place.path, ident])
        return ".".join([self.module, *place.path, ident])

    def functor_opened(self, sentence: Sentence) -> None:
        """A functor's parameters are premises of its body: their fields as ``X.f``."""
        self._functors.append(sentence.start)
        for parameter in self.scopes.scopes[-1].parameters:

            def found(text: str, functor: int = sentence.start) -> None:
                for entry in text.split("\n\n"):
                    match = _SEARCH_ENTRY.fullmatch(entry.strip())
                    if match is not None:
                        statement = _LINE_BREAK.sub(" ", match["statement"].strip())
                        self.add(match["name"], "Parameter", statement, sentence, functor)

            self.ask(f"Search _ inside {parameter}.", found)

    def functor_closed(self, end: Sentence) -> None:
        """``End`` of the innermost functor: its premises are seen up to this line."""
        if self._functors:
            self._functor_ends[self._functors.pop()] = self.line_of(end.start)

    def include(self, sentence: Sentence) -> None:
        """An ``Include`` in the current module: what it brings is placed here at the
        latest (see :meth:`module_closed`)."""
        if not self.in_signature():
            self._includes[len(self.scopes.scopes)] = sentence

    def module_closed(self, name: str, end: Sentence) -> None:
        """``End M`` of a plain module (the scope stack already popped)."""
        included = self._includes.pop(len(self.scopes.scopes) + 1, None)
        self.module_contents(name, included or end)

    def about(self, name: str, then: Callable[[About | None], None]) -> None:
        self.ask(f"About {name}.", lambda text: then(parse_about(text)))

    def declare(self, sentence: Sentence, command: vernac.Command, announced: list[str]) -> None:
        main = command.ident if command.word in vernac.DECLARING_KINDS else ""
        names = list(announced)
        if main and main not in names:
            names.insert(0, main)
        if command.word == "Class":
            field = _CLASS_FIELD.search(command.bare)
            if field and "{" not in command.bare[field.start() : field.end()]:
                names.append(field.group(1))
        declaring = _Declaring(sentence, command, self.place(), main)
        for name in names:
            self.about(name, functools.partial(self._declared, declaring, name))

    def _declared(self, declaring: _Declaring, name: str, about: About | None) -> None:
        if about is None or about.what not in _GLOBAL:
            return
        word = declaring.command.word
        if about.what == "Inductive":
            kind = vernac.DECLARING_KINDS.get(word, "Inductive")
            if word == "Class":
                kind = "Record"
            self.ask(f"Print {name}.", lambda text: self._constructors(declaring, text))
        elif about.what == "Constructor":
            kind = "Constructor"
        elif name == declaring.main or word not in _INDUCTIVE_WORDS:
            kind = vernac.DECLARING_KINDS.get(word, "Other")
        elif name.endswith(_SCHEME_SUFFIXES):
            kind = "Scheme"
        else:
            kind = "Projection"
        if kind == "Inductive" and word not in _INDUCTIVE_WORDS:
            kind = "Inductive"
        place = declaring.place
        if place.skip:
            return
        qualified = self.premise_name(place, about.kernel_name.split(".")[-1])
        self.add(qualified, kind, about.statement, declaring.sentence, place.functor)

    def _constructors(self, declaring: _Declaring, printed: str) -> None:
        for name in constructor_candidates(printed):
            self.about(name, functools.partial(self._constructor, declaring, name))

    def _constructor(self, declaring: _Declaring, name: str, about: About | None) -> None:
        if about is not None and about.what == "Constructor":
            self._declared(declaring, name, about)

    def module_contents(self, name: str, sentence: Sentence) -> None:
        """Premises a closed module has but no sentence declared: what ``Include`` or a
        functor application (``Module N := F M.``) put there. Placed at the module's
        last ``Include`` (or the ``Module N := …`` sentence), never earlier than they
        exist."""
        path = self.scopes.module_path()

        def found(text: str) -> None:
            for entry in text.split("\n\n"):
                match = _SEARCH_ENTRY.fullmatch(entry.strip())
                if match is None:
                    continue
                qualified = ".".join([self.module, *path, match["name"]])
                statement = _LINE_BREAK.sub(" ", match["statement"].strip())
                self.add(qualified, "Included", statement, sentence)

        self.ask(f"Search _ inside {name}.", found)

    def section_closed(self) -> None:
        """After ``End Sec`` of the outermost section: each premise of the section gets
        its type as seen outside; one that no longer exists (a ``Let``) is dropped.

        Not after an inner section's ``End``: while a section is open, Coq knows none of
        its constants by their qualified name ("not a defined object"), so asking then
        dropped every premise of the enclosing sections (the stdlib's ``SetoidList``
        kept 6 of its premises)."""
        if "section" in self.scopes.kinds:
            return
        for index in self._in_section:
            premise = self.premises[index]

            def update(about: About | None, index: int = index, premise: Premise = premise) -> None:
                if about is None or about.what not in _GLOBAL:
                    self._dropped.add(index)
                else:
                    self.premises[index] = premise.model_copy(update={"statement": about.statement})

            self.about(premise.name, update)
        self._in_section = []

    def add(
        self, name: str, kind: str, statement: str, sentence: Sentence, functor: int | None = None
    ) -> None:
        key = name if functor is None else f"{functor}:{name}"  # two functors' `X.f`
        if key in self._seen:
            return
        self._seen.add(key)
        if functor is not None:
            self._local[len(self.premises)] = functor
        elif "section" in self.scopes.kinds:
            self._in_section.append(len(self.premises))
        self.premises.append(
            Premise(
                name=name,
                kind=kind,
                statement=statement,
                file=self.file,
                module=self.module,
                line=self.line_of(sentence.start),
                offset=sentence.start,
            )
        )

    def finish(self) -> list[Premise]:
        """The premises in file order (ties kept in the order they were found)."""
        kept = [
            p.model_copy(update={"until": self._functor_ends.get(self._local[i], LAST_LINE)})
            if i in self._local
            else p
            for i, p in enumerate(self.premises)
            if i not in self._dropped
        ]
        return sorted(kept, key=lambda premise: premise.offset)

"""The premises of a file: what each sentence declared, as Coq says it.

Names come from two places: the sentence (``Lemma foo``, a class's field) and what a
verbose ``Add`` announced (``t_rect is defined``, ``Foo_instance_0 is defined``). Each
name is asked about (``About``): only global objects (constants, inductives,
constructors) are premises, with their kernel name and type; ``Print`` of an inductive
gives its constructors. When a ``Section`` closes, its premises are asked about again,
for their type as seen from outside; when a module closes, ``Search _ inside M`` finds
the constants ``Include`` or a functor application put in it. Declarations inside a
``Module Type`` or a functor are not premises (they are not constants of the library).

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


@dataclass
class _Declaring:
    """A sentence whose declarations are being asked about."""

    sentence: Sentence
    command: vernac.Command
    scope_path: list[str]
    in_signature: bool
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

    def in_signature(self) -> bool:
        """Inside a ``Module Type`` or a functor: fields, not constants of the library."""
        return bool(self.scopes.kinds & {"module_type", "functor"})

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
        declaring = _Declaring(
            sentence, command, self.scopes.module_path(), self.in_signature(), main
        )
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
        if declaring.in_signature:
            return
        qualified = ".".join([self.module, *declaring.scope_path, about.kernel_name.split(".")[-1]])
        self.add(qualified, kind, about.statement, declaring.sentence)

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

    def add(self, name: str, kind: str, statement: str, sentence: Sentence) -> None:
        if name in self._seen:
            return
        self._seen.add(name)
        if "section" in self.scopes.kinds:
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
        kept = [p for i, p in enumerate(self.premises) if i not in self._dropped]
        return sorted(kept, key=lambda premise: premise.offset)

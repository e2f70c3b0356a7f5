"""What a hand-written header leaves open, and what that implies for its theorem.

A theorem file written by hand may open a ``Section`` or a ``Module`` in its header and
give no ``footer``: the search runs all the same, but the re-check's file then ends
inside the Section (``The section S needs to be closed``) or asks ``Print Assumptions``
about the bare name of a lemma that lives in ``M`` (``The reference … was not found``),
so a proof found was reported as a disagreement. The ``End`` sentences and the
module-qualified name follow from the header itself.
"""

from __future__ import annotations

from dataclasses import replace

from proofsearch.env.coq.checker import statement_name
from proofsearch.env.coq.sentences import SentenceError, split_sentences
from proofsearch.env.coq.vernac import ScopeStack, command_of
from proofsearch.theorem import Theorem


def open_scopes(header: str) -> ScopeStack | None:
    """The Sections/Modules the header leaves open (``None``: it cannot be read)."""
    try:
        sentences = split_sentences(header)
    except SentenceError:
        return None
    stack = ScopeStack()
    for index, sentence in enumerate(sentences):
        stack.apply(command_of(sentence.text), index)
    return None if stack.broken else stack


def with_implied_place(theorem: Theorem) -> Theorem:
    """``theorem`` with the ``footer`` (and ``qualid``) its header implies, when it gives
    none and leaves Sections or Modules open; as it is otherwise, and for functors and
    module types (their lemmas need ``functor_parameters``; see docs/prove.md)."""
    if theorem.extra.get("footer") is not None:
        return theorem
    stack = open_scopes(theorem.header)
    if stack is None or not stack.scopes or stack.kinds - {"section", "module"}:
        return theorem
    extra = dict(theorem.extra)
    extra["footer"] = "\n".join(scope.closer for scope in reversed(stack.scopes))
    name = statement_name(theorem.statement)
    if name is not None and not extra.get("qualid"):
        extra["qualid"] = stack.qualify(name)
    return replace(theorem, extra=extra)

"""The header leak check: a lemma must not be declared in the header it is searched under."""

from __future__ import annotations

import re

from proofsearch.env.coq.sentences import split_sentences
from proofsearch.env.coq.vernac import PREFIXES, ScopeStack, command_of

_DECLARING = (
    "Theorem|Lemma|Fact|Remark|Corollary|Proposition|Property|Example|Definition|"
    "Fixpoint|CoFixpoint|Inductive|CoInductive|Record|Structure|Class|Instance|Let|"
    "Axiom|Parameter|Conjecture|Variable|Hypothesis|Function|Notation"
)


def declares(header: str, qualid: str) -> bool:
    """Whether ``header`` declares ``qualid`` (a lemma must not leak into its header).

    ``qualid`` is module-qualified (``Nat.add_comm``) and so is the check: the same
    identifier declared in another module of the file (``Generic.paradox`` before
    ``PropNeqType.paradox`` in ``Logic/Hurkens.v``) is a different constant.
    """
    *modules, ident = qualid.split(".")
    pattern = re.compile(
        rf"^\s*(?:#\[[^\]]*\]\s*)*(?:(?:{'|'.join(PREFIXES)})\s+)*(?:{_DECLARING})\s+"
        rf"{re.escape(ident)}(?![\w'])"
    )
    stack = ScopeStack()
    for sentence in split_sentences(header):
        command = command_of(sentence.text)
        stack.apply(command)
        if pattern.match(command.bare) and stack.module_path() == modules:
            return True
    return False

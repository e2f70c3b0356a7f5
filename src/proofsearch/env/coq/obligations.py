"""A Program obligation as a theorem: ``Next Obligation.`` opens its proof.

``prove`` searches a ``Program`` definition's obligation left ``Admitted`` (``Next
Obligation. Admitted.``) as it searches a lemma: its header is the file up to the
obligation's sentence, which is its statement. Two things differ from a lemma, and
both concern the re-check:

- The obligation's constant is named by Coq, not by the file: ``h_obligation_2`` for
  the second obligation of ``h``, numbered before the default obligation tactic solved
  some (so ``Next Obligation`` may well prove the second). The re-check asks Coq:
  ``Obligations.`` right before the statement, after a marker no tactic can print
  (the header may print obligations of its own), lists the obligations left, the
  first being the one ``Next Obligation`` takes.
- A file (or a Section) cannot end with a program's obligations unsolved: after the
  proof's ``Qed.`` the re-check admits the later ones (``Admit Obligations.``), which
  cannot change what the proved obligation rests on (it is closed by then; the
  re-check prints its own assumptions only).

Measured with Coq 8.16.1, 8.20.1 and Rocq 9.2.0 (the same names and messages).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from proofsearch.env.coq.vernac import IDENT, strip_comments

_OBLIGATION = re.compile(
    rf"^\s*(?:Next\s+Obligation|Obligation\s+(?P<number>[0-9]+))"
    rf"(?:\s+of\s+(?P<program>{IDENT}))?\s*(?:with\b[^.]*)?\.\s*$",
    re.DOTALL,
)
#: How ``Obligations.`` lists one (Coq 8.16 to Rocq 9.2): ``Obligation 2 of h:``.
_LISTED = re.compile(rf"^Obligation\s+([0-9]+)\s+of\s+({IDENT})\s*:", re.MULTILINE)
#: An obligation's constant (``f_obligation_2``; Equations' ``f_obligations_obligation_1``).
OBLIGATION_CONSTANT = re.compile(r".+_obligation_[0-9]+")
#: After the proof: the program's later obligations, so that the file may end.
ADMIT_LATER = "Admit Obligations."


@dataclass(frozen=True)
class ObligationStatement:
    """What the sentence names: ``Obligation 2 of h.`` both, ``Next Obligation.`` neither."""

    number: int | None
    program: str | None

    @property
    def needs_query(self) -> bool:
        """Whether Coq must say which obligation the sentence opens."""
        return self.number is None or self.program is None

    def query(self) -> str:
        """The ``Obligations`` command that lists the ones the sentence chooses from."""
        return f"Obligations of {self.program}." if self.program else "Obligations."


def obligation_statement(statement: str) -> ObligationStatement | None:
    """The obligation a statement opens (``Next Obligation.``, ``Obligation 2 of h.``),
    or ``None`` when it is no obligation sentence."""
    match = _OBLIGATION.match(strip_comments(statement))
    if match is None:
        return None
    number = match.group("number")
    return ObligationStatement(int(number) if number else None, match.group("program"))


def constant_name(statement: ObligationStatement, listed: str) -> str | None:
    """The obligation's constant (``h_obligation_2``): from the statement, completed by
    the first obligation ``listed`` (what ``Obligations.`` printed) for the part it does
    not name; ``None`` when nothing listed fits."""
    for found in _LISTED.finditer(listed):
        number, program = int(found.group(1)), found.group(2)
        if statement.number is not None and number != statement.number:
            continue
        if statement.program is not None and program != statement.program:
            continue
        return f"{program}_obligation_{number}"
    if statement.number is not None and statement.program is not None:
        return f"{statement.program}_obligation_{statement.number}"
    return None

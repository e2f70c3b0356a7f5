"""Characters XML 1.0 forbids in coqidetop's replies: read, not a crash of the theorem.

coqidetop copies a message's characters as they are, so ``fail "<U+0001>"`` made it send
a reply the XML parser rejected, and the theorem ended as ``error`` although the tactic
had only failed and ``exact I`` in the same batch proved it.
"""

from __future__ import annotations

import pytest

from proofsearch.env.base import Proved, TacticError
from proofsearch.env.coq import CoqConfig, CoqProver, xml
from proofsearch.generate.base import Suggestion, TacticGenerator
from proofsearch.search import BestFirstSearchProver, SearchConfig, Status
from proofsearch.theorem import Theorem

TRUE = Theorem("true", "Theorem t : True.", "")
CONTROLS = ["\x01", "\x08", "\x0b", "\x0c", "\x1f", "\x1b[31m"]


@pytest.mark.parametrize(
    "raw, message",
    [
        (b'<value val="fail"><richpp>a\x01b</richpp></value>', "a\\x01b"),
        (b'<value val="fail"><richpp>a&#1;b&#x1F;c&#233;</richpp></value>', "a\\x01b\\x1fc\xe9"),
        (b'<value val="fail"><richpp>\xff\x0c</richpp></value>', "\ufffd\\x0c"),
        (b'<value val="fail"><richpp>tab\tnl\ncr</richpp></value>', "tab\tnl\ncr"),
    ],
)
def test_forbidden_characters_are_spelled_out(raw: bytes, message: str) -> None:
    element = xml.RawElement(b"value", raw)
    assert xml.text_of(element.tree.find("richpp")) == message


@pytest.fixture(scope="module")
def prover() -> CoqProver:
    with CoqProver(CoqConfig(tactic_timeout=2)) as instance:
        yield instance  # type: ignore[misc]


@pytest.mark.parametrize("char", CONTROLS)
def test_a_failing_tactic_with_a_control_character_stays_a_failed_tactic(
    prover: CoqProver, char: str
) -> None:
    with prover.open(TRUE) as session:
        failed, proved = session.apply_all(session.root, [f'fail "{char}"', "exact I"])
    assert isinstance(failed, TacticError)
    assert failed.message.startswith("Tactic failure: ") and "\\x" in failed.message
    assert proved == Proved(("exact I",))


class Fixed(TacticGenerator):
    def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        return [Suggestion('fail "\x01"', -0.1), Suggestion("exact I", -0.2)]


def test_the_search_proves_the_theorem(prover: CoqProver) -> None:
    result = BestFirstSearchProver(prover, Fixed(), SearchConfig(timeout=60)).search(TRUE)
    assert result.status is Status.PROVED and result.checked, result.error
    assert result.proof == ["exact I"] and result.num_tactic_applications == 2

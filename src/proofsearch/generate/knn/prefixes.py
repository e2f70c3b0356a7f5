"""The steps inside a compound tactic sentence.

A traced sentence such as ``by elim: n => //= n ->`` or ``induction n; simpl; auto``
either does everything or nothing: where the last part fails, the search has nothing
to expand (18 of 40 math-comp searches ended that way). Its prefixes are steps of their
own that may still make progress: ``elim: n => //= n ->`` without the closing ``by``,
``induction n`` and ``induction n; simpl``. ``knn`` offers them after the sentence,
each a little less likely than the sentence it comes from; a prefix that several
neighbours' sentences begin with pools their evidence (:class:`PrefixPool`).

A rewrite with several rules is a sentence of steps too: ssreflect's ``rewrite !inE
andbK`` rewrites with ``inE`` and then with ``andbK`` (the stdlib's ``rewrite A, B``
likewise), and where ``andbK`` is the wrong lemma, ``rewrite !inE`` still makes the
progress the neighbour's proof made. So ``by apply/setP=> x; rewrite !inE andbK`` offers
``apply/setP=> x; rewrite !inE`` before ``apply/setP=> x``.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

from proofsearch.generate.base import Suggestion

_OPEN = {"(": ")", "[": "]", "{": "}"}
_TERMINATORS = ("by ", "now ")
#: Score of a sentence's prefix relative to the sentence, per part left out.
PREFIX_PENALTY = -0.7
#: At most this many prefixes of one sentence.
MAX_PREFIXES = 4
#: Words that end a plain ``rewrite``'s rules (``rewrite A in H``, ``rewrite A by t``):
#: such a rewrite is not cut.
_REWRITE_CLAUSES = frozenset({"in", "at", "by", "with", "using", "=>"})
#: An ssreflect rewrite item that is only modifiers (``-``, ``2!``, ``{1}``, ``-[x]``),
#: written apart from its rule.
_MODIFIERS = re.compile(r"^-?\d*[!?]?(\{[^}]*\})?(\[.*\])?$")


def _split_outside(body: str, separator: str) -> list[str]:
    """``body`` split at ``separator`` (one character; whitespace for ``" "``) outside
    brackets."""
    parts: list[str] = []
    depth, start = 0, 0
    for index, char in enumerate(body):
        if char in _OPEN:
            depth += 1
        elif char in _OPEN.values():
            depth -= 1
        elif depth == 0 and (char == separator or (separator == " " and char.isspace())):
            parts.append(body[start:index].strip())
            start = index + 1
    parts.append(body[start:].strip())
    return parts


def _parts(body: str) -> list[str]:
    """``body`` split at its ``;`` outside brackets."""
    if not any(char in body for char in "([{"):
        return [part.strip() for part in body.split(";")]
    return _split_outside(body, ";")


def sentence_parts(tactic: str) -> tuple[str, list[str]]:
    """A sentence's closing word (``"by "``, ``"now "`` or ``""``) and its steps, split
    at its ``;`` outside brackets: ``by case: b => //; case: b`` → ``("by ", ["case: b =>
    //", "case: b"])``."""
    body = tactic.strip()
    for terminator in _TERMINATORS:
        if body.startswith(terminator):
            return terminator, _parts(body[len(terminator) :].strip())
    return "", _parts(body)


def _rewrite_rules(part: str) -> tuple[list[str], str]:
    """The rules of a ``rewrite`` with several, and what joins them (``" "`` in
    ssreflect, ``", "`` in the stdlib); ``([], "")`` for any other step."""
    if not part.startswith("rewrite "):
        return [], ""
    rest = part[len("rewrite ") :].strip()
    words = [w for w in _split_outside(rest, " ") if w]
    if any(word in _REWRITE_CLAUSES for word in words):
        return [], ""
    commas = _split_outside(rest, ",")
    if len(commas) > 1:
        return (commas, ", ") if all(commas) else ([], "")
    if any(word in ("<-", "->") for word in words):
        return [], ""
    rules: list[str] = []
    pending = ""
    for word in words:
        if _MODIFIERS.match(word) and word not in ("//", "/=", "//="):
            pending += word
            continue
        rules.append(pending + word)
        pending = ""
    if pending:
        return [], ""
    return rules, " "


def prefixes(tactic: str) -> list[str]:
    """The steps that begin ``tactic`` (without ``tactic`` itself), longest first."""
    stripped = tactic.lstrip()
    if ";" not in tactic and not stripped.startswith((*_TERMINATORS, "rewrite ")):
        return []
    return list(_prefixes(tactic))


def _cuts(parts: list[str]) -> list[str]:
    """The proper prefixes of the steps ``parts``, a rewrite's rules counted as steps,
    longest first."""
    out: list[str] = []
    for end in range(len(parts) - 1, -1, -1):
        head = parts[:end]
        rules, joiner = _rewrite_rules(parts[end])
        for count in range(len(rules) - 1, 0, -1):
            out.append("; ".join([*head, "rewrite " + joiner.join(rules[:count])]))
        if head:
            out.append("; ".join(head))
    return out


@lru_cache(maxsize=1 << 16)
def _prefixes(tactic: str) -> tuple[str, ...]:
    body = tactic.strip()
    out: list[str] = []
    for terminator in _TERMINATORS:
        if body.startswith(terminator):
            body = body[len(terminator) :].strip()
            if body and not body.startswith("["):
                out.append(body)
            break
    parts = _parts(body)
    if all(parts):
        out += _cuts(parts)
    return tuple([p for p in dict.fromkeys(out) if p and p != tactic][:MAX_PREFIXES])


class PrefixPool:
    """The prefixes of the sentences a knn call offers, each scored by all of them.

    Fifteen neighbours of a set identity offered ``by apply/setP=> x; rewrite !inE L``,
    each with its own ``L`` and none right; their common step ``apply/setP=> x; rewrite
    !inE`` is what they agree on. Its score is the log of the summed probabilities of
    the neighbours whose sentence it begins (each less :data:`PREFIX_PENALTY` per part
    left out; one neighbour counted once, by its best variant), and at most the best of
    those sentences' own score: a prefix is never preferred to a sentence it comes from.
    """

    def __init__(self) -> None:
        self._scores: dict[str, dict[int, float]] = {}
        self._best: dict[str, float] = {}

    def add(self, sentence: str, score: float, source: int) -> None:
        """Offer ``sentence``'s prefixes; ``source`` tells one neighbour from another."""
        for index, prefix in enumerate(prefixes(sentence)):
            by_source = self._scores.setdefault(prefix, {})
            value = score + PREFIX_PENALTY * (index + 1)
            by_source[source] = max(by_source.get(source, -math.inf), value)
            self._best[prefix] = max(self._best.get(prefix, -math.inf), score)

    def suggestions(self) -> list[Suggestion]:
        """The prefixes, in the order they were first offered."""
        out = []
        for prefix, by_source in self._scores.items():
            scores = list(by_source.values())
            top = max(scores)
            pooled = top + math.log(sum(math.exp(s - top) for s in scores))
            out.append(Suggestion(prefix, min(pooled, self._best[prefix])))
        return out

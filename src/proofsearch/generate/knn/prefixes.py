"""The steps inside a compound tactic sentence.

A traced sentence such as ``by elim: n => //= n ->`` or ``induction n; simpl; auto``
either does everything or nothing: where the last part fails, the search has nothing
to expand (18 of 40 math-comp searches ended that way). Its prefixes are steps of their
own that may still make progress: ``elim: n => //= n ->`` without the closing ``by``,
``induction n`` and ``induction n; simpl``. ``knn`` offers them after the sentence,
each a little less likely than the sentence it comes from.
"""

from __future__ import annotations

from functools import lru_cache

_OPEN = {"(": ")", "[": "]", "{": "}"}
_TERMINATORS = ("by ", "now ")
#: At most this many prefixes of one sentence.
MAX_PREFIXES = 3


def _parts(body: str) -> list[str]:
    """``body`` split at its ``;`` outside brackets."""
    if not any(char in body for char in "([{"):
        return [part.strip() for part in body.split(";")]
    parts: list[str] = []
    depth, start = 0, 0
    for index, char in enumerate(body):
        if char in _OPEN:
            depth += 1
        elif char in _OPEN.values():
            depth -= 1
        elif char == ";" and depth == 0:
            parts.append(body[start:index].strip())
            start = index + 1
    parts.append(body[start:].strip())
    return parts


def prefixes(tactic: str) -> list[str]:
    """The steps that begin ``tactic`` (without ``tactic`` itself), longest first."""
    if ";" not in tactic and not tactic.lstrip().startswith(_TERMINATORS):
        return []
    return list(_prefixes(tactic))


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
    if len(parts) > 1 and all(parts):
        out += ["; ".join(parts[:end]) for end in range(len(parts) - 1, 0, -1)]
    return tuple([p for p in dict.fromkeys(out) if p and p != tactic][:MAX_PREFIXES])

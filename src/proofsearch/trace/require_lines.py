"""Where a file loads each module it requires: the line of the first ``Require`` naming it.

``coqdep`` says which modules a file requires, not where. A lemma can only use what was
required before it (49 files of Coq 8.16's stdlib have a ``Require`` after their first
declaration), so the
shard records, for each required module, the line of the first ``Require`` sentence that
loads it; knn's scope closes over the ``Require`` sentences before a lemma only.

A ``Require`` names modules by a suffix of their logical name (``Require Import List``,
``From Coq Require Import Lists.List``); each is matched against coqdep's resolved
modules, which are exact. A required module no ``Require`` sentence names (a form this
reader does not know) gets line 0: loaded before every lemma, as if it led the file.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence

from proofsearch.env.coq.sentences import SentenceError, split_sentences
from proofsearch.env.coq.vernac import strip_comments
from proofsearch.env.coq.version import stdlib_spellings

_ATTRIBUTES = re.compile(r"^(?:#\[[^\]]*\]\s*)*")
_REQUIRE = re.compile(r"(?:From\s+(?P<prefix>[\w'.]+)\s+)?Require\b(?P<rest>.*)", re.S)
_QUALID = re.compile(r"[^\W\d][\w']*(?:\.[^\W\d][\w']*)*")
_NOT_NAMES = frozenset({"Import", "Export"})


def _names(module: str, qualid: str, prefix: str | None) -> bool:
    """Does ``qualid`` (after ``From prefix``) denote the logical name ``module``?

    Rocq 9 still reads ``From Coq Require …`` and ``Require Coq.…`` as the stdlib
    (deprecated), whose modules it names ``Stdlib.…``: those spellings count too."""
    return any(_denotes(name, qualid, prefix) for name in stdlib_spellings(module))


def _denotes(module: str, qualid: str, prefix: str | None) -> bool:
    if prefix is not None:
        if not module.startswith(prefix + "."):
            return False
        module = module[len(prefix) + 1 :]
    return module == qualid or module.endswith("." + qualid)


def require_lines(text: str, requires: Sequence[str]) -> dict[str, int]:
    """Required module → 1-based line of the first ``Require`` of ``text`` that loads it."""
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    found: dict[str, int] = {}
    try:
        sentences = split_sentences(text)
    except SentenceError:
        sentences = []  # a file Coq could not read either: every require at line 0
    for sentence in sentences:
        bare = _ATTRIBUTES.sub("", strip_comments(sentence.text).strip())
        match = _REQUIRE.fullmatch(bare)
        if match is None:
            continue
        rest = match.group("rest").rstrip().removesuffix(".")
        qualids = [q for q in _QUALID.findall(rest) if q not in _NOT_NAMES]
        line = bisect_right(starts, sentence.start)
        for module in requires:
            if module not in found and any(
                _names(module, q, match.group("prefix")) for q in qualids
            ):
                found[module] = line
    return {module: found.get(module, 0) for module in requires}

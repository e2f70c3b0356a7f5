"""The rewrite databases a hole can use: ``Hint Rewrite … : DB`` of its project.

A project's own rewrite database (``Hint Rewrite f_id : alg.`` in one file,
``autorewrite with alg`` in the proofs of the next) is a tactic no generator offers
unless some proof already uses it: an audit's hole needing exactly that was left. The
databases declared before the hole in its file, and those its project dependencies
declare (not ``Local``/``#[local]`` ones: they do not leave their file), go into the
theorem's ``rewrite_databases`` field, which the portfolio's ``{rewrite_db}`` template
reads. Benchmarks of a library do not set it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence

from proofsearch.env.coq.sentences import split_sentences

_HINT_REWRITE = re.compile(
    r"(?P<attributes>(?:#\[[^\]]*\]\s*)*)(?:(?P<locality>Local|Global|Export)\s+)?"
    r"Hint\s+Rewrite\b(?P<body>.*):\s*(?P<names>[\w'][\w'\s]*)",
    re.S,
)


def declared(text: str, before: int | None = None) -> list[tuple[str, bool]]:
    """``(database, local)`` for each ``Hint Rewrite`` of ``text`` (a file) that starts
    before offset ``before`` (all of them when ``None``), in order."""
    return [
        (name, local)
        for start, name, local in _declarations(text)
        if before is None or start < before
    ]


@functools.lru_cache(maxsize=64)
def _declarations(text: str) -> tuple[tuple[int, str, bool], ...]:
    """Every ``Hint Rewrite`` database name of a file, with its sentence's offset (one
    split per file, however many holes it has)."""
    found: list[tuple[int, str, bool]] = []
    if "Rewrite" not in text:
        return ()
    for sentence in split_sentences(text):
        match = _HINT_REWRITE.fullmatch(sentence.text.strip().removesuffix(".").strip())
        if match is None:
            continue
        local = match["locality"] == "Local" or "local" in match["attributes"]
        found += [(sentence.start, name, local) for name in match["names"].split()]
    return tuple(found)


def hole_databases(
    module: str,
    before: int,
    texts: Mapping[str, str],
    requires: Mapping[str, Sequence[str]],
) -> list[str]:
    """The rewrite databases a hole at offset ``before`` of ``module`` may name: its
    file's up to there, and its project dependencies' (transitively) that are not local."""
    names = [name for name, _ in declared(texts[module], before)]
    seen: set[str] = set()
    todo = list(requires.get(module, ()))
    while todo:
        dependency = todo.pop()
        if dependency in seen or dependency not in texts:
            continue
        seen.add(dependency)
        names += [name for name, local in declared(texts[dependency]) if not local]
        todo += requires.get(dependency, ())
    return list(dict.fromkeys(names))

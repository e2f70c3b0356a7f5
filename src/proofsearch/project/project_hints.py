"""What a project declares for its proofs' tactics: its ``Hint Rewrite`` databases and
its setoid relations.

A project's own rewrite database (``Hint Rewrite f_id : alg.`` in one file,
``autorewrite with alg`` in the proofs of the next) and its own equivalences
(``Instance : Equivalence eqmod3``, then ``rewrite H`` with ``H : eqmod3 x y``) call for
tactics no generator offers unless some proof already uses them: an audit's holes
needing exactly these were left. The names declared before the hole in its file, and
those its project dependencies declare (not ``Local``/``#[local]`` ones: they do not
leave their file), go into the theorem's ``rewrite_databases`` and
``setoid_relations`` fields, which the portfolio's ``autorewrite with {rewrite_db}`` and
``rewrite {rel_hyp}`` read. Benchmarks of a library do not set them.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from typing import Literal

from proofsearch.env.coq.sentences import split_sentences

Kind = Literal["rewrite_databases", "setoid_relations"]

_LOCALITY = r"(?P<attributes>(?:#\[[^\]]*\]\s*)*)(?:(?P<locality>Local|Global|Export)\s+)?"
_HINT_REWRITE = re.compile(
    _LOCALITY + r"Hint\s+Rewrite\b(?P<body>.*):\s*(?P<names>[\w'][\w'\s]*)", re.S
)
#: The classes that make ``rewrite H`` work along a relation (with its ``Proper`` facts).
_RELATION_CLASSES = r"(?:Equivalence|PER|PreOrder|PartialOrder|RewriteRelation|Setoid)"
_RELATION_INSTANCE = re.compile(
    _LOCALITY
    + r"(?:Program\s+)?Instance\b[^:]*:\s*(?:@\s*)?"
    + _RELATION_CLASSES
    + r"\s+(?:\(\s*)?@?(?P<names>[^\W\d][\w'.]*)",
    re.S,
)
#: ``Add Parametric Relation (A : Type) : (list A) (@same_len A) as …``: the relation is
#: the term before ``reflexivity``/``symmetry``/``transitivity``/``as``.
_ADD_RELATION = re.compile(
    _LOCALITY + r"Add\s+(?:Parametric\s+)?Relation\b.*?(?:\(\s*)?@?(?P<names>[^\W\d][\w'.]*)"
    r"[^():]*\)?\s+(?:reflexivity|symmetry|transitivity|as)\b",
    re.S,
)
#: Words a relation's place may hold that name no relation (``PER (fun a b => …)``).
_NOT_NAMES = frozenset({"fun", "forall", "let", "match", "exists"})
_PATTERNS: dict[Kind, tuple[re.Pattern[str], ...]] = {
    "rewrite_databases": (_HINT_REWRITE,),
    "setoid_relations": (_RELATION_INSTANCE, _ADD_RELATION),
}
_WORDS: dict[Kind, tuple[str, ...]] = {
    "rewrite_databases": ("Rewrite",),
    "setoid_relations": ("Equivalence", "PER", "PreOrder", "PartialOrder", "Relation", "Setoid"),
}


def declared(kind: Kind, text: str, before: int | None = None) -> list[tuple[str, bool]]:
    """``(name, local)`` for each declaration of ``kind`` in ``text`` (a file) whose
    sentence starts before offset ``before`` (all of them when ``None``), in order."""
    return [
        (name, local)
        for start, name, local in _declarations(kind, text)
        if before is None or start < before
    ]


@functools.lru_cache(maxsize=128)
def _declarations(kind: Kind, text: str) -> tuple[tuple[int, str, bool], ...]:
    """Every name of ``kind`` a file declares, with its sentence's offset (one split per
    file, however many holes it has)."""
    if not any(word in text for word in _WORDS[kind]):
        return ()
    found: list[tuple[int, str, bool]] = []
    for sentence in split_sentences(text):
        body = sentence.text.strip().removesuffix(".").strip()
        for pattern in _PATTERNS[kind]:
            match = pattern.match(body)
            if match is None:
                continue
            local = match["locality"] == "Local" or "local" in match["attributes"]
            names = [name for name in match["names"].split() if name not in _NOT_NAMES]
            found += [(sentence.start, name, local) for name in names]
            break
    return tuple(found)


def hole_names(
    kind: Kind,
    module: str,
    before: int,
    texts: Mapping[str, str],
    requires: Mapping[str, Sequence[str]],
) -> list[str]:
    """The names of ``kind`` a hole at offset ``before`` of ``module`` may use: its
    file's up to there, and its project dependencies' (transitively) that are not local."""
    names = [name for name, _ in declared(kind, texts[module], before)]
    seen: set[str] = set()
    todo = list(requires.get(module, ()))
    while todo:
        dependency = todo.pop()
        if dependency in seen or dependency not in texts:
            continue
        seen.add(dependency)
        names += [name for name, local in declared(kind, texts[dependency]) if not local]
        todo += requires.get(dependency, ())
    return list(dict.fromkeys(names))

"""Features of a proof state, in the spirit of Tactician's: what occurs, and what is next
to what, told apart by where it occurs (conclusion or hypothesis).

From the first goal (the one a tactic works on):

* ``c:tok`` / ``h:tok``: each constant, inductive, notation symbol or number of the
  conclusion / of a hypothesis's type;
* ``c:a b`` / ``h:a b``: pairs of adjacent symbols (parentheses skipped), a short walk
  through the printed term;
* ``c:a>b``: ``b`` occurs inside a parenthesised group headed by ``a`` (a parent-child
  edge of the term tree);
* ``top:x``: the conclusion's head symbol (``forall``, ``=``, ``<=``, ``~``, ...);
* ``c#:a b`` / ``h#:a b``: the adjacent pairs that involve a hypothesis name, with the
  name written by its place in the context (``$1`` for the first): they tell ``m = n``
  from ``n = m`` under ``Hnm : n = m``, which plain ``$`` cannot.

Local names (hypotheses, bound variables) are written ``$``: their spelling says
nothing across lemmas, their place does. Each feature has a scale (conclusion features
count more than hypothesis ones); :mod:`.index` multiplies it by the feature's rarity.
"""

from __future__ import annotations

import hashlib

import numpy as np

from proofsearch.generate.knn.goals import ParsedGoal, bound_names, tokens

#: Weight of a feature by where it comes from.
SCALE = {"c": 1.0, "top": 1.0, "h": 0.6, "c#": 0.5, "h#": 0.3}
#: Changing a feature's definition changes this, and with it every cache key.
FEATURES_VERSION = 2
_SKIP = frozenset({"(", ")", ","})
_INFIX = frozenset({"=", "<>", "<", "<=", ">", ">=", "<->", "->", "/\\", "\\/", "~", "≤", "≠"})


def _term_features(
    prefix: str,
    term_tokens: list[str],
    local: set[str],
    out: dict[str, float],
    numbered: dict[str, str],
) -> None:
    scale = SCALE[prefix]
    scale_numbered = SCALE[prefix + "#"]
    previous: str | None = None
    previous_numbered: str | None = None
    heads: list[str | None] = [None]
    open_group = False
    for token in term_tokens:
        if token == "(":
            heads.append(None)
            open_group = True
            continue
        if token == ")":
            if len(heads) > 1:
                heads.pop()
            continue
        if token == ",":
            continue
        name = "$" if token in local else token
        exact = numbered.get(token, name) if token in local else name
        out[f"{prefix}:{name}"] = scale
        if previous is not None:
            out[f"{prefix}:{previous} {name}"] = scale
            if previous_numbered != previous or exact != name:
                out[f"{prefix}#:{previous_numbered} {exact}"] = scale_numbered
        if open_group:
            heads[-1] = name
            open_group = False
        elif len(heads) > 1 and heads[-1] is not None:
            out[f"{prefix}:{heads[-1]}>{name}"] = scale
        previous = name
        previous_numbered = exact


def _head(conclusion_tokens: list[str]) -> str | None:
    depth = 0
    for token in conclusion_tokens:
        if token == "(":
            depth += 1
        elif token == ")":
            depth -= 1
        elif depth == 0 and token in _INFIX:
            return token
    return conclusion_tokens[0] if conclusion_tokens else None


def goal_features(goal: ParsedGoal) -> dict[str, float]:
    """Feature → scale for ``goal``."""
    names = goal.hypothesis_names
    local = set(names)
    numbered = {name: f"${index}" for index, name in enumerate(names, 1)}
    conclusion = tokens(goal.conclusion)
    out: dict[str, float] = {}
    for hypothesis in goal.hypotheses:
        type_tokens = tokens(hypothesis.type)
        _term_features("h", type_tokens, local | bound_names(type_tokens), out, numbered)
    _term_features("c", conclusion, local | bound_names(conclusion), out, numbered)
    head = _head(conclusion)
    if head is not None:
        out[f"top:{'$' if head in local else head}"] = SCALE["top"]
    return out


def feature_hash(feature: str) -> int:
    """A stable 63-bit hash (Python's ``hash`` of a string changes between processes)."""
    digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 1


def hash_features(features: dict[str, float]) -> tuple[np.ndarray, np.ndarray]:
    """Hashed keys (int64) and scales (float32) of a feature dict."""
    keys = np.fromiter((feature_hash(f) for f in features), dtype=np.int64, count=len(features))
    scales = np.fromiter(features.values(), dtype=np.float32, count=len(features))
    return keys, scales

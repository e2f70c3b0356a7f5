"""Features of a proof state, in the spirit of Tactician's: what occurs, and what is next
to what, told apart by where it occurs (conclusion or hypothesis).

From the first goal (the one a tactic works on):

* ``c:tok`` / ``h:tok``: each constant, inductive, notation symbol or number of the
  conclusion / of a hypothesis's type;
* ``c:a b`` / ``h:a b``: pairs of adjacent symbols (parentheses skipped), a short walk
  through the printed term;
* ``c:a>b``: ``b`` occurs inside a parenthesised group headed by ``a`` (a parent-child
  edge of the term tree);
* ``top:x``: the conclusion's head symbol: a leading binder (``forall``, ``exists``),
  else the loosest-binding operator outside parentheses (``=`` in ``a + b = c``, ``->``
  in ``a = b -> c``), else the applied function (``le`` in ``le n m``);
* ``c:+@nat`` / ``h:+@nat`` / ``top:=@nat``: an arithmetic or comparison operator
  with the type of its operands, so ``+`` on ``nat``, ``Z`` and ``positive`` are told
  apart although Coq prints all three ``+``. The type comes from what the printed goal
  says: the hypotheses' types of local names (``n : nat``), the binders' annotations
  (``forall x y : Z,``), a scope delimiter (``(a + b)%Z``), or a qualified function's
  module (``Z.abs x``); an operator whose operands say nothing gets no typed feature;
* ``c:$@nat`` / ``h:$@nat``: a local name of that type occurs;
* ``c#:a b`` / ``h#:a b``: the adjacent pairs that involve a hypothesis name, with the
  name written by its place in the context (``$1`` for the first): they tell ``m = n``
  from ``n = m`` under ``Hnm : n = m``, which plain ``$`` cannot.

Local names (hypotheses, bound variables) are written ``$``: their spelling says
nothing across lemmas, their place does. Each feature has a scale (conclusion features
count more than hypothesis ones); :mod:`.index` multiplies it by the feature's rarity.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping

import numpy as np

from proofsearch.generate.knn.goals import ParsedGoal, bound_names, tokens

#: Weight of a feature by where it comes from.
SCALE = {"c": 1.0, "top": 1.0, "h": 0.6, "c#": 0.5, "h#": 0.3}
#: Changing a feature's definition changes this, and with it every cache key.
FEATURES_VERSION = 3
_SKIP = frozenset({"(", ")", ","})
#: Operators by how loosely they bind (Coq's levels): the loosest at depth 0 is the head.
_LEVEL = {
    "->": 99, "<->": 95, "\\/": 85, "/\\": 80, "~": 75,
    "=": 70, "<>": 70, "<": 70, "<=": 70, ">": 70, ">=": 70, "≤": 70, "≠": 70,
    "==": 70, "=?": 70, "<=?": 70, "<?": 70,
    "++": 60, "::": 60, "+": 50, "-": 50, "||": 50, "*": 40, "/": 40, "&&": 40, "^": 30,
}  # fmt: skip
#: Operator → its level, for the modules that write terms back (:mod:`.notation`).
OPERATOR_LEVELS = _LEVEL
_BINDER_HEADS = frozenset({"forall", "exists", "exists2", "fun", "∀", "∃", "λ"})
#: Operators whose operands' type is worth a feature (the connectives are on Prop).
_TYPED = frozenset(op for op, level in _LEVEL.items() if level <= 70)
#: A typed feature or term: ``+@nat``, ``c:$@Z`` (an ``@`` after a token; Coq's own
#: ``@f`` starts its token).
_TYPED_KEY = re.compile(r"[^:\s]@")


def untyped(features: Mapping[str, float]) -> dict[str, float]:
    """``features`` without the typed ones: what the index and the premise terms were
    before types told ``nat``'s ``+`` from ``Z``'s (``typed_features=false``, issue 19's
    ablation of its item 2)."""
    return {key: value for key, value in features.items() if not _TYPED_KEY.search(key)}


#: Module prefixes of qualified functions that say the type of what they work on.
_MODULE_TYPE = {"Z": "Z", "N": "N", "Pos": "positive", "Nat": "nat", "Q": "Q", "R": "R"}


def type_head(type_tokens: list[str], local: set[str]) -> str | None:
    """The head of a hypothesis's type when it is a plain type (``nat``, ``list``, ``Z``),
    not a proposition or a function type."""
    if not type_tokens or type_tokens[0] in local or not type_tokens[0][:1].isalpha():
        return None
    if type_tokens[0] in _BINDER_HEADS or any(t in _LEVEL for t in type_tokens):
        return None
    return type_tokens[0]


def binder_types(term_tokens: list[str]) -> dict[str, str]:
    """Name → type head for the annotated binders of a term (``forall n m : nat,``,
    ``forall (x : Z) (y : Z),``)."""
    types: dict[str, str] = {}
    pending: list[str] = []
    index = 0
    while index < len(term_tokens):
        token = term_tokens[index]
        if token == ":" and pending and index + 1 < len(term_tokens):
            head = term_tokens[index + 1]
            if head[:1].isalpha() and head not in _BINDER_HEADS:
                types.update(dict.fromkeys(pending, head))
            pending = []
        elif token in _BINDER_HEADS or token == "(":
            pending = []
        elif token[:1].isalpha() or token[:1] == "_":
            pending.append(token)
        else:
            pending = []
        index += 1
    return types


def _typed_groups(term_tokens: list[str], types: dict[str, str]) -> list[str | None]:
    """The type of the operands of each token's parenthesised group (``None`` unknown):
    a scope delimiter after the group, else its first typed local or qualified function,
    else a typed inner group's."""
    found: list[str | None] = [None] * len(term_tokens)
    stack: list[tuple[int, str | None]] = [(0, None)]
    for index, token in enumerate(term_tokens):
        if token == "(":
            stack.append((index, None))
            continue
        if token == ")":
            if len(stack) == 1:
                continue
            start, inner = stack.pop()
            if index + 2 < len(term_tokens) and term_tokens[index + 1] == "%":
                inner = _scope_type(term_tokens[index + 2]) or inner
            for position in range(start, index + 1):
                if found[position] is None:
                    found[position] = inner
            if inner is not None and stack[-1][1] is None:
                stack[-1] = (stack[-1][0], inner)
            continue
        known = types.get(token)
        if known is None and "." in token:
            known = _MODULE_TYPE.get(token.split(".", 1)[0])
        if known is not None and stack[-1][1] is None:
            stack[-1] = (stack[-1][0], known)
    for start, inner in stack:
        for position in range(start, len(term_tokens)):
            if found[position] is None:
                found[position] = inner
    return found


def typed_operators(term_tokens: list[str], types: dict[str, str]) -> list[str]:
    """``op@type`` for each operator of the term whose operands' type is known."""
    groups = _typed_groups(term_tokens, types)
    return [
        f"{token}@{groups[position]}"
        for position, token in enumerate(term_tokens)
        if token in _TYPED and groups[position] is not None
    ]


def local_types(goal: ParsedGoal) -> dict[str, str]:
    """Local name → its type's head, for the goal's hypotheses of a plain type."""
    local = set(goal.hypothesis_names)
    types: dict[str, str] = {}
    for hypothesis in goal.hypotheses:
        kind = type_head(tokens(hypothesis.type), local)
        if kind is not None:
            types.update(dict.fromkeys(hypothesis.names, kind))
    return types


def _scope_type(delimiter: str) -> str | None:
    return {"Z": "Z", "N": "N", "positive": "positive", "nat": "nat", "Q": "Q", "R": "R"}.get(
        delimiter
    )


def _term_features(
    prefix: str,
    term_tokens: list[str],
    local: set[str],
    out: dict[str, float],
    numbered: dict[str, str],
    types: dict[str, str],
) -> None:
    scale = SCALE[prefix]
    scale_numbered = SCALE[prefix + "#"]
    previous: str | None = None
    previous_numbered: str | None = None
    heads: list[str | None] = [None]
    open_group = False
    typed = bool(types) or any(t == "%" or "." in t for t in term_tokens)
    group_types = _typed_groups(term_tokens, types) if typed else None
    for position, token in enumerate(term_tokens):
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
        if group_types is not None:
            if token in _TYPED and group_types[position] is not None:
                out[f"{prefix}:{token}@{group_types[position]}"] = scale
            elif name == "$" and token in types:
                out[f"{prefix}:$@{types[token]}"] = scale
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


def head(conclusion_tokens: list[str]) -> int | None:
    """Position of the conclusion's head symbol (see the module's ``top:``)."""
    if not conclusion_tokens:
        return None
    if conclusion_tokens[0] in _BINDER_HEADS:
        return 0
    depth, best, best_level = 0, None, -1
    for position, token in enumerate(conclusion_tokens):
        if token == "(":
            depth += 1
        elif token == ")":
            depth -= 1
        elif depth == 0:
            level = _LEVEL.get(token, -1)
            # ``->`` and the connectives nest to the right: the first is the head; the
            # others nest to the left: the last is.
            if level > best_level or (level == best_level and level < 75):
                best, best_level = position, level
    if best is not None and best_level >= 0:
        return best
    return 0 if conclusion_tokens[0] != "(" else None


def goal_features(goal: ParsedGoal) -> dict[str, float]:
    """Feature → scale for ``goal``."""
    names = goal.hypothesis_names
    local = set(names)
    numbered = {name: f"${index}" for index, name in enumerate(names, 1)}
    conclusion = tokens(goal.conclusion)
    types: dict[str, str] = {}
    hypothesis_tokens = []
    for hypothesis in goal.hypotheses:
        type_tokens = tokens(hypothesis.type)
        hypothesis_tokens.append(type_tokens)
        kind = type_head(type_tokens, local)
        if kind is not None:
            types.update(dict.fromkeys(hypothesis.names, kind))
    out: dict[str, float] = {}
    for type_tokens in hypothesis_tokens:
        bound = bound_names(type_tokens)
        _term_features(
            "h", type_tokens, local | bound, out, numbered, _with_binders(types, type_tokens)
        )
    conclusion_types = _with_binders(types, conclusion)
    _term_features(
        "c", conclusion, local | bound_names(conclusion), out, numbered, conclusion_types
    )
    position = head(conclusion)
    if position is not None:
        token = conclusion[position]
        out[f"top:{'$' if token in local else token}"] = SCALE["top"]
        if token in _TYPED:
            typed = _typed_groups(conclusion, conclusion_types)[position]
            if typed is not None:
                out[f"top:{token}@{typed}"] = SCALE["top"]
    return out


def _with_binders(types: dict[str, str], term_tokens: list[str]) -> dict[str, str]:
    if not any(t in _BINDER_HEADS for t in term_tokens):
        return types
    return {**types, **binder_types(term_tokens)}


def feature_hash(feature: str) -> int:
    """A stable 63-bit hash (Python's ``hash`` of a string changes between processes)."""
    digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 1


def hash_features(features: dict[str, float]) -> tuple[np.ndarray, np.ndarray]:
    """Hashed keys (int64) and scales (float32) of a feature dict."""
    keys = np.fromiter((feature_hash(f) for f in features), dtype=np.int64, count=len(features))
    scales = np.fromiter(features.values(), dtype=np.float32, count=len(features))
    return keys, scales

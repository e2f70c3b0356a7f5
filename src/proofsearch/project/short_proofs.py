"""The proofs ``prove`` writes, with premises named as the file would name them.

The search names a library's premise by its full path (``Coq.ZArith.BinInt.Z.add_comm``);
written into a user's file that reads as machine output and ties the proof to the
library's logical prefix. :func:`shorten_found` gives each proved hole its proof with
the shortest names Coq resolves to the same objects at the hole
(:mod:`proofsearch.env.coq.short_names`: asked, then re-checked). A cache beside the
results keeps the answer, so ``--write`` after a dry run writes the same text without
asking Coq again.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from proofsearch.env.coq.short_names import qualified_names, shorten_proof


def _key(record: Mapping[str, Any], proof: Sequence[str]) -> str:
    return json.dumps([record.get("source_sha256"), record.get("header"), list(proof)])


def shorten_found(
    records: Sequence[Mapping[str, Any]],
    results: Mapping[str, dict[str, Any]],
    cache: Path,
    *,
    coqc: str,
    args: Sequence[str],
    timeout: float,
    jobs: int,
) -> dict[str, dict[str, Any]]:
    """``results`` with each checked proof that names a qualified premise shortened.

    A result whose proof changes keeps the proof as found under ``proof_found``.
    """
    known: dict[str, list[str]] = {}
    if cache.is_file():
        try:
            known = json.loads(cache.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            known = {}
    todo: list[tuple[Mapping[str, Any], dict[str, Any]]] = []
    for record in records:
        result = results.get(str(record["name"]))
        if result is None or result.get("status") != "proved" or not result.get("checked"):
            continue
        if qualified_names(result.get("proof") or []):
            todo.append((record, result))

    def shorten(item: tuple[Mapping[str, Any], dict[str, Any]]) -> tuple[str, list[str]]:
        record, result = item
        key = _key(record, result["proof"])
        if key in known:
            return key, known[key]
        statement = str(record["statement"])
        shortened = shorten_proof(
            str(record["header"]), statement, result["proof"],
            footer=str(record.get("footer") or ""),
            name=str(record["qualid"]) if record.get("qualid") else None,
            allowed_axioms=record.get("allowed_axioms") or (),
            axioms=result.get("axioms") or (),
            coqc=coqc, args=args, timeout=timeout,
        )  # fmt: skip
        return key, list(shortened.proof)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        answers = dict(pool.map(shorten, todo))
    out = dict(results)
    for record, result in todo:
        proof = answers[_key(record, result["proof"])]
        if proof != list(result["proof"]):
            out[str(record["name"])] = {**result, "proof": proof, "proof_found": result["proof"]}
    if answers:
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(answers), encoding="utf-8")
    return out

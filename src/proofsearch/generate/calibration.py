"""How much a merged generator's parts are worth, learned from the trace itself.

Parts score on different scales: knn's score is a log cosine similarity, the premise
templates' a prior plus a log coverage, the portfolio's a fixed prior. Merging them by
raw score lets whichever part is most optimistic take the first places. Calibration
asks each part for suggestions on held-out trace steps (each placed at its own module
and line, so it never sees its own proof or anything after it) and counts, per part and
per band of raw score, how often a suggestion is the tactic the library's author wrote
there, or the same tactic on the same first argument. That precision (smoothed towards
the part's overall one, and made to fall as the raw score falls) is the part's
calibrated score: a log-probability on one scale for all parts.

It takes a few seconds at load (a few hundred steps, one call per part each) and is
cached next to the corpus cache, keyed by the traces, the parts and this code.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import math
import os
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from proofsearch.generate.base import TacticGenerator
from proofsearch.theorem import Theorem
from proofsearch.trace.schema import TraceDir

CALIBRATION_VERSION = 3
#: Upper edges of the raw-score bands, best first (a raw score above the first edge is
#: band 0, below the last is the last band).
EDGES = (-0.001, -0.02, -0.05, -0.1, -0.2, -0.35, -0.5, -0.75, -1.0, -1.5, -2.0, -3.0, -5.0)
#: Held-out steps drawn, the fewest worth calibrating on, and the suggestions asked.
STEPS, MIN_STEPS, ASKED = 300, 100, 64
#: Pseudo-count pulling a sparse band towards its part's overall precision.
SMOOTHING = 20.0


_ASCENDING = sorted(EDGES)


def band(raw: float) -> int:
    """The band of a raw score (0 the best: above the first edge)."""
    return len(EDGES) - bisect.bisect_left(_ASCENDING, raw)


@dataclass(frozen=True)
class Calibration:
    """Per part name: the log-precision of each band (``len(EDGES) + 1`` values)."""

    parts: dict[str, list[float]]
    steps: int

    def score(self, part: str, raw: float) -> float:
        """The calibrated score (≤ 0) of a suggestion of ``part`` with score ``raw``:
        its band's log-precision relative to the best band of any part (so the most
        trustworthy suggestions still score 0 and the search's path costs keep their
        scale); the raw score breaks ties within a band."""
        table = self.parts.get(part)
        if table is None:
            return raw
        return min(0.0, table[band(raw)] - self.best + 1e-3 * max(raw, -50.0))

    @property
    def best(self) -> float:
        return max((max(t) for t in self.parts.values() if t), default=0.0)


@dataclass(frozen=True)
class HeldOutStep:
    """A recorded step: the goals, the tactic written there, and where it was."""

    goals: str
    tactic: str
    theorem: Theorem


_QUALIFIER = re.compile(r"\b(?:[A-Z][\w']*\.)+(?=[^\W\d])")


def _normal(tactic: str) -> str:
    """A tactic as compared: spaces collapsed, no final period, and no module qualifiers
    (a template's ``apply Coq.Arith.PeanoNat.Nat.add_comm`` is the author's
    ``apply Nat.add_comm``)."""
    text = " ".join(tactic.split())
    text = text[:-1].rstrip() if text.endswith(".") and not text.endswith("..") else text
    return _QUALIFIER.sub("", text)


def _same_step(suggested: str, written: str) -> bool:
    """The suggestion is the written step, or the same tactic on the same first argument
    (``apply rst_trans`` for ``apply rst_trans with y``, ``rewrite add_comm`` for
    ``rewrite add_comm, H``): exact text alone would count every premise template wrong
    whose lemma the author used with one more argument."""
    if suggested == written:
        return True
    head = suggested.replace(",", " ").split()[:2]
    return len(head) == 2 and head == written.replace(",", " ").split()[:2]


def held_out_steps(
    traces: Sequence[str | Path], count: int = STEPS, seed: int = 0
) -> list[HeldOutStep]:
    """``count`` recorded steps drawn from the traces (a few per module, modules in a
    seeded random order), each with a theorem placed at its module and line."""
    modules = [(TraceDir(t), r.module) for t in traces for r in TraceDir(t).files()]
    random.Random(seed).shuffle(modules)
    per_module = max(3, count // max(1, len(modules)) + 1)
    out: list[HeldOutStep] = []
    rng = random.Random(seed + 1)
    for trace, module in modules:
        steps = [s for s in trace.steps(module) if s.goals and _normal(s.tactic)]
        for step in rng.sample(steps, min(per_module, len(steps))):
            goals = "\n\n".join(g.render() for g in step.goals)
            extra = {"module": step.module, "line": step.line}
            out.append(
                HeldOutStep(goals, _normal(step.tactic), Theorem(step.lemma, "", extra=extra))
            )
        if len(out) >= count:
            break
    return out[:count]


def calibrate(parts: Mapping[str, TacticGenerator], steps: Sequence[HeldOutStep]) -> Calibration:
    """Each part's precision by band on ``steps``."""
    tables: dict[str, list[float]] = {}
    for name, part in parts.items():
        hits = [0] * (len(EDGES) + 1)
        totals = [0] * (len(EDGES) + 1)
        for step in steps:
            for suggestion in part.generate(step.goals, step.theorem, ASKED):
                at = band(suggestion.logprob)
                totals[at] += 1
                hits[at] += _same_step(_normal(suggestion.tactic), step.tactic)
        overall = (sum(hits) + 1) / (sum(totals) + 2)
        precision = [
            (h + SMOOTHING * overall) / (t + SMOOTHING) for h, t in zip(hits, totals, strict=True)
        ]
        tables[name] = [math.log(p) for p in _falling(precision, totals)]
    return Calibration(tables, len(steps))


def _falling(values: list[float], weights: list[int]) -> list[float]:
    """The closest non-increasing sequence (pool adjacent violators, weighted)."""
    blocks: list[list[float]] = []  # [value, weight, size]
    for value, weight in zip(values, weights, strict=True):
        blocks.append([value, float(weight) + 1.0, 1])
        while len(blocks) > 1 and blocks[-2][0] < blocks[-1][0]:
            value2, weight2, size2 = blocks.pop()
            value1, weight1, size1 = blocks.pop()
            total = weight1 + weight2
            blocks.append([(value1 * weight1 + value2 * weight2) / total, total, size1 + size2])
    out: list[float] = []
    for value, _, size in blocks:
        out += [value] * int(size)
    return out


def _cache_path(traces: Sequence[str | Path], names: Sequence[str], signature: str) -> Path:
    from proofsearch.generate.knn.corpus import cache_dir, cache_key

    digest = hashlib.sha256(f"{CALIBRATION_VERSION}/{STEPS}/{ASKED}/{signature}".encode())
    for trace in traces:
        digest.update(cache_key(trace).encode())
    digest.update(json.dumps(list(names)).encode())
    return cache_dir() / f"calibration-{digest.hexdigest()[:32]}.json"


def load_or_calibrate(
    traces: Sequence[str | Path], parts: Mapping[str, TacticGenerator], signature: str = ""
) -> Calibration | None:
    """The parts' calibration on ``traces``: cached, or computed (then cached); ``None``
    when the traces hold too few steps to learn from (then parts merge by raw score)."""
    path = _cache_path(traces, list(parts), signature)
    try:
        data = json.loads(path.read_text())
        return Calibration(
            {k: [float(x) for x in v] for k, v in data["parts"].items()}, int(data["steps"])
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    steps = held_out_steps(traces)
    if len(steps) < MIN_STEPS:
        return None
    calibration = calibrate(parts, steps)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(json.dumps({"parts": calibration.parts, "steps": calibration.steps}))
        os.replace(partial, path)
    except OSError:
        pass  # a read-only cache costs the next run the few seconds again
    return calibration

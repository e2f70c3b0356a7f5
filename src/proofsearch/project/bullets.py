"""A proof found as a flat list of tactics, written with bullets for its subgoals.

The search applies each tactic to the first goal, so a proof such as ``induction l``,
``assumption``, ``induction l``, ``auto``, ``auto`` reads as a list although the second
and third lines prove different goals. Coq users write the structure out with bullets::

    induction l.
    - assumption.
    - induction l.
      + auto.
      + auto.

The structure follows from the number of focused goals after each step (replayed in
the prover): a step that leaves ``k ≥ 2`` goals in place of the one it worked on opens
``k`` bullets, each of which proves its goal before the next begins, exactly the order
the flat proof solved them in. Bullets only check that order; the tactics and so the
proof term are those of the flat proof.
"""

from __future__ import annotations

from collections.abc import Sequence

from proofsearch.env.base import ProofSession, ProofState, Proved

#: Coq's bullets by depth (``-``, ``+``, ``*``, then doubled, then tripled).
_BULLETS = ("-", "+", "*")


def bullet(depth: int) -> str:
    """The bullet for nesting ``depth`` (1 for the outermost)."""
    return _BULLETS[(depth - 1) % 3] * ((depth - 1) // 3 + 1)


def bulleted(tactics: Sequence[str], goals_after: Sequence[int]) -> list[str] | None:
    """``tactics`` with a bullet (and two spaces of indentation per level) before each
    subgoal's first tactic; ``None`` when the counts do not describe a proof of one goal
    whose steps each work on the first goal (a step that closed a goal besides its own,
    a proof that ends early or late), and when no step opened two goals."""
    if len(goals_after) != len(tactics) or not tactics:
        return None
    lines: list[str] = []
    before = 1
    position = 0

    def prove_goal(depth: int) -> bool:
        """Emit the steps that prove the first goal; False when the counts break."""
        nonlocal before, position
        while position < len(tactics):
            after = goals_after[position]
            opened = after - before + 1
            if opened < 0:
                return False
            lines.append(f"{'  ' * depth}{tactics[position]}")
            before, position = after, position + 1
            if opened == 0:
                return True
            if opened >= 2:
                for _ in range(opened):
                    start = len(lines)
                    if not prove_goal(depth + 1):
                        return False
                    lines[start] = f"{'  ' * depth}{bullet(depth + 1)} {lines[start].lstrip()}"
                return True
        return False

    if not prove_goal(0) or position != len(tactics) or before != 0:
        return None
    return lines if lines != list(tactics) else None


def goal_counts(session: ProofSession, tactics: Sequence[str]) -> list[int] | None:
    """The number of focused goals after each tactic, replayed from the session's root;
    ``None`` when a step does not run as it did in the search."""
    state: ProofState = session.root
    if len(state.goals) != 1:
        return None
    counts: list[int] = []
    for index, tactic in enumerate(tactics):
        outcome = session.apply(state, tactic)
        if isinstance(outcome, Proved):
            return [*counts, 0] if index == len(tactics) - 1 else None
        if not isinstance(outcome, ProofState):
            return None
        counts.append(len(outcome.goals))
        state = outcome
    return None

"""The search tree: nodes merged by state key, a priority queue with updatable priorities.

Identical states reached by different paths are one node. A node keeps the best
cumulative log-probability of any path to it (its priority) and the shortest path (what
the reported proof uses). When a better path reaches a node that is still queued, it is
pushed again with the better priority and the stale entry is skipped when popped; when
the node was already expanded, the improvement flows down to its descendants.
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass, field

from proofsearch.env.base import ProofState


@dataclass(eq=False)
class Node:
    """One distinct proof state."""

    state: ProofState
    logprob: float
    depth: int
    short_parent: tuple[Node, str] | None = None
    children: dict[str, tuple[Node, float]] = field(default_factory=dict)
    expanded: bool = False
    #: Tactics asked of the generator at this node's last expansion (0: never expanded).
    width: int = 0
    #: Tactics already applied here (a widened expansion applies only new ones).
    tried: set[str] = field(default_factory=set)

    def next_width(self, first: int, limit: int) -> int:
        """Tactics to ask at the next expansion: ``first``, then twice the last, at most
        ``limit`` (see :meth:`SearchTree.reopen`)."""
        return first if self.width == 0 else min(limit, 2 * self.width)

    def shortest_path(self) -> list[str]:
        """Tactics from the root along the shortest known path."""
        path: list[str] = []
        node: Node | None = self
        while node is not None and node.short_parent is not None:
            parent, tactic = node.short_parent
            path.append(tactic)
            node = parent
        path.reverse()
        return path

    def shortest_steps(self) -> list[tuple[str, str]]:
        """(goals text, tactic) of each step of :meth:`shortest_path`, from the root."""
        steps: list[tuple[str, str]] = []
        node: Node | None = self
        while node is not None and node.short_parent is not None:
            parent, tactic = node.short_parent
            steps.append((parent.state.text, tactic))
            node = parent
        steps.reverse()
        return steps


class SearchTree:
    """Nodes by key and the queue of unexpanded nodes, best cumulative log-prob first.

    ``goal_penalty`` > 0 takes that much off a node's priority for each goal it has
    beyond one (when its backend counts them, :attr:`ProofState.goal_count`): a state
    that closed goals comes before one of the same log-prob that opened more.
    ``depth_bonus`` > 0 adds that much for each step from the root (the shortest path):
    every step costs its log-prob, so with ten live children per node the cumulative
    log-prob puts a proof's fourth step behind hundreds of second steps; the bonus
    lets the search follow a likely line deeper before it widens.
    """

    def __init__(
        self, root: ProofState, goal_penalty: float = 0.0, depth_bonus: float = 0.0
    ) -> None:
        self.root = Node(root, 0.0, 0)
        self.nodes: dict[str, Node] = {root.key: self.root}
        self._queue: list[tuple[float, int, int, Node]] = []
        self._counter = itertools.count()
        self.goal_penalty = goal_penalty
        self.depth_bonus = depth_bonus
        self._push(self.root)

    def priority(self, node: Node) -> float:
        """What the queue orders by: the node's log-prob less its goals' penalty, plus
        its depth's bonus."""
        value = node.logprob + self.depth_bonus * node.depth
        count = node.state.goal_count
        if not self.goal_penalty or count is None or count <= 1:
            return value
        return value - self.goal_penalty * (count - 1)

    def _push(self, node: Node) -> None:
        heapq.heappush(self._queue, (-self.priority(node), node.depth, next(self._counter), node))

    def pop(self) -> Node | None:
        """The best unexpanded node, or ``None`` when none is left."""
        while self._queue:
            neg_priority, _, _, node = heapq.heappop(self._queue)
            if node.expanded or -neg_priority != self.priority(node):
                continue  # expanded already, or a stale entry superseded by a better path
            return node
        return None

    def __len__(self) -> int:
        return len(self.nodes)

    def reopen(self, limit: int) -> int:
        """Queue again every expanded node asked fewer than ``limit`` tactics, so that its
        next expansion asks twice as many (see :meth:`Node.next_width`); the count queued.

        Called when the queue is empty: the tree is exhausted with time left, which
        happens when every suggestion failed or led to states already seen. A generator's
        lower-ranked suggestions are then worth the time that would otherwise go unused."""
        reopened = 0
        for node in self.nodes.values():
            if node.expanded and 0 < node.width < limit:
                node.expanded = False
                self._push(node)
                reopened += 1
        return reopened

    def add_edge(self, parent: Node, tactic: str, state: ProofState, logprob: float) -> Node:
        """Record ``parent --tactic--> state`` with the tactic's log-probability."""
        total = parent.logprob + logprob
        node = self.nodes.get(state.key)
        if node is None:
            node = Node(state, total, parent.depth + 1, (parent, tactic))
            self.nodes[state.key] = node
            parent.children[tactic] = (node, logprob)
            self._push(node)
            return node
        if node is parent or node is self.root:
            return node
        parent.children[tactic] = (node, logprob)
        self._shorten(parent, tactic, node)
        if total > node.logprob:
            node.logprob = total
            if node.expanded:
                self._improve_descendants(node)
            else:
                self._push(node)
        return node

    def _shorten(self, parent: Node, tactic: str, node: Node) -> None:
        """Take ``parent --tactic--> node`` as the shortest path if it is, and pass it on."""
        stack = [(parent, tactic, node)]
        while stack:
            via, edge, target = stack.pop()
            if via.depth + 1 >= target.depth:
                continue
            target.depth = via.depth + 1
            target.short_parent = (via, edge)
            if self.depth_bonus and not target.expanded:
                self._push(target)  # its priority changed: the queued entry is stale
            stack.extend((target, t, child) for t, (child, _) in target.children.items())

    def _improve_descendants(self, start: Node) -> None:
        stack = [start]
        while stack:
            node = stack.pop()
            for child, logprob in node.children.values():
                total = node.logprob + logprob
                if total > child.logprob:
                    child.logprob = total
                    if child.expanded:
                        stack.append(child)
                    else:
                        self._push(child)

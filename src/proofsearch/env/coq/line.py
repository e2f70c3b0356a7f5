"""The line of Coq states: one coqidetop process and the sentences it has run.

coqidetop's states form a line, not a tree: ``Edit_at`` back to a state throws away
every later one. :class:`CoqLine` therefore keeps the sentences it has run since the
process's root state (header sentences, statement, tactics) with the state id each one
made, and reaches any target line by going back to the longest common prefix and
replaying the rest. The same mechanism shares a header between theorems (and a file's
prefix between its lemmas): only the sentences that differ are run.

It owns the process: a dead one is replaced on the next call, and the line starts
empty again, to be rebuilt on demand.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from proofsearch.env.base import EnvError, ProverStats
from proofsearch.env.coq import xml
from proofsearch.env.coq.idetop import Call, CoqIdeTop, Reply, ReplyTimeout
from proofsearch.env.coq.private_folders import private_folder
from proofsearch.env.coq.vernac import command_of
from proofsearch.env.coq.version import without_prelude

#: Time limit for calls that only parse or move the tip (``Add``, ``Edit_at``).
BOOKKEEPING_TIMEOUT = 30.0


class LineBroken(Exception):
    """Replaying a sentence of the line failed (index into the target, message)."""

    def __init__(self, index: int, message: str, timed_out: bool = False) -> None:
        super().__init__(message)
        self.index = index
        self.message = message
        self.timed_out = timed_out


class CoqLine:
    """One coqidetop process and the sentences run in it, with the state each one made.

    Calls may raise :class:`~proofsearch.env.coq.idetop.ReplyTimeout` or
    :class:`~proofsearch.env.coq.idetop.CallsInterrupted`; the caller then decides
    whether to :meth:`restart`.
    """

    def __init__(
        self,
        stats: ProverStats,
        *,
        binary: str = "coqidetop.opt",
        args: Sequence[str] = (),
        memory_limit: int | None = None,
        cwd: str | None = None,
        printing_width: int = 1000,
        allow_unsupported_version: bool = False,
    ) -> None:
        self.stats = stats
        self.allow_unsupported_version = allow_unsupported_version
        self.binary = binary
        self.args = tuple(args)
        self._noinit = without_prelude(self.args)
        self.memory_limit = memory_limit
        self.cwd = cwd
        self.printing_width = printing_width
        self._top: CoqIdeTop | None = None
        #: Sentences run since the root state, and the state id each one made.
        self.sentences: list[str] = []
        self.states: list[int] = []
        # A private folder per line, removed at close: Coq's working folder unless the
        # user chose one (tactics such as lia write cache files there), and, in its
        # ``tmp``, Coq's temporary folder (emptied at each restart: a killed coqidetop
        # cleans nothing up).
        self._scratch: tempfile.TemporaryDirectory[str] | None = None

    # -- the process -------------------------------------------------------------

    @property
    def pid(self) -> int | None:
        """The pid of the live coqidetop, if any (tests use it to kill it)."""
        return self._top.pid if self._top else None

    def start(self) -> None:
        """Start coqidetop now if none is live (a run's preflight)."""
        self._process()

    def _process(self) -> CoqIdeTop:
        if self._top is None or not self._top.process.alive():
            if self._top is not None:
                self._top.close()
                self.stats.restarts += 1
            self._top = CoqIdeTop(
                self.binary,
                self.args,
                memory_limit=self.memory_limit,
                cwd=self._working_folder(),
                allow_unsupported_version=self.allow_unsupported_version,
                tmpdir=self._temporary_folder(),
            )
            self._forget()
            self._top.calls(
                [
                    Call(
                        xml.set_int_option_call(("Printing", "Width"), self.printing_width),
                        BOOKKEEPING_TIMEOUT,
                    )
                ]
            )
        return self._top

    def _private_folder(self) -> Path:
        if self._scratch is None:
            self._scratch = private_folder()
        return Path(self._scratch.name)

    def scratch(self, name: str) -> Path:
        """A folder of that name in the line's private folder (removed at close)."""
        return self._private_folder() / name

    def _working_folder(self) -> str:
        return self.cwd if self.cwd is not None else str(self._private_folder())

    def _temporary_folder(self) -> Path:
        """A fresh, empty ``tmp`` in the private folder for the process about to start."""
        folder = self._private_folder() / "tmp"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
        return folder

    def _forget(self) -> None:
        self.sentences = []
        self.states = []

    def restart(self) -> None:
        """Kill the process; the next call starts a fresh one and rebuilds the line."""
        if self._top is not None:
            self._top.close()
            self._top = None
            self.stats.restarts += 1
        self._forget()

    def close(self) -> None:
        """Kill the process and remove the scratch folder."""
        if self._top is not None:
            self._top.close()
            self._top = None
        self._forget()
        if self._scratch is not None:
            self._scratch.cleanup()
            self._scratch = None

    def calls(self, calls: Sequence[Call]) -> list[Reply]:
        """Send ``calls`` in one write (starting a process if none is live); their replies.

        Calls that run sentences off the line (a batch's ``Add``, a ``Qed``) must end
        with an ``Edit_at`` back to :meth:`tip`, or be followed by :meth:`rewind`.
        """
        top = self._process()
        start = time.perf_counter()
        try:
            return top.calls(calls)
        finally:
            self.stats.prover_seconds += time.perf_counter() - start

    # -- the line ----------------------------------------------------------------

    def tip(self) -> int:
        """The state id of the line's last sentence (the root state when it is empty)."""
        assert self._top is not None
        return self.states[-1] if self.states else self._top.root_state

    def cut(self, keep: int) -> None:
        """Cut the line to its first ``keep`` sentences."""
        if keep == len(self.sentences):
            return
        del self.sentences[keep:]
        del self.states[keep:]
        reply = self._edit_at_tip()
        if not reply.good:
            raise EnvError(f"Edit_at failed: {reply.message}")

    def rewind(self) -> bool:
        """Move coqidetop back to the line's tip, dropping what was run past it (a
        ``Qed``); False when coqidetop refused, and the process should be restarted."""
        return self._edit_at_tip().good

    def _edit_at_tip(self) -> Reply:
        return self.calls([Call(xml.edit_at_call(self.tip()), BOOKKEEPING_TIMEOUT)])[0]

    def reach(self, target: Sequence[str], timeouts: Sequence[float | None]) -> int:
        """Make the line equal ``target`` and return the tip's state id.

        ``timeouts`` gives each sentence's time limit (``None``: none); the replayed
        sentences run under their sum. Raises :class:`LineBroken` with the index of the
        first sentence that fails.
        """
        self._process()
        common = 0
        limit = min(len(target), len(self.sentences))
        while common < limit and self.sentences[common] == target[common]:
            common += 1
        if self._noinit and any(_may_load_ml(s) for s in self.sentences[common:]):
            # Without the prelude, a plugin's grammar (ltac's ``by``, ``using``) comes with
            # the first Require that loads it; an Edit_at below that sentence drops the
            # grammar, and replaying the Require does not bring it back (the plugin stays
            # loaded): ``Syntax error: [ltac_use_default] expected``. A fresh process does.
            self.restart()
            self._process()
            common = 0
        self.cut(common)
        if common == len(target):
            return self.tip()
        for index in range(common, len(target)):
            reply = self.calls(
                [Call(xml.add_call(target[index], self.tip()), BOOKKEEPING_TIMEOUT)]
            )[0]
            if not reply.good:
                raise LineBroken(index, reply.message)
            state = reply.value.find("pair/state_id")
            assert state is not None
            self.sentences.append(target[index])
            self.states.append(int(state.get("val", "0")))
        limit_s = sum(t for t in timeouts[common:] if t is not None) or None
        try:
            reply = self.calls([Call(xml.goal_call(), limit_s)])[0]
        except ReplyTimeout:
            self.restart()
            raise LineBroken(common, "replay timed out", timed_out=True) from None
        if not reply.good:
            return self._recover(reply)
        new_states = self.states[common:]
        failed = [(new_states.index(sid), msg) for sid, msg in reply.errors if sid in new_states]
        if failed:
            # A command off the tip failed (coqidetop carries on after it): cut there.
            offset, message = min(failed)
            self.cut(common + offset)
            raise LineBroken(common + offset, message)
        return self.tip()

    def _recover(self, reply: Reply) -> int:
        """After a failed execution, cut the line before the failing sentence and report.

        The failing sentence is the one an error was fed back for; failing that, the one
        after the last good state the reply names.
        """
        states = self.states
        errored = [states.index(sid) for sid, _ in reply.errors if sid in states]
        good = reply.value.find("state_id")
        good_id = int(good.get("val", "0")) if good is not None else 0
        if errored:
            failing = min(errored)
        elif good_id in states:
            failing = states.index(good_id) + 1
        else:
            failing = 0
        message = next((m for sid, m in reply.errors if sid in states), reply.message)
        del self.sentences[failing:]
        del self.states[failing:]
        if not self._edit_at_tip().good:
            self.restart()
        raise LineBroken(failing, message)


def _may_load_ml(sentence: str) -> bool:
    """A sentence that may load an OCaml plugin (and with it grammar rules)."""
    command = command_of(sentence)
    return command.word in ("Require", "Declare", "Load") or (
        command.word == "From" and "Require" in command.words
    )

"""Tell a Coq setup problem from a rejected proof.

``coqc`` rejects a proof for the same reasons it rejects a header that cannot load (a
library that cannot be found, a loadpath not given, a header that does not compile):
``check`` would then call correct proofs "rejected". A rejected proof is therefore
compiled once more with the proof replaced by ``Admitted.``: if that fails too, the
problem is the setup, not the proof.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

from proofsearch.theorem import Theorem

#: The module name of the setup's scratch file.
SETUP_MODULE = "ProofsearchSetup"
#: Seconds the setup's compilation may take (a header loads libraries, nothing more).
SETUP_TIMEOUT = 300.0


def setup_source(theorem: Theorem) -> str:
    """The header, the statement with its proof admitted, and the footer."""
    footer = theorem.extra.get("footer")
    closing = footer.strip() + "\n" if isinstance(footer, str) and footer.strip() else ""
    return f"{theorem.header.rstrip()}\n{theorem.statement.strip()}\nAdmitted.\n{closing}"


def setup_problem(theorem: Theorem, options: dict[str, Any]) -> str | None:
    """Coq's message, on one line, when the theorem cannot be compiled with any proof;
    ``None`` when it can (so a rejection is the proof's)."""
    import subprocess

    from proofsearch.env.coq.checker import run_coqc

    with tempfile.TemporaryDirectory(prefix="proofsearch-setup-") as tmp:
        try:
            compiled = run_coqc(
                setup_source(theorem), Path(tmp), SETUP_MODULE,
                coqc=str(options.get("coqc") or "coqc"), args=list(options.get("args") or []),
                timeout=SETUP_TIMEOUT, memory_limit=None,
            )  # fmt: skip
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"coqc could not compile it: {exc}"
    if compiled.returncode == 0:
        return None
    message = " ".join((compiled.stderr or compiled.stdout).split())
    # The scratch file's name and position mean nothing to the user: Coq's words do.
    return re.sub(r'^File "[^"]*", line \d+, characters \d+-\d+: ', "", message) or "coqc failed"

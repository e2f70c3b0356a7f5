"""Which Coq (or Rocq) is installed, and the few things that differ between versions.

Supported: Coq 8.16 to 8.20 and the Rocq Prover 9.0 to 9.2. Found by running Debian's
8.16.1, 8.20.1 and 9.2.0 (``make test-coq-versions``, ``docs/coq-versions.md``):

- binaries: 8.x ships ``coqidetop.opt``; Rocq 9.2 ships ``coqidetop`` only (and the
  ``rocq`` front end). ``coqc`` exists in all of them;
- the XML protocol: identical replies for the calls the backend makes (9.2 reports its
  version as ``9.2``, with no patch number; failures carry a ``<loc>`` since 8.20);
- the standard library: logical name ``Coq`` in ``$(coqc -where)/theories`` for 8.x,
  ``Stdlib`` in ``$(coqc -where)/user-contrib/Stdlib`` for 9.x (the prelude moved to
  ``Corelib`` in ``theories``). ``From Coq Require`` works in both (deprecated in 9.x);
- ``Print Assumptions`` prints the same in all three;
- the OCaml runtime (not the Coq release): Debian builds 8.16 with OCaml 4.13, 8.20 and
  9.2 with OCaml 5, whose runtime reserves address space for the minor heaps of 128
  domains at start-up (between 32 and 64 GiB here). Under the backend's address-space
  cap that start fails ("Not enough heap memory to reserve minor heaps"), so every Coq
  process gets ``OCAMLRUNPARAM=d=1`` (:func:`coq_env`); OCaml 4 ignores it;
- native compilation: every supported release accepts ``-native-compiler no`` (8.16 run
  here, with a deprecation warning on stderr; Rocq 9's ``coqargs`` still has the
  option), so every Coq process gets it (:data:`NATIVE_OFF`).

Everything here asks the binaries once per process (the answers are cached).
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from proofsearch.env.base import ProverStartError

#: (major, minor) releases this backend is tested against or known to behave alike.
SUPPORTED: tuple[tuple[int, int], ...] = (
    (8, 16), (8, 17), (8, 18), (8, 19), (8, 20), (9, 0), (9, 1), (9, 2),
)  # fmt: skip
#: Prover option that lets a user run a version outside :data:`SUPPORTED`.
ALLOW_OPTION = "allow_unsupported_version"
#: coqidetop's names: 8.x installs the native one as ``coqidetop.opt``, 9.x as ``coqidetop``.
IDETOP_NAMES = ("coqidetop.opt", "coqidetop")

#: Arguments that turn native compilation off. With them ``native_compute``, ``Eval
#: native_compute`` and the ``<<:`` cast fall back to the bytecode VM instead of writing
#: OCaml into ``$TMPDIR/Coq_native<hex>`` and running ``ocamlfind``/``ocamlopt`` on it
#: (a compiler run per tactic, and a folder left behind by every killed coqidetop).
NATIVE_OFF: tuple[str, ...] = ("-native-compiler", "no")
#: What 8.14+ print for :data:`NATIVE_OFF` itself, before every other message.
_NATIVE_WARNING = re.compile(
    r"(?:While loading initial state:\n)?Warning: The native-compiler option is deprecated\."
    r".*?\[deprecated-native-compiler-option,deprecated\]\n?",
    re.DOTALL,
)


def without_prelude(args: Sequence[str]) -> bool:
    """Whether Coq runs with these arguments without its prelude (``-noinit``; ``-nois``
    is its older spelling): plugins, grammar and ``Init`` then come from the project."""
    return any(arg in ("-noinit", "-nois") for arg in args)


def without_native_warning(stderr: str) -> str:
    """Coq's messages less the deprecation warning :data:`NATIVE_OFF` causes (it came
    first in every error a user read)."""
    return _NATIVE_WARNING.sub("", stderr)


_VERSION = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?")


@dataclass(frozen=True)
class CoqVersion:
    """A Coq/Rocq release as it prints itself (``8.16.1``, ``9.2``)."""

    major: int
    minor: int
    patch: int
    text: str

    @classmethod
    def parse(cls, text: str) -> CoqVersion:
        match = _VERSION.match(text.strip())
        if match is None:
            raise ProverStartError(f"cannot read a Coq version from {text.strip()[:80]!r}")
        major, minor, patch = match.groups()
        return cls(int(major), int(minor), int(patch or 0), text.strip())

    @property
    def release(self) -> tuple[int, int]:
        return self.major, self.minor

    @property
    def supported(self) -> bool:
        return self.release in SUPPORTED

    @property
    def rocq(self) -> bool:
        """Rocq 9 or later: the stdlib is a separate library named ``Stdlib``."""
        return self.major >= 9

    @property
    def stdlib_prefix(self) -> str:
        """The standard library's logical name (``Coq.Arith.PeanoNat``, ``Stdlib.Arith...``)."""
        return "Stdlib" if self.rocq else "Coq"

    def __str__(self) -> str:
        return self.text


def coq_env(
    base: Mapping[str, str] | None = None, tmpdir: str | os.PathLike[str] | None = None
) -> dict[str, str]:
    """The environment for a Coq process: ``base`` (default: ours) with one OCaml domain.

    coqidetop and coqc run on one domain; reserving the heaps of 128 would need more
    address space than any sensible cap allows. A ``d=`` the user set is kept.
    ``tmpdir`` becomes the process's temporary folder (``TMPDIR``, which OCaml's
    ``Filename.get_temp_dir_name`` reads, and ``TMP``/``TEMP``): the caller's private
    folder, removed when it is done, so nothing a Coq process writes there outlives it.
    """
    env = dict(os.environ if base is None else base)
    if tmpdir is not None:
        for name in ("TMPDIR", "TMP", "TEMP"):
            env[name] = os.fspath(tmpdir)
    params = [p for p in env.get("OCAMLRUNPARAM", "").split(",") if p]
    if not any(p.startswith("d=") for p in params):
        env["OCAMLRUNPARAM"] = ",".join([*params, "d=1"])
    return env


def supported_range() -> str:
    """``8.16-8.20, 9.0-9.2``: the supported releases, for messages."""
    groups: dict[int, list[int]] = {}
    for major, minor in SUPPORTED:
        groups.setdefault(major, []).append(minor)
    return ", ".join(
        f"{major}.{minors[0]}-{major}.{minors[-1]}" if len(minors) > 1 else f"{major}.{minors[0]}"
        for major, minors in groups.items()
    )


def check_supported(version: CoqVersion, binary: str, allow: bool = False) -> None:
    """Refuse a version outside :data:`SUPPORTED`, or only warn when the user allowed it."""
    if version.supported:
        return
    if allow:
        warnings.warn(
            f"Coq {version} ({binary}) is not a supported version ({supported_range()}); "
            f"running anyway because {ALLOW_OPTION} is set",
            RuntimeWarning,
            stacklevel=2,
        )
        return
    raise ProverStartError(
        f"Coq {version} ({binary}) is not supported (supported: {supported_range()}). "
        f"Install a supported version, point --coq-binary/--coqc at one, or try it anyway "
        f"with --prover-option {ALLOW_OPTION}=true"
    )


def find_idetop(binary: str) -> str:
    """``binary``, or the other coqidetop name when the default one is not installed.

    Lets the default ``coqidetop.opt`` find Rocq 9's ``coqidetop`` and the reverse; a
    path or any other name the user gave is used as it is.
    """
    if binary in IDETOP_NAMES and shutil.which(binary) is None:
        for name in IDETOP_NAMES:
            if shutil.which(name) is not None:
                return name
    return binary


def _ask(binary: str, flag: str) -> subprocess.CompletedProcess[str]:
    """``binary flag``, its output captured (a minute at most, no input)."""
    return subprocess.run(
        [binary, flag], capture_output=True, text=True, timeout=60, check=False,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip


@functools.cache
def binary_version(binary: str) -> CoqVersion:
    """The version ``binary --version`` prints (``coqc`` and ``coqidetop`` both answer)."""
    try:
        done = _ask(binary, "--version")
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ProverStartError(f"cannot run {binary} --version: {exc}") from None
    match = re.search(r"version\s+(\S+)", done.stdout)
    if done.returncode != 0 or match is None:
        raise ProverStartError(
            f"{binary} --version printed no version: {done.stdout.strip()[:200]!r}"
        )
    return CoqVersion.parse(match.group(1))


def require_supported(binary: str, allow: bool = False) -> CoqVersion:
    """Check ``binary``'s version up front (the CLI does, before any work starts)."""
    resolved = find_idetop(binary)
    if shutil.which(resolved) is None:
        raise ProverStartError(
            f"{binary} not found: install Coq {supported_range()} "
            "(Debian/Ubuntu: apt-get install coq)"
        )
    version = binary_version(resolved)
    check_supported(version, resolved, allow)
    return version


_STDLIB_MISSING = re.compile(r"with prefix Stdlib\b|bound to logical path Stdlib\b")


def stdlib_missing_hint(message: str, coqc: str = "coqc") -> str:
    """What to do when Coq's ``message`` says the ``Stdlib`` prefix is not found: Rocq 9
    ships its standard library apart (audit 45: nothing said so), and Coq 8 calls it
    ``Coq``; "" otherwise (a module misspelt under an installed ``Stdlib``)."""
    if not _STDLIB_MISSING.search(message):
        return ""
    try:
        where = coq_where(coqc)
    except (OSError, subprocess.CalledProcessError):
        return ""
    if (where / "theories" / "Arith").is_dir():
        return "; Stdlib is Rocq 9's name for the standard library: this Coq 8 calls it Coq"
    if (where / "user-contrib" / "Stdlib").is_dir():
        return ""
    return (
        "; Rocq 9's standard library is a package of its own, not installed: install it "
        "(Debian: apt-get install libcoq-stdlib; opam: opam install rocq-stdlib)"
    )


@functools.cache
def compiler_problem(coqc: str) -> str | None:
    """Why ``coqc`` is not Coq's compiler, or None when it is: it must compile an empty
    file given as the re-check gives its files (:data:`NATIVE_OFF` first). Rocq 9's front
    end ``rocq`` answers ``--version`` and even ``-where`` like ``coqc`` but compiles only
    as ``rocq compile``: given as ``--coqc``, every re-check failed with "Unknown
    subcommand", each found proof counted as a disagreement (audit 45)."""
    import tempfile

    if shutil.which(coqc) is None:
        return None  # "not found" is said where the binary is needed
    with tempfile.TemporaryDirectory(prefix="proofsearch-coqc-") as folder:
        probe = Path(folder) / "Probe.v"
        probe.write_text("")
        try:
            done = subprocess.run(
                [coqc, *NATIVE_OFF, "-q", str(probe)], cwd=folder, capture_output=True,
                text=True, timeout=60, check=False, stdin=subprocess.DEVNULL, env=coq_env(),
            )  # fmt: skip
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"cannot run {coqc}: {exc}"
    if done.returncode == 0:
        return None
    said = (done.stderr or done.stdout).strip().splitlines()
    why = f"it answered {said[0][:120]!r} to an empty file" if said else "it compiles no file"
    if Path(coqc).name == "rocq":
        return (
            f"{coqc} is Rocq's front end, not its compiler ({why}): give --coqc coqc "
            "(Rocq 9 ships both), or leave --coqc out"
        )
    return f"{coqc} is not Coq's compiler ({why}): give --coqc the path of coqc"


@functools.cache
def coq_where(coqc: str = "coqc") -> Path:
    """``coqc -where``: the folder holding ``theories`` and ``user-contrib``."""
    done = subprocess.run([coqc, "-where"], capture_output=True, text=True, check=True)
    return Path(done.stdout.strip())


def stdlib_root(coqc: str = "coqc") -> Path:
    """The standard library's source folder: ``theories`` (8.x), ``user-contrib/Stdlib`` (9.x)."""
    where = coq_where(coqc)
    if binary_version(coqc).rocq:
        return where / "user-contrib" / "Stdlib"
    return where / "theories"


def stdlib_spellings(name: str) -> list[str]:
    """``name``, and for a standard-library path its other spelling: ``Coq.X`` and
    ``Stdlib.X``. Rocq 9 names the stdlib ``Stdlib`` but still accepts ``Coq.…`` (and
    ``From Coq Require``) with a deprecation warning, so text written for Coq 8 names its
    objects the old way."""
    for old, new in (("Coq.", "Stdlib."), ("Stdlib.", "Coq.")):
        if name.startswith(old):
            return [name, new + name[len(old) :]]
    return [name]


def stdlib_module(file: str, prefix: str) -> str:
    """The logical name of a stdlib file: ``Arith/PeanoNat.v`` -> ``Coq.Arith.PeanoNat``."""
    return prefix + "." + file.removesuffix(".v").replace("/", ".")


def hammer_installed(coqc: str = "coqc") -> bool:
    """Whether CoqHammer's Coq library sits in this Coq's ``user-contrib``."""
    try:
        return (coq_where(coqc) / "user-contrib" / "Hammer").is_dir()
    except (OSError, subprocess.CalledProcessError):
        return False

"""The part of a report that a ``proofsearch prove`` run adds: per file, the proofs found
and the holes left, read from ``RESULTS.prove.json`` (written beside the results file
by ``prove``). Runs without one add nothing.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def prove_record(results: str | Path) -> dict[str, Any] | None:
    """The prove record beside a results file, or ``None`` (not a prove run, unreadable)."""
    path = Path(results)
    path = path.with_name(path.name + ".prove.json")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("files"), dict) else None


def _sentence(tactic: str) -> str:
    """A written proof's item as it reads in the file: a block a begun proof's part
    became (``{ revert n. lia. }``) ends with its brace, any other step with a period."""
    return tactic if tactic.rstrip().endswith(("}", ".")) else f"{tactic}."


#: A proof an earlier run wrote into a file this run searched again (its line then).
EARLIER_ITEM = " (written by an earlier run; its line then)"


def _when(entry: dict[str, Any]) -> str:
    """A file's entry from an earlier run than the summary's (one that selected other
    files): said, with whether that run wrote its proofs."""
    if not entry.get("earlier"):
        return ""
    return (
        " (an earlier run's: written)" if entry.get("written") else " (an earlier run's: dry run)"
    )


def prove_markdown(runs: Sequence[Any]) -> str:
    """Markdown: for each prove run, a section per file (proofs found, holes left)."""
    parts: list[str] = []
    for run in runs:
        record = prove_record(run.path)
        if record is None:
            continue
        state = "written into the files" if record.get("written") else "dry run, not written"
        parts.append(f"\n## Holes (prove): {run.name} ({state})\n")
        for file, entry in record["files"].items():
            filled, left = entry.get("filled", []), entry.get("left", [])
            parts.append(f"\n### `{file}`: {len(filled)} filled, {len(left)} left{_when(entry)}\n")
            for item in filled:
                note = ""
                if item.get("rests_on_admitted"):
                    note = f" (rests on Admitted: {', '.join(item['rests_on_admitted'])})"
                note += EARLIER_ITEM if item.get("earlier") else ""
                parts.append(f"\n- `{item['name']}` (line {item['line']}){note}:\n")
                parts.append("\n  ```coq\n" + "".join(f"  {_sentence(t)}\n" for t in item["proof"]))
                parts.append("  ```\n")
            if left:
                parts.append("\nHoles left:\n\n")
                parts += [f"- `{i['name']}` (line {i['line']}): {i['reason']}\n" for i in left]
            skipped = entry.get("not_searched", [])
            if skipped:
                parts.append("\nNot searched:\n\n")
                parts += [
                    f"- `{i.get('name') or '(no name)'}` (line {i['line']}): {i['reason']}\n"
                    for i in skipped
                ]
    return "".join(parts)


def prove_html(runs: Sequence[Any]) -> str:
    """The same as :func:`prove_markdown`, as an HTML fragment."""
    parts: list[str] = []
    for run in runs:
        record = prove_record(run.path)
        if record is None:
            continue
        parts.append(f"<h2>Holes (prove): {html.escape(str(run.name))}</h2>")
        for file, entry in record["files"].items():
            filled, left = entry.get("filled", []), entry.get("left", [])
            parts.append(
                f"<h3><code>{html.escape(file)}</code>: {len(filled)} filled, "
                f"{len(left)} left{html.escape(_when(entry))}</h3><ul>"
            )
            for item in filled:
                proof = html.escape("\n".join(_sentence(t) for t in item["proof"]))
                note = html.escape(EARLIER_ITEM) if item.get("earlier") else ""
                parts.append(
                    f"<li><code>{html.escape(item['name'])}</code> (line {item['line']}){note}"
                    f"<pre>{proof}</pre></li>"
                )
            for item in left:
                parts.append(
                    f"<li><code>{html.escape(item['name'])}</code> (line {item['line']}): "
                    f"left Admitted: {html.escape(str(item['reason']))}</li>"
                )
            for item in entry.get("not_searched", []):
                parts.append(
                    f"<li><code>{html.escape(item.get('name') or '(no name)')}</code> "
                    f"(line {item['line']}): not searched: {html.escape(str(item['reason']))}"
                    "</li>"
                )
            parts.append("</ul>")
    return "".join(parts)

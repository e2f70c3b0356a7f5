"""``proofsearch prove``'s parts: read a user's Coq project, find its ``Admitted`` holes,
turn them into theorems, and write found proofs back without breaking the build.

One module per job: :mod:`.config` (what the project is: ``_CoqProject``, dune, or
loose files; dune's stanzas are read by :mod:`proofsearch.trace.dune`), :mod:`.holes` (where the
holes are, read with the project's own sentence splitter), :mod:`.patch` (the filled
text and its diff), :mod:`.rebuild` (compiling the changed files and their dependents
in a scratch copy), :mod:`.libraries` (the installed libraries a project requires).
Dependencies: ``env``, ``trace`` and ``bench``'s extractor below; the CLI on top.
"""

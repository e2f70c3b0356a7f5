"""``knn``: Tactician-style nearest-neighbour tactic suggestion over a trace.

:mod:`.goals` parses goals text, :mod:`.features` turns a goal into features,
:mod:`.corpus` turns a trace folder into flat arrays (cached), :mod:`.inverted` scores
them, :mod:`.scope` says what a theorem may see, :mod:`.names` adapts local names, and
:mod:`.generator` puts it together.
"""

"""Whether a statement asks for data rather than a proof.

A ``Definition f : nat -> nat. Admitted.`` is a function the user has still to write:
any inhabitant type-checks (``fun n => n``), so a search that "fills" it picks an
arbitrary value and calls it done. A type with a specification is different: any value
of ``{n | n > 0}`` or ``forall x y, {x = y} + {x <> y}`` carries a proof of what the
user asked, so such holes are searched.

The probe is one Ltac1 tactic run on the opened statement: it *succeeds* iff the goal,
after ``intros`` and ``hnf``, is not a proposition and no constructor of its type (one
level of constructors below that too) leaves a goal that is a proposition. ``econstructor
I`` is tried for the first few ``I``; a type that is not an inductive has no
constructor and so is data (a Section's ``A : Type``). The probe changes no state the
search sees: it is one child of the root, like any tactic tried there.
"""

from __future__ import annotations

#: How many constructors the probe tries at the top, and one level below.
_TOP_CONSTRUCTORS = 4
_INNER_CONSTRUCTORS = 3

#: Succeeds iff the focused goal's type is not ``Prop``.
_NOT_PROP = (
    "lazymatch goal with |- ?G => let s := type of G in "
    "lazymatch s with Prop => fail | _ => idtac end end"
)


def _level(constructors: int, below: str) -> str:
    """``intros; hnf``, then: not a proposition, and each constructor that applies
    leaves only goals that pass ``below``."""
    checks = [
        f"first [assert_fails (econstructor {i}) | assert_succeeds (econstructor {i}; {below})]"
        for i in range(1, constructors + 1)
    ]
    return "; ".join(["intros", "hnf", _NOT_PROP, *checks])


#: The probe: succeeds iff the statement asks for data (see the module's docstring).
DATA_PROBE = _level(_TOP_CONSTRUCTORS, f"({_level(_INNER_CONSTRUCTORS, _NOT_PROP)})")
#: Succeeds iff the statement is not a proposition (``Prop``): run first, the data probe
#: only then; a filled instance of a class with data fields is said (``Pointed nat``).
NOT_PROPOSITION = f"intros; hnf; {_NOT_PROP}"

#: The reason a data statement is not searched (``prove`` shows it as it is).
DATA_REASON = (
    "its type is data, not a proposition: any value of it would be accepted, so no "
    "search picks one for you (write it yourself)"
)

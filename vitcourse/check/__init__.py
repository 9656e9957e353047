"""Exercise checkers: each prints ✓ or a specific hint, returns a :class:`Verdict`, and never raises.

Every checker takes the learner's answer as it is (a number, a tuple, a tensor, an array, a function, or
something else entirely) and compares it with the package's own result. A wrong type, a wrong shape, a NaN, a
function that raises: each gets a sentence saying what was expected, never a traceback. Function checkers
also try the typical wrong answers on the same inputs and name the mistake when one matches.

Layout: ``_core`` holds the machinery; ``nb00`` ... ``nb14`` hold each notebook's exercises (15 has none). Usage::

    from vitcourse import check
    check.patch_count(answer)
    check.require(check.patch_count, answer)  # an autograder test: AssertionError unless right
"""

from __future__ import annotations

from . import nb00, nb01, nb02, nb03, nb04, nb05, nb06, nb07, nb08, nb09, nb10, nb11, nb12, nb13, nb14
from ._core import Verdict, require

# Every notebook module lists its checkers in its own __all__; they are gathered here so that a notebook needs
# only `from vitcourse import check` and `check.patch_count(...)`.
_NOTEBOOKS = (nb00, nb01, nb02, nb03, nb04, nb05, nb06, nb07, nb08, nb09, nb10, nb11, nb12, nb13, nb14)
globals().update({name: getattr(module, name) for module in _NOTEBOOKS for name in module.__all__})

__all__ = ["Verdict", "require", *(name for module in _NOTEBOOKS for name in module.__all__)]

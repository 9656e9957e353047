"""Right answers for the checkers of notebook 03; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

import math

from vitcourse import check, position

VALUE_CHECKS = {
    check.sinusoidal_entry: math.cos(3 / 10000 ** (4 / 400)),
    check.scrambled_rows: [2, 1, 0, 3],
}
FUNCTION_CHECKS = {
    check.sinusoidal_function: position.sinusoidal_table,
}
MISTAKES = [
    (check.sinusoidal_entry, math.sin(3 / 10000 ** (4 / 400)), "cosine"),
]

"""Right answers for the checkers of notebook 06; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

from vitcourse import check


def grids(h: int, w: int) -> list[tuple[int, int]]:
    out = []
    for k, s, p in ((7, 4, 2), (3, 2, 1), (3, 2, 1)):
        h, w = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
        out.append((h, w))
    return out


VALUE_CHECKS = {
    check.t2t_token_count: 196,
    check.t2t_token_length: 576,
}
FUNCTION_CHECKS = {
    check.t2t_grids_function: grids,
}
MISTAKES: list = []

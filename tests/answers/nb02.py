"""Right answers for the checkers of notebook 02; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

from vitcourse import check, tokens

VALUE_CHECKS = {
    check.soft_split_count: (15, 25),
}
FUNCTION_CHECKS = {
    check.count_tokens_function: lambda h, w, k, s, p: tuple(tokens.count_tokens(h, w, k, s, p)[:2]),
    check.rebuild_function: lambda t, h, w: t.transpose(1, 2).reshape(t.shape[0], t.shape[2], h, w),
}
MISTAKES = [
    (check.soft_split_count, (25, 15), "swapped"),
    (check.soft_split_count, 375, "pair"),
    (check.rebuild_function, lambda t, h, w: t.reshape(t.shape[0], t.shape[2], h, w), "differs at index"),
]

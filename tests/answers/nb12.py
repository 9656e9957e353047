"""Right answers for the checkers of notebook 12; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

from vitcourse import check

VALUE_CHECKS: dict = {
    check.stretched_corner_patch: 3,  # new row 9 of 60 lies 2.4 old patches along the sequence: patch 3
    check.resize_control_design: "b",  # the carried rows shuffled: only where each row sits changes
    check.control_axis_prediction: "a",  # the row: the control still sees the pixels, which plausibly change more down than across
}
FUNCTION_CHECKS: dict = {}
MISTAKES: list = [
    (check.control_axis_prediction, "b", "section 1"),
    (check.control_axis_prediction, "c", "random guess"),
    (check.control_axis_prediction, "d", "what each token shows"),
    (check.control_axis_prediction, "e", "behind the moon"),
    (check.stretched_corner_patch, 5, "does not know the picture"),
    (check.stretched_corner_patch, 2, "counted the old patches from 0"),
    (check.stretched_corner_patch, 10, "not stretched"),
    (check.resize_control_design, "a", "takes nothing away"),
    (check.resize_control_design, "c", "size and spread"),
    (check.resize_control_design, "d", "much of the place survives"),
    (check.resize_control_design, "e", "differs in every weight"),
]

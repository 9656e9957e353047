"""Right answers for the checkers of notebook 12; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

from vitcourse import check

VALUE_CHECKS: dict = {
    check.stretched_corner_patch: 2,  # new row 9 of 60 lies 2.4 old patches along the sequence: patch 2
    check.scrambled_predictions: 1,  # no position embedding: one prediction for every order of the same tokens
    check.resize_control_accuracy: 1 / 60,  # chance on the old grid's 60 labels
    check.resize_control_design: "b",  # the carried rows shuffled: only where each row sits changes
    check.control_axis_prediction: "a",  # the row: the control still sees the pixels, which plausibly change more down than across
}
FUNCTION_CHECKS: dict = {}
MISTAKES: list = [
    (check.stretched_corner_patch, 4, "does not know the picture"),
    (check.stretched_corner_patch, 9, "not stretched"),
    (check.scrambled_predictions, 15, "places the moon's patch can land"),
    (check.scrambled_predictions, 3, "rows"),
    (check.scrambled_predictions, 0, "how many different ones"),
    (check.resize_control_accuracy, 1 / 240, "labels are still those of the old grid"),
    (check.resize_control_accuracy, 1 / 6, "row alone"),
    (check.resize_control_accuracy, 1 / 10, "column alone"),
]

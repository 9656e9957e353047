"""Right answers for the checkers of notebook 13; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

from vitcourse import check

# Section 4's held-out scrambles: 11 leave patch 14 in place and 117 change it; the learned scramble run, trained on
# the CPU, gets none of the 11 right (counted by hand in notebook 11 and section 4).
SHORTCUT = {"kept": 11, "kept right": 0, "changed": 117}


LADDER = "is not it. The exercise rests on"  # the first rung of an undiagnosed wrong answer's hint ladder
CORNER = 55.96  # a moon-only head on one scene with the moon in patch 0: mean of 10 * |centre - (0, 0)|, 60 patches

VALUE_CHECKS: dict = {
    check.shortcut_kept_wrong: SHORTCUT["kept"],
    check.moon_only_head_distance: 42.3,
    check.moon_corner_distance: CORNER,
    check.control_run: "c",
    check.control_rows_prediction: 0.05,  # the start's rows-only score, printed in section 4
}
FUNCTION_CHECKS: dict = {}
MISTAKES: list = [
    (check.shortcut_kept_wrong, 0, "compares the tiles"),
    (check.shortcut_kept_wrong, SHORTCUT["changed"], "changed patch 14"),
    # the figure's other reference lines (itself, nearest, farthest) get the hint ladder, no diagnosis of their own
    (check.moon_only_head_distance, 0.0, LADDER),
    (check.moon_only_head_distance, 10.0, LADDER),
    (check.moon_only_head_distance, 81.2, LADDER),
    (check.moon_only_head_distance, CORNER, "one scene's distance"),
    (check.moon_corner_distance, CORNER / 10, "in patches"),
    (check.moon_corner_distance, 42.04, "uniform line"),
    (check.moon_corner_distance, 0.0, "on itself"),
    (check.control_run, "g", "not one of the options"),
    (check.control_rows_prediction, 0.40, "the claim's own run"),
]

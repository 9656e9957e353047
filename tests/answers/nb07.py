"""Right answers for the checkers of notebook 07; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

from vitcourse import check

VALUE_CHECKS = {
    check.decay_choice: "ad",  # the two weight matrices among the five tensors
    check.decay_reason: "i",
    check.schedule_bug_line: 3,  # the cosine's progress forgets to subtract the warm-up
    check.schedule_bug_effect: "b",
    check.no_position_loss_floor: 0.637,  # one probability for a scene's three images: p = 2/3 scrambled
    check.no_position_batch_dip: "i",
    check.seam_blocks_choice: "b",
    check.seam_blocks_reason: "i",
    check.control_run: "c",
    check.control_rows_prediction: "start",
}
FUNCTION_CHECKS: dict = {}
MISTAKES: list = [
    (check.decay_choice, "ade", "does not train"),
    (check.decay_choice, "abd", "does it mix the features"),
    (check.decay_choice, "acd", "second part of the exercise"),
    (check.decay_choice, "a", "makes the model simpler"),  # unexplained: the nudge
    (check.decay_choice, "a", "one tensor is missing"),  # a count, no letter named
    (check.decay_choice, "abcde", "three of your letters should not be there"),
    (check.decay_choice, "bd", "one of your letters should not be there, and one tensor is missing"),
    (check.decay_choice, "xyz", "not a string made of the letters"),
    (check.decay_reason, "ii", "every value alike"),
    (check.decay_reason, "iii", "nothing after the scale"),
    (check.decay_reason, "iv", "receives a gradient"),
    (check.decay_reason, "v", "not one of the options"),
    (check.schedule_bug_line, 1, "picks the branch"),
    (check.schedule_bug_line, 2, "climbs linearly"),
    (check.schedule_bug_line, 4, "as it stands"),
    (check.schedule_bug_line, 7, "Compare each line"),  # unexplained: the nudge
    (check.schedule_bug_effect, "a", "clock start"),
    (check.schedule_bug_effect, "c", "hardly shows"),
    (check.schedule_bug_effect, "d", "small positive rate"),
    (check.schedule_bug_effect, "e", "not one of the options"),
    (check.no_position_loss_floor, 0.693, "single probability"),
    (check.no_position_loss_floor, 0.667, "share of right answers"),
    (check.no_position_loss_floor, 0.0, "different answers"),
    (check.no_position_loss_floor, 0.918, "natural logarithm"),
    (check.no_position_loss_floor, 0.405, "scrambled images alone"),
    (check.no_position_loss_floor, 1.099, "intact image's loss alone"),
    (check.no_position_loss_floor, 0.64, "three decimals"),
    (check.no_position_loss_floor, 0.3, "sees its tokens as a set"),  # unexplained: the nudge
    (check.no_position_batch_dip, "ii", "batch order"),
    (check.no_position_batch_dip, "iii", "momentum or without"),
    (check.no_position_batch_dip, "iv", "not one of the options"),
    (check.seam_blocks_choice, "a", "smaller than a patch"),
    (check.seam_blocks_choice, "c", "what one 20 x 20 patch"),
    (check.seam_blocks_choice, "D", "what the patch embedding"),
    (check.seam_blocks_choice, "e", "not one of the options"),
    (check.seam_blocks_reason, "ii", "its own weights"),
    (check.seam_blocks_reason, " III ", "however large"),
    (check.seam_blocks_reason, "iv", "nothing is averaged"),
    (check.seam_blocks_reason, "b", "not one of the options"),
    (check.control_run, "a", "robust"),
    (check.control_run, "B", "no table to probe"),
    (check.control_run, "d", "whether the structure grows"),
    (check.control_run, "e", "in the table already"),
    (check.control_run, "f", "no prediction for a run that learns another task"),
    (check.control_run, "g", "not one of the options"),
    (check.control_rows_prediction, "claim", "claim run's own score"),
    (check.control_rows_prediction, " Between ", "rival explanation"),
    (check.control_rows_prediction, "negative", "reversed, not missing"),
    (check.control_rows_prediction, "0.05", "not one of the options"),
]

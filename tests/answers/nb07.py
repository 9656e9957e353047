"""Right answers for the checkers of notebook 07; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

import math

from vitcourse import check

WARMUP, STEPS = 15, 200
HALF_STEP = math.floor(WARMUP + (STEPS - WARMUP) / 2) + 1  # the cosine's angle passes pi / 2 after step 107

VALUE_CHECKS = {
    check.half_lr_step: HALF_STEP,
    check.no_position_accuracy: 0.5,
    check.no_position_one_right: 128,
    check.seam_blocks_choice: "b",
    check.seam_blocks_reason: "i",
    check.no_decay_count: 21,  # cls_token + patch bias + 8 per block x 2 + final norm (2) + head bias
    check.control_run: "c",
    check.control_rows_prediction: "start",
}
FUNCTION_CHECKS: dict = {}
MISTAKES: list = [
    (check.half_lr_step, 116, "not over all of them"),  # cosine over all the steps, shifted by the warm-up
    (check.half_lr_step, 101, "whole run from step 0"),
    (check.half_lr_step, 100, "half the run"),
    (check.half_lr_step, HALF_STEP - 1, "just short of pi / 2"),
    (check.half_lr_step, HALF_STEP + 1, "count from 0"),
    (check.half_lr_step, 0, "warm-up step"),
    (check.half_lr_step, 93, "since the warm-up ended"),
    (check.half_lr_step, 92, "since the warm-up ended"),
    (check.half_lr_step, 150, "Revisit the schedule"),  # unexplained: the nudge
    (check.half_lr_step, 107.5, "not a whole number"),
    (check.no_position_accuracy, 50, "not as a percentage"),
    (check.no_position_accuracy, 1.0, "cannot tell the two images"),
    (check.no_position_accuracy, 0.0, "exactly one of them is right"),
    (check.no_position_accuracy, 0.75, "how many of each pair"),
    (check.no_position_one_right, 64, "coin flips"),
    (check.no_position_one_right, 0, "two different answers"),
    (check.no_position_one_right, 5, "have in common"),
    (check.seam_blocks_choice, "a", "smaller than a patch"),
    (check.seam_blocks_choice, "c", "what one 20 x 20 patch"),
    (check.seam_blocks_choice, "D", "what the patch embedding"),
    (check.seam_blocks_choice, "e", "not one of the options"),
    (check.seam_blocks_reason, "ii", "its own weights"),
    (check.seam_blocks_reason, " III ", "however large"),
    (check.seam_blocks_reason, "iv", "nothing is averaged"),
    (check.seam_blocks_reason, "b", "not one of the options"),
    (check.no_decay_count, 22, "does not train"),
    (check.no_decay_count, 20, "excluded by name"),
    (check.no_decay_count, 15, "LayerNorm scales"),
    (check.no_decay_count, 16, "neutral value is 1"),
    (check.no_decay_count, 10, "does take weight decay"),
    (check.no_decay_count, 30, "which kinds of tensor"),
    (check.control_run, "a", "robust"),
    (check.control_run, "B", "no table to probe"),
    (check.control_run, "d", "whether the structure grows"),
    (check.control_run, "e", "in the table already"),
    (check.control_run, "f", "not one of the options"),
    (check.control_rows_prediction, "claim", "claim run's own score"),
    (check.control_rows_prediction, " Between ", "rival explanation"),
    (check.control_rows_prediction, "negative", "not reversed"),
    (check.control_rows_prediction, "0.05", "not one of the options"),
]

"""Right answers for the checkers of notebook 07; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

import math

from vitcourse import check

PEAK, WARMUP, STEPS, STEP = 1e-3, 15, 200, 100

VALUE_CHECKS = {
    check.lr_at_step: PEAK * 0.5 * (1 + math.cos(math.pi * (STEP - WARMUP) / (STEPS - WARMUP))),
    check.no_position_accuracy: 0.5,
    check.seam_blocks_choice: "b",
    check.seam_blocks_reason: "i",
    check.no_decay_count: 22,  # 2 tokens + patch bias + 8 per block x 2 + final norm (2) + head bias
    check.control_run: "c",
    check.control_accuracy: 0.5,
}
FUNCTION_CHECKS: dict = {}
MISTAKES: list = [
    (check.lr_at_step, PEAK * 0.5 * (1 + math.cos(math.pi * STEP / STEPS)), "starts after the warm-up"),
    (check.lr_at_step, PEAK * 0.5 * (1 + math.cos(math.pi * (STEP - WARMUP) / STEPS)), "not by steps"),
    (
        check.lr_at_step,
        PEAK * 0.5 * (1 + math.cos(math.pi * STEP / (STEPS - WARMUP))),
        "subtract the warm-up",
    ),
    (
        check.lr_at_step,
        0.5 * (1 + math.cos(math.pi * (STEP - WARMUP) / (STEPS - WARMUP))),
        "multiply by the peak",
    ),
    (check.lr_at_step, PEAK * 0.5 * (1 + math.cos((STEP - WARMUP) / (STEPS - WARMUP))), "in radians"),
    (check.lr_at_step, 2e-3, "which of its two branches"),
    (check.no_position_accuracy, 50, "not as a percentage"),
    (check.no_position_accuracy, 1.0, "cannot tell the two images"),
    (check.no_position_accuracy, 0.0, "exactly one of them is right"),
    (check.no_position_accuracy, 0.75, "how many of each pair"),
    (check.seam_blocks_choice, "a", "smaller than a patch"),
    (check.seam_blocks_choice, "c", "what one 20 x 20 patch"),
    (check.seam_blocks_choice, "D", "what the patch embedding"),
    (check.seam_blocks_choice, "e", "not one of the options"),
    (check.seam_blocks_reason, "ii", "same count"),
    (check.seam_blocks_reason, " III ", "treats its tokens as a set"),
    (check.seam_blocks_reason, "iv", "prepended first"),
    (check.seam_blocks_reason, "b", "not one of the options"),
    (check.no_decay_count, 20, "excluded by name"),
    (check.no_decay_count, 15, "LayerNorm scales"),
    (check.no_decay_count, 17, "neutral value is 1"),
    (check.no_decay_count, 10, "does take weight decay"),
    (check.no_decay_count, 30, "which kinds of tensor"),
    (check.control_run, "a", "robust"),
    (check.control_run, "B", "no table to probe"),
    (check.control_run, "d", "whether the structure grows"),
    (check.control_run, "e", "in the table already"),
    (check.control_run, "f", "not one of the options"),
    (check.control_accuracy, 50, "not as a percentage"),
    (check.control_accuracy, 0.96, "true labels"),
    (check.control_accuracy, 0.0, "not always wrong"),
    (check.control_accuracy, 0.7, "shuffled"),
]

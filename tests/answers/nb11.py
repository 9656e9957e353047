"""Right answers for the checkers of notebook 11; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

from vitcourse import check

VALUE_CHECKS: dict = {
    check.blind_best_accuracy: 2 / 3,  # one answer for a scene's three images: "scrambled" gets two right
    check.plateau_wait: 12,  # the stored runs: sinusoidal seed 2 leaves at step 27, the warm-up ends at 15
    check.plateau_guess: "B",
    check.no_position_loss_floor: 0.637,  # one probability for a scene's three images: p = 2/3 scrambled
    check.no_position_batch_dip: 0.173,  # 16 paired images at ln 2, 48 single ones free
    check.seam_blocks_pair: "b-i",
}
FUNCTION_CHECKS: dict = {}
MISTAKES: list = [
    (check.blind_best_accuracy, 0.5, "one scrambled image per intact one"),
    (check.blind_best_accuracy, 0.333, "answering 'intact' for every image"),
    (check.blind_best_accuracy, 1.0, "cannot give"),
    (check.blind_best_accuracy, 0.9, "how many different answers"),
    (check.no_position_loss_floor, 0.693, "one scrambled image per intact one"),
    (check.no_position_loss_floor, 0.667, "not a loss"),
    (check.no_position_loss_floor, 0.0, "different answers"),
    (check.no_position_loss_floor, 0.918, "natural logarithm"),
    (check.no_position_loss_floor, 0.405, "scrambled images alone"),
    (check.no_position_loss_floor, 1.099, "intact image's loss alone"),
    (check.no_position_loss_floor, 0.64, "three decimals"),
    (check.no_position_loss_floor, 0.3, "cannot see the order"),
    (check.no_position_batch_dip, 0.693, "every image"),
    (check.no_position_batch_dip, 0.0, "fits every image"),
    (check.no_position_batch_dip, 0.0866, "counts the paired scenes"),
    (check.no_position_batch_dip, 0.520, "swaps the batch's two kinds"),
    (check.no_position_batch_dip, 0.17, "three decimals"),
    (check.no_position_batch_dip, 0.3, "image by image"),
    (check.seam_blocks_pair, "b-ii", "what it still receives"),
    (check.seam_blocks_pair, "a-i", "Not this pair"),
    (check.seam_blocks_pair, "b", "not one of the options"),
    (check.plateau_wait, 27, "count from the end of the warm-up"),
    (check.plateau_wait, 19, "the earliest"),
    (check.plateau_wait, 8, "a learned run"),
    (check.plateau_wait, 40, "Read the step axis"),
    (check.plateau_guess, "A", "compare that with your answer to (a)"),
    (check.plateau_guess, "E", "not one of the options"),
]

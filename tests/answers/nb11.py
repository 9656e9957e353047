"""Right answers for the checkers of notebook 11; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

from vitcourse import check

VALUE_CHECKS: dict = {
    check.blind_pairs_same_answer: 128,  # a scene and its scrambled copy: one set of tokens, one output
    check.coin_exact_half: 0.0498,  # comb(256, 128) / 2**256
    check.no_position_loss_floor: 0.637,  # one probability for a scene's three images: p = 2/3 scrambled
    check.no_position_batch_dip: 0.173,  # 16 paired images at ln 2, 48 single ones free
    check.seam_blocks_choice: "b",
    check.seam_blocks_reason: "i",
}
FUNCTION_CHECKS: dict = {}
MISTAKES: list = [
    (check.blind_pairs_same_answer, 64, "independent coin tosses"),
    (check.blind_pairs_same_answer, 0, "tells every scene's two images apart"),
    (check.blind_pairs_same_answer, 256, "counts images"),
    (check.blind_pairs_same_answer, 100, "what the model without positions receives"),
    (check.blind_pairs_same_answer, 0.5, "not a whole number"),
    (check.coin_exact_half, 0.5, "mean accuracy"),
    (check.coin_exact_half, 1.0, "must answer both images"),
    (check.coin_exact_half, 0.0704, "tosses once per scene"),
    (check.coin_exact_half, 0.0, "very many such sequences"),
    (check.coin_exact_half, 0.05, "three significant figures"),
    (check.coin_exact_half, 0.2, "Count the ways"),
    (check.no_position_loss_floor, 0.693, "single probability"),
    (check.no_position_loss_floor, 0.667, "share of right answers"),
    (check.no_position_loss_floor, 0.0, "different answers"),
    (check.no_position_loss_floor, 0.918, "natural logarithm"),
    (check.no_position_loss_floor, 0.405, "scrambled images alone"),
    (check.no_position_loss_floor, 1.099, "intact image's loss alone"),
    (check.no_position_loss_floor, 0.64, "three decimals"),
    (check.no_position_loss_floor, 0.3, "sees its tokens as a bag"),
    (check.no_position_batch_dip, 0.693, "every image"),
    (check.no_position_batch_dip, 0.0, "fitted too"),
    (check.no_position_batch_dip, 0.0866, "counts the paired scenes"),
    (check.no_position_batch_dip, 0.520, "the same output as another"),
    (check.no_position_batch_dip, 0.17, "three decimals"),
    (check.no_position_batch_dip, 0.3, "which images of the batch"),
    (check.seam_blocks_choice, "a", "what goes into one patch token"),
    (check.seam_blocks_choice, "e", "not one of the options"),
    (check.seam_blocks_reason, "b", "not one of the options"),
]

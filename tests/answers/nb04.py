"""Right answers for the checkers of notebook 04; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

import math

from vitcourse import check

# Exercise 1, second part: unscaled scores 8 apart, scale 1/sqrt(64): weight ratio exp(8 / 8).
WEIGHT_RATIO = math.exp(8 / math.sqrt(64))


VALUE_CHECKS: dict = {
    check.entropy_prediction: "b",
    check.scaled_weight_ratio: WEIGHT_RATIO,
}
FUNCTION_CHECKS: dict = {}
MISTAKES: list = [
    (check.entropy_prediction, "a", "not of its scores"),
    (check.entropy_prediction, "c", "not one multiplied into them"),
    (check.entropy_prediction, "d", "not q and k"),
    (check.entropy_prediction, " E ", "exp() grows fastest"),
    (check.entropy_prediction, "scaled", "not one of the options"),
    (check.scaled_weight_ratio, math.exp(8), "without the scale"),
    (check.scaled_weight_ratio, 1.0, "scaled gap"),
    (check.scaled_weight_ratio, 8, "gap between the scores"),
    (check.scaled_weight_ratio, math.exp(8 / 64), "not by d_k"),
    (check.scaled_weight_ratio, 1 / WEIGHT_RATIO, "upside down"),
]

"""Right answers for the checkers of notebook 10; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

from vitcourse import check

VALUE_CHECKS: dict = {
    check.confident_loss: 0.105,  # -ln 0.9: each held-out image pays for the right label's probability
    check.decay_choice: "ad",  # the two weight matrices among the five tensors
    check.decay_reason: "i",
    check.schedule_bug_line: 3,  # the cosine's progress forgets to subtract the warm-up
    check.schedule_bug_effect: "b",
}
FUNCTION_CHECKS: dict = {}
MISTAKES: list = [
    (check.confident_loss, -0.105, "minus sign"),
    (check.confident_loss, 0.0458, "base 10"),
    (check.confident_loss, 0.046, "base 10"),
    (check.confident_loss, 0.152, "base 2"),
    (check.confident_loss, 2.303, "wrong label"),
    (check.confident_loss, 1.204, "averages the charges of both labels"),
    (check.confident_loss, 0.325, "entropy"),
    (check.confident_loss, 0.1, "probability left for the wrong label"),
    (check.confident_loss, 0.9, "a probability, not a loss"),
    (check.confident_loss, 0.0, "probability 1"),
    (check.confident_loss, 0.693, "loss of a guess"),
    (check.confident_loss, 26.97, "sum over the held-out images"),
    (check.confident_loss, 0.11, "three decimals"),
    (check.confident_loss, 0.5, "which logarithm"),
    (check.decay_choice, "ade", "does not train"),
    (check.decay_choice, "abd", "does it mix the features"),
    (check.decay_choice, "acd", "second part of the exercise"),
    (check.decay_choice, "a", "makes the model simpler"),
    (check.decay_choice, "a", "one tensor is missing"),
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
    (check.schedule_bug_line, 7, "Compare each line"),
    (check.schedule_bug_effect, "a", "clock start"),
    (check.schedule_bug_effect, "c", "hardly shows"),
    (check.schedule_bug_effect, "d", "small positive rate"),
    (check.schedule_bug_effect, "e", "not one of the options"),
]

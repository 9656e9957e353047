"""Right answers for the checker of notebook 00 (the warm-up); tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
The numbers are those of the course's own picture, which the unit tests always use (tests/conftest.py).
"""

from __future__ import annotations

from vitcourse import check

VALUE_CHECKS = {
    check.bright_pixels: 1578,
}
FUNCTION_CHECKS: dict = {}
MISTAKES = [
    (check.bright_pixels, 6000 - 1578, "0.5 or darker"),
    (check.bright_pixels, 6000, "every pixel"),
    (check.bright_pixels, 124, "only the pixels of the brightest value"),
    (check.bright_pixels, 4, "how many different values"),
    (check.bright_pixels, 1578 / 6000, "not a whole number"),
]

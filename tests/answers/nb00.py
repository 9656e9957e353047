"""Right answers for the checker of notebook 00 (the warm-up); tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
The numbers are those of the course's own picture, which the unit tests always use (tests/conftest.py):
1578 of its 6000 pixels are brighter than 0.5, a share of 0.263; estimates within 0.1 of it pass.
"""

from __future__ import annotations

from vitcourse import check

VALUE_CHECKS = {
    check.bright_pixels: 0.3,  # an estimate within 0.1 of the true share
}
FUNCTION_CHECKS: dict = {}
MISTAKES = [
    (check.bright_pixels, 0.75, "darker pixels"),
    (check.bright_pixels, 1578, "count of pixels"),
    (check.bright_pixels, 1.5, "between 0 and 1"),
    (check.bright_pixels, -0.2, "between 0 and 1"),
    (check.bright_pixels, None, "still None"),
    (check.bright_pixels, "a quarter", "expected a share"),
]

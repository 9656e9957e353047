"""Right answers for the checker of notebook 00 (the warm-up); tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
The levels are those of the course's own picture, which the unit tests always use (tests/conftest.py): the moon
1.0, the upper sky 0.45, the sky below the band 0.6, the mountain's left face 0.9 and right face 0.75, the
ridges 0.3.
"""

from __future__ import annotations

from vitcourse import check

RIGHT = {"moon", "sky below the band", "left face", "right face"}
VALUE_CHECKS = {
    check.bright_regions: RIGHT,
}
FUNCTION_CHECKS: dict = {}
MISTAKES = [
    (check.bright_regions, RIGHT | {"upper sky"}, "colour-bar misreading"),
    (check.bright_regions, RIGHT - {"sky below the band"}, "easy to miss"),
    (check.bright_regions, RIGHT | {"ridges"}, "none is exactly one half"),
    (check.bright_regions, RIGHT | {"clouds"}, "not one of the regions"),
    (check.bright_regions, None, "still None"),
    (check.bright_regions, 0.3, "expected a set of region names"),
]

"""Right answers for the checkers of notebook 00; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

from vitcourse import check

RIGHT = {"moon", "sky below the band", "left face", "right face"}


VALUE_CHECKS: dict = {
    check.bright_regions: RIGHT,
    check.pixel_patch: 11,
}
FUNCTION_CHECKS: dict = {}
MISTAKES: list = [
    (check.bright_regions, RIGHT | {"upper sky"}, "colour-bar misreading"),
    (check.bright_regions, RIGHT - {"sky below the band"}, "colour-bar misreading"),
    (check.bright_regions, RIGHT | {"ridges"}, "none is exactly one half"),
    (check.bright_regions, RIGHT | {"clouds"}, "not one of the regions"),
    (check.bright_regions, None, "still None"),
    (check.bright_regions, 0.3, "expected a set of region names"),
    (check.pixel_patch, 12, "counted from 1"),
    (check.pixel_patch, 5, "column by column"),
    (check.pixel_patch, 7, "row and column are swapped"),
    (check.pixel_patch, 2.5, "not a whole number"),
]

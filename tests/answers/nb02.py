"""Right answers for the checkers of notebook 02; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

import math

from vitcourse import check, tokens

VALUE_CHECKS = {
    check.pixels_in_two_windows: 1400,
    check.t2t_input_sides: (211, 226),
    check.pixel_in_tokens: {24: 312, 25: 302, 34: 112, 35: 102},
    check.plain_rebuild_channel0: (0, 10),
}
FUNCTION_CHECKS = {
    check.count_tokens_function: lambda h, w, k, o, p: tuple(tokens.count_tokens(h, w, k, k - o, p)[:2]),
}
MISTAKES = [
    (check.pixels_in_two_windows, 4500, "four windows"),
    (check.pixels_in_two_windows, 100, "covered by exactly one window"),
    (check.pixels_in_two_windows, 900, "top and bottom edges"),
    (check.pixels_in_two_windows, 500, "left and right edges"),
    (check.pixels_in_two_windows, 1500, "corner squares with the edge bands"),
    (check.pixels_in_two_windows, 1600, "twice"),
    (check.pixels_in_two_windows, 2400, "without the padding"),
    (check.t2t_input_sides, (226, 211), "smaller side comes first"),
    (check.t2t_input_sides, 211, "pair (smallest, largest), not one number"),
    (check.t2t_input_sides, (224, 224), "not the only one"),
    (check.t2t_input_sides, (211, 214), "only the first split's rounding"),
    (check.t2t_input_sides, (239, 254), "without the padding"),
    (check.t2t_input_sides, (196, 211), "rounded up"),
    (check.t2t_input_sides, (217, 232), "wrong order"),
    (check.t2t_input_sides, (211, 211), "one side twice"),
    (check.t2t_input_sides, (211, 224), "paper's example, not the largest"),
    (check.t2t_input_sides, (211.0, 226.5), "whole numbers"),
    (
        check.count_tokens_function,
        lambda h, w, k, o, p: ((h + 2 * p - k) // o + 1, (w + 2 * p - k) // o + 1),
        "the bug is still in it",
    ),
    (
        check.count_tokens_function,
        lambda h, w, k, o, p: ((h + 2 * p - k) // k + 1, (w + 2 * p - k) // k + 1),
        "moved the windows by k",
    ),
    (
        check.count_tokens_function,
        lambda h, w, k, o, p: ((h - k) // (k - o) + 1, (w - k) // (k - o) + 1),
        "padding",
    ),
    (
        check.count_tokens_function,
        lambda h, w, k, o, p: ((h + 2 * p - k) // (k - o), (w + 2 * p - k) // (k - o)),
        "+ 1",
    ),
    (
        check.count_tokens_function,
        lambda h, w, k, o, p: tuple(tokens.count_tokens(h, w, k, k - o, p)[1::-1]),
        "swapped",
    ),
    (
        check.count_tokens_function,
        lambda h, w, k, o, p: ((h + 2 * p - k) / (k - o) + 1, (w + 2 * p - k) / (k - o) + 1),
        "true division",
    ),
    (
        check.count_tokens_function,
        lambda h, w, k, o, p: (
            math.ceil((h + 2 * p - k) / (k - o)) + 1,
            math.ceil((w + 2 * p - k) / (k - o)) + 1,
        ),
        "rounded up",
    ),
    (check.pixel_in_tokens, {24: 207, 25: 197, 34: 7, 35: -3}, "multiple of s"),
    (check.pixel_in_tokens, {24: 255, 25: 55, 34: 245, 35: 45}, "column by column"),
    (check.pixel_in_tokens, {25: 312, 26: 302, 35: 112, 36: 102}, "counted from 1"),
    (check.pixel_in_tokens, 24, "dict"),
    (check.plain_rebuild_channel0, (10, 0), "where it should come from"),
    (check.plain_rebuild_channel0, (0, 1), "not column by column"),
    (check.plain_rebuild_channel0, (0, 6), "holds w values"),
    (check.plain_rebuild_channel0, (1, 11), "from 0"),
    (check.plain_rebuild_channel0, (0, 0, 59), "two whole numbers (token, entry)"),
    (check.plain_rebuild_channel0, None, "two whole numbers (token, entry)"),
]

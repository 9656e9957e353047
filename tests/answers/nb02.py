"""Right answers for the checkers of notebook 02; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

from vitcourse import check

VALUE_CHECKS: dict = {
    check.pixels_in_two_windows: 1400,
    check.pixel_in_tokens: {24, 25, 34, 35},
    check.pixel_position_entry: 312,
    check.split_design: (8, 6, 2),
}


def fixed_count(h, w, k, paper_s, p):
    stride = k - paper_s  # the paper's S is the overlap
    return (h + 2 * p - k) // stride + 1, (w + 2 * p - k) // stride + 1


def count_by_s(h, w, k, paper_s, p):  # paper_count's own bug
    return (h + 2 * p - k) // paper_s + 1, (w + 2 * p - k) // paper_s + 1


def count_by_unfold(h, w, k, paper_s, p):
    import torch

    n = torch.nn.Unfold(k, stride=k - paper_s, padding=p)(torch.zeros(1, 1, h, w)).shape[-1]
    return n, 1


def avg_pool_count(h, w, k, paper_s, p):
    import torch
    import torch.nn.functional as F

    out = F.avg_pool2d(torch.zeros(1, 1, h, w), k, stride=k - paper_s, padding=min(p, k // 2))
    return out.shape[-2], out.shape[-1]


FUNCTION_CHECKS: dict = {check.paper_count_fixed: fixed_count}
MISTAKES: list = [
    (check.paper_count_fixed, count_by_s, "by the paper's S"),
    (check.paper_count_fixed, count_by_unfold, "write it yourself"),
    (check.paper_count_fixed, lambda h, w, k, paper_s, p: (0, 0), "how far the official windows move"),
    (check.pixels_in_two_windows, 4500, "four windows"),
    (check.pixels_in_two_windows, 100, "covered by exactly one window"),
    (check.pixels_in_two_windows, 900, "leaves out some"),
    (check.pixels_in_two_windows, 500, "leaves out some"),
    (check.pixels_in_two_windows, 1500, "as lying in two"),
    (check.pixels_in_two_windows, 1600, "more than once"),
    (check.pixels_in_two_windows, 2400, "without the padding"),
    (check.paper_count_fixed, avg_pool_count, "write it yourself"),
    (check.split_design, (5, 2, 1), "by the paper's S"),
    (check.split_design, (9, 6, 2), "share k - s = 3"),
    (check.split_design, (8, 6, 8), "not less than the kernel"),
    (check.split_design, (8, 6, 0), "grid of 9 x 16"),
    (check.split_design, (8, 6, 4), "grid of 11 x 17"),
    (check.split_design, (8, 6, 3), "lie in no window"),
    (check.split_design, (8, 6), "expected (k, s, p)"),
    (check.pixel_in_tokens, {25, 26, 35, 36}, "counted from 1"),
    (check.pixel_in_tokens, {23, 24, 33, 34}, "not multiples of s"),
    (check.pixel_in_tokens, {16, 17, 22, 23}, "one token per window across the width"),
    (check.pixel_in_tokens, {24, 34}, "not all of them"),
    (check.pixel_in_tokens, 24, "expected a set"),
    (check.pixel_position_entry, 207, "multiple of s"),
    (check.pixel_position_entry, 255, "column by column"),
    (check.pixel_position_entry, 333, "count from 0"),
    (check.pixel_position_entry, 162, "holds k pixels"),
    (check.pixel_position_entry, 302, "another token that holds it"),
]

"""Right answers for the checkers of notebook 06; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

from vitcourse import check

STAGES = ((7, 4, 2), (3, 2, 1), (3, 2, 1))


def grids(h: int, w: int) -> list[tuple[int, int]]:
    out = []
    for k, s, p in STAGES:
        h, w = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
        out.append((h, w))
    return out


def grids_without_padding(h: int, w: int) -> list[tuple[int, int]]:
    out = []
    for k, s, _ in STAGES:
        h, w = (h - k) // s + 1, (w - k) // s + 1
        out.append((h, w))
    return out


def grids_without_plus_one(h: int, w: int) -> list[tuple[int, int]]:
    out = []
    for k, s, p in STAGES:
        h, w = (h + 2 * p - k) // s, (w + 2 * p - k) // s
        out.append((h, w))
    return out


def grids_from_original_size(h: int, w: int) -> list[tuple[int, int]]:
    return [((h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1) for k, s, p in STAGES]


def grids_swapped(h: int, w: int) -> list[tuple[int, int]]:
    return [(c, r) for r, c in grids(h, w)]


def grids_by_stride(h: int, w: int) -> list[tuple[int, int]]:
    out = []
    for _, s, _ in STAGES:
        h, w = h // s, w // s
        out.append((h, w))
    return out


VALUE_CHECKS = {
    check.t2t_qkv_weight_count: 3 * 7 * 7 * 64 * 3,
    check.t2t_picture_tokens: 4 * 7,
}
FUNCTION_CHECKS = {
    check.t2t_grids_function: grids,
}
MISTAKES = [
    (check.t2t_qkv_weight_count, 7 * 7 * 64 * 3, "one-channel"),
    (check.t2t_qkv_weight_count, 3 * 7 * 7 * 64, "one of q, k, v"),
    (check.t2t_qkv_weight_count, 3 * 7 * 7 * 64 * 3 + 3 * 64, "no bias"),
    (check.t2t_qkv_weight_count, 3 * 7 * 7 * 64 * 3 + 64 * 64 + 64, "proj"),
    (check.t2t_qkv_weight_count, 7 * 7 * 64, "one channel and one of q, k, v"),
    (check.t2t_picture_tokens, 2 * 5, "padding"),
    (check.t2t_picture_tokens, 30 * 50, "previous stage's grid"),
    (check.t2t_picture_tokens, 8 * 13, "two soft splits"),
    (check.t2t_picture_tokens, 15 * 25, "first soft split only"),
    (check.t2t_picture_tokens, 4 * 7 + 1, "prediction token"),
    (check.t2t_grids_function, grids_without_padding, "padding"),
    (check.t2t_grids_function, grids_without_plus_one, "+ 1"),
    (check.t2t_grids_function, grids_from_original_size, "previous stage's grid"),
    (check.t2t_grids_function, grids_swapped, "swapped"),
    (check.t2t_grids_function, grids_by_stride, "dividing each side by the stride"),
]

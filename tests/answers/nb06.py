"""Right answers for the checkers of notebook 06; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

from vitcourse import check


def smallest_side(target: int, stages: list[tuple[int, int, int]]) -> int:
    """Brute force: try n = 1, 2, ... until the chain of soft splits gives ``target`` tokens."""
    n = 1
    while True:
        side = n
        for k, s, p in stages:
            side = (side + 2 * p - k) // s + 1
        if side == target:
            return n
        n += 1


def undo(target: int, stages, one_stage, backwards: bool = True) -> int:
    for k, s, p in reversed(stages) if backwards else stages:
        target = one_stage(target, k, s, p)
    return target


def side_without_padding(target: int, stages) -> int:
    return undo(target, stages, lambda t, k, s, p: (t - 1) * s + k)


def side_without_minus_one(target: int, stages) -> int:
    return undo(target, stages, lambda t, k, s, p: t * s + k - 2 * p)


def side_first_stage_first(target: int, stages) -> int:
    return undo(target, stages, lambda t, k, s, p: (t - 1) * s + k - 2 * p, backwards=False)


def largest_side(target: int, stages) -> int:
    return smallest_side(target + 1, stages) - 1


def side_by_strides(target: int, stages) -> int:
    return undo(target, stages, lambda t, k, s, p: t * s)


VALUE_CHECKS = {
    check.t2t_qkv_weight_count: 3 * 7 * 7 * 64 * 3,
    check.t2t_picture_tokens: 4 * 7,
}
FUNCTION_CHECKS = {
    check.t2t_smallest_side_function: smallest_side,
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
    (check.t2t_smallest_side_function, side_without_padding, "left out the padding"),
    (check.t2t_smallest_side_function, side_without_minus_one, "t - 1 strides"),
    (check.t2t_smallest_side_function, side_first_stage_first, "from the last to the first"),
    (check.t2t_smallest_side_function, largest_side, "largest side"),
    (check.t2t_smallest_side_function, side_by_strides, "multiplying by the strides"),
]

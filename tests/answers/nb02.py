"""Right answers for the checkers of notebook 02; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from vitcourse import check, tokens


def soft_split(
    images: torch.Tensor,
    k: int,
    s: int,
    p: int,
    order: tuple[int, ...] = (0, 2, 3, 1, 4, 5),
    pad: bool = True,
) -> torch.Tensor:
    """A soft split from F.pad and Tensor.unfold, windows permuted to ``order``; the defaults are right."""
    x = F.pad(images, (p, p, p, p)) if pad else images
    x = x.unfold(2, k, s).unfold(3, k, s)  # (B, C, rows, cols, k, k)
    b, c, rows, cols = x.shape[:4]
    return x.permute(*order).reshape(b, rows * cols, c * k * k)


def rebuild(t: torch.Tensor, h: int, w: int) -> torch.Tensor:
    return t.transpose(1, 2).reshape(t.shape[0], t.shape[2], h, w)


VALUE_CHECKS = {
    check.pixels_in_two_windows: 1400,
    check.t2t_input_sides: (211, 226),
}
FUNCTION_CHECKS = {
    check.count_tokens_function: lambda h, w, k, o, p: tuple(tokens.count_tokens(h, w, k, k - o, p)[:2]),
    check.soft_split_function: soft_split,
    check.rebuild_function: rebuild,
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
    (check.soft_split_function, lambda x, k, s, p: soft_split(x, k, s, p, pad=False), "forgot the padding"),
    (check.soft_split_function, lambda x, k, s, p: soft_split(x, k, 1, p), "stride 1"),
    (check.soft_split_function, lambda x, k, s, p: soft_split(x, k, s, p, (0, 2, 3, 4, 5, 1)), "(k, k, C)"),
    (check.soft_split_function, lambda x, k, s, p: soft_split(x, k, s, p, (0, 2, 3, 1, 5, 4)), "transposed"),
    (
        check.soft_split_function,
        lambda x, k, s, p: soft_split(x, k, s, p, (0, 3, 2, 1, 4, 5)),
        "column by column",
    ),
    (
        check.rebuild_function,
        lambda t, h, w: t.reshape(t.shape[0], t.shape[2], h, w),
        "plain_rebuild",
    ),
    (
        check.rebuild_function,
        lambda t, h, w: t.transpose(1, 2).reshape(t.shape[0], t.shape[2], w, h).transpose(2, 3),
        "column by column",
    ),
]

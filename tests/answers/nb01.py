"""Right answers for the checkers of notebook 01; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

import torch

from vitcourse import check


def written_patchify(
    images: torch.Tensor, p: int, order: tuple[int, ...] = (0, 2, 4, 1, 3, 5)
) -> torch.Tensor:
    """Patches of ``(B, C, rows, p, cols, p)`` permuted to ``order`` and flattened; the default is right."""
    b, c, h, w = images.shape
    x = images.reshape(b, c, h // p, p, w // p, p).permute(*order)
    return x.reshape(b, (h // p) * (w // p), c * p * p)


def fixed_patch_of_rect(row: int, col: int, patch_h: int, patch_w: int) -> int:
    """The right answer to Exercise 01.2: a row of patches holds 100 // patch_w of them."""
    return (row // patch_h) * (100 // patch_w) + col // patch_w


VALUE_CHECKS: dict = {
    check.reusable_part: "E",
    check.count_growth: 4,
    check.grown_token_length: 1600,
    check.failing_case: (20, 0, 5, 4),
    check.pixels_right: 1000,
}
FUNCTION_CHECKS: dict = {
    check.patchify_function: written_patchify,
    check.patch_number: fixed_patch_of_rect,
}
MISTAKES: list = [
    (check.count_growth, 2, "how much each side of the picture grows"),
    (check.count_growth, 1, "more of them fit"),
    (check.count_growth, 60, "a number of tokens"),
    (check.count_growth, 61 / 16, "a row for a prediction token"),
    (check.grown_token_length, 400, "the length with P = 20"),
    (check.grown_token_length, 800, "area, not with its side"),
    (check.grown_token_length, 40, "the patch's side"),
    (check.grown_token_length, 15, "the number of tokens"),
    (check.failing_case, (45, 30, 20, 20), "gets this case right"),
    (check.failing_case, (5, 30, 10, 20), "gets this case right"),
    (check.pixels_right, 6000, "not square"),
    (check.pixels_right, 5000, "where patch_of_rect is wrong"),
    (check.pixels_right, 200, "one patch"),
    (check.failing_case, (70, 0, 10, 20), "outside the picture"),
    (check.failing_case, (1, 2), "four whole numbers"),
    (check.failing_case, None, "still None"),
    (check.patch_number, lambda r, c, ph, pw: (r // ph) * (100 // ph) + c // pw, "as it was"),
    (check.patch_number, lambda r, c, ph, pw: fixed_patch_of_rect(r, c, ph, pw) + 1, "numbered from 1"),
    (check.patch_number, lambda r, c, ph, pw: (c // pw) * (60 // ph) + r // ph, "column by column"),
    (check.patch_number, lambda r, c, ph, pw: (r // pw) * (100 // ph) + c // ph, "swapped throughout"),
    (check.patch_number, lambda r, c, ph, pw: (r // ph) * (60 // ph) + c // pw, "picture's height"),
    (
        check.patchify_function,
        lambda x, p: torch.zeros(1, 400, 15),
        "shape (1, 400, 15), expected (1, 15, 400)",
    ),
    (check.patchify_function, lambda x, p: written_patchify(x, p) + (x.shape[1] == 3), "differs at index"),
    (check.patchify_function, lambda x, p: written_patchify(x, p).numpy(), "numpy array"),
    (check.patchify_function, lambda x, p: written_patchify(x, p).to("meta"), "meta device"),
    (check.patchify_function, lambda x, p: written_patchify(x, p, (0, 4, 2, 1, 3, 5)), "column by column"),
    (check.patchify_function, lambda x, p: written_patchify(x, p, (0, 2, 4, 3, 5, 1)), "(P, P, C)"),
    (
        check.patchify_function,
        lambda x, p: written_patchify(x, p, (0, 2, 4, 1, 5, 3)),
        "each patch is transposed",
    ),
    (check.patchify_function, lambda x, p: x.reshape(x.shape[0], -1, x.shape[1] * p * p), "reshape alone"),
]

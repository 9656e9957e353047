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


VALUE_CHECKS: dict = {
    check.reusable_part: "E",
    check.count_growth: 4,
    check.patch_number: 22,
    check.token_position: (1, 15, 4),
    check.vit_pytorch_position: (2, 10, 6),
}
FUNCTION_CHECKS: dict = {
    check.patchify_function: written_patchify,
}
MISTAKES: list = [
    (check.count_growth, 2, "doubled the count once"),
    (check.count_growth, 1, "more of them fit"),
    (check.count_growth, 60, "new number of tokens"),
    (check.count_growth, 61 / 16, "prediction token's row"),
    (check.reusable_part, "position table", "one per token position"),
    (check.reusable_part, "both", "a row per token"),
    (check.reusable_part, "neither", "a row per entry of a token"),
    (check.patch_number, 21, "counted from 0"),
    (check.patch_number, 21, "they count from 0"),
    (check.patch_number, 24, "swapped the patch's height and width"),
    (check.patch_number, 44, "square 10 x 10 patches"),
    (check.patch_number, 12, "square 20 x 20 patches"),
    (check.patch_number, 11, "column by column"),
    (check.patch_number, 26, "the height where the width belongs"),
    (check.patch_number, 42, "the bug is still in it"),
    (check.patch_number, 22.5, "not a whole number"),
    (check.token_position, (2, 10, 6), "(P, P, C)"),
    (check.token_position, (1, 4, 15), "row and column are swapped"),
    (check.token_position, [2, 15, 4], "channels count from 0"),
    (check.token_position, (1, 16, 5), "rows and columns count from 0"),
    (check.token_position, (0, 31, 4), "no such row"),
    (check.token_position, (1, 15, 3), "501st value"),
    (check.token_position, 500, "expected a tuple (channel, row, column)"),
    (check.token_position, (1, 15.5, 4), "expected a tuple"),
    (check.token_position, None, "still None"),
    (check.vit_pytorch_position, (1, 15, 4), "Unfold's order"),
    (check.vit_pytorch_position, (10, 6, 2), "as (channel, row, column)"),
    (check.vit_pytorch_position, (2, 6, 10), "row and column are swapped"),
    (check.vit_pytorch_position, (3, 10, 6), "channels count from 0"),
    (check.vit_pytorch_position, (2, 11, 7), "rows and columns count from 0"),
    (check.vit_pytorch_position, (1, 10, 6), "501st value"),
    (check.vit_pytorch_position, 500, "expected a tuple (channel, row, column)"),
    (check.vit_pytorch_position, None, "still None"),
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

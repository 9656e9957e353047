"""Exercise checkers for notebook 01 patch tokenization.

Each right answer is computed by the package code the notebook shows; each ``wrong`` entry or ``Mistake`` is a
typical wrong answer, recognised and named.
"""

from __future__ import annotations

import torch

from .. import tokens
from ._core import Mistake, Verdict, check_function, int_answer, never_raises

__all__ = ["patch_count", "patch_number", "token_position", "patchify_function"]

H, W = 60, 100  # the course picture


@never_raises
def patch_count(answer: object) -> Verdict:
    """Exercise 01.1: how many 10 x 10 patches does the 60 x 100 picture make?"""
    p = 10
    rows, cols = H // p, W // p
    return int_answer(
        answer,
        tokens.count_tokens(H, W, p, p, 0).total,
        "patches of 10 x 10",
        "Count the patches down (60 / 10) and across (100 / 10), then multiply.",
        wrong={
            rows: "that is only the number of patch rows; multiply by the patches per row.",
            cols: "that is only the number of patches per row; multiply by the number of rows.",
            rows + cols: "you added the rows and the columns of patches; multiply them.",
            H * W // p: "you divided H x W by P; a patch holds P x P pixels, so divide by P².",
            tokens.count_tokens(
                H, W, 20, 20, 0
            ).total: "that is the count for P = 20; halving P quadruples it.",
        },
    )


@never_raises
def patch_number(answer: object) -> Verdict:
    """Exercise 01.2: which 10 x 10 patch (numbered from 1, row by row) holds pixel (row 45, column 30)?"""
    p, row, col = 10, 45, 30
    per_row, per_col = W // p, H // p
    return int_answer(
        answer,
        (row // p) * per_row + col // p + 1,
        "patch holding pixel (45, 30) with P = 10",
        "Find the patch row (45 // 10) and column (30 // 10); there are 10 patches per row; numbering starts at 1.",
        wrong={
            (row // p) * per_row
            + col // p: "one too small: either that is the patch index counted from 0 (patch numbers start "
            "at 1), or you counted the pixel's row and column from 1 (they count from 0, so row 45 is the 46th "
            "row and column 30 the 31st).",
            (col // p) * per_col
            + row // p
            + 1: "you numbered the patches column by column; the order is row "
            "by row (left to right, then the next row).",
            (row // 20) * (W // 20) + col // 20 + 1: "that is the patch for P = 20; with P = 10 there are 10 "
            "patches per row.",
            (row // p) * per_col + col // p + 1: "a row of patches holds W / P = 10 patches, not H / P = 6.",
        },
    )


@never_raises
def token_position(answer: object) -> Verdict:
    """Exercise 01.3: index in the token (RGB, P = 16) of channel 1, row 2, column 5 of the patch."""
    p, ch, r, c = 16, 1, 2, 5
    return int_answer(
        answer,
        ch * p * p + r * p + c,
        "position of (channel 1, row 2, column 5) in a 16 x 16 RGB token",
        "The token holds channel 0's 16 x 16 pixels row by row, then channel 1's, then channel 2's.",
        wrong={
            (r * p + c) * 3
            + ch: "that is the order (P, P, C), all channels of one pixel together; nn.Unfold "
            "keeps the channels apart: (C, P, P).",
            ch * p * p
            + c * p
            + r: "you read the patch column by column (a transposed patch); it is read row by row.",
            ch * p * p + r * p + c + 1: "positions in a tensor count from 0.",
            r * p + c: "that is the position within one channel; channel 0's 256 values come first.",
        },
    )


def _patch_order(images: torch.Tensor, p: int, order: tuple[int, ...]) -> torch.Tensor:
    """Patches with the axes of ``(B, C, rows, p, cols, p)`` permuted to ``order``, then flattened to tokens."""
    b, c, h, w = images.shape
    x = images.reshape(b, c, h // p, p, w // p, p).permute(*order)
    return x.reshape(b, (h // p) * (w // p), c * p * p)


MISTAKES = [
    Mistake(
        lambda x, p: _patch_order(x, p, (0, 4, 2, 1, 3, 5)),
        "the patches are numbered column by column; number them row by row (permute the patch-row axis "
        "before the patch-column axis).",
    ),
    Mistake(
        lambda x, p: _patch_order(x, p, (0, 2, 4, 3, 5, 1)),
        "inside each token the pixels are in (P, P, C) order (channel last); nn.Unfold's order is (C, P, P): "
        "all of channel 0, then channel 1, ...",
    ),
    Mistake(
        lambda x, p: _patch_order(x, p, (0, 2, 4, 1, 5, 3)),
        "each patch is transposed: its pixels are read column by column; read them row by row (the pixel-row "
        "axis before the pixel-column axis).",
    ),
    Mistake(
        lambda x, p: x.reshape(x.shape[0], -1, x.shape[1] * p * p),
        "a reshape alone cuts the image into runs of consecutive pixels, not into square patches; split each "
        "side into (patches, pixels) and permute before flattening.",
    ),
]


@never_raises
def patchify_function(func: object) -> Verdict:
    """Exercise 01.4: ``func(images, p)`` must equal ``nn.Unfold(p, stride=p)`` (reshape and permute only)."""
    gen = torch.Generator().manual_seed(0)
    cases = []
    for shape, p in (((1, 1, 60, 100), 20), ((2, 3, 8, 12), 4), ((1, 2, 6, 6), 3), ((1, 1, 4, 4), 1)):
        images = torch.randn(shape, generator=gen)
        expected = torch.nn.functional.unfold(images, kernel_size=p, stride=p).transpose(
            1, 2
        )  # (B, N, C*p*p)
        cases.append(((images, p), expected))
    return check_function(func, "your patchify", cases, mistakes=MISTAKES)

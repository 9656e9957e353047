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
    """Exercise 01.1: how many tokens does the picture make at twice its resolution (120 x 200), with P = 20?"""
    h, w, p = 2 * H, 2 * W, 20
    rows, cols = h // p, w // p
    own = tokens.count_tokens(H, W, p, p, 0).total  # the picture at its own size
    return int_answer(
        answer,
        tokens.count_tokens(h, w, p, p, 0).total,
        "tokens of the picture at 120 x 200 with P = 20",
        "Revisit 'How many patches?': the count depends on the picture's size and on the patch size, and here "
        "only the picture changes.",
        wrong={
            own: "that is the count of the picture at its own size (or with P doubled too); the patches stay "
            "20 x 20 here, so more of them fit into the larger picture.",
            2 * own: "you doubled the count once, but the picture doubled along both sides.",
            rows: "that is only the number of patch rows; multiply by the patches per row.",
            cols: "that is only the number of patches per row; multiply by the number of rows.",
            rows + cols: "you added the rows and the columns of patches; multiply them.",
            h * w // p: "you divided H x W by P; a patch holds P x P pixels, so divide by P².",
            h * w // (p // 2) ** 2: "you halved the patch size as well; it stays P = 20.",
        },
        pointer="Count how many P-pixel patches fit down the new height and how many across the new width, "
        "then multiply: N = HW / P² with the new H and W.",
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
        "Revisit 'One patch, one token, by hand': its cell goes from a patch number to a patch row and column; "
        "here you go the other way, on a grid with smaller patches.",
        wrong={
            (row // p) * per_row
            + col // p: "one too small: either that is the patch index counted from 0 (patch numbers start "
            "at 1), or you counted the pixel's row and column from 1 (they count from 0, so row 45 is the 46th "
            "row and column 30 the 31st).",
            (col // p) * per_col
            + row // p
            + 1: "you numbered the patches column by column; the order is row "
            "by row (left to right, then the next row).",
            (row // 20) * (W // 20)
            + col // 20
            + 1: "that is the patch for P = 20; the grid of 10 x 10 patches "
            "has more patches per row and more rows.",
            (row // p) * per_col
            + col // p
            + 1: "a row of patches holds W / P patches, not H / P: you used the "
            "height where the width belongs.",
        },
        pointer="The pixel's patch row is its row // P and its patch column its column // P (both from 0). Its "
        "number counts every patch in the full patch rows above it (W / P per row), then the patches to its "
        "left, plus 1 because numbers start at 1.",
    )


@never_raises
def token_position(answer: object) -> Verdict:
    """Exercise 01.3: index in the token (RGB, P = 16) of channel 1, row 2, column 5 of the patch."""
    p, ch, r, c = 16, 1, 2, 5
    return int_answer(
        answer,
        ch * p * p + r * p + c,
        "position of (channel 1, row 2, column 5) in a 16 x 16 RGB token",
        "Revisit the paragraph above the exercise: in what order does nn.Unfold put a patch's channels, rows "
        "and columns into the token?",
        wrong={
            (r * p + c) * 3
            + ch: "that is the order (P, P, C), all channels of one pixel together; nn.Unfold "
            "keeps the channels apart: (C, P, P).",
            ch * p * p
            + c * p
            + r: "you read the patch column by column (a transposed patch); it is read row by row.",
            ch * p * p + r * p + c + 1: "positions in a tensor count from 0.",
            r * p + c: "that is the position within one channel; every value of channel 0 comes first.",
        },
        pointer="Count the values stored before yours: all P² values of each earlier channel, then the full rows "
        "of your channel above your pixel (P values each), then the pixels to its left in its row. Positions "
        "start at 0.",
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
    return check_function(
        func,
        "your patchify",
        cases,
        mistakes=MISTAKES,
        nudge="Revisit 'All fifteen tokens': the tokens come patch row by patch row, and each token holds its "
        "patch in the order (C, P, P).",
        pointer="Split each side into (patches, pixels in a patch) with one reshape to (B, C, H/P, P, W/P, P), "
        "permute so that the two patch-grid axes come first and (C, P, P) last, then flatten to (B, N, C·P·P).",
    )

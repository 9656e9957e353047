"""Exercise checkers for notebook 01 patch tokenization.

Each right answer is computed by the package code the notebook shows; each ``wrong`` entry or ``Mistake`` is a
typical wrong answer, recognised and named.
"""

from __future__ import annotations

import torch

from .. import tokens
from ._core import (
    Mistake,
    Verdict,
    check_function,
    choice_answer,
    int_answer,
    known_mistakes,
    never_raises,
    reread,
    say,
)

__all__ = [
    "count_growth",
    "patch_number",
    "patchify_function",
    "reusable_part",
]


H, W = 60, 100  # the course picture


@never_raises
def reusable_part(answer: object) -> Verdict:
    """Exercise 01.1 (a): a ViT that learned its weights on 60 x 100 pictures with P = 20 is used at 120 x 200 with
    P kept: which learned part can it keep as it is, the projection E or the position table?"""
    return choice_answer(
        answer,
        "E",
        "the learned part that the larger picture leaves as it is",
        ["E", "position table", "both", "neither"],
        nudge="Ask, for each part, what its shape depends on, and whether that changes here.",
        pointer=reread("How many patches?"),
        wrong={
            "position table": "the table holds a vector per token position; you kept it as if the number of "
            "positions stayed the same.",
            "both": "you kept both, as if nothing that a part's shape rests on had changed.",
            "neither": "you changed both, as if everything that a part's shape rests on had changed.",
        },
    )


@never_raises
def count_growth(answer: object) -> Verdict:
    """Exercise 01.1 (b): both sides of the picture doubled, P = 20 kept: by what factor does the number of tokens
    grow?"""
    p = 20
    own, grown = tokens.count_tokens(H, W, p, p, 0).total, tokens.count_tokens(2 * H, 2 * W, p, p, 0).total
    factor = grown // own
    what = "the factor the number of tokens grows by"
    with_prediction = (grown + 1) / (
        own + 1
    )  # the whole table, with the prediction token's row (notebook 06)
    if (
        isinstance(answer, int | float)
        and not isinstance(answer, bool)
        and abs(answer - with_prediction) < 0.01
    ):
        return say(
            False,
            f"{what}: {answer:g} is not it: you counted a row for a prediction token; the question asks about "
            "the patches' tokens only.",
        )
    return int_answer(
        answer,
        factor,
        what,
        nudge="The count depends on the picture's size and on the patch size, and here only the picture changes.",
        wrong={
            1: "with the patches kept, more of them fit into the larger picture, so the number of tokens grows.",
            2: "you doubled the count once, as if only one side of the picture had grown.",
            grown: "that is a number of tokens; the question asks for the factor the number grows by.",
        },
        pointer=reread("How many patches?"),
    )


def _patch_holding(row: int, col: int, patch_h: int, patch_w: int) -> int:
    """The number (from 0, row by row) of the ``patch_h x patch_w`` patch of the picture that holds pixel
    (row, col): ``nn.Unfold`` cuts a picture whose every value is its own place, and the patch holding that
    value is found (no formula of the exercise's)."""
    places = torch.arange(H * W, dtype=torch.float64).reshape(1, 1, H, W)  # value = row * W + col
    patches = torch.nn.functional.unfold(places, (patch_h, patch_w), stride=(patch_h, patch_w))[
        0
    ]  # (ph*pw, N)
    holding = (patches == row * W + col).any(dim=0).nonzero().flatten()  # the one patch holding the pixel
    return int(holding[0])


@never_raises
def patch_number(answer: object) -> Verdict:
    """Exercise 01.2 (find the bug in ``patch_of_rect``): which patch of 10 rows x 20 columns (numbered from 0,
    row by row) really holds pixel (45, 30)?"""
    ph, pw, row, col = 10, 20, 45, 30
    expected = _patch_holding(row, col, ph, pw)
    per_col = H // ph  # patches in a column of patches
    candidates = (
        (
            expected + 1,
            "you numbered the patches from 1; the course counts them from 0, as Python indexes, so the top-left "
            "patch is patch 0.",
        ),
        (
            _patch_holding(row, col, pw, ph),
            "that is the patch for patches of 20 rows x 10 columns: you swapped the patch's height and width.",
        ),
        (
            _patch_holding(row, col, 10, 10),
            "that is the patch for square 10 x 10 patches; here a patch is 20 columns wide, so a row of patches "
            "holds fewer of them.",
        ),
        (
            _patch_holding(row, col, 20, 20),
            "that is the patch for square 20 x 20 patches (the grid drawn above).",
        ),
        (
            (col // pw) * per_col + row // ph,
            "you numbered the patches column by column; the order is row by row (left to right, then the next "
            "row).",
        ),
        (
            (row // ph) * per_col + col // pw,
            "you counted the patches in a column of patches, where a row of patches is meant: the height where "
            "the width belongs.",
        ),
        (
            (row // ph) * (W // ph) + col // pw,
            "that is what patch_of_rect returns: the bug is still in it. Find the line that uses the wrong side "
            "of the patch.",
        ),
    )
    return int_answer(
        answer,
        expected,
        "patch of 10 rows x 20 columns holding pixel (45, 30)",
        nudge="When patches are not square, a patch's height and its width play different parts in the numbering.",
        wrong=known_mistakes(candidates, expected),
        pointer=reread("One patch, one token"),
    )


def _patch_order(images: torch.Tensor, p: int, order: tuple[int, ...]) -> torch.Tensor:
    """Patches with the axes of ``(B, C, rows, p, cols, p)`` permuted to ``order``, then flattened to tokens."""
    b, c, h, w = images.shape
    x = images.reshape(b, c, h // p, p, w // p, p).permute(*order)
    return x.reshape(b, (h // p) * (w // p), c * p * p)


MISTAKES = [
    Mistake(
        lambda x, p: _patch_order(x, p, (0, 4, 2, 1, 3, 5)),
        "the patches come out column by column; the tokens go row by row.",
    ),
    Mistake(
        lambda x, p: _patch_order(x, p, (0, 2, 4, 3, 5, 1)),
        "inside each token the pixels are in (P, P, C) order (channel last); nn.Unfold's order is (C, P, P): "
        "all of channel 0, then channel 1, ...",
    ),
    Mistake(
        lambda x, p: _patch_order(x, p, (0, 2, 4, 1, 5, 3)),
        "each patch is transposed: its pixels are read column by column, where nn.Unfold reads them row by row.",
    ),
    Mistake(
        lambda x, p: x.reshape(x.shape[0], -1, x.shape[1] * p * p),
        "a reshape alone cuts the image into runs of consecutive pixels, not into square patches.",
    ),
]


@never_raises
def patchify_function(func: object) -> Verdict:
    """Exercise 01.3: ``func(images, p)`` must equal ``nn.Unfold(p, stride=p)`` (reshape and permute only)."""
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
        forbidden=("patchify", "unfold", "Unfold", "PatchTokenizer", "pixel_unshuffle", "im2col"),
        forbidden_objects=(
            tokens.patchify,
            torch.nn.functional.unfold,
            torch.nn.Unfold,
            torch.nn.functional.pixel_unshuffle,
        ),
        write_with="reshape and permute",
        nudge="The tokens come patch row by patch row, and each token holds its patch channel by channel.",
        pointer=reread("All patches at once: reshape and permute"),
    )

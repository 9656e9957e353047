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
        nudge="The idea is what each learned part's shape depends on: the size of one patch, or the number of "
        "patches.",
        pointer=reread("How many patches?"),
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
    )  # the whole table, with the prediction token's row (notebook 03)
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
            2: "that is how much each side of the picture grows; look again at how the number of tokens "
            "depends on the sides.",
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
def patch_number(func: object) -> Verdict:
    """Exercise 01.2 (find the bug in ``patch_of_rect``): ``func(row, col, patch_h, patch_w)`` must give the number
    (from 0, row by row) of the ``patch_h x patch_w`` patch of the 60 x 100 picture that holds pixel (row, col)."""
    cases = []
    for ph, pw in ((10, 20), (20, 10), (30, 25), (6, 50), (20, 20)):
        for row, col in ((45, 30), (0, 99), (59, 0), (37, 61)):
            cases.append(((row, col, ph, pw), _patch_holding(row, col, ph, pw)))
    mistakes = [
        Mistake(
            lambda r, c, ph, pw: (r // ph) * (W // ph) + c // pw,
            "this is patch_of_rect as it was: the bug is still in it.",
        ),
        Mistake(
            lambda r, c, ph, pw: (r // ph) * (W // pw) + c // pw + 1,
            "the patches are numbered from 1; the course counts them from 0, as Python indexes.",
        ),
        Mistake(
            lambda r, c, ph, pw: (c // pw) * (H // ph) + r // ph,
            "the patches are numbered column by column; the order is row by row.",
        ),
        Mistake(
            lambda r, c, ph, pw: (r // pw) * (W // ph) + c // ph,
            "the patch's height and width are swapped throughout.",
        ),
        Mistake(
            lambda r, c, ph, pw: (r // ph) * (H // ph) + c // pw,
            "a row of patches is counted with the picture's height, where its width belongs.",
        ),
    ]
    return check_function(
        func,
        "your fixed_patch_of_rect",
        cases,
        normalise=lambda x: int(x) if isinstance(x, int | float) and not isinstance(x, bool) else x,
        mistakes=mistakes,
        nudge="When patches are not square, a patch's height and its width play different parts in the numbering.",
        pointer=reread("One patch, one token"),
        forbidden=("unfold", "Unfold"),
        forbidden_objects=(torch.nn.functional.unfold, torch.nn.Unfold),
        write_with="integer arithmetic",
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

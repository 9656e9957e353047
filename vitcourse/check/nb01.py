"""Exercise checkers for notebook 01 patch tokenization.

Each right answer is computed by the package code the notebook shows; each ``wrong`` entry or ``Mistake`` is a
typical wrong answer, recognised and named.
"""

from __future__ import annotations

import numbers

import torch

from .. import tokens
from ._core import (
    Mistake,
    Verdict,
    check_function,
    choice_answer,
    describe,
    int_answer,
    known_mistakes,
    never_raises,
    reread,
    right,
    say,
    unexplained,
)

__all__ = [
    "count_growth",
    "failing_case",
    "grown_token_length",
    "patch_number",
    "patchify_function",
    "reusable_part",
    "pixels_right",
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
        nudge="The idea is the shapes of the two learned parts, set out just before the exercise.",
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
            2: "that is how much each side of the picture grows, not the number of tokens.",
            grown: "that is a number of tokens; the question asks for the factor the number grows by.",
        },
        pointer=reread("How many patches?"),
    )


@never_raises
def grown_token_length(answer: object) -> Verdict:
    """Exercise 01.1 (c): the 120 x 200 pictures cut into patches of P = 40 instead (the number of tokens kept):
    how long is each token?"""
    p, c = 40, 1
    length = tokens.patchify(torch.zeros(1, c, 2 * H, 2 * W), p).shape[-1]  # (1, N, C*P*P)
    small = tokens.patchify(torch.zeros(1, c, H, W), 20).shape  # (1, N, C*P*P) at P = 20
    return int_answer(
        answer,
        length,
        "the length of a token with P = 40",
        nudge="The idea is what one token holds.",
        wrong=known_mistakes(
            [
                (
                    small[-1],
                    "that is the length with P = 20; a larger patch puts more pixels into each token.",
                ),
                (2 * small[-1], "a token's length grows with the patch's area, not with its side."),
                (p, "that is the patch's side; a token holds every pixel of its patch."),
                (small[1], "that is the number of tokens; the question asks for the length of one."),
            ],
            length,
        ),
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
        nudge="The idea is how patch_of numbers the patches row by row, now for patches whose height and width "
        "differ.",
        pointer=reread("One patch, one token"),
        forbidden=("unfold", "Unfold"),
        forbidden_objects=(torch.nn.functional.unfold, torch.nn.Unfold),
        write_with="integer arithmetic",
        show_args=False,  # a failing case is the answer to (a): the verdict must not print one
    )


def _as_rect_patch_of(row: int, col: int, patch_h: int, patch_w: int) -> int:
    """``patch_of_rect`` as notebook 01 gives it, bug and all."""
    return (row // patch_h) * (W // patch_h) + col // patch_w


@never_raises
def failing_case(answer: object) -> Verdict:
    """Exercise 01.2 (a): ``(row, col, patch_h, patch_w)``, a pixel of the 60 x 100 picture and a patch shape on
    which the notebook's ``patch_of_rect`` gives a wrong patch number."""
    what = "a case where patch_of_rect fails"
    if answer is None:
        return say(
            False, f"{what}: the answer is still None; replace None with (row, col, patch_h, patch_w)."
        )
    if (
        not isinstance(answer, tuple | list)
        or len(answer) != 4
        or not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in answer)
    ):
        return say(
            False,
            f"{what}: expected four whole numbers (row, col, patch_h, patch_w), got {describe(answer)}.",
        )
    row, col, ph, pw = (int(v) for v in answer)
    case = f"({row}, {col}, {ph}, {pw}) is not it:"
    if not (1 <= ph <= H and 1 <= pw <= W):
        return say(
            False, f"{what}: {case} a patch must fit in the picture: 1 to {H} rows and 1 to {W} columns."
        )
    if not (0 <= row < (H // ph) * ph and 0 <= col < (W // pw) * pw):
        return say(
            False,
            f"{what}: {case} the pixel lies outside the picture or outside every whole patch of that shape.",
        )
    if _as_rect_patch_of(row, col, ph, pw) != _patch_holding(row, col, ph, pw):
        return right(what)
    # A square patch or a pixel in the top row of patches: the same plain ✗ for both, since naming either
    # condition would hand over the recipe for a failing case and the reason that (b) asks for.
    return unexplained(
        what,
        "patch_of_rect gets this case right.",
        nudge="Work out by hand which patch holds the pixel, and compare it with what patch_of_rect returns.",
        pointer=reread("One patch, one token"),
    )


@never_raises
def pixels_right(answer: object) -> Verdict:
    """Exercise 01.2 (b): with patches of 10 rows x 20 columns, for how many of the picture's 6,000 pixels does
    ``patch_of_rect`` give the right patch number? (Those of the top row of patches, where ``row // patch_h`` is
    0, so the wrong count of patches per row is multiplied by 0.)"""
    ph, pw = 10, 20
    places = torch.arange(H * W, dtype=torch.float64).reshape(1, 1, H, W)  # value = row * W + col
    patches = torch.nn.functional.unfold(places, (ph, pw), stride=(ph, pw))[0].long()  # (ph*pw, N)
    number = torch.empty(H * W, dtype=torch.long)
    number[patches] = torch.arange(patches.shape[1]).expand_as(patches)  # pixel -> the patch that holds it
    pixels_ok = sum(
        _as_rect_patch_of(r, c, ph, pw) == int(number[r * W + c]) for r in range(H) for c in range(W)
    )
    return int_answer(
        answer,
        pixels_ok,
        "the pixels where patch_of_rect is right",
        nudge="The idea is which part of patch_of_rect's formula the bug sits in, and when that part counts.",
        wrong=known_mistakes(
            [
                (H * W, "patch_of_rect is wrong for some of these pixels: the patches are not square here."),
                (H * W - pixels_ok, "that counts the pixels where patch_of_rect is wrong."),
                (ph * pw, "that is the number of pixels in one patch."),
            ],
            pixels_ok,
        ),
        pointer=reread("One patch, one token"),
    )


def _tokens_reordered(images: torch.Tensor, p: int, wrong: str) -> torch.Tensor:
    """``nn.Unfold``'s tokens ``(B, N, C*p*p)`` with one typical slip made afterwards: ``"columns"`` (the tokens in
    column order), ``"channel last"`` (each token in (p, p, C) order) or ``"transposed"`` (each patch transposed)."""
    b, c, h, w = images.shape
    right = torch.nn.functional.unfold(images, kernel_size=p, stride=p).transpose(1, 2)  # (B, N, C*p*p)
    n = right.shape[1]
    if wrong == "columns":
        return right.reshape(b, h // p, w // p, -1).transpose(1, 2).reshape(b, n, -1)
    per_patch = right.reshape(b, n, c, p, p)
    if wrong == "channel last":
        return per_patch.permute(0, 1, 3, 4, 2).reshape(b, n, -1)
    return per_patch.transpose(3, 4).reshape(b, n, -1)


MISTAKES = [
    Mistake(
        lambda x, p: _tokens_reordered(x, p, "columns"),
        "the patches come out column by column; the tokens go row by row.",
    ),
    Mistake(
        lambda x, p: _tokens_reordered(x, p, "channel last"),
        "inside each token the pixels are in (P, P, C) order (channel last); nn.Unfold's order is (C, P, P): "
        "all of channel 0, then channel 1, ...",
    ),
    Mistake(
        lambda x, p: _tokens_reordered(x, p, "transposed"),
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

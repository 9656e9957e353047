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
    "patch_number",
    "patchify_function",
    "reusable_part",
    "token_position",
    "vit_pytorch_position",
]


H, W = 60, 100  # the course picture


@never_raises
def reusable_part(answer: object) -> Verdict:
    """Exercise 01.1 (a): a model trained on the 60 x 100 picture with P = 20 is fine-tuned at 120 x 200 with P
    kept: which learned part can it keep unchanged, the projection E or the position table?"""
    return choice_answer(
        answer,
        "E",
        "the learned part that the larger picture leaves unchanged",
        ["E", "position table", "both", "neither"],
        nudge="Ask, for each part, what its shape depends on, and whether that changes here.",
        pointer=reread("How many patches?"),
        wrong={
            "position table": "count the table's rows before and after: one per token position.",
            "both": "one of the two parts has a row per token; does the number of tokens stay the same?",
            "neither": "one of the two parts has a row per entry of a token; does a token's length change?",
        },
    )


@never_raises
def count_growth(answer: object) -> Verdict:
    """Exercise 01.1 (b): both sides of the picture doubled, P = 20 kept: the position table's rows, one per
    token, are multiplied by how much?"""
    p = 20
    own, grown = tokens.count_tokens(H, W, p, p, 0).total, tokens.count_tokens(2 * H, 2 * W, p, p, 0).total
    factor = grown // own
    what = "the factor the number of tokens, the table's rows for the patches, grows by"
    with_prediction = (grown + 1) / (
        own + 1
    )  # the whole table, with the prediction token's row (notebook 05)
    if (
        isinstance(answer, int | float)
        and not isinstance(answer, bool)
        and abs(answer - with_prediction) < 0.01
    ):
        return say(
            False,
            f"{what}: {answer:g} is not it: that is right for the whole table with the prediction token's row; "
            "the question asks about the patches' rows.",
        )
    return int_answer(
        answer,
        factor,
        what,
        nudge="The count depends on the picture's size and on the patch size, and here only the picture changes.",
        wrong={
            1: "with the patches kept, more of them fit into the larger picture, so the number of tokens grows.",
            2: "you doubled the count once, but the picture doubled along both sides.",
            grown: "that is the new number of tokens; the question asks by how much it is multiplied.",
        },
        pointer=reread("How many patches?"),
    )


def _patch_holding(row: int, col: int, patch_h: int, patch_w: int) -> int:
    """The number (from 1, row by row) of the ``patch_h x patch_w`` patch of the picture that holds pixel
    (row, col): ``nn.Unfold`` cuts a picture whose every value is its own place, and the patch holding that
    value is found (no formula of the exercise's)."""
    places = torch.arange(H * W, dtype=torch.float64).reshape(1, 1, H, W)  # value = row * W + col
    patches = torch.nn.functional.unfold(places, (patch_h, patch_w), stride=(patch_h, patch_w))[
        0
    ]  # (ph*pw, N)
    holding = (patches == row * W + col).any(dim=0).nonzero().flatten()  # the one patch holding the pixel
    return int(holding[0]) + 1


@never_raises
def patch_number(answer: object) -> Verdict:
    """Exercise 01.2 (find the bug in ``patch_of_rect``): which patch of 10 rows x 20 columns (numbered from 1,
    row by row) really holds pixel (45, 30)?"""
    ph, pw, row, col = 10, 20, 45, 30
    expected = _patch_holding(row, col, ph, pw)
    per_col = H // ph  # patches in a column of patches
    candidates = (
        (
            expected - 1,
            "one too small: either that is the patch index counted from 0 (patch numbers start at 1), or you "
            "counted the pixel's row and column from 1 (they count from 0, so row 45 is the 46th row and column 30 "
            "the 31st).",
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
            (col // pw) * per_col + row // ph + 1,
            "you numbered the patches column by column; the order is row by row (left to right, then the next "
            "row).",
        ),
        (
            (row // ph) * per_col + col // pw + 1,
            "you counted the patches in a column of patches, where a row of patches is meant: the height where "
            "the width belongs.",
        ),
        (
            (row // ph) * (W // ph) + col // pw + 1,
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


POSITION_NUDGE = "Recall the order in which nn.Unfold stores a patch's channels, rows and columns in a token."


def _triple(answer: object) -> tuple[int, int, int] | None:
    """The answer as three whole numbers (channel, row, column), or None when it is not that."""
    if isinstance(answer, torch.Tensor):
        answer = answer.tolist()
    if not isinstance(answer, tuple | list) or len(answer) != 3:
        return None
    values = []
    for v in answer:
        if isinstance(v, torch.Tensor) and v.numel() == 1:
            v = v.item()
        if isinstance(v, bool) or not isinstance(v, numbers.Real) or v != v or abs(v) == float("inf"):
            return None
        if v != int(v):
            return None
        values.append(int(v))
    return values[0], values[1], values[2]


def _triple_answer(answer: object, what: str) -> tuple[tuple[int, int, int] | None, Verdict | None]:
    """(the answer as (channel, row, column), None), or (None, the ✗ that says why it is not one)."""
    if answer is None:
        return None, say(
            False, f"{what}: the answer is still None; replace None with a tuple (channel, row, column)."
        )
    got = _triple(answer)
    if got is None:
        return None, say(
            False,
            f"{what}: expected a tuple (channel, row, column) of three whole numbers, got {describe(answer)}.",
        )
    return got, None


@never_raises
def token_position(answer: object) -> Verdict:
    """Exercise 01.3: which (channel, row, column) of a 16 x 16 RGB patch sits at position 500 of its token,
    in nn.Unfold's order (C, P, P)?"""
    p, c, position = 16, 3, 500
    what = "channel, row and column at position 500 of a 16 x 16 RGB token"

    got, refusal = _triple_answer(answer, what)
    if refusal is not None:
        return refusal
    channel, rest = divmod(position, p * p)
    expected = (channel, *divmod(rest, p))
    if got == expected:
        return right(what)
    ch, row, col = expected
    pixel, ch_last = divmod(position, c)  # read as (P, P, C): pixel index and channel
    before = divmod(position - 1, p * p)  # the value before it: positions counted from 1
    mistakes = [
        (
            (ch_last, *divmod(pixel, p)),
            "that reads the token in the order (P, P, C), all channels of one pixel together; nn.Unfold keeps "
            "the channels apart: (C, P, P).",
        ),
        (
            (ch, col, row),
            "row and column are swapped: the patch is read row by row, so within a channel the position is "
            "row · P + column.",
        ),
        ((ch + 1, row, col), "channels count from 0 (0 red, 1 green, 2 blue)."),
        ((ch, row + 1, col + 1), "rows and columns count from 0 (row 0 is the top row)."),
        (
            (0, *divmod(position, p)),
            "there is no such row in a 16-pixel patch: the values of the channels stored before this one "
            "were not taken into account.",
        ),
        (
            (before[0], *divmod(before[1], p)),
            "positions in a tensor count from 0; position 500 is the 501st value.",
        ),
    ]
    wrong = known_mistakes(mistakes, expected)
    if got in wrong:
        return say(False, f"{what}: {got} is not it: {wrong[got]}")
    return unexplained(
        what,
        f"{got} is not it.",
        nudge=POSITION_NUDGE,
        pointer=reread("Tokens with several channels"),
    )


VIT_PYTORCH_NUDGE = (
    "Recall the order vit-pytorch's pattern gives a token: which axis of the patch is innermost."
)


@never_raises
def vit_pytorch_position(answer: object) -> Verdict:
    """Exercise 01.3 (b): which (channel, row, column) of a 16 x 16 RGB patch sits at position 500 of a token
    made by vit-pytorch's pattern, in the order (P, P, C)?"""
    p, c, position = 16, 3, 500
    what = "channel, row and column at position 500 of a 16 x 16 RGB token in vit-pytorch's order"

    got, refusal = _triple_answer(answer, what)
    if refusal is not None:
        return refusal
    pixel, channel = divmod(position, c)
    expected = (channel, *divmod(pixel, p))
    if got == expected:
        return right(what)
    ch, row, col = expected
    unfold_channel, rest = divmod(position, p * p)
    before_pixel, before_channel = divmod(position - 1, c)  # positions counted from 1
    mistakes = [
        (
            (unfold_channel, *divmod(rest, p)),
            "you used Unfold's order (C, P, P); vit-pytorch's pattern puts the channels innermost.",
        ),
        (
            (row, col, ch),
            "give the answer as (channel, row, column), as in part (a), even though the token stores the "
            "channel last.",
        ),
        ((ch, col, row), "row and column are swapped: the pixels of the patch run row by row."),
        ((ch + 1, row, col), "channels count from 0 (0 red, 1 green, 2 blue)."),
        ((ch, row + 1, col + 1), "rows and columns count from 0 (row 0 is the top row)."),
        (
            (before_channel, *divmod(before_pixel, p)),
            "positions in a tensor count from 0; position 500 is the 501st value.",
        ),
    ]
    wrong = known_mistakes(mistakes, expected)
    if got in wrong:
        return say(False, f"{what}: {got} is not it: {wrong[got]}")
    return unexplained(
        what,
        f"{got} is not it.",
        nudge=VIT_PYTORCH_NUDGE,
        pointer=reread("Tokens with several channels"),
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
        forbidden=("patchify", "unfold", "Unfold", "PatchTokenizer"),
        forbidden_objects=(tokens.patchify, torch.nn.functional.unfold, torch.nn.Unfold),
        write_with="reshape and permute",
        nudge="The tokens come patch row by patch row, and each token holds its patch channel by channel.",
        pointer=reread("All patches at once: reshape and permute"),
    )

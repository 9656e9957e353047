"""Exercise checkers for notebook 02 soft split.

Right answers come from ``nn.Unfold`` (``F.unfold``) and the package; each ``Mistake`` is a typical wrong
answer, recognised on the same inputs and named.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import torch
import torch.nn.functional as F

from .. import tokens
from ._core import (
    Mistake,
    Verdict,
    check_function,
    describe,
    int_answer,
    never_raises,
    pair,
    reread,
    right,
    say,
    unexplained,
)

__all__ = [
    "pixels_in_two_windows",
    "count_tokens_function",
    "soft_split_function",
    "rebuild_function",
    "t2t_input_sides",
]


H, W = 60, 100  # the course picture


def _per_side_counts(side: int, k: int, s: int, p: int) -> torch.Tensor:
    """How many windows cover each pixel along one side (a 1-D soft split of a row of ones, folded back)."""
    ones = torch.ones(1, 1, 1, side)
    cols = F.unfold(ones, (1, k), stride=(1, s), padding=(0, p))
    return F.fold(cols, (1, side), (1, k), stride=(1, s), padding=(0, p))[0, 0, 0].long()  # (side,)


def _coverage(h: int, w: int, k: int, s: int, p: int) -> torch.Tensor:
    """(h, w): how many soft-split windows cover each pixel (fold of the split of an all-ones image)."""
    ones = torch.ones(1, 1, h, w)
    return F.fold(F.unfold(ones, k, stride=s, padding=p), (h, w), k, stride=s, padding=p)[0, 0].long()


@never_raises
def pixels_in_two_windows(answer: object) -> Verdict:
    """Exercise 02.2: how many pixels of the 60 x 100 picture lie in exactly two windows (k 20, s 10, p 5)?"""
    k, s, p = 20, 10, 5
    cover = _coverage(H, W, k, s, p)
    down, across = _per_side_counts(H, k, s, p), _per_side_counts(W, k, s, p)  # 1s and 2s along each side
    one_r, two_r = int((down == 1).sum()), int((down == 2).sum())
    one_c, two_c = int((across == 1).sum()), int((across == 2).sum())
    no_pad = _coverage(H, W, k, s, 0)
    return int_answer(
        answer,
        int((cover == 2).sum()),
        "pixels in exactly two windows (k = 20, s = 10, p = 5)",
        nudge="This rests on how neighbouring windows overlap, and on where the padding puts the first and the last "
        "window.",
        wrong={
            int((cover == 4).sum()): "that is the number of pixels in four windows, the inner block.",
            int((cover == 1).sum()): "that is the number of pixels covered by exactly one window: the corner "
            "squares.",
            one_r
            * two_c: "that is only the bands along the top and bottom edges; the bands along the left and "
            "right edges lie in two windows as well.",
            two_r
            * one_c: "that is only the bands along the left and right edges; the bands along the top and "
            "bottom edges lie in two windows as well.",
            one_r * W
            + one_c * H
            - one_r * one_c: "you counted the corner squares with the edge bands, but a "
            "corner pixel is reached by one window down and one across, so it lies in one window only.",
            one_r * W
            + one_c * H: "you counted the corner squares with the edge bands, twice; a corner pixel "
            "lies in one window only.",
            int(
                (no_pad == 2).sum()
            ): "that is the count without the padding: the padding shifts every window "
            "up and left by p, which changes where the bands of one window end.",
        },
        pointer=reread("The padded picture and its windows"),
    )


T2T_SPLITS = ((7, 4, 2), (3, 2, 1), (3, 2, 1))  # the T2T module's three soft splits (kernel, stride, padding)
T2T_GRID = 14  # the paper's final grid side (Section 3.3): 224 x 224 -> 14 x 14 tokens
PAPER_SIDE = 224
SIDES_NUDGE = "Every split rounds down, so more than one side gives the same count, at every split."


def _split_side(n: int, k: int, s: int, p: int) -> int:
    """Tokens along one side of length ``n`` (0 where no window fits), as ``vitcourse.tokens.count_tokens``."""
    return tokens.count_tokens(n, n, k, s, p).rows if n + 2 * p >= k else 0


@functools.cache
def _sides_ending_as(grid: int, settings: tuple[tuple[int, int, int], ...], count=_split_side, top=1024):
    """The (smallest, largest) square side below ``top`` that ``settings``, applied one after another with
    ``count(n, k, s, p)`` per side, turn into a ``grid`` x ``grid`` token grid; None if there is none."""
    sides = []
    for side in range(1, top):
        n = side
        for k, s, p in settings:
            n = count(n, k, s, p) if n > 0 else 0
        if n == grid:
            sides.append(side)
    return (min(sides), max(sides)) if sides else None


def _no_padding(n: int, k: int, s: int, p: int) -> int:
    return (n - k) // s + 1 if n >= k else 0


def _rounded_up(n: int, k: int, s: int, p: int) -> int:
    return math.ceil((n + 2 * p - k) / s) + 1 if n + 2 * p >= k else 0


@never_raises
def t2t_input_sides(answer: object) -> Verdict:
    """Exercise 02.5: the smallest and the largest square side that T2T-ViT's three soft splits turn into a
    14 x 14 token grid, as the pair (smallest, largest); the paper's 224 is one of them."""
    what = f"smallest and largest square side that end as {T2T_GRID} x {T2T_GRID}"
    expected = _sides_ending_as(T2T_GRID, T2T_SPLITS)
    if isinstance(answer, int | np.integer) and not isinstance(answer, bool):
        return say(False, f"{what}: give the pair (smallest, largest), not one number.")
    if not isinstance(answer, tuple | list) or len(answer) != 2:
        return say(False, f"{what}: expected a pair (smallest, largest), got {describe(answer)}.")
    got = pair(answer)
    if got == expected:
        return right(what)
    if any(isinstance(v, float) for v in got):
        return say(False, f"{what}: sides are whole numbers of pixels; give two ints.")
    if not all(isinstance(v, int | np.integer) for v in got):
        return say(False, f"{what}: expected a pair of whole numbers, got {describe(answer)}.")
    first_slack = T2T_SPLITS[0][1] - 1  # the first split's rounding alone: stride - 1 more pixels
    paper, first_only = (PAPER_SIDE, PAPER_SIDE), (expected[0], expected[0] + first_slack)
    no_padding = _sides_ending_as(T2T_GRID, T2T_SPLITS, _no_padding)
    rounded_up = _sides_ending_as(T2T_GRID, T2T_SPLITS, _rounded_up)
    backwards = _sides_ending_as(T2T_GRID, T2T_SPLITS[::-1])
    known = {
        (expected[1], expected[0]): "the pair is (smallest, largest): the smaller side comes first.",
        paper: "224 is the paper's side, but not the only one: every split rounds down, so several sides give "
        "the same count at each split.",
        first_only: "you let only the first split's rounding widen the range; the second and third splits round "
        "down too, so each of them accepts more than one grid size.",
        no_padding: "that is the range without the padding: each split pads every side with p zeros at both "
        "ends before its windows slide.",
        rounded_up: "you rounded up; a window that does not fit is not a token, so every split rounds down "
        "(floor).",
        backwards: "you ran the splits in the wrong order: the 7 x 7 split comes first, on the image, and the "
        "two 3 x 3 splits follow on the token grids.",
    }
    if got in known and got != expected:
        return say(False, f"{what}: {got} is not it: {known[got]}")
    if got[0] == got[1]:
        return say(
            False,
            f"{what}: {got} gives one side twice, but every split rounds down, so a whole range of sides ends "
            "as the same grid; the exercise asks for both ends of that range.",
        )
    if got[1] == PAPER_SIDE:
        return say(
            False,
            f"{what}: {got} is not it: 224 is the paper's example, not the largest side; the first split rounds "
            "down, so slightly larger sides still give it the same first grid.",
        )
    return unexplained(what, f"{got} is not it.", nudge=SIDES_NUDGE, pointer=reread("Counting the tokens"))


def _per_side(h: int, w: int, count) -> tuple:
    """``count(side)`` for the height and the width: a (rows, cols) pair."""
    return count(h), count(w)


COUNT_MISTAKES = [
    Mistake(
        lambda h, w, k, o, p: _per_side(h, w, lambda n: (n + 2 * p - k) // o + 1),
        "that is what paper_count gives: the bug is still in it. Try it on a setting where the overlap is not "
        "half the kernel.",
    ),
    Mistake(
        lambda h, w, k, o, p: _per_side(h, w, lambda n: (n + 2 * p - k) // k + 1),
        "you moved the windows by k, as ViT's patches do: that leaves no overlap.",
    ),
    Mistake(
        lambda h, w, k, o, p: _per_side(h, w, lambda n: (n - k) // (k - o) + 1),
        "you forgot the padding.",
    ),
    Mistake(
        lambda h, w, k, o, p: _per_side(h, w, lambda n: (n + 2 * p - k) // (k - o)),
        "you forgot the + 1: the window at start 0 is a token too.",
    ),
    Mistake(
        lambda h, w, k, o, p: _per_side(w, h, lambda n: (n + 2 * p - k) // (k - o) + 1),
        "rows and columns are swapped: rows come from the height h, columns from the width w.",
    ),
    Mistake(
        lambda h, w, k, o, p: _per_side(h, w, lambda n: (n + 2 * p - k) / (k - o) + 1),
        "you used true division (/): a window that does not fit is not a token.",
    ),
    Mistake(
        lambda h, w, k, o, p: _per_side(h, w, lambda n: math.ceil((n + 2 * p - k) / (k - o)) + 1),
        "you rounded up: a window that does not fit in the padded image is not a token.",
    ),
]


@never_raises
def count_tokens_function(func: object) -> Verdict:
    """Exercise 02.1 (find the bug in ``paper_count``): ``func(h, w, k, overlap, p)``, a split given the T2T
    paper's way (overlap, not stride), must return (rows, cols) as ``nn.Unfold`` with stride ``k - overlap``
    makes them."""
    cases = []
    for h, w, k, overlap, p in (
        (6, 9, 3, 1, 2),  # tells every listed mistake apart from the others
        (60, 100, 20, 10, 5),
        (60, 100, 7, 3, 2),  # T2T-ViT's first split: the paper's kernel 7, overlap 3
        (224, 224, 7, 3, 2),  # the same on the paper's input: 56 x 56
        (13, 7, 3, 1, 1),
        (400, 100, 7, 3, 2),
        (224, 224, 16, 0, 0),  # no overlap: ViT-B/16's patches
        (10, 10, 1, 0, 0),
    ):
        stride = k - overlap
        n = F.unfold(torch.zeros(1, 1, h, w), kernel_size=k, stride=stride, padding=p).shape[-1]
        count = tokens.count_tokens(h, w, k, stride, p)
        assert n == count.total  # the package's count is nn.Unfold's
        cases.append(((h, w, k, overlap, p), (count.rows, count.cols)))
    return check_function(
        func,
        "your count_tokens",
        cases,
        normalise=pair,
        mistakes=COUNT_MISTAKES,
        nudge="The paper's overlap and nn.Unfold's stride measure different things.",
        pointer=reread("Counting the tokens"),
    )


def _windows(images: torch.Tensor, k: int, s: int, p: int, order: tuple[int, ...], pad: bool = True):
    """Windows as (B, C, rows, cols, k, k) with axes permuted to ``order``, flattened to (B, N, C*k*k)."""
    x = F.pad(images, (p, p, p, p)) if pad else images
    x = x.unfold(2, k, s).unfold(3, k, s)  # (B, C, rows, cols, k, k)
    b, c, rows, cols = x.shape[:4]
    return x.permute(*order).reshape(b, rows * cols, c * k * k)


SPLIT_MISTAKES = [
    Mistake(
        lambda x, k, s, p: _windows(x, k, s, p, (0, 2, 3, 1, 4, 5), pad=False),
        "you forgot the padding, so the windows at the border do not fit.",
    ),
    Mistake(
        lambda x, k, s, p: _windows(x, k, 1, p, (0, 2, 3, 1, 4, 5)),
        "the windows move one pixel at a time (stride 1) instead of s pixels.",
    ),
    Mistake(
        lambda x, k, s, p: _windows(x, k, s, p, (0, 2, 3, 4, 5, 1)),
        "inside each token the values are in (k, k, C) order, channel last; nn.Unfold's order is (C, k, k).",
    ),
    Mistake(
        lambda x, k, s, p: _windows(x, k, s, p, (0, 2, 3, 1, 5, 4)),
        "each window is transposed: it is read column by column, where nn.Unfold reads it row by row.",
    ),
    Mistake(
        lambda x, k, s, p: _windows(x, k, s, p, (0, 3, 2, 1, 4, 5)),
        "the windows come out column by column; the tokens go row by row.",
    ),
]


@never_raises
def soft_split_function(func: object) -> Verdict:
    """Exercise 02.3: ``func(images, k, s, p)`` built from F.pad and Tensor.unfold must equal ``nn.Unfold``."""
    gen = torch.Generator().manual_seed(2)
    cases = []
    for shape, k, s, p in (
        ((1, 1, 60, 100), 20, 10, 5),
        ((2, 3, 9, 13), 3, 2, 1),
        ((1, 2, 16, 11), 7, 4, 2),
        ((1, 1, 8, 8), 4, 4, 0),
        ((1, 3, 12, 10), 5, 3, 2),
    ):
        images = torch.randn(shape, generator=gen)
        expected = F.unfold(images, kernel_size=k, stride=s, padding=p).transpose(1, 2)  # (B, N, C*k*k)
        cases.append(((images, k, s, p), expected))
    return check_function(
        func,
        "your soft split",
        cases,
        mistakes=SPLIT_MISTAKES,
        nudge="A soft split is zero padding, then windows taken row by row; inside a token the values go channel "
        "by channel.",
        pointer=reread("A soft split by hand"),
    )


REBUILD_MISTAKES = [
    Mistake(
        lambda t, h, w: t.reshape(t.shape[0], t.shape[2], h, w),
        "that is still plain_rebuild's reshape: the bug is in it. It reads the token matrix in the wrong order.",
    ),
    Mistake(
        lambda t, h, w: t.transpose(1, 2).reshape(t.shape[0], t.shape[2], w, h).transpose(2, 3),
        "the tokens are laid column by column; they go row by row.",
    ),
]


@never_raises
def rebuild_function(func: object) -> Verdict:
    """Exercise 02.4 (find the bug in ``plain_rebuild``):
    ``func(tokens, h, w)`` must lay (B, h * w, C) tokens back as a (B, C, h, w) image."""
    gen = torch.Generator().manual_seed(1)
    cases = []
    for b, n_rows, n_cols, c in ((1, 6, 10, 400), (2, 3, 5, 4), (1, 25, 7, 64), (3, 1, 4, 2)):
        t = torch.randn(b, n_rows * n_cols, c, generator=gen)
        cases.append(((t, n_rows, n_cols), tokens.rebuild_image(t, n_rows, n_cols)))
    return check_function(
        func,
        "your rebuild",
        cases,
        mistakes=REBUILD_MISTAKES,
        nudge="Token i becomes one pixel, and its entries become that pixel's channels.",
        pointer=reread("Rebuilding a picture from tokens"),
    )

"""Exercise checkers for notebook 06 tokens-to-token.

Each right answer is computed by package code (``vitcourse.attention.Attention``,
``vitcourse.blocks.TokenTransformer``, ``vitcourse.tokens``, ``vitcourse.models.T2T_STAGES``);
each ``wrong`` entry or ``Mistake`` is a typical wrong answer, recognised and
named. Any other wrong answer gets a nudge (which idea), then a pointer (which section to reread), never the
value or the method.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..models import T2T_STAGES
from ..tokens import count_tokens
from ._core import Verdict, choice_answer, int_answer, never_raises, reread

__all__ = [
    "sqrt_rebuild_36x64",
    "sqrt_rebuild_60x62",
    "sqrt_rebuild_picture",
    "t2t_window_side",
]


Stages = Sequence[tuple[int, int, int]]


def _window_side(stages: Stages) -> int:
    """Pixels across the square one final token's windows cover, away from the edges: each stage's window of
    k cells adds k - 1 steps of the current grid, whose cells lie the product of the earlier strides apart."""
    side, step = 1, 1
    for k, s, _ in stages:
        side += (k - 1) * step
        step *= s
    return side


def _window_side_one_stride(stages: Stages, which: str) -> int:
    """A slip: each later grid's step taken as one stride (the ``"first"`` stage's, or the ``"previous"``
    stage's) instead of the product of all the earlier strides."""
    side = stages[0][0]
    for i in range(1, len(stages)):
        step = stages[0][1] if which == "first" else stages[i - 1][1]
        side += (stages[i][0] - 1) * step
    return side


@never_raises
def t2t_window_side(answer: object) -> Verdict:
    """Exercise 06.3: pixels across the square of the image one final token's windows cover (T2T's three
    soft splits, token transformers left aside, a token away from the edges)."""
    kernels = [k for k, _, _ in T2T_STAGES]
    strides = 1
    for _, s, _ in T2T_STAGES:
        strides *= s
    product = 1
    for k in kernels:
        product *= k
    cells_as_pixels = sum(kernels) - (len(kernels) - 1)  # each later window counted as k pixels
    whole_kernels = (
        _window_side([(k + 1, s, p) for k, s, p in T2T_STAGES]) - 1
    )  # k steps per window, not k - 1
    wrong = {
        product: "you multiplied the kernels: neighbouring windows overlap, so a window of k cells is not k "
        "whole earlier windows side by side.",
        cells_as_pixels: "you counted each later window's cells as single pixels; a cell of a rebuilt grid "
        "stands for a whole earlier window, and neighbouring cells start several pixels apart.",
        _window_side(T2T_STAGES[:-1]): "that is after two soft splits; T2T makes three.",
        kernels[0]: "that is the first soft split's window only; T2T makes three.",
        _window_side_one_stride(T2T_STAGES, "first"): "you took the first stride as the distance between "
        "neighbouring cells of the last rebuilt grid, in pixels; those cells lie further apart than that.",
        _window_side_one_stride(T2T_STAGES, "previous"): "you took the last stride alone as the distance "
        "between neighbouring cells of the last rebuilt grid, in pixels; those cells lie further apart than "
        "that.",
        whole_kernels: "you counted one step too many in each window: count the steps between its cells "
        "again.",
        strides: "that is how far apart neighbouring final tokens start (the product of the strides), not how "
        "wide a square one token's windows cover.",
    }
    return int_answer(
        answer,
        _window_side(T2T_STAGES),
        "pixels across one final token's windows",
        nudge="Each stage's window is made of cells of the grid before it, and neighbouring cells overlap: "
        "they start closer together than they are wide.",
        wrong=wrong,
        pointer=reread("The T2T module, stage by stage"),
    )


SQRT_OPTIONS = ("works", "raises", "scrambles")


SQRT_INPUTS = {"picture": (60, 100), "60x62": (60, 62), "36x64": (36, 64)}  # (height, width), one channel


def sqrt_rebuild_outcome(height: int, width: int) -> str:
    """What the official rebuild, ``reshape(B, C, int(sqrt(N)), int(sqrt(N)))``, does after T2T's first soft
    split of a ``height`` x ``width`` image: "raises" (N is not a square number, so the reshape fails), "scrambles"
    (N is a square but the grid is not: the tokens land in the wrong places) or "works" (the grid is square)."""
    grid = count_tokens(height, width, *T2T_STAGES[0])
    side = math.isqrt(grid.total)
    if side * side != grid.total:
        return "raises"
    return "works" if grid.rows == grid.cols else "scrambles"


_SQRT_NUDGE = (
    "Two things decide it: the grid of tokens the first soft split makes from this input, and what a reshape "
    "needs in order to run."
)


_SQRT_POINTER = reread("The same module on the picture")


_SQRT_WHY = {  # (input, wrong option) -> the mistake it reveals
    ("picture", "works"): "the picture's first grid is not square, so a square reshape cannot put its tokens "
    "back on their own rows and columns.",
    (
        "picture",
        "scrambles",
    ): "you expected the reshape to run. A reshape runs only when the shape it asks for "
    "holds exactly as many entries as the tensor has.",
    ("60x62", "raises"): "you assumed the reshape fails here; count the windows along each side first.",
    ("60x62", "scrambles"): "tokens land in the wrong places only when the grid's rows and columns differ; a "
    "non-square image does not always make such a grid.",
    ("36x64", "raises"): "you assumed the reshape fails here; count the windows along each side, then the "
    "tokens in all, first.",
    ("36x64", "works"): "a square reshape of a grid whose rows and columns differ puts tokens beside tokens "
    "that were not their neighbours.",
}


def _sqrt_check(answer: object, which: str) -> Verdict:
    height, width = SQRT_INPUTS[which]
    return choice_answer(
        answer,
        sqrt_rebuild_outcome(height, width),
        f"the official rebuild after stage 1 on a {height} x {width} input",
        SQRT_OPTIONS,
        nudge=_SQRT_NUDGE,
        pointer=_SQRT_POINTER,
        wrong={option: why for (name, option), why in _SQRT_WHY.items() if name == which},
    )


@never_raises
def sqrt_rebuild_picture(answer: object) -> Verdict:
    """Exercise 06.4 (a): "works", "raises" or "scrambles": the official square-root rebuild on the 60 x 100 picture."""
    return _sqrt_check(answer, "picture")


@never_raises
def sqrt_rebuild_60x62(answer: object) -> Verdict:
    """Exercise 06.4 (b): "works", "raises" or "scrambles": the official square-root rebuild on a 60 x 62 input."""
    return _sqrt_check(answer, "60x62")


@never_raises
def sqrt_rebuild_36x64(answer: object) -> Verdict:
    """Exercise 06.4 (c): "works", "raises" or "scrambles": the official square-root rebuild on a 36 x 64 input."""
    return _sqrt_check(answer, "36x64")

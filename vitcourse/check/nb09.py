"""Exercise checkers for notebook 09, Tokens-to-Token: the module and T2T-ViT.

Each right answer is computed by package code (``vitcourse.attention.Attention``,
``vitcourse.blocks.TokenTransformer``, ``vitcourse.tokens``, ``vitcourse.models.T2T_STAGES``);
each ``wrong`` entry or ``Mistake`` is a typical wrong answer, recognised and
named. Any other wrong answer gets a nudge (which idea), then a pointer (which section to reread), never the
value or the method.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..blocks import TokenTransformer
from ..models import T2T_STAGES
from ..tokens import count_tokens
from ._core import Verdict, choice_answer, describe, int_answer, never_raises, reread, right, say, unexplained

__all__ = [
    "depth_extra_parameters",
    "sqrt_rebuild_36x64",
    "sqrt_rebuild_60x62",
    "sqrt_rebuild_picture",
    "sqrt_rebuild_token_counts",
    "t2t_shared_columns",
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


def _apart(stages: Stages) -> int:
    """Pixels between the starts of neighbouring final tokens' windows: the product of the strides."""
    apart = 1
    for _, s, _ in stages:
        apart *= s
    return apart


@never_raises
def t2t_window_side(answer: object) -> Verdict:
    """Exercise 09.1 (a): how many pixels wide the square is that one final token's windows cover (T2T's three
    soft splits, token transformers left aside, a token away from the edges)."""
    kernels = [k for k, _, _ in T2T_STAGES]
    side = _window_side(T2T_STAGES)
    steps_unscaled = 1 + sum(k - 1 for k in kernels)  # every stage's window taken in pixels of the image
    own_stride, step = 1, 1  # each window scaled by its own stage's stride as well
    for k, s, _ in T2T_STAGES:
        step *= s
        own_stride += (k - 1) * step
    k_steps, step = 0, 1  # k steps per window of k cells
    for k, s, _ in T2T_STAGES:
        k_steps += k * step
        step *= s
    wrong = {
        sum(
            kernels
        ): "you added the kernels as if every window's cells were pixels; a later stage's cells lie "
        "further apart in the image.",
        steps_unscaled: "you added each window's span in cells of its own grid as if those cells were pixels; "
        "a later stage's cells lie further apart in the image.",
        math.prod(
            kernels
        ): "you multiplied the kernels; a window of a later stage does not hold k whole copies "
        "of the earlier windows side by side, they overlap.",
        _apart(T2T_STAGES): "that is how far apart neighbouring final tokens lie, not how wide one token's "
        "square is.",
        own_stride: "you scaled each stage's window by its own stride too; a stage's windows slide over a grid "
        "whose cells lie only the earlier strides apart.",
        k_steps: "you added k steps of the grid for every window of k cells; the window's first cell is already "
        "counted by the windows before it.",
        _window_side(T2T_STAGES[:-1]): "that is after two soft splits; T2T makes three.",
    }
    wrong.pop(side, None)
    return int_answer(
        answer,
        side,
        "the width of one final token's square, in pixels",
        nudge="A window of a later stage holds cells of that stage's grid, not pixels. How far apart in the image "
        "do those cells lie?",
        wrong=wrong,
        pointer=reread("The T2T module, stage by stage"),
    )


@never_raises
def t2t_shared_columns(answer: object) -> Verdict:
    """Exercise 09.1: how many pixel columns the windows of two neighbouring final tokens of one row both cover
    (T2T's three soft splits, token transformers left aside, tokens away from the edges)."""
    side, apart = _window_side(T2T_STAGES), _apart(T2T_STAGES)
    wrong = {
        side: "that is how wide one token's windows reach; the question asks how many of those columns its "
        "neighbour's windows cover too.",
        apart: "that is a distance between the two tokens' squares, not a count of the columns both cover.",
        side + apart: "that is how wide the two tokens' windows reach together, not what they share.",
        0: "the windows of neighbouring final tokens do overlap, as each soft split's windows do.",
        side
        - T2T_STAGES[0][1]: "you took the first stride as the distance between neighbouring final tokens, "
        "in pixels; they lie further apart than that.",
        side - T2T_STAGES[-1][1]: "you took the last stride alone as the distance between neighbouring final "
        "tokens, in pixels; they lie further apart than that.",
        _window_side(T2T_STAGES[:-1])
        - _apart(T2T_STAGES[:-1]): "that is after two soft splits; T2T makes three.",
    }
    return int_answer(
        answer,
        side - apart,
        "the pixel columns two neighbouring final tokens share",
        nudge="Write down which pixel columns each of the two squares covers, then count the columns in both.",
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
    "needs in order to run: the shape it asks for must hold exactly as many entries as the tensor has."
)


_SQRT_POINTER = reread("A rebuild that assumes a square grid")


def _sqrt_check(answer: object, which: str) -> Verdict:
    height, width = SQRT_INPUTS[which]
    return choice_answer(
        answer,
        sqrt_rebuild_outcome(height, width),
        f"the official rebuild after stage 1 on a {height} x {width} input",
        SQRT_OPTIONS,
        nudge=_SQRT_NUDGE,
        pointer=_SQRT_POINTER,
    )


@never_raises
def sqrt_rebuild_picture(answer: object) -> Verdict:
    """Exercise 09.2 (a): "works", "raises" or "scrambles": the official square-root rebuild on the 60 x 100 picture."""
    return _sqrt_check(answer, "picture")


@never_raises
def sqrt_rebuild_60x62(answer: object) -> Verdict:
    """Exercise 09.2 (b): "works", "raises" or "scrambles": the official square-root rebuild on a 60 x 62 input."""
    return _sqrt_check(answer, "60x62")


@never_raises
def sqrt_rebuild_36x64(answer: object) -> Verdict:
    """Exercise 09.2 (c): "works", "raises" or "scrambles": the official square-root rebuild on a 36 x 64 input."""
    return _sqrt_check(answer, "36x64")


def _stage1_tokens(
    height: int, width: int, kernel: int, stride: int, padding: int, rounding=math.floor
) -> int:
    """Tokens of a split of ``height`` x ``width`` with ``rounding`` in the per-side count (floor is right)."""
    rows = rounding((height + 2 * padding - kernel) / stride) + 1
    cols = rounding((width + 2 * padding - kernel) / stride) + 1
    return rows * cols


@never_raises
def sqrt_rebuild_token_counts(answer: object) -> Verdict:
    """Exercise 09.2, the number behind the three outcomes: the tokens stage 1, the soft split (7, 4, 2), makes
    from the 60 x 100 picture, a 60 x 62 image and a 36 x 64 image, as (N_a, N_b, N_c)."""
    what = "the tokens stage 1 makes from each of the three inputs"
    sizes = list(SQRT_INPUTS.values())
    expected = tuple(count_tokens(h, w, *T2T_STAGES[0]).total for h, w in sizes)
    if not isinstance(answer, tuple | list) or len(answer) != len(sizes):
        return say(False, f"{what}: expected three whole numbers (N_a, N_b, N_c), got {describe(answer)}.")
    if not all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in answer):
        return say(False, f"{what}: expected three whole numbers (N_a, N_b, N_c), got {describe(answer)}.")
    got = tuple(int(v) for v in answer)
    if got == expected:
        return right(what)
    k, s, p = T2T_STAGES[0]
    known = {
        tuple(_stage1_tokens(h, w, k, s, 0) for h, w in sizes): "that is without the padding: stage 1 pads "
        "every side with 2 zeros before its windows slide.",
        tuple(_stage1_tokens(h, w, k, s, p, math.ceil) for h, w in sizes): "you rounded up; a window that "
        "does not fit is not a token, so the count per side rounds down.",
        tuple(_stage1_tokens(h, w, k, k, 0) for h, w in sizes): "those are non-overlapping 7 x 7 patches; "
        "stage 1's windows overlap.",
        tuple(_stage1_tokens(h, w, k, s, p) - 1 for h, w in sizes): "count every token, not the last index: "
        "tokens are numbered from 0, so N is one more than the last token's number.",
    }
    known.pop(expected, None)
    if got in known:
        return say(False, f"{what}: {got} is not it: {known[got]}")
    return unexplained(
        what,
        f"{got} is not it.",
        nudge="Count the windows along each side with the soft split's formula, then multiply.",
        pointer=_SQRT_POINTER,
    )


RGB_CHANNELS = 3  # T2T-ViT for ImageNet reads RGB images
DEPTH_CHANNELS = 4  # RGB plus a depth channel


def _first_block_parameters(in_chans: int) -> int:
    """Parameters of T2T's first token transformer on windows of ``in_chans`` channels (the package's)."""
    kernel = T2T_STAGES[0][0]
    block = TokenTransformer(in_chans * kernel * kernel, 64, num_heads=1, mlp_ratio=1.0)
    return sum(p.numel() for p in block.parameters())


@never_raises
def depth_extra_parameters(answer: object) -> Verdict:
    """Exercise 09.3 (predict): how many parameters more T2T's first token transformer holds on 4-channel windows
    (RGB plus depth, tokens of length 196) than on RGB windows (length 147), counted on the package's
    ``TokenTransformer`` (64 channels, one head, no qkv bias, MLP ratio 1)."""
    one, rgb, four = (_first_block_parameters(c) for c in (1, RGB_CHANNELS, DEPTH_CHANNELS))
    kernel = T2T_STAGES[0][0]
    extra = (DEPTH_CHANNELS - RGB_CHANNELS) * kernel * kernel  # entries per token that the depth channel adds
    qkv_only = 3 * 64 * extra
    wrong = {
        -(four - rgb): "the question asks how many *more*: give a positive number.",
        qkv_only: "you counted qkv alone; another layer also reads the incoming token.",
        qkv_only + extra: "a LayerNorm holds two numbers per entry of the token it normalises, a scale and a "
        "shift.",
        64 * extra + 2 * extra: "qkv makes three vectors from each token, q, k and v, each of length 64.",
        qkv_only + 2 * extra + 64 * extra: "you counted proj too; proj reads the attention's output, whose "
        "length does not depend on the input's channels.",
        one: "you added a whole one-channel block for the new channel; only the layers that read the incoming "
        "token grow.",
        four
        - one: "that compares the 4-channel block with a one-channel one; the question compares it with the "
        "RGB block.",
        rgb
        - one: "that is what RGB adds to a one-channel block; the question asks what a fourth channel adds "
        "to RGB.",
        four: "that is the 4-channel block's whole count; the question asks for the difference.",
        rgb: "that is the RGB block's whole count; the question asks for the difference.",
    }
    return int_answer(
        answer,
        four - rgb,
        "how many parameters more the 4-channel first token transformer holds",
        nudge="Only a layer whose size depends on the length of the token coming into the block can change.",
        wrong=wrong,
        pointer=reread("T2T-ViT end to end"),
    )

"""Exercise checkers for notebook 06 tokens-to-token."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .. import tokens
from ..models import T2T_STAGES
from ._core import Mistake, Verdict, check_function, int_answer, never_raises

__all__ = ["t2t_qkv_weight_count", "t2t_picture_tokens", "t2t_smallest_side_function"]

TOKEN_DIM = 64  # T2T's token length inside the module (official code: token_dim=64)


Stages = Sequence[tuple[int, int, int]]


def _undo(
    target: int, stages: Stages, one_stage: Callable[[int, int, int, int], int], backwards: bool = True
) -> int:
    """Undo the soft splits one at a time (last first when ``backwards``) with ``one_stage(t, k, s, p)``."""
    side = target
    for k, s, p in reversed(stages) if backwards else stages:
        side = one_stage(side, k, s, p)
    return side


def _smallest_side(target: int, stages: Stages) -> int:
    """Smallest side n whose chain of soft splits gives ``target`` tokens: undo floor((n + 2p - k) / s) + 1 = t."""
    return _undo(target, stages, lambda t, k, s, p: (t - 1) * s + k - 2 * p)


# Typical wrong ways to undo the soft splits, as functions of (target, stages) -> side: a slip in undoing
# floor((n + 2p - k) / s) + 1 = t, in the order of the stages, or in which side is asked for.
def _no_padding(target: int, stages: Stages) -> int:
    return _undo(target, stages, lambda t, k, s, p: (t - 1) * s + k)


def _no_minus_one(target: int, stages: Stages) -> int:
    return _undo(target, stages, lambda t, k, s, p: t * s + k - 2 * p)


def _first_stage_first(target: int, stages: Stages) -> int:
    return _undo(target, stages, lambda t, k, s, p: (t - 1) * s + k - 2 * p, backwards=False)


def _largest(target: int, stages: Stages) -> int:
    return _smallest_side(target + 1, stages) - 1


def _strides_only(target: int, stages: Stages) -> int:
    return _undo(target, stages, lambda t, k, s, p: t * s)


_SAME_SIDE_SLIP = (
    "t windows need t - 1 strides plus one kernel, so one stage (k, s, p) gives t tokens from at least "
    "(t - 1) * s + k - 2p pixels; with s = 2p (T2T's stages) leaving out the padding and writing t * s give the "
    "same side, so check both."
)
SIDE_MISTAKES = [
    Mistake(
        _no_padding, f"the sides are too large: you left out the padding (or the - 1); {_SAME_SIDE_SLIP}"
    ),
    Mistake(
        _no_minus_one,
        f"the sides are too large: you wrote t * s (or left out the padding); {_SAME_SIDE_SLIP}",
    ),
    Mistake(
        _first_stage_first,
        "undo the stages from the last to the first: the last split's smallest input is the grid the earlier "
        "stages must produce.",
    ),
    Mistake(
        _largest,
        "that is the largest side giving this many tokens (one less than the smallest side giving one more); "
        "the task asks for the smallest.",
    ),
    Mistake(
        _strides_only,
        "multiplying by the strides ignores the kernels and the padding; undo each stage with (t - 1) * s + k - 2p.",
    ),
]


def _t2t_grids(height: int, width: int) -> list[tuple[int, int]]:
    return [(grid.rows, grid.cols) for grid in tokens.stage_grids(height, width, T2T_STAGES)]


def _grids_no_padding(height: int, width: int) -> list[tuple[int, int]]:
    """T2T's grids with the padding left out of the count formula (with 2p = s, the same as leaving out + 1)."""
    out = []
    for k, s, _ in T2T_STAGES:
        height, width = (height - k) // s + 1, (width - k) // s + 1
        out.append((height, width))
    return out


def _grids_from_image(height: int, width: int) -> list[tuple[int, int]]:
    """Every stage's count formula applied to the original image instead of the previous grid."""
    return [((height + 2 * p - k) // s + 1, (width + 2 * p - k) // s + 1) for k, s, p in T2T_STAGES]


def _total(grids: list[tuple[int, int]]) -> int:
    rows, cols = grids[-1]
    return rows * cols


@never_raises
def t2t_qkv_weight_count(answer: object) -> Verdict:
    """Exercise 06.1: weights of the qkv layer of T2T's first token transformer on RGB 224 x 224 images."""
    kernel = T2T_STAGES[0][0]
    dim = 3 * kernel * kernel  # RGB: each 7 x 7 window holds 3 channels
    one_channel = kernel * kernel * TOKEN_DIM * 3
    wrong = {
        one_channel: (
            f"that is {kernel * kernel} x {TOKEN_DIM} x 3, the one-channel count (each token of an RGB image "
            f"holds 3 x {kernel} x {kernel} = {dim} numbers), or {dim} x {TOKEN_DIM}, one of q, k, v only "
            "(one linear layer makes all three)."
        ),
        dim * TOKEN_DIM * 3
        + 3 * TOKEN_DIM: "T2T's qkv layer has no bias (qkv_bias=False); count weights only.",
        dim * TOKEN_DIM * 3
        + TOKEN_DIM**2
        + TOKEN_DIM: "that includes proj (64 x 64 + 64); count the qkv layer only.",
        kernel
        * kernel
        * TOKEN_DIM: "that counts one channel and one of q, k, v; the layer makes q, k and v.",
    }
    return int_answer(
        answer,
        dim * TOKEN_DIM * 3,
        "qkv weights of the first token transformer on RGB 224 x 224",
        "The layer maps tokens of length C x k x k to 3 x token_dim, without bias: weights = dim x chan x 3.",
        wrong=wrong,
    )


@never_raises
def t2t_picture_tokens(answer: object) -> Verdict:
    """Exercise 06.2: tokens out of the T2T module for the 60 x 100 picture (predicted before the cell)."""
    h, w = 60, 100
    grids = _t2t_grids(h, w)
    wrong = {
        _total(_grids_no_padding(h, w)): "the grids are too small: the padding 2p or the + 1 is missing from "
        "floor((side + 2p - k) / s) + 1 (with T2T's stages 2p = s, both slips give the same count).",
        _total(
            _grids_from_image(h, w)
        ): "each stage splits the previous stage's grid, not the 60 x 100 image.",
        _total(grids[:2]): "that is after two soft splits; T2T makes three.",
        _total(grids[:1]): "that is after the first soft split only; T2T makes three.",
        _total(grids) + 1: "the prediction token is added later, by the ViT body, not by the T2T module.",
    }
    return int_answer(
        answer,
        _total(grids),
        "tokens out of the T2T module for the 60 x 100 picture",
        "Apply the count formula three times, (7, 4, 2) then (3, 2, 1) twice, each on the previous grid.",
        wrong=wrong,
    )


@never_raises
def t2t_smallest_side_function(func: object) -> Verdict:
    """Exercise 06.3: ``func(target, stages)`` must return the smallest side giving ``target`` tokens on it."""
    vit = [(16, 16, 0)]
    cases = [
        ((target, stages), _smallest_side(target, stages))
        for target, stages in (
            (14, T2T_STAGES),
            (4, T2T_STAGES),
            (7, T2T_STAGES),
            (14, vit),
            (10, [(3, 2, 1)]),
            (5, [(20, 10, 5)]),
            (3, [(5, 3, 1), (3, 2, 1)]),
        )
    ]
    return check_function(func, "your smallest side", cases, mistakes=SIDE_MISTAKES)

"""Exercise checkers for notebook 06 tokens-to-token."""

from __future__ import annotations

from collections.abc import Callable

from .. import tokens
from ..models import T2T_STAGES
from ._core import Mistake, Verdict, check_function, int_answer, never_raises, pairs

__all__ = ["t2t_qkv_weight_count", "t2t_picture_tokens", "t2t_grids_function"]

TOKEN_DIM = 64  # T2T's token length inside the module (official code: token_dim=64)


def _t2t_grids(height: int, width: int) -> list[tuple[int, int]]:
    return [(grid.rows, grid.cols) for grid in tokens.stage_grids(height, width, T2T_STAGES)]


# Typical wrong ways to walk T2T's grids, as functions of (height, width) -> [(rows, cols), ...]. Each is a
# slip in the token-count formula floor((side + 2p - k) / s) + 1 or in how the stages are chained.
def _walk(side: Callable[[int, int, int, int], int], chain: bool = True) -> Callable[[int, int], list]:
    def grids(height: int, width: int) -> list[tuple[int, int]]:
        out, h, w = [], height, width
        for k, s, p in T2T_STAGES:
            rows, cols = side(h, k, s, p), side(w, k, s, p)
            out.append((rows, cols))
            if chain:
                h, w = rows, cols
        return out

    return grids


_no_padding = _walk(lambda n, k, s, p: (n - k) // s + 1)
_no_plus_one = _walk(lambda n, k, s, p: (n + 2 * p - k) // s)
_original_size = _walk(lambda n, k, s, p: (n + 2 * p - k) // s + 1, chain=False)
_stride_only = _walk(lambda n, k, s, p: n // s)


def _swapped(height: int, width: int) -> list[tuple[int, int]]:
    return [(cols, rows) for rows, cols in _t2t_grids(height, width)]


_SAME_SLIP = (
    "with T2T's stages 2p = s, so forgetting the padding and forgetting the + 1 give the same grid: check "
    "both in floor((side + 2p - k) / s) + 1."
)
GRID_MISTAKES = [
    Mistake(_no_padding, f"the grids are too small: you left out the padding 2p (or the + 1); {_SAME_SLIP}"),
    Mistake(_no_plus_one, f"the grids are too small: you left out the + 1 (or the padding 2p); {_SAME_SLIP}"),
    Mistake(
        _original_size,
        "each stage must split the previous stage's grid (the rebuilt image), not the original image size.",
    ),
    Mistake(
        _swapped, "rows and columns are swapped: rows run down the height h, columns across the width w."
    ),
    Mistake(
        _stride_only,
        "dividing each side by the stride ignores the window and the padding; use floor((side + 2p - k) / s) + 1.",
    ),
]


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
        _total(_no_padding(h, w)): "the grids are too small: the padding 2p or the + 1 is missing from "
        "floor((side + 2p - k) / s) + 1 (with T2T's stages 2p = s, both slips give the same count).",
        _total(_original_size(h, w)): "each stage splits the previous stage's grid, not the 60 x 100 image.",
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
def t2t_grids_function(func: object) -> Verdict:
    """Exercise 06.3: ``func(h, w)`` must list the (rows, cols) token grid after each of T2T's three splits."""
    cases = [((h, w), _t2t_grids(h, w)) for h, w in ((224, 224), (60, 100), (400, 100), (32, 48), (9, 5))]
    return check_function(func, "your T2T grids", cases, normalise=pairs, mistakes=GRID_MISTAKES)

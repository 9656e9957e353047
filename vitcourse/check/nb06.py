"""Exercise checkers for notebook 06 tokens-to-token."""

from __future__ import annotations

from .. import tokens
from ..models import T2T_STAGES
from ._core import Verdict, check_function, int_answer, never_raises, pairs

__all__ = ["t2t_token_count", "t2t_token_length", "t2t_grids_function"]


def _t2t_grids(height: int, width: int) -> list[tuple[int, int]]:
    grids = []
    for k, s, p in T2T_STAGES:
        count = tokens.count_tokens(height, width, k, s, p)
        grids.append((count.rows, count.cols))
        height, width = count.rows, count.cols
    return grids


@never_raises
def t2t_token_count(answer: object) -> Verdict:
    """Exercise 06.1: tokens out of the T2T module for a 224 x 224 image."""
    rows, cols = _t2t_grids(224, 224)[-1]
    return int_answer(
        answer,
        rows * cols,
        "tokens out of the T2T module at 224 x 224",
        "Apply the count formula three times: (7, 4, 2), then (3, 2, 1) twice, each on the previous grid.",
    )


@never_raises
def t2t_token_length(answer: object) -> Verdict:
    """Exercise 06.2: length of the tokens entering the second token transformer (token_dim 64, k = 3)."""
    return int_answer(
        answer,
        64 * 3 * 3,
        "length of the tokens entering attention2",
        "The rebuilt image has token_dim = 64 channels, and each 3 x 3 window takes all of them.",
    )


@never_raises
def t2t_grids_function(func: object) -> Verdict:
    """Exercise 06.3: ``func(h, w)`` must list the (rows, cols) token grid after each of T2T's three splits."""
    cases = [((h, w), _t2t_grids(h, w)) for h, w in ((224, 224), (60, 100), (400, 100), (32, 48), (9, 5))]
    return check_function(func, "your T2T grids", cases, normalise=pairs)

"""Exercise checkers for notebook 02 soft split."""

from __future__ import annotations

import numpy as np
import torch

from .. import tokens
from ._core import Verdict, check_function, describe, never_raises, pair, say

__all__ = ["soft_split_count", "count_tokens_function", "rebuild_function"]


@never_raises
def soft_split_count(answer: object) -> Verdict:
    """Exercise 02.1: (rows, cols) of tokens for kernel 7, stride 4, padding 2 on the 60 x 100 picture."""
    expected = tokens.count_tokens(60, 100, 7, 4, 2)
    what = "tokens for kernel 7, stride 4, padding 2"
    if isinstance(answer, int | np.integer) and not isinstance(answer, bool):
        if answer == expected.total:
            return say(False, f"{what}: {answer} is the total; the exercise asks for the pair (rows, cols).")
        return say(False, f"{what}: give the pair (rows, cols), not one number.")
    if not isinstance(answer, tuple | list) or len(answer) != 2:
        return say(False, f"{what}: expected a pair (rows, cols), got {describe(answer)}.")
    rows, cols = answer
    if (rows, cols) == (expected.cols, expected.rows):
        return say(False, f"{what}: rows and columns are swapped; rows run down the 60-pixel height.")
    for name, got, exp, side in (("rows", rows, expected.rows, 60), ("cols", cols, expected.cols, 100)):
        if got != exp:
            return say(
                False,
                f"{what}: {name} = {got!r} is wrong. Use floor(({side} + 2p - (k - 1) - 1) / s + 1) with "
                f"k=7, s=4, p=2.",
            )
    return say(True, f"{what}: {expected.rows} x {expected.cols} = {expected.total} tokens.")


@never_raises
def count_tokens_function(func: object) -> Verdict:
    """Exercise 02.2: ``func(h, w, k, s, p)`` must return (rows, cols) as nn.Unfold makes them."""
    cases = []
    for h, w, k, s, p in (
        (60, 100, 20, 10, 5),
        (60, 100, 7, 4, 2),
        (224, 224, 16, 16, 0),
        (13, 7, 3, 2, 1),
        (400, 100, 7, 4, 2),
        (5, 9, 5, 3, 0),
        (10, 10, 1, 1, 0),
    ):
        count = tokens.count_tokens(h, w, k, s, p)  # equal to nn.Unfold's count (tests/test_tokens.py)
        cases.append(((h, w, k, s, p), (count.rows, count.cols)))
    return check_function(func, "your count_tokens", cases, normalise=pair)


@never_raises
def rebuild_function(func: object) -> Verdict:
    """Exercise 02.3: ``func(tokens, h, w)`` must lay (B, h * w, C) tokens back as a (B, C, h, w) image."""
    gen = torch.Generator().manual_seed(1)
    cases = []
    for b, n_rows, n_cols, c in ((1, 6, 10, 400), (2, 3, 5, 4), (1, 25, 7, 64), (3, 1, 4, 2)):
        t = torch.rand(b, n_rows * n_cols, c, generator=gen)
        cases.append(((t, n_rows, n_cols), tokens.rebuild_image(t, n_rows, n_cols)))
    return check_function(func, "your rebuild", cases)

"""Exercise checkers for notebook 02 soft split.

Right answers come from ``nn.Unfold`` (``F.unfold``) and the package; each ``Mistake`` is a typical wrong
answer, recognised on the same inputs and named.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F

from .. import tokens
from ._core import Mistake, Verdict, check_function, describe, never_raises, pair, say

__all__ = ["soft_split_count", "count_tokens_function", "soft_split_function", "rebuild_function"]


@never_raises
def soft_split_count(answer: object) -> Verdict:
    """Exercise 02.1: (rows, cols) of tokens for kernel 7, stride 4, padding 2 on the 60 x 100 picture."""
    k, s, p = 7, 4, 2
    expected = tokens.count_tokens(60, 100, k, s, p)
    what = "tokens for kernel 7, stride 4, padding 2"
    if isinstance(answer, int | np.integer) and not isinstance(answer, bool):
        if answer == expected.total:
            return say(False, f"{what}: {answer} is the total; the exercise asks for the pair (rows, cols).")
        return say(False, f"{what}: give the pair (rows, cols), not one number.")
    if not isinstance(answer, tuple | list) or len(answer) != 2:
        return say(False, f"{what}: expected a pair (rows, cols), got {describe(answer)}.")
    got = pair(answer)
    if got == (expected.rows, expected.cols):
        return say(True, f"{what}: {expected.rows} x {expected.cols} = {expected.total} tokens.")
    no_padding = tokens.count_tokens(60, 100, k, s, 0)[:2]
    no_plus_one = tuple((side + 2 * p - k) // s for side in (60, 100))
    rounded_up = tuple(math.ceil((side + 2 * p - k) / s) + 1 for side in (60, 100))
    known = {
        (expected.cols, expected.rows): "rows and columns are swapped; rows run down the 60-pixel height.",
        no_plus_one: "you forgot the + 1: a window at start 0 counts too.",
        # listed second: with T2T's rule 2p = s, so both mistakes give this pair and the hint names both
        tuple(
            no_padding
        ): "that is the count without the padding (here also the count without the + 1, since "
        "2p = s): pad both ends of each side, then count the window starts and add 1.",
        rounded_up: "you rounded up; a window that does not fit is not a token: round down (floor).",
    }
    if got in known:
        return say(False, f"{what}: {got} is not it: {known[got]}")
    if any(isinstance(v, float) for v in got):
        return say(False, f"{what}: token counts are whole numbers; round down (floor) after dividing by s.")
    for name, value, exp, side in (("rows", got[0], expected.rows, 60), ("cols", got[1], expected.cols, 100)):
        if value != exp:
            return say(
                False,
                f"{what}: {name} = {value!r} is wrong. Use floor(({side} + 2p - (k - 1) - 1) / s + 1) with "
                f"k=7, s=4, p=2.",
            )
    return say(False, f"{what}: expected a pair of whole numbers, got {describe(answer)}.")


def _per_side(h: int, w: int, count) -> tuple:
    """``count(side)`` for the height and the width: a (rows, cols) pair."""
    return count(h), count(w)


COUNT_MISTAKES = [
    Mistake(
        lambda h, w, k, o, p: _per_side(h, w, lambda n: (n + 2 * p - k) // o + 1),
        "you used the overlap as the stride; in the paper's convention neighbouring windows share `overlap` "
        "pixels, so a window starts k - overlap pixels after the previous one.",
    ),
    Mistake(
        lambda h, w, k, o, p: _per_side(h, w, lambda n: (n + 2 * p - k) // k + 1),
        "you moved the windows by k (ViT's patches, no overlap); the stride is k - overlap.",
    ),
    Mistake(
        lambda h, w, k, o, p: _per_side(h, w, lambda n: (n - k) // (k - o) + 1),
        "you forgot the padding: each side grows by 2p before the windows slide.",
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
        "you used true division (/): a window that does not fit is not a token, so round down (//).",
    ),
    Mistake(
        lambda h, w, k, o, p: _per_side(h, w, lambda n: math.ceil((n + 2 * p - k) / (k - o)) + 1),
        "you rounded up: a window that does not fit in the padded image is not a token; round down (//).",
    ),
]


@never_raises
def count_tokens_function(func: object) -> Verdict:
    """Exercise 02.2: ``func(h, w, k, overlap, p)``, a split given the T2T paper's way (overlap, not stride),
    must return (rows, cols) as ``nn.Unfold`` with stride ``k - overlap`` makes them."""
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
    return check_function(func, "your count_tokens", cases, normalise=pair, mistakes=COUNT_MISTAKES)


def _windows(images: torch.Tensor, k: int, s: int, p: int, order: tuple[int, ...], pad: bool = True):
    """Windows as (B, C, rows, cols, k, k) with axes permuted to ``order``, flattened to (B, N, C*k*k)."""
    x = F.pad(images, (p, p, p, p)) if pad else images
    x = x.unfold(2, k, s).unfold(3, k, s)  # (B, C, rows, cols, k, k)
    b, c, rows, cols = x.shape[:4]
    return x.permute(*order).reshape(b, rows * cols, c * k * k)


SPLIT_MISTAKES = [
    Mistake(
        lambda x, k, s, p: _windows(x, k, s, p, (0, 2, 3, 1, 4, 5), pad=False),
        "you forgot the padding: F.pad(images, (p, p, p, p)) first, so the border windows fit.",
    ),
    Mistake(
        lambda x, k, s, p: _windows(x, k, 1, p, (0, 2, 3, 1, 4, 5)),
        "the windows move one pixel at a time (stride 1); start them every s pixels.",
    ),
    Mistake(
        lambda x, k, s, p: _windows(x, k, s, p, (0, 2, 3, 4, 5, 1)),
        "inside each token the values are in (k, k, C) order (channel last); nn.Unfold's order is (C, k, k).",
    ),
    Mistake(
        lambda x, k, s, p: _windows(x, k, s, p, (0, 2, 3, 1, 5, 4)),
        "each window is transposed (read column by column); read it row by row.",
    ),
    Mistake(
        lambda x, k, s, p: _windows(x, k, s, p, (0, 3, 2, 1, 4, 5)),
        "the windows come out column by column; the tokens go row by row (all windows of the top row first).",
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
    return check_function(func, "your soft split", cases, mistakes=SPLIT_MISTAKES)


REBUILD_MISTAKES = [
    Mistake(
        lambda t, h, w: t.reshape(t.shape[0], t.shape[2], h, w),
        "a reshape without the transpose lays the tokens out as channels: the (N, C) matrix is read in the "
        "wrong order. Transpose to (B, C, N) first, then reshape.",
    ),
    Mistake(
        lambda t, h, w: t.transpose(1, 2).reshape(t.shape[0], t.shape[2], w, h).transpose(2, 3),
        "the tokens are laid column by column; token i belongs at row i // w, column i % w (row by row).",
    ),
]


@never_raises
def rebuild_function(func: object) -> Verdict:
    """Exercise 02.4: ``func(tokens, h, w)`` must lay (B, h * w, C) tokens back as a (B, C, h, w) image."""
    gen = torch.Generator().manual_seed(1)
    cases = []
    for b, n_rows, n_cols, c in ((1, 6, 10, 400), (2, 3, 5, 4), (1, 25, 7, 64), (3, 1, 4, 2)):
        t = torch.randn(b, n_rows * n_cols, c, generator=gen)
        cases.append(((t, n_rows, n_cols), tokens.rebuild_image(t, n_rows, n_cols)))
    return check_function(func, "your rebuild", cases, mistakes=REBUILD_MISTAKES)

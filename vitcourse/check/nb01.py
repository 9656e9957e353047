"""Exercise checkers for notebook 01 patch tokenization."""

from __future__ import annotations

import torch

from .. import tokens
from ._core import Verdict, check_function, int_answer, never_raises

__all__ = ["patch_count", "token_length", "patch_number", "patchify_function"]


@never_raises
def patch_count(answer: object) -> Verdict:
    """Exercise 01.1: how many 10 x 10 patches does the 60 x 100 picture make?"""
    return int_answer(
        answer,
        tokens.count_tokens(60, 100, 10, 10, 0).total,
        "patches of 10 x 10",
        "Count the patches down (60 / 10) and across (100 / 10), then multiply.",
    )


@never_raises
def token_length(answer: object) -> Verdict:
    """Exercise 01.2: the length of one flattened 16 x 16 patch of a 3-channel image."""
    return int_answer(
        answer,
        3 * 16 * 16,
        "token length for 16 x 16 patches of an RGB image",
        "A token holds every pixel of its patch in every channel: C x P x P.",
    )


@never_raises
def patch_number(answer: object) -> Verdict:
    """Exercise 01.3: which patch (numbered from 1, row by row, P = 20) holds pixel (row 45, column 30)?"""
    expected = (45 // 20) * (100 // 20) + 30 // 20 + 1
    return int_answer(
        answer,
        expected,
        "patch holding pixel (45, 30)",
        "Find the patch row (45 // 20) and column (30 // 20); there are 5 patches per row; numbering starts at 1.",
    )


@never_raises
def patchify_function(func: object) -> Verdict:
    """Exercise 01.4: ``func(images, p)`` must equal ``vitcourse.tokens.patchify`` (reshape and permute only)."""
    gen = torch.Generator().manual_seed(0)
    cases = []
    for shape, p in (((1, 1, 60, 100), 20), ((2, 3, 8, 12), 4), ((1, 2, 6, 6), 3), ((1, 1, 4, 4), 1)):
        images = torch.rand(shape, generator=gen)
        cases.append(((images, p), tokens.patchify(images, p)))
    return check_function(func, "your patchify", cases)

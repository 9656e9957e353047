"""Exercise checkers for notebook 04 attention."""

from __future__ import annotations

import torch

from ._core import Verdict, check_function, int_answer, never_raises, shape_answer

__all__ = ["scores_shape", "qkv_weight_count", "attention_function"]


@never_raises
def scores_shape(answer: object) -> Verdict:
    """Exercise 04.1: shape of Q K^T with 4 heads, batch 13, 100 tokens, 64 channels."""
    return shape_answer(
        answer,
        (13, 4, 100, 100),
        "shape of Q K^T with 4 heads",
        "Each head compares every token with every token: (batch, heads, tokens, tokens).",
    )


@never_raises
def qkv_weight_count(answer: object) -> Verdict:
    """Exercise 04.2: weights in a bias-free qkv layer from tokens of length 49 to 64 channels."""
    return int_answer(
        answer,
        49 * 64 * 3,
        "weights of the qkv layer (49 -> 3 x 64, no bias)",
        "One linear map makes q, k and v at once: dim x chan x 3.",
    )


@never_raises
def attention_function(func: object) -> Verdict:
    """Exercise 04.3: ``func(q, k, v)`` must equal ``F.scaled_dot_product_attention(q, k, v)``."""
    gen = torch.Generator().manual_seed(2)
    cases = []
    for shape in ((2, 1, 10, 64), (1, 4, 7, 16), (3, 2, 5, 3)):
        q, k, v = (torch.randn(shape, generator=gen) for _ in range(3))
        cases.append(((q, k, v), torch.nn.functional.scaled_dot_product_attention(q, k, v)))
    return check_function(func, "your attention", cases)

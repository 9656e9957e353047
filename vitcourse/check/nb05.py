"""Exercise checkers for notebook 05 vision transformer."""

from __future__ import annotations

import torch

from .. import tokens
from ..blocks import EncoderBlock
from ._core import Verdict, check_function, int_answer, never_raises

__all__ = ["vit_token_count", "block_parameter_count", "prepend_function"]


@never_raises
def vit_token_count(answer: object) -> Verdict:
    """Exercise 05.1: tokens entering ViT-Base's encoder for a 224 x 224 image, 16 x 16 patches."""
    return int_answer(
        answer,
        tokens.count_tokens(224, 224, 16, 16, 0).total + 1,
        "tokens entering the encoder",
        "Count the patches (224 / 16 per side), then remember the prediction token.",
    )


@never_raises
def block_parameter_count(answer: object) -> Verdict:
    """Exercise 05.2: parameters of one ViT-Base encoder block (D = 768, MLP 3072, qkv bias)."""
    with torch.device("meta"):
        expected = sum(p.numel() for p in EncoderBlock(768, 12).parameters())
    return int_answer(
        answer,
        expected,
        "parameters of one ViT-Base block",
        "Add two LayerNorms (2 x 768 each), qkv (768 x 2304 + 2304), proj (768 x 768 + 768), "
        "fc1 (768 x 3072 + 3072) and fc2 (3072 x 768 + 768).",
    )


@never_raises
def prepend_function(func: object) -> Verdict:
    """Exercise 05.3: ``func(tokens, cls_token)`` must prepend a (1, 1, D) token to every item of (B, N, D)."""
    gen = torch.Generator().manual_seed(5)
    cases = []
    for b, n, d in ((13, 175, 768), (1, 15, 64), (4, 3, 2)):
        toks, cls = torch.randn(b, n, d, generator=gen), torch.randn(1, 1, d, generator=gen)
        cases.append(((toks, cls), torch.cat([cls.expand(b, -1, -1), toks], dim=1)))
    return check_function(func, "your prepend", cases)

"""Exercise checkers for notebook 05 vision transformer."""

from __future__ import annotations

import torch
from torch import nn

from .. import tokens
from ..blocks import EncoderBlock
from ._core import Mistake, Verdict, check_function, int_answer, never_raises, random_cases, say

__all__ = [
    "vit_token_count",
    "block_parameter_count",
    "prepend_function",
    "post_norm_block_function",
    "mean_pool_function",
    "block_macs",
]


#: Exercise 05 asks for ViT-B/16 fine-tuned at 384 x 384: the patch size stays 16, so the grid grows to 24 x 24.
TOKENS_SIDE, TOKENS_PATCH = 384, 16


@never_raises
def vit_token_count(answer: object) -> Verdict:
    """Exercise 05: tokens entering ViT-B/16's first block when it is fine-tuned on 384 x 384 images."""
    side, patch = TOKENS_SIDE, TOKENS_PATCH
    patches = tokens.count_tokens(side, side, patch, patch, 0).total
    pretrain = tokens.count_tokens(224, 224, patch, patch, 0).total
    return int_answer(
        answer,
        patches + 1,
        "tokens entering the encoder at 384 x 384",
        f"Count the patches ({side} / {patch} per side, squared), then remember the prediction token.",
        wrong={
            patches: "that counts the patches only; the prediction token is prepended to them.",
            pretrain
            + 1: "that is the count at the pre-training size, 224 x 224; the image is 384 x 384 now, "
            "and the patch size stays 16, so the grid of patches grows.",
            pretrain: "that is the patch count at 224 x 224; at 384 x 384 the grid of patches grows "
            "(and the prediction token comes on top).",
            side // patch + 1: f"that is one row of patches (plus one); the patches form a "
            f"{side // patch} x {side // patch} grid.",
            (side // patch) ** 2 * 3
            + 1: "the channels are not extra tokens: each token holds all 3 channels.",
        },
    )


@never_raises
def block_parameter_count(answer: object) -> Verdict:
    """Exercise 05: parameters of one ViT-Base encoder block (D = 768, MLP 3072, qkv bias)."""
    d = 768
    with torch.device("meta"):
        expected = sum(p.numel() for p in EncoderBlock(d, 12).parameters())
    return int_answer(
        answer,
        expected,
        "parameters of one ViT-Base block",
        "Add two LayerNorms (2 x 768 each), qkv (768 x 2304 + 2304), proj (768 x 768 + 768), "
        "fc1 (768 x 3072 + 3072) and fc2 (3072 x 768 + 768).",
        wrong={
            12 * d * d: "that counts the weight matrices only; add the biases and the two LayerNorms.",
            expected - 4 * d: "the two LayerNorms are missing: each has a weight and a bias of length D.",
            expected - 3 * d: "the qkv bias is missing: ViT's qkv layer has one (3 x 768 numbers).",
            expected - 5 * d * d - 5 * d: "the MLP is missing (fc1: 768 -> 3072, fc2: 3072 -> 768).",
        },
    )


def _prepend(toks: torch.Tensor, cls: torch.Tensor) -> torch.Tensor:
    return torch.cat([cls.expand(toks.shape[0], -1, -1), toks], dim=1)  # (B, N + 1, D)


PREPEND_MISTAKES = [
    Mistake(
        lambda t, c: torch.cat([t, c.expand(t.shape[0], -1, -1)], dim=1),
        "the prediction token is appended (at the end) instead of prepended: it must be token 0, "
        "the one the head reads.",
    ),
    Mistake(
        lambda t, c: t + c,
        "the token was added to every patch token (broadcast) instead of put in front as a token of its own.",
    ),
]


@never_raises
def prepend_function(func: object) -> Verdict:
    """Exercise 05: ``func(tokens, cls_token)`` must prepend a (1, 1, D) token to every item of (B, N, D)."""
    cases = random_cases(
        5, [((b, n, d), (1, 1, d)) for b, n, d in ((13, 175, 768), (1, 15, 64), (4, 3, 2))], _prepend
    )
    if callable(func):  # not expanded: fine for a batch of 1, an error for any other batch
        toks, cls = cases[2][0]
        try:
            with torch.no_grad():
                func(toks, cls)
        except Exception:
            try:
                with torch.no_grad():
                    same = torch.equal(func(toks, cls.expand(4, -1, -1)), _prepend(toks, cls))
            except Exception:
                same = False
            if same:
                return say(
                    False,
                    "your prepend works only when the token is given per item: the (1, 1, D) cls token is not "
                    "expanded over the batch. Use cls_token.expand(B, -1, -1) before concatenating.",
                )
    return check_function(func, "your prepend", cases, mistakes=PREPEND_MISTAKES)


def _pre_norm(block: nn.Module, x: torch.Tensor) -> torch.Tensor:
    x = x + block.attn(block.norm1(x))  # (B, N, D)
    return x + block.mlp(block.norm2(x))  # (B, N, D)


def _post_norm(block: nn.Module, x: torch.Tensor) -> torch.Tensor:
    x = block.norm1(x + block.attn(x))  # (B, N, D)
    return block.norm2(x + block.mlp(x))  # (B, N, D)


BLOCK_MISTAKES = [
    Mistake(
        _pre_norm,
        "this is ViT's pre-norm, x + f(LN(x)); the exercise asks for post-norm: add first, then normalise the "
        "sum, LN(x + f(x)).",
    ),
    Mistake(
        lambda b, x: b.norm2(b.mlp(b.norm1(b.attn(x)))),
        "both residual connections are missing: add each part's input to its output before the norm.",
    ),
    Mistake(
        lambda b, x: (lambda y: b.norm2(y + b.mlp(y)))(b.norm1(b.attn(x))),
        "the first residual is missing: add the block's input x to the attention's output, then norm1.",
    ),
    Mistake(
        lambda b, x: (lambda y: b.norm2(b.mlp(y)))(b.norm1(x + b.attn(x))),
        "the second residual is missing: add the MLP's input to its output, then norm2.",
    ),
    Mistake(
        lambda b, x: (lambda y: y + b.norm2(b.mlp(y)))(x + b.norm1(b.attn(x))),
        "the norms act on each part's output only, x + LN(f(x)); post-norm normalises the sum: LN(x + f(x)).",
    ),
    Mistake(
        lambda b, x: (lambda y: b.norm2(y + b.mlp(y)))(x + b.attn(x)),
        "norm1 is missing: post-norm normalises after each residual, after the attention too.",
    ),
    Mistake(
        lambda b, x: (lambda y: b.norm1(y + b.mlp(y)))(b.norm2(x + b.attn(x))),
        "norm1 and norm2 are swapped: norm1 follows the attention's residual, norm2 the MLP's.",
    ),
    Mistake(
        lambda b, x: (lambda y: b.norm2(y + b.attn(y)))(b.norm1(x + b.mlp(x))),
        "the MLP runs before the attention: attention comes first, then the MLP.",
    ),
]


def _random_block(dim: int, heads: int, gen: torch.Generator) -> EncoderBlock:
    """An encoder block whose LayerNorms are not the identity, so every wrong order gives other numbers."""
    block = EncoderBlock(dim, heads).eval()
    with torch.no_grad():
        for p in block.parameters():
            p.copy_(torch.randn(p.shape, generator=gen) * (0.3 if p.ndim > 1 else 0.5))
        for norm in (block.norm1, block.norm2):
            norm.weight.add_(1.0)
    return block


@never_raises
def post_norm_block_function(func: object) -> Verdict:
    """Exercise 05: ``func(block, x)`` must be the post-norm forward pass, ``LN(x + f(x))`` for each part."""
    gen = torch.Generator().manual_seed(7)
    cases = []
    for b, n, d, heads in ((2, 5, 16, 4), (1, 16, 24, 3), (3, 4, 8, 2)):
        block = _random_block(d, heads, gen)
        x = torch.randn(b, n, d, generator=gen)
        with torch.no_grad():
            cases.append(((block, x), _post_norm(block, x)))
    return check_function(func, "your post-norm block", cases, mistakes=BLOCK_MISTAKES)


POOL_MISTAKES = [
    Mistake(
        lambda f: f.mean(dim=1),
        "the mean includes the prediction token (token 0): average the patch tokens only, features[:, 1:].",
    ),
    Mistake(
        lambda f: f[:, 0],
        "that is the prediction token itself; the exercise asks for the mean of the others.",
    ),
    Mistake(
        lambda f: f[:, 1:].mean(dim=0),
        "the mean runs over the batch (dim 0): each image must keep its own vector; average over the tokens.",
    ),
    Mistake(
        lambda f: f[:, 1:].mean(dim=-1),
        "the mean runs over the token length D (the last dim); average over the tokens (dim 1) instead.",
    ),
    Mistake(
        lambda f: f[:, 1:].sum(dim=1),
        "that is the sum of the patch tokens; divide by their number to get the mean.",
    ),
]


@never_raises
def mean_pool_function(func: object) -> Verdict:
    """Exercise 05: ``func(features)`` must average the patch tokens of (B, N + 1, D): result (B, D)."""
    cases = random_cases(9, [((2, 16, 8),), ((3, 5, 12),), ((1, 197, 32),)], lambda f: f[:, 1:].mean(dim=1))
    return check_function(func, "your mean pooling", cases, mistakes=POOL_MISTAKES)


def block_macs_formula(n: int, d: int, mlp_ratio: float = 4.0) -> int:
    """Multiply-adds of one encoder block on N tokens of length D: ``(4 + 2 r) N D^2 + 2 N^2 D``.

    qkv ``3 N D^2``, scores ``N^2 D``, weights times values ``N^2 D``, proj ``N D^2``, MLP ``2 r N D^2``.
    """
    return int(round((4 + 2 * mlp_ratio) * n * d * d)) + 2 * n * n * d


#: Exercise 05 asks for one DeiT-S block (timm's vit_small_patch16_224) at 224 x 224: 196 patches + the
#: prediction token, D = 384.
MACS_N, MACS_D = 197, 384


@never_raises
def block_macs(answer: object) -> Verdict:
    """Exercise 05: multiply-adds of one encoder block with N = 197 tokens of length D = 384 (MLP ratio 4)."""
    n, d = MACS_N, MACS_D
    expected = block_macs_formula(n, d)
    one_product = 12 * n * d * d + n * n * d
    return int_answer(
        answer,
        expected,
        f"multiply-adds of one block at N = {n}, D = {d}",
        "Add qkv (3 N D^2), Q K^T (N^2 D), weights x V (N^2 D), proj (N D^2) and the MLP (8 N D^2).",
        wrong={
            12 * n * d * d: "the two N^2 D terms of attention are missing (Q K^T and weights x V).",
            4 * n * d * d + 2 * n * n * d: "the MLP is missing: fc1 and fc2 together cost 8 N D^2.",
            2 * expected: "that counts FLOPs (a multiply and an add each); a multiply-add counts once.",
            block_macs_formula(n - 1, d): "N is 197 here: 196 patches plus the prediction token.",
            one_product: "only one of the two N^2 D products is counted: Q K^T and weights x V.",
        },
    )

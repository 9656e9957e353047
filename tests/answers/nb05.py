"""Right answers for the checkers of notebook 05; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

import torch

from vitcourse import check

D, N = 768, 197  # ViT-Base's token length; the DeiT-S block of the MACs exercise has N = 197, D = 384
S = 384

VALUE_CHECKS = {
    check.vit_token_count: 577,  # ViT-B/16 fine-tuned at 384 x 384: 24 x 24 patches + 1
    check.block_parameter_count: 7_087_872,
    check.block_macs: 12 * N * S * S + 2 * N * N * S,
}


def _post_norm(b, x):
    x = b.norm1(x + b.attn(x))
    return b.norm2(x + b.mlp(x))


def _pre_norm(b, x):
    x = x + b.attn(b.norm1(x))
    return x + b.mlp(b.norm2(x))


FUNCTION_CHECKS = {
    check.prepend_function: lambda t, c: torch.cat([c.expand(t.shape[0], -1, -1), t], dim=1),
    check.post_norm_block_function: _post_norm,
    check.mean_pool_function: lambda f: f[:, 1:].mean(dim=1),
}
MISTAKES = [
    (check.vit_token_count, 576, "prediction token"),
    (check.vit_token_count, 197, "pre-training size"),
    (check.vit_token_count, 196, "grid of patches grows"),
    (check.vit_token_count, 25, "grid"),
    (check.vit_token_count, 24 * 24 * 3 + 1, "channels"),
    (check.block_parameter_count, 12 * D * D, "biases"),
    (check.block_parameter_count, 7_087_872 - 4 * D, "LayerNorms"),
    (check.block_parameter_count, 7_087_872 - 3 * D, "qkv bias"),
    (check.prepend_function, lambda t, c: torch.cat([t, c.expand(t.shape[0], -1, -1)], dim=1), "appended"),
    (check.prepend_function, lambda t, c: torch.cat([c, t], dim=1), "not expanded over the batch"),
    (check.prepend_function, lambda t, c: t + c, "broadcast"),
    (check.post_norm_block_function, _pre_norm, "pre-norm"),
    (check.post_norm_block_function, lambda b, x: b.norm2(b.mlp(b.norm1(b.attn(x)))), "both residual"),
    (
        check.post_norm_block_function,
        lambda b, x: (lambda y: b.norm2(y + b.mlp(y)))(b.norm1(b.attn(x))),
        "first residual is missing",
    ),
    (
        check.post_norm_block_function,
        lambda b, x: (lambda y: b.norm2(b.mlp(y)))(b.norm1(x + b.attn(x))),
        "second residual is missing",
    ),
    (
        check.post_norm_block_function,
        lambda b, x: (lambda y: y + b.norm2(b.mlp(y)))(x + b.norm1(b.attn(x))),
        "output only",
    ),
    (
        check.post_norm_block_function,
        lambda b, x: (lambda y: b.norm2(y + b.mlp(y)))(x + b.attn(x)),
        "norm1 is missing",
    ),
    (
        check.post_norm_block_function,
        lambda b, x: (lambda y: b.norm1(y + b.mlp(y)))(b.norm2(x + b.attn(x))),
        "swapped",
    ),
    (
        check.post_norm_block_function,
        lambda b, x: (lambda y: b.norm2(y + b.attn(y)))(b.norm1(x + b.mlp(x))),
        "MLP runs before the attention",
    ),
    (check.mean_pool_function, lambda f: f.mean(dim=1), "includes the prediction token"),
    (check.mean_pool_function, lambda f: f[:, 1:].mean(dim=0), "over the batch"),
    (check.mean_pool_function, lambda f: f[:, 1:].mean(dim=-1), "token length D"),
    (check.mean_pool_function, lambda f: f[:, 0], "prediction token itself"),
    (check.mean_pool_function, lambda f: f[:, 1:].sum(dim=1), "sum"),
    (check.block_macs, 12 * N * S * S, "N^2 D"),
    (check.block_macs, 4 * N * S * S + 2 * N * N * S, "MLP is missing"),
    (check.block_macs, 2 * (12 * N * S * S + 2 * N * N * S), "FLOPs"),
    (check.block_macs, 12 * (N - 1) * S * S + 2 * (N - 1) ** 2 * S, "prediction token"),
]

"""Right answers for the checkers of notebook 05; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

import torch

from vitcourse import check

D, N = 768, 197  # ViT-Base's token length; the ViT-S/16 block of the MACs exercise has N = 197, D = 384
S = 384

VALUE_CHECKS = {
    check.vit_token_count: 197,
    check.block_parameter_count: 7_087_872,
    check.block_macs: 12 * N * S * S + 2 * N * N * S,
}


def _block(b, x):
    x = x + b.attn(b.norm1(x))
    return x + b.mlp(b.norm2(x))


FUNCTION_CHECKS = {
    check.prepend_function: lambda t, c: torch.cat([c.expand(t.shape[0], -1, -1), t], dim=1),
    check.block_forward_function: _block,
    check.mean_pool_function: lambda f: f[:, 1:].mean(dim=1),
}
MISTAKES = [
    (check.vit_token_count, 196, "prediction token"),
    (check.vit_token_count, 15, "grid"),
    (check.block_parameter_count, 12 * D * D, "biases"),
    (check.block_parameter_count, 7_087_872 - 4 * D, "LayerNorms"),
    (check.block_parameter_count, 7_087_872 - 3 * D, "qkv bias"),
    (check.prepend_function, lambda t, c: torch.cat([t, c.expand(t.shape[0], -1, -1)], dim=1), "appended"),
    (check.prepend_function, lambda t, c: torch.cat([c, t], dim=1), "not expanded over the batch"),
    (check.prepend_function, lambda t, c: t + c, "broadcast"),
    (check.block_forward_function, lambda b, x: b.mlp(b.norm2(b.attn(b.norm1(x)))), "both residual"),
    (
        check.block_forward_function,
        lambda b, x: (lambda y: y + b.mlp(b.norm2(y)))(b.attn(b.norm1(x))),
        "first residual is missing",
    ),
    (
        check.block_forward_function,
        lambda b, x: (lambda y: b.mlp(b.norm2(y)))(x + b.attn(b.norm1(x))),
        "second residual is missing",
    ),
    (
        check.block_forward_function,
        lambda b, x: (lambda y: b.norm2(y + b.mlp(y)))(b.norm1(x + b.attn(x))),
        "post-norm",
    ),
    (
        check.block_forward_function,
        lambda b, x: (lambda y: y + b.attn(b.norm2(y)))(x + b.mlp(b.norm1(x))),
        "swapped",
    ),
    (
        check.block_forward_function,
        lambda b, x: (lambda y: y + b.attn(b.norm1(y)))(x + b.mlp(b.norm2(x))),
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

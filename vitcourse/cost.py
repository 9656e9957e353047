"""Where the compute goes: multiply-adds counted during a real forward pass.

:func:`count_macs` runs a model once with forward hooks and adds up

* every ``nn.Linear``: ``tokens x in_features x out_features`` multiply-adds,
* every :class:`~vitcourse.attention.Attention`'s two matrix products, ``Q K^T`` and ``weights @ V``:
  ``2 x batch x heads x N x N x head_dim``,

grouped by module name up to a chosen depth (for T2T-ViT: ``tokens_to_token.attention1``, ``blocks.0``, ...).
Normalisations, activations and the softmax are left out: they cost a few operations per entry, not per
weight, and do not change where the bulk of the cost lies.
"""

from __future__ import annotations

from collections import defaultdict

import torch
from torch import nn

from ._validate import dense_tensor, instance_of, positive_int
from .attention import Attention

__all__ = ["count_macs"]


def count_macs(model: nn.Module, images: torch.Tensor, depth: int = 2) -> dict[str, int]:
    """Multiply-adds of one forward pass of ``model`` on ``images``, per module group.

    Args:
        model: any module built from ``nn.Linear`` and :class:`Attention` (the course's models).
        images: the input batch, e.g. (B, C, H, W).
        depth: how many dotted parts of a module name form a group (``"blocks.3.attn.qkv"`` at depth 2 is
            ``"blocks.3"``).

    Returns:
        Ordered ``{group: multiply-adds}`` in the order the groups first ran; the sum is the total.
    """
    instance_of("model", model, nn.Module, "a torch.nn.Module")
    instance_of("images", images, torch.Tensor, "a torch.Tensor, the model's input batch")
    dense_tensor("images", images, shapes_only=True)  # meta: for a model on the meta device, which counts too
    positive_int("depth", depth)
    totals: dict[str, int] = defaultdict(int)
    handles = []

    def group(name: str) -> str:
        return ".".join(name.split(".")[:depth]) or "(model)"

    for name, module in model.named_modules():
        if isinstance(module, nn.Linear):

            def linear_hook(
                mod: nn.Linear, inputs: tuple, output: torch.Tensor, key: str = group(name)
            ) -> None:
                rows = output.numel() // mod.out_features  # tokens x batch
                totals[key] += rows * mod.in_features * mod.out_features

            handles.append(module.register_forward_hook(linear_hook))
        elif isinstance(module, Attention):

            def attention_hook(
                mod: Attention, inputs: tuple, output: torch.Tensor, key: str = group(name)
            ) -> None:
                batch, n = inputs[0].shape[:2]
                totals[key] += 2 * batch * mod.num_heads * n * n * mod.head_dim

            handles.append(module.register_forward_hook(attention_hook))
    try:
        with torch.no_grad():
            model(images)
    finally:
        for handle in handles:
            handle.remove()
    return dict(totals)

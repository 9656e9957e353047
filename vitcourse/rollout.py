"""Attention rollout: where the prediction token's information comes from, followed through every block.

One block's attention weights say how each token mixes the tokens of the block's input. Through several
blocks the mixing compounds, and the residual connections carry each token's own value past every attention
layer. Attention rollout (Abnar & Zuidema, 2020, "Quantifying Attention Flow in Transformers"; used by the ViT
paper, Dosovitskiy et al., 2021, for its attention maps) models both: in each block the heads' weights are
fused into one matrix A (their mean by default), the residual is added as the identity,
``residual * I + (1 - residual) * A`` with its rows renormalised to sum to 1, and the blocks' matrices are
multiplied from the first block to the last::

    R = M_L @ ... @ M_2 @ M_1            (B, N, N); row i: how much of each input token ends up in token i

Every row of R sums to 1. The prediction token's row, over the patches, is the usual rollout map.

* :func:`attention_rollout`: the product above, from a list of per-block weights.
* :func:`rollout_for_model`: runs a :class:`~vitcourse.models.VisionTransformer` and returns the prediction
  token's rollout row laid out on the patch grid.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from ._validate import check_image, choice, finite_float, instance_of, real_tensor, tensor_of_rank

__all__ = ["HEAD_FUSIONS", "attention_rollout", "rollout_for_model"]

#: How the heads of one block are fused into one matrix: their mean, or their elementwise max or min.
HEAD_FUSIONS = ("mean", "max", "min")


def _residual(residual: object) -> float:
    """``residual`` as a float if it is a finite number in [0, 1], else an error naming it."""
    value = finite_float("residual", residual, 0)
    if value > 1:
        raise ValueError(f"residual must be a finite number in [0, 1], got {value:g}")
    return value


def _fuse(name: str, w: torch.Tensor, head_fusion: str) -> torch.Tensor:
    """(B, heads, N, N) -> (B, N, N), after checking that the weights are finite and not negative."""
    if not torch.isfinite(w).all():
        raise ValueError(f"{name} holds NaN or infinite values")
    if (w < 0).any():
        raise ValueError(f"{name} holds negative values; attention weights (a softmax's output) are >= 0")
    if head_fusion == "mean":
        return w.mean(1)
    return w.amax(1) if head_fusion == "max" else w.amin(1)


def attention_rollout(
    weights: Sequence[torch.Tensor], residual: float = 0.5, head_fusion: str = "mean"
) -> torch.Tensor:
    """Attention rollout (Abnar & Zuidema, 2020) over the blocks' attention weights.

    For each block, in order: the heads are fused (``head_fusion``), the identity is mixed in,
    ``M = residual * I + (1 - residual) * A``, and M's rows are rescaled to sum to 1 (the fused max or min of
    softmax rows need not sum to 1); then ``R = M_L @ ... @ M_1``.

    Args:
        weights: one tensor per block, first block first, each (B, heads, N, N) with rows as queries and
            columns as keys (what :meth:`~vitcourse.attention.Attention.steps` returns as ``weights``); all of
            one B and N. Real floats, finite, not negative.
        residual: the weight of the identity, the residual connection's share, in [0, 1]: 0 follows the
            attention alone, 1 gives the identity (default 0.5, as Abnar & Zuidema).
        head_fusion: "mean" (default), "max" or "min" over the heads.

    Returns:
        (B, N, N) in the weights' floating dtype (at least float32), on their device: row i is token i's share
        of each input token after the last block; every row sums to 1.
    """
    if isinstance(weights, torch.Tensor) or not isinstance(weights, Sequence):
        raise TypeError(
            f"weights must be a list of tensors (B, heads, N, N), one per block, got {type(weights).__name__}"
        )
    if len(weights) == 0:
        raise ValueError("weights must hold at least one block's attention weights, got an empty list")
    residual = _residual(residual)
    choice("head_fusion", head_fusion, HEAD_FUSIONS)
    first = None
    rollout = None
    for index, w in enumerate(weights):
        name = f"weights[{index}]"
        tensor_of_rank(name, w, 4, "(B, heads, N, N)")
        real_tensor(name, w)
        if w.shape[-1] != w.shape[-2]:
            raise ValueError(
                f"{name} must be (B, heads, N, N) with square N x N maps, got shape {tuple(w.shape)}"
            )
        if first is None:
            first = w
        elif (w.shape[0], w.shape[-1], w.device) != (first.shape[0], first.shape[-1], first.device):
            raise ValueError(
                f"{name} has shape {tuple(w.shape)} on {w.device}, but weights[0] has shape "
                f"{tuple(first.shape)} on {first.device}; every block needs the same B and N, on one device"
            )
        dtype = torch.promote_types(w.dtype, torch.float32)
        fused = _fuse(name, w.detach().to(dtype), head_fusion)  # (B, N, N)
        eye = torch.eye(fused.shape[-1], dtype=dtype, device=fused.device)
        mixed = residual * eye + (1 - residual) * fused  # (B, N, N)
        sums = mixed.sum(-1, keepdim=True)  # (B, N, 1)
        if (sums <= 0).any():
            raise ValueError(
                f"{name} has a query row of zeros after fusing the heads with {head_fusion!r}; with residual=0 "
                f"it cannot be rescaled to sum to 1 (use residual > 0)"
            )
        mixed = mixed / sums
        # (B, N, N): each later block multiplies from the left
        rollout = mixed if rollout is None else mixed @ rollout.to(mixed.dtype)
    return rollout


@torch.no_grad()
def rollout_for_model(
    model: nn.Module, images: torch.Tensor, residual: float = 0.5, head_fusion: str = "mean"
) -> torch.Tensor:
    """The prediction token's attention rollout over the patch grid, for a :class:`~vitcourse.models.VisionTransformer`.

    The model runs its ordinary forward pass on ``images``; a forward hook on each block's attention module
    recomputes that block's weights from the module's input with the step-by-step path
    (:meth:`~vitcourse.attention.Attention.steps`), which the fused path does not store. The model is not
    changed (its mode, fused setting and weights stay as they are; the hooks are removed afterwards).

    Args:
        model: a :class:`~vitcourse.models.VisionTransformer` (any depth).
        images: (B, C, H, W) of the size the model was built for, on the model's device.
        residual: the identity's weight in each block, in [0, 1] (see :func:`attention_rollout`).
        head_fusion: "mean", "max" or "min" over the heads.

    Returns:
        (B, rows, cols) float: the prediction token's row of the rollout without its own column, laid out on the
        patch grid. With the prediction token's own share (column 0), each row of the full rollout sums to 1,
        so these maps sum to 1 minus that share.
    """
    from .models import VisionTransformer  # here: models does not need this module

    instance_of("model", model, VisionTransformer, "a vitcourse VisionTransformer")
    choice("head_fusion", head_fusion, HEAD_FUSIONS)
    _residual(residual)
    tokenizer = model.tokenizer
    check_image(images, tokenizer.in_chans, tokenizer.img_size, like=tokenizer.proj.weight)
    collected: list[torch.Tensor] = []

    def keep(module: nn.Module, args: tuple[torch.Tensor, ...], output: torch.Tensor) -> None:
        collected.append(module.steps(args[0])[1].weights)  # (B, heads, N + 1, N + 1)

    handles = [blk.attn.register_forward_hook(keep) for blk in model.blocks]
    try:
        model.forward_features(images)
    finally:
        for handle in handles:
            handle.remove()
    full = attention_rollout(collected, residual, head_fusion)  # (B, N + 1, N + 1)
    rows, cols = tokenizer.grid.rows, tokenizer.grid.cols
    return full[:, 0, 1:].reshape(-1, rows, cols)

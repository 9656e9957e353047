"""The blocks a transformer is stacked from: the MLP, the pre-norm encoder block and T2T's token transformer.

* :class:`Mlp`: ``fc1 -> GELU -> fc2``, hidden width usually 4 x the token length (ViT) or 1 x (T2T's tokens).
* :class:`EncoderBlock`: ``x + attn(norm1(x))`` then ``x + mlp(norm2(x))``; the shape (B, N, D) is unchanged.
* :class:`TokenTransformer`: the same, but its attention changes the token length from ``dim`` to ``chan``,
  so its first residual goes through ``v`` (``v_skip=True``): ``(B, N, dim) -> (B, N, chan)``.
"""

from __future__ import annotations

import torch
from torch import nn

from ._validate import allocatable, check_tokens, finite_float, flag, positive_int
from .attention import Attention

__all__ = ["Mlp", "EncoderBlock", "TokenTransformer"]


def _hidden_width(width: int, mlp_ratio: object) -> int:
    """The MLP's hidden width ``int(width * mlp_ratio)``, or an error naming ``mlp_ratio`` when it is not >= 1."""
    ratio = finite_float("mlp_ratio", mlp_ratio, 0, above=True)
    hidden = int(width * ratio)
    if hidden < 1:
        raise ValueError(
            f"mlp_ratio={ratio:g} gives the MLP a hidden width of int({width} * {ratio:g}) = {hidden}; "
            f"use mlp_ratio >= {1 / width:.3g} so that it has at least one unit"
        )
    return hidden


def _norm_eps(eps: object) -> float:
    """LayerNorm's epsilon: a finite number > 0 (0 divides by zero on a constant token, NaN poisons every output)."""
    return finite_float("eps", eps, 0, above=True)


class Mlp(nn.Module):
    """Two linear layers with a GELU between: ``(B, N, in_features) -> (B, N, out_features)``.

    Args:
        in_features: token length in.
        hidden_features: width of the hidden layer.
        out_features: token length out (default: ``in_features``).
    """

    def __init__(self, in_features: int, hidden_features: int, out_features: int | None = None) -> None:
        super().__init__()
        self.in_features = positive_int("in_features", in_features)
        positive_int("hidden_features", hidden_features)
        out_features = in_features if out_features is None else positive_int("out_features", out_features)
        allocatable(
            "Mlp's parameters",
            self.parameter_count(in_features, hidden_features, out_features),
            in_features=in_features,
            hidden_features=hidden_features,
            out_features=out_features,
        )
        self.fc1 = nn.Linear(in_features, hidden_features)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden_features, out_features)

    @staticmethod
    def parameter_count(in_features: int, hidden_features: int, out_features: int) -> int:
        """The parameters an MLP with these settings holds (``fc1`` and ``fc2``), without building it."""
        return (in_features + 1) * hidden_features + (hidden_features + 1) * out_features

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = check_tokens("x", x, self.in_features, "in_features", like=self.fc1.weight)  # (B, N, in_features)
        return self.fc2(self.act(self.fc1(x)))


class EncoderBlock(nn.Module):
    """A pre-norm transformer encoder block: ``(B, N, D) -> (B, N, D)``.

    Args:
        dim: token length D.
        num_heads: attention heads; must divide D.
        mlp_ratio: hidden width of the MLP as a multiple of D (4 in ViT).
        qkv_bias: bias on the qkv projection (timm's ViT: True; T2T-ViT: False).
        eps: LayerNorm epsilon (timm's ViT: 1e-6; T2T-ViT: 1e-5).
    """

    def __init__(
        self, dim: int, num_heads: int, mlp_ratio: float = 4.0, qkv_bias: bool = True, eps: float = 1e-6
    ) -> None:
        super().__init__()
        self.dim = positive_int("dim", dim)  # every setting is checked before any weight is made
        hidden = _hidden_width(dim, mlp_ratio)
        eps = _norm_eps(eps)
        flag("qkv_bias", qkv_bias)
        positive_int("num_heads", num_heads)
        allocatable(
            "EncoderBlock's parameters",
            self.parameter_count(dim, mlp_ratio, qkv_bias),
            dim=dim,
            mlp_ratio=mlp_ratio,
        )
        self.norm1 = nn.LayerNorm(dim, eps=eps)  # registered in timm's order: norm1, attn, norm2, mlp
        self.attn = Attention(dim, dim, num_heads=num_heads, qkv_bias=qkv_bias)
        self.norm2 = nn.LayerNorm(dim, eps=eps)
        self.mlp = Mlp(dim, hidden)

    @staticmethod
    def parameter_count(dim: int, mlp_ratio: float = 4.0, qkv_bias: bool = True) -> int:
        """The parameters a block with these settings holds, without building it (the settings must be valid)."""
        norms = 4 * dim  # two LayerNorms, a scale and a shift each
        return (
            norms
            + Attention.parameter_count(dim, dim, qkv_bias)
            + Mlp.parameter_count(dim, _hidden_width(dim, mlp_ratio), dim)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = check_tokens("x", x, self.dim, like=self.norm1.weight)  # (B, N, D)
        x = x + self.attn(self.norm1(x))  # (B, N, D)
        return x + self.mlp(self.norm2(x))  # (B, N, D)


class TokenTransformer(nn.Module):
    """T2T's token transformer: an encoder block whose attention changes the token length.

    ``norm1`` acts on the input length ``dim``; attention maps it to ``chan`` with the skip through ``v``; the
    MLP (hidden ``chan * mlp_ratio``) keeps ``chan``: ``(B, N, dim) -> (B, N, chan)``.

    Args:
        dim: token length in (e.g. 49 = 1 x 7 x 7 after T2T's first soft split of a one-channel image).
        chan: token length out (T2T's ``token_dim``, 64).
        num_heads: attention heads (1 in T2T).
        mlp_ratio: MLP width as a multiple of ``chan`` (1 in T2T).
        qkv_bias: bias on the qkv projection (False in T2T).
        qk_scale: factor on ``Q K^T``. ``None`` takes ``(chan / num_heads) ** -0.5``; the official T2T code uses
            ``(dim / num_heads) ** -0.5``, which :class:`vitcourse.models.TokensToToken` passes explicitly.
        eps: LayerNorm epsilon (1e-5 in T2T).
    """

    def __init__(
        self,
        dim: int,
        chan: int,
        num_heads: int = 1,
        mlp_ratio: float = 1.0,
        qkv_bias: bool = False,
        qk_scale: float | None = None,
        eps: float = 1e-5,
    ) -> None:
        super().__init__()
        self.dim = positive_int("dim", dim)  # every setting is checked before any weight is made
        hidden = _hidden_width(positive_int("chan", chan), mlp_ratio)
        eps = _norm_eps(eps)
        flag("qkv_bias", qkv_bias)
        allocatable(
            "TokenTransformer's parameters",
            self.parameter_count(dim, chan, mlp_ratio, qkv_bias),
            dim=dim,
            chan=chan,
            mlp_ratio=mlp_ratio,
        )
        self.norm1 = nn.LayerNorm(dim, eps=eps)
        self.attn = Attention(
            dim, chan, num_heads=num_heads, qkv_bias=qkv_bias, qk_scale=qk_scale, v_skip=True
        )
        self.norm2 = nn.LayerNorm(chan, eps=eps)
        self.mlp = Mlp(chan, hidden)

    @staticmethod
    def parameter_count(dim: int, chan: int, mlp_ratio: float = 1.0, qkv_bias: bool = False) -> int:
        """The parameters a token transformer with these settings holds, without building it (the settings must
        be valid)."""
        norms = 2 * dim + 2 * chan  # norm1 on the tokens in, norm2 on the tokens out
        return (
            norms
            + Attention.parameter_count(dim, chan, qkv_bias)
            + Mlp.parameter_count(chan, _hidden_width(chan, mlp_ratio), chan)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = check_tokens("x", x, self.dim, like=self.norm1.weight)  # (B, N, dim)
        x = self.attn(self.norm1(x))  # (B, N, chan), the residual is inside: through v
        return x + self.mlp(self.norm2(x))  # (B, N, chan)

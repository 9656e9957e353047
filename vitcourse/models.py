"""Whole models: the Vision Transformer, the Tokens-to-Token module and T2T-ViT.

Both models share one body (:class:`_Body`) and differ only in how they make tokens:

    ViT:      image -> PatchTokenizer ("patch_embed")   -> (B, N, D)
    T2T-ViT:  image -> TokensToToken ("tokens_to_token") -> (B, N, D)
    body:     prepend the prediction token "cls_token"   -> (B, N + 1, D)
              add the position embedding "pos_embed"     (learned, sinusoidal or none)
              encoder blocks "blocks.0 ..."              -> (B, N + 1, D)
              final LayerNorm "norm", then "head" on token 0 -> (B, num_classes)

Parameter names follow timm's ``VisionTransformer`` and the official T2T-ViT code where the structure is the
same, so their checkpoints map onto these models key by key (see the README). Presets:
``vit_base/large/huge_patch16_224`` (timm's settings: LayerNorm eps 1e-6, qkv bias) and
``t2t_vit_7/10/12/14/19/24`` with transformer token blocks (the official settings: eps 1e-5, no qkv bias).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import nn

from ._validate import positive_int
from .blocks import EncoderBlock, TokenTransformer
from .position import POSITION_KINDS, learned_position_embedding, sinusoidal_table
from .tokens import PatchTokenizer, SoftSplit, TokenCount, _check_image, _image_size, rebuild_image

__all__ = [
    "VisionTransformer",
    "TokensToToken",
    "T2TViT",
    "PRESETS",
    "create_model",
    "count_parameters",
    "T2T_STAGES",
]

#: The T2T module's default soft splits, (kernel, stride, padding) per stage.
T2T_STAGES: tuple[tuple[int, int, int], ...] = ((7, 4, 2), (3, 2, 1), (3, 2, 1))


def _init_weights(module: nn.Module) -> None:
    """Truncated-normal (std 0.02) linear weights, zero biases, LayerNorm at identity (as timm and T2T do)."""
    if isinstance(module, nn.Linear):
        nn.init.trunc_normal_(module.weight, std=0.02, a=-0.04, b=0.04)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
    elif isinstance(module, nn.LayerNorm):
        nn.init.ones_(module.weight)
        nn.init.zeros_(module.bias)


class _Body(nn.Module):
    """The part ViT and T2T-ViT share: prediction token, position embedding, blocks, norm and head."""

    tokenizer_name: str = ""

    def _build_body(
        self,
        num_patches: int,
        embed_dim: int,
        depth: int,
        num_heads: int,
        mlp_ratio: float,
        qkv_bias: bool,
        norm_eps: float,
        pos_embed: str,
        num_classes: int,
    ) -> None:
        if pos_embed not in POSITION_KINDS:
            raise ValueError(f"pos_embed must be one of {POSITION_KINDS}, got {pos_embed!r}")
        positive_int("depth", depth)
        positive_int("num_classes", num_classes)
        self.embed_dim = embed_dim
        self.num_patches = num_patches
        self.pos_kind = pos_embed
        self.cls_token = nn.Parameter(torch.zeros(1, 1, embed_dim))  # one per model, expanded per batch
        if pos_embed == "learned":
            self.pos_embed = learned_position_embedding(num_patches + 1, embed_dim)
        elif pos_embed == "sinusoidal":  # fixed: a parameter that does not train, as in the official T2T code
            self.pos_embed = nn.Parameter(
                sinusoidal_table(num_patches + 1, embed_dim)[None], requires_grad=False
            )
        else:
            self.register_parameter("pos_embed", None)
        self.blocks = nn.Sequential(
            *[
                EncoderBlock(embed_dim, num_heads, mlp_ratio, qkv_bias=qkv_bias, eps=norm_eps)
                for _ in range(depth)
            ]
        )
        self.norm = nn.LayerNorm(embed_dim, eps=norm_eps)
        self.head = nn.Linear(embed_dim, num_classes)
        self.apply(_init_weights)
        nn.init.trunc_normal_(self.cls_token, std=0.02, a=-0.04, b=0.04)

    def tokenize(self, images: torch.Tensor) -> torch.Tensor:
        """Images (B, C, H, W) to patch tokens (B, N, D)."""
        return getattr(self, self.tokenizer_name)(images)

    def embed(self, images: torch.Tensor) -> torch.Tensor:
        """Token processing: tokens, prediction token prepended, position embedding added: (B, N + 1, D)."""
        tokens = self.tokenize(images)  # (B, N, D)
        cls = self.cls_token.expand(tokens.shape[0], -1, -1)  # (B, 1, D)
        x = torch.cat([cls, tokens], dim=1)  # (B, N + 1, D)
        if self.pos_embed is not None:
            x = x + self.pos_embed  # (B, N + 1, D)
        return x

    def forward_features(self, images: torch.Tensor) -> torch.Tensor:
        """Everything before the head: (B, C, H, W) -> (B, N + 1, D), after the final norm."""
        return self.norm(self.blocks(self.embed(images)))

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        """(B, C, H, W) -> (B, num_classes): the head applied to the prediction token."""
        return self.head(self.forward_features(images)[:, 0])

    @torch.no_grad()
    def attention_weights(self, images: torch.Tensor, block: int = -1) -> torch.Tensor:
        """The attention weights of one encoder block, for looking inside a (trained) model.

        Args:
            images: (B, C, H, W).
            block: which block (Python indexing: -1 is the last).

        Returns:
            (B, heads, N + 1, N + 1); row 0 is the prediction token's query, column 0 its key.
        """
        n_blocks = len(self.blocks)
        if not -n_blocks <= block < n_blocks:
            raise ValueError(f"block must be in [-{n_blocks}, {n_blocks - 1}], got {block}")
        x = self.embed(images)  # (B, N + 1, D)
        for blk in self.blocks[: block % n_blocks]:
            x = blk(x)
        target = self.blocks[block % n_blocks]
        return target.attn.steps(target.norm1(x))[1].weights


class VisionTransformer(_Body):
    """The Vision Transformer (Dosovitskiy et al., 2021) for images of any H x W divisible by the patch size.

    Args:
        img_size: (H, W) or one int for a square.
        patch_size: patch side P.
        in_chans: image channels C.
        num_classes: outputs of the head (1 gives a single regression value).
        embed_dim: token length D.
        depth: encoder blocks.
        num_heads: attention heads per block.
        mlp_ratio: MLP hidden width as a multiple of D.
        qkv_bias: bias on the qkv projections (timm: True).
        norm_eps: LayerNorm epsilon (timm: 1e-6).
        pos_embed: "learned", "sinusoidal" or "none".

    Shapes: ``(B, C, H, W) -> (B, num_classes)``.
    """

    tokenizer_name = "patch_embed"

    def __init__(
        self,
        img_size: int | tuple[int, int] = (60, 100),
        patch_size: int = 20,
        in_chans: int = 1,
        num_classes: int = 1,
        embed_dim: int = 768,
        depth: int = 12,
        num_heads: int = 12,
        mlp_ratio: float = 4.0,
        qkv_bias: bool = True,
        norm_eps: float = 1e-6,
        pos_embed: str = "learned",
    ) -> None:
        super().__init__()
        self.patch_embed = PatchTokenizer(_image_size(img_size), patch_size, in_chans, embed_dim)
        self._build_body(
            self.patch_embed.num_patches,
            embed_dim,
            depth,
            num_heads,
            mlp_ratio,
            qkv_bias,
            norm_eps,
            pos_embed,
            num_classes,
        )


class TokensToToken(nn.Module):
    """The Tokens-to-Token module (Yuan et al., 2021) for images of any H x W.

    Each stage soft-splits the current image into overlapping windows; between stages a token transformer
    works on the tokens and they are rebuilt into an image of the token grid's size (rows x cols, not a square
    root, so any H x W works). After the last split, ``project`` maps the tokens to length ``embed_dim``.

    Args:
        img_size: (H, W) or one int.
        in_chans: image channels C.
        embed_dim: token length D out.
        token_dim: token length inside the module (64 in T2T).
        stages: (kernel, stride, padding) per soft split; default :data:`T2T_STAGES`.
        norm_eps: LayerNorm epsilon of the token transformers (1e-5).
        official_scale: scale ``Q K^T`` by ``(token length in) ** -0.5`` as the official code does (True) or by
            ``token_dim ** -0.5`` (False).

    Attributes: ``grids`` lists the token grid after each split; ``num_patches`` the tokens out.

    Shapes: ``(B, C, H, W) -> (B, N, D)``.
    """

    def __init__(
        self,
        img_size: int | tuple[int, int] = (60, 100),
        in_chans: int = 1,
        embed_dim: int = 768,
        token_dim: int = 64,
        stages: Sequence[tuple[int, int, int]] = T2T_STAGES,
        norm_eps: float = 1e-5,
        official_scale: bool = True,
    ) -> None:
        super().__init__()
        self.img_size = _image_size(img_size)
        self.in_chans = positive_int("in_chans", in_chans)
        positive_int("token_dim", token_dim)
        if len(stages) < 1:
            raise ValueError("stages must hold at least one (kernel, stride, padding)")
        self.grids: list[TokenCount] = []
        height, width = self.img_size
        chans = in_chans
        for i, (kernel, stride, padding) in enumerate(stages):
            split = SoftSplit(kernel, stride, padding)
            grid = split.grid(height, width)
            self.add_module(f"soft_split{i}", split)
            self.grids.append(grid)
            length = chans * kernel * kernel
            if i < len(stages) - 1:
                scale = length**-0.5 if official_scale else None
                self.add_module(
                    f"attention{i + 1}", TokenTransformer(length, token_dim, qk_scale=scale, eps=norm_eps)
                )
                chans = token_dim
            height, width = grid.rows, grid.cols
        self.num_stages = len(stages)
        self.project = nn.Linear(length, positive_int("embed_dim", embed_dim))
        self.num_patches = self.grids[-1].total

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        _check_image(images, self.in_chans, self.img_size)
        x = images  # (B, C, H, W)
        for i in range(self.num_stages):
            tokens = getattr(self, f"soft_split{i}")(x)  # (B, N_i, C_i * k * k)
            if i == self.num_stages - 1:
                break
            tokens = getattr(self, f"attention{i + 1}")(tokens)  # (B, N_i, token_dim)
            x = rebuild_image(tokens, self.grids[i].rows, self.grids[i].cols)  # (B, token_dim, rows, cols)
        return self.project(tokens)  # (B, N, D)


class T2TViT(_Body):
    """T2T-ViT: the Tokens-to-Token module followed by the ViT body (Yuan et al., 2021).

    Args:
        img_size: (H, W) or one int.
        in_chans: image channels C.
        num_classes: outputs of the head.
        embed_dim: token length D.
        depth: encoder blocks.
        num_heads: attention heads per block.
        mlp_ratio: MLP hidden width as a multiple of D.
        token_dim: token length inside the T2T module (64).
        stages: the T2T module's soft splits, (kernel, stride, padding) each.
        qkv_bias: bias on the qkv projections (official: False).
        norm_eps: LayerNorm epsilon (official: 1e-5).
        pos_embed: "sinusoidal" (official), "learned" or "none".

    Shapes: ``(B, C, H, W) -> (B, num_classes)``.
    """

    tokenizer_name = "tokens_to_token"

    def __init__(
        self,
        img_size: int | tuple[int, int] = (60, 100),
        in_chans: int = 1,
        num_classes: int = 1,
        embed_dim: int = 384,
        depth: int = 14,
        num_heads: int = 6,
        mlp_ratio: float = 3.0,
        token_dim: int = 64,
        stages: Sequence[tuple[int, int, int]] = T2T_STAGES,
        qkv_bias: bool = False,
        norm_eps: float = 1e-5,
        pos_embed: str = "sinusoidal",
    ) -> None:
        super().__init__()
        self.tokens_to_token = TokensToToken(img_size, in_chans, embed_dim, token_dim, stages, norm_eps)
        self._build_body(
            self.tokens_to_token.num_patches,
            embed_dim,
            depth,
            num_heads,
            mlp_ratio,
            qkv_bias,
            norm_eps,
            pos_embed,
            num_classes,
        )


def _preset(cls: type[nn.Module], **settings: Any) -> Callable[..., nn.Module]:
    def build(**overrides: Any) -> nn.Module:
        return cls(**{**settings, **overrides})

    build.__doc__ = f"{cls.__name__} with {settings}; keyword arguments override any setting."
    return build


_IMAGENET = {"img_size": 224, "in_chans": 3, "num_classes": 1000}

#: Named model settings; ``create_model(name, **overrides)`` builds one.
PRESETS: dict[str, Callable[..., nn.Module]] = {
    "vit_base_patch16_224": _preset(
        VisionTransformer, patch_size=16, embed_dim=768, depth=12, num_heads=12, **_IMAGENET
    ),
    "vit_large_patch16_224": _preset(
        VisionTransformer, patch_size=16, embed_dim=1024, depth=24, num_heads=16, **_IMAGENET
    ),
    "vit_huge_patch16_224": _preset(
        VisionTransformer, patch_size=16, embed_dim=1280, depth=32, num_heads=16, **_IMAGENET
    ),
    "t2t_vit_7": _preset(T2TViT, embed_dim=256, depth=7, num_heads=4, mlp_ratio=2.0, **_IMAGENET),
    "t2t_vit_10": _preset(T2TViT, embed_dim=256, depth=10, num_heads=4, mlp_ratio=2.0, **_IMAGENET),
    "t2t_vit_12": _preset(T2TViT, embed_dim=256, depth=12, num_heads=4, mlp_ratio=2.0, **_IMAGENET),
    "t2t_vit_14": _preset(T2TViT, embed_dim=384, depth=14, num_heads=6, mlp_ratio=3.0, **_IMAGENET),
    "t2t_vit_19": _preset(T2TViT, embed_dim=448, depth=19, num_heads=7, mlp_ratio=3.0, **_IMAGENET),
    "t2t_vit_24": _preset(T2TViT, embed_dim=512, depth=24, num_heads=8, mlp_ratio=3.0, **_IMAGENET),
}


def create_model(name: str, **overrides: Any) -> nn.Module:
    """Build a preset by name (see :data:`PRESETS`); keyword arguments override its settings.

    Tip: build inside ``with torch.device("meta"):`` to count parameters without allocating memory.
    """
    if name not in PRESETS:
        raise ValueError(f"name must be one of {sorted(PRESETS)}, got {name!r}")
    return PRESETS[name](**overrides)


def count_parameters(model: nn.Module) -> tuple[int, int]:
    """Return (all, trainable) parameter counts; works on models built on the meta device."""
    params = list(model.parameters())
    return sum(p.numel() for p in params), sum(p.numel() for p in params if p.requires_grad)

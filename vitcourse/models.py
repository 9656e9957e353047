"""Whole models: the Vision Transformer, the Tokens-to-Token module and T2T-ViT.

Both models share one body (:class:`Body`) and differ only in how they make tokens:

    ViT:      image -> PatchTokenizer ("patch_embed")   -> (B, N, D)
    T2T-ViT:  image -> TokensToToken ("tokens_to_token") -> (B, N, D)
    body:     prepend the prediction token "cls_token"   -> (B, N + 1, D)
              add the position embedding "pos_embed"     (learned, sinusoidal or none)
              encoder blocks "blocks.0 ..."              -> (B, N + 1, D)
              final LayerNorm "norm", then "head" on token 0 -> (B, num_classes)

The body's settings (``embed_dim``, ``depth``, ``num_heads``, ...) are the same keyword arguments in both models,
declared once in :class:`BodySettings`; each model's defaults are one row (:data:`VIT_DEFAULTS`,
:data:`T2T_VIT_DEFAULTS`). Each model exposes its tokenizer as ``model.tokenizer`` and the parameters that
weight decay should skip as ``model.no_weight_decay()``.

Parameter names follow timm's ``VisionTransformer`` and the official T2T-ViT code where the structure is the
same, so their checkpoints map onto these models key by key (book/pages/design.md). Presets:
``vit_base/large/huge_patch16_224`` (timm's settings: LayerNorm eps 1e-6, qkv bias) and
``t2t_vit_t_7/10/12/14/19/24`` with transformer token blocks (the official settings: eps 1e-5, no qkv bias).

The names follow the official T2T-ViT code, where ``t2t_vit_t_14/19/24`` are the models whose tokens-to-token
module uses transformer blocks, as the course builds it. The official ``t2t_vit_7/10/12/14/19/24`` use Performer
token blocks (attention approximated by random features; other parameters and keys), which the course does not
build; :func:`create_model` refuses those names and names the ``t2t_vit_t_*`` preset instead. The official code
has the 7, 10 and 12 sizes only as Performer models; the same construction with transformer token blocks at
those sizes is called ``t2t_vit_t_7/10/12`` here, by the same rule (``_t`` = transformer token blocks), and no
official checkpoint exists for them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypedDict, cast

import torch
from torch import nn

from ._validate import (
    allocatable,
    check_image,
    choice,
    divisors,
    finite_float,
    flag,
    image_size,
    instance_of,
    listing,
    positive_int,
)
from .blocks import EncoderBlock, TokenTransformer
from .data import HEIGHT, WIDTH
from .position import POSITION_KINDS, learned_position_embedding, sinusoidal_table
from .tokens import (
    T2T_STAGES,
    PatchTokenizer,
    SoftSplit,
    TokenCount,
    check_stages,
    rebuild_image,
    stage_grids,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "BodySettings",
    "BODY_SETTINGS",
    "VIT_DEFAULTS",
    "T2T_VIT_DEFAULTS",
    "body_settings",
    "init_weights",
    "Body",
    "VisionTransformer",
    "TokensToToken",
    "T2TViT",
    "PRESETS",
    "PERFORMER_NAMES",
    "create_model",
    "count_parameters",
    "T2T_STAGES",
]


class BodySettings(TypedDict, total=False):
    """The shared body's settings: keyword arguments of both models (any left out take the model's default).

    Keys: ``num_classes`` (outputs of the head; 1 gives a single regression value), ``embed_dim`` (token length
    D), ``depth`` (encoder blocks), ``num_heads`` (attention heads per block), ``mlp_ratio`` (MLP hidden width
    as a multiple of D), ``qkv_bias`` (bias on the qkv projections), ``norm_eps`` (LayerNorm epsilon) and
    ``pos_embed`` ("learned", "sinusoidal" (fixed, a parameter that does not train) or "none").
    """

    num_classes: int
    embed_dim: int
    depth: int
    num_heads: int
    mlp_ratio: float
    qkv_bias: bool
    norm_eps: float
    pos_embed: str


#: The names of the body's settings, in the order of the default rows below.
BODY_SETTINGS: tuple[str, ...] = tuple(BodySettings.__annotations__)


def _row(*values: object) -> BodySettings:
    """One row of body defaults, the values given in the order of :data:`BODY_SETTINGS`."""
    return cast(BodySettings, dict(zip(BODY_SETTINGS, values, strict=True)))


# Each model's body defaults, one row each:
#               num_classes, embed_dim, depth, num_heads, mlp_ratio, qkv_bias, norm_eps, pos_embed
VIT_DEFAULTS = _row(1, 768, 12, 12, 4.0, True, 1e-6, "learned")  # ViT-Base; timm's qkv bias and eps
T2T_VIT_DEFAULTS = _row(1, 384, 14, 6, 3.0, False, 1e-5, "sinusoidal")  # T2T-ViT_t-14; the official settings


def body_settings(defaults: BodySettings, given: Mapping[str, Any]) -> BodySettings:
    """A model's body ``defaults`` (a row above) updated with the settings ``given``.

    Every value is checked here, before any weight is made: whole numbers >= 1 for ``num_classes``,
    ``embed_dim``, ``depth`` and ``num_heads`` (which must divide ``embed_dim``), a finite ``mlp_ratio`` > 0 that
    leaves the MLP at least one hidden unit, ``True``/``False`` for ``qkv_bias``, a finite ``norm_eps`` > 0 and
    one of :data:`~vitcourse.position.POSITION_KINDS` for ``pos_embed``.

    Raises:
        TypeError: ``given`` names a setting the body does not have (a misspelt keyword, say), or a value of the
            wrong type (``qkv_bias="False"``, ``mlp_ratio="2"``).
        ValueError: a value out of range.
    """
    unknown = sorted(set(given) - set(BODY_SETTINGS))
    if unknown:
        raise TypeError(f"unknown model settings {unknown}; the body's settings are {BODY_SETTINGS}")
    settings = cast(BodySettings, {**defaults, **given})
    for name in ("num_classes", "embed_dim", "depth", "num_heads"):
        positive_int(name, settings[name])
    embed_dim, num_heads = settings["embed_dim"], settings["num_heads"]
    if embed_dim % num_heads:
        raise ValueError(
            f"num_heads={num_heads} does not divide embed_dim={embed_dim}; "
            f"valid head counts: {listing(divisors(embed_dim))}"
        )
    ratio = finite_float("mlp_ratio", settings["mlp_ratio"], 0, above=True)
    if int(embed_dim * ratio) < 1:
        raise ValueError(
            f"mlp_ratio={ratio:g} gives the MLP a hidden width of int({embed_dim} * {ratio:g}) = 0; "
            f"use mlp_ratio >= {1 / embed_dim:.3g}"
        )
    flag("qkv_bias", settings["qkv_bias"])
    finite_float("norm_eps", settings["norm_eps"], 0, above=True)
    choice("pos_embed", settings["pos_embed"], POSITION_KINDS)
    return settings


def init_weights(module: nn.Module) -> None:
    """Truncated-normal (std 0.02) linear weights, zero biases, LayerNorm at identity (as timm and T2T do)."""
    if isinstance(module, nn.Linear):
        nn.init.trunc_normal_(module.weight, std=0.02, a=-0.04, b=0.04)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
    elif isinstance(module, nn.LayerNorm):
        nn.init.ones_(module.weight)
        nn.init.zeros_(module.bias)


class Body(nn.Module):
    """The part ViT and T2T-ViT share: prediction token, position embedding, blocks, norm and head.

    Args:
        tokenizer_name: the attribute the tokenizer is stored under (its parameters' prefix: timm's
            ``patch_embed``, the official T2T code's ``tokens_to_token``). It is registered first, so the
            parameters come in the reference order.
        tokenizer: a module with ``num_patches`` and ``in_chans``: images (B, C, H, W) -> tokens (B, N, D).
        settings: every key of :class:`BodySettings` (see :func:`body_settings`).
    """

    def __init__(self, tokenizer_name: str, tokenizer: nn.Module, settings: BodySettings) -> None:
        num_classes, embed_dim, depth, num_heads, mlp_ratio, qkv_bias, norm_eps, pos_embed = (
            settings[name] for name in BODY_SETTINGS
        )
        num_patches = tokenizer.num_patches
        body = (
            embed_dim  # the prediction token
            + (0 if pos_embed == "none" else (num_patches + 1) * embed_dim)
            + depth * EncoderBlock.parameter_count(embed_dim, mlp_ratio, qkv_bias)
            + 2 * embed_dim  # the final LayerNorm
            + (embed_dim + 1) * num_classes  # the head
        )
        layout = {k: getattr(tokenizer, k) for k in ("patch_size", "stages") if hasattr(tokenizer, k)}
        allocatable(
            "the model's parameters",
            body + sum(p.numel() for p in tokenizer.parameters()),
            img_size=tokenizer.img_size,
            **layout,  # with img_size, they fix the number of tokens, so the position embedding's size
            embed_dim=embed_dim,
            depth=depth,
            mlp_ratio=mlp_ratio,
            num_classes=num_classes,
        )  # before any of the body's weights is made
        super().__init__()
        self.add_module(tokenizer_name, tokenizer)
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
        self.apply(init_weights)
        nn.init.trunc_normal_(self.cls_token, std=0.02, a=-0.04, b=0.04)

    @property
    def tokenizer(self) -> nn.Module:
        """The module that turns images (B, C, H, W) into tokens (B, N, D); each model names its own."""
        raise NotImplementedError

    @property
    def in_chans(self) -> int:
        """Image channels C the model accepts."""
        return self.tokenizer.in_chans

    def no_weight_decay(self) -> set[str]:
        """Names of the parameters weight decay should leave alone (timm's ``no_weight_decay``).

        The prediction token ``cls_token`` and the position embedding ``pos_embed`` (when the model has one) are
        single vectors that say *which* token or place it is; pulling them towards zero only erases that. Biases
        and LayerNorm weights are also left out, but by rank (one-dimensional parameters), in the optimiser code.

        Returns:
            A set of names as :meth:`named_parameters` spells them.
        """
        names = {"cls_token"}
        if self.pos_embed is not None:
            names.add("pos_embed")
        return names

    def tokenize(self, images: torch.Tensor) -> torch.Tensor:
        """Images (B, C, H, W) to patch tokens (B, N, D)."""
        return self.tokenizer(images)

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
        if isinstance(block, bool) or not isinstance(block, int):
            raise TypeError(
                f"block must be an int in [-{n_blocks}, {n_blocks - 1}], got {type(block).__name__}"
            )
        if not -n_blocks <= block < n_blocks:
            raise ValueError(f"block must be in [-{n_blocks}, {n_blocks - 1}], got {block}")
        x = self.embed(images)  # (B, N + 1, D)
        for blk in self.blocks[: block % n_blocks]:
            x = blk(x)
        target = self.blocks[block % n_blocks]
        return target.attn.steps(target.norm1(x))[1].weights


class VisionTransformer(Body):
    """The Vision Transformer (Dosovitskiy et al., 2021) for images of any H x W divisible by the patch size.

    Shapes: ``(B, C, H, W) -> (B, num_classes)``. The tokenizer is ``patch_embed``, a
    :class:`~vitcourse.tokens.PatchTokenizer`: ``(B, C, H, W) -> (B, N, D)``, N = H * W / P**2.

    Args:
        img_size: (H, W) or one int for a square; default the course's picture, (HEIGHT, WIDTH) = (60, 100).
        patch_size: patch side P.
        in_chans: image channels C.
        **body: the shared body's settings, :class:`BodySettings` (``num_classes``, ``embed_dim``, ``depth``,
            ``num_heads``, ``mlp_ratio``, ``qkv_bias``, ``norm_eps``, ``pos_embed``). Defaults,
            :data:`VIT_DEFAULTS`: ViT-Base (D 768, 12 blocks, 12 heads, MLP 4 x D), timm's qkv bias and
            LayerNorm eps 1e-6, a learned position embedding, one output.
    """

    def __init__(
        self,
        img_size: int | tuple[int, int] = (HEIGHT, WIDTH),
        patch_size: int = 20,
        in_chans: int = 1,
        **body: Unpack[BodySettings],
    ) -> None:
        settings = body_settings(VIT_DEFAULTS, body)
        tokenizer = PatchTokenizer(image_size(img_size), patch_size, in_chans, settings["embed_dim"])
        super().__init__("patch_embed", tokenizer, settings)

    @property
    def tokenizer(self) -> PatchTokenizer:
        """The patch tokenizer, ``patch_embed``."""
        return self.patch_embed


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

    Attributes: ``grids`` lists the token grid after each split (:func:`~vitcourse.tokens.stage_grids`);
    ``num_patches`` the tokens out.

    Shapes: ``(B, C, H, W) -> (B, N, D)``.
    """

    def __init__(
        self,
        img_size: int | tuple[int, int] = (HEIGHT, WIDTH),
        in_chans: int = 1,
        embed_dim: int = 768,
        token_dim: int = 64,
        stages: Sequence[tuple[int, int, int]] = T2T_STAGES,
        norm_eps: float = 1e-5,
        official_scale: bool = True,
    ) -> None:
        super().__init__()
        self.img_size = image_size(img_size)
        self.in_chans = positive_int("in_chans", in_chans)
        positive_int("token_dim", token_dim)
        positive_int("embed_dim", embed_dim)
        stages = check_stages(stages)
        norm_eps = finite_float("norm_eps", norm_eps, 0, above=True)
        flag("official_scale", official_scale)
        self.grids: list[TokenCount] = stage_grids(*self.img_size, stages)
        chans, total = in_chans, 0
        for i, (kernel, _, _) in enumerate(stages):  # count the parameters before making any of them
            length = chans * kernel * kernel
            if i < len(stages) - 1:
                total += TokenTransformer.parameter_count(length, token_dim)
                chans = token_dim
        allocatable(
            "TokensToToken's parameters",
            total + (length + 1) * embed_dim,
            in_chans=in_chans,
            token_dim=token_dim,
            embed_dim=embed_dim,
            stages=stages,
        )
        chans = in_chans
        for i, (kernel, stride, padding) in enumerate(stages):
            self.add_module(f"soft_split{i}", SoftSplit(kernel, stride, padding))
            length = chans * kernel * kernel
            if i < len(stages) - 1:
                scale = length**-0.5 if official_scale else None
                self.add_module(
                    f"attention{i + 1}", TokenTransformer(length, token_dim, qk_scale=scale, eps=norm_eps)
                )
                chans = token_dim
        self.num_stages = len(stages)
        self.stages = stages
        self.project = nn.Linear(length, positive_int("embed_dim", embed_dim))
        self.num_patches = self.grids[-1].total

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        x = check_image(images, self.in_chans, self.img_size, like=self.project.weight)  # (B, C, H, W)
        for i in range(self.num_stages):
            tokens = getattr(self, f"soft_split{i}")(x)  # (B, N_i, C_i * k * k)
            if i == self.num_stages - 1:
                break
            tokens = getattr(self, f"attention{i + 1}")(tokens)  # (B, N_i, token_dim)
            x = rebuild_image(tokens, self.grids[i].rows, self.grids[i].cols)  # (B, token_dim, rows, cols)
        return self.project(tokens)  # (B, N, D)


class T2TViT(Body):
    """T2T-ViT: the Tokens-to-Token module followed by the ViT body (Yuan et al., 2021).

    Shapes: ``(B, C, H, W) -> (B, num_classes)``. The tokenizer is ``tokens_to_token``, a
    :class:`TokensToToken` whose settings are ``img_size``, ``in_chans``, ``token_dim``, ``stages`` and the body's
    ``embed_dim`` and ``norm_eps``.

    Args:
        img_size: (H, W) or one int; default the course's picture, (HEIGHT, WIDTH) = (60, 100).
        in_chans: image channels C.
        token_dim: token length inside the T2T module (64).
        stages: the T2T module's soft splits, (kernel, stride, padding) each.
        **body: the shared body's settings, :class:`BodySettings`. Defaults, :data:`T2T_VIT_DEFAULTS`:
            T2T-ViT_t-14 (D 384, 14 blocks, 6 heads, MLP 3 x D) with the official code's settings: no qkv bias,
            LayerNorm eps 1e-5, the fixed sinusoidal position table; one output.

    Images: real floating-point numbers of any dtype; both models cast them to their parameters' dtype (an
    integer, bool or complex tensor is refused with a TypeError that says how to convert it).
    """

    def __init__(
        self,
        img_size: int | tuple[int, int] = (HEIGHT, WIDTH),
        in_chans: int = 1,
        *,
        token_dim: int = 64,
        stages: Sequence[tuple[int, int, int]] = T2T_STAGES,
        **body: Unpack[BodySettings],
    ) -> None:
        settings = body_settings(T2T_VIT_DEFAULTS, body)
        tokenizer = TokensToToken(
            img_size, in_chans, settings["embed_dim"], token_dim, stages, settings["norm_eps"]
        )
        super().__init__("tokens_to_token", tokenizer, settings)

    @property
    def tokenizer(self) -> TokensToToken:
        """The Tokens-to-Token module, ``tokens_to_token``."""
        return self.tokens_to_token


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
    "t2t_vit_t_7": _preset(T2TViT, embed_dim=256, depth=7, num_heads=4, mlp_ratio=2.0, **_IMAGENET),
    "t2t_vit_t_10": _preset(T2TViT, embed_dim=256, depth=10, num_heads=4, mlp_ratio=2.0, **_IMAGENET),
    "t2t_vit_t_12": _preset(T2TViT, embed_dim=256, depth=12, num_heads=4, mlp_ratio=2.0, **_IMAGENET),
    "t2t_vit_t_14": _preset(T2TViT, embed_dim=384, depth=14, num_heads=6, mlp_ratio=3.0, **_IMAGENET),
    "t2t_vit_t_19": _preset(T2TViT, embed_dim=448, depth=19, num_heads=7, mlp_ratio=3.0, **_IMAGENET),
    "t2t_vit_t_24": _preset(T2TViT, embed_dim=512, depth=24, num_heads=8, mlp_ratio=3.0, **_IMAGENET),
}


# The presets whose names the official code also uses (its transformer-token models, with checkpoints).
_OFFICIAL_T = ("t2t_vit_t_14", "t2t_vit_t_19", "t2t_vit_t_24")

#: The official T2T-ViT code's names for its Performer models, which the course does not build, each mapped to
#: the preset of the same size with transformer token blocks.
PERFORMER_NAMES = {f"t2t_vit_{size}": f"t2t_vit_t_{size}" for size in (7, 10, 12, 14, 19, 24)}


def create_model(name: str, **overrides: Any) -> nn.Module:
    """Build a preset by name (see :data:`PRESETS`); keyword arguments override its settings.

    Tip: build inside ``with torch.device("meta"):`` to count parameters without allocating memory.

    Raises:
        ValueError: an unknown name; for the official code's Performer names (``t2t_vit_14``, ...) the message
            names the ``t2t_vit_t_*`` preset to use instead.
    """
    if isinstance(name, str) and name in PERFORMER_NAMES:
        ours = PERFORMER_NAMES[name]
        if ours in _OFFICIAL_T:
            which = "the official code's name for it too, so its checkpoints load with vitcourse.checkpoints"
        else:
            which = "a size the official code builds only with Performer token blocks: no official checkpoint fits"
        raise ValueError(
            f"name {name!r} is the official T2T-ViT code's Performer model (token blocks whose attention is "
            f"approximated by random features, with other parameters and keys), which vitcourse does not build; "
            f"the model of that size with transformer token blocks is {ours!r} ({which})"
        )
    choice("name", name, sorted(PRESETS))
    return PRESETS[name](**overrides)


def count_parameters(model: nn.Module) -> tuple[int, int]:
    """Return (all, trainable) parameter counts; works on models built on the meta device."""
    instance_of("model", model, nn.Module, "a torch.nn.Module")
    params = list(model.parameters())
    return sum(p.numel() for p in params), sum(p.numel() for p in params if p.requires_grad)

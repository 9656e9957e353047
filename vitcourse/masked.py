"""Masked patch prediction: pre-training a ViT by filling in hidden patches, and what it does to attention.

The ViT paper pre-trains by masked patch prediction in a preliminary study (Dosovitskiy et al., 2021, Section
4.6 and Appendix B.1.2: corrupt 50 % of the patch embeddings and predict the hidden patches' colours); masked
autoencoders (He et al., 2022) predict the hidden pixels. Xie et al. (2022, "Revealing the dark secrets of
masked image modeling") find that such pre-training gives every layer local attention heads, where supervised
pre-training on small data does not. Raghu et al. (2021) find that ViT's lower layers attend locally only with
large pre-training data.

The objective here (:func:`pretrain`): a fraction ``mask_ratio`` of each scene's 60 patches is chosen at random;
their tokens are replaced by one learned ``mask_token`` before the prediction token and the position embedding
are added; a linear decoder maps every output token back to its patch's P x P pixels, and the loss is the mean
squared error on the hidden patches only. To fill a hidden patch, the model must look at its neighbours: one
glance at a single far patch, which answers the moon task, does not do it.

The encoder is the course's :class:`vitcourse.models.VisionTransformer`, unchanged; :class:`MaskedPatchModel`
wraps it with the mask token and the decoder. After pre-training, the encoder alone is fine-tuned
(:func:`vitcourse.datascale.run`, ``start="mpp"``).

Measures for the ViT paper's Figure 7: :func:`attention_distances` (mean attention distance per block and head,
over held-out scenes) and :func:`smoothness` (how alike neighbouring pixels of a filter component are).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

import torch
import torch.nn.functional as F
from torch import nn

from ._validate import (
    choice,
    cpu_generator,
    finite_float,
    instance_of,
    non_negative_int,
    positive_int,
    tensor_of_rank,
)
from .device import DEVICES, get_device
from .models import VisionTransformer
from .probes import mean_attention_distance
from .scenes import make_batch, scene_pool
from .tokens import patchify

__all__ = [
    "PretrainConfig",
    "MaskedPatchModel",
    "random_mask",
    "pretrain",
    "attention_distances",
    "smoothness",
]


@dataclass
class PretrainConfig:
    """A masked-patch pre-training run: the encoder is the shipped ``vit_within``'s shape (P 10, 60 patches,
    D 64, 4 blocks of 4 heads, MLP ratio 2, 16 outputs); the scenes are the "within" task's pictures, labels
    unused (:func:`vitcourse.scenes.scene_pool`, seed 1)."""

    seed: int = 0
    steps: int = 8000
    batch_size: int = 64
    lr: float = 1e-3
    weight_decay: float = 0.05
    warmup: int = 200
    mask_ratio: float = 0.4
    scenes: int = 4096
    patch_size: int = 10
    embed_dim: int = 64
    depth: int = 4
    num_heads: int = 4
    mlp_ratio: float = 2.0
    device: str = "auto"

    def __post_init__(self) -> None:
        """Check every field, naming it."""
        for name in ("steps", "batch_size", "scenes", "patch_size", "embed_dim", "depth", "num_heads"):
            positive_int(name, getattr(self, name))
        non_negative_int("seed", self.seed)
        non_negative_int("warmup", self.warmup)
        finite_float("lr", self.lr, 0, above=True)
        finite_float("weight_decay", self.weight_decay, 0)
        ratio = finite_float("mask_ratio", self.mask_ratio, 0, above=True)
        if ratio >= 1:
            raise ValueError(f"mask_ratio must be in (0, 1): some patches must stay visible, got {ratio}")
        choice("device", self.device, DEVICES)

    def encoder(self) -> VisionTransformer:
        """A fresh encoder of this shape, weights drawn from ``seed`` (the caller's random state is kept)."""
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(self.seed)
            return VisionTransformer(
                (60, 100),
                self.patch_size,
                1,
                num_classes=16,
                embed_dim=self.embed_dim,
                depth=self.depth,
                num_heads=self.num_heads,
                mlp_ratio=self.mlp_ratio,
            )


class MaskedPatchModel(nn.Module):
    """A ViT encoder with a learned mask token and a linear pixel decoder.

    ``forward(images, mask)``: images (B, C, H, W), mask (B, N) bool (True = hidden) -> predicted pixels of every
    patch, (B, N, C * P * P), in :func:`vitcourse.tokens.patchify`'s layout.
    """

    def __init__(self, encoder: VisionTransformer) -> None:
        super().__init__()
        instance_of("encoder", encoder, VisionTransformer, "a vitcourse VisionTransformer")
        self.encoder = encoder
        d, p, c = encoder.embed_dim, encoder.patch_embed.patch_size, encoder.in_chans
        self.mask_token = nn.Parameter(torch.zeros(1, 1, d))
        nn.init.trunc_normal_(self.mask_token, std=0.02, a=-0.04, b=0.04)
        self.decoder = nn.Linear(d, c * p * p)
        nn.init.trunc_normal_(self.decoder.weight, std=0.02, a=-0.04, b=0.04)
        nn.init.zeros_(self.decoder.bias)

    def forward(self, images: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """(B, C, H, W) and (B, N) bool -> (B, N, C * P * P)."""
        vit = self.encoder
        tokens = vit.tokenize(images)  # (B, N, D)
        tokens = torch.where(mask[..., None], self.mask_token.to(tokens.dtype), tokens)
        x = torch.cat([vit.cls_token.expand(tokens.shape[0], -1, -1), tokens], dim=1) + vit.pos_embed
        return self.decoder(vit.norm(vit.blocks(x))[:, 1:])  # (B, N, C * P * P)


def random_mask(batch: int, tokens: int, ratio: float, generator: torch.Generator) -> torch.Tensor:
    """(batch, tokens) bool: in each row exactly ``round(ratio * tokens)`` (at least 1) True, at random places."""
    positive_int("batch", batch)
    positive_int("tokens", tokens)
    ratio = finite_float("ratio", ratio, 0, above=True)
    if ratio >= 1:
        raise ValueError(f"ratio must be in (0, 1): some tokens must stay visible, got {ratio}")
    cpu_generator("generator", generator)
    count = max(1, round(ratio * tokens))
    order = torch.rand(batch, tokens, generator=generator).argsort(-1)
    return order < count  # the ranks below count: a random subset of that size


@dataclass
class PretrainResult:
    """The pre-trained encoder (eval mode, CPU), the loss of every step and the run's seconds."""

    encoder: VisionTransformer
    config: PretrainConfig
    losses: list[float] = field(default_factory=list)
    seconds: float = 0.0
    device: str = "cpu"


def pretrain(config: PretrainConfig, stop_after: int | None = None) -> PretrainResult:
    """Pre-train a ViT encoder by masked patch prediction as ``config`` says (AdamW, warm-up then cosine).

    ``stop_after`` ends the run after that many steps with the schedule of the full run (its first steps: what
    :func:`vitcourse.datascale.first_steps` records)."""
    from .train import lr_factor, param_groups  # the supervised loop's schedule and groups

    instance_of("config", config, PretrainConfig, "a PretrainConfig")
    if stop_after is not None:
        positive_int("stop_after", stop_after)
    device = get_device(config.device)
    with torch.random.fork_rng(devices=[]):  # the mask token and decoder from their own stream of the seed
        torch.manual_seed(config.seed + 10_000)
        model = MaskedPatchModel(config.encoder()).to(device)
    optimiser = torch.optim.AdamW(param_groups(model, config.weight_decay), lr=config.lr)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda step: lr_factor(step, config.warmup, config.steps)
    )
    pool = scene_pool("within", config.scenes, 1, config.patch_size).images.to(device)
    order = torch.Generator().manual_seed(config.seed)
    n = model.encoder.num_patches
    result = PretrainResult(model.encoder, config, device=device)
    start = time.perf_counter()
    model.train()
    for _ in range(config.steps if stop_after is None else min(stop_after, config.steps)):
        index = torch.randint(len(pool), (config.batch_size,), generator=order).to(device)
        mask = random_mask(config.batch_size, n, config.mask_ratio, order).to(device)
        images = pool[index]
        target = patchify(images, config.patch_size)  # (B, N, P * P)
        loss = F.mse_loss(model(images, mask)[mask], target[mask])
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        optimiser.step()
        schedule.step()
        result.losses.append(loss.item())
    result.seconds = time.perf_counter() - start
    result.encoder = model.encoder.cpu().eval()
    return result


def pretrain_settings(config: PretrainConfig) -> dict:
    """The run's settings as a plain dict (for the results file)."""
    return asdict(config)


@torch.no_grad()
def attention_distances(model: nn.Module, size: int = 128, seed: int = 10_000) -> torch.Tensor:
    """Mean attention distance in pixels, (depth, heads), of a 60-patch ViT on ``size`` held-out "within" scenes.

    Each block's weights come from :meth:`vitcourse.models.VisionTransformer.attention_weights`; the prediction
    token is dropped (:func:`vitcourse.probes.mean_attention_distance`), and the distance is averaged over the
    scenes. Compare with :func:`vitcourse.probes.attention_distance_bounds` ``(6, 10, 10)``: uniform 42.0 px.
    """
    instance_of("model", model, VisionTransformer, "a 60-patch vitcourse VisionTransformer")
    patch = model.patch_embed.patch_size
    rows, cols = 60 // patch, 100 // patch
    images = make_batch("within", size, seed, patch).images
    model = model.eval()
    return torch.stack(
        [
            mean_attention_distance(model.attention_weights(images, b), rows, cols, patch).mean(0)
            for b in range(len(model.blocks))
        ]
    )  # (depth, heads)


def smoothness(components: torch.Tensor) -> torch.Tensor:
    """How smooth each filter component is: the correlation of horizontally and vertically neighbouring pixels.

    ``components`` (k, C, P, P) -> (k,): for each component, the correlation over all pairs of pixels side by
    side or one above the other (each pixel's value taken around the component's mean). About 1 for a slowly
    varying pattern, about 0 for white noise, about -1 for a checkerboard.
    """
    tensor_of_rank("components", components, 4, "(k, C, P, P)")
    x = components.double()
    x = x - x.mean((1, 2, 3), keepdim=True)
    pairs_a = torch.cat([x[..., :, :-1].flatten(1), x[..., :-1, :].flatten(1)], 1)
    pairs_b = torch.cat([x[..., :, 1:].flatten(1), x[..., 1:, :].flatten(1)], 1)
    num = (pairs_a * pairs_b).sum(1)
    den = ((pairs_a**2).sum(1) * (pairs_b**2).sum(1)).sqrt().clamp_min(1e-30)
    return (num / den).float()

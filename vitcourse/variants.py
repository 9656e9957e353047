"""Three answers to ViT's hunger for data, and the CNN they are measured against.

The ViT paper (Dosovitskiy et al., 2021, Figure 3) found that ViT trained from scratch falls behind a CNN on
small datasets and overtakes it only with large ones. Three later papers each changed one thing:

* **DeiT** (Touvron et al., 2021): a second learned token, the *distillation token*, next to the prediction
  token. It gets its own head, trained to match a teacher's hard decisions (a CNN's argmax) while the
  prediction token's head matches the true labels; at test time the two heads' softmax outputs are averaged
  (:class:`DistilledViT`). Loss: ``0.5 * CE(cls_head, label) + 0.5 * CE(dist_head, teacher_argmax)``.
* **A convolutional stem** (Xiao et al., 2021, "Early convolutions help transformers see better"): the patch
  embedding (one P x P convolution of stride P) replaced by a few small stride-2 convolutions with
  BatchNorm and ReLU, then a 1 x 1 convolution to D (:class:`ConvStem`, :class:`ConvStemViT`). Their stem
  reaches stride 16 with four 3 x 3 stride-2 convolutions. The course's grid has a pitch of 10 pixels, which
  no power of 2 gives, so the stem here is one 3 x 3 convolution of stride 2, one of stride 1, and a
  5 x 5 convolution of stride 5 (total stride 10, the same 6 x 10 grid as the ViT's 10-pixel patches), then
  the 1 x 1 convolution. The paper also removes one transformer block to keep the compute equal; the sweep
  keeps the body the same and reports each model's multiply-adds instead.
* **T2T-ViT** (Yuan et al., 2021): :class:`vitcourse.models.T2TViT`, built in notebooks 08 and 09.

:class:`SmallCNN` is the baseline: three 3 x 3 convolutions with BatchNorm, ReLU and max-pooling, a global
average and a linear head (93,154 parameters; the sweep's ViT has 144,578).

Parameter counts are tested against the published ones (tests/test_variants.py): DeiT-Ti distilled
(``deit_tiny_distilled_patch16_224`` in timm) has 5,910,800 parameters, 193,384 more than DeiT-Ti's 5,717,416
(the distillation token, its position slot and its 1000-class head).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F
from torch import nn

from ._validate import image_size, positive_int
from .data import HEIGHT, WIDTH
from .models import VIT_DEFAULTS, Body, VisionTransformer, body_settings, init_weights
from .position import learned_position_embedding

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .models import BodySettings

__all__ = ["ConvStem", "ConvStemViT", "DistilledViT", "SmallCNN", "distillation_loss"]


def _conv_bn_relu(cin: int, cout: int, kernel: int, stride: int) -> list[nn.Module]:
    return [
        nn.Conv2d(cin, cout, kernel, stride, padding=1 if kernel == 3 else 0, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    ]


class ConvStem(nn.Module):
    """A convolutional stem that makes the same (H / 10) x (W / 10) grid of tokens as 10-pixel patches.

    ``(B, C, H, W) -> (B, N, D)``: 3 x 3 stride 2 (C -> D/4), 3 x 3 stride 1 (D/4 -> D/2), 5 x 5 stride 5
    (D/2 -> D), each with BatchNorm and ReLU, then a 1 x 1 convolution (D -> D, with bias), flattened row by
    row like the patch tokenizer's tokens.
    """

    patch_size = 10  # the grid's pitch in pixels: one token per 10 x 10 square, as the ViT's patches

    def __init__(self, img_size: tuple[int, int], in_chans: int, embed_dim: int) -> None:
        super().__init__()
        height, width = image_size(img_size)
        if height % self.patch_size or width % self.patch_size:
            raise ValueError(f"img_size must be a multiple of 10 on both sides, got {height} x {width}")
        positive_int("in_chans", in_chans)
        if positive_int("embed_dim", embed_dim) % 4:
            raise ValueError(f"embed_dim must be a multiple of 4 for the stem's widths, got {embed_dim}")
        self.img_size = (height, width)
        self.in_chans = in_chans
        self.grid = (height // 10, width // 10)
        self.num_patches = self.grid[0] * self.grid[1]
        self.convs = nn.Sequential(
            *_conv_bn_relu(in_chans, embed_dim // 4, 3, 2),
            *_conv_bn_relu(embed_dim // 4, embed_dim // 2, 3, 1),
            *_conv_bn_relu(embed_dim // 2, embed_dim, 5, 5),
        )
        self.proj = nn.Conv2d(embed_dim, embed_dim, 1)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        """(B, C, H, W) -> (B, N, D)."""
        return self.proj(self.convs(images)).flatten(2).transpose(1, 2)


class ConvStemViT(Body):
    """A ViT whose tokens come from :class:`ConvStem` (stored as ``stem``); the body is the ViT's."""

    def __init__(
        self,
        img_size: int | tuple[int, int] = (HEIGHT, WIDTH),
        in_chans: int = 1,
        **body: Unpack[BodySettings],
    ) -> None:
        settings = body_settings(VIT_DEFAULTS, body)
        super().__init__("stem", ConvStem(image_size(img_size), in_chans, settings["embed_dim"]), settings)

    @property
    def tokenizer(self) -> ConvStem:
        """The convolutional stem."""
        return self.stem


class DistilledViT(VisionTransformer):
    """DeiT's ViT with a distillation token (Touvron et al., 2021), in front of the patch tokens.

    Tokens: ``[cls, dist, patch_1 ... patch_N]`` + a learned position embedding over N + 2 slots. ``head`` reads
    the prediction token, ``head_dist`` the distillation token. In training mode :meth:`forward` returns both
    heads' outputs ``(cls_logits, dist_logits)``; in eval mode the log of the average of their softmaxes
    (DeiT's test-time rule), so ``argmax`` and the cross-entropy work on it as on plain logits.
    Arguments as :class:`vitcourse.models.VisionTransformer`; the position embedding must be "learned".
    """

    def __init__(
        self,
        img_size: int | tuple[int, int] = (HEIGHT, WIDTH),
        patch_size: int = 20,
        in_chans: int = 1,
        **body: Unpack[BodySettings],
    ) -> None:
        if body.get("pos_embed", "learned") != "learned":
            raise ValueError(f"DistilledViT needs pos_embed='learned' (as DeiT), got {body['pos_embed']!r}")
        super().__init__(img_size, patch_size, in_chans, **body)
        d = self.embed_dim
        self.dist_token = nn.Parameter(torch.zeros(1, 1, d))
        nn.init.trunc_normal_(self.dist_token, std=0.02, a=-0.04, b=0.04)
        self.pos_embed = learned_position_embedding(self.num_patches + 2, d)
        self.head_dist = nn.Linear(d, self.head.out_features)
        init_weights(self.head_dist)

    def no_weight_decay(self) -> set[str]:
        """As the ViT's, plus the distillation token."""
        return super().no_weight_decay() | {"dist_token"}

    def embed(self, images: torch.Tensor) -> torch.Tensor:
        """(B, C, H, W) -> (B, N + 2, D): prediction token, distillation token, patch tokens, plus positions."""
        tokens = self.tokenize(images)  # (B, N, D)
        b = tokens.shape[0]
        x = torch.cat([self.cls_token.expand(b, -1, -1), self.dist_token.expand(b, -1, -1), tokens], dim=1)
        return x + self.pos_embed  # (B, N + 2, D)

    def forward_both(self, images: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Both heads' outputs: (B, num_classes) from the prediction token and from the distillation token."""
        x = self.forward_features(images)  # (B, N + 2, D)
        return self.head(x[:, 0]), self.head_dist(x[:, 1])

    def forward(self, images: torch.Tensor) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:  # type: ignore[override]
        """Training: ``(cls_logits, dist_logits)``. Eval: log of the mean of the two softmaxes, (B, num_classes)."""
        cls_logits, dist_logits = self.forward_both(images)
        if self.training:
            return cls_logits, dist_logits
        return ((cls_logits.softmax(-1) + dist_logits.softmax(-1)) / 2).log()


def distillation_loss(
    outputs: tuple[torch.Tensor, torch.Tensor], labels: torch.Tensor, teacher_logits: torch.Tensor
) -> torch.Tensor:
    """DeiT's hard-label distillation: ``0.5 * CE(cls, labels) + 0.5 * CE(dist, teacher_logits.argmax(-1))``."""
    cls_logits, dist_logits = outputs
    return 0.5 * F.cross_entropy(cls_logits, labels) + 0.5 * F.cross_entropy(
        dist_logits, teacher_logits.argmax(-1)
    )


class SmallCNN(nn.Module):
    """A small CNN: a 3 x 3 convolution of stride 2 (``width // 4`` channels), two 3 x 3 convolutions
    (``width // 2``, ``width``), each with BatchNorm and ReLU, a 2 x 2 max-pool after the first two, a global
    average and a linear head. ``(B, C, H, W) -> (B, num_classes)``; 93,154 parameters at the default width."""

    def __init__(self, in_chans: int = 1, num_classes: int = 2, width: int = 128) -> None:
        super().__init__()
        positive_int("in_chans", in_chans)
        positive_int("num_classes", num_classes)
        if positive_int("width", width) % 4:
            raise ValueError(f"width must be a multiple of 4, got {width}")
        self.in_chans = in_chans
        self.features = nn.Sequential(
            *_conv_bn_relu(in_chans, width // 4, 3, 2),
            nn.MaxPool2d(2),
            *_conv_bn_relu(width // 4, width // 2, 3, 1),
            nn.MaxPool2d(2),
            *_conv_bn_relu(width // 2, width, 3, 1),
        )
        self.head = nn.Linear(width, num_classes)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        """(B, C, H, W) -> (B, num_classes)."""
        return self.head(self.features(images).mean((2, 3)))

"""Input standardisation, and the collapse it cures: why a ViT on raw pixels can stay stuck at its start.

**The collapse.** Raw pixels in [0, 1] share most of their values from picture to picture: the sky is pale at
the top of every scene, the ground dark at the bottom. So every token a patch embedding makes is mostly the same
vector in every picture (the mean picture's patch, embedded) plus a small part that differs. LayerNorm
normalises each token by itself, so it keeps that proportion; at the start every picture gets nearly the same
output (:func:`logit_spread`, the standard deviation of the logits over a batch, is about 1e-3), and the first
steps of training, which push every output towards the class frequencies, shrink the differing part further:
within 50 steps the spread is about 1e-4, the patch embedding's gradient goes towards zero, and the loss stays
at ln(classes). A CNN escapes because its BatchNorm subtracts the batch's mean from every channel at every
place, which removes the shared part. Measured in notebook 14 and ``python -m vitcourse.datascale --part
controls`` (the ViT on raw pixels, per-channel and per-pixel standardised inputs, three seeds each).

**The fix** is what every practitioner does before a network sees a picture: subtract a mean and divide by a
standard deviation, both measured on the training pictures. torchvision's ``Normalize`` does it per channel
(one number each for one channel); :class:`Standardize` does that (``per="channel"``) or per pixel
(``per="pixel"``: the mean picture and the standard deviation of every pixel; what the data-scale sweep uses,
since the per-channel shift is one constant per token that the patch embedding's bias could absorb anyway, and
it leaves the shared picture in place). :class:`Standardized` puts the statistics in front of a model as a
module with buffers, so the trained model takes raw pictures and carries its statistics in its ``state_dict``.
"""

from __future__ import annotations

import torch
from torch import nn

from ._validate import choice, finite_float, instance_of, tensor_of_rank

__all__ = ["PER", "Standardize", "Standardized", "logit_spread"]

#: What :meth:`Standardize.fit` averages over: one mean per channel (torchvision's ``Normalize``) or per pixel.
PER = ("channel", "pixel")


class Standardize(nn.Module):
    """``(images - mean) / std`` with fixed statistics kept as buffers (they move with ``.to`` and are saved).

    Args:
        mean: broadcastable to the images (B, C, H, W): (1, C, 1, 1) per channel, (1, C, H, W) per pixel.
        std: the same shape, every entry above 0.
    """

    def __init__(self, mean: torch.Tensor, std: torch.Tensor) -> None:
        super().__init__()
        tensor_of_rank("mean", mean, 4, "(1, C, 1, 1) or (1, C, H, W)")
        tensor_of_rank("std", std, 4, "(1, C, 1, 1) or (1, C, H, W)")
        if mean.shape != std.shape:
            raise ValueError(
                f"mean and std must have one shape, got {tuple(mean.shape)} and {tuple(std.shape)}"
            )
        if not bool((std > 0).all()):
            raise ValueError("std must be above 0 everywhere")
        self.register_buffer("mean", mean.detach().clone().float())
        self.register_buffer("std", std.detach().clone().float())

    @classmethod
    def fit(cls, images: torch.Tensor, per: str = "pixel", floor: float = 0.05) -> Standardize:
        """Statistics of ``images`` (B, C, H, W): per channel or per pixel; ``std`` at least ``floor``.

        The floor keeps a pixel that is (nearly) the same in every training picture from being divided by
        (nearly) zero: a shape that lands there in a new picture would otherwise become a huge number.
        """
        tensor_of_rank("images", images, 4, "(B, C, H, W)")
        choice("per", per, PER)
        floor = finite_float("floor", floor, 0, above=True)
        if images.shape[0] < 2:
            raise ValueError(
                f"images must hold at least 2 pictures to measure a spread, got {images.shape[0]}"
            )
        dims = (0, 2, 3) if per == "channel" else (0,)
        x = images.detach().double()
        mean = x.mean(dims, keepdim=True)
        std = x.std(dims, keepdim=True).clamp_min(floor)
        return cls(mean.float(), std.float())

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        """(B, C, H, W) -> the same shape, standardised."""
        return (images - self.mean) / self.std


class Standardized(nn.Module):
    """A model with its input statistics in front: ``model(standardize(images))``.

    ``no_weight_decay()`` passes the inner model's names on (with the ``model.`` prefix), so
    :func:`vitcourse.train.param_groups` treats the wrapped model as the bare one.
    """

    def __init__(self, standardize: Standardize, model: nn.Module) -> None:
        super().__init__()
        instance_of("standardize", standardize, Standardize, "a Standardize")
        instance_of("model", model, nn.Module, "a torch.nn.Module")
        self.standardize = standardize
        self.model = model

    def no_weight_decay(self) -> set[str]:
        """The inner model's ``no_weight_decay()`` names, prefixed ``model.``."""
        inner = getattr(self.model, "no_weight_decay", None)
        return {f"model.{name}" for name in (inner() if callable(inner) else ())}

    def forward(self, images: torch.Tensor) -> torch.Tensor | tuple[torch.Tensor, ...]:
        """The inner model's output on the standardised images."""
        return self.model(self.standardize(images))


@torch.no_grad()
def logit_spread(model: nn.Module, images: torch.Tensor) -> float:
    """How much the outputs differ between pictures: the standard deviation over the batch, averaged over outputs.

    A model in the collapse gives every picture nearly the same output, a spread near 0. In training mode a
    model that returns a pair (DeiT's) is read through its first output. The model's mode is left as it was.
    """
    instance_of("model", model, nn.Module, "a torch.nn.Module")
    tensor_of_rank("images", images, 4, "(B, C, H, W)")
    if images.shape[0] < 2:
        raise ValueError(f"images must hold at least 2 pictures, got {images.shape[0]}")
    out = model(images)
    out = out[0] if isinstance(out, tuple) else out
    return out.float().std(0).mean().item()

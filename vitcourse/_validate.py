"""Argument checks shared by the modules: each raises a ValueError or TypeError that names the parameter.

Every module that checks an argument uses these (public within the package, so no module imports another
module's private helper): integers, tensors of a given rank, image sizes, images for a model, and the divisor
lists that error messages offer as valid choices.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import torch

__all__ = [
    "positive_int",
    "non_negative_int",
    "tensor_of_rank",
    "image_size",
    "check_image",
    "divisors",
    "common_divisors",
    "listing",
]


def _int_at_least(name: str, value: object, minimum: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name} must be an int >= {minimum}, got {type(value).__name__} {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, got {value}")
    return value


def positive_int(name: str, value: object) -> int:
    """Return ``value`` if it is an int >= 1, else raise a TypeError/ValueError naming ``name``."""
    return _int_at_least(name, value, 1)


def non_negative_int(name: str, value: object) -> int:
    """Return ``value`` if it is an int >= 0, else raise a TypeError/ValueError naming ``name``."""
    return _int_at_least(name, value, 0)


def tensor_of_rank(name: str, x: object, rank: int, layout: str) -> torch.Tensor:
    """Return ``x`` if it is a tensor with ``rank`` dimensions; ``layout`` (e.g. "(B, C, H, W)") goes in the message."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor of shape {layout}, got {type(x).__name__}")
    if x.ndim != rank:
        raise ValueError(f"{name} must have {rank} dimensions {layout}, got shape {tuple(x.shape)}")
    return x


def image_size(img_size: object) -> tuple[int, int]:
    """An image size as ``(height, width)``: one int means a square; raises naming ``img_size`` otherwise."""
    if isinstance(img_size, int) and not isinstance(img_size, bool):
        img_size = (img_size, img_size)
    if not (isinstance(img_size, tuple | list) and len(img_size) == 2):
        raise TypeError(f"img_size must be an int or a pair (H, W), got {img_size!r}")
    return positive_int("img_size[0] (height)", img_size[0]), positive_int("img_size[1] (width)", img_size[1])


def check_image(images: object, in_chans: int, img_size: tuple[int, int]) -> torch.Tensor:
    """Return ``images`` if it is a (B, in_chans, H, W) tensor with (H, W) == ``img_size``, else raise.

    The message says what the model was built for and the shape to pass.
    """
    tensor_of_rank("images", images, 4, "(B, C, H, W)")
    expected = f"pass images of shape (B, {in_chans}, {img_size[0]}, {img_size[1]})"
    if images.shape[1] != in_chans:
        raise ValueError(
            f"images has {images.shape[1]} channels but the model was built for in_chans={in_chans}; {expected}"
        )
    if tuple(images.shape[2:]) != tuple(img_size):
        raise ValueError(
            f"images are {images.shape[2]} x {images.shape[3]} but the model was built for "
            f"img_size={tuple(img_size)}; {expected}"
        )
    return images


@functools.lru_cache(maxsize=256)
def _divisors(n: int) -> tuple[int, ...]:
    small = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]  # O(sqrt n) trial divisions
    large = [n // d for d in reversed(small) if d * d != n]
    return tuple(small + large)


def divisors(n: int) -> list[int]:
    """All d >= 1 that divide ``n`` (an int >= 1), ascending.

    Found by trial division up to sqrt(n), each divisor d below the root giving its partner n // d; the result
    is cached, so a list asked for again (an error message, a drop-down) is not rebuilt.
    """
    return list(_divisors(positive_int("n", n)))


def common_divisors(height: int, width: int) -> list[int]:
    """The sizes that divide both ``height`` and ``width`` (the divisors of their gcd), ascending."""
    return divisors(math.gcd(positive_int("height", height), positive_int("width", width)))


def listing(values: Sequence[int], limit: int = 12) -> str:
    """``values`` written for a message: the whole list when short, else its ends and how many there are."""
    if len(values) <= limit:
        return str(list(values))
    head, tail = list(values[: limit - 2]), list(values[-2:])
    return f"{str(head)[:-1]}, ..., {str(tail)[1:]} ({len(values)} values)"

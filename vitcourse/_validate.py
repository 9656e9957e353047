"""Argument checks shared by the modules: each raises a ValueError or TypeError that names the parameter."""

from __future__ import annotations

import torch

__all__ = ["positive_int", "non_negative_int", "tensor_of_rank", "divisors"]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def positive_int(name: str, value: object) -> int:
    """Return ``value`` if it is an int >= 1, else raise a TypeError/ValueError naming ``name``."""
    if not _is_int(value):
        raise TypeError(f"{name} must be an int >= 1, got {type(value).__name__} {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be an int >= 1, got {value}")
    return value


def non_negative_int(name: str, value: object) -> int:
    """Return ``value`` if it is an int >= 0, else raise a TypeError/ValueError naming ``name``."""
    if not _is_int(value):
        raise TypeError(f"{name} must be an int >= 0, got {type(value).__name__} {value!r}")
    if value < 0:
        raise ValueError(f"{name} must be an int >= 0, got {value}")
    return value


def tensor_of_rank(name: str, x: object, rank: int, layout: str) -> torch.Tensor:
    """Return ``x`` if it is a tensor with ``rank`` dimensions; ``layout`` (e.g. "(B, C, H, W)") goes in the message."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor of shape {layout}, got {type(x).__name__}")
    if x.ndim != rank:
        raise ValueError(f"{name} must have {rank} dimensions {layout}, got shape {tuple(x.shape)}")
    return x


def divisors(n: int) -> list[int]:
    """All d >= 1 that divide n, ascending."""
    return [d for d in range(1, n + 1) if n % d == 0]

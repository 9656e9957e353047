"""The one place that decides which device the course runs on."""

from __future__ import annotations

import torch

__all__ = ["DEVICES", "get_device"]

DEVICES = ("auto", "cpu", "cuda")


def get_device(name: str = "auto") -> str:
    """``"cuda"`` or ``"cpu"`` for a requested device name.

    ``"auto"`` (the default) picks ``"cuda"`` when a CUDA GPU is available, else ``"cpu"``: every notebook runs
    on either. ``"cuda"`` without a GPU is refused with a ValueError rather than failing later inside torch.
    """
    if not isinstance(name, str):
        raise TypeError(f"device must be one of {DEVICES}, got {type(name).__name__} {name!r}")
    if name not in DEVICES:
        raise ValueError(f"device must be one of {DEVICES}, got {name!r}")
    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise ValueError(
            "device='cuda' was asked for but torch.cuda.is_available() is False; use 'cpu' or 'auto'"
        )
    return name

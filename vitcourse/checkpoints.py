"""Loading checkpoints of the reference implementations into the course's models.

Two sources, each through a documented key map:

**timm** ``VisionTransformer`` (``vit_base/large/huge_patch16_224``). Every key keeps its name; one tensor
changes layout:

    ==============================  ==============================  ===========================================
    timm key                        vitcourse key                   change
    ==============================  ==============================  ===========================================
    patch_embed.proj.weight         patch_embed.proj.weight         (D, C, P, P) conv  ->  (D, C*P*P) linear
    everything else                 the same name                   none
    ==============================  ==============================  ===========================================

**The official T2T-ViT** (transformer tokens-to-token: ``t2t_vit_t_14/19/24`` and the smaller sizes built the
same way). The names are the same on both sides (``tokens_to_token.attention1.attn.qkv.weight``,
``blocks.N.attn.qkv.weight``, ...), so the map is the identity once the wrappers are removed: a
``state_dict`` or ``state_dict_ema`` entry around the weights, and a ``module.`` prefix left by
``DataParallel``. The official ``t2t_vit_7/10/12/14/19/24`` are Performer models (their token blocks hold
``kqv`` and ``w`` keys instead of ``attn.qkv``); the course does not build them, and their checkpoints are
refused with a message that says so and names the ``t2t_vit_t_*`` checkpoints instead.

Every key and shape is checked before anything is loaded: a key the model does not have, a key the checkpoint
lacks, a shape that does not fit (timm's patch weight must be exactly (D, C, P, P) for the model's C and P), a
tensor that is not real floating point (complex, integer) or holds no numbers (the meta device) raises a
``ValueError`` that names it; a key that is not a string, an entry that is not a tensor, or a sparse, nested
or quantized tensor raises a ``TypeError`` (``to_dense()``, ``dequantize()``). :func:`to_timm_vit` maps back, so a
loaded model can be exported again.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import torch
from torch import nn

from ._validate import choice, dense_tensor, instance_of, positive_int

__all__ = ["unwrap", "from_timm_vit", "to_timm_vit", "from_official_t2t", "load_pretrained"]

_PATCH = "patch_embed.proj.weight"


def unwrap(checkpoint: Mapping[str, object]) -> dict[str, torch.Tensor]:
    """Remove the wrappers training scripts add: a ``state_dict``/``state_dict_ema``/``model`` entry, ``module.``."""
    if not isinstance(checkpoint, Mapping):
        raise TypeError(f"checkpoint must be a mapping of names to tensors, got {type(checkpoint).__name__}")
    for wrapper in ("state_dict_ema", "state_dict", "model"):
        inner = checkpoint.get(wrapper)
        if isinstance(inner, Mapping):
            checkpoint = inner
            break
    out = {}
    for key, value in checkpoint.items():
        if not isinstance(key, str):
            raise TypeError(
                f"checkpoint keys must be strings (parameter names), got {type(key).__name__} {key!r}"
            )
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"checkpoint entry {key!r} is {type(value).__name__}, not a tensor")
        dense_tensor(f"checkpoint entry {key!r}", value, shapes_only=True)  # sparse: refused; meta: see below
        out[key.removeprefix("module.")] = value
    return out


def from_timm_vit(state_dict: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """timm ``VisionTransformer`` keys -> vitcourse ``VisionTransformer`` keys (see the module's table)."""
    out = dict(unwrap(state_dict))
    if _PATCH in out and out[_PATCH].ndim == 4:
        shape = tuple(out[_PATCH].shape)
        if shape[2] != shape[3]:
            raise ValueError(
                f"checkpoint entry {_PATCH!r} has shape {shape}; timm's patch weight is (D, C, P, P) with square "
                f"P x P patches"
            )
        out[_PATCH] = out[_PATCH].flatten(1)  # (D, C, P, P) -> (D, C*P*P), the order nn.Unfold uses
    return out


def to_timm_vit(
    state_dict: Mapping[str, torch.Tensor], in_chans: int, patch_size: int
) -> dict[str, torch.Tensor]:
    """vitcourse ``VisionTransformer`` keys -> timm keys; the inverse of :func:`from_timm_vit`.

    ``in_chans`` and ``patch_size`` are the model's C and P; the patch weight must be (D, C * P * P).
    """
    out = unwrap(state_dict)
    positive_int("in_chans", in_chans)
    positive_int("patch_size", patch_size)
    if _PATCH in out:
        weight = out[_PATCH]
        if weight.ndim != 2 or weight.shape[1] != in_chans * patch_size**2:
            raise ValueError(
                f"state_dict entry {_PATCH!r} has shape {tuple(weight.shape)}; with in_chans={in_chans} and "
                f"patch_size={patch_size} it must be (D, {in_chans * patch_size**2}) (D, C * P * P)"
            )
        out[_PATCH] = weight.reshape(weight.shape[0], in_chans, patch_size, patch_size)
    return out


_PERFORMER_KEY = re.compile(r"tokens_to_token\.attention\d\.(kqv\.|w$)")


def from_official_t2t(state_dict: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Official T2T-ViT keys -> vitcourse ``T2TViT`` keys: the identity after removing wrappers.

    Raises:
        ValueError: the checkpoint is one of the official Performer models (``t2t_vit_14``, ...), recognised by
            the ``kqv`` and ``w`` keys of its token blocks; the course builds the ``t2t_vit_t_*`` models only.
    """
    out = unwrap(state_dict)
    performer = sorted(key for key in out if _PERFORMER_KEY.match(key))
    if performer:
        raise ValueError(
            f"the checkpoint has Performer token blocks ({', '.join(performer[:2])}, ...): it is one of the official "
            "Performer models t2t_vit_7/10/12/14/19/24, which vitcourse does not build; load an official "
            "transformer-token checkpoint (t2t_vit_t_14/19/24) into create_model('t2t_vit_t_14') (or _19, _24)"
        )
    return out


def load_pretrained(model: nn.Module, checkpoint: Mapping[str, object], source: str) -> nn.Module:
    """Load a reference checkpoint into ``model`` after checking every key and shape.

    Args:
        model: a vitcourse ``VisionTransformer`` (source "timm") or ``T2TViT`` (source "t2t") built with the
            checkpoint's settings (e.g. ``create_model("vit_base_patch16_224")``).
        checkpoint: the loaded checkpoint (``torch.load(path, weights_only=True)``).
        source: "timm" or "t2t".

    Returns:
        ``model``, with every parameter filled.

    Raises:
        ValueError: an unknown source, or keys/shapes/dtypes that do not fit (all of them are listed).
        TypeError: ``model`` is not a module, ``checkpoint`` not a mapping of names to tensors.
    """
    instance_of("model", model, nn.Module, "a vitcourse model (a torch.nn.Module)")
    converters = {"timm": from_timm_vit, "t2t": from_official_t2t}
    choice("source", source, sorted(converters))
    problems = []
    tokenizer = getattr(model, "patch_embed", None)
    raw = unwrap(checkpoint).get(_PATCH) if source == "timm" else None
    if raw is not None and raw.ndim == 4 and isinstance(tokenizer, nn.Module):
        wanted = (tokenizer.proj.out_features, tokenizer.in_chans, tokenizer.patch_size, tokenizer.patch_size)
        if tuple(raw.shape) != wanted:
            problems.append(
                f"{_PATCH}: checkpoint shape {tuple(raw.shape)}, the model needs {wanted} (D, C, P, P)"
            )
    incoming = converters[source](checkpoint)
    expected = model.state_dict()
    unknown = sorted(set(incoming) - set(expected))
    missing = sorted(set(expected) - set(incoming))
    if unknown:
        problems.append(f"keys the model does not have: {unknown}")
    if missing:
        problems.append(f"keys the checkpoint lacks: {missing}")
    for key in sorted(set(incoming) & set(expected)):
        tensor = incoming[key]
        if tensor.device.type == "meta":
            problems.append(f"{key}: a meta tensor, which holds a shape but no numbers")
        elif tensor.dtype != expected[key].dtype and not (
            tensor.is_floating_point() and expected[key].is_floating_point()
        ):
            problems.append(
                f"{key}: dtype {tensor.dtype}, the model needs {expected[key].dtype} (real floating point)"
            )
        if _PATCH in key and any(_PATCH in p for p in problems):
            continue  # its layout is already reported
        if tensor.shape != expected[key].shape:
            problems.append(
                f"{key}: checkpoint shape {tuple(incoming[key].shape)}, model shape {tuple(expected[key].shape)}"
            )
    if problems:
        raise ValueError(
            f"the {source} checkpoint does not fit {type(model).__name__}: " + "; ".join(problems)
        )
    model.load_state_dict(incoming, strict=True)
    return model

"""Bad input anywhere in the public API gets a TypeError or ValueError that names the parameter.

One property test per kind of parameter (tensors, whole numbers, real numbers, switches, choices, objects,
paths): hypothesis draws a public callable that takes such a parameter and a bad value for it, and the test
asserts the exception type that value must raise and that the message names the parameter. The checkers'
graceful refusal (a hint, never an exception) is swept the same way. The per-kind example counts add up to more
than 2,000 bad inputs per run; every object built is tiny, so the sweep takes seconds.

Six classes that used to reach torch's, numpy's or Python's own errors have a test of their own each:
tensors that are not dense or hold no numbers (sparse, mkldnn, nested, quantized, meta), fed to every public
callable that takes a tensor; sizes whose layer, model or intermediate tensor would exceed
``_validate.LARGEST_ALLOCATION`` elements, fed to everything that allocates from its arguments; arrays that are
no picture or matrix, fed to every figure function; paths a file or folder cannot be written to, given to
every writer and command line; tensors with an empty dimension, fed to every public callable that takes a
tensor; and what a learner's object can raise inside a checker or ``require`` (from its call, its repr, its
message, ``SystemExit``).
"""

from __future__ import annotations

import functools
import re
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no window: these tests draw nothing they show

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from vitcourse import (
    _validate,
    attention,
    blocks,
    check,
    checkpoints,
    classroom,
    cost,
    data,
    device,
    diagrams,
    models,
    plots,
    position,
    preview,
    probes,
    scenes,
    tokens,
    train,
)

BAD = (TypeError, ValueError)


@dataclass(frozen=True)
class Case:
    """One parameter of one public callable: ``call(bad)`` passes ``bad`` for ``param``, every other argument valid."""

    label: str
    param: str
    call: Callable[[object], object]
    options: dict  # what the kind's strategy needs to know: bounds, whether None is allowed, ...


def case(label: str, param: str, call: Callable[[object], object], **options: object) -> Case:
    return Case(label, param, call, options)


# Tiny valid objects the cases reuse (built once, on first use).
@functools.cache
def vit() -> models.VisionTransformer:
    return models.VisionTransformer((8, 8), 4, 1, embed_dim=8, depth=1, num_heads=2)


@functools.cache
def t2t() -> models.T2TViT:
    return models.T2TViT((16, 16), 1, embed_dim=8, depth=1, num_heads=2, token_dim=4)


@functools.cache
def axes() -> plt.Axes:
    return plt.figure().add_subplot()


def kw(func: Callable, **valid: object) -> Callable[[str], Callable[[object], object]]:
    """``kw(f, a=1, b=2)("a")`` is a call of ``f`` with ``a`` replaced by the bad value."""
    return lambda name: lambda bad: func(**{**valid, name: bad})


# ---------------------------------------------------------------------------------------------------------------
# Tensors and images: wrong dtype, wrong shape, wrong device, not a tensor at all.
# options: rank (dimensions wanted), shape (a valid shape), modules=True where a device mismatch must be refused.

TENSORS = [
    case("patchify", "images", lambda x: tokens.patchify(x, 4), rank=4, shape=(1, 1, 8, 8)),
    case("soft_split", "images", lambda x: tokens.soft_split(x, 3), rank=4, shape=(1, 1, 8, 8)),
    case(
        "unsplit",
        "tokens",
        lambda x: tokens.unsplit(x, 6, 6, 3, 2, 1),
        rank=3,
        shape=(1, 9, 9),
        size_axes=[1],
    ),
    case(
        "rebuild_image",
        "tokens",
        lambda x: tokens.rebuild_image(x, 2, 3),
        rank=3,
        shape=(1, 6, 4),
        any_dtype=True,
        size_axes=[1],
    ),
    case("PatchTokenizer", "images", lambda x: vit().patch_embed(x), rank=4, shape=(1, 1, 8, 8), module=True),
    case("VisionTransformer", "images", lambda x: vit()(x), rank=4, shape=(1, 1, 8, 8), module=True),
    case("T2TViT", "images", lambda x: t2t()(x), rank=4, shape=(1, 1, 16, 16), module=True),
    case("TokensToToken", "images", lambda x: t2t().tokenizer(x), rank=4, shape=(1, 1, 16, 16), module=True),
    case(
        "Attention",
        "x",
        lambda x: attention.Attention(4, num_heads=2)(x),
        rank=3,
        shape=(1, 3, 4),
        module=True,
    ),
    case(
        "Attention.steps",
        "x",
        lambda x: attention.Attention(4).steps(x),
        rank=3,
        shape=(1, 3, 4),
        module=True,
    ),
    case("EncoderBlock", "x", lambda x: blocks.EncoderBlock(4, 2)(x), rank=3, shape=(1, 3, 4), module=True),
    case("Mlp", "x", lambda x: blocks.Mlp(4, 8)(x), rank=3, shape=(1, 3, 4), module=True),
    case(
        "TokenTransformer",
        "x",
        lambda x: blocks.TokenTransformer(4, 6)(x),
        rank=3,
        shape=(1, 3, 4),
        module=True,
    ),
    case(
        "scramble_patches",
        "images",
        lambda x: scenes.scramble_patches(x, 4, torch.Generator()),
        rank=4,
        shape=(2, 1, 8, 8),
    ),
    case(
        "cosine_similarity_grid",
        "embedding",
        lambda x: position.cosine_similarity_grid(x, 2, 2),
        rank=2,
        shape=(4, 3),
    ),
    case("row_column_score", "embedding", lambda x: probes.row_column_score(x, 2, 2), rank=2, shape=(4, 3)),
    case(
        "mean_attention_distance",
        "weights",
        lambda x: probes.mean_attention_distance(x, 2, 2, 4),
        rank=2,
        shape=(4, 4),
    ),
    case("to_tensor", "picture", data.to_tensor, rank=2, shape=(6, 10)),
    case(
        "show_picture",
        "picture",
        lambda x: plots.show_picture(x, ax=axes()),
        rank=2,
        shape=(6, 10),
        kinds=["not a tensor"],
    ),
    case(
        "count_macs", "images", lambda x: cost.count_macs(vit(), x), rank=4, shape=(1, 1, 8, 8), module=True
    ),
]


@st.composite
def bad_tensors(draw: st.DrawFn, c: Case) -> tuple[object, type[Exception]]:
    rank, shape = c.options["rank"], c.options["shape"]
    kinds = ["not a tensor", "rank"]
    if not c.options.get("any_dtype"):
        kinds.append("dtype")
    if c.options.get("module"):  # modules check the device and the size they were built for
        kinds += ["device", "size"]
    if "size_axes" in c.options:
        kinds.append("size")
    kind = draw(st.sampled_from(c.options.get("kinds", kinds)))
    if kind == "not a tensor":
        value = draw(st.sampled_from([None, "picture", 3, 2.5, {"x": 1}, object()]))
        return value, TypeError
    if kind == "dtype":
        dtype = draw(st.sampled_from([torch.uint8, torch.int64, torch.int32, torch.bool, torch.complex64]))
        return torch.zeros(shape, dtype=dtype), TypeError
    if kind == "device":
        return torch.zeros(shape, device="meta"), ValueError
    if kind == "rank":
        n = draw(st.integers(0, 5).filter(lambda k: k != rank))
        return torch.zeros(draw(st.lists(st.integers(1, 3), min_size=n, max_size=n))), ValueError
    # the right rank, a wrong size along one of the checked axes (channels/height/width, or the token length)
    axis = draw(st.sampled_from(c.options.get("size_axes", [1, 2, 3] if rank == 4 else [2])))
    size = draw(st.integers(1, 20).filter(lambda s: s != shape[axis]))
    wrong = list(shape)
    wrong[axis] = size
    return torch.zeros(wrong), ValueError


# ---------------------------------------------------------------------------------------------------------------
# Whole numbers (sizes, counts, seeds). options: low (the smallest valid value), none_ok (None means "default").

_config = kw(train.TrainConfig)
_vit = kw(
    models.VisionTransformer, img_size=(8, 8), patch_size=4, in_chans=1, embed_dim=8, depth=1, num_heads=2
)
_t2t = kw(models.T2TViT, img_size=(16, 16), in_chans=1, token_dim=4, embed_dim=8, depth=1, num_heads=2)
_emb = torch.randn(4, 3)

INTS = [
    *(case("count_tokens", n, kw(tokens.count_tokens, height=6, width=6, kernel=3, stride=1, padding=0)(n), low=1)
      for n in ("height", "width", "kernel", "stride")),
    case("count_tokens", "padding", kw(tokens.count_tokens, height=6, width=6, kernel=3, stride=1, padding=0)("padding"), low=0),
    case("stage_grids", "height", kw(tokens.stage_grids, height=60, width=100)("height"), low=1),
    case("t2t_stride_padding", "kernel", tokens.t2t_stride_padding, low=1),
    case("patchify", "patch_size", lambda v: tokens.patchify(torch.zeros(1, 1, 8, 8), v), low=1),
    case("soft_split", "kernel", lambda v: tokens.soft_split(torch.zeros(1, 1, 8, 8), v), low=1),
    case("soft_split", "stride", lambda v: tokens.soft_split(torch.zeros(1, 1, 8, 8), 3, v), low=1, none_ok=True),
    case("soft_split", "padding", lambda v: tokens.soft_split(torch.zeros(1, 1, 8, 8), 3, 2, v), low=0, none_ok=True),
    case("SoftSplit", "kernel", tokens.SoftSplit, low=1),
    case("SoftSplit", "stride", lambda v: tokens.SoftSplit(3, v), low=1, none_ok=True),
    *(case("PatchTokenizer", n, kw(tokens.PatchTokenizer, img_size=(8, 8), patch_size=4, in_chans=1, embed_dim=8)(n), low=1)
      for n in ("patch_size", "in_chans", "embed_dim")),
    case("rebuild_image", "height", lambda v: tokens.rebuild_image(torch.zeros(1, 6, 2), v, 3), low=1),
    case("unsplit", "width", lambda v: tokens.unsplit(torch.zeros(1, 9, 9), 6, v, 3, 2, 1), low=1),
    case("window_corners", "kernel", lambda v: tokens.window_corners(6, 6, v, 1, 0), low=1),
    case("image_size", "img_size", lambda v: _validate.image_size((v, 8)), low=1),
    case("divisors", "n", _validate.divisors, low=1),
    *(case("Attention", n, kw(attention.Attention, dim=4, chan=4, num_heads=1)(n), low=1) for n in ("dim", "num_heads")),
    case("Attention", "chan", kw(attention.Attention, dim=4, chan=4)("chan"), low=1, none_ok=True),
    *(case("Mlp", n, kw(blocks.Mlp, in_features=4, hidden_features=8)(n), low=1) for n in ("in_features", "hidden_features")),
    case("Mlp", "out_features", kw(blocks.Mlp, in_features=4, hidden_features=8)("out_features"), low=1, none_ok=True),
    *(case("EncoderBlock", n, kw(blocks.EncoderBlock, dim=4, num_heads=2)(n), low=1) for n in ("dim", "num_heads")),
    *(case("TokenTransformer", n, kw(blocks.TokenTransformer, dim=4, chan=6)(n), low=1) for n in ("dim", "chan", "num_heads")),
    *(case("VisionTransformer", n, _vit(n), low=1)
      for n in ("patch_size", "in_chans", "embed_dim", "depth", "num_heads", "num_classes")),
    *(case("T2TViT", n, _t2t(n), low=1) for n in ("in_chans", "token_dim", "embed_dim", "depth")),
    case("TokensToToken", "token_dim", kw(models.TokensToToken, img_size=16, embed_dim=8)("token_dim"), low=1),
    case("attention_weights", "block", lambda v: vit().attention_weights(torch.zeros(1, 1, 8, 8), v), low=-1, high=0),
    *(case("sinusoidal_table", n, kw(position.sinusoidal_table, num_tokens=5, dim=8)(n), low=1) for n in ("num_tokens", "dim")),
    *(case("learned_position_embedding", n, kw(position.learned_position_embedding, num_tokens=5, dim=8)(n), low=1)
      for n in ("num_tokens", "dim")),
    case("cosine_similarity_grid", "rows", lambda v: position.cosine_similarity_grid(_emb, v, 2), low=1),
    case("row_column_score", "cols", lambda v: probes.row_column_score(_emb, 2, v), low=2),
    case("mean_attention_distance", "patch", lambda v: probes.mean_attention_distance(torch.eye(4), 2, 2, v), low=1),
    *(case("make_batch", n, kw(scenes.make_batch, task="moon", size=1, seed=0, block=20)(n), low=low)
      for n, low in (("size", 1), ("seed", 0), ("block", 1))),
    case("scene_pool", "size", kw(scenes.scene_pool, task="moon", size=1, seed=0)("size"), low=1),
    *(case("TrainConfig", n, _config(n), low=low)
      for n, low in (("steps", 1), ("batch_size", 2), ("warmup", 0), ("seed", 0), ("train_scenes", 1),
                     ("embed_dim", 1), ("depth", 1), ("num_heads", 1), ("patch_size", 1), ("token_dim", 1))),
    case("TrainConfig", "scramble_block", _config("scramble_block"), low=1, none_ok=True),
    *(case("lr_factor", n, kw(train.lr_factor, step=0, warmup=1, steps=5)(n), low=low)
      for n, low in (("step", 0), ("warmup", 0), ("steps", 1))),
    case("evaluate", "size", lambda v: train.evaluate(vit(), "moon", v), low=1),
    case("count_macs", "depth", lambda v: cost.count_macs(vit(), torch.zeros(1, 1, 8, 8), v), low=1),
    *(case("to_timm_vit", n, kw(checkpoints.to_timm_vit, state_dict={}, in_chans=1, patch_size=4)(n), low=1)
      for n in ("in_chans", "patch_size")),
    case("draw_mountains", "band_height", lambda v: data.draw_mountains(band_height=v), low=0),
    case("pipeline_shapes", "batch", lambda v: diagrams.pipeline_shapes(batch=v), low=1),
    case("token_transformer", "chan", lambda v: diagrams.token_transformer(axes(), chan=v), low=1),
    case("t2t_loop", "height", lambda v: diagrams.t2t_loop(axes(), height=v), low=1),
    # figures: sizes >= 1, indices within the grid, the list or the windows they index
    *(case("soft_split_frames", n, kw(plots.soft_split_frames, picture=np.zeros((6, 8)), kernel=3, stride=2, padding=1)(n), low=low)
      for n, low in (("kernel", 1), ("stride", 1), ("padding", 0), ("scale", 1))),
    *(case("draw_patch_grid", n, kw(plots.draw_patch_grid, ax=axes(), height=60, width=100, patch=20)(n), low=1)
      for n in ("height", "width", "patch")),
    case("draw_windows", "kernel", lambda v: plots.draw_windows(axes(), np.zeros((3, 2)), v), low=1),
    case("draw_windows", "highlight", lambda v: plots.draw_windows(axes(), np.zeros((3, 2)), 2, v), low=0, high=2, none_ok=True),
    case("show_attention_on_picture", "patch", lambda v: plots.show_attention_on_picture(np.zeros((6, 10)), np.zeros((1, 2)), v, 0), low=1),
    case("show_attention_on_picture", "query", lambda v: plots.show_attention_on_picture(np.zeros((6, 10)), np.zeros((1, 15)), 2, v), low=0, high=14, none_ok=True),
    case("outline_rows_and_columns", "size", lambda v: plots.outline_rows_and_columns(axes(), [0], v), low=1),
    case("outline_rows_and_columns", "indices", lambda v: plots.outline_rows_and_columns(axes(), [0, v], 5), low=0, high=4),
    case("show_learning_rate", "warmup", lambda v: plots.show_learning_rate([0.1, 0.2, 0.3], v, ax=axes()), low=0, high=3),
]  # fmt: skip


@st.composite
def bad_ints(draw: st.DrawFn, c: Case) -> tuple[object, type[Exception]]:
    low = c.options["low"]
    wrong_type = [1.5, 2.0, float("nan"), "3", True, False, [1], 1 + 0j, np.float64(2.0)]
    if not c.options.get("none_ok"):
        wrong_type.append(None)
    too_small = st.integers(max_value=low - 1)
    out_of_range = too_small | st.integers(2**63, 2**80)
    if "high" in c.options:  # a bounded index: too large is as bad as too small
        out_of_range = too_small | st.integers(min_value=c.options["high"] + 1)
    which = draw(st.sampled_from(["type", "range"]))
    if which == "type":
        return draw(st.sampled_from(wrong_type)), TypeError
    return draw(out_of_range), ValueError


# ---------------------------------------------------------------------------------------------------------------
# Real numbers. options: low (the bound), above (strictly above it), none_ok.

FLOATS = [
    *(case("EncoderBlock", n, kw(blocks.EncoderBlock, dim=4, num_heads=2)(n), low=0, above=True) for n in ("mlp_ratio", "eps")),
    *(case("TokenTransformer", n, kw(blocks.TokenTransformer, dim=4, chan=6)(n), low=0, above=True) for n in ("mlp_ratio", "eps")),
    case("TokenTransformer", "qk_scale", kw(blocks.TokenTransformer, dim=4, chan=6)("qk_scale"), low=0, above=True, none_ok=True),
    case("Attention", "qk_scale", kw(attention.Attention, dim=4)("qk_scale"), low=0, above=True, none_ok=True),
    *(case("VisionTransformer", n, _vit(n), low=0, above=True) for n in ("mlp_ratio", "norm_eps")),
    *(case("T2TViT", n, _t2t(n), low=0, above=True) for n in ("mlp_ratio", "norm_eps")),
    case("TokensToToken", "norm_eps", kw(models.TokensToToken, img_size=16, embed_dim=8)("norm_eps"), low=0, above=True),
    case("sinusoidal_table", "base", lambda v: position.sinusoidal_table(5, 8, v), low=0, above=True),
    case("learned_position_embedding", "std", lambda v: position.learned_position_embedding(5, 8, v), low=0, above=True),
    case("TrainConfig", "lr", _config("lr"), low=0, above=True),
    case("TrainConfig", "weight_decay", _config("weight_decay"), low=0),
    case("TrainConfig", "mlp_ratio", _config("mlp_ratio"), low=0, above=True),
    case("param_groups", "weight_decay", lambda v: train.param_groups(vit(), v), low=0),
    case("draw_mountains", "moon_radius", lambda v: data.draw_mountains(moon_radius=v), low=0),
    case("draw_mountains", "moon_col", lambda v: data.draw_mountains(moon_col=v)),
    case("draw_mountains", "far_ridge", lambda v: data.draw_mountains(far_ridge=(v, 30.0))),
    case("token_transformer", "mlp_ratio", lambda v: diagrams.token_transformer(axes(), mlp_ratio=v), low=0, above=True),
    *(case("show_picture", n, kw(plots.show_picture, picture=np.zeros((6, 10)), ax=axes())(n)) for n in ("vmin", "vmax", "extent_offset")),
    *(case("show_matrix", n, kw(plots.show_matrix, matrix=np.zeros((3, 3)), ax=axes())(n), none_ok=True) for n in ("vmin", "vmax")),
    case("show_grid_values", "vmin", lambda v: plots.show_grid_values(np.zeros((3, 5)), ax=axes(), vmin=v)),
    case("show_similarity_grid", "vmax", lambda v: plots.show_similarity_grid(np.zeros((1, 2, 1, 2)), vmax=v)),
    case("soft_split_animation", "frames_per_second", lambda v: plots.soft_split_animation(np.zeros((4, 4)), 2, 2, 0, 1, v), low=0, above=True),
]  # fmt: skip


@st.composite
def bad_floats(draw: st.DrawFn, c: Case) -> tuple[object, type[Exception]]:
    wrong_type = ["2", "nan", True, False, [1.0], 1j, {"value": 1.0}]
    if not c.options.get("none_ok"):
        wrong_type.append(None)
    values = [float("nan"), float("inf"), -float("inf"), np.float32("nan")]
    low = c.options.get("low")
    if low is not None:
        values += [low - 1e-3, -1.0, -1e300] + ([low, 0.0] if c.options.get("above") else [])
    if draw(st.booleans()):
        return draw(st.sampled_from(wrong_type)), TypeError
    if low is not None and draw(st.booleans()):  # anything below the bound
        above = c.options.get("above")
        below = st.floats(max_value=low, allow_nan=False, allow_infinity=False)
        return draw(below.filter(lambda f: f < low or (above and f == low))), ValueError
    return draw(st.sampled_from(values)), ValueError


# ---------------------------------------------------------------------------------------------------------------
# Switches: only True and False; a string such as "False" would be truthy.

BOOLS = [
    *(case("Attention", n, kw(attention.Attention, dim=4)(n)) for n in ("qkv_bias", "v_skip", "fused")),
    case("EncoderBlock", "qkv_bias", kw(blocks.EncoderBlock, dim=4, num_heads=2)("qkv_bias")),
    case("TokenTransformer", "qkv_bias", kw(blocks.TokenTransformer, dim=4, chan=6)("qkv_bias")),
    case("VisionTransformer", "qkv_bias", _vit("qkv_bias")),
    case("T2TViT", "qkv_bias", _t2t("qkv_bias")),
    case(
        "TokensToToken",
        "official_scale",
        kw(models.TokensToToken, img_size=16, embed_dim=8)("official_scale"),
    ),
    case("set_fused", "fused", lambda v: attention.set_fused(vit(), v)),
    case("train", "progress", lambda v: train.train(train.TrainConfig(steps=1, batch_size=2), progress=v)),
    case("load_mountains", "original", data.load_mountains, none_ok=True),
    case("show_picture", "colorbar", lambda v: plots.show_picture(np.zeros((6, 10)), ax=axes(), colorbar=v)),
    case("show_matrix", "colorbar", lambda v: plots.show_matrix(np.zeros((3, 3)), ax=axes(), colorbar=v)),
    case(
        "show_grid_values",
        "colorbar",
        lambda v: plots.show_grid_values(np.zeros((3, 5)), ax=axes(), colorbar=v),
    ),
]


@st.composite
def bad_bools(draw: st.DrawFn, c: Case) -> tuple[object, type[Exception]]:
    options = st.sampled_from(["True", "False", "yes", "0", "", 0, 1, 0.0, [], [False], torch.tensor(True)])
    if not c.options.get("none_ok"):
        options |= st.just(None)
    return draw(options | st.text(max_size=8)), TypeError


# ---------------------------------------------------------------------------------------------------------------
# Named choices: a string that is not one of them (ValueError), or not a string (TypeError).

CHOICES = [
    case("create_model", "name", models.create_model, options=tuple(models.PRESETS)),
    case("VisionTransformer", "pos_embed", _vit("pos_embed"), options=position.POSITION_KINDS),
    case("T2TViT", "pos_embed", _t2t("pos_embed"), options=position.POSITION_KINDS),
    case("TrainConfig", "model", _config("model"), options=train.MODELS),
    case("TrainConfig", "pos_embed", _config("pos_embed"), options=position.POSITION_KINDS),
    case("TrainConfig", "task", _config("task"), options=scenes.TASKS),
    case("TrainConfig", "device", _config("device"), options=device.DEVICES),
    case("make_batch", "task", lambda v: scenes.make_batch(v, 2, 0), options=scenes.TASKS),
    case("scene_pool", "task", lambda v: scenes.scene_pool(v, 2, 0), options=scenes.TASKS),
    case("evaluate", "task", lambda v: train.evaluate(vit(), v, 2), options=scenes.TASKS),
    case("row_column_score", "along", lambda v: probes.row_column_score(_emb, 2, 2, v), options=("both", "row", "column")),
    case("load_pretrained", "source", lambda v: checkpoints.load_pretrained(vit(), {}, v), options=("timm", "t2t")),
    case("get_device", "device", device.get_device, options=("auto", "cpu", "cuda")),
    case("load_checkpoint", "device", lambda v: train.load_checkpoint(__file__, v), options=device.DEVICES),
]  # fmt: skip


@st.composite
def bad_choices(draw: st.DrawFn, c: Case) -> tuple[object, type[Exception]]:
    if draw(st.booleans()):
        return draw(st.sampled_from([None, 0, 1.5, b"vit", ["vit"], ("cpu",)])), TypeError
    allowed = c.options["options"]
    text = st.text(max_size=12) | st.sampled_from([o.upper() for o in allowed] + [o + " " for o in allowed])
    return draw(text.filter(lambda t: t not in allowed)), ValueError


# ---------------------------------------------------------------------------------------------------------------
# Objects of the wrong type: None, dicts, strings where a model, config, generator, mapping or Axes is expected.

CONFIG = train.TrainConfig(steps=1, batch_size=2)
OBJECTS = [
    case("count_parameters", "model", models.count_parameters),
    case("set_fused", "model", lambda v: attention.set_fused(v, True)),
    case("count_macs", "model", lambda v: cost.count_macs(v, torch.zeros(1, 1, 8, 8))),
    case("load_pretrained", "model", lambda v: checkpoints.load_pretrained(v, {}, "timm")),
    case("param_groups", "model", lambda v: train.param_groups(v, 0.0)),
    case("evaluate", "model", lambda v: train.evaluate(v, "moon", 1)),
    case("train", "config", train.train),
    case("build_model", "config", train.build_model),
    case("make_optimiser", "config", lambda v: train.make_optimiser(vit(), v)),
    case("save_checkpoint", "result", lambda v: train.save_checkpoint(v, "unused.pt")),
    case("random_scene", "rng", scenes.random_scene),
    case("scramble_patches", "generator", lambda v: scenes.scramble_patches(torch.zeros(2, 1, 8, 8), 4, v)),
    case("unwrap", "checkpoint", checkpoints.unwrap, mapping=True),
    case("from_timm_vit", "checkpoint", checkpoints.from_timm_vit, mapping=True),
    case("to_timm_vit", "checkpoint", lambda v: checkpoints.to_timm_vit(v, 1, 4), mapping=True),
    case(
        "load_pretrained", "checkpoint", lambda v: checkpoints.load_pretrained(vit(), v, "t2t"), mapping=True
    ),
    case("show_picture", "ax", lambda v: plots.show_picture(np.zeros((6, 10)), ax=v), none_ok=True),
    case("show_matrix", "ax", lambda v: plots.show_matrix(np.zeros((3, 3)), ax=v), none_ok=True),
    case("show_token_strip", "ax", lambda v: plots.show_token_strip(np.zeros(9), ax=v), none_ok=True),
    case("draw_patch_grid", "ax", lambda v: plots.draw_patch_grid(v, 60, 100, 20)),
    case("draw_windows", "ax", lambda v: plots.draw_windows(v, np.zeros((1, 2)), 3)),
    case("vit_pipeline", "ax", lambda v: diagrams.vit_pipeline(v), none_ok=True),
    case("encoder_block", "block", lambda v: diagrams.encoder_block(axes(), block=v), none_ok=True),
    case("pipeline_shapes", "model", lambda v: diagrams.pipeline_shapes(v), none_ok=True),
    case("t2t_loop", "ax", lambda v: diagrams.t2t_loop(v), none_ok=True),
    case("stage_grids", "stages", lambda v: tokens.stage_grids(60, 100, v)),
    case("TokensToToken", "stages", lambda v: models.TokensToToken(16, embed_dim=8, stages=v)),
    case("has_solution", "source", classroom.has_solution, str_ok=True),
    case("strip_solutions", "source", classroom.strip_solutions, str_ok=True),
    case("outline_rows_and_columns", "ax", lambda v: plots.outline_rows_and_columns(v, [0], 3)),
]


@st.composite
def bad_objects(draw: st.DrawFn, c: Case) -> tuple[object, type[Exception]]:
    values: list[object] = [0, 1.5, object(), torch.zeros(2), np.zeros(2), b"bytes"]
    if not c.options.get("str_ok"):
        values += ["ax", "model"]
    if not c.options.get("mapping"):  # a mapping is what those want; everything else wants no dict or list
        values += [{}, {"weight": torch.zeros(1)}, [1, 2], CONFIG if c.param != "config" else vit()]
    if not c.options.get("none_ok"):
        values.append(None)
    return draw(st.sampled_from(values)), TypeError


# ---------------------------------------------------------------------------------------------------------------
# Paths and files: not a path (TypeError), no such file (FileNotFoundError), a file that is not what is wanted
# (ValueError), a file where a folder is wanted (ValueError).

WORK = Path(tempfile.mkdtemp(prefix="vitcourse-bad-inputs-"))


def _load_mountains_with_cache(folder: object) -> object:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("VITCOURSE_CACHE", str(folder))
        mp.setenv("VITCOURSE_MOUNTAINS_URL", "file:///nonexistent/mountains.npy")
        return data.load_mountains(True)


@functools.cache
def trained() -> train.TrainResult:
    """A TrainResult as train() returns one, without training (save_checkpoint only reads it)."""
    return train.TrainResult(vit(), CONFIG)


PATHS = [
    case("load_checkpoint", "path", train.load_checkpoint, wants="checkpoint"),
    case("write_shipped_files", "folder", preview.write_shipped_files, wants="folder", none_ok=True),
    case("load_mountains", "VITCOURSE_CACHE", _load_mountains_with_cache, wants="folder", env=True),
    case("save_checkpoint", "path", lambda v: train.save_checkpoint(trained(), v), wants="new file"),
    case("make_shipped", "out_dir", lambda v: train.make_shipped((), v), wants="folder", none_ok=True),
]


@st.composite
def bad_paths(draw: st.DrawFn, c: Case) -> tuple[object, type[Exception]]:
    kinds = ["file"] if c.options.get("env") else ["type", "file"]
    if c.options["wants"] == "checkpoint":
        kinds += ["missing", "folder"]
    if c.options["wants"] == "new file":  # a file to write: an existing file is fine, a folder is not
        kinds = ["type", "folder", "missing", "inside a file"]
    elif c.options["wants"] == "folder" and not c.options.get("env"):
        kinds.append("inside a file")
    kind = draw(st.sampled_from(kinds))
    if kind == "type":
        values: list[object] = [0, 1.5, ["a.pt"], b"a.pt", {"path": "a.pt"}]
        return draw(st.sampled_from(values + ([] if c.options.get("none_ok") else [None]))), TypeError
    name = draw(st.text("abcdefghij0123456789_", min_size=1, max_size=12))
    if kind == "missing":
        return WORK / "missing" / f"{name}.pt", FileNotFoundError
    if kind == "folder":  # a folder where a file is wanted (to read: not found; to write: not a file)
        (WORK / name).mkdir(exist_ok=True)
        return WORK / name, FileNotFoundError if c.options["wants"] == "checkpoint" else ValueError
    if kind == "inside a file":  # a path that would need a file to be a folder
        (WORK / f"{name}.file").write_bytes(b"")
        return WORK / f"{name}.file" / "inside" / "x.pt", ValueError
    target = WORK / f"{name}.file"  # a file that is no checkpoint, or a file where a folder is wanted
    target.write_bytes(draw(st.binary(max_size=64)))
    return str(target) if draw(st.booleans()) else target, ValueError


# ---------------------------------------------------------------------------------------------------------------
# The tests: one per kind.

STRATEGIES = {
    "tensors": (TENSORS, bad_tensors, 350),
    "ints": (INTS, bad_ints, 550),
    "floats": (FLOATS, bad_floats, 350),
    "bools": (BOOLS, bad_bools, 250),
    "choices": (CHOICES, bad_choices, 250),
    "objects": (OBJECTS, bad_objects, 300),
    "paths": (PATHS, bad_paths, 100),
}


def _sweep(kind: str) -> None:
    cases, strategy, examples = STRATEGIES[kind]

    @settings(max_examples=examples, deadline=None, database=None)
    @given(st.data())
    def run(drawn: st.DataObject) -> None:
        c = drawn.draw(st.sampled_from(cases), label="case")
        value, expected = drawn.draw(strategy(c), label="bad value")
        with pytest.raises(BAD + (FileNotFoundError,)) as caught:
            c.call(value)
        assert isinstance(caught.value, expected), (
            f"{c.label}({c.param}={value!r:.60}) raised {type(caught.value).__name__}, expected {expected.__name__}: "
            f"{caught.value}"
        )
        assert c.param in str(caught.value), (
            f"{c.label}: the message does not name {c.param!r}: {caught.value}"
        )

    try:
        run()
    finally:
        plt.close("all")


@pytest.mark.parametrize("kind", list(STRATEGIES))
def test_bad_input_is_refused_naming_the_parameter(kind: str) -> None:
    _sweep(kind)


def test_the_sweep_draws_at_least_2000_bad_inputs_per_run() -> None:
    assert sum(examples for _, _, examples in STRATEGIES.values()) >= 2000


def test_every_case_accepts_a_valid_value() -> None:
    """The sweep is honest only if each case's other arguments are valid: with the good value, no error."""
    good = {
        ("count_tokens", "height"): 6,
        ("VisionTransformer", "embed_dim"): 8,
        ("EncoderBlock", "mlp_ratio"): 2.0,
        ("Attention", "qkv_bias"): True,
        ("create_model", "name"): None,  # building a preset is slow: checked with the meta device below
        ("count_parameters", "model"): vit(),
        ("patchify", "images"): torch.zeros(1, 1, 8, 8),
        ("VisionTransformer", "images"): torch.zeros(1, 1, 8, 8, dtype=torch.float64),  # cast, not refused
        ("T2TViT", "images"): torch.zeros(1, 1, 16, 16, dtype=torch.float16),
        ("load_mountains", "original"): False,
        ("TrainConfig", "lr"): 1e-3,
        ("row_column_score", "along"): "row",
        ("draw_patch_grid", "ax"): axes(),
    }
    by_key = {(c.label, c.param): c for cases, _, _ in STRATEGIES.values() for c in cases}
    for key, value in good.items():
        if value is not None:
            by_key[key].call(value)
    with torch.device("meta"):
        models.create_model(sorted(models.PRESETS)[0])
    plt.close("all")


# ---------------------------------------------------------------------------------------------------------------
# Tensors that are not dense or hold no numbers: every public callable that takes a tensor, given one such
# tensor of the right shape, raises a TypeError (sparse, mkldnn, nested, quantized: it says how to convert) or,
# for a meta tensor, a ValueError, naming the parameter; never torch's NotImplementedError or RuntimeError.
# meta_ok: the callable only moves entries around (tokens) or keeps tensors as they are (a checkpoint's keys),
# so a meta tensor in gives a meta tensor out (models built on the meta device are run that way for shapes).


@functools.cache
def vit_state() -> dict[str, torch.Tensor]:
    return dict(vit().state_dict())


def _with_head(x: torch.Tensor) -> dict[str, torch.Tensor]:
    return {**vit_state(), "head.weight": x}


LAYOUTS = [
    case("patchify", "images", lambda x: tokens.patchify(x, 4), shape=(1, 1, 8, 8), meta_ok=True),
    case("soft_split", "images", lambda x: tokens.soft_split(x, 3), shape=(1, 1, 8, 8), meta_ok=True),
    case("SoftSplit", "images", lambda x: tokens.SoftSplit(3)(x), shape=(1, 1, 8, 8), meta_ok=True),
    case("unsplit", "tokens", lambda x: tokens.unsplit(x, 6, 6, 3, 2, 1), shape=(1, 9, 9), meta_ok=True),
    case("rebuild_image", "tokens", lambda x: tokens.rebuild_image(x, 2, 3), shape=(1, 6, 4), meta_ok=True),
    case("PatchTokenizer", "images", lambda x: vit().patch_embed(x), shape=(1, 1, 8, 8)),
    case("VisionTransformer", "images", lambda x: vit()(x), shape=(1, 1, 8, 8)),
    case("attention_weights", "images", lambda x: vit().attention_weights(x), shape=(1, 1, 8, 8)),
    case("T2TViT", "images", lambda x: t2t()(x), shape=(1, 1, 16, 16)),
    case("TokensToToken", "images", lambda x: t2t().tokenizer(x), shape=(1, 1, 16, 16)),
    case("Attention", "x", lambda x: attention.Attention(4, num_heads=2)(x), shape=(1, 3, 4)),
    case("Attention.steps", "x", lambda x: attention.Attention(4).steps(x), shape=(1, 3, 4)),
    case("EncoderBlock", "x", lambda x: blocks.EncoderBlock(4, 2)(x), shape=(1, 3, 4)),
    case("Mlp", "x", lambda x: blocks.Mlp(4, 8)(x), shape=(1, 3, 4)),
    case("TokenTransformer", "x", lambda x: blocks.TokenTransformer(4, 6)(x), shape=(1, 3, 4)),
    case("clearest_row", "weights", attention.clearest_row, shape=(1, 4, 4)),
    case("scramble_patches", "images", lambda x: scenes.scramble_patches(x, 4, torch.Generator()), shape=(2, 1, 8, 8)),
    case("cosine_similarity_grid", "embedding", lambda x: position.cosine_similarity_grid(x, 2, 2), shape=(4, 3)),
    case("resize_position_embedding", "pos_embed", lambda x: position.resize_position_embedding(x, (2, 2), (1, 1)), shape=(1, 5, 8)),
    case("row_column_score", "embedding", lambda x: probes.row_column_score(x, 2, 2), shape=(4, 3)),
    case("attention_entropy", "weights", probes.attention_entropy, shape=(4, 4)),
    case("mean_attention_distance", "weights", lambda x: probes.mean_attention_distance(x, 2, 2, 4), shape=(4, 4)),
    case("count_macs", "images", lambda x: cost.count_macs(vit(), x), shape=(1, 1, 8, 8)),
    case("where_predictions", "outputs", train.where_predictions, shape=(2, 8)),
    case("to_tensor", "picture", data.to_tensor, shape=(6, 10)),
    case("as_numpy", "x", plots.as_numpy, shape=(6, 10), empty_ok=True),
    case("show_picture", "picture", lambda x: plots.show_picture(x, ax=axes()), shape=(6, 10)),
    case("show_matrix", "matrix", lambda x: plots.show_matrix(x, ax=axes()), shape=(3, 3)),
    case("show_table_columns", "table", lambda x: plots.show_table_columns(x, [0, 1], ax=axes()), shape=(4, 6)),
    case("show_token_strip", "token", lambda x: plots.show_token_strip(x, ax=axes()), shape=(9,)),
    case("show_counts", "counts", lambda x: plots.show_counts(x, ax=axes()), shape=(6, 10)),
    case("show_grid_values", "values", lambda x: plots.show_grid_values(x, ax=axes()), shape=(3, 5)),
    case("show_similarity_grid", "sims", plots.show_similarity_grid, shape=(2, 2, 2, 2)),
    case("show_attention_on_picture", "picture", lambda x: plots.show_attention_on_picture(x, np.zeros((1, 2)), 5, 0), shape=(5, 10)),
    case("show_attention_on_picture", "weights", lambda x: plots.show_attention_on_picture(np.zeros((5, 10)), x, 5, 0), shape=(1, 2)),
    case("draw_windows", "corners", lambda x: plots.draw_windows(axes(), x, 3), shape=(2, 2), empty_ok=True),
    case("show_learning_rate", "lrs", lambda x: plots.show_learning_rate(x, 1, ax=axes()), shape=(3,)),
    case("soft_split_frames", "picture", lambda x: plots.soft_split_frames(x, 3, 2, 1, 1), shape=(6, 8)),
    case("load_pretrained", "head.weight", lambda x: checkpoints.load_pretrained(vit(), _with_head(x), "timm"), shape=(1, 8)),
    case("unwrap", "head.weight", lambda x: checkpoints.unwrap(_with_head(x)), shape=(1, 8), meta_ok=True, empty_ok=True),
    case("from_timm_vit", "head.weight", lambda x: checkpoints.from_timm_vit(_with_head(x)), shape=(1, 8), meta_ok=True, empty_ok=True),
    case("to_timm_vit", "head.weight", lambda x: checkpoints.to_timm_vit(_with_head(x), 1, 4), shape=(1, 8), meta_ok=True, empty_ok=True),
]  # fmt: skip

NOT_DENSE = {  # a tensor of the given (dense, float32) values in another layout, or None where torch has none
    "sparse_coo": lambda x: x.to_sparse(),
    "sparse_csr": lambda x: x.to_sparse_csr() if x.ndim >= 2 else None,
    "sparse_csc": lambda x: x.to_sparse_csc() if x.ndim == 2 else None,
    "sparse_bsr": lambda x: x.to_sparse_bsr((1, 1)) if x.ndim == 2 else None,
    "mkldnn": lambda x: x.to_mkldnn(),
    "nested": lambda x: torch.nested.nested_tensor(list(x)) if x.ndim >= 2 else None,
    "quantized": lambda x: torch.quantize_per_tensor(x, 0.01, 0, torch.qint8),
    "meta": lambda x: x.to("meta"),
}


@pytest.mark.filterwarnings("ignore::UserWarning")  # torch: sparse CSR, nested and quantized tensors are beta
@pytest.mark.parametrize("kind", list(NOT_DENSE))
@pytest.mark.parametrize("c", LAYOUTS, ids=lambda c: f"{c.label}-{c.param}")
def test_tensors_that_are_not_dense_or_hold_no_numbers_are_refused_naming_the_parameter(
    c: Case, kind: str
) -> None:
    values = torch.rand(c.options["shape"], generator=torch.Generator().manual_seed(0))
    index = torch.arange(values.shape[-1])  # zeros in a checkerboard along the last axes: every batch entry
    values[..., index % 2 == 1] = 0  # of a batched sparse_csr tensor then holds as many numbers as the others
    bad = NOT_DENSE[kind](values)
    if bad is None:
        pytest.skip(f"torch has no {kind} tensor of rank {values.ndim}")
    try:
        if kind == "meta" and c.options.get("meta_ok"):  # shapes only: a meta result, no error
            out = c.call(bad)
            assert (out[c.param] if isinstance(out, dict) else out).is_meta
            return
        with pytest.raises(BAD) as caught:
            c.call(bad)
    finally:
        plt.close("all")
    expected = ValueError if kind == "meta" else TypeError
    assert isinstance(caught.value, expected), (
        f"{c.label}({c.param}=<{kind}>) raised {type(caught.value).__name__}: {caught.value}"
    )
    assert c.param in str(caught.value), f"{c.label}: the message does not name {c.param!r}: {caught.value}"
    advice = {"meta": "no numbers", "quantized": "dequantize()", "nested": "to_padded_tensor"}
    assert advice.get(kind, "to_dense()") in str(caught.value)


def test_a_model_built_on_the_meta_device_still_runs_on_meta_images_for_its_shapes() -> None:
    with torch.device("meta"):
        model = models.VisionTransformer((8, 8), 4, 1, embed_dim=8, depth=1, num_heads=2)
    images = torch.zeros(3, 1, 8, 8, device="meta")
    assert model(images).shape == (3, 1) and model(images).is_meta
    assert sum(cost.count_macs(model, images).values()) > 0
    with pytest.raises(ValueError, match="images is on device meta but the module's parameters are on cpu"):
        vit()(images)


# ---------------------------------------------------------------------------------------------------------------
# Sizes beyond what any machine holds: everything that allocates from its arguments (layers, models, position
# tables, batches, intermediate tensors), given a size that asks for more than LARGEST_ALLOCATION elements,
# raises a ValueError naming the argument, before allocating (a failure would be torch's RuntimeError, or a
# MemoryError, or a hang).

_big_t2t = kw(models.T2TViT, img_size=(16, 16), in_chans=1, token_dim=4, embed_dim=8, depth=1, num_heads=1)
_big_vit = kw(
    models.VisionTransformer, img_size=(8, 8), patch_size=4, in_chans=1, embed_dim=8, depth=1, num_heads=1
)

ALLOCATIONS = [
    *(case("PatchTokenizer", n, kw(tokens.PatchTokenizer, img_size=(8, 12), patch_size=4, in_chans=1, embed_dim=8)(n))
      for n in ("in_chans", "embed_dim")),
    *(case("Attention", n, kw(attention.Attention, dim=4, chan=4)(n)) for n in ("dim", "chan")),
    *(case("Mlp", n, kw(blocks.Mlp, in_features=4, hidden_features=8, out_features=4)(n))
      for n in ("in_features", "hidden_features", "out_features")),
    case("EncoderBlock", "dim", lambda v: blocks.EncoderBlock(v, 1)),
    case("EncoderBlock", "mlp_ratio", lambda v: blocks.EncoderBlock(4, 1, mlp_ratio=float(v))),
    *(case("TokenTransformer", n, kw(blocks.TokenTransformer, dim=4, chan=4)(n)) for n in ("dim", "chan")),
    *(case("VisionTransformer", n, _big_vit(n)) for n in ("in_chans", "embed_dim", "depth", "num_classes")),
    case("VisionTransformer", "img_size", lambda v: models.VisionTransformer((v, 8), 1, 1, embed_dim=8, depth=1, num_heads=1)),
    *(case("T2TViT", n, _big_t2t(n)) for n in ("in_chans", "token_dim", "embed_dim", "depth", "num_classes")),
    *(case("TokensToToken", n, kw(models.TokensToToken, img_size=16, in_chans=1, token_dim=4, embed_dim=8)(n))
      for n in ("in_chans", "token_dim", "embed_dim")),
    case("T2TViT", "stages", lambda v: _big_t2t("stages")(((3, 2, v),))),
    *(case("build_model", n, lambda v, n=n: train.build_model(train.TrainConfig(**{"num_heads": 1, n: v})))
      for n in ("embed_dim", "depth")),
    *(case("sinusoidal_table", n, kw(position.sinusoidal_table, num_tokens=5, dim=8)(n)) for n in ("num_tokens", "dim")),
    *(case("learned_position_embedding", n, kw(position.learned_position_embedding, num_tokens=5, dim=8)(n))
      for n in ("num_tokens", "dim")),
    case("resize_position_embedding", "new_grid", lambda v: position.resize_position_embedding(torch.zeros(1, 5, 8), (2, 2), (v, 1))),
    case("soft_split", "padding", lambda v: tokens.soft_split(torch.zeros(1, 1, 1, 1), 3, 1, v)),
    case("unsplit", "height", lambda v: tokens.unsplit(torch.zeros(1, 1, 1), v, 1, 1, v, 0)),
    case("window_corners", "height", lambda v: tokens.window_corners(v, 1, 1, 1, 0)),
    case("make_batch", "size", lambda v: scenes.make_batch("moon", v, 0)),
    case("scene_pool", "size", lambda v: scenes.scene_pool("moon", v, 0)),
    case("evaluate", "size", lambda v: train.evaluate(vit(), "moon", v)),
    case("soft_split_frames", "scale", lambda v: plots.soft_split_frames(np.zeros((4, 4)), 2, 2, 0, v)),
]  # fmt: skip


@settings(max_examples=300, deadline=None, database=None)
@given(
    c=st.sampled_from(ALLOCATIONS), size=st.integers(2 * _validate.LARGEST_ALLOCATION, _validate.LARGEST_INT)
)
def test_sizes_beyond_any_machine_are_refused_before_allocating(c: Case, size: int) -> None:
    with pytest.raises(ValueError) as caught:
        c.call(size)
    assert c.param in str(caught.value), f"{c.label}: the message does not name {c.param!r}: {caught.value}"
    assert "2**40" in str(caught.value)


@settings(max_examples=60, deadline=None, database=None)
@given(
    dim=st.integers(2, 24),
    heads=st.sampled_from([1, 2]),
    ratio=st.sampled_from([0.5, 1.0, 3.0]),
    bias=st.booleans(),
)
def test_the_counts_the_size_check_uses_equal_the_parameters_built(
    dim: int, heads: int, ratio: float, bias: bool
) -> None:
    dim *= heads
    chan = dim + 2 * heads
    count = lambda module: models.count_parameters(module)[0]  # noqa: E731
    assert blocks.EncoderBlock.parameter_count(dim, ratio, bias) == count(
        blocks.EncoderBlock(dim, heads, ratio, bias)
    )
    assert blocks.TokenTransformer.parameter_count(dim, chan, ratio, bias) == count(
        blocks.TokenTransformer(dim, chan, heads, ratio, bias)
    )
    assert blocks.Mlp.parameter_count(dim, chan, 3) == count(blocks.Mlp(dim, chan, 3))
    assert attention.Attention.parameter_count(dim, chan, bias) == count(
        attention.Attention(dim, chan, heads, bias)
    )
    assert tokens.PatchTokenizer.parameter_count(2, heads, dim) == count(
        tokens.PatchTokenizer((4, 6), 2, heads, dim)
    )


def test_the_largest_presets_fit_under_the_limit() -> None:
    """The limit refuses only what no machine holds: every preset (ViT-Huge: 632 M parameters) is far below it."""
    with torch.device("meta"):
        for name in models.PRESETS:
            assert models.count_parameters(models.create_model(name))[0] < _validate.LARGEST_ALLOCATION / 1000


# ---------------------------------------------------------------------------------------------------------------
# Figures: every array a figure function draws is checked the way the model side checks images. An array that
# is no picture (not 2-D after squeezing, or empty), no matrix, no similarity grid, gets a ValueError naming it;
# never an IndexError from inside numpy or matplotlib.


def _picture_ok(shape: tuple[int, ...]) -> bool:
    """(H, W), (1, H, W) or (1, 1, H, W), none empty: one picture, one channel (plots._image's rule)."""
    return 2 <= len(shape) <= 4 and all(d == 1 for d in shape[:-2]) and 0 not in shape


FIGURE_ARRAYS = [
    case("show_picture", "picture", lambda x: plots.show_picture(x, ax=axes()), valid=_picture_ok),
    case("show_counts", "counts", lambda x: plots.show_counts(x, ax=axes()), valid=_picture_ok),
    case("soft_split_frames", "picture", lambda x: plots.soft_split_frames(x, 1, 1, 0, 1), valid=_picture_ok),
    case("soft_split_animation", "picture", lambda x: plots.soft_split_animation(x, 1, 1, 0, 1), valid=_picture_ok),
    case("show_attention_on_picture", "picture", lambda x: plots.show_attention_on_picture(x, np.zeros((1, 1)), 1, None),
         valid=_picture_ok),
    case("show_matrix", "matrix", lambda x: plots.show_matrix(x, ax=axes()), valid=lambda s: len(s) == 2 and 0 not in s),
    case("show_grid_values", "values", lambda x: plots.show_grid_values(x, ax=axes()), valid=lambda s: len(s) == 2 and 0 not in s),
    case("show_token_strip", "token", lambda x: plots.show_token_strip(x, ax=axes()), valid=lambda s: 0 not in s),
    case("show_similarity_grid", "sims", plots.show_similarity_grid,
         valid=lambda s: len(s) == 4 and s[:2] == s[2:] and 0 not in s),
    case("draw_windows", "corners", lambda x: plots.draw_windows(axes(), x, 2), valid=lambda s: len(s) == 2 and s[1] == 2),
]  # fmt: skip


@settings(max_examples=300, deadline=None, database=None)
@given(
    c=st.sampled_from(FIGURE_ARRAYS),
    shape=st.lists(st.integers(0, 4), max_size=5).map(tuple),
    as_tensor=st.booleans(),
)
def test_figure_functions_refuse_arrays_of_the_wrong_shape_naming_them(
    c: Case, shape: tuple[int, ...], as_tensor: bool
) -> None:
    if c.options["valid"](shape):
        return  # a valid shape: drawn elsewhere (the notebooks); here only what must be refused
    array = np.zeros(shape)
    try:
        with pytest.raises(ValueError) as caught:
            c.call(torch.from_numpy(array) if as_tensor else array)
    finally:
        plt.close("all")
    assert c.param in str(caught.value), f"{c.label}: the message does not name {c.param!r}: {caught.value}"


@pytest.mark.parametrize(
    "call, phrase",
    [
        (lambda: plots.soft_split_frames(np.zeros(5), 3, 2, 1), "picture must be a non-empty (H, W) array"),
        (lambda: plots.soft_split_frames(np.zeros((6, 8)), 3, 2, 1, 0), "scale must be an int >= 1"),
        (lambda: plots.soft_split_frames(np.zeros((6, 8)), 9, 1, 0), "kernel=9 is larger than the padded height"),
        (lambda: plots.draw_patch_grid(axes(), 60, 100, 200), "patch=200 is larger than the 60 x 100 picture"),
        (lambda: plots.draw_patch_grid(axes(), 60, 100, 20, numbers=[1, 2]), "numbers must hold one label per patch"),
        (lambda: plots.draw_patch_grid(axes(), 60, 100, 20, numbers="1 2"), "numbers must be True, False or a sequence"),
        (lambda: plots.draw_windows(axes(), np.full((2, 2), np.nan), 3), "corners must hold finite numbers"),
        (lambda: plots.draw_windows(axes(), np.zeros((2, 2)), 3, color="no such colour"), "color must be a matplotlib colour"),
        (lambda: plots.show_attention_on_picture(np.zeros((60, 100)), np.zeros((2, 15)), 7, 1), "patch=7 does not divide"),
        (lambda: plots.show_attention_on_picture(np.zeros((60, 100)), np.zeros((0, 15)), 20, 1), "heads >= 1"),
        (lambda: plots.show_picture(np.zeros((6, 10)), ax=axes(), vmin=1, vmax=0), "vmin must be <= vmax"),
        (lambda: plots.show_matrix(np.zeros((3, 3)), ax=axes(), aspect="wide"), "aspect must be 'auto', 'equal'"),
        (lambda: plots.show_counts(np.full((3, 3), 0.5), ax=axes()), "counts must hold whole numbers"),
        (lambda: plots.show_counts(np.arange(1000).reshape(10, 100), ax=axes()), "counts span 1000 values"),
        (lambda: plots.show_grid_values(np.full((3, 5), np.nan), ax=axes()), "values must hold finite numbers"),
        (lambda: plots.show_learning_rate([0.1, float("inf")], 0, ax=axes()), "lrs must hold finite numbers"),
        (lambda: plots.show_learning_rate([], 0, ax=axes()), "lrs must hold at least one learning rate"),
        (lambda: plots.show_learning_rate([0.1, [0.2, 0.3]], 0, ax=axes()), "lrs must be a flat sequence"),
    ],
)  # fmt: skip
def test_figure_settings_that_do_not_fit_are_refused_with_a_reason(
    call: Callable[[], object], phrase: str
) -> None:
    try:
        with pytest.raises(BAD, match=re.escape(phrase)):
            call()
    finally:
        plt.close("all")


# ---------------------------------------------------------------------------------------------------------------
# Paths to write to: checked before any work, by the functions (swept above: save_checkpoint, make_shipped,
# write_shipped_files) and by every command line that writes (--save, --out, --nbgrader-course).


def _unwritable(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every place look read-only (root may write anywhere, so a chmod would not do)."""
    monkeypatch.setattr(_validate.os, "access", lambda path, mode: False)


@pytest.mark.parametrize("kind", ["folder", "missing folder", "inside a file", "read-only", "empty"])
def test_train_refuses_a_save_path_it_cannot_write_before_training(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    (tmp_path / "a.file").write_text("")
    path = {
        "folder": tmp_path,
        "missing folder": tmp_path / "missing" / "run.pt",
        "inside a file": tmp_path / "a.file" / "run.pt",
        "read-only": tmp_path / "run.pt",
        "empty": "",
    }[kind]
    if kind == "read-only":
        _unwritable(monkeypatch)
    monkeypatch.setattr(train, "train", lambda *a, **k: pytest.fail("trained before checking --save"))
    with pytest.raises(SystemExit) as caught:
        train.main(["--steps", "1", "--batch-size", "2", "--no-progress", "--save", str(path)])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert "--save" in err and ("folder" in err or "write" in err), err


@pytest.mark.parametrize(
    "main, option",
    [(preview.main, "--out"), (classroom.main, "--out"), (classroom.main, "--nbgrader-course")],
)
@pytest.mark.parametrize("kind", ["a file", "inside a file", "read-only"])
def test_command_lines_refuse_an_output_folder_they_cannot_write(
    main: Callable,
    option: str,
    kind: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture,
) -> None:
    (tmp_path / "a.file").write_text("")
    folder = {
        "a file": tmp_path / "a.file",
        "inside a file": tmp_path / "a.file" / "out",
        "read-only": tmp_path / "new",
    }
    if kind == "read-only":
        _unwritable(monkeypatch)
    notebook = tmp_path / "00_x.ipynb"
    notebook.write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
    argv = [option, str(folder[kind])] + ([str(notebook)] if main is classroom.main else [])
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert option in err, err
    assert not (tmp_path / "new").exists()


def test_classroom_refuses_a_folder_given_as_a_notebook(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    with pytest.raises(SystemExit):
        classroom.main(["--out", str(tmp_path / "out"), str(tmp_path)])
    assert "is not a file" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------------------------
# Checkers: a hint, never an exception, whatever the answer.

# `require` is the grading cells' assertion (nbgrader): it raises on a wrong answer by design.
CHECKERS = [getattr(check, name) for name in check.__all__ if name not in ("Verdict", "require")]


def _exits(*args: object) -> object:
    sys.exit("learner code called sys.exit")


def _raises_keyerror(*args: object) -> object:
    raise KeyError(101)


@settings(max_examples=300, deadline=None, database=None)
@given(
    checker=st.sampled_from(CHECKERS),
    answer=st.sampled_from(
        [None, "12", float("nan"), float("inf"), -1, 10**30, True, [], {}, (1,), torch.zeros(0), np.zeros((2, 2)),
         torch.tensor(float("nan")), torch.zeros(3, dtype=torch.complex64), _exits, _raises_keyerror, print, int]
    )
    | st.integers()
    | st.floats()
    | st.text(max_size=5),
)  # fmt: skip
def test_checkers_answer_any_input_with_a_hint_and_never_raise(checker: Callable, answer: object) -> None:
    verdict = checker(answer)
    assert isinstance(verdict, check.Verdict)
    assert verdict.message.startswith(("✓", "✗")) and len(verdict.message) > 3


@pytest.mark.parametrize(
    "checker", [c for c in CHECKERS if c.__name__.endswith("_function")], ids=lambda c: c.__name__
)
def test_a_learner_function_that_calls_sys_exit_gets_a_hint(
    checker: Callable, capsys: pytest.CaptureFixture
) -> None:
    verdict = checker(_exits)
    assert not verdict
    assert "SystemExit" in verdict.message
    assert "SystemExit" in capsys.readouterr().out


# ---------------------------------------------------------------------------------------------------------------
# Empty dimensions: a tensor with a 0 anywhere in its shape, fed to every callable of LAYOUTS (each tensor
# parameter of the public API), is refused with a ValueError naming the parameter, never torch's RuntimeError
# or an empty result. Not refused (empty_ok): as_numpy (a conversion, any shape), draw_windows (no windows: an
# empty list to draw) and the state-dict converters (they rename keys and pass tensors through;
# load_pretrained compares every shape with the model's).


def _emptied(shape: tuple[int, ...]) -> list[tuple[int, ...]]:
    return [shape[:i] + (0,) + shape[i + 1 :] for i in range(len(shape))]


@pytest.mark.parametrize(
    "c", [c for c in LAYOUTS if not c.options.get("empty_ok")], ids=lambda c: f"{c.label}-{c.param}"
)
def test_tensors_with_an_empty_dimension_are_refused_naming_the_parameter(c: Case) -> None:
    for shape in _emptied(c.options["shape"]):
        try:
            with pytest.raises(ValueError) as caught:
                c.call(torch.zeros(shape))
        finally:
            plt.close("all")
        message = str(caught.value)
        assert c.param in message, f"{c.label}{shape}: the message does not name {c.param!r}: {message}"


@pytest.mark.parametrize(
    "call",
    [
        lambda: tokens.patchify(torch.zeros(0, 1, 8, 8), 4),
        lambda: tokens.soft_split(torch.zeros(1, 0, 8, 8), 3),
        lambda: tokens.unsplit(torch.zeros(1, 9, 0), 6, 6, 3, 2, 1),
        lambda: scenes.scramble_patches(torch.zeros(0, 1, 8, 8), 4, torch.Generator()),
        lambda: position.cosine_similarity_grid(torch.zeros(4, 0), 2, 2),
        lambda: position.cosine_similarity_grid(torch.zeros(1, 4, 0), 2, 2),
    ],
)
def test_the_reported_empty_inputs_say_which_dimension_is_empty(call: Callable[[], object]) -> None:
    with pytest.raises(
        ValueError, match=r"empty in dimension \d: every dimension of .* needs at least one entry"
    ):
        call()


# ---------------------------------------------------------------------------------------------------------------
# Generators: the package draws on the CPU; a generator on another device is refused naming the parameter.

GENERATOR_CALLS = [
    ("scramble_patches", lambda g: scenes.scramble_patches(torch.zeros(2, 1, 8, 8), 4, g)),
    ("random_mask", lambda g: __import__("vitcourse.masked").masked.random_mask(2, 6, 0.5, g)),
    ("smooth_random_embedding", lambda g: probes.smooth_random_embedding(2, 3, 1.0, 4, g)),
]


class _OffCpuGenerator(torch.Generator):
    """Stands in for a generator on another device: torch 2.13 makes none on the meta device, and a CUDA one
    needs a GPU (the test below uses a real one where there is)."""

    device = torch.device("meta")


@pytest.mark.parametrize(("label", "call"), GENERATOR_CALLS, ids=[g[0] for g in GENERATOR_CALLS])
def test_a_generator_on_another_device_is_refused(label: str, call: Callable[[object], object]) -> None:
    with pytest.raises(ValueError, match=r"generator is a generator on device meta.*torch\.Generator\(\)"):
        call(_OffCpuGenerator())
    if torch.cuda.is_available():
        with pytest.raises(ValueError, match="generator is a generator on device cuda"):
            call(torch.Generator(device="cuda"))
    with pytest.raises(TypeError, match="generator must be a torch.Generator on the CPU"):
        call(3)
    assert call(torch.Generator().manual_seed(0)) is not None  # a CPU generator serves


# ---------------------------------------------------------------------------------------------------------------
# A model that does not fit the task, given to train.evaluate: a ValueError naming the model and what would fit.


@pytest.mark.parametrize(
    "model",
    [
        torch.nn.Linear(3, 2),  # not a picture model: torch's matmul error inside
        models.VisionTransformer(
            (8, 8), 4, 1, num_classes=2, embed_dim=8, depth=1, num_heads=2
        ),  # other size
        models.VisionTransformer(
            (60, 100), 20, 3, num_classes=2, embed_dim=8, depth=1, num_heads=2
        ),  # 3 channels
        torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(6000, 2)).to(torch.float64),  # another dtype
    ],
    ids=["linear", "other-size", "three-channels", "float64"],
)
def test_evaluate_names_a_model_that_does_not_fit_the_task(model: torch.nn.Module) -> None:
    with pytest.raises(ValueError, match=r"model cannot take the 'scramble' task's images.*in_chans=1"):
        train.evaluate(model, "scramble", size=4)


def test_evaluate_names_outputs_that_are_not_real_numbers() -> None:
    class Labels(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = torch.nn.Parameter(torch.zeros(1))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.zeros(len(x), 2, dtype=torch.long)

    with pytest.raises(ValueError, match="model gives a tensor of dtype torch.int64 as outputs"):
        train.evaluate(Labels(), "scramble", size=4)


# ---------------------------------------------------------------------------------------------------------------
# Explorers take one 2-D picture: another rank is refused with the call that makes it 2-D.


@pytest.mark.parametrize("shape", [(1, 60, 100), (1, 1, 60, 100), (3, 60, 100), (60, 1, 100), (60,)])
def test_explorers_refuse_pictures_of_another_rank(shape: tuple[int, ...]) -> None:
    from vitcourse import widgets

    picture = np.zeros(shape, dtype=np.float32)
    for build in (widgets.patch_explorer, widgets.soft_split_explorer, widgets.attention_explorer):
        with pytest.raises(ValueError, match=r"picture must be a 2-D \(H, W\) array") as caught:
            build(picture)
        if shape in ((1, 60, 100), (1, 1, 60, 100)):
            assert "picture.squeeze()" in str(caught.value)
    plt.close("all")


# ---------------------------------------------------------------------------------------------------------------
# What a learner's object raises inside `require` (nbgrader's grading cells) becomes an AssertionError with the
# exception's name: never the object's own exception, whatever it raises and from where.


class _BadRepr:
    def __repr__(self) -> str:
        raise RuntimeError("repr fails")


class _BadMessage(Exception):
    def __str__(self) -> str:
        raise RuntimeError("str fails")


def _raises_bad_message(*args: object) -> object:
    raise _BadMessage()


def _learner_checker(*args: object) -> object:
    raise ZeroDivisionError("learner code")


def _exits_checker(*args: object) -> object:
    sys.exit(3)


@pytest.mark.parametrize(
    ("checker", "answer", "name"),
    [
        (_learner_checker, 1, "ZeroDivisionError"),  # a callable that raises, given as the checker
        (_exits_checker, 1, "SystemExit"),
        (check.patch_number, _BadRepr(), None),  # an answer whose repr raises: a plain ✗
        (check.patch_number, _raises_bad_message, None),
    ],
    ids=["raises", "sys-exit", "bad-repr", "bad-message"],
)
def test_require_turns_what_an_answer_raises_into_an_assertion(
    checker: Callable, answer: object, name: str | None
) -> None:
    with pytest.raises(AssertionError) as caught:
        check.require(checker, answer)
    assert str(caught.value).startswith("✗")
    if name:
        assert name in str(caught.value)


def test_require_names_a_checker_that_returns_no_verdict_even_when_its_repr_raises() -> None:
    with pytest.raises(TypeError, match="checker must return a Verdict.*could not be shown"):
        check.require(lambda *a: _BadRepr(), 1)
    with pytest.raises(TypeError, match="checker must be a function of vitcourse.check.*could not be shown"):
        check.require(_BadRepr(), 1)


@pytest.mark.parametrize("checker", CHECKERS, ids=lambda c: c.__name__)
def test_checkers_survive_answers_whose_repr_or_message_raises(checker: Callable) -> None:
    for answer in (_BadRepr(), _raises_bad_message):
        verdict = checker(answer)
        assert isinstance(verdict, check.Verdict) and verdict.message.startswith(("✓", "✗"))

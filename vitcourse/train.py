"""Training small ViTs and T2T-ViTs from scratch on scenes from :mod:`vitcourse.scenes`, on CPU or GPU.

The loop is plain PyTorch: AdamW (:func:`param_groups` says which parameters take weight decay), a linear
warm-up then cosine decay of the learning rate (:func:`lr_factor`), and a batch sampled every step from a fixed
pool of scenes (the pool is drawn once; the batch order comes from a per-run seed, so a run is repeatable), and
a text progress bar. The notebooks ``10_training`` and ``11_training_choices`` use exactly these functions.

Command line (``python -m vitcourse.train --help``)::

    python -m vitcourse.train --model vit --pos-embed learned --task scramble --steps 300 --seeds 0 1 2
    python -m vitcourse.train --model t2t --pos-embed sinusoidal --scramble-block 10 --seeds 0 1 2
    python -m vitcourse.train --model t2t --task moon --steps 1000 --device cuda --save t2t_moon.pt

Checkpoints hold the model's ``state_dict`` and its :class:`TrainConfig` as a plain dict; :func:`load_checkpoint`
reads them with ``torch.load(..., weights_only=True)``.
"""

from __future__ import annotations

import argparse
import importlib.resources
import math
import os
import platform
import sys
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

import torch
import torch.nn.functional as F
from torch import nn

from ._validate import (
    choice,
    common_divisors,
    divisors,
    finite_float,
    flag,
    instance_of,
    listing,
    non_negative_int,
    positive_int,
    real_tensor,
    tensor_of_rank,
    writable_file,
    writable_folder,
)
from .data import HEIGHT, WIDTH
from .device import DEVICES, get_device
from .models import T2TViT, VisionTransformer, count_parameters
from .position import POSITION_KINDS
from .resolution import MAX_SCALE, at_resolution, fit_images, upscale
from .scenes import TASKS, WHERE_TASKS, make_batch, scene_pool, where_classes

__all__ = [
    "TrainConfig",
    "TrainResult",
    "build_model",
    "param_groups",
    "lr_factor",
    "make_optimiser",
    "task_loss",
    "train",
    "evaluate",
    "where_predictions",
    "save_checkpoint",
    "load_checkpoint",
    "SHIPPED_CONFIGS",
    "SHIPPED",
    "Shipped",
    "shipped_path",
    "load_shipped",
    "make_shipped",
    "main",
]

MODELS = ("vit", "t2t")


@dataclass
class TrainConfig:
    """Everything that defines a run; the defaults are the 200-step ViT runs of notebook 11.

    The defaults were chosen by trying seeds: with them the ViT leaves the scramble task's starting plateau
    (loss 0.693, accuracy 0.5) with every seed tried; with a smaller model or a higher learning rate the learned
    position embedding sometimes stays stuck there.

    Attributes:
        model: "vit" (patches of ``patch_size``) or "t2t" (Tokens-to-Token with ``token_dim``).
        pos_embed: "learned", "sinusoidal" or "none".
        task: "scramble" (two classes), "moon" (one regression output), "where" or "within" (the moon's patch
            row and column: ``rows + cols`` outputs, see :func:`vitcourse.scenes.where_classes`; "within" draws
            a smaller moon wholly inside its patch).
        steps: optimiser steps; each samples a batch from the pool of ``train_scenes`` images.
        batch_size: images per step (even for "scramble").
        lr: peak learning rate of AdamW, reached after ``warmup`` steps, then a cosine decay that would reach 0
            at step ``steps`` (the last step, ``steps - 1``, still uses a small positive rate).
        weight_decay: AdamW's decoupled weight decay (not applied to norms, biases, the prediction token and
            the position embedding: see :func:`param_groups`).
        warmup: steps of linear warm-up.
        seed: seeds the weights and the order of the batches; the evaluation set uses a separate fixed seed.
        train_scenes: images in the fixed training pool (for "scramble": ``train_scenes // 2`` scenes, each
            intact and scrambled), drawn once with seed 1 and shared by every run, so runs differ only in
            their weights and batch order; batches are sampled from it with replacement.
        device: "cpu", "cuda", or "auto" (CUDA when available).
        embed_dim, depth, num_heads, mlp_ratio: the transformer body.
        patch_size: ViT's patch side.
        token_dim: T2T's token length inside the T2T module.
        scramble_block: side of the blocks the "scramble" task shuffles; None means ``patch_size``.
        scale: the scenes are drawn ``scale`` times larger (each pixel repeated, :func:`vitcourse.resolution.upscale`)
            and the model takes images of ``(60 * scale, 100 * scale)``; the task and its labels stay those of
            the 60 x 100 scenes (for "where", the grid of ``patch_size`` cells of the small scene).
        start_from: None (weights drawn from ``seed``) or the name of a shipped ViT whose weights start the run
            (fine-tuning), carried to this run's ``scale`` by :func:`vitcourse.resolution.at_resolution`; its
            model, task, patch size and body must be this config's.
        resize_pos: with ``start_from``, carry its position table to the new grid in 2-D (True) or draw a fresh
            table from ``seed`` (False: the control for what the carried table is worth).
    """

    model: str = "vit"
    pos_embed: str = "learned"
    task: str = "scramble"
    steps: int = 200
    batch_size: int = 64
    lr: float = 1e-3
    weight_decay: float = 0.05
    warmup: int = 15
    seed: int = 0
    train_scenes: int = 2048
    device: str = "auto"
    embed_dim: int = 64
    depth: int = 2
    num_heads: int = 4
    mlp_ratio: float = 2.0
    patch_size: int = 20
    token_dim: int = 16
    scramble_block: int | None = None
    scale: int = 1
    start_from: str | None = None
    resize_pos: bool = True

    def __post_init__(self) -> None:
        """Check every field (TypeError for a wrong type, ValueError for a value out of range), naming it."""
        choice("model", self.model, MODELS)
        choice("pos_embed", self.pos_embed, POSITION_KINDS)
        choice("task", self.task, TASKS)
        positive_int("steps", self.steps)
        if positive_int("batch_size", self.batch_size) < 2 or self.batch_size % 2:
            raise ValueError(f"batch_size must be an even number >= 2, got {self.batch_size}")
        finite_float("lr", self.lr, 0, above=True)
        finite_float("weight_decay", self.weight_decay, 0)
        non_negative_int("warmup", self.warmup)
        non_negative_int("seed", self.seed)
        if positive_int("train_scenes", self.train_scenes) % 2 and self.task == "scramble":
            raise ValueError(
                f"train_scenes must be even for 'scramble' (each scene intact and scrambled), got {self.train_scenes}"
            )
        choice("device", self.device, DEVICES)
        for name in ("embed_dim", "depth", "num_heads", "patch_size", "token_dim"):
            positive_int(name, getattr(self, name))
        if self.embed_dim % self.num_heads:
            raise ValueError(
                f"num_heads={self.num_heads} does not divide embed_dim={self.embed_dim}; "
                f"valid head counts: {listing(divisors(self.embed_dim))}"
            )
        ratio = finite_float("mlp_ratio", self.mlp_ratio, 0, above=True)
        if int(self.embed_dim * ratio) < 1:
            raise ValueError(
                f"mlp_ratio={ratio:g} leaves the MLP no hidden unit; use mlp_ratio >= {1 / self.embed_dim:.3g}"
            )
        sides = f"the {HEIGHT} x {WIDTH} scenes"
        if self.model == "vit" and (HEIGHT % self.patch_size or WIDTH % self.patch_size):
            raise ValueError(
                f"patch_size={self.patch_size} must divide {sides}: one of {common_divisors(HEIGHT, WIDTH)}"
            )
        if self.scramble_block is not None:
            positive_int("scramble_block", self.scramble_block)
        if positive_int("scale", self.scale) > MAX_SCALE:
            raise ValueError(f"scale must be a whole number from 1 to {MAX_SCALE}, got {self.scale}")
        if self.start_from is not None:
            instance_of("start_from", self.start_from, str, "None or the name of a shipped model")
            if self.model != "vit":
                raise ValueError(
                    f"start_from needs model='vit' (a ViT's grid can be resized), got {self.model!r}"
                )
        flag("resize_pos", self.resize_pos)
        if self.task == "scramble" and (HEIGHT % self.block or WIDTH % self.block):
            name = "patch_size" if self.scramble_block is None else "scramble_block"
            raise ValueError(
                f"{name}={self.block} must divide {sides} (it is the scramble block): one of {common_divisors(HEIGHT, WIDTH)}"
            )

    @property
    def block(self) -> int:
        """The side of the blocks the "scramble" task shuffles."""
        return self.patch_size if self.scramble_block is None else self.scramble_block

    def resolved_device(self) -> str:
        """The device this run uses ("cpu" or "cuda"), decided by :func:`vitcourse.device.get_device`."""
        return get_device(self.device)


@dataclass
class TrainResult:
    """What :func:`train` returns: the trained model (in eval mode), the loss and the learning rate of every
    step, and final metrics."""

    model: nn.Module
    config: TrainConfig
    losses: list[float] = field(default_factory=list)
    lrs: list[float] = field(default_factory=list)
    metrics: dict[str, float] = field(default_factory=dict)
    seconds: float = 0.0
    #: (step, held-out metrics after that step) every ``eval_every`` steps; empty unless :func:`train` was asked
    held_out: list[tuple[int, dict[str, float]]] = field(default_factory=list)


def build_model(config: TrainConfig) -> nn.Module:
    """The model a config describes, on the CPU, weights drawn from ``config.seed``.

    The weights come from a forked copy of the global random generator, so building a model leaves the
    caller's random state as it was.
    """
    instance_of("config", config, TrainConfig, "a TrainConfig")
    outputs = {"scramble": 2, "moon": 1}.get(config.task) or sum(where_classes(config.patch_size))
    body = {
        "num_classes": outputs,
        "embed_dim": config.embed_dim,
        "depth": config.depth,
        "num_heads": config.num_heads,
        "mlp_ratio": config.mlp_ratio,
        "pos_embed": config.pos_embed,
    }
    with torch.random.fork_rng(devices=[]):  # the CPU generator only: the model is built on the CPU
        torch.manual_seed(config.seed)
        size = (config.scale * HEIGHT, config.scale * WIDTH)
        if config.model == "vit":
            return VisionTransformer(size, config.patch_size, 1, **body)
        return T2TViT(size, 1, token_dim=config.token_dim, **body)


#: What a run that starts from a shipped model must share with it.
_CARRIED = ("model", "task", "patch_size", "embed_dim", "depth", "num_heads", "mlp_ratio", "pos_embed")


def _start_model(config: TrainConfig) -> nn.Module:
    """The shipped model ``config.start_from`` carried to ``config.scale`` (see :attr:`TrainConfig.start_from`)."""
    start = load_shipped(_check_shipped_name(config.start_from, "start_from"))
    differ = [k for k in _CARRIED if getattr(start.config, k) != getattr(config, k)]
    if differ or start.config.scale != 1:
        raise ValueError(
            f"start_from={config.start_from!r} is a model with other settings ({', '.join(differ) or 'scale'}); "
            f"a run that starts from it must keep its {', '.join(_CARRIED)} and start from scale 1"
        )
    return at_resolution(start.model, config.scale, config.resize_pos, config.seed)


def task_loss(task: str, outputs: torch.Tensor, targets: torch.Tensor, patch: int = 20) -> torch.Tensor:
    """The task's loss; for "where" and "within" the row's cross-entropy plus the column's (grid of ``patch``
    pixels)."""
    if task == "scramble":
        return F.cross_entropy(outputs, targets)
    if task in WHERE_TASKS:
        rows, _ = where_classes(patch)
        return F.cross_entropy(outputs[:, :rows], targets[:, 0]) + F.cross_entropy(
            outputs[:, rows:], targets[:, 1]
        )
    return F.mse_loss(outputs, targets)


def where_predictions(outputs: torch.Tensor, patch: int = 20) -> torch.Tensor:
    """A "where" or "within" model's outputs (B, rows + cols) as predicted (patch row, patch column) pairs, (B, 2) long."""
    rows, cols = where_classes(patch)
    real_tensor("outputs", tensor_of_rank("outputs", outputs, 2, "(B, rows + cols)"))
    if outputs.shape[1] != rows + cols:
        raise ValueError(
            f"outputs must be (B, {rows + cols}) for patch={patch} (a {rows} x {cols} grid: {rows} row scores, "
            f"then {cols} column scores), got shape {tuple(outputs.shape)}"
        )
    return torch.stack([outputs[:, :rows].argmax(-1), outputs[:, rows:].argmax(-1)], dim=-1)  # (B, 2)


#: Parameter names that take no weight decay when a model has no ``no_weight_decay()`` method.
NO_WEIGHT_DECAY = frozenset({"cls_token", "pos_embed"})


def param_groups(model: nn.Module, weight_decay: float) -> list[dict]:
    """AdamW parameter groups as timm makes them: weight decay on the weight matrices only.

    No decay for biases and LayerNorm scales (every parameter with fewer than 2 dims) and for the names the
    model lists in ``model.no_weight_decay()`` (the prediction token and the position embedding; models
    without that method fall back to :data:`NO_WEIGHT_DECAY`). Weight decay pulls weights towards 0: right
    for a weight matrix, wrong for a LayerNorm scale (whose neutral value is 1), a bias, or a token whose
    values carry meaning. Parameters that do not train (a fixed sinusoidal table) are left out.

    Args:
        model: the model to optimise.
        weight_decay: the decay of the first group.

    Returns:
        ``[{"params": [...], "weight_decay": weight_decay}, {"params": [...], "weight_decay": 0.0}]``.
    """
    instance_of("model", model, nn.Module, "a torch.nn.Module")
    weight_decay = finite_float("weight_decay", weight_decay, 0)
    listed = getattr(model, "no_weight_decay", None)
    skip = set(listed()) if callable(listed) else set(NO_WEIGHT_DECAY)
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        (no_decay if p.ndim < 2 or name in skip else decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


def lr_factor(step: int, warmup: int, steps: int) -> float:
    """The learning rate at ``step`` (0-based) as a fraction of the peak: linear warm-up, then cosine decay.

    ``(step + 1) / warmup`` for the first ``warmup`` steps, then
    ``0.5 * (1 + cos(pi * (step - warmup) / (steps - warmup)))``, which falls from 1 towards 0 (0 would be
    reached at ``step = steps``, one past the last step).
    """
    non_negative_int("step", step)
    non_negative_int("warmup", warmup)
    positive_int("steps", steps)
    if step < warmup:
        return (step + 1) / warmup
    return 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, steps - warmup)))


def make_optimiser(
    model: nn.Module, config: TrainConfig
) -> tuple[torch.optim.AdamW, torch.optim.lr_scheduler.LambdaLR]:
    """AdamW over :func:`param_groups` and its schedule (:func:`lr_factor`), as :func:`train` uses them.

    Call ``scheduler.step()`` after each ``optimiser.step()``; the learning rate for step ``k`` is then
    ``config.lr * lr_factor(k, config.warmup, config.steps)``.
    """
    instance_of("config", config, TrainConfig, "a TrainConfig")
    optimiser = torch.optim.AdamW(param_groups(model, config.weight_decay), lr=config.lr)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda step: lr_factor(step, config.warmup, config.steps)
    )
    return optimiser, scheduler


def _bar(step: int, total: int, loss: float, width: int = 30) -> str:
    done = int(width * step / total)
    return f"\r[{'#' * done}{'.' * (width - done)}] {step}/{total} loss {loss:.4f}"


def train(
    config: TrainConfig, progress: bool = True, eval_size: int = 256, eval_every: int = 0
) -> TrainResult:
    """Train a model from scratch as ``config`` says and evaluate it on a fixed held-out set.

    Args:
        config: the run's settings.
        progress: print a progress bar (to stdout, redrawn in place).
        eval_size: scenes in the held-out evaluation set (seed 10_000, the same for every run).
        eval_every: if positive, also evaluate on the held-out set after every ``eval_every`` steps and record
            it in ``held_out``; the training losses and the final model are the same either way.

    Returns:
        A :class:`TrainResult`; ``metrics`` holds "accuracy" (scramble) or "mae_pixels" (moon) and "loss".
    """
    instance_of("config", config, TrainConfig, "a TrainConfig")
    progress = flag("progress", progress)
    if not isinstance(eval_every, int) or isinstance(eval_every, bool) or eval_every < 0:
        raise ValueError(f"eval_every must be a whole number >= 0, got {eval_every!r}")
    if positive_int("eval_size", eval_size) % 2 and config.task == "scramble":
        raise ValueError(f"eval_size must be even for 'scramble', got {eval_size}")
    device = config.resolved_device()
    model = (build_model(config) if config.start_from is None else _start_model(config)).to(device)
    optimiser, scheduler = make_optimiser(model, config)
    result = TrainResult(model, config)
    pool = scene_pool(config.task, config.train_scenes, 1, _eval_patch(config))
    pool_images, pool_targets = pool.images.to(device), pool.targets.to(device)
    order = torch.Generator().manual_seed(config.seed)
    start = time.perf_counter()
    model.train()
    for step in range(config.steps):
        index = torch.randint(len(pool_targets), (config.batch_size,), generator=order).to(device)
        images, targets = upscale(pool_images[index], config.scale), pool_targets[index]
        result.lrs.append(optimiser.param_groups[0]["lr"])  # the rate this step uses
        loss = task_loss(config.task, model(images), targets, config.patch_size)
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        optimiser.step()
        scheduler.step()
        result.losses.append(loss.item())
        if eval_every > 0 and (step + 1) % eval_every == 0:
            result.held_out.append((step, evaluate(model, config.task, eval_size, block=_eval_patch(config))))
            model.train()  # evaluate switched the model to eval mode
        if progress and (step + 1 == config.steps or step % 10 == 0):
            print(_bar(step + 1, config.steps, result.losses[-1]), end="", flush=True)
    if progress:
        print()
    result.seconds = time.perf_counter() - start
    model.eval()
    grid = _eval_patch(config)
    result.metrics = evaluate(model, config.task, eval_size, block=grid)
    return result


@torch.no_grad()
def evaluate(
    model: nn.Module, task: str, size: int = 256, seed: int = 10_000, block: int = 20
) -> dict[str, float]:
    """Metrics on a fixed held-out set: "loss" and "accuracy" (scramble), "mae_pixels" (moon), or "accuracy"
    (row and column both right), "row_accuracy" and "column_accuracy" (where).

    ``block`` is the side of the squares a "scramble" set shuffles, or of the grid cells a "where" or "within" set places the
    moon in (:func:`vitcourse.scenes.make_batch`). The model must give 2 outputs per image for "scramble", 1 for
    "moon" and rows + columns of the grid for "where" and "within" (:func:`vitcourse.scenes.where_classes`).
    """
    instance_of("model", model, nn.Module, "a torch.nn.Module")
    batch = make_batch(task, size, seed=seed, block=block)  # checks task, size, seed and block
    parameter = next(model.parameters(), None)
    if parameter is None:
        raise ValueError("model has no parameters; pass a trained model")
    model.eval()
    wanted = {"scramble": 2, "moon": 1}.get(task) or sum(where_classes(block))
    try:
        images = (
            batch.images if getattr(model, "tokenizer", None) is None else fit_images(batch.images, model)
        )
        outputs = model(images.to(parameter.device))
    except (RuntimeError, ValueError, TypeError, IndexError) as err:  # torch's own words for a misfit
        raise ValueError(
            f"model cannot take the {task!r} task's images, of shape (B, 1, 60, 100): {err} -- pass a model built "
            f"for one-channel 60 x 100 pictures (img_size=(60, 100), in_chans=1) with num_classes={wanted}"
        ) from err
    if not isinstance(outputs, torch.Tensor) or not outputs.is_floating_point():
        kind = (
            f"a tensor of dtype {outputs.dtype}"
            if isinstance(outputs, torch.Tensor)
            else type(outputs).__name__
        )
        raise ValueError(
            f"model gives {kind} as outputs; task {task!r} needs a tensor of shape (B, {wanted}) of real numbers"
        )
    outputs = outputs.float().cpu()
    if outputs.ndim != 2 or outputs.shape[1] != wanted:
        raise ValueError(
            f"model gives outputs of shape {tuple(outputs.shape)}; task {task!r} needs (B, {wanted}): "
            f"build it with num_classes={wanted}"
        )
    metrics = {"loss": task_loss(task, outputs, batch.targets, block).item()}
    if task == "scramble":
        metrics["accuracy"] = (outputs.argmax(-1) == batch.targets).float().mean().item()
    elif task in WHERE_TASKS:
        right = where_predictions(outputs, block) == batch.targets  # (B, 2)
        metrics["accuracy"] = right.all(-1).float().mean().item()
        metrics["row_accuracy"] = right[:, 0].float().mean().item()
        metrics["column_accuracy"] = right[:, 1].float().mean().item()
    else:
        metrics["mae_pixels"] = ((outputs - batch.targets).abs().mean() * 100).item()
    return metrics


def save_checkpoint(result: TrainResult, path: str | Path) -> None:
    """Save the model's state dict and its config (a plain dict) to ``path``.

    Raises:
        TypeError: ``result`` is not a TrainResult, ``path`` not a str or Path.
        ValueError: ``path`` is a folder, lies in a file, or may not be written.
        FileNotFoundError: the folder of ``path`` does not exist (it is not created).
    """
    instance_of("result", result, TrainResult, "a TrainResult (what train() returns)")
    instance_of("path", path, (str, Path), "a file path (str or pathlib.Path)")
    writable_file("path", path)
    torch.save({"config": asdict(result.config), "state_dict": result.model.state_dict()}, path)


def load_checkpoint(path: str | Path, device: str = "cpu") -> tuple[nn.Module, Any]:
    """Rebuild any model the package saves; reads with ``weights_only=True`` (no pickled code).

    One loader for every file in ``vitcourse/assets/checkpoints/``. A file holds ``state_dict`` and the settings
    that built the model, and the settings say which kind it is:

    * ``config`` with :class:`TrainConfig`'s fields: written by :func:`save_checkpoint` (the shipped models);
    * ``config`` with :class:`vitcourse.masked.PretrainConfig`'s fields: a masked-patch pre-trained encoder
      (``vit_mpp_seed*.pt``, written by ``make experiments``);
    * ``settings`` with :class:`vitcourse.datascale.SweepSettings`' fields: a ViT trained by the experiments
      (``vit_sky_seed*.pt``).

    Returns ``(model in eval mode, its settings)``: a TrainConfig, PretrainConfig or SweepSettings.

    Args:
        path: the checkpoint file.
        device: "cpu", "cuda" or "auto" (see :func:`vitcourse.device.get_device`).

    Raises:
        FileNotFoundError: no file at ``path``.
        ValueError: the file is not a checkpoint written by :func:`save_checkpoint` (another file, other
            settings, weights that do not fit), or ``device="cuda"`` without a GPU.
        TypeError: ``path`` is not a str or Path, ``device`` not a str.
    """
    instance_of("path", path, (str, Path), "a file path (str or pathlib.Path)")
    device = get_device(device)
    if not Path(path).is_file():
        raise FileNotFoundError(f"path {str(path)!r} is not a file; pass the path save_checkpoint wrote")
    not_ours = (
        f"path {str(path)!r} is not a checkpoint written by vitcourse (save_checkpoint or make experiments)"
    )
    try:
        saved = torch.load(path, map_location=device, weights_only=True)
    except Exception as err:  # torch raises several kinds for a file that is not a checkpoint
        raise ValueError(f"{not_ours}: torch.load could not read it ({type(err).__name__})") from err
    settings = saved.get("config", saved.get("settings")) if isinstance(saved, dict) else None
    if not (isinstance(settings, dict) and isinstance(saved.get("state_dict"), dict)):
        raise ValueError(
            f"{not_ours}: it should hold a dict with 'config' (or 'settings') and 'state_dict' dicts"
        )
    from .datascale import SweepSettings, build  # here: datascale imports this module
    from .masked import PretrainConfig

    try:
        if "config" not in saved:
            config: Any = SweepSettings(**settings)
            model = build("vit", config, 0)
        elif "mask_ratio" in settings:
            config = PretrainConfig(**settings)
            model = config.encoder()
        else:
            config = TrainConfig(**settings)
            model = build_model(config)
        model = model.to(device)
        model.load_state_dict(saved["state_dict"])
    except (TypeError, ValueError, RuntimeError) as err:
        raise ValueError(f"{not_ours}, or its settings and weights do not fit: {err}") from err
    return model.eval(), config


#: The models shipped in ``vitcourse/assets/checkpoints/``, each rebuilt from its fixed seed by ``make models``
#: (``python -m vitcourse.train --shipped``). Notebooks look inside them without training.
#: The 60-patch ViT's run (seed 0), from which its seeds, its control and the T2T-ViT beside it differ in one setting.
_WITHIN = TrainConfig(task="within", patch_size=10, depth=4, steps=3000, batch_size=128, warmup=200)
#: Its fine-tune at twice the size, starting from the shipped vit_within.
_WITHIN_X2 = replace(_WITHIN, scale=2, start_from="vit_within", steps=200, batch_size=64, lr=2e-4, warmup=10)

SHIPPED_CONFIGS: dict[str, TrainConfig] = {
    # ViT on the "where" task (the moon's patch row and column): its learned position embedding and its
    # attention are the ones notebooks 12 and 13 show.
    "vit_where": TrainConfig(task="where", steps=1500, batch_size=128, warmup=100, seed=0),
    # Its control: the same run with no position embedding. Whatever it still gets right about the moon's
    # place, it read from the pixels (notebook 12 sets the two side by side).
    "vit_where_nopos": TrainConfig(
        pos_embed="none", task="where", steps=1500, batch_size=128, warmup=100, seed=0
    ),
    # A ViT on a grid of 60 patches (10-pixel patches, 6 x 10), 4 blocks, on the "within" task: the model whose
    # position embedding, filters, attention distances and rollout notebooks 12 and 13 set beside the ViT
    # paper's Figure 7. Seeds 1 and 2 give the spread of its numbers.
    "vit_within": _WITHIN,
    "vit_within_seed1": replace(_WITHIN, seed=1),
    "vit_within_seed2": replace(_WITHIN, seed=2),
    # Its control: the same run with no position embedding.
    "vit_within_nopos": replace(_WITHIN, pos_embed="none"),
    # vit_within fine-tuned on the scenes drawn twice as large (120 x 200, a 12 x 20 grid), its position table
    # carried to the larger grid by 2-D interpolation (the ViT paper's recipe, Section 3.2) ...
    "vit_within_x2": _WITHIN_X2,
    # ... and its control: the same fine-tune with a freshly drawn table instead of the carried one.
    "vit_within_x2_newpos": replace(_WITHIN_X2, resize_pos=False),
    # A T2T-ViT with the same body, embedding kind, task, steps and batches as vit_within: notebooks 09 and 14
    # look inside it and set it beside the ViT.
    "t2t_within": replace(_WITHIN, model="t2t"),
}

#: The names of the shipped models, for :func:`load_shipped`.
SHIPPED: tuple[str, ...] = tuple(SHIPPED_CONFIGS)

#: The held-out set a shipped model's stored metrics were measured on (arguments of :func:`evaluate`).
SHIPPED_EVAL = {"size": 256, "seed": 10_000}


class Shipped(NamedTuple):
    """A shipped model (on the device asked for, in eval mode), its settings and its stored held-out metrics.

    ``info`` says where and how long it trained: "device", "seconds", "torch", "machine".
    """

    model: nn.Module
    config: TrainConfig
    metrics: dict[str, float]
    info: dict[str, str | float]


def _check_shipped_name(name: object, what: str = "name") -> str:
    if not isinstance(name, str):
        raise TypeError(f"{what} must be one of {SHIPPED}, got {type(name).__name__} {name!r}")
    if name not in SHIPPED_CONFIGS:
        raise ValueError(f"{what} must be one of {SHIPPED}, got {name!r}")
    return name


def shipped_path(name: str) -> importlib.resources.abc.Traversable:
    """Where the package holds the shipped checkpoint ``name`` (``vitcourse/assets/checkpoints/<name>.pt``)."""
    _check_shipped_name(name)
    return importlib.resources.files("vitcourse") / "assets" / "checkpoints" / f"{name}.pt"


def _eval_patch(config: TrainConfig) -> int:
    """The ``block`` argument :func:`evaluate` takes for a run: the grid ("where", "within") or the shuffled block."""
    return config.patch_size if config.task in WHERE_TASKS else config.block


def load_shipped(name: str, device: str = "cpu") -> Shipped:
    """Load a shipped model, read with ``torch.load(..., weights_only=True)``.

    Args:
        name: one of :data:`SHIPPED`.
        device: "cpu", "cuda" or "auto".

    Returns:
        A :class:`Shipped`: the model in eval mode on ``device``, its :class:`TrainConfig`, the held-out metrics
        measured on the CPU right after training (on :data:`SHIPPED_EVAL`), and where it trained.
    """
    device = get_device(device)
    with importlib.resources.as_file(shipped_path(name)) as path:
        if not path.is_file():
            raise FileNotFoundError(f"{path} is missing; `make models` rebuilds every shipped model")
        saved = torch.load(path, map_location="cpu", weights_only=True)
    config = TrainConfig(**saved["config"])
    model = build_model(config)
    model.load_state_dict(saved["state_dict"])
    return Shipped(model.to(device).eval(), config, dict(saved["metrics"]), dict(saved["info"]))


def _make_one(name: str, folder: Path, device: str) -> Path:
    """Train one shipped model, evaluate it on the CPU, save it to ``folder / f"{name}.pt"``; print the run."""
    config = TrainConfig(**{**asdict(SHIPPED_CONFIGS[name]), "device": device})
    used = config.resolved_device()
    # One CPU thread: the result then does not depend on how many cores the machine has, and a shared
    # machine's busy cores do not slow the run down by oversubscription.
    if used == "cpu":
        torch.set_num_threads(1)
        where = f"CPU ({platform.machine()}, {os.cpu_count()} cores, 1 thread)"
    else:
        where = f"CUDA ({torch.cuda.get_device_name()})"
    print(f"{name}: training on {where} ...", flush=True)
    result = train(config, progress=False)
    model = result.model.cpu().eval()
    metrics = evaluate(model, config.task, block=_eval_patch(config), **SHIPPED_EVAL)
    info = {"device": where, "seconds": round(result.seconds, 1), "torch": str(torch.__version__)}
    path = folder / f"{name}.pt"
    saved = {"config": {**asdict(config), "device": "auto"}, "state_dict": model.state_dict()}
    torch.save({**saved, "metrics": metrics, "info": info}, path)
    shown = ", ".join(f"{k} {v:.4f}" for k, v in metrics.items())
    print(
        f"{name}: {result.seconds:.1f} s on {where}; held-out {shown}; {path} ({path.stat().st_size:,} bytes)"
    )
    return path


def make_shipped(
    names: tuple[str, ...] = SHIPPED, out_dir: str | Path | None = None, device: str = "auto"
) -> dict[str, Path]:
    """Train the shipped models from their fixed seeds and save them (what ``make models`` runs).

    Each run trains on ``device`` (its config's device is replaced), then the model is moved to the CPU and
    evaluated on :data:`SHIPPED_EVAL`, so that a CPU re-evaluation of the saved file gives the stored metrics.
    Prints, for each model, where it trained and how long it took.

    Args:
        names: which shipped models to make.
        out_dir: where to write ``<name>.pt``; default the package's ``assets/checkpoints`` folder.
        device: "auto", "cpu" or "cuda".

    Returns:
        The path written for each name.
    """
    for name in names:
        _check_shipped_name(name)
    if out_dir is not None:
        writable_folder("out_dir", out_dir)
    folder = Path(out_dir) if out_dir is not None else Path(__file__).parent / "assets" / "checkpoints"
    folder.mkdir(parents=True, exist_ok=True)
    threads = torch.get_num_threads()
    written = {}
    try:
        for name in names:
            written[name] = _make_one(name, folder, device)
    finally:
        torch.set_num_threads(threads)
    return written


def _parser() -> argparse.ArgumentParser:
    d = TrainConfig()
    p = argparse.ArgumentParser(
        prog="python -m vitcourse.train",
        description="Train small ViTs / T2T-ViTs from scratch on random Mountain-at-Dusk scenes (offline).",
    )
    p.add_argument("--model", choices=MODELS, default=d.model, help="vit or t2t (default: %(default)s)")
    p.add_argument("--pos-embed", choices=POSITION_KINDS, default=d.pos_embed, help="default: %(default)s")
    p.add_argument(
        "--task",
        choices=TASKS,
        default=d.task,
        help="scramble (classify), moon (regress) or where (the moon's patch)",
    )
    p.add_argument("--steps", type=int, default=d.steps, help="optimiser steps (default: %(default)s)")
    p.add_argument("--batch-size", type=int, default=d.batch_size, help="default: %(default)s")
    p.add_argument("--lr", type=float, default=d.lr, help="peak learning rate (default: %(default)s)")
    p.add_argument("--seeds", type=int, nargs="+", default=[d.seed], help="one run per seed (default: 0)")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default=d.device, help="default: %(default)s")
    p.add_argument("--embed-dim", type=int, default=d.embed_dim, help="default: %(default)s")
    p.add_argument("--depth", type=int, default=d.depth, help="default: %(default)s")
    p.add_argument("--heads", type=int, default=d.num_heads, help="default: %(default)s")
    p.add_argument(
        "--patch-size",
        type=int,
        default=d.patch_size,
        help="ViT's patch side, and the grid of the where/within tasks; divides 60 and 100 (default: %(default)s)",
    )
    p.add_argument(
        "--scramble-block",
        type=int,
        default=d.scramble_block,
        help="side of the squares the scramble task shuffles, dividing 60 and 100 (default: the patch size, 20)",
    )
    p.add_argument("--save", type=Path, help="save the last run's checkpoint (state dict + config) here")
    p.add_argument("--no-progress", action="store_true", help="do not draw the progress bar")
    p.add_argument(
        "--shipped",
        nargs="*",
        metavar="NAME",
        help=f"re-make the shipped models (all of {SHIPPED}, or the NAMEs given) from their fixed settings into "
        "vitcourse/assets/checkpoints (only --device applies); `make models` runs this",
    )
    return p


def main(argv: list[str] | None = None) -> int:
    """The command line: train one run per seed, print a summary table, optionally save a checkpoint."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.save is not None:  # before any training: a run is not lost to a path that cannot be written
        try:
            writable_file("--save", args.save)
        except (ValueError, FileNotFoundError) as err:
            parser.error(str(err))
    if args.shipped is not None:
        names = tuple(args.shipped) or SHIPPED
        for name in names:
            if name not in SHIPPED_CONFIGS:
                parser.error(f"--shipped: {name!r} is not a shipped model; choose from {', '.join(SHIPPED)}")
        start = time.perf_counter()
        make_shipped(names, device=args.device)
        print(f"all shipped models made in {time.perf_counter() - start:.1f} s")
        return 0
    rows = []
    result = None
    for seed in args.seeds:
        try:
            config = TrainConfig(
                model=args.model, pos_embed=args.pos_embed, task=args.task, steps=args.steps,
                batch_size=args.batch_size, lr=args.lr, seed=seed, device=args.device, embed_dim=args.embed_dim,
                depth=args.depth, num_heads=args.heads, scramble_block=args.scramble_block,
                patch_size=args.patch_size,
            )  # fmt: skip
            config.resolved_device()
        except (TypeError, ValueError) as err:
            parser.error(str(err))  # a sentence and exit status 2, as for any other bad option
        result = train(config, progress=not args.no_progress)
        rows.append((seed, result))
    metric = "mae_pixels" if args.task == "moon" else "accuracy"
    n_params = count_parameters(result.model)[1]
    block = f" scramble_block={result.config.block}" if args.task == "scramble" else ""
    print(
        f"\n{args.model} pos_embed={args.pos_embed} task={args.task}{block} steps={args.steps} "
        f"params={n_params:,}"
    )
    print(f"{'seed':>4s} {'final loss':>10s} {metric:>11s} {'seconds':>8s}")
    for seed, r in rows:
        print(f"{seed:4d} {r.losses[-1]:10.4f} {r.metrics[metric]:11.4f} {r.seconds:8.1f}")
    values = torch.tensor([r.metrics[metric] for _, r in rows])
    if len(rows) > 1:
        print(f"mean {values.mean():.4f} +- {values.std():.4f} (std over {len(rows)} seeds)")
    if args.save:
        save_checkpoint(result, args.save)
        print(f"saved {args.save}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

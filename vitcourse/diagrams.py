"""Diagrams drawn by code: the ViT pipeline, the pre-norm encoder block, the token transformer with its v skip,
and the T2T loop, each labelled with the running shapes of the course's example.

Every diagram is a function that takes an optional ``ax`` and returns it (like :mod:`vitcourse.plots`); the
boxes and arrows come from the two small helpers below, so all diagrams look alike.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import torch
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Patch
from torch import nn
from torch.func import functional_call

from ._validate import finite_float, instance_of, positive_int
from .models import T2T_STAGES
from .tokens import count_tokens

__all__: list[str] = ["pipeline_shapes", "vit_pipeline", "encoder_block", "token_transformer", "t2t_loop"]

BOX_COLOURS = {
    "data": "#ede7f6",  # tensors: what flows
    "layer": "#d1c4e9",  # layers with weights
    "op": "#fff3e0",  # operations without weights (reshape, add, softmax)
}

#: What each box colour means, as every diagram's legend says it.
BOX_LABELS = {
    "data": "data in or out",
    "layer": "layer with weights",
    "op": "operation, no weights",
}

EDGE_COLOUR = "#4a148c"  # box outlines
ARROW_COLOUR = "#311b92"  # arrows, skip paths and the shapes written beside them


def _canvas(ax: Axes | None, width: float, height: float, figsize: tuple[float, float]) -> Axes:
    """An axes with data coordinates (0..width, 0..height), no ticks or frame: the diagram's drawing board."""
    if ax is not None:
        instance_of("ax", ax, Axes, "a matplotlib Axes or None (None makes a new figure)")
    if ax is None:
        _, ax = plt.subplots(figsize=figsize)
    ax.set_xlim(0, width)
    ax.set_ylim(0, height)
    ax.set_axis_off()
    return ax


def _box(
    ax: Axes, x: float, y: float, w: float, h: float, text: str, kind: str = "layer", fontsize: float = 9
) -> tuple[float, float, float, float]:
    """A rounded box with centred text, lower-left corner (x, y); returns (x, y, w, h) for arrows."""
    ax.add_patch(
        FancyBboxPatch(
            (x, y),
            w,
            h,
            boxstyle="round,pad=0.02,rounding_size=0.08",
            facecolor=BOX_COLOURS[kind],
            edgecolor=EDGE_COLOUR,
            linewidth=1.0,
        )
    )
    ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=fontsize, wrap=True)
    return x, y, w, h


def _arrow(
    ax: Axes,
    start: tuple[float, float],
    end: tuple[float, float],
    label: str = "",
    connectionstyle: str = "arc3",
    fontsize: float = 8,
) -> None:
    """An arrow from ``start`` to ``end``; ``label`` (a shape, say) is written beside its middle."""
    ax.add_patch(
        FancyArrowPatch(
            start,
            end,
            arrowstyle="-|>",
            mutation_scale=10,
            color=ARROW_COLOUR,
            connectionstyle=connectionstyle,
        )
    )
    if label:
        mx, my = (start[0] + end[0]) / 2, (start[1] + end[1]) / 2
        ax.text(mx + 0.05, my, label, fontsize=fontsize, color=ARROW_COLOUR, ha="left", va="center")


def _legend(
    ax: Axes, loc: str, anchor: tuple[float, float] | None = None, arrows: str = "data flow, with its shape"
) -> None:
    """A key for the diagram's colours: one entry per box colour, and one for the arrows.

    Every diagram calls it, so that no colour needs the text beside the figure to be read. ``anchor`` (axes
    fractions) moves the key's ``loc`` corner off the axes' corner, where a box would sit under it.
    """
    handles: list = [
        Patch(facecolor=BOX_COLOURS[kind], edgecolor=EDGE_COLOUR, label=BOX_LABELS[kind])
        for kind in BOX_COLOURS
    ]
    handles.append(Line2D([], [], color=ARROW_COLOUR, marker=">", markersize=4, lw=1.0, label=arrows))
    ax.legend(
        handles=handles,
        loc=loc,
        bbox_to_anchor=anchor,
        fontsize=7.5,
        title="key",
        title_fontsize=8,
        framealpha=0.95,
    )


# ----------------------------------------------------------------------------------------------------------
# ViT (notebooks 06 and 07): vit_pipeline, encoder_block


def _times(shape: tuple[int, ...]) -> str:
    """A shape written the way the course prints it in prose: ``13 × 16 × 768``."""
    return " × ".join(str(s) for s in shape)


def _meta_run(module: nn.Module, inputs: torch.Tensor, hooked: dict[str, nn.Module]) -> dict[str, tuple]:
    """Run ``module`` on the meta device (shapes only, no numbers) and record, for each named submodule, the
    shapes of its first input and of its output: ``{"name.in": shape, "name.out": shape}``."""
    shapes: dict[str, tuple] = {}
    handles = []
    for name, sub in hooked.items():

        def hook(mod: nn.Module, args: tuple, output: torch.Tensor, key: str = name) -> None:
            shapes[f"{key}.in"] = tuple(args[0].shape)
            shapes[f"{key}.out"] = tuple(output.shape)

        handles.append(sub.register_forward_hook(hook))
    state = {
        name: torch.empty_like(t, device="meta")
        for name, t in [*module.named_parameters(), *module.named_buffers()]
    }
    try:
        with torch.no_grad():
            functional_call(module, state, (inputs.to("meta"),))
    finally:
        for handle in handles:
            handle.remove()
    return shapes


def pipeline_shapes(model: nn.Module | None = None, batch: int = 13) -> dict[str, tuple[int, ...]]:
    """The running shapes of a ViT's forward pass, found by running it on the meta device (no compute).

    Args:
        model: a :class:`~vitcourse.models.VisionTransformer` (default: the course's picture model,
            ``VisionTransformer()``, built on the meta device).
        batch: batch size B of the imagined input.

    Returns:
        ``{"image", "patches", "tokens", "embedded", "blocks", "norm", "token0", "head"}`` -> shape, e.g.
        ``"patches": (13, 15, 400)``, ``"embedded": (13, 16, 768)``, ``"head": (13, 1)``.
    """
    from .models import VisionTransformer  # here, not at the top: models need no diagrams, and vice versa

    positive_int("batch", batch)
    if model is not None:
        instance_of("model", model, VisionTransformer, "a vitcourse VisionTransformer or None")
    if model is None:
        with torch.device("meta"):
            model = VisionTransformer()
    height, width = model.patch_embed.img_size
    image = torch.empty(batch, model.patch_embed.in_chans, height, width, device="meta")  # (B, C, H, W)
    hooked = {"proj": model.patch_embed.proj, "blocks": model.blocks, "norm": model.norm, "head": model.head}
    seen = _meta_run(model, image, hooked)
    return {
        "image": tuple(image.shape),
        "patches": seen["proj.in"],
        "tokens": seen["proj.out"],
        "embedded": seen["blocks.in"],
        "blocks": seen["blocks.out"],
        "norm": seen["norm.out"],
        "token0": seen["head.in"],
        "head": seen["head.out"],
    }


def vit_pipeline(ax: Axes | None = None, batch: int = 13, model: nn.Module | None = None) -> Axes:
    """The ViT's forward pass as a column of boxes, each arrow labelled with the shape flowing along it.

    The shapes are not typed in: :func:`pipeline_shapes` runs ``model`` on the meta device to find them. The
    numbers on the right are the ViT paper's equations (1)-(4) that each step implements.

    Args:
        ax: where to draw (default: a new figure).
        batch: batch size B shown in the shapes.
        model: the :class:`~vitcourse.models.VisionTransformer` to draw (default: ``VisionTransformer()``).

    Returns:
        The Axes.
    """
    from .models import VisionTransformer

    if ax is not None:  # checked before the model is run
        instance_of("ax", ax, Axes, "a matplotlib Axes or None (None makes a new figure)")
    if model is None:
        with torch.device("meta"):
            model = VisionTransformer()
    s = pipeline_shapes(model, batch)
    p, depth = model.patch_embed.patch_size, len(model.blocks)
    n_patch, d_in, dim = s["patches"][1], s["patches"][2], s["tokens"][2]
    steps = [  # (box text, kind, equation, shape on the arrow out of the box)
        ("image", "data", "", s["image"]),
        (f"cut into {p} × {p} patches, flatten each\n(reshape only, no weights)", "op", "(1)", s["patches"]),
        (f"linear projection E: {d_in} → {dim}", "layer", "(1)", s["tokens"]),
        (
            f"prepend the prediction token x_class\n(one learned 1 × 1 × {dim} vector, expanded)",
            "layer",
            "(1)",
            None,
        ),
        (
            f"+ position embedding E_pos\n(1 × {n_patch + 1} × {dim}, {model.pos_kind})"
            if model.pos_embed is not None
            else "no position embedding\n(pos_embed='none': nothing is added)",
            "layer",
            "(1)",
            s["embedded"],
        ),
        (f"{depth} encoder blocks\n(each keeps the shape)", "layer", "(2), (3)", s["blocks"]),
        ("final LayerNorm", "layer", "(4)", s["norm"]),
        ("take token 0 (the prediction token)", "op", "(4)", s["token0"]),
        (f"head: linear {dim} → {s['head'][-1]}", "layer", "", s["head"]),
    ]
    rows = len(steps) + 1
    ax = _canvas(ax, 10, rows * 1.1, (8.5, rows * 0.78))
    x, w, h = 1.0, 5.0, 0.62
    top = rows * 1.1 - 0.85
    previous = None
    for i, (text, kind, eq, _) in enumerate(steps):
        y = top - i * 1.1
        _box(ax, x, y, w, h, text, kind, fontsize=8.5)
        if eq == "(4)" and text.startswith("final"):  # one note for the two steps of equation (4)
            ax.text(
                x + w + 0.2,
                y + h / 2 - 0.55,
                "eq. (4): $y = \\mathrm{LN}(z_L^0)$. LayerNorm works\non each token by itself, so norming every\n"
                "token, then taking token 0, gives that $y$",
                fontsize=7.5,
                color="#6a1b9a",
                va="center",
            )
        elif eq and eq != "(4)":
            ax.text(x + w + 0.2, y + h / 2, f"eq. {eq}", fontsize=8, color="#6a1b9a", va="center")
        if previous is not None:
            shape = previous[1]
            label = _times(shape) if shape is not None else _times(s["embedded"])
            _arrow(ax, (x + w / 2, previous[0]), (x + w / 2, y + h), label)
        previous = (y, steps[i][3])
    y_out = top - len(steps) * 1.1
    _box(ax, x, y_out, w, h, "prediction", "data", fontsize=8.5)
    _arrow(ax, (x + w / 2, previous[0]), (x + w / 2, y_out + h), _times(previous[1]))
    ax.set_title(f"The Vision Transformer, batch {batch}: the shape after every step", fontsize=10)
    _legend(ax, "lower right")
    return ax


def encoder_block(
    ax: Axes | None = None, block: nn.Module | None = None, batch: int = 13, tokens: int = 16
) -> Axes:
    """The pre-norm encoder block: LN -> multi-head attention -> + residual, LN -> MLP -> + residual.

    Arrows carry the shapes, found by running ``block`` on the meta device; the two residual paths go round
    the left side.

    Args:
        ax: where to draw (default: a new figure).
        block: an :class:`~vitcourse.blocks.EncoderBlock` (default: ViT-Base's, D = 768 with 12 heads).
        batch: batch size B in the shapes.
        tokens: tokens per item N + 1 in the shapes.

    Returns:
        The Axes.
    """
    from .blocks import EncoderBlock

    if ax is not None:  # checked before the block is run
        instance_of("ax", ax, Axes, "a matplotlib Axes or None (None makes a new figure)")
    positive_int("batch", batch)
    positive_int("tokens", tokens)
    if block is not None:
        instance_of("block", block, EncoderBlock, "a vitcourse EncoderBlock or None")
    if block is None:
        with torch.device("meta"):
            block = EncoderBlock(768, 12)
    dim = block.norm1.normalized_shape[0]
    x = torch.empty(batch, tokens, dim, device="meta")  # (B, N + 1, D)
    hooked = {"attn": block.attn, "fc1": block.mlp.fc1, "fc2": block.mlp.fc2, "block": block}
    seen = _meta_run(block, x, hooked)
    hidden = seen["fc1.out"][-1]
    ax = _canvas(ax, 10, 11, (7.5, 8.25))  # one unit = 0.75 inch both ways: the + circles stay round
    cx, w, h = 5.2, 4.2, 0.6
    left = cx - w / 2

    def centre_box(y: float, text: str, kind: str) -> float:
        _box(ax, left, y, w, h, text, kind, fontsize=8.5)
        return y

    def plus(y: float) -> None:
        ax.add_patch(plt.Circle((cx, y), 0.22, facecolor=BOX_COLOURS["op"], edgecolor=EDGE_COLOUR))
        ax.text(cx, y, "+", ha="center", va="center", fontsize=11)

    def skip(y_from: float, y_to: float) -> None:
        xs = left - 1.0
        ax.plot([cx, xs, xs], [y_from, y_from, y_to], color=ARROW_COLOUR, linewidth=1.0)
        _arrow(ax, (xs, y_to), (cx - 0.22, y_to))
        ax.text(xs - 0.1, (y_from + y_to) / 2, "residual\n(identity)", fontsize=7.5, ha="right", va="center")

    centre_box(10.1, "input x", "data")
    y_ln1 = centre_box(8.7, "LayerNorm 1 (per token, over D)", "layer")
    y_att = centre_box(
        7.3, f"multi-head attention\n({block.attn.num_heads} heads of {block.attn.head_dim})", "layer"
    )
    plus(6.3)
    y_ln2 = centre_box(4.85, "LayerNorm 2", "layer")
    y_fc1 = centre_box(3.6, f"MLP: linear {dim} → {hidden}, GELU", "layer")
    y_fc2 = centre_box(2.2, f"MLP: linear {hidden} → {dim}", "layer")
    plus(1.2)
    centre_box(0.0, "output", "data")
    ax.set_ylim(-0.15, 11)  # room for the output box's rounded border, which reaches just below 0
    shape = _times(seen["block.in"])
    _arrow(ax, (cx, 10.1), (cx, y_ln1 + h), shape)
    _arrow(ax, (cx, y_ln1), (cx, y_att + h), shape)
    _arrow(ax, (cx, y_att), (cx, 6.3 + 0.22), _times(seen["attn.out"]))
    _arrow(ax, (cx, 6.3 - 0.22), (cx, y_ln2 + h))
    # the shape goes below the point where the second residual path leaves (5.95), not beside it
    ax.text(cx + 0.05, (5.95 + y_ln2 + h) / 2 - 0.05, shape, fontsize=8, color=ARROW_COLOUR, va="center")
    _arrow(ax, (cx, y_ln2), (cx, y_fc1 + h), shape)
    _arrow(ax, (cx, y_fc1), (cx, y_fc2 + h), _times(seen["fc1.out"]))
    _arrow(ax, (cx, y_fc2), (cx, 1.2 + 0.22), _times(seen["fc2.out"]))
    _arrow(ax, (cx, 1.2 - 0.22), (cx, h), _times(seen["block.out"]))
    skip(9.85, 6.3)
    skip(5.95, 1.2)
    ax.text(cx + w / 2 + 0.25, 7.6, "eq. (2)\nz′ = MSA(LN(z)) + z", fontsize=8, color="#6a1b9a", va="center")
    ax.text(cx + w / 2 + 0.25, 2.9, "eq. (3)\nz = MLP(LN(z′)) + z′", fontsize=8, color="#6a1b9a", va="center")
    ax.set_title("The pre-norm encoder block: norm first, then add the input back", fontsize=10)
    _legend(ax, "lower right", anchor=(1.06, 0.0))  # right of the output box
    return ax


# ----------------------------------------------------------------------------------------------------------
# Tokens-to-Token (notebooks 08 and 09): token_transformer, t2t_loop


def _shape(*sizes: int | None) -> str:
    """A shape label as the notebooks print shapes, e.g. ``(13, 100, 49)``; ``None`` sizes are left out."""
    return str(tuple(s for s in sizes if s is not None))


def _label(ax: Axes, x: float, y: float, text: str, fontsize: float = 8) -> None:
    """A shape written just above a horizontal arrow whose middle is (x, y)."""
    ax.text(x, y + 0.12, text, fontsize=fontsize, color=ARROW_COLOUR, ha="center", va="bottom")


def _path(ax: Axes, points: list[tuple[float, float]]) -> None:
    """A line through ``points`` whose last segment ends in an arrow head (for skip connections)."""
    xs, ys = zip(*points[:-1], strict=True)
    ax.plot(xs, ys, color=ARROW_COLOUR, lw=1.0)
    _arrow(ax, points[-2], points[-1])


def token_transformer(
    ax: Axes | None = None,
    batch: int = 13,
    tokens: int = 100,
    dim: int = 49,
    chan: int = 64,
    num_heads: int = 1,
    mlp_ratio: float = 1.0,
) -> Axes:
    """T2T's token transformer as a diagram: LN -> attention (dim -> chan) + v -> LN -> MLP -> + residual.

    Args:
        ax: where to draw (a new figure when None).
        batch, tokens, dim: the input's shape (B, N, dim), e.g. (13, 100, 49) for 7 x 7 windows.
        chan: token length out (T2T's token_dim, 64).
        num_heads: attention heads (1 in T2T); q, k, v are (B, heads, N, chan / heads).
        mlp_ratio: MLP hidden width as a multiple of chan (1 in T2T).

    Every arrow carries the shape of what flows along it, computed from these arguments.
    """
    for name, value in (
        ("batch", batch),
        ("tokens", tokens),
        ("dim", dim),
        ("chan", chan),
        ("num_heads", num_heads),
    ):
        positive_int(name, value)
    if chan % num_heads:
        raise ValueError(f"num_heads={num_heads} must divide chan={chan}")
    finite_float("mlp_ratio", mlp_ratio, 0, above=True)
    ax = _canvas(ax, 12.5, 15.4, (7.5, 9.5))
    head_dim, hidden = chan // num_heads, int(chan * mlp_ratio)
    x_in, x_mid = _shape(batch, tokens, dim), _shape(batch, tokens, chan)
    cx, w, h = 5.4, 6.2, 0.8
    left = cx - w / 2

    def box(y: float, text: str, kind: str = "layer") -> None:
        _box(ax, left, y - h / 2, w, h, text, kind)

    def plus(y: float) -> None:
        _box(ax, cx - 0.35, y - 0.35, 0.7, 0.7, "+", "op", fontsize=12)

    box(14.6, f"tokens in: length {dim}", "data")
    _arrow(ax, (cx, 14.2), (cx, 13.3), x_in)
    box(12.9, f"LayerNorm({dim})")
    _arrow(ax, (cx, 12.5), (cx, 11.6), x_in)
    box(11.2, f"qkv: Linear {dim} → 3 × {chan}, no bias")
    _arrow(ax, (cx, 10.8), (cx, 9.9), f"q, k, v: {_shape(batch, num_heads, tokens, head_dim)} each")
    heads = f"{num_heads} head{'s' if num_heads > 1 else ''}"
    box(9.5, f"softmax(q kᵀ × scale) v, {heads}", "op")
    _arrow(ax, (cx, 9.1), (cx, 8.2), f"heads merged: {x_mid}")
    box(7.8, f"proj: Linear {chan} → {chan}")
    _arrow(ax, (cx, 7.4), (cx, 6.85))
    plus(6.5)
    # The skip through v: lengths differ (dim != chan), so x itself cannot be added; v (heads merged) can.
    _path(ax, [(left + w, 11.2), (10.8, 11.2), (10.8, 6.5), (cx + 0.35, 6.5)])
    ax.text(
        10.95, 8.85, f"skip through v\n(heads merged)\n{x_mid}", fontsize=8, color=ARROW_COLOUR, va="center"
    )
    _arrow(ax, (cx, 6.15), (cx, 5.1), x_mid)
    box(4.7, f"LayerNorm({chan})")
    _arrow(ax, (cx, 4.3), (cx, 3.5), x_mid)
    box(3.1, f"MLP: Linear {chan} → {hidden}, GELU, Linear {hidden} → {chan}")
    _arrow(ax, (cx, 2.7), (cx, 2.15))
    plus(1.8)
    _path(ax, [(cx, 5.65), (1.0, 5.65), (1.0, 1.8), (cx - 0.35, 1.8)])
    ax.text(0.85, 3.7, "residual", fontsize=8, color=ARROW_COLOUR, rotation=90, ha="right", va="center")
    _arrow(ax, (cx, 1.45), (cx, 0.95), x_mid)
    box(0.55, f"tokens out: length {chan}", "data")
    ax.set_title(f"Token transformer: tokens of length {dim} in, {chan} out, {heads}, skip through v")
    _legend(ax, "lower right")
    return ax


def t2t_loop(
    ax: Axes | None = None,
    height: int = 60,
    width: int = 100,
    in_chans: int = 1,
    batch: int | None = None,
    token_dim: int = 64,
    embed_dim: int = 768,
) -> Axes:
    """The T2T module as a diagram: soft split -> token transformer -> rebuild, twice, then soft split -> linear.

    Args:
        ax: where to draw (a new figure when None).
        height, width, in_chans: the input image (C, H, W).
        batch: a batch size to put in front of every shape (left out when None).
        token_dim: token length inside the module (64).
        embed_dim: token length out (the ViT body's D).

    The stages are :data:`vitcourse.models.T2T_STAGES`; every arrow carries the running shape, computed for
    this image size with :func:`vitcourse.tokens.count_tokens` (the same grids the model builds).
    """
    for name, value in (
        ("height", height),
        ("width", width),
        ("in_chans", in_chans),
        ("token_dim", token_dim),
        ("embed_dim", embed_dim),
    ):
        positive_int(name, value)
    if batch is not None:
        positive_int("batch", batch)
    ax = _canvas(ax, 16, 6.4, (13.5, 5.4))
    steps: list[tuple[str, str]] = []  # (box text, shape on the arrow out of the box)
    steps.append((f"image\n{in_chans} × {height} × {width}", _shape(batch, in_chans, height, width)))
    h, w, c = height, width, in_chans
    for i, (k, s, p) in enumerate(T2T_STAGES):
        grid = count_tokens(h, w, k, s, p)
        steps.append((f"soft split\nk={k}, s={s}, p={p}", _shape(batch, grid.total, c * k * k)))
        if i == len(T2T_STAGES) - 1:
            steps.append((f"linear\n{c * k * k} → {embed_dim}", _shape(batch, grid.total, embed_dim)))
            break
        steps.append((f"token transformer\n{c * k * k} → {token_dim}", _shape(batch, grid.total, token_dim)))
        steps.append(
            (f"rebuild\n{grid.rows} × {grid.cols} grid", _shape(batch, token_dim, grid.rows, grid.cols))
        )
        h, w, c = grid.rows, grid.cols, token_dim
    steps.append(("tokens to the\nViT body", ""))
    # A snake over 4 columns: left to right, then right to left, then left to right from column 1.
    columns, rows = (1.4, 5.6, 9.8, 14.0), (5.4, 3.2, 1.0)
    slots = [(0, r) for r in range(4)] + [(1, r) for r in (3, 2, 1)] + [(2, r) for r in (1, 2, 3)]
    bw, bh = 2.5, 1.0
    for n, ((text, _), (row, col)) in enumerate(zip(steps, slots, strict=True)):
        kind = (
            "data"
            if n in (0, len(steps) - 1)
            else ("op" if text.startswith(("soft", "rebuild")) else "layer")
        )
        _box(ax, columns[col] - bw / 2, rows[row] - bh / 2, bw, bh, text, kind)
    for (_, shape), (r0, c0), (r1, c1) in zip(steps, slots, slots[1:], strict=False):
        x0, y0, x1, y1 = columns[c0], rows[r0], columns[c1], rows[r1]
        if r0 == r1:  # horizontal: from one box's side to the next one's
            sign = 1 if c1 > c0 else -1
            _arrow(ax, (x0 + sign * bw / 2, y0), (x1 - sign * bw / 2, y1))
            _label(ax, (x0 + x1) / 2, y0, shape)
        else:  # down to the next row, shape written beside the arrow
            _arrow(ax, (x0, y0 - bh / 2), (x1, y1 + bh / 2), shape)
    where = f"batch {batch}, " if batch is not None else ""
    ax.set_title(f"The T2T module on a {in_chans} × {height} × {width} image ({where}shapes on the arrows)")
    _legend(ax, "lower left")
    return ax

# ---
# jupyter:
#   jupytext:
#     cell_metadata_filter: all,-execution
#     notebook_metadata_filter: kernelspec,-jupytext.text_representation.jupytext_version
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 06 · Tokens-to-Token
#
# ViT turns an image into tokens in one cut (notebook 01). The Tokens-to-Token (T2T) module does it in stages:
#
# 1. **soft split** the image into overlapping windows (notebook 02),
# 2. pass the tokens through a small **token transformer**, which also shortens them,
# 3. **rebuild** an image from the tokens, one pixel per token (notebook 02),
# 4. repeat, and after the last soft split project the tokens to the model's length $D$.
#
# Why bother? The T2T paper (Yuan et al., 2021) starts from an observation about ViT trained from scratch on
# ImageNet alone: it trails convolutional networks of the same size, and its patch tokens lose local structure
# such as edges and lines. Overlapping windows keep small neighbourhoods of the image whole inside a token (the
# first section computes exactly how small). The token transformers themselves attend globally, every token to
# every other; the local step is the next soft split, which merges each window of neighbouring rebuilt tokens
# into one token. Together they give a small built-in prior for local structure, which matters most when data is
# limited. With it, the paper reports T2T-ViT trained from scratch on ImageNet matching or beating ViT and ResNets
# of similar size.
#
# **Learning goals.** After this notebook you can
# 1. say which neighbourhoods a soft split keeps whole, and compute it for any kernel and stride,
# 2. follow a token transformer shape by shape, and explain why its skip connection goes through $v$,
# 3. follow the T2T module stage by stage, predicting each grid before it is computed,
# 4. run T2T-ViT end to end, count its parameters against the official ones, and say where its compute goes.

# %%
import matplotlib.pyplot as plt
import torch
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch

import vitcourse
from vitcourse import check, diagrams, load_mountains, plots, tokens
from vitcourse.blocks import TokenTransformer
from vitcourse.cost import count_macs
from vitcourse.models import T2T_STAGES, T2TViT, TokensToToken, count_parameters, create_model

torch.manual_seed(0)
device = vitcourse.get_device()
picture = load_mountains()
height, width = picture.shape
image = vitcourse.to_tensor(picture).to(device)  # (1, 1, 60, 100)

# %% [markdown]
# ## 1. Which neighbourhoods a soft split keeps whole
#
# A soft split with kernel $k$, stride $s$ and padding $p$ starts a window every $s$ pixels, at
# $t = -p, s - p, 2s - p, \dots$ along each axis. An $m \times m$ block of the image whose top-left pixel is at
# $(a, b)$ lies whole inside a window when, along rows and along columns,
#
# $$t \le a \quad\text{and}\quad a + m \le t + k, \qquad\text{i.e.}\qquad a + m - k \le t \le a .$$
#
# That interval holds $k - m + 1$ consecutive integers, and window starts come every $s$ of them, so *away from
# the image's edges* it holds a start wherever the block sits exactly when $k - m + 1 \ge s$:
#
# $$m_{\text{always whole}} = k - s + 1 \qquad \text{(if the windows reach every edge)}.$$
#
# At the edges there must also be a window to hold the block: the first window starts at $-p \le 0$, and the
# last one must end at or past the last row (and column). When it does not, the last pixels lie in no window at
# all: on a side of 10 with $(k, s, p) = (7, 4, 2)$ the two windows cover rows $-2 \dots 4$ and $2 \dots 8$, and
# row 9 is in neither. On the picture, on the grids it rebuilds, and on 224 × 224 images the windows do reach
# every edge (the first cell below checks it), so there the formula holds everywhere.
#
# Larger blocks are whole at some positions and cut by every window at others. The second cell does not trust
# the formula: for each $m$ it tries every position of an $m \times m$ block and asks whether any window holds
# it. Stage 1 splits the picture; stage 2 splits the 15 × 25 grid that stage 1 rebuilds; ViT's 20 × 20 patches
# (notebook 01) are the split with $s = k$.


# %%
def last_window_end(side: int, kernel: int, stride: int, padding: int) -> int:
    """One past the last pixel the last window covers along a side (windows start at -padding)."""
    n_windows = (side + 2 * padding - kernel) // stride + 1
    return -padding + (n_windows - 1) * stride + kernel


for side, stages in ((60, T2T_STAGES), (100, T2T_STAGES), (224, T2T_STAGES), (10, T2T_STAGES[:1])):
    start, reach = side, []
    for k, s, p in stages:  # each stage splits the side the previous one produced
        end = last_window_end(side, k, s, p)
        reach.append(end >= side)
        print(
            f"side {side:3d}, (k, s, p) = {(k, s, p)}: last window ends at {end}, reaches the edge: {end >= side}"
        )
        side = (side + 2 * p - k) // s + 1
    assert all(reach) == (start != 10)  # only the 10-pixel side is left with pixels in no window


# %%
def whole_blocks(h: int, w: int, kernel: int, stride: int, padding: int, m: int) -> torch.Tensor:
    """(h - m + 1, w - m + 1) booleans: is the m x m block with this top-left pixel inside some window?"""
    # top-left (row, col) of every window, in the unpadded image's coordinates: (N, 2)
    corners = torch.from_numpy(tokens.window_corners(h, w, kernel, stride, padding))
    a, b = torch.arange(h - m + 1), torch.arange(w - m + 1)  # block top-left rows, columns
    top, left = corners[:, :1], corners[:, 1:]  # (N, 1) each
    rows_in = (top <= a) & (a + m <= top + kernel)  # (N, h - m + 1): window n holds the block's rows
    cols_in = (left <= b) & (b + m <= left + kernel)  # (N, w - m + 1)
    return (rows_in[:, :, None] & cols_in[:, None, :]).any(dim=0)  # (h - m + 1, w - m + 1)


splits = {
    "T2T stage 1": (height, width, 7, 4, 2),
    "T2T stage 2": (*tokens.count_tokens(height, width, 7, 4, 2)[:2], 3, 2, 1),
    "ViT patches": (height, width, 20, 20, 0),
}
shares = {}
for name, (h, w, k, s, p) in splits.items():
    shares[name] = [whole_blocks(h, w, k, s, p, m).float().mean().item() for m in range(1, k + 1)]
    largest = max(m for m in range(1, k + 1) if shares[name][m - 1] == 1.0)
    print(f"{name}: {h} x {w} image, k={k}, s={s}, p={p}")
    print(f"   share of positions where an m x m block is whole, m = 1..{min(k, 8)}:")
    print("   " + "  ".join(f"{v:.2f}" for v in shares[name][:8]))
    print(f"   largest block always whole: {largest} x {largest}   (k - s + 1 = {k - s + 1})")
    assert largest == k - s + 1
print("none of these splits keeps every k x k neighbourhood whole")
share5 = shares["T2T stage 1"][4]
print(f"stage 1, 5 x 5 blocks: {share5:.4f} of positions whole; (3/4)^2 = {(3 / 4) ** 2:.4f}")
assert share5 == (3 / 4) ** 2
edge = whole_blocks(10, 10, 7, 4, 2, 1)  # single pixels of a 10 x 10 image, split with (7, 4, 2)
print(
    f"10 x 10 image, (7, 4, 2): row 9 in some window: {edge[9].any().item()}, column 9: {edge[:, 9].any().item()}"
)
assert not edge[9].any() and not edge[:, 9].any()

# %% [markdown]
# So T2T's first split keeps every 4 × 4 neighbourhood of the picture whole in at least one token, wherever it
# sits; 5 × 5 and larger ones are whole only at some positions. The later 3 × 3 splits keep every 2 × 2 block of
# the rebuilt grid whole. ViT's patches guarantee nothing beyond single pixels: a ridge that crosses a patch
# boundary is cut in two. The map shows, for 5 × 5 blocks and T2T's first split, which top-left positions are
# whole in some window and which are cut by every window. The pattern repeats every $s = 4$ pixels: 1 of every
# 4 top rows (and 1 of every 4 left columns) fits in no window, so $(3/4)^2 \approx 0.56$ of the positions are
# whole, the share printed above.

# %%
fig, axes = plt.subplots(1, 2, figsize=(12, 3.8), width_ratios=[1.0, 1.3], layout="constrained")
for name, values in shares.items():
    axes[0].plot(range(1, len(values) + 1), values, marker="o", label=name)
axes[0].set_xticks(range(1, 21, 2))  # block sides are whole numbers
axes[0].set_xlabel("block side m (pixels or grid cells)")
axes[0].set_ylabel("share of positions whole")
axes[0].set_title("m x m blocks whole in some window")
axes[0].legend()
h, w, k, s, p = splits["T2T stage 1"]
colours = ListedColormap(["#f4d6a0", "#2b5c8a"])  # cut, whole
axes[1].imshow(whole_blocks(h, w, k, s, p, 5)[:24, :40].int(), cmap=colours, vmin=0, vmax=1)
axes[1].set_xlabel("block's left column")
axes[1].set_ylabel("block's top row")
axes[1].set_title("5 x 5 blocks, stage 1 (k=7, s=4, p=2): top-left 24 x 40 positions")
axes[1].legend(
    handles=[
        Patch(color=colours(1), label="whole in some window"),
        Patch(color=colours(0), label="cut by every window"),
    ],
    loc="upper left",
    bbox_to_anchor=(1.01, 1.0),
)
plt.show()

# %% [markdown]
# ## 2. The token transformer
#
# After the first soft split a token is a 7 × 7 window of one channel: length $\text{dim} = 49$. A *token
# transformer* is an encoder block (notebook 05) whose attention also changes the token length, to
# $\text{chan} = 64$ (T2T's `token_dim`). For tokens $X$ of shape $(N, \text{dim})$ and one head:
#
# $$[Q, K, V] = \mathrm{LN}(X)\, W_{qkv}, \qquad W_{qkv} \in \mathbb{R}^{\text{dim} \times 3\,\text{chan}}
#   \ (\text{no bias}),$$
#
# $$Y = V + \mathrm{softmax}\!\left(Q K^\top \cdot \text{scale}\right) V\, W_{\text{proj}} + b_{\text{proj}},
#   \qquad Z = Y + \mathrm{MLP}(\mathrm{LN}(Y)) .$$
#
# **Why the skip goes through $V$.** An encoder block adds its input back, $X + \mathrm{Attn}(\mathrm{LN}(X))$;
# here $X$ has length 49 and the attention output 64, so they cannot be added. $V$ already has length 64 and is
# a linear image of the (normalised) input, so T2T adds $V$ instead (with several heads, $V$'s heads are merged back
# side by side first). The MLP (hidden width 64, MLP ratio 1) keeps length 64 and has an ordinary residual.
#
# **The scale.** The official T2T code scales $QK^\top$ by $(\text{dim} / \text{heads})^{-1/2} = 49^{-1/2} = 1/7$,
# from the input length; `TokensToToken` passes that scale to its token transformers. A bare `TokenTransformer`
# takes $(\text{chan} / \text{heads})^{-1/2} = 1/8$ unless told otherwise, so the cells of this notebook pass
# `qk_scale=dim ** -0.5` explicitly. The scale changes the attention weights' values, never a shape.

# %%
diagrams.token_transformer(batch=13, tokens=100, dim=49, chan=64)
plt.show()

# %% [markdown]
# The walk-through sizes of the article series: a batch of 13, 100 tokens of length 49, 64 channels. The tokens
# are random standard-normal numbers standing in for soft-split windows (in T2T they are raw pixel windows, or
# windows of a rebuilt image); the block normalises them itself, in `norm1`. Each step is computed by hand from
# the module's own layers and compared with `TokenTransformer.forward`.

# %%
batch, n_tokens, dim, chan = 13, 100, 49, 64
x = torch.randn(batch, n_tokens, dim, generator=torch.Generator().manual_seed(1)).to(device)  # (B, N, 49)
tt = TokenTransformer(dim, chan, num_heads=1, mlp_ratio=1.0, qk_scale=dim**-0.5).to(device).eval()
with torch.no_grad():
    h = tt.norm1(x)  # (B, N, 49)
    attn_out, st = tt.attn.steps(h)  # every intermediate of the attention
    print(f"input {tuple(x.shape)} -> norm1 {tuple(h.shape)}")
    print(
        f"q, k, v each {tuple(st.q.shape)}; scores {tuple(st.scores.shape)}; heads merged {tuple(st.merged.shape)}"
    )
    v_merged = st.v.transpose(1, 2).reshape(batch, n_tokens, chan)  # (B, N, 64): v with its heads merged
    y = tt.attn.proj(st.merged) + v_merged  # (B, N, 64): the skip through v
    print(f"proj(merged) + v -> {tuple(y.shape)}")
    out = y + tt.mlp(tt.norm2(y))  # (B, N, 64)
    print(f"+ MLP(norm2) -> {tuple(out.shape)}")
    same = torch.allclose(y, attn_out, atol=1e-5) and torch.allclose(out, tt(x), atol=1e-5)
print(f"equals TokenTransformer.forward: {same}; scale on Q K^T: {tt.attn.scale:.4f} = 1/7")
assert same and out.shape == (batch, n_tokens, chan)

# %% [markdown]
# **Exercise 1 (predict, then run).** T2T-ViT on ImageNet reads RGB images of 224 × 224. How many weights does
# the qkv layer of its *first* token transformer hold? Work it out before running the cell after the check,
# which reads the number off the model.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "t2t_qkv_weight_count-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_qkv_rgb = None  # replace None with a number
### BEGIN SOLUTION
answer_qkv_rgb = (3 * 7 * 7) * 64 * 3  # tokens of length C x k x k = 147, to 3 x 64, no bias
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "t2t_qkv_weight_count-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.t2t_qkv_weight_count(answer_qkv_rgb)

# %% nbgrader={"grade": true, "grade_id": "t2t_qkv_weight_count-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.t2t_qkv_weight_count, answer_qkv_rgb)
### END HIDDEN TESTS

# %% [markdown]
# The next cell reads the one-channel counts off the walk-through's block and the RGB count off the full model.
# `create_model("t2t_vit_t_14")` builds the model that the paper calls T2T-ViT$_t$-14 and the official code
# `t2t_vit_t_14` (token transformers with ordinary attention; §8 says more about the names).

# %%
n_qkv, n_proj = tt.attn.qkv.weight.numel(), sum(p.numel() for p in tt.attn.proj.parameters())
print(
    f"one channel: qkv {n_qkv} weights = dim x chan x 3 = {dim} x {chan} x 3, bias: {tt.attn.qkv.bias is not None}"
)
print(f"             proj {n_proj} = chan^2 + chan = {chan}^2 + {chan}")
assert n_qkv == dim * chan * 3 and n_proj == chan**2 + chan and tt.attn.qkv.bias is None
with torch.device("meta"):  # shapes only: enough to count
    t2t_rgb = create_model("t2t_vit_t_14")
qkv_rgb = t2t_rgb.tokens_to_token.attention1.attn.qkv
print(f"first token transformer on RGB 224 x 224: qkv {qkv_rgb}: {qkv_rgb.weight.numel():,} weights")

# %% [markdown]
# ## 3. Rebuilding an image from the picture's tokens
#
# Between two soft splits T2T lays the tokens back on their grid: token $i$ of a $r \times c$ grid becomes pixel
# $(i \,/\!/\, c,\ i \bmod c)$, and the token's entries become that pixel's channels (notebook 02). After the
# first split of the picture, the grid is 15 × 25 and each token holds a 7 × 7 window, so channel $j$ of the
# rebuilt image holds, for every window, the pixel at offset $(j \,/\!/\, 7,\ j \bmod 7)$ inside it: a copy of
# the picture sampled every 4 pixels, except where that offset falls in the padding. The windows start at $-2$,
# so channel 0 (offset (0, 0)) has padding zeros along its top row and left column, and channel 48 (offset
# (6, 6)) along its bottom row and right column, since the last windows reach one pixel into the padding (§ 1
# printed their ends, 61 and 101); these are the dark borders in the top row of the figure. The centre channel, $j = 24$, is exactly
# `picture[1::4, 1::4]`. The four top panels share the picture's colours and its 0 to 1 range, with one
# colorbar; the bottom row shares another colorbar of its own.
#
# The token transformer's output (random weights here) is rebuilt the same way, and its channels still show the
# picture's layout, though not its brightness. The first LayerNorm works on each token alone and removes its
# window's mean and scale: a flat window becomes all zeros, so flat sky and flat ground come out nearly uniform.
# What varies from cell to cell is where a window holds structure: the moon's rim, the dithered band of the sky,
# the ridge lines, and the border, where the padding's zeros make an edge. The skip through $v$ carries a linear
# mix of those normalised windows to the output.

# %%
grid1 = tokens.count_tokens(height, width, *T2T_STAGES[0])
torch.manual_seed(0)
tt_pic = TokenTransformer(49, 64, qk_scale=49**-0.5).to(device).eval()
with torch.no_grad():
    toks = tokens.soft_split(image, *T2T_STAGES[0])  # (1, 375, 49)
    raw = tokens.rebuild_image(toks, grid1.rows, grid1.cols)  # (1, 49, 15, 25)
    mixed = tokens.rebuild_image(tt_pic(toks), grid1.rows, grid1.cols)  # (1, 64, 15, 25)
print(f"picture {tuple(image.shape)} -> tokens {tuple(toks.shape)} -> rebuilt {tuple(raw.shape)}")
print(f"after the token transformer: rebuilt {tuple(mixed.shape)}")
centre = raw[0, 24].cpu()
print(f"channel 24 equals picture[1::4, 1::4]: {torch.equal(centre, image[0, 0, 1::4, 1::4].cpu())}")
assert torch.equal(centre, image[0, 0, 1::4, 1::4].cpu())
pads = {  # the border of channels 0 and 48 that comes from padding, as (channel, rows, columns)
    "channel 0, top row": raw[0, 0, 0],
    "channel 0, left column": raw[0, 0, :, 0],
    "channel 48, bottom row": raw[0, 48, -1],
    "channel 48, right column": raw[0, 48, :, -1],
}
for where, values in pads.items():
    print(f"{where}: all zeros (padding): {bool((values == 0).all())}")
    assert (values == 0).all()

# %%
fig, axes = plt.subplots(2, 4, figsize=(13.5, 5.2), layout="constrained")
for ax, ch in zip(axes[0], (0, 24, 48), strict=False):  # same colours and range as the picture's colorbar
    plots.show_matrix(
        raw[0, ch].cpu(),
        ax=ax,
        title=f"channel {ch}: offset ({ch // 7}, {ch % 7})",
        xlabel="grid column",
        ylabel="grid row",
        vmin=0,
        vmax=1,
        colorbar=False,
        aspect="equal",
    )
plots.show_picture(picture, ax=axes[0, 3], title="the picture, 60 x 100", colorbar=False)
fig.colorbar(axes[0, 3].images[0], ax=axes[0, :], label="brightness", shrink=0.9)
low, high = mixed[0, :4].min().item(), mixed[0, :4].max().item()  # one colour scale for the bottom row
for ax, ch in zip(axes[1], range(4), strict=True):
    plots.show_matrix(
        mixed[0, ch].cpu(),
        ax=ax,
        title=f"token transformer, channel {ch}",
        xlabel="grid column",
        ylabel="grid row",
        cmap="viridis",
        vmin=low,
        vmax=high,
        colorbar=False,
        aspect="equal",
    )
fig.colorbar(axes[1, 0].images[0], ax=axes[1, :], label="output (random weights)", shrink=0.9)
fig.suptitle(
    "The picture's tokens rebuilt on the 15 x 25 grid (top: soft split; bottom: after a token transformer)"
)
plt.show()

# %% [markdown]
# ## 4. The T2T module, stage by stage
#
# With $I_0$ the image, each stage $i$ computes
#
# $$T_i = \mathrm{SoftSplit}_i(I_i), \qquad I_{i+1} = \mathrm{Rebuild}\big(\mathrm{TT}_i(T_i)\big),$$
#
# and the last stage ends with a linear layer instead: $\text{tokens} = T_2\, W + b$, of length $D$. T2T's stages
# are $(k, s, p) = (7, 4, 2), (3, 2, 1), (3, 2, 1)$; the token transformers work at `token_dim` = 64. The diagram
# follows the article series' walk-through, a batch of 13 one-channel images of 400 × 100; its shapes are
# computed for that size.

# %%
diagrams.t2t_loop(height=400, width=100, batch=13)
plt.show()

# %% [markdown]
# The same walk, run. Before each split, `count_tokens` predicts the grid; the assertion checks the computed
# shape against the prediction, and the last lines check the loop against the module's own `forward` (on two
# items of the batch). The module's layers carry the official code's names, so that official checkpoints load:
# the splits are `soft_split0`, `soft_split1`, `soft_split2`, counted from 0, and the token transformers are
# `attention1` and `attention2`, counted from 1, so `attention{i + 1}` is the one that follows `soft_split{i}`.

# %%
H, W = 400, 100
images = torch.randn(13, 1, H, W, generator=torch.Generator().manual_seed(2)).to(device)
t2t = TokensToToken((H, W), in_chans=1, embed_dim=768, token_dim=64).to(device).eval()
print(f"stages (kernel, stride, padding): {T2T_STAGES}")
img, channels, counts = images, 1, []
with torch.no_grad():
    for i, (k, s, p) in enumerate(T2T_STAGES):
        grid = tokens.count_tokens(img.shape[2], img.shape[3], k, s, p)
        counts.append(grid.total)
        print(
            f"stage {i}: predicted {grid.rows} x {grid.cols} = {grid.total} tokens of length {channels * k * k}"
        )
        toks = getattr(t2t, f"soft_split{i}")(img)  # (B, N, C*k*k)
        assert toks.shape == (13, grid.total, channels * k * k)
        print(f"   soft split {tuple(img.shape)} -> {tuple(toks.shape)}")
        if i == len(T2T_STAGES) - 1:
            break
        toks = getattr(t2t, f"attention{i + 1}")(toks)  # (B, N, 64)
        img = tokens.rebuild_image(toks, grid.rows, grid.cols)  # (B, 64, rows, cols)
        channels = 64
        print(f"   token transformer -> {tuple(toks.shape)} -> rebuild {tuple(img.shape)}")
    final = t2t.project(toks)  # (B, N, 768)
    print(f"   project -> {tuple(final.shape)}")
    assert torch.allclose(final[:2], t2t(images[:2]), atol=1e-4)  # two items are enough to compare
print(" -> ".join(map(str, counts)) + " tokens; the module's own forward gives the same result")

# %% [markdown]
# **Exercise 2 (predict, then run).** How many tokens does the T2T module make from the 60 × 100 picture? The
# next section builds the module on the picture and prints the answer, so predict first.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "t2t_picture_tokens-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_picture_tokens = None  # replace None with a number
### BEGIN SOLUTION
rows, cols = 60, 100
for k, s, p in T2T_STAGES:
    rows, cols = (rows + 2 * p - k) // s + 1, (cols + 2 * p - k) // s + 1
answer_picture_tokens = rows * cols
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "t2t_picture_tokens-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.t2t_picture_tokens(answer_picture_tokens)

# %% nbgrader={"grade": true, "grade_id": "t2t_picture_tokens-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.t2t_picture_tokens, answer_picture_tokens)
### END HIDDEN TESTS

# %% [markdown]
# ## 5. The same module on the picture
#
# Any H × W works, because the rebuild uses the grid's rows and columns rather than a square root (the official
# code rebuilds with $\sqrt{N}$, so it assumes square images).

# %%
torch.manual_seed(0)
t2t_pic = TokensToToken(picture.shape, in_chans=1, embed_dim=768).to(device).eval()
with torch.no_grad():
    out_pic = t2t_pic(image)  # (1, N, 768)
print("grids after each split:", [f"{g.rows} x {g.cols} = {g.total}" for g in t2t_pic.grids])
print(f"picture {tuple(image.shape)} -> tokens {tuple(out_pic.shape)}")
assert out_pic.shape[1] == t2t_pic.grids[-1].total

# %%
diagrams.t2t_loop(height=height, width=width)
plt.show()

# %% [markdown]
# **Exercise 3 (transfer).** The official models read 224 × 224 images and end with a 14 × 14 grid. Is 224 the
# only side that gives 14? Write `my_smallest_side(target, stages)` returning the *smallest* image side $n$, in
# pixels, for which the soft splits `stages` (a list of `(k, s, p)`, each splitting the grid the previous one
# made) give `target` tokens along that side. One way: undo the stages one at a time, from the last, asking
# what is the smallest input side for which $\lfloor (n + 2p - k) / s \rfloor + 1 = t$. (A loop that tries
# $n = 1, 2, 3, \dots$ also works.) The check tries T2T's stages, ViT's single cut $(16, 16, 0)$ and others, and
# names the usual slips.


# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "t2t_smallest_side_function-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
def my_smallest_side(target: int, stages: list[tuple[int, int, int]]) -> int:
    ### BEGIN SOLUTION
    side = target
    for k, s, p in reversed(stages):  # t windows need t - 1 strides plus one kernel, less the padding
        side = (side - 1) * s + k - 2 * p
    return side
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "t2t_smallest_side_function-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.t2t_smallest_side_function(my_smallest_side)

# %% nbgrader={"grade": true, "grade_id": "t2t_smallest_side_function-test", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.t2t_smallest_side_function, my_smallest_side)
### END HIDDEN TESTS

# %% [markdown]
# Every side from the smallest one up to one less than the smallest side giving 15 gives the same 14 × 14 grid:
# the last pixels of a larger image fall in no new window. The cell counts it with `tokens.stage_grids`, and
# does the same for the picture's 4 × 7 grid.

# %%
sides = [n for n in range(150, 300) if tokens.stage_grids(n, n)[-1].rows == 14]
print(f"square sides giving a 14 x 14 grid: {sides[0]} to {sides[-1]} ({len(sides)} sides, 224 among them)")
rows = [n for n in range(20, 120) if tokens.stage_grids(n, 100)[-1].rows == 4]
cols = [n for n in range(50, 200) if tokens.stage_grids(60, n)[-1].cols == 7]
print(f"heights giving 4 rows: {rows[0]} to {rows[-1]}; widths giving 7 columns: {cols[0]} to {cols[-1]}")
assert 224 in sides and 60 in rows and 100 in cols

# %% [markdown]
# ## 6. T2T-ViT end to end
#
# T2T-ViT is the T2T module followed by the ViT body of notebook 05 (prediction token, fixed sinusoidal position
# table, encoder blocks without qkv bias, norm, head). Only the first line of ViT's equations changes:
#
# $$z_0 = [x_{\text{class}};\ \mathrm{T2T}(x)] + E_{\text{pos}}, \qquad
#   z_\ell = \mathrm{Block}_\ell(z_{\ell-1}),\ \ell = 1, \dots, L, \qquad y = \mathrm{head}(\mathrm{LN}(z_L)_0).$$
#
# `vitcourse.models.T2TViT` defaults to T2T-ViT$_t$-14's width and depth on the picture; the run below keeps its width
# and one of its 14 blocks. Every block keeps the shape, so one shows the whole path; building all 14 means
# drawing about 21 M initial weights from a truncated normal, which takes several seconds on a small CPU, more
# than this notebook's time allows. The next cell counts the full sizes without building weights.

# %%
torch.manual_seed(0)
model = T2TViT(depth=1).to(device).eval()
print(f"T2T-ViT on the picture: D = {model.embed_dim}, encoder blocks: {len(model.blocks)}")
with torch.no_grad():
    emb = model.embed(image)
    pred = model(image)
total, trainable = count_parameters(model)
print(f"picture {tuple(image.shape)} -> T2T tokens {tuple(model.tokenize(image).shape)}")
print(f"   -> with prediction token {tuple(emb.shape)} -> prediction {tuple(pred.shape)}")
print(
    f"parameters: {total:,}, of which trainable {trainable:,} (the sinusoidal table is stored, not trained)"
)
assert torch.isfinite(pred).all()

# %% [markdown]
# ### The official sizes
#
# The presets built on the meta device at 224 × 224 × 3 with 1000 classes, beside reference counts. **Source of
# the reference counts:** the official T2T-ViT code (github.com/yitu-opensource/T2T-ViT, `models/t2t_vit.py`),
# counted with `sum(p.numel() for p in model.parameters())`; "all" includes the sinusoidal table, which that
# code stores as a parameter with `requires_grad=False`.
#
# - 14, 19, 24: the official models with transformer token blocks, `t2t_vit_t_14/19/24`. Rounded to 0.1 M they
#   are the parameter column of the paper's Table 3 (ICCV 2021 version: 21.5, 39.2, 64.1 M).
# - 7, 10, 12: the official repository ships these sizes only with Performer token blocks (`t2t_vit_7/10/12`).
#   The course builds them with transformer token blocks and names them by the official code's rule, `_t` for
#   transformer tokens: `t2t_vit_t_7/10/12`. The reference here is the official `T2T_ViT` class built with
#   `tokens_type="transformer"` at those sizes: the course's own combination, not a published model (marked * in
#   the table). Rounded to 0.1 M it happens to equal the published counts of the Performer models (the paper's
#   Table 4: T2T-ViT-7 4.3 M, T2T-ViT-12 6.9 M).

# %%
official = {  # preset: (all, trainable), from the official code as cited above; * = transformer tokens at 7/10/12
    "t2t_vit_t_7": (4_305_742, 4_255_310),
    "t2t_vit_t_10": (5_884_750, 5_834_318),
    "t2t_vit_t_12": (6_937_422, 6_886_990),
    "t2t_vit_t_14": (21_541_070, 21_465_422),
    "t2t_vit_t_19": (39_172_942, 39_084_686),
    "t2t_vit_t_24": (64_101_454, 64_000_590),
}
print(
    f"{'preset':12s} {'D':>4s} {'depth':>5s} {'heads':>5s} {'all':>12s} {'trainable':>12s} {'reference':>13s}"
)
with torch.device("meta"):
    for name, (ref_all, ref_train) in official.items():
        m = create_model(name)
        n_all, n_train = count_parameters(m)
        print(
            f"{name:12s} {m.embed_dim:4d} {len(m.blocks):5d} {m.blocks[0].attn.num_heads:5d} "
            f"{n_all:12,d} {n_train:12,d} {ref_all:12,d}{'*' if name[-2:] in ('_7', '10', '12') else ' '}"
        )
        assert (n_all, n_train) == (ref_all, ref_train)
print(
    "every preset matches its reference count, all and trainable (* = built with transformer tokens, not published)"
)

# %% [markdown]
# ## 7. Where the compute goes
#
# Multiply-adds of one forward pass of T2T-ViT$_t$-14 (`t2t_vit_t_14`) at 224 × 224, counted by hooks on
# every linear layer and every attention product (`vitcourse.cost.count_macs`). The count needs only shapes,
# so the model is built on the meta device. **Published:** 6.1 G MACs for T2T-ViT$_t$-14 at 224 × 224 (Yuan et
# al., "Tokens-to-Token ViT", ICCV 2021, Table 3, the comparison with ResNets, and Table 7, the ablation of the
# T2T module; the official repository's model table lists the same).

# %%
with torch.device("meta"):
    t2t14 = create_model("t2t_vit_t_14")
macs = count_macs(t2t14, torch.zeros(1, 3, 224, 224, device="meta"))
grids = t2t14.tokens_to_token.grids
stages = [
    ("T2T stage 1 (attention1)", grids[0].total, macs["tokens_to_token.attention1"]),
    ("T2T stage 2 (attention2)", grids[1].total, macs["tokens_to_token.attention2"]),
    ("T2T projection", grids[2].total, macs["tokens_to_token.project"]),
    (
        f"encoder blocks ({len(t2t14.blocks)})",
        grids[2].total + 1,
        sum(v for k, v in macs.items() if k.startswith("blocks.")),
    ),
    ("head", 1, macs["head"]),
]
total_macs = sum(macs.values())
print(f"{'part':26s} {'tokens':>7s} {'G multiply-adds':>16s} {'share':>6s}")
for name, n, cost in stages:
    print(f"{name:26s} {n:7d} {cost / 1e9:16.3f} {cost / total_macs:6.1%}")
print(f"{'total':26s} {'':7s} {total_macs / 1e9:16.2f}   (published: 6.1)")
assert sum(c for _, _, c in stages) == total_macs and round(total_macs / 1e9, 1) == 6.1
per_block = macs["blocks.0"]
print(f"stage 1 alone costs {macs['tokens_to_token.attention1'] / per_block:.1f} encoder blocks")
t2t_macs = sum(v for k, v in macs.items() if k.startswith("tokens_to_token"))
t2t_params = sum(p.numel() for p in t2t14.tokens_to_token.parameters())
compute_share, param_share = t2t_macs / total_macs, t2t_params / count_parameters(t2t14)[0]
print(f"the T2T module: {compute_share:.1%} of the multiply-adds, {param_share:.1%} of the parameters")
assert 0.2 < compute_share < 0.3 and param_share < 0.02
macs_fine = count_macs(t2t14, torch.zeros(1, 3, 224, 224, device="meta"), depth=4)  # per layer
stage1 = {k: v for k, v in macs_fine.items() if k.startswith("tokens_to_token.attention1")}
products, n1 = stage1["tokens_to_token.attention1.attn"], grids[0].total
linear = sum(stage1.values()) - products
print(
    f"stage 1: attention products (Q K^T and A V) {products / 1e9:.3f} G = 2 x N^2 x 64 with N = {n1} tokens;"
)
print(
    f"         linear layers (qkv, proj, MLP) {linear / 1e9:.3f} G; products: {products / (products + linear):.0%}"
)
assert products == 2 * n1**2 * 64

# %%
fig, ax = plt.subplots(figsize=(9, 3.2))
ax.barh([s[0] for s in stages][::-1], [s[2] / 1e9 for s in stages][::-1], color="tab:purple")
ax.set_xlabel("G multiply-adds (one 224 x 224 image)")
ax.set_ylabel("part of T2T-ViT_t-14")
ax.set_title(f"T2T-ViT_t-14: {total_macs / 1e9:.2f} G multiply-adds per image")
plt.show()

# %% [markdown]
# Most of the compute is in the encoder blocks, as the table shows; the T2T module takes about a quarter although
# it holds under 2% of the parameters, and almost all of that quarter is the first token transformer. Of its cost,
# the attention products ($QK^\top$ and $AV$, $2N^2 \cdot 64$ multiply-adds for $N = 3136$ tokens) are by far the
# larger part, as printed above: they grow with the square of the token count, the linear layers only linearly.
# That is why the official code
# also offers a Performer version of the token transformers (an approximation of attention whose cost grows
# linearly with the number of tokens), and why the token length inside the module is kept small (64).

# %% [markdown]
# ### Play: image size and the three soft splits
#
# The explorer below (in a running kernel) takes an $H \times W$ one-channel image and each stage's (kernel,
# stride, padding), and draws the three token grids to scale with one another beside each stage's share of the
# module's multiply-adds, its count in millions written on its bar (token length 64 inside the module, width
# 384 after it, as in T2T-ViT_t-14; with one input channel here, stage 1 costs less than in the three-channel
# module of section 7). Questions to answer by playing: by what factor
# does stage 1's cost grow when you double $H$ and $W$, and why more than the token count? How does the total
# change as stage 1's stride goes from 4 to 8 (past 7, the kernel, the windows leave gaps), and which stage
# keeps the largest share? Settings where a window
# does not fit show a sentence instead.

# %%
from vitcourse import widgets

widgets.t2t_stages_explorer()

# %%
for size in [(224, 224), (448, 448), (60, 100), (400, 100)]:
    print(widgets.t2t_stages_view(*size)[1])
by_formula = widgets.t2t_stage_macs(224, 224, T2T_STAGES, in_chans=3, token_dim=64, embed_dim=384)
counted = [macs[f"tokens_to_token.{part}"] for part in ("attention1", "attention2", "project")]
print(f"T2T-ViT_t-14's module at 224 x 224 x 3: formula {by_formula}, counted by hooks {counted}")
assert by_formula == counted
assert widgets.t2t_stages_view(8, 8, [(7, 4, 2), (3, 2, 1), (9, 2, 0)])[0] is None  # 1 x 1 grid, kernel 9

# %% [markdown]
# ## 8. Where this course departs from the article series
#
# - **Token transformer heads and MLP ratio.** The article series builds its token transformers with 4 heads and
#   an MLP ratio of 1.5. The official code, and this course, use 1 head and a ratio of 1.0, so that the
#   parameter counts above equal the official ones and official checkpoints load. The heads change no count (the
#   cell below shows it); the MLP ratio does.
# - **Names.** The course's presets use the official code's names: `t2t_vit_t_14`, `_19` and `_24` are the
#   models whose token transformers use ordinary attention, as built here, and official checkpoints of those
#   load into them (`vitcourse.checkpoints`). The official `t2t_vit_14` (and 7, 10, 12, 19, 24) is the Performer
#   variant, whose token blocks approximate attention with random features and have other parameters and keys
#   (`kqv`, `w`); the course does not build it, so `create_model("t2t_vit_14")` is refused with a message that
#   names `t2t_vit_t_14` (last cell of this section), and a Performer checkpoint is refused by
#   `load_pretrained`, saying so. The official code has the sizes 7, 10 and 12 only as Performer models; the
#   course's transformer-token models of those sizes are `t2t_vit_t_7/10/12`, named by the same rule, and no
#   official checkpoint exists for them.
# - **Heads in the skip through $v$.** In the official token transformer the qkv layer outputs $3 \cdot 64$
#   values per token, and the code reshapes them to (3, heads, 64), giving every head all 64 channels; for
#   heads > 1 that reshape needs $3 \cdot \text{heads} \cdot 64$ values and fails, and the skip adds
#   `v.squeeze(1)`, which assumes one head. So that code works with one head only. `vitcourse` splits the 64
#   channels among the heads and merges $v$'s heads before adding it, so any head count that divides 64 works;
#   with one head the two agree.
# - **Any image size.** The rebuild uses the grid's rows and columns instead of $\sqrt{N}$.

# %%
for heads, ratio, who in (
    (4, 1.5, "article series"),
    (1, 1.0, "official code and vitcourse"),
    (4, 1.0, "4 heads, ratio 1.0"),
):
    n = sum(p.numel() for p in TokenTransformer(49, 64, num_heads=heads, mlp_ratio=ratio).parameters())
    print(f"token transformer 49 -> 64, {heads} head(s), MLP ratio {ratio}: {n:,} parameters ({who})")

# %% [markdown]
# The names in code: the official Performer name is refused, and the message says which preset to use.

# %%
import textwrap

try:
    create_model("t2t_vit_14")
except ValueError as err:
    print(textwrap.fill(f"ValueError: {err}", width=100))
assert "t2t_vit_t_14" in vitcourse.models.PRESETS and "t2t_vit_14" not in vitcourse.models.PRESETS

# %% [markdown]
# ## Summary
#
# - A soft split with kernel $k$ and stride $s$ keeps every $(k - s + 1) \times (k - s + 1)$ neighbourhood whole
#   in some token wherever its windows reach the image's edges, as they do on the picture and on 224 × 224 images
#   (4 × 4 for T2T's first split, 2 × 2 for the later ones); ViT's patches keep only single pixels.
# - A token transformer is an encoder block that changes the token length; its first residual goes through $v$.
#   Its attention is global; the local mixing comes from the soft split that follows it.
# - The T2T module alternates soft split → token transformer → rebuild, and ends with a linear layer; each
#   grid comes from the previous one by the token-count formula, for any H × W.
# - T2T-ViT's parameter counts equal the official code's for T2T-ViT_t-14, -19 and -24 (`t2t_vit_t_14/19/24`; the
#   official `t2t_vit_14` is a Performer model the course does not build); most of its multiply-adds are in the
#   encoder blocks, and the first T2T stage is the largest of the rest.
#
# **Next:** [07 Training from scratch](07_training_from_scratch.ipynb) trains small ViTs and T2T-ViTs on scenes
# drawn like the picture and looks at what they learn.

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
# first section computes exactly how small), and the token transformers mix neighbouring tokens before they are
# merged again: a small built-in prior for local structure, which matters most when data is limited. With it,
# the paper reports T2T-ViT trained from scratch on ImageNet matching or beating ViT and ResNets of similar size.
#
# **Learning goals.** After this notebook you can
# 1. say which neighbourhoods a soft split keeps whole, and compute it for any kernel and stride,
# 2. follow a token transformer shape by shape, and explain why its skip connection goes through $v$,
# 3. follow the T2T module stage by stage, predicting each grid before it is computed,
# 4. run T2T-ViT end to end, count its parameters against the official ones, and say where its compute goes.

# %%
import matplotlib.pyplot as plt
import torch

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
# That interval holds $k - m + 1$ consecutive integers, and window starts come every $s$ of them, so it holds a
# start *wherever the block sits* exactly when $k - m + 1 \ge s$:
#
# $$m_{\text{always whole}} = k - s + 1 .$$
#
# Larger blocks are whole at some positions and cut by every window at others. The cell below does not trust the
# formula: for each $m$ it tries every position of an $m \times m$ block and asks whether any window holds it.
# Stage 1 splits the picture; stage 2 splits the 15 × 25 grid that stage 1 rebuilds; ViT's 20 × 20 patches
# (notebook 01) are the split with $s = k$.


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
print("neither split keeps every k x k neighbourhood whole")

# %% [markdown]
# So T2T's first split keeps every 4 × 4 neighbourhood of the picture whole in at least one token, wherever it
# sits; 5 × 5 and larger ones are whole only at some positions. The later 3 × 3 splits keep every 2 × 2 block of
# the rebuilt grid whole. ViT's patches guarantee nothing beyond single pixels: a ridge that crosses a patch
# boundary is cut in two. The map shows, for 5 × 5 blocks and T2T's first split, which top-left positions are
# whole (black) and which are cut by every window (white): the pattern repeats every $s = 4$ pixels, and along
# each axis one position in four cuts the block wherever the windows are.

# %%
fig, axes = plt.subplots(1, 2, figsize=(13, 3.6), gridspec_kw={"width_ratios": [1.0, 1.5]})
for name, values in shares.items():
    axes[0].plot(range(1, len(values) + 1), values, marker="o", label=name)
axes[0].set_xlabel("block side m (pixels or grid cells)")
axes[0].set_ylabel("share of positions whole")
axes[0].set_title("m x m blocks whole in some window")
axes[0].legend()
h, w, k, s, p = splits["T2T stage 1"]
plots.show_matrix(
    whole_blocks(h, w, k, s, p, 5)[:24, :40].float(),
    ax=axes[1],
    title="5 x 5 blocks, stage 1 (k=7, s=4): 1 = whole in some window\n(top-left 24 x 40 positions)",
    xlabel="block's left column",
    ylabel="block's top row",
    cmap="Greys",
    vmin=0,
    vmax=1,
    aspect="equal",
)
fig.tight_layout()
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
# side by side first). The MLP (hidden width $\text{chan} \times 1$) keeps length 64 and has an ordinary residual.
# T2T scales $QK^\top$ by $\text{dim}^{-1/2}$ (the official code's choice); a bare `TokenTransformer` takes
# $\text{chan}^{-1/2}$ unless told otherwise, which does not change any shape.

# %%
diagrams.token_transformer(batch=13, tokens=100, dim=49, chan=64)
plt.show()

# %% [markdown]
# The walk-through sizes of the article series: a batch of 13, 100 tokens of length 49 (standard-normal values,
# as after a LayerNorm), 64 channels. Each step is computed by hand from the module's own layers and compared
# with `TokenTransformer.forward`.

# %%
batch, n_tokens, dim, chan = 13, 100, 49, 64
x = torch.randn(batch, n_tokens, dim, generator=torch.Generator().manual_seed(1)).to(device)  # (B, N, 49)
tt = TokenTransformer(dim, chan, num_heads=1, mlp_ratio=1.0).to(device).eval()
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
print(f"equals TokenTransformer.forward: {same}")
assert same and out.shape == (batch, n_tokens, chan)
n_qkv, n_proj = tt.attn.qkv.weight.numel(), sum(p.numel() for p in tt.attn.proj.parameters())
print(f"qkv: {n_qkv} weights = dim x chan x 3 = {dim} x {chan} x 3, bias: {tt.attn.qkv.bias is not None}")
print(f"proj: {n_proj} = chan^2 + chan = {chan}^2 + {chan}")
assert n_qkv == dim * chan * 3 and n_proj == chan**2 + chan and tt.attn.qkv.bias is None

# %% [markdown]
# **Exercise 1 (predict, then run).** T2T-ViT on ImageNet reads RGB images of 224 × 224. How many weights does
# the qkv layer of its *first* token transformer hold? Work it out before running the cell after the check,
# which reads the number off the model.

# %% jupyter={"source_hidden": true} tags=["solution"]
answer_qkv_rgb = None  # replace None with a number
### BEGIN SOLUTION
answer_qkv_rgb = (3 * 7 * 7) * 64 * 3  # tokens of length C x k x k = 147, to 3 x 64, no bias
### END SOLUTION

# %%
check.t2t_qkv_weight_count(answer_qkv_rgb)

# %%
with torch.device("meta"):  # shapes only: enough to count
    t2t_rgb = create_model("t2t_vit_14")
qkv_rgb = t2t_rgb.tokens_to_token.attention1.attn.qkv
print(f"first token transformer on RGB 224 x 224: qkv {qkv_rgb}: {qkv_rgb.weight.numel():,} weights")

# %% [markdown]
# ## 3. Rebuilding an image from the picture's tokens
#
# Between two soft splits T2T lays the tokens back on their grid: token $i$ of a $r \times c$ grid becomes pixel
# $(i \,/\!/\, c,\ i \bmod c)$, and the token's entries become that pixel's channels (notebook 02). After the
# first split of the picture, the grid is 15 × 25 and each token holds a 7 × 7 window, so channel $j$ of the
# rebuilt image holds, for every window, the pixel at offset $(j \,/\!/\, 7,\ j \bmod 7)$ inside it: a copy of
# the picture sampled every 4 pixels. The centre channel, $j = 24$, is exactly `picture[1::4, 1::4]`.
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
tt_pic = TokenTransformer(49, 64).to(device).eval()
with torch.no_grad():
    toks = tokens.soft_split(image, *T2T_STAGES[0])  # (1, 375, 49)
    raw = tokens.rebuild_image(toks, grid1.rows, grid1.cols)  # (1, 49, 15, 25)
    mixed = tokens.rebuild_image(tt_pic(toks), grid1.rows, grid1.cols)  # (1, 64, 15, 25)
print(f"picture {tuple(image.shape)} -> tokens {tuple(toks.shape)} -> rebuilt {tuple(raw.shape)}")
print(f"after the token transformer: rebuilt {tuple(mixed.shape)}")
centre = raw[0, 24].cpu()
print(f"channel 24 equals picture[1::4, 1::4]: {torch.equal(centre, image[0, 0, 1::4, 1::4].cpu())}")
assert torch.equal(centre, image[0, 0, 1::4, 1::4].cpu())

# %%
fig, axes = plt.subplots(2, 4, figsize=(14, 5.2))
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
plots.show_picture(picture, ax=axes[0, 3], title="the picture, 60 x 100")
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
        colorbar=ch == 3,
        aspect="equal",
    )
fig.suptitle(
    "The picture's tokens rebuilt on the 15 x 25 grid (top: soft split; bottom: after a token transformer)"
)
fig.tight_layout()
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
# items of the batch).

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

# %% jupyter={"source_hidden": true} tags=["solution"]
answer_picture_tokens = None  # replace None with a number
### BEGIN SOLUTION
rows, cols = 60, 100
for k, s, p in T2T_STAGES:
    rows, cols = (rows + 2 * p - k) // s + 1, (cols + 2 * p - k) // s + 1
answer_picture_tokens = rows * cols
### END SOLUTION

# %%
check.t2t_picture_tokens(answer_picture_tokens)

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
# **Exercise 3 (coding).** Write `my_t2t_grids(h, w)` returning the list of `(rows, cols)` token grids after
# each of T2T's three soft splits, for any h × w. The check tries square and non-square images and names the
# usual slips.


# %% jupyter={"source_hidden": true} tags=["solution"]
def my_t2t_grids(h: int, w: int) -> list[tuple[int, int]]:
    ### BEGIN SOLUTION
    grids = []
    for k, s, p in T2T_STAGES:
        h, w = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
        grids.append((h, w))
    return grids
    ### END SOLUTION


# %%
check.t2t_grids_function(my_t2t_grids)

# %% [markdown]
# ## 6. T2T-ViT end to end
#
# T2T-ViT is the T2T module followed by the ViT body of notebook 05 (prediction token, fixed sinusoidal position
# table, encoder blocks without qkv bias, norm, head). Only the first line of ViT's equations changes:
#
# $$z_0 = [x_{\text{class}};\ \mathrm{T2T}(x)] + E_{\text{pos}}, \qquad
#   z_\ell = \mathrm{Block}_\ell(z_{\ell-1}),\ \ell = 1, \dots, L, \qquad y = \mathrm{head}(\mathrm{LN}(z_L)_0).$$
#
# `vitcourse.models.T2TViT` defaults to T2T-ViT-14's width and depth on the picture; the run below keeps its width
# and one of its 14 blocks (every block keeps the shape, and initialising all 14 takes a while on a CPU). The next
# cell counts the full sizes without building weights.

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
# models with transformer token blocks (`t2t_vit_t_14/19/24`, and the same construction at the sizes of
# T2T-ViT-7/10/12), counted with `sum(p.numel() for p in model.parameters())`; "all" includes the sinusoidal
# table, which that code stores as a parameter with `requires_grad=False`. Rounded to 0.1 M they are the
# parameter column of the repository's model table (T2T-ViT_t-14: 21.5 M).

# %%
official = {  # preset: (all, trainable), from the official code as cited above
    "t2t_vit_7": (4_305_742, 4_255_310),
    "t2t_vit_10": (5_884_750, 5_834_318),
    "t2t_vit_12": (6_937_422, 6_886_990),
    "t2t_vit_14": (21_541_070, 21_465_422),
    "t2t_vit_19": (39_172_942, 39_084_686),
    "t2t_vit_24": (64_101_454, 64_000_590),
}
print(
    f"{'preset':11s} {'D':>4s} {'depth':>5s} {'heads':>5s} {'all':>12s} {'trainable':>12s} {'official':>12s}"
)
with torch.device("meta"):
    for name, (ref_all, ref_train) in official.items():
        m = create_model(name)
        n_all, n_train = count_parameters(m)
        print(
            f"{name:11s} {m.embed_dim:4d} {len(m.blocks):5d} {m.blocks[0].attn.num_heads:5d} "
            f"{n_all:12,d} {n_train:12,d} {ref_all:12,d}"
        )
        assert (n_all, n_train) == (ref_all, ref_train)
print("every preset matches the official counts, all and trainable")

# %% [markdown]
# ## 7. Where the compute goes
#
# Multiply-adds of one forward pass of T2T-ViT-14 at 224 × 224, counted by hooks on every linear layer and every
# attention product (`vitcourse.cost.count_macs`). The count needs only shapes, so the model is built on the
# meta device. **Published:** 6.1 G MACs for T2T-ViT_t-14 at 224 × 224 (the T2T-ViT paper, Yuan et al. 2021,
# arXiv:2101.11986; the official repository's model table lists the same).

# %%
with torch.device("meta"):
    t2t14 = create_model("t2t_vit_14")
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

# %%
fig, ax = plt.subplots(figsize=(9, 3.2))
ax.barh([s[0] for s in stages][::-1], [s[2] / 1e9 for s in stages][::-1], color="tab:purple")
ax.set_xlabel("G multiply-adds (one 224 x 224 image)")
ax.set_ylabel("part of T2T-ViT-14")
ax.set_title(f"T2T-ViT-14: {total_macs / 1e9:.2f} G multiply-adds per image")
plt.show()

# %% [markdown]
# Most of the compute is in the encoder blocks, as the table shows; the T2T module takes about a quarter although
# it holds under 2% of the parameters, and almost all of that quarter is the first token transformer, whose
# attention compares every one of its tokens with every other (the tokens column). That is why the official code
# also offers a Performer version of the token transformers (an approximation of attention whose cost grows
# linearly with the number of tokens), and why the token length inside the module is kept small (64).
#
# ## 8. Where this course departs from the article series
#
# - **Token transformer heads and MLP ratio.** The article series builds its token transformers with 4 heads and
#   an MLP ratio of 1.5. The official code, and this course, use 1 head and a ratio of 1.0, so that the
#   parameter counts above equal the official ones and official checkpoints load. The heads change no count (the
#   cell below shows it); the MLP ratio does.
# - **Names.** Our `t2t_vit_14` (and 19, 24) is what the official code calls `t2t_vit_t_14`: token transformers
#   built from ordinary attention. The official `t2t_vit_14` is the Performer variant, whose token blocks have
#   other parameters and other keys; the course does not build it.
# - **Heads in the skip through $v$.** The official code reshapes q, k, v with all 64 channels in every head and
#   adds `v.squeeze(1)`, so it works with one head only. `vitcourse` splits the 64 channels among the heads and
#   merges $v$'s heads before adding it, so any head count that divides 64 works; with one head the two agree.
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
# ## Summary
#
# - A soft split with kernel $k$ and stride $s$ keeps every $(k - s + 1) \times (k - s + 1)$ neighbourhood whole
#   in some token (4 × 4 for T2T's first split, 2 × 2 for the later ones); ViT's patches keep only single pixels.
# - A token transformer is an encoder block that changes the token length; its first residual goes through $v$.
# - The T2T module alternates soft split → token transformer → rebuild, and ends with a linear layer; each
#   grid comes from the previous one by the token-count formula, for any H × W.
# - T2T-ViT's parameter counts equal the official ones; most of its multiply-adds are in the encoder blocks,
#   and the first T2T stage is the largest of the rest.
#
# **Next:** [07 Training from scratch](07_training_from_scratch.ipynb) trains small ViTs and T2T-ViTs on scenes
# drawn like the picture and looks at what they learn.

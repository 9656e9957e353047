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
# # 09 · Tokens-to-Token: the module and T2T-ViT
#
# **Time:** about 58 minutes
#
# Before this: [notebook 08](08_t2t_soft_split.ipynb) (T2T's soft split and the token transformer).
#
# Notebook 08 took the T2T module apart. Here it is put together. The module turns an image into tokens in stages:
#
# 1. **soft split** the image into overlapping windows,
# 2. pass the tokens through a small **token transformer**, which also changes their length (to 64),
# 3. **rebuild** an image from the tokens, one pixel per token,
# 4. repeat, and after the last soft split project the tokens to the model's length $D$.
#
# T2T-ViT is this module followed by a ViT's body. The walk-through sizes come from Skylar Jean Callis's article
# *Tokens-to-Token Vision Transformers, Explained*;
# [the departures](#Evidence:-where-the-course-departs-from-the-articles-and-the-official-code) from it and from the
# official code are listed at the end.
#
# **By the end you can**
# 1. follow the T2T module stage by stage, and say which pixels one of its tokens is built from;
# 2. predict when a rebuild that assumes a square grid fails loudly, and when it scrambles the tokens silently;
# 3. count what the input's channels change in a token transformer's parameters;
# 4. run T2T-ViT end to end and say where its compute goes.

# %%
import math

import matplotlib.pyplot as plt
import torch

import vitcourse
from vitcourse import check, diagrams, load_mountains, plots, tokens
from vitcourse.attention import Attention
from vitcourse.blocks import TokenTransformer
from vitcourse.checkpoints import load_pretrained
from vitcourse.cost import count_macs
from vitcourse.models import (
    T2T_STAGES,
    T2TViT,
    TokensToToken,
    VisionTransformer,
    count_parameters,
    create_model,
)

torch.manual_seed(0)
device = vitcourse.get_device()
picture = load_mountains()
height, width = picture.shape
image = vitcourse.to_tensor(picture).to(device)  # (1, 1, 60, 100)

# %% [markdown]
# ## 1. The T2T module, stage by stage (20 min)
#
# With $I_1$ the image, stages $i = 1, 2$ compute
#
# $$T_i = \mathrm{SoftSplit}_i(I_i), \qquad I_{i+1} = \mathrm{Rebuild}\big(\mathrm{TT}_i(T_i)\big),$$
#
# where TT is a token transformer. Stage 3 splits $I_3$ and ends with a linear layer instead:
# $\text{tokens} = \mathrm{SoftSplit}_3(I_3)\, W_{\text{proj}} + b_{\text{proj}}$, of length $D$. T2T's stages are
# $(k, s, p) = (7, 4, 2), (3, 2, 1), (3, 2, 1)$, and the token transformers work at `token_dim` = 64.
#
# The diagram and the next cell follow the T2T article's running example: one-channel images of 400 × 100 random
# numbers, here a batch of 2. The last layer makes tokens of length $D$ = 768, the article's choice: ViT-B's token
# length (notebook 07). The picture's own tokens, rebuilt on their grid: [in the
# Evidence](#Evidence:-the-picture's-tokens-rebuilt,-before-and-after-a-token-transformer).

# %% mystnb={"image": {"alt": "Diagram of the T2T module on a batch of 2 one-channel images of 400 by 100: soft split 7, 4, 2 into 2500 tokens of length 49, token transformer to 64 channels, rebuild to a 100 by 25 grid, soft split 3, 2, 1 into 650 tokens of length 576, token transformer, rebuild to 50 by 13, soft split 3, 2, 1 into 175 tokens of length 576, and a linear layer to length 768."}}
diagrams.t2t_loop(height=400, width=100, batch=2)
plt.show()

# %% [markdown]
# The same walk, run. Before each split `count_tokens` predicts the grid, and an assertion checks the shape. The
# layers carry the official code's names: stage $i$ splits with `soft_split{i - 1}` and continues with
# `attention{i}`. The last lines check the loop against the module's own
# `forward`.

# %%
H, W = 400, 100
images = torch.randn(2, 1, H, W, generator=torch.Generator().manual_seed(2)).to(device)
t2t = TokensToToken((H, W), in_chans=1, embed_dim=768, token_dim=64).to(device).eval()
print(f"stages (kernel, stride, padding): {T2T_STAGES}")
img, channels, counts = images, 1, []
with torch.no_grad():
    for i, (k, s, p) in enumerate(T2T_STAGES, start=1):  # stages 1, 2, 3
        grid = tokens.count_tokens(img.shape[2], img.shape[3], k, s, p)
        counts.append(grid.total)
        print(
            f"stage {i}: predicted {grid.rows} x {grid.cols} = {grid.total} tokens of length {channels * k * k}"
        )
        toks = getattr(t2t, f"soft_split{i - 1}")(img)  # (B, N, C*k*k)
        assert toks.shape == (2, grid.total, channels * k * k)
        print(f"   soft_split{i - 1} {tuple(img.shape)} -> {tuple(toks.shape)}")
        if i == len(T2T_STAGES):
            break
        toks = getattr(t2t, f"attention{i}")(toks)  # (B, N, 64)
        img = tokens.rebuild_image(toks, grid.rows, grid.cols)  # (B, 64, rows, cols)
        channels = 64
        print(f"   attention{i} (token transformer) -> {tuple(toks.shape)} -> rebuild {tuple(img.shape)}")
    final = t2t.project(toks)  # (B, N, 768)
    print(f"   project (linear) -> {tuple(final.shape)}")
    assert torch.allclose(final, t2t(images), atol=1e-4)
print(" -> ".join(map(str, counts)) + " tokens; the module's own forward gives the same result")

# %% [markdown]
# ### Exercise 1 (predict)
#
# Leave the token transformers aside, as notebook 08 did: only the three soft splits and the two rebuilds. A
# final token is then built from the pixels its windows cover, and these form a square of the image. Take a
# final token away from the image's edges.
#
# - (a) How many pixels wide is its square? Answer with a whole number, `answer_window_side`.
# - (b) Take its right-hand neighbour on the same grid row. How many pixel columns do both of their squares
#   cover? Answer with a whole number, `answer_shared_columns`.
#
# Drawing one row of windows per stage, on a strip of pixels, helps.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "t2t_window_side-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_window_side = None  # replace None with a number of pixels
answer_shared_columns = None  # replace None with a number of pixel columns
### BEGIN SOLUTION
side, step = 1, 1  # the square's width so far; pixels between neighbouring cells of the current grid
for k, s, _ in T2T_STAGES:
    side += (k - 1) * step  # a window of k cells spans k - 1 steps of the current grid
    step *= s  # the next grid's cells are s cells of this grid apart
answer_window_side = side  # 1 + 6 x 1 + 2 x 4 + 2 x 8
answer_shared_columns = side - step  # the neighbour's square starts `step` columns later
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "t2t_window_side-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.t2t_window_side(answer_window_side)
check.t2t_shared_columns(answer_shared_columns)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "t2t_window_side-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.t2t_window_side, answer_window_side)
### END HIDDEN TESTS

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "t2t_shared_columns-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.t2t_shared_columns, answer_shared_columns)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 1

# %% [markdown]
# The cell below asks `tokens.window_reach` which pixels of a blank 400 × 100 image two neighbouring final tokens
# use, with the three soft splits and two rebuilds alone. It backpropagates a token's sum to the image. The
# gradient says how much that sum moves when one pixel moves, so an unused pixel gets exactly 0. Tokens are
# numbered from 0, row by row, as everywhere in the course.

# %%
last = t2t.grids[-1]  # the final grid of section 1's module, for 400 x 100 images
centre = (last.rows // 2) * last.cols + last.cols // 2  # a final token away from the edges
print(
    f"token {centre}: grid row {centre // last.cols}, column {centre % last.cols} of {last.rows} x {last.cols}"
)
reach = [tokens.window_reach(H, W, T2T_STAGES, t) for t in (centre, centre + 1)]  # (H, W) each: True inside
rows, cols = reach[0].any(dim=1).nonzero()[:, 0], reach[0].any(dim=0).nonzero()[:, 0]
cols_next = reach[1].any(dim=0).nonzero()[:, 0]
shared = int((reach[0].any(dim=0) & reach[1].any(dim=0)).sum())
print(
    f"token {centre}: rows {rows.min()}..{rows.max()}, columns {cols.min()}..{cols.max()}, {len(rows)} x {len(cols)}"
)
print(f"token {centre + 1}: columns {cols_next.min()}..{cols_next.max()}; columns both cover: {shared}")
assert int(reach[0].sum()) == len(rows) * len(cols)  # the pixels form a full square
assert shared == len(cols) - int(cols_next.min() - cols.min())  # its width minus the neighbour's offset

# %% [markdown]
# Stage 1's window spans 7 pixels. A stage-2 window spans 3 cells of a grid whose cells lie 4 pixels apart: it
# adds 2 steps of 4 pixels. Stage 3 adds 2 steps of 4 × 2 = 8. So the square is 7 + 2 · 4 + 2 · 8 = 31 pixels
# wide. The neighbour's square starts 16 columns later, the product of the strides, so the two share
# 31 − 16 = 15 columns: the soft split's overlap, compounded over three splits.

# %% [markdown]
# ### Global attention, local windows

# %% [markdown]
# The token transformers were left out above. Their attention is global, so through them every pixel can reach a
# token. The next cell asks autograd how strongly each pixel moves the first of the two tokens through the whole
# module, at its random weights, on the first image of section 1. The figure maps that strength on a log scale.

# %%
last = t2t.grids[-1]  # the final grid
centre = (last.rows // 2) * last.cols + last.cols // 2  # the first of the two tokens above
square = tokens.window_reach(H, W, T2T_STAGES, centre)  # (H, W): its windows' pixels, as above
rows, cols = square.any(dim=1).nonzero()[:, 0], square.any(dim=0).nonzero()[:, 0]
one = images[:1].clone().requires_grad_(True)  # (1, 1, H, W), the module's own input
t2t(one)[0, centre].sum().backward()
size = one.grad[0, 0].abs().cpu()  # (H, W): how strongly each pixel moves the token
inside = size[square].sum() / size.sum()
print(f"pixels that reach token {centre} through the whole module: {(size > 0).float().mean():.0%}")
print(
    f"share of its gradient from inside its square: {inside:.0%} (the square: {square.float().mean():.1%} of the image)"
)
assert (size > 0).all() and inside > 0.5

# %% mystnb={"image": {"alt": "A tall map of the 400 by 100 input, coloured by the log of how strongly each pixel moves one final token through the whole T2T module at random weights: every pixel has some colour, and the brightest ones fill the outlined 31 by 31 square near the middle"}}
fig, ax = plt.subplots(figsize=(4.4, 8), layout="constrained")
shown = ax.imshow(size.log10(), cmap="magma", vmin=-5)  # log scale, from 1e-5 up: the weak pixels still show
box = plt.Rectangle((cols.min() - 0.5, rows.min() - 0.5), len(cols), len(rows), fill=False, ec="cyan", lw=1.5)
ax.add_patch(box)
title = f"what moves token {centre}\n(cyan: its {len(rows)} x {len(cols)} square)"
ax.set(xlabel="column (pixel)", ylabel="row (pixel)", title=title)
fig.colorbar(shown, ax=ax, label="log10 |gradient| (token's sum, per pixel)", shrink=0.8, extend="min")
plt.show()

# %% [markdown]
# Every pixel reaches the token, since attention is global. Yet at these random weights, on this random input,
# 86 % of the gradient comes from inside the square, which is 2.4 % of the image. So "local" needs a precise
# meaning:
#
# - Only stage 1's norm1 and qkv read pixels and nothing else: one 7 × 7 window per token.
# - Stage 2's norm1 and qkv, and `project` after stage 3, read one 3 × 3 window of tokens each. Attention has
#   already mixed those tokens over the whole image.
# - What the soft splits fix, at any weights, is which tokens meet in one window.
#
# That is T2T's "bias toward local structure": neighbours are combined first, by construction; the rest of the
# image reaches a token only through attention.

# %% [markdown]
# ## 2. A rebuild that assumes a square grid (16 min)
#
# A `TokensToToken` is built for one image size, given when it is made. The size can be any $H \times W$ large
# enough for the windows of the three splits: its rebuild lays the tokens on the grid's rows and columns, which
# `count_tokens` gives.

# %% [markdown]
# The official T2T code rebuilds differently. Between two stages it takes the grid's side as the square root of
# the number of tokens $N$, as below. On its 224 × 224 inputs that is right.


# %%
def official_rebuild(toks: torch.Tensor) -> torch.Tensor:
    """The official code's rebuild between two stages: (B, N, C) tokens onto a sqrt(N) x sqrt(N) grid."""
    batch, n, chan = toks.shape
    side = int(math.sqrt(n))  # the official code: int(np.sqrt(new_HW))
    return toks.transpose(1, 2).reshape(batch, chan, side, side)  # (B, C, side, side)


# %% [markdown]
# ### Exercise 2 (predict)
#
# Without running it: what does `official_rebuild` do after stage 1, the soft split (7, 4, 2), on each of these
# one-channel inputs? Answer each with `"works"` (every token lands in its own place), `"raises"` (the
# reshape fails with an error) or `"scrambles"` (it runs, but tokens land in the wrong places):
#
# - (a) the picture, 60 × 100;
# - (b) an image of 60 × 62;
# - (c) an image of 36 × 64.
#
# Give also the number of tokens $N$ that stage 1 makes from each input, (a), (b) and (c) in order, as
# `answer_sqrt_tokens`.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "sqrt_rebuild_picture-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_sqrt_picture = None  # replace None with "works", "raises" or "scrambles"
answer_sqrt_60x62 = None
answer_sqrt_36x64 = None
answer_sqrt_tokens = None  # replace None with (N for (a), N for (b), N for (c))
### BEGIN SOLUTION
# A reshape runs when the new shape holds as many entries as the tensor: side * side must equal N.
# (a) 15 x 25 = 375 tokens; int(sqrt(375)) = 19 and 19 * 19 = 361: the reshape raises.
# (b) 15 x 15 = 225 tokens: a square grid, so sqrt(N) gives its rows and its columns.
# (c) 9 x 16 = 144 = 12 x 12 tokens: the reshape runs, and lays 9 rows of 16 as 12 rows of 12.
answer_sqrt_picture = "raises"
answer_sqrt_60x62 = "works"
answer_sqrt_36x64 = "scrambles"
answer_sqrt_tokens = (15 * 25, 15 * 15, 9 * 16)  # each side: floor((n + 2 * 2 - 7) / 4) + 1 windows
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "sqrt_rebuild_picture-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.sqrt_rebuild_picture(answer_sqrt_picture)
check.sqrt_rebuild_60x62(answer_sqrt_60x62)
check.sqrt_rebuild_36x64(answer_sqrt_36x64)
check.sqrt_rebuild_token_counts(answer_sqrt_tokens)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "sqrt_rebuild_picture-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.sqrt_rebuild_picture, answer_sqrt_picture)
### END HIDDEN TESTS

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "sqrt_rebuild_60x62-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.sqrt_rebuild_60x62, answer_sqrt_60x62)
### END HIDDEN TESTS

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "sqrt_rebuild_36x64-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.sqrt_rebuild_36x64, answer_sqrt_36x64)
### END HIDDEN TESTS

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "sqrt_rebuild_token_counts-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.sqrt_rebuild_token_counts, answer_sqrt_tokens)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 2

# %% [markdown]
# The next cell runs both rebuilds on each input's first-split tokens. To see where every token lands, it rebuilds the
# tokens' own index numbers, $0, 1, \dots, N - 1$, rather than their contents, so the comparison does not depend on
# what the image shows.

# %%
outcomes = {}
for h, w in ((60, 100), (60, 62), (36, 64)):
    grid = tokens.count_tokens(h, w, *T2T_STAGES[0])
    ids = torch.arange(grid.total, dtype=torch.float32).view(1, grid.total, 1)  # (1, N, 1): token numbers
    course = tokens.rebuild_image(ids, grid.rows, grid.cols)  # (1, 1, rows, cols)
    try:
        official = official_rebuild(ids)  # (1, 1, side, side)
    except RuntimeError as err:
        outcomes[h, w] = "raises"
        print(f"{h} x {w}: grid {grid.rows} x {grid.cols} = {grid.total} tokens; official rebuild: {err}")
        continue
    same = official.shape == course.shape and torch.equal(official, course)
    outcomes[h, w] = "works" if same else "scrambles"
    token = official.flatten().long()  # (N,): the token at each place of the official layout, row by row
    place = torch.arange(grid.total)  # (N,): those places, numbered row by row
    side = official.shape[-1]  # the official layout's row length
    wrong_row = place // side != token // grid.cols  # the token's row there, against its row on the grid
    wrong_col = place % side != token % grid.cols
    moved = int((wrong_row | wrong_col).sum())
    print(
        f"{h} x {w}: grid {grid.rows} x {grid.cols} = {grid.total} tokens; official rebuild runs, to "
        f"{official.shape[2]} x {official.shape[3]}; tokens in the wrong place: {moved} of {grid.total}"
    )
    assert same == (moved == 0)
for (h, w), outcome in outcomes.items():  # any image: the outcome follows from the grid alone
    grid = tokens.count_tokens(h, w, *T2T_STAGES[0])
    square_count = math.isqrt(grid.total) ** 2 == grid.total
    assert outcome == ("raises" if not square_count else "works" if grid.rows == grid.cols else "scrambles")

# %% mystnb={"image": {"alt": "Three panels sharing one brightness colour bar. Left: the picture's top-left corner, 36 rows by 64 columns of pixels. Middle: the centre pixel of each stage-1 window rebuilt on its 9 by 16 grid, a small copy of that corner. Right: the same tokens laid out by the official square-root rebuild as a 12 by 12 grid, where rows of the copy are cut and wrapped so that the scene is scrambled."}}
crop = image[:, :, :36, :64]  # (1, 1, 36, 64): the picture's top-left corner
grid = tokens.count_tokens(36, 64, *T2T_STAGES[0])
crop_tokens = tokens.soft_split(crop, *T2T_STAGES[0])  # (1, 144, 49)
fig, axes = plt.subplots(1, 3, figsize=(14, 3.6), width_ratios=[64, 40, 30], layout="constrained")
plots.show_picture(
    crop[0, 0].cpu(), ax=axes[0], title="the input: the picture's top-left 36 x 64", colorbar=False
)
for ax, rebuilt, title in (
    (
        axes[1],
        tokens.rebuild_image(crop_tokens, grid.rows, grid.cols),
        f"rebuilt on its grid, {grid.rows} x {grid.cols}",
    ),
    (axes[2], official_rebuild(crop_tokens), "official_rebuild, 12 x 12"),
):
    plots.show_matrix(
        rebuilt[0, 24].cpu(),  # channel 24: each window's centre pixel
        ax=ax,
        title=title,
        xlabel="grid column",
        ylabel="grid row",
        vmin=0,
        vmax=1,
        colorbar=False,
        aspect="equal",
    )
    ax.xaxis.set_major_locator(plt.MaxNLocator(integer=True))  # grid rows and columns are whole numbers
    ax.yaxis.set_major_locator(plt.MaxNLocator(integer=True))
axes[1].axvline(11.5, color="red", ls="--", lw=1.5)  # the official rebuild's first row ends after column 11
axes[1].set_title(f"rebuilt on its grid, {grid.rows} x {grid.cols}\n(red: where a row of 12 tokens ends)")
axes[2].set_xlabel("column of the 12 x 12 layout")
axes[2].set_ylabel("row of the 12 x 12 layout")
axes[0].set_xlabel("column (pixel)")
axes[0].set_ylabel("row (pixel)")
fig.colorbar(axes[0].images[0], ax=axes, label="brightness", shrink=0.9)
fig.suptitle("Channel 24 (each window's centre pixel) of the stage-1 tokens, rebuilt two ways")
plt.show()
side = official_rebuild(crop_tokens).shape[-1]  # 12 tokens per row of the square rebuild
starts = [divmod(r * side, grid.cols) for r in range(5)]  # (grid row, grid column) of each row's first token
print(f"rows 0 to 4 of official_rebuild start at (grid row, grid column): {starts}")

# %% [markdown]
# On the picture the reshape raises: 375 is not a square number. On 60 × 62 the grid is square, so the square
# root is right. On 36 × 64 the count, 144, is a square, so the reshape runs and most tokens land in the wrong
# place, with no warning. The course's rebuild takes the grid's rows and columns from `count_tokens` instead.
#
# In the figure, look where the rows wrap. The official rebuild's rows hold 12 tokens, the grid's rows 16. So its
# row 0 is grid row 0 up to the red line, and its row 1 starts with the 4 tokens right of that line. Its rows
# start at grid columns 0, 12, 8, 4, 0, as printed: shapes that sit one above the other in the picture land in
# different columns on the right.

# %% [markdown]
# ## 3. T2T-ViT end to end (14 min)
#
# T2T-ViT is the T2T module followed by the ViT body of notebook 07: the prediction token $x_{\text{class}}$, a fixed
# sinusoidal position table (notebook 03), encoder blocks without qkv bias, a final norm and the head. Only the
# first equation's input changes, T2T's tokens in place of the patches. Blocks count from 0:
#
# $$z_0 = [x_{\text{class}};\ \mathrm{T2T}(x)] + E_{\text{pos}}, \qquad
#   z_{\ell+1} = \mathrm{Block}_\ell(z_\ell),\ \ell = 0, \dots, L - 1, \qquad
#   y = \mathrm{head}(\mathrm{LN}(z_L)_0).$$
#
# `vitcourse.models.T2TViT()` defaults to the sizes of T2T-ViT$_t$-14: $t$ for ordinary transformer blocks as token
# transformers, 14 encoder blocks. Here it reads the picture's one channel, and its head gives one number, as the
# article series predicts (notebook 07). With random weights that number means nothing yet.

# %%
torch.manual_seed(0)
model = T2TViT().to(device).eval()
mlp_ratio = model.blocks[0].mlp.fc1.out_features / model.embed_dim
print(
    f"T2T-ViT on the picture: D = {model.embed_dim}, encoder blocks: {len(model.blocks)}, MLP ratio {mlp_ratio:g}"
)
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
# The course's presets at ImageNet's size match the official parameter counts: [the official
# sizes](#Evidence:-the-official-sizes). How T2T-ViT and ViT compare once trained: [notebook
# 14](14_what_shapes_a_vit.ipynb).

# %% [markdown]
# **The first token transformer, counted.** T2T-ViT for ImageNet reads RGB images of 224 × 224, so one 7 × 7
# window holds three channels: a token of length 147. The cell counts the parameters of the first token
# transformer of `create_model("t2t_vit_t_14")`, layer by layer, built on the *meta* device (shapes, no
# numbers). A linear layer holds a weight matrix, output length by input length, plus a bias where it has one. A
# LayerNorm holds a scale and a shift per entry of the token it normalises (notebook 06).

# %%
with torch.device("meta"):  # shapes only: enough to count
    t2t_rgb = create_model("t2t_vit_t_14")
first_rgb = t2t_rgb.tokens_to_token.attention1
rgb_counts, rgb_shapes = {}, {}
print(f"first token transformer of t2t_vit_t_14 (RGB 224 x 224), input length {first_rgb.dim}:")
for name, layer in first_rgb.named_modules():
    n = sum(p.numel() for p in layer.parameters(recurse=False))  # this layer's own parameters
    if n:
        rgb_counts[name] = n
        rgb_shapes[name] = [tuple(p.shape) for p in layer.parameters(recurse=False)]  # shown after Exercise 3
        print(f"   {name:9s} {n:7,d}")
print(f"   {'in all':9s} {sum(p.numel() for p in first_rgb.parameters()):7,d}")

# %% [markdown]
# ### Exercise 3 (predict)
#
# Some cameras add a fourth channel to red, green and blue: each pixel's distance from the camera (a *depth*
# channel). Build T2T-ViT$_t$-14 for such 4-channel images of 224 × 224, and its first token transformer reads one
# 7 × 7 window of 4 channels per token. It is otherwise built like the RGB one above: 64 channels, one head, no qkv
# bias, an MLP ratio of 1. How many parameters *more* does it hold than the RGB one? Answer with a whole number,
# `answer_extra_parameters`, and predict it from the table above rather than by building the model.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "depth_extra_parameters-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_extra_parameters = None  # replace None with a whole number
### BEGIN SOLUTION
# Only norm1 and qkv read the incoming token. norm1 holds a scale and a shift per entry: 2 per entry more.
# qkv maps each entry to 3 x 64 values, with no bias: 3 x 64 weights per entry more. After qkv, every layer
# reads and writes length 64, whatever the number of input channels.
extra_entries = 4 * 49 - 3 * 49  # one more channel of a 7 x 7 window
answer_extra_parameters = 2 * extra_entries + 3 * 64 * extra_entries
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "depth_extra_parameters-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.depth_extra_parameters(answer_extra_parameters)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "depth_extra_parameters-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.depth_extra_parameters, answer_extra_parameters)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 3

# %% [markdown]
# The 4-channel model's first token transformer, built on the meta device, beside the RGB table, layer by layer,
# with each layer's parameter shapes.

# %%
with torch.device("meta"):  # shapes only: enough to count
    first_four = create_model("t2t_vit_t_14", in_chans=4).tokens_to_token.attention1  # 4 input channels
print(f"{'layer':9s} {'4 channels':>10s} {'RGB':>7s}   shapes, 4 channels | RGB")
for name, layer in first_four.named_modules():
    n = sum(p.numel() for p in layer.parameters(recurse=False))
    if n:
        shapes = [tuple(p.shape) for p in layer.parameters(recurse=False)]
        print(
            f"{name:9s} {n:10,d} {rgb_counts[name]:7,d}   {shapes} | {rgb_shapes[name]}"
            f"{'   <- changes' if n != rgb_counts[name] else ''}"
        )
changed = [
    n
    for n, layer in first_four.named_modules()
    if n in rgb_counts and sum(p.numel() for p in layer.parameters(recurse=False)) != rgb_counts[n]
]
extra = sum(p.numel() for p in first_four.parameters()) - sum(p.numel() for p in first_rgb.parameters())
print(f"changed: {changed}; the 4-channel block holds {extra:,} parameters more")
assert changed == ["norm1", "attn.qkv"]

# %% [markdown]
# Only norm1 and qkv read the incoming token. After qkv, every layer reads and writes length 64, so proj,
# norm2 and the MLP do not depend on the number of input channels. For the picture's one channel the same two
# layers shrink: `model`'s first token transformer reads tokens of length 49.

# %% [markdown]
# ## 4. Where the compute goes (8 min)
#
# The cell counts the multiply-adds of one forward pass of T2T-ViT$_t$-14 at 224 × 224 on the meta device.
# `vitcourse.cost.count_macs` counts every linear layer by running it, and adds each attention product from its
# shapes (notebook 05). **Published:** 6.1 G multiply-adds (Yuan et al., ICCV 2021, Tables 3 and 7). Its encoder
# blocks use the preset's MLP ratio of 3, not the 4 that notebook 07's count of $12 \cdot N \cdot D^2$ assumes.
#
# Before you run it, guess. Stage 1 works on many short tokens, the encoder blocks on few long ones. Which part
# costs the most? Is the T2T module's share of the compute larger or smaller than its share of the parameters?

# %%
with torch.device("meta"):
    t2t14 = create_model("t2t_vit_t_14")
macs = count_macs(t2t14, torch.zeros(1, 3, 224, 224, device="meta"))
grids = t2t14.tokens_to_token.grids  # grids[0], [1], [2]: the token grids of stages 1, 2 and 3
in_blocks = sum(v for k, v in macs.items() if k.startswith("blocks."))  # all encoder blocks together
stages = [  # (part, tokens, multiply-adds)
    ("T2T stage 1 (attention1)", grids[0].total, macs["tokens_to_token.attention1"]),
    ("T2T stage 2 (attention2)", grids[1].total, macs["tokens_to_token.attention2"]),
    ("T2T stage 3 (project)", grids[2].total, macs["tokens_to_token.project"]),
    (f"encoder blocks ({len(t2t14.blocks)})", grids[2].total + 1, in_blocks),
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

# %% mystnb={"image": {"alt": "Horizontal bar chart of the multiply-adds of T2T-ViT_t-14 on one 224 by 224 image, by part: the encoder blocks hold most of the total, T2T stage 1 about a quarter, stage 2 and the stage-3 projection a few percent, the head almost nothing; each bar is labelled with its count in G and its share."}}
fig, ax = plt.subplots(figsize=(9, 3.2), layout="constrained")
bars = ax.barh([s[0] for s in stages][::-1], [s[2] / 1e9 for s in stages][::-1], color="tab:purple")
for bar, (_, _, cost) in zip(bars, stages[::-1], strict=True):  # each bar's share, the tiny ones included
    share = cost / total_macs
    ax.annotate(
        f"{cost / 1e9:.3f} G, {share:.1%}" if share >= 0.001 else f"{cost / 1e9:.4f} G, {share:.3%}",
        (bar.get_width(), bar.get_y() + bar.get_height() / 2),
        xytext=(4, 0),
        textcoords="offset points",
        va="center",
        fontsize=8,
    )
ax.set_xlim(0, 1.3 * max(s[2] for s in stages) / 1e9)  # room for the longest bar's label
ax.set_xlabel("G multiply-adds (one 224 x 224 image)")
ax.set_ylabel("part of T2T-ViT$_t$-14")
ax.set_title(f"T2T-ViT$_t$-14: {total_macs / 1e9:.2f} G multiply-adds per image")
plt.show()

# %% [markdown]
# Three things to read in the table and the bars:
#
# - Most of the compute is in the encoder blocks. The T2T module takes about a quarter, with under 2 % of the
#   parameters.
# - Most of that quarter is stage 1's two attention products, $QK^\top$ and $AV$: $2N^2 \cdot 64$ multiply-adds
#   for $N = 3136$ tokens (notebook 05). They grow with the square of the token count, the linear layers only in
#   proportion to it.
# - Each product costs $N^2$ times the width of q, k and v: 64 here, 6 times smaller than the encoder blocks'
#   $D = 384$. Stage 3 has no token transformer: its cost is the linear projection.
#
# The stages' shares at other image sizes and strides, with an explorer: [more to try](#Evidence:-more-to-try).

# %% [markdown]
# ## Summary
#
# - The T2T module alternates soft split, token transformer and rebuild, and ends with a linear layer. A final
#   token's windows cover a square wider than the distance between neighbouring tokens, so neighbours share
#   pixels. Attention is global; the soft splits fix which tokens meet in a window.
# - A rebuild must take the grid's rows and columns from the token-count formula. The official square root raises
#   where the token count is not a square number, and silently scrambles a non-square grid where it is.
# - T2T-ViT is the T2T module followed by a ViT body. Only norm1 and qkv of the first token transformer depend on
#   the input's channels.
# - Most of T2T-ViT's multiply-adds are in the encoder blocks; stage 1's attention products take most of the
#   rest, and they grow with the square of the token count.
#
# **Next:** [10 Training](10_training.ipynb). Every model so far has had random weights. Notebook 10 teaches how
# a model learns its weights from examples.

# %% [markdown]
# ## Evidence: the picture's tokens rebuilt, before and after a token transformer
#
# Between two soft splits T2T lays the tokens back on their grid. Token $i$ of an $r \times c$ grid becomes pixel
# $(i \,/\!/\, c,\ i \bmod c)$, and the token's entries become that pixel's channels (notebook 08, section 1).
#
# After the first split of the picture each token holds a 7 × 7 window. So channel $j$ of the rebuilt image holds,
# for every window, the pixel at offset $(j \,/\!/\, 7,\ j \bmod 7)$ inside it: a copy of the picture sampled every
# 4 pixels. The centre channel, $j = 24$, is exactly `picture[1::4, 1::4]`. The windows start at $-2$, so channel 0
# has padding zeros along its top row and left column. Channel 48 has them along its bottom row and right column,
# since the last windows reach one pixel into the padding.
#
# The token transformer's output, with random weights here, is rebuilt the same way. Its first LayerNorm works on
# each token alone and removes the window's mean and scale. So every *flat* window, one grey level throughout,
# becomes the same vector whatever its brightness, and gets the same output. The cell checks it. Windows that hold
# the same pattern get the same output too: the sky's dithered band shows as runs of identical cells ([counted in
# the next section](#Evidence:-identical-windows-give-identical-outputs)).
#
# In the figure's top row, look for the zero borders of channels 0 and 48. In its bottom row, look at the plain
# sky and the dark ground: flat areas share one colour in each channel, whatever their brightness. Channels 0 to 3
# are simply the first four of the 64.

# %%
grid1 = tokens.count_tokens(height, width, *T2T_STAGES[0])
torch.manual_seed(0)
tt_pic = (
    TokenTransformer(49, 64, qk_scale=49**-0.5).to(device).eval()
)  # the official scale (notebook 08, § 4)
with torch.no_grad():
    toks = tokens.soft_split(image, *T2T_STAGES[0])  # (1, 375, 49)
    raw = tokens.rebuild_image(toks, grid1.rows, grid1.cols)  # (1, 49, 15, 25)
    tt_out = tt_pic(toks)  # (1, 375, 64)
    mixed = tokens.rebuild_image(tt_out, grid1.rows, grid1.cols)  # (1, 64, 15, 25)
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
flat = toks[0].amax(dim=-1) == toks[0].amin(dim=-1)  # (375,): windows of one grey level
flat_out = tt_out[0, flat]  # (number of flat windows, 64)
one_vector = bool(torch.allclose(flat_out, flat_out[:1].expand_as(flat_out), atol=1e-5))
print(
    f"flat windows: {int(flat.sum())} of {flat.numel()}; their outputs are one and the same vector: {one_vector}"
)
assert one_vector

# %% mystnb={"image": {"alt": "Two rows of panels on the 15 by 25 grid of the picture's first soft split, axes grid row and grid column. Top: channels 0, 24 and 48 of the rebuilt tokens, each a copy of the picture sampled every 4 pixels, with zero padding along two borders of channels 0 and 48, beside the 60 by 100 picture itself, sharing one brightness colour bar. Bottom: four channels of a random token transformer's output rebuilt on the same grid, sharing one colour bar, flat areas of the picture giving one colour and edges giving others."}}
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
# ## Evidence: identical windows give identical outputs
#
# The evidence above said that windows holding the same pattern get the same output. The sky's dithered band is a
# checkerboard that repeats every 2 pixels, and 2 divides the stride 4. So along a grid row, every window that
# holds only the band and the plain sky around it holds exactly the same pattern. The cell finds the band's pixel
# rows, where neighbouring pixels alternate along most of the row, groups each grid row's windows by content, and
# checks that each repeated pattern gets one output. The counts are those of the picture in use.

# %%
with torch.no_grad():  # the picture's tokens and the token transformer's output, as above
    pic_toks = tokens.soft_split(image, *T2T_STAGES[0])  # (1, 375, 49)
    pic_out = tt_pic(pic_toks)  # (1, 375, 64)
changes = (image[0, 0, :, 1:] != image[0, 0, :, :-1]).float().mean(dim=1)  # (60,): share of pixel changes
band = changes.gt(0.5).nonzero()[:, 0]  # the dithered rows: neighbouring pixels alternate along most of them
k1, s1, p1 = T2T_STAGES[0]
band_rows = [
    r for r in range(grid1.rows) if len(band) and r * s1 - p1 <= band.max() and band.min() < r * s1 - p1 + k1
]
if band_rows:
    print(
        f"dithered band: pixel rows {band.min().item()}..{band.max().item()}, in the windows of grid rows {band_rows}"
    )
else:
    print("this picture has no dithered rows")
repeated = 0
for r in band_rows:  # group the row's windows by content
    row_toks = pic_toks[0, r * grid1.cols : (r + 1) * grid1.cols]  # (25, 49)
    row_out = pic_out[0, r * grid1.cols : (r + 1) * grid1.cols]  # (25, 64)
    patterns, which, count = torch.unique(row_toks, dim=0, return_inverse=True, return_counts=True)
    for j in range(len(patterns)):
        members = (which == j).nonzero()[:, 0]
        if count[j] > 1 and patterns[j].amax() > patterns[j].amin():  # repeated, and not flat
            same_out = torch.allclose(
                row_out[members], row_out[members[:1]].expand(len(members), -1), atol=1e-5
            )
            print(
                f"   grid row {r}: {count[j].item()} of its {grid1.cols} windows hold one band pattern; "
                f"one output: {same_out}"
            )
            assert same_out  # identical windows, identical outputs: true of any picture
            repeated += count[j].item()
print(f"   {repeated} of the band's {len(band_rows) * grid1.cols} windows repeat a pattern of their row")

# %% [markdown]
# ## Evidence: the official sizes
#
# The presets at 224 × 224 × 3 with 1000 classes, built on the meta device, beside the official code's parameter
# counts. Sizes 14, 19 and 24 are the paper's T2T-ViT$_t$ models, with ordinary attention as built here. At sizes
# 7, 10 and 12 the official code has only token transformers built on *Performer* (Choromanski et al., 2021), a
# kind of attention whose cost grows only in proportion to the token count. The course builds those
# sizes with ordinary attention, marked * in the table. Where the reference counts come from is said below the
# table. The last column is the LayerNorms' eps: $10^{-5}$, PyTorch's default, where the course's ViT (notebook 06)
# used $10^{-6}$.

# %%
official = {  # preset: (all, trainable), from the official code (see below); * = not published
    "t2t_vit_t_7": (4_305_742, 4_255_310),
    "t2t_vit_t_10": (5_884_750, 5_834_318),
    "t2t_vit_t_12": (6_937_422, 6_886_990),
    "t2t_vit_t_14": (21_541_070, 21_465_422),
    "t2t_vit_t_19": (39_172_942, 39_084_686),
    "t2t_vit_t_24": (64_101_454, 64_000_590),
}
print(
    f"{'preset':12s} {'D':>4s} {'depth':>5s} {'heads':>5s} {'MLP ratio':>9s} {'all':>12s} {'trainable':>12s} "
    f"{'reference':>13s} {'eps':>6s}"
)
with torch.device("meta"):
    for name, (ref_all, ref_train) in official.items():
        m = create_model(name)
        n_all, n_train = count_parameters(m)
        ratio = m.blocks[0].mlp.fc1.out_features / m.embed_dim
        print(
            f"{name:12s} {m.embed_dim:4d} {len(m.blocks):5d} {m.blocks[0].attn.num_heads:5d} {ratio:9g} "
            f"{n_all:12,d} {n_train:12,d} {ref_all:12,d}{'*' if name[-2:] in ('_7', '10', '12') else ' '} "
            f"{m.blocks[0].norm1.eps:6g}"
        )
        assert (n_all, n_train) == (ref_all, ref_train)
        assert m.blocks[0].norm1.eps == torch.nn.LayerNorm(1).eps == 1e-5  # PyTorch's default
print("every preset matches its reference count, all and trainable")

# %% [markdown]
# **The reference counts** come from the official T2T-ViT code (github.com/yitu-opensource/T2T-ViT,
# `models/t2t_vit.py`), counted with `sum(p.numel() for p in model.parameters())`. "All" includes the sinusoidal
# table, which that code stores as a parameter with `requires_grad=False`.
#
# - 14, 19, 24: the official models with transformer token blocks, `t2t_vit_t_14/19/24`. Rounded to 0.1 M they are
#   the parameter column of the paper's Table 3 (ICCV 2021 version: 21.5, 39.2, 64.1 M).
# - 7, 10, 12: the official repository ships these sizes only with Performer token blocks (`t2t_vit_7/10/12`). The
#   course builds them with transformer token blocks and names them by the official code's rule, `_t` for
#   transformer tokens: `t2t_vit_t_7/10/12`. The reference here is the official `T2T_ViT` class built with
#   `tokens_type="transformer"` at those sizes: the course's own combination, not a published model. Rounded to
#   0.1 M it happens to equal the published counts of the Performer models (the paper's Table 4: T2T-ViT-7 4.3 M,
#   T2T-ViT-12 6.9 M).
#
# The multiply-adds of section 4, 6.1 G for T2T-ViT$_t$-14, are cited from the same Table 3 and from Table 7.
#
# The presets' MLP ratios are the official ones: 2 for sizes 7, 10 and 12, and 3 for 14, 19 and 24.

# %% [markdown]
# ## Evidence: more to try

# %% [markdown]
# ### Play: image size and the three soft splits
#
# The explorer below, in a running kernel, takes a one-channel $H \times W$ image and each stage's kernel, stride
# and padding. It draws the three token grids beside each stage's share of the module's multiply-adds, with the
# widths of T2T-ViT$_t$-14. With one input channel, stage 1 costs less than in section 4's RGB table. It starts at
# 224 × 224 with T2T's three stages.
#
# **Predict, then play.** Write down your guesses, then try them.
# 1. Set $H$ and $W$ to 448. Does stage 2's share of the module's multiply-adds rise, fall or stay the same?
# 2. Back at 224 × 224, set stage 1's stride to 8. Does the module's total fall about 2 times, 4 times or more
#    than 10 times? Which stage now holds the largest share?

# %%
from vitcourse import widgets

widgets.t2t_stages_explorer()

# %% [markdown]
# ### After playing

# %% [markdown]
# The explorer's text line for each setting, then the two answers, computed.

# %%
stride8 = [(7, 8, 2), *T2T_STAGES[1:]]  # stage 1 with stride 8, the later stages as they are
for size, stages_used in (((224, 224), T2T_STAGES), ((448, 448), T2T_STAGES), ((224, 224), stride8)):
    print(widgets.t2t_stages_view(*size, stages_used)[1])
cost = {
    "224": widgets.t2t_stage_macs(224, 224),
    "448": widgets.t2t_stage_macs(448, 448),
    "stride 8": widgets.t2t_stage_macs(224, 224, stride8),
}
growth = cost["448"][0] / cost["224"][0]
growth2 = cost["448"][1] / cost["224"][1]
share2 = {size: cost[size][1] / sum(cost[size]) for size in ("224", "448")}
fall = sum(cost["224"]) / sum(cost["stride 8"])
largest = 1 + max(range(3), key=lambda i: cost["stride 8"][i])
print(
    f"1. 448 x 448: stage 2's share {share2['224']:.1%} -> {share2['448']:.1%}; "
    f"stage 1's cost grows {growth:.1f} times, stage 2's {growth2:.1f} times"
)
print(f"2. stride 8: the total falls {fall:.1f} times; the largest share is still stage {largest}'s")
covered = torch.zeros(224, 224, dtype=torch.bool)  # is each pixel in some window?
for top, left in tokens.window_corners(224, 224, 7, 8, 2):  # each window's top-left pixel
    covered[max(top, 0) : top + 7, max(left, 0) : left + 7] = True
print(f"   stride 8 > kernel 7: {1 - covered.float().mean().item():.1%} of the pixels lie in no window")
assert share2["448"] < share2["224"] and growth2 < growth
assert 12 < growth < 16 and fall > 10 and largest == 1 and not covered.all()
by_formula = widgets.t2t_stage_macs(224, 224, T2T_STAGES, in_chans=3, token_dim=64, embed_dim=384)
counted = [macs[f"tokens_to_token.{part}"] for part in ("attention1", "attention2", "project")]
print(f"T2T-ViT_t-14's module at 224 x 224 x 3: formula {by_formula}, counted by count_macs {counted}")
assert by_formula == counted
assert widgets.t2t_stages_view(8, 8, [(7, 4, 2), (3, 2, 1), (9, 2, 0)])[0] is None  # 1 x 1 grid, kernel 9

# %% [markdown]
# Stage 2's share falls. Both stages get 4 times the tokens, but their costs grow differently. Stage 1's cost is
# mostly attention products (notebook 05, "Parameters and multiply-adds"), which grow with the square of the token
# count: close to 16 times. Stage 2's tokens are 576 long, so its linear layers weigh more, and linear layers grow only in
# proportion to the token count. So stage 2's cost grows less than stage 1's, as printed.
#
# A stride of 8 gives stage 1 a quarter of the tokens and makes every later grid smaller too, so the total falls more
# than tenfold. Stage 1 still costs the most. The stride is now larger than the kernel, which leaves gaps, as notebook
# 02 showed: the printed share of pixels falls in no window. The last lines check the explorer's formula against
# `count_macs` of section 4.

# %% [markdown]
# ## Evidence: where the course departs from the articles and the official code
#
# The article series and the official T2T-ViT code agree on the T2T module's layers: the T2T article's
# `Tokens2Token` builds both token transformers with 1 head and an MLP ratio of 1.0, as the official code does and
# as this course does. Only that article's stand-alone token-transformer walk-through uses 4 heads and a ratio of
# 1.5 (4 heads because they divide the 64 channels, the article says; notebook 08's section 4 runs the
# walk-through with the module's 1 head and 1.0). What does differ (each bullet says where it is shown):
#
# - **The token transformers' scale.** The articles' attention module scales $QK^\top$ by
#   $(\text{chan} / \text{heads})^{-1/2}$ unless given a scale, and their T2T module gives none: $64^{-1/2} = 1/8$.
#   The official code scales by $(\text{dim} / \text{heads})^{-1/2}$, from the input length: $49^{-1/2} = 1/7$ in
#   stage 1. `vitcourse` follows the official code (`TokensToToken(..., official_scale=False)` gives the
#   articles' choice). The scale changes no shape and no parameter count, only how peaked the attention weights
#   are (measured at both stages by the second cell below).
# - **The articles' "ViT".** Their ViT backbone (the ViT article's, which the T2T article reuses) adds a *fixed*
#   sinusoidal position table and builds 1 head by default. The ViT paper learns its position embedding, and ViT-B
#   has 12 heads (notebook 07); the fixed table is T2T-ViT's choice (notebook 03). In `vitcourse`,
#   `VisionTransformer` learns its table and `T2TViT` keeps a fixed one. The third cell below shows both, and a
#   `VisionTransformer` given the articles' two settings; the articles' own code is not run here.
# - **Their encoder blocks add $v$ too.** The articles' encoder block uses the same attention module as their
#   token transformer, which always adds $v$, so each of their encoder blocks computes $X + (V + \text{the
#   attention's output})$. Neither ViT's encoder blocks nor the official T2T-ViT's add $v$; the course's
#   `EncoderBlock` does not either (notebook 06). The fourth cell runs one block of section 3's model both ways.
# - **`count_tokens`'s order.** The articles' `count_tokens(w, h, k, s, p)` takes the width first and returns
#   `(new_w, new_h, total)`, width first: an easy swap on a picture that is wider than it is tall.
#   `vitcourse.tokens.count_tokens(height, width, k, s, p)` returns a named `TokenCount(rows, cols, total)`
#   (third cell below).
# - **Heads in the official skip through $v$.** In the official token transformer the qkv layer outputs
#   $3 \cdot 64$ values per token, and the code reshapes them to (3, heads, 64), giving every head all 64
#   channels; for heads > 1 that reshape needs $3 \cdot \text{heads} \cdot 64$ values and fails, and the skip adds
#   `v.squeeze(1)`, which assumes one head. So that code works with one head only. `vitcourse` (like the
#   articles) splits the 64 channels among the heads and merges $v$'s heads before adding it, so any head count
#   that divides 64 works; with one head the two agree. The fifth cell runs that reshape and vitcourse's
#   4-head token transformer.
# - **Names.** The course's presets use the official code's names: `t2t_vit_t_14`, `_19` and `_24` are the
#   models whose token transformers use ordinary attention, as built here. Official checkpoints of those load
#   into them with `vitcourse.checkpoints.load_pretrained`; this notebook downloads nothing, so the load is not
#   run here: the course's test `tests/test_checkpoints.py` writes out the official key names and shapes and
#   loads them. The official `t2t_vit_14` (and 7, 10, 12, 19, 24) is the Performer variant (the official sizes,
#   above), whose token blocks have other parameters and keys (`kqv`, `w`); the course does not build it, so
#   `create_model("t2t_vit_14")` is refused with a message that names `t2t_vit_t_14`, and a Performer checkpoint
#   is refused by `load_pretrained`, saying so (last cell of this section). The official code has the sizes 7,
#   10 and 12 only as Performer models; the course's transformer-token models of those sizes are
#   `t2t_vit_t_7/10/12`, named by the same rule, and no official checkpoint exists for them.
# - **Any image size.** The official code rebuilds with $\sqrt{N}$, which is right on square grids only
#   (Exercise 2); `vitcourse` uses the grid's rows and columns (the articles changed the official code for
#   non-square images too). Sections 1 and 2 ran the module on 400 × 100 and on the picture's 60 × 100.
#
# First the heads and the MLP ratio: the heads change no parameter count, the MLP ratio does.

# %%
for heads, ratio, who in (
    (4, 1.5, "the T2T article's stand-alone walk-through"),
    (1, 1.0, "the T2T module: official code, article series and vitcourse"),
    (4, 1.0, "4 heads, ratio 1.0"),
):
    n = sum(p.numel() for p in TokenTransformer(49, 64, num_heads=heads, mlp_ratio=ratio).parameters())
    print(f"token transformer 49 -> 64, {heads} head(s), MLP ratio {ratio}: {n:,} parameters ({who})")

# %% [markdown]
# The two scales, on section 1's module and a copy of it with the articles' scales (the same random initial
# weights), both fed the same tokens: two images of section 1's batch at stage 1, and the tokens section 1's
# module makes from them at stage 2. How peaked the weights are is measured by each query's largest attention
# weight, averaged over the queries, in units of the uniform weight $1/N$ (1 would mean every query spreads its
# weight evenly over all $N$ tokens).

# %%
articles_t2t = TokensToToken((H, W), in_chans=1, embed_dim=768, official_scale=False).to(device).eval()
articles_t2t.load_state_dict(t2t.state_dict())  # section 1's weights: only the scales differ
with torch.no_grad():
    stage_tokens = [t2t.soft_split0(images[:2])]  # stage 1's tokens, (2, 2500, 49)
    first_grid = t2t.grids[0]
    rebuilt = tokens.rebuild_image(t2t.attention1(stage_tokens[0]), first_grid.rows, first_grid.cols)
    stage_tokens.append(t2t.soft_split1(rebuilt))  # stage 2's tokens, (2, 650, 576)
    peaks = {}
    for stage, stage_in in enumerate(stage_tokens, start=1):
        for who, module in (("official code and vitcourse", t2t), ("article series", articles_t2t)):
            block = getattr(module, f"attention{stage}")
            weights = block.attn.steps(block.norm1(stage_in))[1].weights  # (2, 1, N, N)
            peaks[stage, who] = weights.amax(dim=-1).mean().item() * weights.shape[-1]  # in units of 1/N
            print(
                f"stage {stage}, N = {weights.shape[-1]} tokens of length {stage_in.shape[-1]}, {who}: "
                f"scale {block.attn.scale:.4f} = 1/{1 / block.attn.scale:.0f}; "
                f"largest weight {peaks[stage, who]:.2f} x 1/N"
            )
assert t2t.attention1.attn.scale == 49**-0.5 and articles_t2t.attention1.attn.scale == 64**-0.5
assert t2t.attention2.attn.scale == 576**-0.5 and articles_t2t.attention2.attn.scale == 64**-0.5
assert peaks[1, "official code and vitcourse"] > peaks[1, "article series"]  # 1/7 > 1/8: a little sharper
assert peaks[2, "official code and vitcourse"] < peaks[2, "article series"]  # 1/24 < 1/8: flatter

# %% [markdown]
# At stage 1 the scales are close, 1/7 and 1/8, and so are the weights: the official ones a little more peaked.
# At stage 2 the input tokens are 576 long, and the official scale, 1/24, is a third of the articles' 1/8. Its
# weights stay much closer to uniform: each query's largest weight is 1.39 times $1/N$, against 2.62.
# These are random initial weights. The scales themselves are fixed, 1/24 against 1/8; how peaked trained
# weights become is not measured here.
#
# The articles' ViT and the course's: where the position table trains, and the default heads; then
# `count_tokens`'s order.

# %%
with torch.device("meta"):
    vit_b, t2t_14 = create_model("vit_base_patch16_224"), create_model("t2t_vit_t_14")
    articles_like = VisionTransformer(pos_embed="sinusoidal", num_heads=1)  # the articles' two settings
for name, m in (
    ("vit_base_patch16_224", vit_b),
    ("t2t_vit_t_14", t2t_14),
    ("VisionTransformer(pos_embed='sinusoidal', num_heads=1)", articles_like),
):
    print(
        f"{name}: position table {m.pos_kind}, trains: {m.pos_embed.requires_grad}; heads {m.blocks[0].attn.num_heads}"
    )
assert vit_b.pos_embed.requires_grad and not t2t_14.pos_embed.requires_grad
assert not articles_like.pos_embed.requires_grad and articles_like.blocks[0].attn.num_heads == 1
grid = tokens.count_tokens(height, width, *T2T_STAGES[0])
print(f"vitcourse: count_tokens(height={height}, width={width}, 7, 4, 2) -> {grid}")
print(f"the articles' order (new_w, new_h, total) would be ({grid.cols}, {grid.rows}, {grid.total})")

# %% [markdown]
# The articles' encoder block, built from the first block of section 3's model: the same weights, with the
# attention's skip through $v$ switched on (`v_skip=True`, as in a token transformer). Both run on the picture's
# 29 tokens from section 3. The cell checks that after the attention the two differ by exactly $v$, and measures
# how much that changes the block's output.

# %%
block = model.blocks[0]
articles_attn = Attention(
    block.attn.dim, num_heads=block.attn.num_heads, qkv_bias=block.attn.qkv.bias is not None, v_skip=True
).to(device)
articles_attn.load_state_dict(block.attn.state_dict())  # the same weights; only the skip through v differs
with torch.no_grad():
    normed = block.norm1(emb)  # (1, 29, 384)
    attn_out, st = block.attn.steps(normed)
    v_merged = st.v.transpose(1, 2).reshape(normed.shape)  # (1, 29, 384): v with its heads merged
    after_course, after_articles = emb + attn_out, emb + articles_attn(normed)
    out_course = block(emb)
    out_articles = after_articles + block.mlp(block.norm2(after_articles))
adds_v = torch.allclose(after_articles - after_course, v_merged, atol=1e-4)
print(f"after the attention, the articles' block minus the course's equals v: {adds_v}")
print(f"size of v against the attention's output (norms): {(v_merged.norm() / attn_out.norm()).item():.2f}")
change = ((out_articles - out_course).norm() / out_course.norm()).item()
print(f"at random initial weights, the block's output changes by {change:.0%} of its size (norms)")
assert adds_v and change > 0.01

# %% [markdown]
# So the skip through $v$ is no detail: at these weights $v$ is about 4 times the size of the attention's output,
# as printed, and the block's output moves by about half its size. A block without it is a different model.

# %% [markdown]
# The official reshape, run on a qkv output of the article's walk-through sizes (a batch of 13 inputs of 100
# tokens, $3 \cdot 64$ values per token), with 1 head and with 4; then `vitcourse`'s token transformer with 4 heads
# on the same sizes.

# %%
qkv_out = torch.zeros(13, 100, 3 * 64)  # the official qkv layer's output: 3 x 64 values per token
for heads in (1, 4):
    try:
        qkv_out.reshape(13, 100, 3, heads, 64)  # the official code's reshape: every head gets all 64 channels
        print(f"{heads} head: reshape to (B, N, 3, heads, 64) works")
    except RuntimeError as err:
        print(f"{heads} heads: RuntimeError: {err}")
four_heads = TokenTransformer(49, 64, num_heads=4, qk_scale=49**-0.5).to(device).eval()
with torch.no_grad():
    x = torch.randn(13, 100, 49, generator=torch.Generator().manual_seed(1)).to(device)  # (B, N, dim)
    print(f"vitcourse, 4 heads: {tuple(x.shape)} -> {tuple(four_heads(x).shape)}")

# %% [markdown]
# The names in code: the official Performer name is refused, and the message says which preset to use; so is a
# checkpoint with Performer keys (here a made-up one holding a single such key).

# %%
import textwrap

try:
    create_model("t2t_vit_14")
except ValueError as err:
    print(textwrap.fill(f"ValueError: {err}", width=100))
assert "t2t_vit_t_14" in vitcourse.models.PRESETS and "t2t_vit_14" not in vitcourse.models.PRESETS
performer_like = {"tokens_to_token.attention1.kqv.weight": torch.zeros(192, 49)}
try:
    load_pretrained(t2t_14, performer_like, "t2t")
except ValueError as err:
    print(textwrap.fill(f"ValueError: {err}", width=100))

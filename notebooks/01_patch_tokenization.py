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
# # 01 · Patch tokenization
#
# A transformer (a network of attention layers, which let every token look at every other; notebooks 04 and 05
# build one) works on a *sequence of tokens*: a token is one vector, one item of the sequence (in a language
# model, a word or a piece of a word). A Vision Transformer (ViT) makes that sequence from an image in the
# simplest way there is: it cuts the image into square patches, flattens each patch into a vector (its length is
# the *token length*), and projects every vector to the model width $D$ (the embedding size), the length every
# vector keeps inside the transformer.
#
# **Learning goals.** After this notebook you can
# 1. compute how many patches an image makes and how long each token is, and choose a patch size for a larger
#    image,
# 2. cut the picture into patches and flatten them by hand, in the same order as `nn.Unfold`,
# 3. say where any pixel of any channel lands in the token matrix (the tokens stacked, one row per patch),
# 4. explain why "Unfold + Linear" and a strided `Conv2d` are the same operation,
# 5. use `vitcourse.tokens.PatchTokenizer` and read its shapes.
#
# The exercises sit where they belong in the story (notebook 00 explains how they work). Write your answer in a
# new cell just above the check cell, with the name the check cell uses; the check prints ✓ or a hint, and a
# second wrong try gets a more specific hint. The ✓ stored under each check is the worked solution's, which is
# the collapsed cell under the question: open it only after trying. When an exercise asks you to *predict*, do it before you run the cells after it.

# %%
import matplotlib.pyplot as plt
import torch
from IPython.display import display
from matplotlib.patches import Rectangle
from torch import nn

import vitcourse
from vitcourse import check, load_mountains, plots, tokens, widgets

torch.manual_seed(0)
device = vitcourse.get_device()
picture = load_mountains()
image = vitcourse.to_tensor(picture)  # (1, 1, H, W)
B, C, H, W = image.shape
print(f"image batch: B={B}, C={C}, H={H}, W={W}")

# %% [markdown]
# ## How many patches?
#
# An image $x \in \mathbb{R}^{H \times W \times C}$ (the paper's layout, channels last; PyTorch stores a batch of
# images as (B, C, H, W), channels first, as printed above) cut into patches of $P \times P$ pixels gives
#
# $$N = \frac{H}{P} \cdot \frac{W}{P} = \frac{H\,W}{P^2}$$
#
# patches, provided $P$ divides both $H$ and $W$. Each patch flattens into a token of length $P^2 C$, so the image
# becomes a matrix $x_p \in \mathbb{R}^{N \times (P^2 C)}$ (the ViT paper's notation, Dosovitskiy et al. 2021,
# Section 3.1).

# %%
P = 20
rows, cols = H // P, W // P
N = H * W // P**2
print(f"P = {P}: H % P = {H % P}, W % P = {W % P} (0 means P divides the side)")
print(f"{rows} rows x {cols} columns = N = {N} patches, each a token of length P^2 * C = {P * P * C}")
# count_tokens(height, width, kernel, stride, padding) counts sliding windows (notebook 02 derives it): a
# window of kernel x kernel pixels, moved stride pixels at a time over the picture with padding pixels added
# around it. A patch grid is windows of P x P pixels moved P pixels at a time, with no padding.
assert rows * cols == N == tokens.count_tokens(H, W, P, P, 0).total

# %% [markdown]
# **Exercise 1 (transfer).** A larger picture can be cut in two ways. The ViT paper trains its models first on a
# large data set (*pre-training*) and then trains them further on a smaller task (*fine-tuning*), often at a
# higher resolution; it then keeps the patch size, so the sequence of tokens gets longer (Dosovitskiy et al.
# 2021, Section 3.2). The other way is to grow the patches so that the count stays the same.
# Take the picture at twice its resolution, 120 × 200 pixels, one channel.
#
# - (a) With $P = 20$ kept, how many tokens does it make? (`answer_patches`)
# - (b) Which patch size $P$ gives it as many tokens as the picture at its own size with $P = 20$?
#   (`answer_size`)
# - (c) How long is each token with that patch size? (`answer_length`)
#
# (Notebook 03 comes back to what a longer sequence asks of the position embeddings.)

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "patch_count-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_patches = None  # replace None with your answer to (a)
answer_size = None  # (b)
answer_length = None  # (c)
### BEGIN SOLUTION
# (a) the same patches: twice as many patch rows, and twice as many patches per row
answer_patches = (120 // 20) * (200 // 20)
# (b) both sides doubled: patches with doubled sides keep the grid of patches as it was
answer_size = 2 * 20
answer_length = answer_size**2 * 1  # P^2 C, with C = 1 channel
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "patch_count-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.patch_count(answer_patches)
check.patch_size_same_count(answer_size)
check.token_length_same_count(answer_length)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "patch_count-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.patch_count, answer_patches)
### END HIDDEN TESTS

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "patch_size_same_count-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.patch_size_same_count, answer_size)
### END HIDDEN TESTS

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "token_length_same_count-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.token_length_same_count, answer_length)
### END HIDDEN TESTS

# %%
fig, ax = plt.subplots(figsize=(7, 4))
plots.show_picture(picture, ax=ax, title=f"The picture cut into {N} patches of {P} x {P}")
plots.draw_patch_grid(ax, H, W, P)
plt.show()

# %% [markdown]
# Patches are numbered row by row, from 1 in the top-left corner to $N$ in the bottom-right. They do not overlap:
# every pixel belongs to exactly one patch, so a shape that crosses a border between two patches is cut in two,
# and a shape over a corner where four patches meet is cut in four. The next cell measures it on the pale
# mountain, taken as the pixels of 0.7 or brighter below the rows the moon reaches (the rows that hold the
# brightest value).


# %%
def patch_of(row: int, col: int) -> int:
    """The number (from 1, row by row) of the P x P patch that holds pixel (row, col)."""
    return (row // P) * cols + col // P + 1


moon_rows = (picture == picture.max()).any(axis=1).nonzero()[0]  # rows holding the brightest value
mountain = picture >= 0.7  # (H, W)
mountain[: moon_rows.max() + 1] = False  # only below the moon
m_rows, m_cols = mountain.nonzero()
if m_rows.size:
    top = m_rows.min()
    peak_cols = m_cols[m_rows == top]
    peak_patches = sorted({patch_of(int(top), int(c_)) for c_ in peak_cols})
    all_patches = sorted({patch_of(int(r_), int(c_)) for r_, c_ in zip(m_rows, m_cols, strict=True)})
    peak = f"row {top}, columns {peak_cols.min()}-{peak_cols.max()}"
    print(f"the pale mountain's peak: {peak}, in patches {peak_patches}")
    print(f"its pixels lie in patches {all_patches}")
    for edge_row in range(P, H, P):  # every inner corner of the grid
        for edge_col in range(P, W, P):
            if mountain[edge_row - 1 : edge_row + 1, edge_col - 1 : edge_col + 1].all():  # all four pixels
                four = [patch_of(edge_row + dr, edge_col + dc) for dr in (-1, 0) for dc in (-1, 0)]
                print(f"it covers the corner at row {edge_row}, column {edge_col}, cut into patches {four}")
else:
    print("no pixel of 0.7 or brighter below the moon in this picture")

# %% [markdown]
# ## One patch, one token, by hand
#
# We follow one patch, patch 12, into a token: the example of the series' ViT article (Callis, *Vision
# Transformers, Explained*, which cuts it out as `mountains[40:60, 20:40]` and picks it for the four shades it
# holds in the article's crop). The cell below finds its place in the grid and counts the different values it
# holds in the picture in use.

# %%
number = 12
r, c = divmod(number - 1, cols)  # patch row and column, counted from 0
patch = image[0, 0, r * P : (r + 1) * P, c * P : (c + 1) * P]  # (P, P)
token = patch.reshape(-1)  # (P*P,): row after row of the patch
print(f"patch {number}: patch row {r + 1} of {rows}, patch column {c + 1} of {cols} (counted from 1)")
print(f"pixels: rows {r * P}-{(r + 1) * P - 1}, columns {c * P}-{(c + 1) * P - 1} (both ends included)")
print(f"patch shape {tuple(patch.shape)}")
print(f"its token: shape {tuple(token.shape)}, {len(token.unique())} different values")


# %%
def pixel_axes(fig: plt.Figure, box: tuple[int, int, int, int]) -> plt.Axes:
    """Axes placed in screen pixels, box = (left, bottom, width, height), on a figure of known size."""
    fw, fh = fig.get_size_inches() * fig.dpi
    return fig.add_axes([box[0] / fw, box[1] / fh, box[2] / fw, box[3] / fh])


# Sizes in screen pixels (the figure is drawn at 100 dots per inch): each of the token's entries gets exactly
# 2 pixels, so that no entry is drawn wider than another.
strip_w = 2 * token.numel()
fig = plt.figure(figsize=((70 + strip_w + 110) / 100, 430 / 100), dpi=100)
ax_patch = pixel_axes(fig, (70 + strip_w // 2 - 100, 180, 200, 200))  # centred above the strip
plots.show_picture(patch, ax=ax_patch, title=f"patch {number} (orange: its row 0)", colorbar=False)
ax_patch.set_xticks(range(0, P + 1, 5))
ax_patch.set_yticks(range(0, P + 1, 5))
ax_patch.set_xlabel("column in the patch")
ax_patch.set_ylabel("row in the patch")
outline = {"fill": False, "ec": "tab:orange", "lw": 2.5, "clip_on": False}
ax_patch.add_patch(Rectangle((0, 0), P, 1, **outline))  # the patch's row 0: y from 0 to 1
ax_strip = pixel_axes(fig, (70, 55, strip_w, 40))
plots.show_token_strip(
    token,
    ax=ax_strip,
    title=f"patch {number} flattened: a token of length {token.numel()} (orange: the patch's row 0)",
)
ax_strip.set_ylabel("token")
ax_strip.set_xlabel("position in the token (white lines: where each row of the patch ends)")
ax_strip.set_xticks(range(0, token.numel() + 1, 2 * P))
for k in range(1, P):
    ax_strip.axvline(k * P - 0.5, color="w", lw=0.6)  # where one row of the patch ends
ax_strip.add_patch(Rectangle((-0.5, -0.5), P, 1, **outline))  # positions 0 to P - 1
fig.colorbar(
    ax_strip.images[0],
    cax=pixel_axes(fig, (70 + strip_w // 2 + 120, 180, 14, 200)),
    label="brightness (both panels)",
)
plt.show()

# %% [markdown]
# The white lines in the strip mark where one row of the patch ends and the next begins: the token is the patch
# read like a book, $P$ pixels at a time.
#
# **Exercise 2 (transfer).** Patches need not be square: `nn.Unfold` and `nn.Conv2d` also take a
# `kernel_size` of (height, width), and the small grid further down is cut into patches of 2 rows × 3 columns.
# Cut the picture into patches of 10 rows × 20 columns, numbered from 1, row by row, as before. Which patch
# number holds the pixel at row 45, column 30? Pixel rows and columns count from 0, as in the tensor (row 0 is
# the top row), while patch numbers count from 1. (`patch_of` above assumes square patches; think about which of
# its $P$s measures rows and which columns.)

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "patch_number-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_number = None  # replace None with your answer
### BEGIN SOLUTION
# patch row 45 // 10 (10 rows a patch), patch column 30 // 20 (20 columns a patch), 100 // 20 patches a row
answer_number = (45 // 10) * (100 // 20) + 30 // 20 + 1
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "patch_number-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.patch_number(answer_number)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "patch_number-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.patch_number, answer_number)
### END HIDDEN TESTS

# %% [markdown]
# ## All fifteen tokens
#
# Cutting every patch the same way, in the numbering order, and stacking the tokens gives the *token matrix*, one
# row per patch. We build it with a plain loop and compare it with PyTorch's `nn.Unfold`, which slides a
# $P \times P$ window (its `kernel_size`) over the image, moving it $P$ pixels at a time (its `stride`), and
# returns one column per window (so we transpose to one row per token).

# %%
by_hand = torch.stack(
    [
        image[0, :, i * P : (i + 1) * P, j * P : (j + 1) * P].reshape(-1)  # (C*P*P,)
        for i in range(rows)
        for j in range(cols)
    ]
).unsqueeze(0)  # (B, N, C*P*P)
print(f"tokens by hand:  {tuple(by_hand.shape)}")

unfolded = nn.Unfold(kernel_size=P, stride=P)(image)  # (B, C*P*P, N): one column per patch
print(f"nn.Unfold:       {tuple(unfolded.shape)} -> transposed {tuple(unfolded.transpose(1, 2).shape)}")
assert torch.equal(by_hand, unfolded.transpose(1, 2))
assert torch.equal(by_hand[0, number - 1], token)
assert torch.equal(tokens.patchify(image, P), by_hand)  # the package's version, used from here on
print("the loop, nn.Unfold and vitcourse.tokens.patchify give the same tokens (asserted)")

# %%
length = by_hand.shape[-1]
# Each entry gets exactly 2 screen pixels across (at 100 dots per inch) and each token 16 pixels down: with
# fewer pixels than entries, neighbouring entries that alternate (the dithered band) would merge into stripes
# that are not in the data.
fig = plt.figure(figsize=((90 + 2 * length + 100) / 100, (16 * N + 100) / 100), dpi=100)
ax = pixel_axes(fig, (90, 60, 2 * length, 16 * N))
plots.show_matrix(
    by_hand[0],
    ax=ax,
    title=f"The token matrix: {N} tokens x {length} values",
    xlabel=f"position in the token ({P} positions = one row of the patch)",
    ylabel="token index (patch number - 1)",
    vmin=0,
    vmax=1,
    colorbar=False,
)
ax.set_yticks(range(N))
ax.set_xticks(range(0, length + 1, 2 * P))
fig.colorbar(ax.images[0], cax=pixel_axes(fig, (90 + 2 * length + 15, 60, 14, 16 * N)), label="brightness")
plt.show()

# %% [markdown]
# Each row of the matrix is one patch read row by row, so a feature of the picture shows up as a pattern along
# the rows. The cell finds two of them: which tokens hold the brightest pixels (the moon, in the course's
# picture), and where the rows of the dithered band (found as in notebook 00: rows in which most pixels differ
# from their right-hand neighbour) land in the tokens.

# %%
bright = (by_hand[0] == by_hand.max()).sum(dim=1)  # (N,) brightest entries in each token
holding = bright.nonzero().flatten().tolist()
print("tokens holding the brightest value, with how many of its entries:")
print("  " + ", ".join(f"token {t}: {int(bright[t])}" for t in holding))
differs = picture[:, 1:] != picture[:, :-1]  # (H, W - 1): each pixel against its right-hand neighbour
band = (differs.mean(axis=1) > 0.5).nonzero()[0]  # rows of the dithered band
if band.size == 0:
    print("no row of this picture has most pixels differing from their neighbour")
for patch_row in sorted(set((band // P).tolist())):
    inside = band[band // P == patch_row] - patch_row * P  # the band's rows, counted inside the patch
    first, last = inside.min() * P, (inside.max() + 1) * P - 1
    tokens_here = list(range(patch_row * cols, (patch_row + 1) * cols))
    print(
        f"band rows {band[band // P == patch_row].min()}-{band[band // P == patch_row].max()}: tokens "
        f"{tokens_here[0]}-{tokens_here[-1]}, positions {first}-{last}"
    )

# %% [markdown]
# With more than one channel, each token holds *all* channels of its patch. `nn.Unfold` keeps them apart: first
# the $P^2$ values of channel 0 row by row, then those of channel 1, and so on, the order $(C, P, P)$.
#
# **Exercise 3 (predict).** ViT-B/16 (ViT-Base, the ViT paper's base-size model, with 16 × 16 patches) works on
# RGB images, so each of its tokens holds 3 · 16 · 16 values. Take a token made by `nn.Unfold`, in the
# order just described (the order a `Conv2d`'s weight uses too, as a later section shows). Which channel, row
# and column of the patch does the value at position 500 come from? Give `(channel, row, column)`, each counted
# from 0 (channel 0 is red, 1 green, 2 blue; row 0 is the patch's top row). The cell after the exercise decodes a
# token and shows it; predict first.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "token_position-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_position = None  # replace None with your answer: a tuple (channel, row, column)
### BEGIN SOLUTION
channel_, within = divmod(500, 16 * 16)  # every channel fills 16 * 16 positions before the next begins
answer_position = (channel_, *divmod(within, 16))  # then 16 positions per row of the patch
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "token_position-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.token_position(answer_position)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "token_position-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.token_position, answer_position)
### END HIDDEN TESTS

# %% [markdown]
# Now run: an RGB image of 32 × 32 whose every value *encodes its own place*, channel × 10000 + row × 100 +
# column, cut into 16 × 16 patches by `nn.Unfold`. Decoding the values of the first token shows where each
# pixel went.

# %%
ch_, row_, col_ = torch.meshgrid(torch.arange(3), torch.arange(32), torch.arange(32), indexing="ij")
codes = (ch_ * 10000 + row_ * 100 + col_).float().unsqueeze(0)  # (1, 3, 32, 32)
first_token = nn.Unfold(kernel_size=16, stride=16)(codes)[0, :, 0].long()  # (3*16*16,)
print(f"token length {first_token.numel()}")
for position in (0, 15, 16, 255, 256, 500, 767):
    value = int(first_token[position])
    print(f"position {position:3d}: channel {value // 10000}, row {value // 100 % 100}, column {value % 100}")

# %% [markdown]
# **Reshape and permute, on a small grid.** A reshape can split an axis in two and a permute can reorder axes;
# together they cut a whole image into patches at once. Here on a 4 × 6 grid of the numbers 0-23 (each number is
# its place in reading order), cut into patches of 2 rows × 3 columns: split each side into (patches, pixels in a
# patch), bring the two patch axes to the front, then flatten each patch.

# %%
grid = torch.arange(24).reshape(4, 6)  # (rows, columns)
print(f"grid {tuple(grid.shape)}:\n{grid}")
split_sides = grid.reshape(2, 2, 2, 3)  # (patch row, row in patch, patch column, column in patch)
print(f"reshape: {tuple(split_sides.shape)} = (patch row, row in patch, patch column, column in patch)")
patch_axes_first = split_sides.permute(0, 2, 1, 3)  # (patch row, patch column, row in patch, column in patch)
print(
    f"permute(0, 2, 1, 3): {tuple(patch_axes_first.shape)} = "
    "(patch row, patch column, row in patch, column in patch)"
)
grid_patches = patch_axes_first.reshape(4, 6)  # (patch, its 2 * 3 values row by row)
print(f"flatten each patch: {tuple(grid_patches.shape)}, one row per patch:\n{grid_patches}")
same_as_grid = torch.equal(split_sides.reshape(4, 6), grid)
print(f"without the permute, the same reshape gives back the grid's own rows: {same_as_grid}")
unfold_grid = nn.functional.unfold(grid[None, None].float(), kernel_size=(2, 3), stride=(2, 3))  # (1, 6, 4)
assert torch.equal(unfold_grid[0].T.long(), grid_patches)
print("nn.Unfold with 2 x 3 windows gives the same patches (asserted)")

# %% [markdown]
# **Exercise 4 (coding, transfer).** The loop in "All fifteen tokens" builds tokens one patch at a time. Write
# `my_patchify(images, p)` that turns a whole (B, C, H, W) batch into (B, N, C·p·p) tokens in the same order as
# `nn.Unfold`, *with reshape and permute only* (no loop, no `nn.Unfold`). The small grid above shows the idea
# for one channel; here a batch axis and a channel axis come along, and each token must hold its patch in the
# order (C, P, P). Write a shape comment beside each step. The check compares it with `nn.Unfold` on four
# shapes, with one, two and three channels, and names the usual ordering mistakes.


# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "patchify_function-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
def my_patchify(images: torch.Tensor, p: int) -> torch.Tensor:
    ### BEGIN SOLUTION
    b, c, h, w = images.shape
    x = images.reshape(b, c, h // p, p, w // p, p)  # (B, C, rows, p, cols, p)
    x = x.permute(0, 2, 4, 1, 3, 5)  # (B, rows, cols, C, p, p)
    return x.reshape(b, (h // p) * (w // p), c * p * p)  # (B, N, C*p*p)
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "patchify_function-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.patchify_function(my_patchify)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "patchify_function-test", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.patchify_function, my_patchify)
### END HIDDEN TESTS

# %% [markdown]
# ## Projecting the tokens
#
# A token of $P^2 C$ raw pixels is not yet what a transformer uses. A learned linear map
# $E \in \mathbb{R}^{(P^2 C) \times D}$ projects every token to the model width $D$. The ViT paper's Eq. 1
# writes the map without a bias, $x_p E$; implementations use `nn.Linear` or `nn.Conv2d`, which add one, so here
# $z = x_p E + b$. ViT-Base, the paper's base-size model, uses $D = 768$ (ViT paper, Table 1).
# `vitcourse.tokens.PatchTokenizer` does both steps, split then project; here they are one at a time. `nn.Linear`
# stores its weight as (out, in) = $(D, P^2 C)$ and computes $x W^\top + b$, so $E$ is the transposed weight.

# %%
D = 768
tokenizer = tokens.PatchTokenizer((H, W), patch_size=P, in_chans=C, embed_dim=D).to(device)
print(tokenizer)
img = image.to(device)
split = tokenizer.split(img)  # (B, N, C*P*P)
E = tokenizer.proj.weight.T  # (C*P*P, D): nn.Linear's weight is (D, C*P*P), (out, in)
projected = split @ E + tokenizer.proj.bias  # (B, N, D): z = x_p E + b
print(f"step 1, split:   {tuple(img.shape)} -> {tuple(split.shape)}")
print(f"step 2, project: {tuple(split.shape)} @ E {tuple(E.shape)} -> {tuple(projected.shape)}")
assert torch.allclose(tokenizer(img), projected, atol=1e-5)
n_params = sum(p.numel() for p in tokenizer.parameters())
print(f"learned weights: {P * P * C} x {D} + {D} = {P * P * C * D + D:,}; the module holds {n_params:,}")
assert n_params == P * P * C * D + D

# %% [markdown]
# ## Unfold + Linear is a strided convolution
#
# A `Conv2d` with `kernel_size = stride = P` (a $P \times P$ window moved $P$ pixels at a time) looks at each
# patch exactly once and computes, for each of its $D$ filters (one filter, a set of $C \times P \times P$
# weights, per output channel), a weighted sum of the patch's pixels plus a bias:
# the same dot products as the linear map above. A convolution weight has the shape (D, C, P, P): filter,
# channel, row, column. Row $d$ of the linear weight holds its $P^2 C$ numbers in the token's order, $(C, P, P)$,
# so reshaping it to (D, C, P, P) puts every number on the pixel it multiplies. (Were the tokens in another order,
# this reshape would pair weights with the wrong pixels: the cell shows it with each filter transposed.)
#
# The convolution's output is a *feature map*: one $D$-vector per patch position, laid out on the patch grid,
# shape (B, D, rows, cols). Flattening the grid and moving $D$ last gives the tokens, (B, N, D). The cell
# compares them with Unfold + Linear, with TF32 turned off for the convolution: on a GPU, PyTorch lets cuDNN
# (NVIDIA's library of GPU convolutions) use TF32, a number format with a 10-bit mantissa (the binary digits
# after the leading 1) against float32's 23 (NVIDIA, *TensorFloat-32 in the A100 GPU Accelerates AI Training,
# HPC up to 20x*, 2020), while the linear map runs in full float32.
#
# This convolution is how the widely used implementations write the patch embedding: timm (*PyTorch Image
# Models*, a library of vision models) in its `PatchEmbed`, torchvision's `VisionTransformer` in its
# `conv_proj`, both an `nn.Conv2d` with `kernel_size=patch_size, stride=patch_size`; and the official ViT code
# (Google Research's `vision_transformer`, `vit_jax/models_vit.py`), a convolution named `embedding` whose kernel
# size and strides are both the patch size.

# %%
conv = nn.Conv2d(C, D, kernel_size=P, stride=P).to(device)
full_float32 = torch.backends.cudnn.flags(enabled=torch.backends.cudnn.enabled, allow_tf32=False)
with torch.no_grad(), full_float32:
    conv.weight.copy_(tokenizer.proj.weight.reshape(D, C, P, P))  # (D, C*P*P) -> (D, C, P, P)
    conv.bias.copy_(tokenizer.proj.bias)
    feature_map = conv(img)  # (B, D, rows, cols): one D-vector per patch position
    from_conv = feature_map.flatten(2).transpose(1, 2)  # (B, N, D)
    gap = (from_conv - tokenizer(img)).abs().max().item()
    conv.weight.copy_(conv.weight.transpose(2, 3).clone())  # each filter transposed: the wrong pairing
    wrong_gap = (conv(img).flatten(2).transpose(1, 2) - tokenizer(img)).abs().max().item()
print(f"conv output {tuple(feature_map.shape)} -> flatten -> {tuple(from_conv.shape)}")
print(f"largest difference from Unfold + Linear below 1e-5: {gap < 1e-5}")
print(f"with each filter transposed, largest difference above 0.1: {wrong_gap > 0.1}")
assert gap < 1e-5 and wrong_gap > 0.1

# %% [markdown]
# The lecture slides' Part 3 ("Selected Implementation Details") works this through for ViT-B/16: a 224 × 224
# RGB image and 16 × 16 patches give a 768 × 14 × 14 feature map, which flattens into 196 vectors of width
# $D = 768$. (The slides print the input as "224 x 244 x 3", a slip: the code beside it sets 224 × 224; see
# [08 Errata, §5.1](08_errata.ipynb).) The cell computes it. Here 768 is both $D$ and, by coincidence, the token
# length $3 \cdot 16^2$.

# %%
rgb = torch.randn(1, 3, 224, 224, generator=torch.Generator().manual_seed(0)).to(device)  # drawn on the CPU
b16_conv = nn.Conv2d(3, 768, kernel_size=16, stride=16).to(device)
with torch.no_grad():
    fmap = b16_conv(rgb)  # (1, 768, 14, 14)
b16_tokens = fmap.flatten(2).transpose(1, 2)  # (1, 196, 768)
print(
    f"{tuple(rgb.shape[1:])} -> Conv2d -> {list(fmap.shape[1:])} -> flatten -> {list(b16_tokens.shape[1:])}"
)
print(
    f"count_tokens: {tokens.count_tokens(224, 224, 16, 16, 0)}; raw token length 3 * 16 * 16 = {3 * 16 * 16}"
)

# %% [markdown]
# ## Play: choose the patch size
#
# Only patch sizes that divide both 60 and 100 are allowed; the list below is computed, not typed. Pick one in
# the drop-down (it needs a running kernel: *kernel* here means the Python process behind the notebook, as in
# notebook 00, not a convolution's window) and watch the grid, the token count and the token matrix change.
# Small patches make many short tokens, large patches few long ones. Patches are numbered while there are at
# most 60 of them, and the grid lines are left out for patches under 5 pixels, where they would cover the
# picture. A token matrix with more rows or columns than its panel has room for at two screen pixels each is
# drawn averaged: each cell is the mean of a few neighbouring entries, and the title says how many (drawing only
# every few entries instead would turn the dithered band's one-pixel alternation into stripes that are not in
# the data). The list printed after the widget holds $P = 10$: the picture at its own size with patches half as
# large makes the same grid as Exercise 1's larger picture with $P = 20$.

# %%
sizes = widgets.valid_patch_sizes(H, W)
print(f"patch sizes that divide {H} and {W}: {sizes}")

# %%
display(widgets.patch_explorer(picture))

# %%
for size in sizes:
    fig, summary = widgets.patch_view(picture, size)
    plt.close(fig)
    count = tokens.count_tokens(H, W, size, size, 0)
    assert summary.startswith(f"P = {size}: {count.rows} x {count.cols} = {count.total} tokens")
    print(summary)
print(widgets.patch_view(picture, 7)[1])
assert tokens.count_tokens(H, W, 10, 10, 0) == tokens.count_tokens(2 * H, 2 * W, 20, 20, 0)  # Exercise 1 (a)

# %% [markdown]
# ## Summary
#
# - A ViT cuts an $H \times W$ image into $N = HW/P^2$ patches; each flattens into a token of length $P^2C$.
#   With `nn.Unfold` / `nn.Conv2d` the token holds channel by channel, each channel row by row (the order
#   $(C, P, P)$). einops (a library that rearranges tensor axes by name) writes the order it is given: the
#   pattern `'b c (h p1) (w p2) -> b (h w) (p1 p2 c)'`, which Phil Wang's `vit-pytorch` library uses, puts the
#   channels innermost, $(P, P, C)$.
# - On the picture, $P = 20$ gives 15 tokens of length 400, projected to model width 768: (1, 15, 768). A larger
#   image with the same patches gives more tokens, not longer ones; larger patches keep the count and lengthen
#   the tokens.
# - `nn.Unfold` + `nn.Linear` and `nn.Conv2d(kernel_size=P, stride=P)` compute the same tokens.
# - Patches do not overlap: a pixel belongs to exactly one token. A shape that crosses a patch border is cut in
#   two, and one over a corner where four patches meet is cut in four, as the pale mountain is.
#
# **Next:** [02 Soft split](02_soft_split.ipynb) lets the windows overlap, the first idea of Tokens-to-Token.

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
# # 03 · Position embeddings
#
# **Before this:** notebooks 01 (the picture cut into 15 patch tokens) and 02 (a split put back with `unsplit`).
#
# **Time:** about 55 minutes
#
# By the end you can
# 1. explain why attention cannot see the order of its tokens, and what that means for a model's prediction,
# 2. build the sinusoidal position table from its formula, and say why its similarities depend on distance only,
# 3. say what a learned position table is and how it starts,
# 4. say what the papers report about the kinds of table.
#
# After patch tokenization the picture is a list of 15 tokens, token 0 to token 14, read row by row. A
# transformer compares every token with every other through **attention**, which has no notion of where a token
# came from. A **position embedding** gives it one: one vector per place in the list, added to the token in
# that place.
#
# Notebook 04 builds attention in full; a sketch of it is enough here, and section 1 gives one. What a table
# looks like once a model has learned it comes after training, in notebook 12. The **Evidence** sections at the
# end hold the details and the checks behind the text.

# %%
import math

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import torch
import torch.nn.functional as F

import vitcourse
from vitcourse import check, load_mountains, plots, position, tokens
from vitcourse.models import VisionTransformer


def num(x: float | torch.Tensor, digits: int = 3) -> float:
    """x rounded for printing, with a zero always printed as 0, never -0 (the sign of a rounding error is noise)."""
    return round(float(x), digits) + 0.0


torch.manual_seed(0)
device = vitcourse.get_device()
picture = load_mountains()
image = vitcourse.to_tensor(picture)  # (1, 1, H, W)
_, C, H, W = image.shape
P = 20
grid = tokens.count_tokens(H, W, P, P, 0)
print(f"picture {H} x {W}, patches of {P}: {grid.rows} x {grid.cols} = {grid.total} tokens")

# %% [markdown]
# ## 1. Order is invisible to attention (16 min)
#
# Take the 15 patch tokens, shuffle their order with a fixed seed, and put them back on the grid in the new
# order. To a person the result is obviously broken. The numbers say which original patch landed where; a patch's
# number is the index of its token, counted from 0 as Python counts.

# %% mystnb={"image": {"alt": "The picture cut into 15 patches, and beside it the same picture with its 15 patches shuffled; each shuffled patch is labelled with the number of the original patch it shows"}}
patches = tokens.patchify(image, P)  # (1, N, P*P)
perm = torch.randperm(grid.total, generator=torch.Generator().manual_seed(3))
scrambled = tokens.unsplit(patches[:, perm], H, W, P, P, 0)  # (1, 1, H, W): token i of it is patch perm[i]
print("original patch now in each place:", perm.tolist())

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 3.6))
plots.show_picture(picture, ax=ax1, title="original", colorbar=False)
plots.draw_patch_grid(ax1, H, W, P)
plots.show_picture(scrambled[0, 0], ax=ax2, title="patches scrambled (seed 3)")
plots.draw_patch_grid(ax2, H, W, P, numbers=perm.tolist())
plt.show()

# %% [markdown]
# ### Attention in one paragraph
#
# Stack the N tokens, each of length D, as the rows of a matrix $X$ (N × D). Three weight matrices turn every
# token into a **query**, a **key** and a **value**: $Q = XW_q$, $K = XW_k$, $V = XW_v$. Token $i$'s output is
# a weighted average of all the values, $\text{out}_i = \sum_j a_{ij} v_j$. These $a_{ij}$ are the **attention
# weights** (not to be confused with the weight matrices). Row $i$ of them is a **softmax** of the scores of
# query $i$ against every key: it turns any scores into positive numbers that sum to 1, the largest score
# getting the largest attention weight.
#
# $$a_{ij} = \frac{\exp(q_i \cdot k_j / \sqrt{d_k})}{\sum_{j'} \exp(q_i \cdot k_{j'} / \sqrt{d_k})},
# \qquad A = \text{softmax}_\text{rows}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right), \qquad \text{out} = AV.$$
#
# Here $d_k$ is the length of a query; notebook 04 explains the $\sqrt{d_k}$.

# %% [markdown]
# ### Exercise 1 (predict, then write)
#
# Reorder the tokens: new token `r` is old token `perm[r]`. Each token keeps its own query, key and value.
#
# Call $A'$ the attention weights of the reordered tokens. Warm up on paper (not checked): if `perm` starts
# `[1, 2, 0, ...]` and leaves the other tokens in place, which old entry does $A'_{0,1}$ equal?
#
# Then predict $A'$ for any reordering, from the old attention weights $A$ alone, without running attention.
# Write the prediction as `predict_weights(weights, perm)`: `weights` is the (N, N) tensor $A$, queries as rows
# and keys as columns; `perm` is a tensor of N indices.


# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "permuted_weights_function-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
def predict_weights(weights: torch.Tensor, perm: torch.Tensor) -> torch.Tensor:
    ### BEGIN SOLUTION
    return weights[perm][:, perm]  # (N, N): rows (queries) and columns (keys) both move
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "permuted_weights_function-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.permuted_weights_function(predict_weights)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "permuted_weights_function-test", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.permuted_weights_function, predict_weights)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 1

# %% [markdown]
# Reorder the tokens with a permutation: new token $r$ is old token $\pi(r)$. With the permutation matrix $\Pi$,
# whose row $r$ is the unit vector $e_{\pi(r)}$, that is $X' = \Pi X$. Then
#
# 1. $Q' = \Pi Q$, $K' = \Pi K$, $V' = \Pi V$: each token keeps its own query, key and value.
# 2. $Q'K'^\top = \Pi\, QK^\top\, \Pi^\top$: entry $(r, c)$ is the old entry $(\pi(r), \pi(c))$. Rows *and*
#    columns are reordered.
# 3. The softmax acts on each row alone, and reordering a row's entries reorders its softmax the same way. So
#    $A' = \Pi A \Pi^\top$.
# 4. $\text{out}' = A'V' = \Pi A \Pi^\top \Pi V = \Pi A V = \Pi\,\text{out}$, because $\Pi^\top\Pi = I$:
#    $\Pi^\top$ puts back the order that $\Pi$ changed.
#
# The outputs are the old outputs in the new order: attention is **permutation-equivariant**. Nothing in it can
# tell which token came from the top-left corner.

# %% [markdown]
# #### The proof, on the picture's tokens
#
# The demo uses a **layer norm**, which notebook 06 builds. At its core it subtracts each token's own mean and
# divides by its own standard deviation. Here it puts every token on the same scale, whatever the brightness
# of its patch.
#
# The picture's 15 layer-normed tokens get random query, key and value matrices of width 16. Then tokens 0 and 2,
# the top-left patch and the one two places to its right, trade places. In the figure, rows are queries and
# columns are keys; red marks the two tokens that move. The right panel shows what the proof says is zero.

# %% mystnb={"image": {"alt": "Three 15 by 15 heat maps of attention weights, query token by key token: the weights in picture order, the weights after tokens 0 and 2 trade places, in which rows 0 and 2 and columns 0 and 2 have traded places, and their difference from the reordered old weights, black everywhere"}}
patch_tokens = patches[0]  # (15, 400): the tokens this demo uses
# (15, 400): each token with mean 0 and variance 1, except a patch of one shade only, which becomes all zeros
x = F.layer_norm(patch_tokens, (P * P,))
one_shade = [t for t in range(grid.total) if patch_tokens[t].unique().numel() == 1]  # patch (token) indices
print("patches of one shade only:", one_shade)
gen = torch.Generator().manual_seed(0)
d_k = 16
w_q, w_k, w_v = (
    torch.randn(P * P, d_k, generator=gen) / math.sqrt(P * P) for _ in range(3)
)  # (400, 16) each


def attend(tokens_in: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Single-head attention of (N, 400) tokens with the weights above: returns (weights (N, N), out (N, 16))."""
    q, k, v = tokens_in @ w_q, tokens_in @ w_k, tokens_in @ w_v  # (N, 16) each
    a = torch.softmax(q @ k.T / math.sqrt(d_k), dim=-1)  # (N, N)
    return a, a @ v


swap = torch.tensor([2, 1, 0] + list(range(3, grid.total)))  # tokens 0 and 2 trade places
a, out = attend(x)
a_swapped, out_swapped = attend(x[swap])
print(f"weights {tuple(a.shape)}, output {tuple(out.shape)}")
print(
    "after the swap, weights = old weights with rows and columns 0, 2 swapped:",
    torch.allclose(a_swapped, a[swap][:, swap], atol=1e-6),
)
print(
    "after the swap, output  = old output with rows 0, 2 swapped:          ",
    torch.allclose(out_swapped, out[swap], atol=1e-6),
)
change = (a[:, 0] - a[:, 2]).abs()  # (15,): how much row r changes when its entries 0 and 2 trade places
print("change in each row r other than 0 and 2, |a[r, 0] - a[r, 2]|:")
print({r: num(change[r]) for r in [1, *range(3, grid.total)]})
assert torch.allclose(a_swapped, a[swap][:, swap], atol=1e-6) and torch.allclose(
    out_swapped, out[swap], atol=1e-6
)

residual = (a_swapped - a[swap][:, swap]).abs()  # (15, 15): what the proof says is zero
print(
    f"every |swapped weights - old weights with rows and columns 0, 2 swapped| below 1e-6: {residual.max() < 1e-6}"
)
plots.show_swapped_weights(a, a_swapped, residual, marked=(0, 2))
plt.show()

# %% [markdown]
# In the middle panel rows 0 and 2 have traded places, and so have columns 0 and 2. The right panel is black;
# the printout is more precise than its colours: the new attention weights are the old ones reordered, to within rounding
# (below 1e-6). In any other row $r$ only entries 0 and 2 change:
# they trade values, so each moves by $|a_{r,0} - a_{r,2}|$, printed above. A patch of one shade only
# (printed) gives a flat row of weights. Its layer-normed token is all zeros, so its query is zero, every score
# is 0, and the softmax of equal scores is uniform.
# The article series makes the same point with integer matrices:
# [its demo, redone](#Evidence:-the-article-series-demo-of-permutation).

# %% [markdown]
# ### What it means for a whole model
#
# A ViT puts one extra learned token in front of the patch tokens, the **prediction token**; most code calls it
# the **class token**. Its output alone becomes the prediction. The cell below uses a small ViT with random
# weights (notebook 06 builds its parts, notebook 07 the whole). Besides attention it has layer norms and an
# **MLP**, a small network. Both act on each token alone, so the whole stack of these layers is permutation-equivariant
# too: reorder its input tokens, and its outputs come out reordered the same way.
#
# Each patch becomes its token on its own, so scrambling the patches on their grid only reorders the patch
# tokens. The prediction token stays in front, so its output stays the same. Without a position
# embedding, a model gives **the same prediction for the picture and for its scrambled version**. With a learned
# position embedding the two differ. The cell prints both outputs and their difference: rounding error
# without a position embedding, far above it with a learned one at its random start. That difference is small,
# since the table starts as small random numbers (section 3), but not zero: the order is now visible, and
# training decides how much the model uses it.

# %%
torch.manual_seed(0)
# embed_dim: token length D after the projection; depth: how many attention-and-MLP layers are stacked;
# num_heads: how many attentions run side by side in each layer (notebook 05)
settings = dict(img_size=(H, W), patch_size=P, in_chans=C, num_classes=1, embed_dim=64, depth=2, num_heads=4)
blind = VisionTransformer(pos_embed="none", **settings).to(device).eval()
seeing = VisionTransformer(pos_embed="learned", **settings).to(device).eval()
# load every weight of the blind model into the seeing one; strict=False allows "missing keys", weights the
# blind model lacks (here the position embedding, which keeps its own initial values)
keys = seeing.load_state_dict(blind.state_dict(), strict=False)
print(f"weights not copied: missing {keys.missing_keys}, unexpected {keys.unexpected_keys}")
assert keys.missing_keys == ["pos_embed"] and keys.unexpected_keys == []
with torch.no_grad():
    both = torch.cat([image, scrambled]).to(device)  # (2, 1, H, W)
    blind_out = blind(both).cpu()  # (2, 1)
    seeing_out = seeing(both).cpu()
blind_same = torch.allclose(blind_out[0], blind_out[1], rtol=0, atol=1e-6)
seeing_same = torch.allclose(seeing_out[0], seeing_out[1], rtol=0, atol=1e-6)
for name, out in (("no position embedding:     ", blind_out), ("learned position embedding:", seeing_out)):
    print(
        f"{name} picture {out[0].item():+.6f}, scrambled {out[1].item():+.6f}, "
        f"difference {(out[0] - out[1]).abs().item():.1e}"
    )
print(f"same prediction for both pictures (within 1e-6): no embedding {blind_same}, learned {seeing_same}")
assert blind_same and not seeing_same


# %% [markdown]
# ## 2. The sinusoidal table (28 min)
#
# This section uses two tables: the picture's own, 15 × 400, one row per patch token (slot $p$ is patch $p$), and
# for the figures a larger one, 176 × 768, because 15 slots are too few to show the slow waves.
#
# The original Transformer (Vaswani et al., 2017, "Attention Is All You Need", Section 3.5) uses a fixed table,
# and T2T-ViT does too. It has one row per place in the list of tokens; we call such a row a **slot**. For slot
# $i$ and entry $j$ of a token of length $d$:
#
# $$PE_{i, j} = \begin{cases} \sin\left(i \,/\, 10000^{2\lfloor j/2 \rfloor / d}\right) & j \text{ even} \\
# \cos\left(i \,/\, 10000^{2\lfloor j/2 \rfloor / d}\right) & j \text{ odd} \end{cases}$$
#
# Each pair of columns $(2m, 2m+1)$ is a sine and a cosine of the same frequency $\omega_m = 10000^{-2m/d}$.
#
# **Notation.**
# - $\omega_m$ is an angle per slot, in radians: from one slot to the next, pair $m$ turns by $\omega_m$. It
#   falls from 1 for pair 0 towards $1/10000$ for the last pair.
# - One full wave takes $2\pi/\omega_m$ slots, the pair's **wavelength**: from $2\pi$ slots towards
#   $2\pi \times 10000$.
# - $d$ is the length of the tokens the table is added to: $D$ in a ViT, 400 on our raw patch tokens.
# A worked example: for tokens of length $d = 400$, pair $m = 100$ has $\omega_{100} = 10000^{-200/400} =
# 1/100$. So column 200 holds $\sin(i/100)$ and column 201 holds $\cos(i/100)$; at slot 3, $\cos(0.03)$.

# %% [markdown]
# ### The table, built
#
# Here is the whole table by hand, one entry at a time, beside the package's version:


# %%
def table_by_hand(n: int, d: int) -> torch.Tensor:
    """The (n, d) sinusoidal table, one entry at a time."""
    pe = torch.zeros(n, d)
    for i in range(n):
        for j in range(d):
            angle = i / 10000 ** (2 * (j // 2) / d)
            pe[i, j] = math.sin(angle) if j % 2 == 0 else math.cos(angle)
    return pe


small = table_by_hand(grid.total, P * P)  # (15, 400): one row per patch token
from_package = position.sinusoidal_table(grid.total, P * P)
print(
    f"by hand {tuple(small.shape)}, vitcourse {tuple(from_package.shape)}, "
    f"equal within 1e-6: {torch.allclose(small, from_package, atol=1e-6)}"
)
assert torch.allclose(small, from_package, atol=1e-6)
print(
    f"the worked example, d = 400: column 201 at slot 3 = {small[3, 201]:.6f}; cos(0.03) = {math.cos(0.03):.6f}"
)
assert abs(small[3, 201] - math.cos(0.03)) < 1e-6

# %% [markdown]
# A real model needs one row per token plus one for the prediction token of section 1. In a model's table slot 0
# belongs to the prediction token, and patch $p$ sits in slot $p + 1$. The figure draws the table the article
# series draws for T2T-ViT: 175 tokens plus the prediction token, 176 rows of length 768 (notebook 09 counts
# the tokens). What to look at in each panel:
#
# - **Top left**, four pairs of columns as curves, a sine and a cosine each: the waves get longer from pair to
#   pair. Pair 0, columns 0 and 1, repeats every 6.3 slots (printed); a table has values at whole slots only, so
#   its curves look jagged.
# - **Top right**, a heat map of every 8th column from column 200 on, sines only (why 200:
#   [details](#Evidence:-details-left-out-of-the-text)): from left to right the waves slow down, until the last
#   columns stay near 0 over all 176 slots.
# - **Bottom**, every pair's wavelength, on a logarithmic scale. A pair above the lower dashed line, 175
#   slots, does not finish one wave between slot 0 and slot 175; a pair above the upper one, $2\pi \times 175$
#   slots, turns by less than one radian.

# %% mystnb={"image": {"alt": "The 176 by 768 sinusoidal table: eight columns drawn as sine and cosine curves over 64 token slots, a heat map of the sine columns from 200 on, every 8th, over all 176 slots, whose waves slow down from left to right, and below, the full width, the wavelength of each of the 384 pairs on a logarithmic scale, rising from about 6 slots, with dashed lines at 175 and 2 pi times 175 slots"}}
table = position.sinusoidal_table(175 + 1, 768)  # (176, 768): the T2T walk-through's 175 tokens + 1
columns = (0, 1, 100, 600)
for j in columns:
    omega = 10000 ** (-2 * (j // 2) / table.shape[1])
    print(
        f"column {j:3d}: {'sin' if j % 2 == 0 else 'cos'}, frequency {omega:.5f}, "
        f"one wave every {2 * math.pi / omega:,.1f} slots, largest |value| over the 176 slots {table[:, j].abs().max():.2f}"
    )

pairs_drawn = (0, 32, 64, 96)  # four pairs m: columns 2m (sine) and 2m + 1 (cosine)
step = 8  # the heat map draws every 8th column


first_heat_column = 200  # past this column the drawn columns stay in step: see the Evidence details
assert first_heat_column > 2 * pairs_drawn[-1] + 1  # the heat map starts past the curves' last column
fig = plt.figure(figsize=(13, 10))
layout = fig.add_gridspec(2, 2, height_ratios=(1.5, 1))
ax1, ax2 = fig.add_subplot(layout[0, 0]), fig.add_subplot(layout[0, 1])
ax4 = fig.add_subplot(layout[1, :])  # the wavelength panel, the full width
plots.show_sine_pairs(table, pairs_drawn, slots=64, ax=ax1)  # the first 64 slots
plots.show_table_columns(
    table,
    range(first_heat_column, table.shape[1], step),
    ax=ax2,
    title=f"all 176 slots, every 8th column from {first_heat_column} on\n(even columns: sines only)",
    ylabel="token slot i (row of the table)",
)
ax2.title.set_fontsize(10)
pair_index = np.arange(table.shape[1] // 2)  # (384,): the pairs m
ax4.semilogy(pair_index, 2 * np.pi * 10000 ** (2 * pair_index / table.shape[1]), color="k", lw=1.5)
for level, text in ((175, "175 slots"), (2 * np.pi * 175, "2 pi x 175 slots: one radian by slot 175")):
    ax4.axhline(level, color="tab:red", ls="--", lw=1)
    ax4.text(2, level * 1.25, text, color="tab:red", fontsize=8)
ax4.set_xlabel("pair m (columns 2m and 2m + 1)")
ax4.set_ylabel("wavelength 2 pi / omega_m (slots)")
ax4.set_title("wavelength of each of the 384 pairs")
ax4.set_xlim(0, len(pair_index) - 1)
ax4.xaxis.set_minor_locator(matplotlib.ticker.MultipleLocator(10))  # a minor tick every 10 pairs, to read m
ax4.grid(True, which="major", alpha=0.3)
ax4.grid(True, which="minor", axis="x", alpha=0.12)
fig.suptitle(f"sinusoidal table {table.shape[0]} x {table.shape[1]}, drawn column by column")
fig.tight_layout()
plt.show()

# %% [markdown]
# ### What the table offers: similarity depends on distance
#
# For one frequency, $\sin(i\omega)\sin(i'\omega) + \cos(i\omega)\cos(i'\omega) = \cos((i - i')\omega)$. Summed
# over the pairs, the dot product of two rows depends only on the distance $i - i'$ between the slots:
#
# $$PE_i \cdot PE_{i'} = \sum_{m} \cos\big((i - i')\,\omega_m\big).$$
#
# So the similarity of two slots changes with distance in the same way everywhere along the sequence. That holds
# for the rows themselves; inside attention a query and a key are tokens times $W_q$ and $W_k$, which need not
# keep it. Vaswani et al. chose the formula for a related reason: for a fixed offset $k$, $PE_{i+k}$ is a linear
# function of $PE_i$ (each pair is turned by the angle $k\omega_m$), which they hoped would let a model learn to
# attend by relative position: by how far apart two tokens are, not by where each one is.
#
# The **cosine similarity** keeps only the angle between two vectors:
#
# $$\cos(a, b) = \frac{a \cdot b}{\lVert a \rVert\, \lVert b \rVert} \in [-1, 1].$$
#
# It is 1 when $a$ and $b$ point the same way, 0 when they are orthogonal, and −1 when they point opposite ways.
# Every row of the sinusoidal table has the same norm, $\lVert PE_i \rVert = \sqrt{d/2}$, since each pair adds
# $\sin^2 + \cos^2 = 1$. So here the cosine similarity is the dot product divided by $d/2$.

# %% [markdown]
# ### Exercise 2 (predict, from the figure)
#
# Before the next cell: slots 0 and 175 are the two rows of the
# 176 × 768 table farthest apart (slot 0 is the prediction token's row). Use the sum above and the figure of
# the table, not a calculator.
#
# (a) Read the figure's wavelength panel: how many of the 384 pairs lie above its upper dashed line? Set
# `slow_pairs` to the count; the panel can be read to about 10 pairs.
#
# (b) Estimate $\cos(PE_0, PE_{175})$ from the sum above and your count. Decide which terms
# $\cos(175\,\omega_m)$ are close to 1 and which average out, and say to yourself why. Set `far_cosine` to
# your estimate; within 0.1 counts as right. The cell after the exercise prints the true value.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "far_slots_similarity-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
slow_pairs = None  # replace None with a whole number
far_cosine = None  # replace None with a number between -1 and 1
### BEGIN SOLUTION
# (a) The upper dashed line, 2 pi x 175 slots, crosses the wavelength curve at about m = 216, so
# 384 - 216 = 168 pairs lie above it. Their waves are far longer than 175 slots: by slot 175 they have turned by
# less than one radian, and in the heat map their sines rise slowly and never complete a wave.
# (b) The sum has one term cos(175 * omega_m) per pair. The 168 slow pairs' terms stay close to 1. The fast
# pairs have turned many times, so their terms take both signs and mostly cancel. The cosine similarity is the
# sum divided by 384: a little under 168 / 384 = 0.44, since the slow pairs nearest the line add less than 1.
slow_pairs = 168
far_cosine = 0.4
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "far_slots_similarity-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.slow_pairs_count(slow_pairs)
check.far_slots_similarity(far_cosine)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "slow_pairs_count-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.slow_pairs_count, slow_pairs)
### END HIDDEN TESTS

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "far_slots_similarity-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.far_slots_similarity, far_cosine)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 2

# %% [markdown]
# The cell checks that each of the 176 diagonals of the dot products is constant. It then splits the similarity
# of slots 0 and 175 into its slow and its fast pairs. In the heat map, look along the diagonals: each has one
# colour, brightest on the main diagonal and darker away from it. The fall is not quite steady: the smallest dot
# product (printed) is a little below that of slots 0 and 175 (printed beside it). None is negative.

# %% mystnb={"image": {"alt": "A 176 by 176 heat map of the dot products between the rows of the sinusoidal table, token slot by token slot: bright along the diagonal and constant along every diagonal"}}
dots = table @ table.T  # (176, 176)
n_slots = table.shape[0]
frequency_of_pair = 10000 ** (
    -2 * torch.arange(table.shape[1] // 2, dtype=torch.float64) / table.shape[1]
)  # (384,)
same_along_diagonals = all(
    torch.allclose(dots.diagonal(o), dots.diagonal(o)[:1].expand(n_slots - o), atol=1e-3)
    for o in range(n_slots)
)
print(f"dot products {tuple(dots.shape)}; each of the {n_slots} diagonals constant: {same_along_diagonals}")
print(
    f"PE_0 . PE_0 = {dots[0, 0]:.1f} (= d / 2 = {table.shape[1] // 2}), "
    f"PE_0 . PE_1 = {dots[0, 1]:.1f}, PE_0 . PE_50 = {dots[0, 50]:.1f}"
)
cosines = F.cosine_similarity(table[:1], table, dim=-1)  # (176,): cos(PE_0, PE_i)
print(
    f"cosine similarity: cos(PE_0, PE_1) = {cosines[1]:.3f}, cos(PE_0, PE_50) = {cosines[50]:.3f} "
    f"(the dot products divided by {table.shape[1] // 2})"
)
print(
    f"smallest dot product between two rows: {dots.min():.1f}; slots 0 and {n_slots - 1}: {dots[0, -1]:.1f}"
)
assert 0 < dots.min() < dots[0, -1]  # none negative, and the farthest pair is not the least alike
assert same_along_diagonals
assert torch.allclose(cosines, dots[0] / (table.shape[1] / 2), atol=1e-4)
far = n_slots - 1  # slot 175
pair_terms = torch.cos(far * frequency_of_pair)  # (384,): each pair's term cos(175 omega_m) in the sum
slow = far * frequency_of_pair < 1  # the pairs that have turned by less than a radian at slot 175
print(
    f"cos(PE_0, PE_{far}) = {cosines[far]:.3f} = (sum of the {len(pair_terms)} pair terms) / {len(pair_terms)}: "
    f"the {int(slow.sum())} slow pairs add {pair_terms[slow].sum() / len(pair_terms):.3f}, "
    f"the {int((~slow).sum())} fast ones {num(pair_terms[~slow].sum() / len(pair_terms)):.3f}"
)
assert abs(pair_terms.sum() / len(pair_terms) - cosines[far]) < 1e-4
assert 0.3 < cosines[far] < 0.5 and abs(pair_terms[~slow].sum()) < 0.2 * pair_terms[slow].sum()
ax = plots.show_matrix(
    dots,
    title="dot products of the rows of the sinusoidal table",
    xlabel="token slot i' (column of the matrix)",
    ylabel="token slot i (row of the matrix)",
    cmap="viridis",
    aspect="equal",
)
ax.images[0].colorbar.set_label("dot product")
plt.show()

# %% [markdown]
# ### A 1-D distance, added to the tokens

# %% [markdown]
# An explorer draws the table for any number of positions, token length and base:
# [more to try](#Evidence:-more-to-try:-the-position-explorer).
#
# The table's distance is a *1-D* notion. In the picture's 15-row table, slots 4 and 5 are neighbours. Yet patch
# 4, slot 4, ends the top row on the right, and patch 5, slot 5, starts the middle row on the left. The table
# does not know the patch grid; a model must learn what slot distance means in 2-D.
#
# The table is *added*: token $i$ becomes token $i$ plus row $i$ of the table. What that does to two nearly
# equal patches is in [adding the table to the tokens](#Evidence:-adding-the-table-to-the-tokens).

# %% [markdown]
# ### Exercise 3 (find the bug)
#
# A colleague wrote the table without a Python loop. It runs and has the right shape, but it differs from `table_by_hand`, and its dot products are no longer constant along the diagonals
# (printed). Find the bug, and say to yourself why it breaks the constant diagonals. Write the corrected function
# as `fixed_table(n, d)` in the cell below the printout, then run the check. Fix the colleague's tensor code and
# keep its names (`omega` among them): a rewrite, a function that loops over the entries, or one that calls
# `table_by_hand` or the package's table does not pass. The fix may be an indexing expression or a PyTorch
# tensor method for repeating entries.


# %%
def buggy_table(n: int, d: int) -> torch.Tensor:
    """The (n, d) sinusoidal table without a loop: a colleague's version, with one bug."""
    i = torch.arange(n, dtype=torch.float64)[:, None]  # (n, 1): the slots
    omega = 10000 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)  # (ceil(d / 2),): omega_m, pair m
    angle = i * omega.repeat(2)[:d]  # (n, d): each column's frequency, times the slot
    j = torch.arange(d)  # (d,): the entries
    return torch.where(j % 2 == 0, torch.sin(angle), torch.cos(angle)).float()


suspect = buggy_table(176, 768)  # (176, 768)
suspect_dots = suspect @ suspect.T  # (176, 176)
print(f"shape {tuple(suspect.shape)}, values from {suspect.min():.2f} to {suspect.max():.2f}")
print(f"15 x 400 version equal to table_by_hand: {torch.allclose(buggy_table(15, 400), small, atol=1e-6)}")
print(
    "its dot products constant along every diagonal:",
    all(
        torch.allclose(suspect_dots.diagonal(o), suspect_dots.diagonal(o)[:1].expand(176 - o), atol=1e-3)
        for o in range(176)
    ),
)


# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "sinusoidal_function-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
def fixed_table(n: int, d: int) -> torch.Tensor:
    ### BEGIN SOLUTION
    i = torch.arange(n, dtype=torch.float64)[:, None]  # (n, 1): the slots
    omega = 10000 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)  # (ceil(d / 2),): omega_m, pair m
    # the bug: repeat(2) lays the frequencies out as w0 w1 w2 ... w0 w1 w2 ..., so column j gets omega of
    # j mod (d / 2), and the sine and the cosine of one pair get two different frequencies. sin(i w) sin(i' w) +
    # cos(i v) cos(i' v) with w != v is no function of i - i' alone. repeat_interleave(2) gives w0 w0 w1 w1 ...:
    # both columns 2m and 2m + 1 get omega_m.
    angle = i * omega.repeat_interleave(2)[:d]  # (n, d)
    j = torch.arange(d)  # (d,): the entries
    return torch.where(j % 2 == 0, torch.sin(angle), torch.cos(angle)).float()
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "sinusoidal_function-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.sinusoidal_function(fixed_table)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "sinusoidal_function-test", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.sinusoidal_function, fixed_table)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 3

# %% [markdown]
# The two ways to lay out one frequency per pair, on three pairs: `repeat` tiles the list, `repeat_interleave`
# doubles each entry. Only the second gives a pair's sine and cosine the same frequency, and only then is each
# pair's term a function of the distance alone.

# %%
pairs_omega = torch.tensor([1.0, 0.1, 0.01], dtype=torch.float64)  # three pairs' frequencies
print(f"repeat(2):            {pairs_omega.repeat(2).tolist()}")
print(f"repeat_interleave(2): {pairs_omega.repeat_interleave(2).tolist()}")
fixed_dots = table_by_hand(176, 768) @ table_by_hand(176, 768).T  # (176, 176): the right table
offsets = (3, 100)
print(
    "right table, dot products along diagonals "
    + ", ".join(
        f"{o}: {fixed_dots.diagonal(o).min():.2f} to {fixed_dots.diagonal(o).max():.2f}" for o in offsets
    )
)
print(
    "buggy table, along the same diagonals "
    + ", ".join(
        f"{o}: {suspect_dots.diagonal(o).min():.2f} to {suspect_dots.diagonal(o).max():.2f}" for o in offsets
    )
)

# %% [markdown]
# ## 3. Learned position embeddings (7 min)
#
# ViT does not fix the table. It makes it a parameter $\mathbf{E}_\text{pos}$ of shape (N + 1) × D, one row per
# slot, and learns it with everything else. In code its shape is (1, N + 1, D): the leading 1 lets it add to a
# whole batch of pictures. Row 0 belongs to the prediction token. It is added to the tokens
# just as the sinusoidal table is (ViT's equation 1, in [details](#Evidence:-details-left-out-of-the-text)).
# Notebook 06 builds that step.
#
# It starts as small random numbers: ViT's official code draws them from a normal distribution with mean 0 and
# standard deviation 0.02. `vitcourse` also cuts off the draws beyond ±0.04, **our own choice**; how
# ViT's, timm's and our starts compare is in [details](#Evidence:-details-left-out-of-the-text).

# %%
torch.manual_seed(0)
learned = position.learned_position_embedding(grid.total + 1, 768)  # (1, 16, 768), ours: cut at +-0.04
print(
    f"learned table {tuple(learned.shape)}: std {learned.std().item():.4f}, "
    f"largest |value| {learned.abs().max().item():.4f}"
)

# %% [markdown]
# At the start the rows are random vectors, and random vectors of length 768 are nearly orthogonal: their cosine
# similarities are close to 0. Each small map below is one patch's similarity with every patch, drawn in that
# patch's place on the grid; the maps are numbered like the patches, from 0. The prediction token's row, row 0,
# has no place on the grid and is left out, so the map of patch $p$ is drawn from table row $p + 1$.

# %% mystnb={"image": {"alt": "A 3 by 5 grid of small maps, one per patch, each showing the cosine similarity of that patch's untrained position vector with every patch by patch row and patch column: 1 at the patch itself and close to 0 everywhere else"}}
sims = position.cosine_similarity_grid(learned, grid.rows, grid.cols)  # (3, 5, 3, 5): row 0 of the 16 dropped
off_diagonal = sims.reshape(grid.total, grid.total)[~torch.eye(grid.total, dtype=torch.bool)]
print(f"embedding {tuple(learned.shape)} -> similarity grid {tuple(sims.shape)} of the {grid.total} patches")
print(
    f"cosine similarity between different slots: mean {num(off_diagonal.mean()):.3f}, "
    f"largest |value| {off_diagonal.abs().max():.3f}"
)
plots.show_similarity_grid(
    sims, title="learned position embedding at its start: cosine similarity of each patch with all"
)
plt.show()

# %% [markdown]
# Nothing in such a start knows the patch grid: in the map of patch 7 its neighbours are no brighter than the far
# corners, and no two different slots are more alike than the largest |value| printed above. Whatever the rows come to hold, the model must put there itself. A learned table can also hold what a sinusoidal one
# cannot: it is not bound to depend on distance only. Notebook 12 reads the tables that small models learned on
# the picture's world, after notebook 10 has shown how a model learns.

# %% [markdown]
# ## 4. What the papers report (4 min)
#
# Does the kind of table matter?
#
# - The original Transformer (Vaswani et al., 2017) found that a learned and a sinusoidal table gave nearly
#   identical results (its Table 3, row E); the tables themselves differ. It kept
#   the sinusoids because a formula gives a row for any slot, which *may* let a model handle longer sequences
#   than it met.
# - The **ViT paper** (Dosovitskiy et al., 2021) compared no position embedding with three kinds. *1-D*: one row
#   per slot, as here. *2-D*: half of each row for the patch's grid row, half for its grid column. *Relative*:
#   terms inside attention that depend only on how far apart two patches are. Its test was ViT-B/16's ImageNet
#   5-shot linear accuracy: a linear classifier trained on 5 pictures per class on top of the unchanged model.
#   Each kind did better than none, and they differed little. ViT uses a learned 1-D table.
# - The **T2T-ViT paper** (Yuan et al., 2021) adds a fixed sinusoidal table; it compares no kinds.
#
# Of these three, only the ViT paper trained a model with no position embedding at all, as a control. See
# [the papers' words](#Evidence:-the-papers'-words).

# %% [markdown]
# ## Summary
#
# - Attention is permutation-equivariant: reordering the tokens reorders the outputs. A model that reads a
#   prediction token is then blind to the order of its tokens; for ViT, whose tokens are non-overlapping patches,
#   to the order of the patches.
# - A position embedding, one row per token slot added to the tokens, makes the order visible to the model.
# - In the sinusoidal table each pair of columns is a sine and a cosine of one frequency, so the dot product of
#   two rows depends only on their distance.
# - A learned table is a parameter, one row per slot; it starts as small random numbers, nearly orthogonal.
# - The original Transformer found that learned and sinusoidal tables gave nearly identical results; the ViT paper found every kind
#   it tried better than none, and the kinds close to one another.
#
# **Next:** [04 Attention](04_attention.ipynb) builds the attention sketched in section 1, step by step. What
# learned tables hold after training is in [12 Trained position tables](12_trained_position_tables.ipynb).

# %% [markdown]
# ## Evidence: the article series demo of permutation
#
# The "Vision Transformers Explained" article series by Skylar Jean Callis (see notebook 00), in its article
# "Position Embeddings for Vision Transformers, Explained", makes the point of section 1 on numbers instead of a
# picture. It draws $Q$, $K$ and $V$ as three separate random integer matrices of 4 tokens × 9 entries (values 1
# to 19, NumPy seed 21), swaps tokens 0 and 2 in each of them, and computes $QK^\top$ and then $(QK^\top)V$, with
# neither the softmax nor the scale (the attention formula it quotes names a scaling value $d_k$). That shows
# steps 2 and 4 of the proof, for attention without its softmax. What it leaves out:
#
# - **the softmax and the scale** (step 3): the demo never shows that a softmax over each row keeps the
#   reordering;
# - **where $Q$, $K$, $V$ come from** (step 1): it draws them independently and swaps each by hand, so it
#   assumes, rather than shows, that each token keeps its own query, key and value because one set of weights
#   acts on every token;
# - **what it means for a prediction**: the demo ends by saying it is not obvious why a reordered output does
#   not carry the position. Section 1's whole-model cell answers that for a model that reads one extra token.
#
# The course's demo covers the first two (picture tokens, shared $W_q, W_k, W_v$, the scale and the softmax).
# The cell below redoes the article's computation the way its code does it, then adds the scale and the softmax
# to the same integer matrices (our addition, not the article's): the reordering carries through them too.

# %%
rng = np.random.RandomState(21)  # the article's seed and generator (NumPy's legacy one)
q_int, k_int, v_int = (torch.from_numpy(rng.randint(1, 20, (4, 9))).double() for _ in range(3))  # (4, 9) each
order = [2, 1, 0, 3]  # tokens 0 and 2 trade places
scores_int, scores_int_swapped = q_int @ k_int.T, q_int[order] @ k_int[order].T  # (4, 4) each
out_int, out_int_swapped = scores_int @ v_int, scores_int_swapped @ v_int[order]  # (4, 9) each
qkv_int = torch.stack([q_int, k_int, v_int])  # (3, 4, 9)
print(
    f"Q, K, V {tuple(q_int.shape)} each, integers from {int(qkv_int.min())} to {int(qkv_int.max())} over all three"
)
print(
    "article: Q K^T of the swapped tokens = Q K^T with rows and columns 0, 2 swapped:",
    torch.equal(scores_int_swapped, scores_int[order][:, order]),
)
print(
    "article: (Q K^T) V of the swapped tokens = (Q K^T) V with rows 0, 2 swapped:    ",
    torch.equal(out_int_swapped, out_int[order]),
)
weights_int = torch.softmax(scores_int / math.sqrt(9), dim=-1)  # (4, 4): our addition
weights_int_swapped = torch.softmax(scores_int_swapped / math.sqrt(9), dim=-1)
print(
    "with scale and softmax added: weights reordered the same way:",
    torch.allclose(weights_int_swapped, weights_int[order][:, order]),
    "| output rows reordered:",
    torch.allclose(weights_int_swapped @ v_int[order], (weights_int @ v_int)[order]),
)
assert torch.equal(scores_int_swapped, scores_int[order][:, order]) and torch.equal(
    out_int_swapped, out_int[order]
)
assert torch.allclose(weights_int_swapped @ v_int[order], (weights_int @ v_int)[order])

# %% [markdown]
# ## Evidence: the papers' words
#
# - **"Attention Is All You Need"** (Vaswani et al., 2017, Section 3.5) also tried learned positional embeddings
#   and found that the two versions gave nearly identical results (its Table 3, row E). It chose the sinusoidal
#   version because it may let the model extrapolate to sequences longer than those it met while learning. The
#   article series quotes the same finding and adds that varying lengths are likely less of a concern for images.
# - The **ViT paper** compared no position embedding with 1-D learned, 2-D learned and relative embeddings
#   (Appendix D.4, Table 8: ViT-B/16, ImageNet 5-shot linear accuracy). All three kinds did better than none, and they differed little among
#   themselves. The paper speculates that at the patch level the grid is small (14 × 14 rather than 224 × 224
#   pixels), so the spatial layout is equally easy to learn whichever way positions are given. What its learned
#   tables hold (its Section 4.5 and Figure 7, centre) is the subject of notebook 12.
# - The **T2T-ViT paper** (Yuan et al., 2021, Section 3.2, the T2T-ViT backbone) adds a position embedding $E$ to
#   the prediction token and the T2T tokens, $[t_\text{cls}; T_f] + E$, and names $E$ a sinusoidal position
#   embedding. The official code (`models/t2t_vit.py`) stores it as a parameter that does not train:
#   `self.pos_embed = nn.Parameter(data=get_sinusoid_encoding(n_position=num_patches + 1, d_hid=embed_dim),
#   requires_grad=False)`. So a sinusoidal table adds no *trainable* numbers: `model.parameters()` still counts it,
#   but the optimiser never changes it.
# - The **prediction token** is what most papers and code call the **class token**, from a language model called BERT
#   whose first token is `[CLS]`; `cls_token` in the code of timm, of the article series and of `vitcourse`.

# %% [markdown]
# ## Evidence: adding the table to the tokens
#
# The table is *added*: token $i$ becomes token $i$ plus row $i$ of the table. Here the 15 × 400 table goes onto
# the picture's raw tokens; in a model it goes onto the projected tokens.
#
# The cell finds the two patches whose pixels are the most alike. After the addition they also differ by their
# two table rows, and here that difference is most of their distance (printed). That holds for raw pixels in
# [0, 1] and a table of values in [−1, 1]; a learned table starts far smaller (standard deviation about 0.02, section 3),
# so in a model the balance can differ. The heat maps draw the first 100 entries of each token, and red
# marks the two. The table and the sum share one colour scale from −1 to 2 with 0 white, so blue reaches its
# darkest at −1 and red at 2. The table's vertical stripes are its sine and cosine columns, side by side. Below:
# their difference over all 400 entries, before and after the addition.

# %% mystnb={"image": {"alt": "Heat maps of the first 100 entries of the 15 patch tokens, of the 15 by 400 sinusoidal table and of their sum, token index by entry, the two most alike tokens marked in red; below, the difference between those two tokens entry by entry, near zero before the table is added and large after"}}
raw = patches[0]  # (15, 400)
with_position = raw + from_package  # (15, 400)
pixel_distance = torch.cdist(raw, raw) + torch.diag(
    torch.full((grid.total,), math.inf)
)  # (15, 15), self excluded
first, second = sorted(divmod(int(pixel_distance.argmin()), grid.total))  # the two most alike patches
before = (raw[first] - raw[second]).norm()
after = (with_position[first] - with_position[second]).norm()
rows_apart = (from_package[first] - from_package[second]).norm()
print(f"tokens {tuple(raw.shape)} + table {tuple(from_package.shape)} -> {tuple(with_position.shape)}")
print(
    f"pixels from {num(raw.min(), 2):.2f} to {raw.max():.2f}; tokens + table from {num(with_position.min(), 2):.2f} "
    f"to {with_position.max():.2f}"
)
differing = int((raw[first] != raw[second]).sum())
print(f"most alike: patches {first} and {second}; {differing} of {P * P} pixels differ")
print(
    f"distance between their tokens: {before:.2f} before, {after:.2f} after adding the table; "
    f"the two table rows alone: {rows_apart:.2f}"
)
assert after > before and rows_apart > 0.9 * after  # the distance after is mostly the table rows' distance
sum_range = (-1.0, 2.0)  # one colour scale for the table and the sum, 0 white
assert sum_range[0] <= with_position.min() and with_position.max() <= sum_range[1]

shown_entries = range(100)  # the top five pixel rows of each 20 x 20 patch
fig = plt.figure(figsize=(14, 7.4))
heat = [fig.add_subplot(2, 3, k) for k in (1, 2, 3)]
for ax, values, name, (low, high), cmap, label in (
    (heat[0], raw, "patch tokens (pixels)", (0, 1), plots.CMAP, "pixel value"),
    (heat[1], from_package, "sinusoidal table 15 x 400", sum_range, "RdBu_r", "value"),
    (heat[2], with_position, "tokens + table", sum_range, "RdBu_r", "value"),
):
    plots.show_table_columns(
        values,
        shown_entries,
        ax=ax,
        title=name,
        ylabel="token index (= patch number)",
        vmin=low,
        vmax=high,
        cmap=cmap,
        label=label,
    )
    ax.set_yticks(range(grid.total))
    tick_labels = ax.set_yticklabels([str(t) for t in range(grid.total)], fontsize=7)
    limits = ax.get_xlim(), ax.get_ylim()
    left = limits[0][0] - 2 if values is raw else limits[0][0]  # pixel panel: room for rings at entry 0
    for t in (first, second):  # mark the two most alike tokens beside their rows, not over them
        tick_labels[t].set_color("red")
        tick_labels[t].set_fontweight("bold")
        ax.plot(left - 3.5, t, ">", color="red", ms=6, clip_on=False)
    if values is raw:  # ring the pixels in which the two differ (those among the entries drawn)
        for e in (raw[first, : len(shown_entries)] != raw[second, : len(shown_entries)]).nonzero().flatten():
            ax.plot([e, e], [first, second], "o", ms=9, mfc="none", mec="red", mew=1.5, clip_on=False)
    ax.set_xlim(left, limits[0][1])
    ax.set_ylim(limits[1])
ax4 = fig.add_subplot(2, 1, 2)
entries = torch.arange(P * P)
after_difference = with_position[first] - with_position[second]  # (400,)
for parity, style in ((0, "-"), (1, "--")):
    kind = "sine" if parity == 0 else "cosine"
    ax4.plot(
        entries[parity::2],
        after_difference[parity::2],
        style,
        color="tab:red",
        lw=1.2,
        label=f"after adding the table, {kind} entries",
    )
ax4.plot(entries, raw[first] - raw[second], "-", color="k", lw=1.2, label="before (pixels only), every entry")
ax4.axhline(0, color="grey", lw=0.6)
ax4.set_xlabel("entry j of the token (all 400)")
ax4.set_ylabel(f"token {first} - token {second}")
ax4.set_title(f"difference between the tokens of patches {first} and {second} (marked above)")
ax4.legend(loc="upper right", fontsize=8)
fig.suptitle(
    "adding the sinusoidal table to the picture's tokens (first 100 of the 400 entries in the heat maps)"
)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## Evidence: more to try: the position explorer
#
# The explorer below draws the table for any number of positions (rows, the slots of section 2), token length
# $d$ and base, the formula's 10000. It draws one pair of columns as curves, and the similarity of one position
# to all. It needs a running kernel.
#
# **Predict first, from the formula, then play**, with $d = 768$ unless said otherwise:
# - Which is the first pair whose wave is longer than 175 positions?
# - With base 100, is position $i + 1$ more or less like position $i$ than with 10000? Why?

# %% mystnb={"image": {"alt": "The position-embedding explorer: the sinusoidal table as a heat map with the chosen pair of columns and position marked, that pair drawn as sine and cosine curves, and the cosine similarity of the chosen position to every position"}}
from vitcourse import widgets

widgets.position_explorer()

# %% [markdown]
# ### After playing

# %% [markdown]
# The cell below answers from the formula, then prints the explorer's summary line for each setting asked about.

# %%
growth = 10000 ** (2 / 768)  # wavelength of pair m + 1 over that of pair m, at d = 768
first_long = next(m for m in range(384) if 2 * math.pi * 10000 ** (2 * m / 768) > 175)
print(f"d = 768: each pair's wave is {growth:.4f} times as long as the pair before")
print(f"first pair whose wave is longer than 175 positions: m = {first_long}")
for setting in [
    {"pair": first_long - 1},
    {"pair": first_long},
    {"pair": 200},
    {"dim": 400},
    {"base": 100.0},
    {"num_tokens": 15, "dim": 400, "position": 4},
]:
    print(setting, "->", widgets.position_view(**setting)[1])
assert "repeat every 26.5 positions" in widgets.position_view()[1]  # pair 60 (the explorer's default)
assert widgets.position_view(num_tokens=5, position=7)[0] is None  # no row 7 in a 5-row table

# %% [markdown]
# A smaller base makes every wave but pair 0's shorter, so neighbouring positions drift apart faster: with base 100, position
# 11 is less like position 10 than with 10000 (printed).

# %% [markdown]
# ## Evidence: details left out of the text
#
# - **The layer norm of section 1** divides by $\sqrt{\text{variance} + \epsilon}$, with a small $\epsilon$, so
#   that it never divides by 0. Notebook 06 adds the layer norm's learned scale and shift.
# - **The T2T walk-through**: T2T-ViT projects its tokens to a length $D$ of 256 to 512 in the T2T-ViT paper's
#   named models, and 768 in the official code's default and in the article series' walk-through. The series'
#   400 × 100 input is a random single-channel array standing in for a rectangular grayscale image, not a picture;
#   notebook 09 repeats that walk-through. The ViT paper's model names: B for Base, L for Large, H for Huge.
# - **The heat map of the table**: two drawn neighbours, 8 columns apart, have slightly different frequencies.
#   Where the waves are short, they drift more than a quarter wave apart by the last slot, and the heat map fills
#   with fringes (moiré): the table's own bands, made far worse by drawing only every 8th column. The heat map
#   starts at the first drawn column whose drift stays within a quarter wave (computed at the end of this
#   section), just past the left panel's last pair; all its drawn columns are sines, since every 8th column is
#   even. Column 600 (printed with columns 0, 1 and 100 above the figure) has so low a frequency that over all
#   176 slots it stays within the small largest value printed for it.
# - **The explorer**: above $d = 256$ its table shows only the sine columns, since hundreds of alternating sine and
#   cosine columns cannot be drawn at that size without false stripes. Its curve panels end their axes at a round
#   number at or past the last position (the grey band holds no positions), so they do not jump while the number
#   of positions is dragged. It
#   opens on pair 60, whose wavelength its text line prints. On its table, yellow dashed lines mark columns $2m$
#   and $2m + 1$, and a green one position $i$.
# - **Adding the table to the tokens**: before the addition no two tokens are closer than the two most alike;
#   the cell counts how many of their 400 pixels differ. The heat maps draw the first 100 entries of each token,
#   the top five pixel rows of its patch, each entry as its own cell: the raw tokens on the picture's grey scale
#   from 0 to 1, the table and the sum on $[-1, 2]$ with 0 white, so that the table's negative values show in
#   blue. The two halves of that colour bar have the same length but not the same range: full blue is −1, full
#   red is 2. Red rings in the pixel panel circle the pixels in which the two most alike tokens differ. In the panel
#   below, the table's sine (even) and cosine (odd) entries are drawn as two curves, since they alternate entry by
#   entry. In a model the table goes onto the projected tokens of length $D$, with one more row for the
#   prediction token.
# - **ViT's equation 1** adds the learned table to the prediction token and the projected patches:
#
#   $$\mathbf{z}_0 = [\mathbf{x}_\text{class};\, \mathbf{x}_p^1\mathbf{E};\, \dots;\, \mathbf{x}_p^N\mathbf{E}]
#   + \mathbf{E}_\text{pos}, \qquad \mathbf{E}_\text{pos} \in \mathbb{R}^{(N+1) \times D}.$$
#
#   $\mathbf{x}_\text{class}$ is the prediction token, which gets row 0 of $\mathbf{E}_\text{pos}$;
#   $\mathbf{x}_p^i$ is patch $i$ flattened to a row of $P^2 C$ pixels (the paper counts from 1, so its
#   $\mathbf{x}_p^1$ is the course's patch 0), and $\mathbf{E}$ is a $P^2 C \times D$
#   matrix, the `nn.Linear` of notebook 01 that turns each flattened patch into a token.
# - **How a learned table starts**: ViT's official code uses
#   `AddPositionEmbs(posemb_init=nn.initializers.normal(stddev=0.02))` in `vit_jax/models_vit.py`, with no
#   truncation. timm calls `trunc_normal_(pos_embed, std=.02)`, whose bounds are absolute values, −2 and 2 by
#   default: so many standard deviations out (printed below) that in effect nothing is cut. `vitcourse` cuts at
#   ±0.04, two standard deviations. Cutting drops the draws farthest from 0 (their share is printed below), the
#   ones that add most to the spread, so the standard deviation falls from 0.02 to about 0.0176 (measured below).
#   The course has not measured whether this cut changes what training finds.

# %% [markdown]
# The heat map's first column, found from its rule: drawn neighbours, 8 columns apart, may drift at most a
# quarter wave apart by the last slot.


# %%
def frequency(j: int) -> float:
    """The frequency of column j of the 176 x 768 table."""
    return 10000 ** (-2 * (j // 2) / table.shape[1])


def drift(j: int) -> float:
    """How far drawn columns j and j + step get out of step by the last slot, in waves."""
    return (table.shape[0] - 1) * (frequency(j) - frequency(j + step)) / (2 * math.pi)


first_within = next(j for j in range(0, table.shape[1], step) if drift(j) <= 0.25)
print(
    f"first drawn column within a quarter wave: {first_within}, wavelength "
    f"{2 * math.pi / frequency(first_within):.1f} slots, drift {drift(first_within):.3f} of a wave by slot "
    f"{table.shape[0] - 1}; column {first_within - step} drifts {drift(first_within - step):.3f}"
)
assert first_within == first_heat_column


# %% [markdown]
# The three starts of a learned table, measured on section 3's 16 × 768 table:

# %%
torch.manual_seed(0)
ours = position.learned_position_embedding(grid.total + 1, 768)  # (1, 16, 768): section 3's table again
plain = torch.empty(1, grid.total + 1, 768).normal_(std=0.02)  # ViT's official start
timm_like = torch.nn.init.trunc_normal_(torch.empty(1, grid.total + 1, 768), std=0.02)  # bounds -2, 2
assert torch.equal(ours, learned)
for name, t in (
    ("vitcourse (cut at +-0.04)", ours),
    ("normal, std 0.02 (ViT)", plain),
    ("trunc_normal_(std=0.02) (timm)", timm_like),
):
    print(
        f"{name:31s} shape {tuple(t.shape)}, std {t.std().item():.4f}, largest |value| {t.abs().max().item():.4f}"
    )
print(f"timm's bound 2 is {2 / 0.02:.0f} standard deviations of 0.02 out")
print(
    f"share of ViT's draws beyond +-0.04: {(plain.abs() > 0.04).float().mean():.3f}; "
    f"ViT's draws with those removed: std {plain[plain.abs() <= 0.04].std():.4f}"
)

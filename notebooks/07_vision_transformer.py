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
# # 07 · The whole Vision Transformer
#
# **Time:** about 50 minutes
#
# **Before this:** [notebook 06](06_encoder_block.ipynb), which builds the tokens and the encoder block.
#
# Notebook 06 built the first two of ViT's three steps: token processing and the encoder blocks. This notebook
# adds the third, prediction processing, runs the whole model on the picture, and counts what it costs.
#
# By the end you can
# 1. turn the last block's tokens into a prediction, with the prediction token or with mean pooling, and find
#    the bug in someone else's pooling,
# 2. run the whole ViT on the picture and follow the shape at every step,
# 3. say how a fresh ViT's weights start, and work out what a fresh block's attention does with a token of
#    zeros,
# 4. count what one encoder block costs, and say when attention's $N^2$ products outweigh its linear layers.

# %%
import copy

import matplotlib.pyplot as plt
import torch
from matplotlib.ticker import MaxNLocator
from torch import nn

import vitcourse
from vitcourse import check, load_mountains, plots
from vitcourse.blocks import EncoderBlock
from vitcourse.cost import count_macs
from vitcourse.models import VisionTransformer, count_parameters, create_model

torch.manual_seed(0)
device = vitcourse.get_device()
picture = load_mountains()
image = vitcourse.to_tensor(picture).to(device)  # (1, 1, 60, 100)
# notebook 06's picture model: D = 64, 2 blocks of 4 heads, MLP ratio 4, 15 patches of 20 x 20, one output
vit = VisionTransformer(embed_dim=64, depth=2, num_heads=4).to(device).eval()

# %% [markdown]
# ## 1. Prediction processing (14 min)
#
# After the last block come a final layer norm, equation (4), and an output layer (the paper's *head*) on
# token 0 only. The code normalises every token, the paper only $\mathbf z_L^0$; LayerNorm works on each token
# by itself, so the two agree on token 0. The article series predicts a single number, "a single estimated
# regression value" on its random example inputs, so its output layer has one output. A classifier for *ImageNet*, the standard benchmark of about 1.3 million photos in 1000 classes,
# has 1000 outputs.
#
# The cell uses notebook 06's walk-through sizes: N = 175 patch tokens of length D = 768, ViT-Base's width, so
# that the output layer has a real classifier's sizes. Random numbers stand in for the tokens, 176 of them: row 0
# plays the prediction token, in front of the 175 patch tokens. They pass through one encoder block of 12
# attention heads; the batch holds 2 items instead of 13.

# %%
batch, n_tokens, D = 2, 175, 768
tokens_in = torch.randn(batch, n_tokens + 1, D, generator=torch.Generator().manual_seed(1)).to(device)
block = EncoderBlock(D, num_heads=12, mlp_ratio=4.0).to(device).eval()
norm = nn.LayerNorm(D, eps=1e-6).to(device)
with torch.no_grad():
    z_out = block(tokens_in)  # (B, N + 1, D): the last block's output
    features = norm(z_out)  # (B, N + 1, D)
    pred_token = features[:, 0]  # (2, D): y of equation (4)
    single = nn.Linear(D, 1).to(device)(pred_token)  # (2, 1)
    classes = nn.Linear(D, 1000).to(device)(pred_token)  # (2, 1000)
print(f"norm {tuple(features.shape)} -> token 0 {tuple(pred_token.shape)}")
print(f"-> output layer: {tuple(single.shape)} (one value) or {tuple(classes.shape)} (1000 classes)")

# %% [markdown]
# The ViT paper does not always use this single linear layer: at one stage of its recipe the output layer has a hidden
# layer ([the paper's two heads](#Evidence:-the-paper's-two-heads)).
#
# The other common way to read the prediction off the tokens is **mean pooling**: the output layer reads the average of the patch tokens instead of
# token 0. The ViT paper's Appendix D.3 found both about equally good once each had its own learning rate.

# %% [markdown]
# ### Exercise 1 (find the bug)
#
# This mean pooling takes the final features (B, N + 1, D), where token 0 is the
# prediction token and tokens 1 to N are the N patch tokens, and returns (B, D). It runs and gives the right
# shape, but its numbers are wrong. Write the corrected version as `my_mean_pool`. Then, for the picture's
# N = 15 patches: by what factor is every number of the buggy result off, buggy divided by right? Set
# `answer_pool_factor` to that number.


# %%
def buggy_mean_pool(features: torch.Tensor) -> torch.Tensor:
    return features[:, 1:].sum(dim=1) / features.shape[1]  # (B, D)


# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "mean_pool_function-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
def my_mean_pool(features: torch.Tensor) -> torch.Tensor:
    ### BEGIN SOLUTION
    # The bug: the sum runs over the N patch tokens, but it is divided by N + 1, the count with token 0.
    return features[:, 1:].mean(dim=1)  # (B, D): the patch tokens only, averaged over the tokens
    ### END SOLUTION


answer_pool_factor = None  # replace None with a number
### BEGIN SOLUTION
# buggy / right = (sum / (N + 1)) / (sum / N) = N / (N + 1) = 15 / 16, whatever the features hold.
answer_pool_factor = 15 / 16
### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "mean_pool_function-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.mean_pool_function(my_mean_pool)
check.mean_pool_factor(answer_pool_factor)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "mean_pool_function-test", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.mean_pool_function, my_mean_pool)
### END HIDDEN TESTS

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "mean_pool_factor-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.mean_pool_factor, answer_pool_factor)
### END HIDDEN TESTS

# %% [markdown]
# ## 2. The whole ViT on the picture (16 min)
#
# `vit`, notebook 06's picture model, computes equations (1) to (4) and then the head. Equation (1)'s
# $\mathbf x_p \mathbf E$ is notebook 01's patch tokenizer. The cell runs it on the picture, one step at a time,
# with these methods:
#
# | method | what it returns |
# |---|---|
# | `vit.patch_embed.split(image)` | the $N$ flattened patches $\mathbf x_p$ |
# | `vit.tokenize(image)` | the patch tokens $\mathbf x_p \mathbf E$ |
# | `vit.embed(image)` | $\mathbf z_0$ of equation (1): the prediction token in front, positions added |
# | `vit.forward_features(image)` | the blocks, equations (2) and (3), then the final norm of (4) on every token |
# | `vit(image)` | the output layer on token 0 of those: the prediction |

# %%
with torch.no_grad():
    patches = vit.patch_embed.split(image)  # (1, N, P*P*C)
    patch_tokens = vit.tokenize(image)  # (1, N, D)
    embedded = vit.embed(image)  # (1, N + 1, D): equation (1)
    feats = vit.forward_features(image)  # (1, N + 1, D): the blocks, then the final norm on every token
    prediction = vit(image)  # (1, 1)
print(f"picture {tuple(image.shape)} -> patches {tuple(patches.shape)} -> tokens {tuple(patch_tokens.shape)}")
print(f"-> with prediction token and positions {tuple(embedded.shape)}")
print(
    f"-> {len(vit.blocks)} blocks and the final norm {tuple(feats.shape)} -> output {tuple(prediction.shape)}"
)
total, trainable = count_parameters(vit)
print(f"parameters: {total:,} (all trainable: {total == trainable})")
assert prediction.shape == (1, 1) and torch.isfinite(prediction).all()

# %% [markdown]
# The figure draws what the printout lists: each step's tensor for the one picture, one row per patch or token
# and one column per entry. The picture carries its patch numbers, 0 to 14, and row $i$ of the patches panel is
# patch $i$. The patches hold pixel values, drawn in the picture's colours. The token panels use a red-blue
# scale centred at 0, each on its own range; their row 0 is the prediction token from equation (1) on.

# %% mystnb={"image": {"alt": "Two rows of panels. Top: the picture with its 3 by 5 patch grid drawn on it, patches numbered 0 to 14, and its 15 patches as a 15 by 400 matrix of pixel values in the picture's purple scale. Bottom: the 15 tokens of length 64, the 16 tokens with the prediction token and the positions, and the 16 tokens after the two blocks and the final norm, each on a red-blue scale centred at 0 and titled with its shape"}}
token_steps = {
    "tokens": (patch_tokens[0], "patch"),
    "+ prediction token and positions: eq. (1)": (embedded[0], "token"),
    "after the blocks and the final norm": (feats[0], "token"),
}
fig, axes = plt.subplot_mosaic(
    [["picture", "patches", "patches"], list(token_steps)], figsize=(12, 6.4), layout="constrained"
)
plots.show_picture(
    picture, ax=axes["picture"], title=f"the picture {tuple(image.shape[-2:])}, patches 0-14", colorbar=False
)
plots.draw_patch_grid(axes["picture"], *image.shape[-2:], vit.patch_embed.patch_size)  # numbered row by row
plots.show_matrix(
    patches[0],
    ax=axes["patches"],
    title=f"patches {tuple(patches[0].shape)}",
    xlabel="entry (pixel of the patch)",
    ylabel="patch",
    vmin=0,
    vmax=1,
    label="brightness",
)  # the picture's colours and range
for name, (values, row_name) in token_steps.items():
    ax = axes[name]
    limit = values.abs().max().item()  # each panel's own range, centred at 0
    shown = ax.imshow(
        values.cpu(), aspect="auto", cmap="RdBu_r", vmin=-limit, vmax=limit, interpolation="nearest"
    )
    ax.set_title(f"{name}\n{tuple(values.shape)}", fontsize=10)
    ax.set_xlabel("entry")
    ax.set_ylabel(row_name)
    fig.colorbar(shown, ax=ax, fraction=0.05, label="entry value, own range")
for name in ["patches", *token_steps]:  # the picture keeps its ticks every 10 pixels
    axes[name].yaxis.set_major_locator(MaxNLocator(integer=True))
fig.suptitle("One picture through the untrained picture model, step by step")
plt.show()


def mean_cosine(tokens: torch.Tensor) -> float:
    """The mean cosine over the pairs of different tokens of (N, D)."""
    unit = nn.functional.normalize(tokens, dim=-1)  # (N, D): each token scaled to length 1
    n = unit.shape[0]
    cosines = unit @ unit.T  # (N, N): the diagonal holds the n cosines of a token with itself, all 1
    return (cosines.sum().item() - n) / (n * (n - 1))


with torch.no_grad():
    centred_tokens = vit.patch_embed.proj(patches[0] - patches.mean())  # (N, D): the mean pixel removed
print(f"pixels: min {patches.min():.2f}, mean {patches.mean():.2f}")
print(
    f"mean cosine between two different patch tokens: {mean_cosine(patch_tokens[0]):.2f} from the raw pixels, "
    f"{mean_cosine(centred_tokens):.2f} from the pixels minus their mean"
)
rows = {
    "token": [f"{i:5d}" for i in range(embedded.shape[1])],
    "patch (token - 1)": ["    -"] + [f"{i:5d}" for i in range(patches.shape[1])],
    "patch mean brightness": ["    -"] + [f"{b:5.2f}" for b in patches[0].mean(dim=-1).tolist()],
    "length entering block 0": [f"{x:5.2f}" for x in embedded[0].norm(dim=-1).tolist()],
    "length after final norm": [f"{x:5.2f}" for x in feats[0].norm(dim=-1).tolist()],
}
for label, cells in rows.items():
    print(f"{label:23s}" + "".join(cells))
print(f"sqrt(D) = {vit.embed_dim**0.5:.0f}")

# %% [markdown]
# Three things to see. The patch tokens point in nearly the same direction: the bottom-left panel shows vertical
# stripes, and the printed mean cosine between two different tokens is high. Every patch shares a large
# positive mean (no pixel is negative), so every token $\mathbf x_p \mathbf E$ holds a multiple of one vector, the
# patch's mean brightness times the sum of $\mathbf E$'s rows, plus a smaller part that differs; with the pixels'
# mean subtracted first, the mean cosine falls to about 0. Notebook 14 meets a related effect across pictures:
# a mean picture that all of them share, after which a ViT on raw pixels can give every picture nearly the same
# output; with standardised inputs every seed of its controls trained.
#
# The tokens' lengths differ, though. The table starts with the prediction token, token 0, so token $i$ holds
# patch $i - 1$. The brighter the patch, the longer its token, roughly: patch 5, the brightest, gives the longest
# token, patch 14, the darkest, the shortest. Row 0 of the middle panel, the prediction token, is faint because
# it starts from small random values, and the rows of the darkest patches are nearly as faint. In a fresh model
# the final norm's scale is 1 and its shift 0, so it gives every token entries of mean 0 and spread 1, and every
# length becomes $\sqrt D$: in the last panel row 0 is as vivid as the others.

# %% [markdown]
# The prediction, `vit(image)`'s one number, comes from fresh weights: it means nothing yet. Training (notebook
# 10) gives the weights their meaning, and notebook 13 looks at what a trained ViT makes of the picture.

# %% [markdown]
# ### How the weights start
#
# A fresh `VisionTransformer` starts every linear layer's weights from a normal distribution with standard
# deviation 0.02, cut at ±0.04 (the cut leaves a std of about 0.0176, as notebook 03 measures), and every bias
# at 0. Every LayerNorm starts with scale 1 and shift 0: it still normalises, and only its scale-and-shift part
# does nothing yet. (A token of all zeros has nothing to normalise: its mean and variance are 0, the $\epsilon$
# inside the square root, `eps=1e-6`, keeps the division finite, and the output is the shift, 0.) The prediction token and the position embedding start from the same cut normal. Why 0.02: [how the weights
# start](#Evidence:-how-the-weights-start).

# %% [markdown]
# ### Exercise 2 (predict)
#
# Take a fresh picture model with D = 64 and 4 heads, built with `pos_embed="none"`
# so that it has no position embedding, and set its prediction token to zero. In block 0, head 0, what weight
# does the prediction token's query give to token 12, which holds patch 11?

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "zero_token_attention-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_zero_token = None  # replace None with a number
### BEGIN SOLUTION
# LayerNorm of an all-zero token is its shift beta = 0; with zero qkv biases the query is 0, so every score is
# 0 and the softmax spreads the weight evenly over all N + 1 = 16 keys, the prediction token's own included.
answer_zero_token = 1 / (15 + 1)
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "zero_token_attention-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.zero_token_attention(answer_zero_token)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "zero_token_attention-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.zero_token_attention, answer_zero_token)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 2

# %% [markdown]
# Here is Exercise 2's experiment, run on the picture and read along token 0's row.
# `vit.attention_weights(image, block=b)` returns block $b$'s attention weights, of shape (B, heads, N + 1, N + 1):

# %%
torch.manual_seed(0)
no_position = VisionTransformer(embed_dim=64, depth=2, num_heads=4, pos_embed="none").to(device).eval()
with torch.no_grad():
    no_position.cls_token.zero_()
    entering = no_position.embed(image)  # (1, N + 1, D): no position embedding is added
    normed = no_position.blocks[0].norm1(entering)  # (1, N + 1, D)
    q_k_v = no_position.blocks[0].attn.qkv(normed)  # (1, N + 1, 3D): q, k and v of every token
    row0 = no_position.attention_weights(image, block=0)[0, :, 0]  # (heads, N + 1): token 0's weights
print(f"token 0 entering block 0 is all zeros: {bool((entering[0, 0] == 0).all())}")
print(f"after norm1 (its shift, 0): all zeros: {bool((normed[0, 0] == 0).all())}")
print(f"its q, k and v (the qkv bias, 0): all zeros: {bool((q_k_v[0, 0] == 0).all())}")
print(f"token 0's weights, head 0, tokens 0 to {row0.shape[1] - 1}:", [round(w, 4) for w in row0[0].tolist()])
print(f"the same in every head: {bool(torch.allclose(row0, row0[:1].expand_as(row0)))}")

# %% [markdown]
# A zero query scores 0 against every key, so the softmax spreads its weight evenly. With a position embedding,
# token 0 would enter block 0 as row 0 of $\mathbf{E}_\text{pos}$ instead. ViT's official code starts its class
# token at zero, and a zero token still receives a gradient, with a position embedding or without one: [how the
# weights start](#Evidence:-how-the-weights-start).

# %% [markdown]
# ## 3. What a block costs (14 min)
#
# Notebook 05 counted the multiply-adds of one attention layer. An encoder block adds the MLP, with ViT's ratio
# of 4. In this section, as in notebook 05's count, $N$ is the number of tokens a block sees, the prediction
# token included: $N = 16$ for the picture's 15 patches. G stands for $10^9$.

# %% [markdown]
# ### Exercise 3 (predict)
#
# Attention is known for its $N^2$ cost: its two products, the scores $QK^\top$ and
# the weights times $V$, grow with the square of the number of tokens. ViT-B/16 on 224 × 224 images has
# 196 patches, so N = 197 tokens, D = 768 and 12 blocks at MLP ratio 4. Its published cost is **17.6 G** multiply-adds, from
# the T2T-ViT paper's comparison table.
#
# - (a) What share of one block's multiply-adds do those two products take, in per cent? Set `answer_share` to
#   that number (for 12.5 %, `12.5`). The patch embedding and the head add little, so it is also about their
#   share of the 17.6 G.
# - (b) At how many tokens N would one of ViT-B's blocks spend exactly as much on the two products as on all
#   its linear layers, the MLP's included? Set `answer_tie_tokens` to a whole number.
#
# The section works both out after the check.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "attention_share_percent-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_share = None  # replace None with a number, in per cent
answer_tie_tokens = None  # replace None with a whole number
### BEGIN SOLUTION
# (b) The linear layers cost 3ND² (qkv) + ND² (proj) + 8ND² (the MLP, D to 4D and back) = 12ND²; the two
# products cost 2N²D. They are equal when 2N²D = 12ND², that is N = 6D = 4608.
answer_tie_tokens = 6 * 768
# (a) The share of the products in a block is 2N²D / (12ND² + 2N²D) = 2N / (12D + 2N). With N = 197 and
# D = 768 that is 394 / 9610, 4.1 %: N is far below the tie of (b). The patch embedding and the head add a
# little, so the share of the whole model is about 4.1 % too.
answer_share = 100 * 2 * 197 / (12 * 768 + 2 * 197)
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "attention_share_percent-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.attention_share_percent(answer_share)
check.block_cost_tie_tokens(answer_tie_tokens)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "attention_share_percent-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.attention_share_percent, answer_share)
### END HIDDEN TESTS

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "block_cost_tie_tokens-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.block_cost_tie_tokens, answer_tie_tokens)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 3

# %% [markdown]
# Count the multiply-adds, or MACs, of one block on $N$ tokens of length $D$, the prediction token included.
# A linear layer from length $a$ to length $b$ costs $a \cdot b$ per token.
#
# | step | multiply-adds |
# |---|---|
# | qkv: $D \to 3D$ for every token | $3ND^2$ |
# | scores $QK^\top$: every pair of tokens, a dot product of length $D$, all heads together | $N^2 D$ |
# | weights $\times V$: every token mixes $N$ values of length $D$ | $N^2 D$ |
# | proj: $D \to D$ | $ND^2$ |
# | MLP at ratio 4: $D \to 4D \to D$ | $8ND^2$ |
# | **one block, ratio 4** | $\mathbf{12ND^2 + 2N^2D}$ |
#
# The count $12ND^2$ assumes ViT's MLP ratio of 4. With ratio $r$ the MLP costs $2rND^2$, so the models trained
# from notebook 10 on, with $r = 2$, cost $8ND^2 + 2N^2D$ per block. Norms, GELU and softmax cost a few operations
# per entry and are left out, here and by `vitcourse.cost.count_macs`.
#
# At ratio 4 the two products cost more than the linear layers once $2N^2D > 12ND^2$, that is once $N > 6D$:
# 4,608 tokens for ViT-B, far above its 197. For a smaller ViT, DeiT-S (Touvron et al., 2021), with D = 384, 6
# heads and 16 × 16 patches, $6D$ = 2,304 tokens takes a square image of 768 pixels a side or more (48 × 48
# patches; the cell prints both numbers).
#
# The cell checks the formula against `count_macs`, which counts every linear layer by running it and adds both
# products from the same $2N^2D$ (so the check tests the linear part, $12ND^2$), and counts DeiT-S on either side of the crossing: 752 and 768 pixels a side, grids of 47 × 47 and 48 × 48
# patches.

# %%


def macs_formula(n: int, d: int, mlp_ratio: float = 4.0) -> int:
    """Multiply-adds of one encoder block on n tokens of length d: (4 + 2 r) n d² + 2 n² d."""
    return int((4 + 2 * mlp_ratio) * n * d**2) + 2 * n**2 * d


# depth says how finely count_macs groups its counts by module name (2: "blocks.0"), not how many blocks run
counted = count_macs(vit, image, depth=2)  # {"patch_embed.proj": ..., "blocks.0": ..., ...}
n_picture = vit.num_patches + 1
print(
    f"picture model (ratio 4): formula {macs_formula(n_picture, vit.embed_dim):,}, counted {counted['blocks.0']:,}"
)
assert all(counted[f"blocks.{i}"] == macs_formula(n_picture, vit.embed_dim) for i in range(len(vit.blocks)))
with torch.device("meta"):  # the layout of the models trained from notebook 10 on
    ratio_2 = VisionTransformer(embed_dim=64, depth=2, num_heads=4, mlp_ratio=2.0)
    counted_ratio_2 = count_macs(ratio_2, torch.empty(1, 1, 60, 100), depth=2)["blocks.0"]
print(f"fresh model, ratio 2: formula {macs_formula(n_picture, 64, 2.0):,}, counted {counted_ratio_2:,}")
assert counted_ratio_2 == macs_formula(n_picture, 64, 2.0)
for side in (752, 768):  # 47 x 47 and 48 x 48 patches of 16 pixels
    with torch.device("meta"):
        deit_s = VisionTransformer(
            img_size=side, patch_size=16, in_chans=3, embed_dim=384, depth=1, num_heads=6
        )
        macs = count_macs(deit_s, torch.empty(1, 3, side, side), depth=2)
    n = deit_s.num_patches + 1
    products = 2 * n * n * 384
    print(
        f"side {side}: N = {n}, attention products {products / 1e9:.3f} G, linear layers "
        f"{(macs['blocks.0'] - products) / 1e9:.3f} G"
    )
    assert (products > macs["blocks.0"] - products) == (n > 6 * 384)  # the products win once N > 6D
print(f"DeiT-S: 6D = {6 * 384:,} tokens; 48 x 48 patches + 1 = {48 * 48 + 1:,}")


# %% [markdown]
# ViT-B/16, part by part, on the `meta` device, with the answers to Exercise 3:

# %%
with torch.device("meta"):
    vit_b = create_model("vit_base_patch16_224")
    macs_b = count_macs(vit_b, torch.empty(1, 3, 224, 224), depth=1)  # {"patch_embed": ..., "blocks": ...}
n_b, d_b = vit_b.num_patches + 1, vit_b.embed_dim
total_b = sum(macs_b.values())
print(f"ViT-B/16 at 224 x 224: N = {n_b} tokens, D = {d_b}, {len(vit_b.blocks)} blocks")
for name, macs in macs_b.items():
    print(f"  {name:12s} {macs / 1e9:7.3f} G MACs ({macs / total_b:6.1%})")
print(
    f"  total        {total_b / 1e9:7.3f} G MACs, rounds to {total_b / 1e9:.1f} G (published in the T2T-ViT paper: 17.6 G)"
)
assert macs_b["blocks"] == len(vit_b.blocks) * macs_formula(n_b, d_b) and round(total_b / 1e9, 1) == 17.6
share = 2 * n_b**2 * d_b / macs_formula(n_b, d_b)
products_b = len(vit_b.blocks) * 2 * n_b**2 * d_b  # the two attention products of all 12 blocks
print(f"the N²D terms are {share:.1%} of a block here, {products_b / total_b:.1%} of the whole model")
print(f"one block's products equal its linear layers at N = 6D = {6 * d_b:,} tokens")
assert 0.02 < products_b / total_b < 0.06  # about 4 %, the answer of Exercise 3 (a)
assert macs_formula(6 * d_b, d_b) == 2 * (2 * (6 * d_b) ** 2 * d_b)  # (b): the products are half the block

# %% [markdown]
# The figure draws the two parts of one ViT-B block against the number of tokens, from the formula the cell
# above checked against `count_macs`: the linear layers grow like $N$, the two products like $N^2$. Both axes are
# logarithmic, so a power $N^k$ draws a straight line whose slope is $k$: 1 for the linear layers, 2 for the
# products.

# %% mystnb={"image": {"alt": "Log-log plot of one ViT-B block's multiply-adds against the number of tokens: the linear layers as a straight line of slope 1, the two attention products as a line of slope 2, crossing far to the right; a dotted line marks ViT-B/16's 197 tokens at 224 by 224, far left of the crossing"}}
n_range = torch.logspace(1, 5, 200)  # 10 to 100,000 tokens
linear_part = 12 * n_range * d_b**2  # qkv, proj and the MLP at ratio 4
products_part = 2 * n_range**2 * d_b  # the scores and the weights times V
fig, ax = plt.subplots(figsize=(7.5, 4.2))
ax.loglog(n_range, linear_part, label="linear layers: $12ND^2$")
ax.loglog(n_range, products_part, label="the two attention products: $2N^2D$")
ax.axvline(n_b, color="0.4", ls=":", label=f"ViT-B/16 at 224 x 224: N = {n_b}")
ax.axvline(6 * d_b, color="k", ls="--", label=f"N = 6D = {6 * d_b:,}: equal")
ax.set_xlabel("tokens N (prediction token included)")
ax.set_ylabel("multiply-adds of one block")
ax.set_title(f"One ViT-B block (D = {d_b}, MLP ratio 4): where the multiply-adds go")
ax.legend(fontsize=9)
plt.show()
tie = int(6 * d_b)
assert abs(12 * tie * d_b**2 - 2 * tie**2 * d_b) == 0  # the lines cross at N = 6D

# %% [markdown]
# ## Summary
#
# - Prediction processing is a final LayerNorm and a linear head on token 0. Mean pooling averages the patch
#   tokens instead, token 0 left out, and divides by their number.
# - The whole ViT takes the picture (1, 1, 60, 100) to N = 15 patches, N + 1 = 16 tokens of length 64, two blocks that keep
#   that shape, and one output.
# - A fresh ViT starts its linear weights at std 0.02 (before the cut), its biases at 0 and its LayerNorms'
#   scale at 1 and shift at 0. A token of zeros, with no position embedding, therefore asks a query of zeros,
#   and a query of zeros scores every key alike.
# - One block costs $12ND^2 + 2N^2D$ multiply-adds on $N$ tokens (section 3's $N$, the prediction token
#   counted) at MLP ratio 4, and holds $12D^2 + 13D$ parameters (notebook 06).
#   Attention's two products outweigh the linear layers only at many more tokens than ViT-B/16's 197, so they
#   take a small share of its 17.6 G.
#
# **Next:** [08 T2T's soft split](08_t2t_soft_split.ipynb) replaces the patch cut with overlapping soft splits
# and small token transformers. The sections below hold the evidence behind the findings above.

# %% [markdown]
# ## Evidence: the paper's two heads
#
# The name *class token* comes from the [CLS] token that the language model BERT puts in front of every input
# sequence (Devlin et al., 2019).
#
# The ViT paper trains in two stages (notebook 10 teaches training). **Pre-training** is a long training on a
# large, general data set; **fine-tuning** continues the training on the task one cares about, with a new head.
#
# The ViT paper (Section 3.1) attaches a head to $\mathbf{z}_L^0$ in both phases, but not the same one: during
# pre-training an MLP with one hidden layer, during fine-tuning a single linear layer. The article series says
# so too, then uses a single linear layer, as T2T-ViT does. Chi Yeong Heo's lab report ("Lab 5-1: Vision
# Transformer final-report") builds no head of its own: it studies timm's pre-trained ViT-B/16, whose head it
# calls an "MLP head" but describes as one linear layer from 768 to 1000. The lecture slides name a
# "Classification Head" and reproduce the paper's Figure 1 ("MLP Head") without saying which head each phase
# uses.
#
# The paper's sentence leaves the hidden layer's non-linearity out. The official code has it: a linear layer
# named `pre_logits`, of width `representation_size`, followed by $\tanh$ (`vit_jax/models_vit.py`). Older
# timm versions kept that layer for their weights trained on ImageNet-21k, the larger open data set the ViT paper
# also pre-trains on. Current timm's ViT has no such layer, and its
# weight loader notes that the latest ImageNet-21k and ImageNet-1k weights do not use it.
#
# For fine-tuning, the paper removes the pre-trained head and attaches a zero-initialised $D \times K$ layer,
# $K$ being the new task's number of classes (Section 3.2). A zero head gives every class the same score, so
# fine-tuning starts from a uniform prediction. The cell builds both heads at $D$ = 768 for 1000 classes, with
# the hidden width equal to $D$, and applies them to the two prediction tokens of section 1.

# %%
n_classes = 1000
pretrain_head = nn.Sequential(nn.Linear(D, D), nn.Tanh(), nn.Linear(D, n_classes)).to(device)  # hidden layer
finetune_head = nn.Linear(D, n_classes).to(device)  # D x K
nn.init.zeros_(finetune_head.weight)  # the paper's zero-initialised fine-tuning head
nn.init.zeros_(finetune_head.bias)
with torch.no_grad():
    hidden = pretrain_head[1](pretrain_head[0](pred_token))  # (2, D): tanh keeps every entry in (-1, 1)
    pre_out = pretrain_head[2](hidden)  # (2, K)
    fine_scores = finetune_head(pred_token)  # (2, K)
for name, head in (("pre-training", pretrain_head), ("fine-tuning", finetune_head)):
    print(f"{name} head: {sum(p.numel() for p in head.parameters()):>9,} parameters")
print(
    f"pre-training: token {tuple(pred_token.shape)} -> hidden {tuple(hidden.shape)} -> {tuple(pre_out.shape)}"
)
print(f"  hidden entries within (-1, 1): {bool((hidden.abs() < 1).all())}")
print(f"fine-tuning:  token {tuple(pred_token.shape)} -> {tuple(fine_scores.shape)}")
probabilities = fine_scores.softmax(-1)  # (2, K)
uniform = bool(torch.allclose(probabilities, torch.full_like(probabilities, 1 / n_classes)))
print(f"  zero head: every score is 0: {bool((fine_scores == 0).all())}")
print(f"  every class gets probability 1/{n_classes}: {uniform}")

# %% [markdown]
# ## Evidence: how the weights start
#
# **Where 0.02 comes from.** It is a convention, not a number derived from the layer sizes. BERT's code draws
# every weight matrix from a normal with std 0.02 cut at 2 std (`initializer_range` 0.02). ViT's official code
# draws its position embedding from $\mathcal N(0, 0.02^2)$, with a comment that the value comes from BERT.
# Its attention and MLP layers start *Xavier-uniform* (Glorot and Bengio, 2010): uniform weights with std
# $\sqrt{2/(\text{fan}_\text{in} + \text{fan}_\text{out})}$, where the fan-in and fan-out are the layer's input
# and output lengths. Its class token and its head start at zero. timm (`init_weights_vit_timm`) and the
# official T2T-ViT code draw linear weights with `trunc_normal_(std=.02)`, biases at 0. That function's cut sits
# at ±2 in absolute terms, 100 std, so in practice their draws are not truncated (notebook 03 measures it). The
# cut at ±2 std is this package's choice, the same as BERT's. It drops the rare large draws and leaves a
# slightly smaller std.
#
# **What a fixed std does.** A linear layer from $D$ to $D$ with weights of std $\sigma$, applied to a
# LayerNorm'd token, gives outputs of std about $\sigma\sqrt{D}$. With a fixed $\sigma$, the wider the model,
# the larger each layer's output. Xavier's std is $1/\sqrt{D}$ for a $D \to D$ layer, which keeps the output's
# std near 1 at any width. The cell compares both at the picture model's width and at ViT-Base's. It also
# measures how much one fresh block changes its input, $\lVert \text{block}(\mathbf z) - \mathbf z \rVert /
# \lVert \mathbf z \rVert$.

# %%
qkv_weight = vit.blocks[0].attn.qkv.weight.detach().cpu()  # (3D, D), notebook 06's picture model
print(
    f"picture model, qkv weights {tuple(qkv_weight.shape)}: "
    f"mean {round(qkv_weight.mean().item(), 4) + 0.0:.4f}, std {qkv_weight.std().item():.4f}, "
    f"min {qkv_weight.min().item():+.4f}, max {qkv_weight.max().item():+.4f}"
)
linears = [m for m in vit.modules() if isinstance(m, nn.Linear)]
norms = [m for m in vit.modules() if isinstance(m, nn.LayerNorm)]
print(
    f"all {len(linears)} linear biases are 0: {all(bool((m.bias == 0).all()) for m in linears)}; "
    f"all {len(norms)} LayerNorms start at scale 1, shift 0: "
    f"{all(bool((m.weight == 1).all() and (m.bias == 0).all()) for m in norms)}"
)
columns = ("D", "weight std", "output std", "std·√D", "Xavier std", "Xavier output std", "block change")
widths = (5, 10, 10, 8, 10, 17, 12)
print(" ".join(f"{name:>{w}s}" for name, w in zip(columns, widths, strict=True)))
changes = {}
for width, n_heads_w in ((vit.embed_dim, 4), (768, 12)):
    with torch.random.fork_rng(devices=[]):  # the draws do not disturb the notebook's random stream
        torch.manual_seed(width)
        fresh = VisionTransformer(embed_dim=width, depth=1, num_heads=n_heads_w).blocks[0].eval()
        z = torch.randn(1, 197, width)  # (1, N, D)
    layer = fresh.attn.proj  # a D -> D linear layer, as VisionTransformer starts it
    with torch.no_grad():
        sigma = layer.weight.std().item()
        out_std = layer(nn.functional.layer_norm(z, (width,))).std().item()  # on LayerNorm'd tokens
        change = ((fresh(z) - z).norm() / z.norm()).item()  # (B, N, D) in and out
        xavier_layer = copy.deepcopy(layer)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(width)
            nn.init.xavier_uniform_(xavier_layer.weight)  # std sqrt(2 / (fan_in + fan_out))
        xavier_out = xavier_layer(nn.functional.layer_norm(z, (width,))).std().item()
    xavier = (2 / (width + width)) ** 0.5  # Xavier's std for D -> D
    changes[width] = change
    print(
        f"{width:5d} {sigma:10.4f} {out_std:10.3f} {sigma * width**0.5:8.3f} {xavier:10.4f} {xavier_out:17.3f} "
        f"{change:12.1%}"
    )
assert changes[vit.embed_dim] < 0.05 < 0.2 < changes[768]  # what the text below says

# %% [markdown]
# With the package's fixed std, a layer's output std is about $\sigma\sqrt{D}$: the columns "output std" and
# "std·√D" agree. For this draw of weights and random normal tokens, one fresh block changes its input by
# about 2 % at D = 64 but by about 27 % at D = 768 (the assertion checks both sides). Xavier-uniform weights keep the same layer's output std near 1 at both widths,
# larger than the package's: at these widths std 0.02 starts every layer smaller than Xavier's rule would.
#
# **The prediction token's start.** ViT's official code starts the class token at zero; timm at
# $\mathcal N(0, (10^{-6})^2)$, as good as zero; the official T2T-ViT code and the article series' ViT code like
# the other weights; the article series' walk-through prepends a token of zeros. With a position embedding, a
# zero token enters block 0 as row 0 of $\mathbf E_\text{pos}$, not as zeros. With or without one, the token
# receives a gradient: a gradient measures how the output changes when the token moves, and a token of zeros
# can move like any other. A nonzero gradient only means the token can change; the course does not test how
# well a zero start trains. The cell checks both on a copy of the picture model, and the gradient also on the
# model of Exercise 2's run, which has no position embedding.

# %%
zero_start = copy.deepcopy(vit)
with torch.no_grad():
    zero_start.cls_token.zero_()  # (1, 1, D) of zeros
    first_input = zero_start.embed(image)  # (1, N + 1, D): what enters block 0
print(
    "token 0 entering block 0 equals row 0 of the position embedding: "
    f"{torch.equal(first_input[0, 0], zero_start.pos_embed[0, 0])}"
)
zero_start(image).sum().backward()  # any loss will do
torch.manual_seed(0)  # Exercise 2's model, built again: zero prediction token, no position embedding
no_position = VisionTransformer(embed_dim=64, depth=2, num_heads=4, pos_embed="none").to(device).eval()
with torch.no_grad():
    no_position.cls_token.zero_()
no_position(image).sum().backward()
print(
    "length of the gradient reaching the zero prediction token: "
    f"with positions {zero_start.cls_token.grad.norm():.2f}, without {no_position.cls_token.grad.norm():.2f}"
)

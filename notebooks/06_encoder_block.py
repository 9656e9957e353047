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
# # 05 · The Vision Transformer  [FROM OLD 05; REWRITE]
#
# **Time:** about 60 minutes
#
# Notebooks 01 to 04 built tokens, positions and attention. A Vision Transformer, or ViT, puts them together
# in three parts (Dosovitskiy et al., 2021):
#
# 1. **token processing**: patch tokens, a learned *prediction token* in front, the position embedding;
# 2. **encoder blocks**: attention and an MLP, each after a layer norm and inside a residual connection;
# 3. **prediction processing**: a final norm, then a linear head on the prediction token alone.
#
# By the end you can
# 1. write ViT's four equations and point to the line of the whole model that implements each,
# 2. say what LayerNorm normalises, why ViT puts it before each part, and what the MLP does,
# 3. find a misplaced norm or a wrong pooling in someone else's code,
# 4. work out what one encoder block costs and where its parameters sit,
# 5. say why ViT needed huge data sets and name three answers to that,
# 6. read how far a trained ViT's heads look, and say what a masked-patch objective changes there.

# %%
import copy
import inspect
import json
import math

import matplotlib.pyplot as plt
import torch
from IPython.display import display
from torch import nn

import vitcourse
from vitcourse import check, diagrams, load_mountains, probes, scenes, train, vit_listing
from vitcourse.blocks import EncoderBlock
from vitcourse.cost import count_macs
from vitcourse.models import VisionTransformer, count_parameters, create_model
from vitcourse.position import learned_position_embedding
from vitcourse.variants import ConvStem
from vitcourse.vit_listing import ViTListing

torch.manual_seed(0)
device = vitcourse.get_device()

# %% [markdown]
# ## 1. ViT in four equations (5 min)
#
# The ViT paper writes the whole model in four lines. An image is cut into $N$ patches. $\mathbf{x}_p^i$ is
# patch $i$ flattened to length $P^2 C$. $\mathbf{E}$ is the $(P^2 C) \times D$ patch projection.
# $\mathbf{x}_\text{class}$ is the learned prediction token, and $\mathbf{E}_\text{pos}$ the $(N + 1) \times D$
# position embedding. With $L$ encoder blocks:
#
# $$\mathbf{z}_0 = [\mathbf{x}_\text{class};\ \mathbf{x}_p^1 \mathbf{E};\ \mathbf{x}_p^2 \mathbf{E};\ \dots;\
#   \mathbf{x}_p^N \mathbf{E}] + \mathbf{E}_\text{pos} \qquad (1)$$
#
# $$\mathbf{z}'_\ell = \text{MSA}(\text{LN}(\mathbf{z}_{\ell-1})) + \mathbf{z}_{\ell-1}, \qquad \ell = 1 \dots L
#   \qquad (2)$$
#
# $$\mathbf{z}_\ell = \text{MLP}(\text{LN}(\mathbf{z}'_\ell)) + \mathbf{z}'_\ell, \qquad \ell = 1 \dots L
#   \qquad (3)$$
#
# $$\mathbf{y} = \text{LN}(\mathbf{z}_L^0) \qquad (4)$$
#
# MSA is notebook 04's multi-head self-attention and LN a layer norm. $\mathbf{z}_L^0$ is token 0 of the last
# block's output, the prediction token's row. A linear head turns $\mathbf{y}$ into the prediction.
#
# We build a small ViT for the picture: 60 × 100 pixels, one channel, 20 × 20 patches, one output. It has
# D = 64, 4 heads, 2 blocks and ViT's MLP ratio of 4: the MLP's hidden layer is 4D wide. Every model this
# course *trains*, the shipped ones and notebook 07's, has an MLP ratio of 2 instead. The diagram is drawn by running the model on the `meta` device, which computes
# shapes but no numbers.

# %% mystnb={"image": {"alt": "Diagram of the picture's ViT: the 60 by 100 image cut into 15 patches, projected to tokens of length 64, a prediction token prepended, the position embedding added, two encoder blocks, the final norm and the head on token 0, with the tensor shape at every step"}}
torch.manual_seed(0)
# the picture's size (60 x 100, one channel), patches of 20, one output: the package's defaults
vit = VisionTransformer(embed_dim=64, depth=2, num_heads=4).to(device).eval()
print(
    f"picture model: D = {vit.embed_dim}, {len(vit.blocks)} blocks, {vit.blocks[0].attn.num_heads} heads, "
    f"MLP hidden width {vit.blocks[0].mlp.fc1.out_features} (ratio 4), {vit.num_patches} patches"
)
fig, ax = plt.subplots(figsize=(8.5, 7.8))
diagrams.vit_pipeline(ax=ax, batch=13, model=vit)
plt.show()

# %% [markdown]
# ## 2. The whole ViT in one listing (5 min)
#
# Here is the whole model in one class of plain PyTorch, `vitcourse/vit_listing.py`. Read it once from top to
# bottom. Each comment names the equation a line implements, and each reshape carries its shape. The rest of
# this notebook takes the parts apart one by one. The package's `VisionTransformer`, used from here on,
# computes the same thing: [the listing against the package](#Evidence:-the-listing-against-the-package).

# %%
print(inspect.getsource(vit_listing))

# %% [markdown]
# ## 3. Token processing (6 min)
#
# Notebook 01 made the patch tokens $\mathbf{x}_p^i \mathbf{E}$. Equation (1) adds two things.
#
# The **prediction token** $\mathbf{x}_\text{class}$ is one learned vector of length $D$, the same for every
# image. The ViT paper calls it the *class token* and the code `cls_token`; the course uses the article series'
# name, because the head on it need not name a class. It carries no pixels. Through attention it gathers what the prediction needs from the
# patch tokens. It is always token 0, and only its row goes to the head.
#
# Notebook 03's **position embedding** $\mathbf{E}_\text{pos}$ is one more learned table, of shape
# (1, N + 1, D), added to the tokens. The prediction token gets a row too.
#
# The walk-through uses the article series' sizes: a batch of 13 items of 175 random tokens of length 768.

# %%
batch, n_tokens, D = 13, 175, 768
x = torch.randn(batch, n_tokens, D, generator=torch.Generator().manual_seed(1)).to(device)  # (B, N, D)
cls_token = nn.Parameter(torch.zeros(1, 1, D))  # (1, 1, D): one per model
nn.init.trunc_normal_(cls_token, std=0.02, a=-0.04, b=0.04)  # as the package starts it (section 6)
cls_token = nn.Parameter(cls_token.detach().to(device))  # moved to the device, still a leaf that learns
pos_embed = learned_position_embedding(n_tokens + 1, D).to(device)  # (1, N + 1, D)
with torch.no_grad():
    with_cls = torch.cat([cls_token.expand(batch, -1, -1), x], dim=1)  # (B, N + 1, D)
    tokens_in = with_cls + pos_embed  # (B, N + 1, D), broadcast over the batch
print(f"tokens {tuple(x.shape)} + prediction token {tuple(cls_token.shape)} -> {tuple(with_cls.shape)}")
print(f"+ position embedding {tuple(pos_embed.shape)} -> {tuple(tokens_in.shape)}")
print(f"token 0 of item 5 is the prediction token: {torch.equal(with_cls[5, 0], cls_token[0, 0].detach())}")

# %% [markdown]
# `expand` repeats the (1, 1, D) token over the batch as a view, without copying, so every item's gradient
# flows into the one vector.
#
# The lecture slides *ViT (Vision Transformer)*, the course's other source, build the token as
# `nn.Parameter(torch.ones(batch_size, 1, 768))`: one row of ones for each slot of a batch. The class below is
# that token alone.
#
# **Exercise 1 (predict).** A model built with the slides' token for batches of 32 takes one training step on
# a batch of 32 different images. Afterwards, how many *different* token vectors does its parameter hold? Write
# the number before you run the cells after the check.


# %%
class SlidesToken(nn.Module):
    """The slides' prediction token: (B, N, D) -> (B, N + 1, D), for B = batch_size only."""

    def __init__(self, batch_size: int, dim: int) -> None:
        super().__init__()
        self.cls_token = nn.Parameter(torch.ones(batch_size, 1, dim))  # (batch_size, 1, D): one per slot

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return torch.cat([self.cls_token, tokens], dim=1)  # (B, N + 1, D)


# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "slides_token_count-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_distinct_tokens = None  # replace None with a whole number
### BEGIN SOLUTION
# The parameter holds one row per batch slot. Each row receives the gradient of the image in its slot, and the
# 32 images differ, so the 32 rows, equal at the start, all move apart after one step.
answer_distinct_tokens = 32
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "slides_token_count-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.slides_token_count(answer_distinct_tokens)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "slides_token_count-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.slides_token_count, answer_distinct_tokens)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 1: one token per slot
#
# The run: one step of plain gradient descent, then a batch of 13. A toy head reads token 0 plus the mean of
# the patch tokens, a stand-in for attention's mixing, with the same target in every slot.

# %%
slides = SlidesToken(32, D).to(device)
images_32 = torch.randn(32, n_tokens, D, generator=torch.Generator().manual_seed(2)).to(device)
readout = torch.randn(D, generator=torch.Generator().manual_seed(3)).to(device)  # a toy head on token 0
targets = torch.zeros(32, device=device)  # the same target in every slot
optimiser = torch.optim.SGD(slides.parameters(), lr=0.1)
with_token = slides(images_32)  # (32, N + 1, D)
mixed = with_token[:, 0] + with_token[:, 1:].mean(dim=1)  # (32, D): token 0 after mixing with the patches
loss = ((mixed @ readout - targets) ** 2).mean()
loss.backward()
optimiser.step()
distinct = len(torch.unique(slides.cls_token.detach().cpu().flatten(1), dim=0))
print(f"a parameter that learns: {slides.cls_token.requires_grad}; shape {tuple(slides.cls_token.shape)}")
print(f"different token vectors after one step: {distinct}")
try:
    slides(x)  # our batch of 13
except RuntimeError as err:
    print(f"a batch of 13: {type(err).__name__} (a token for 32 slots, tokens for 13 items)")
assert distinct > 1

# %% [markdown]
# Each slot's row gets the gradient of the image in that slot. The targets were equal, so the images alone set
# the rows apart. An image's prediction token then depends on where in the batch it sits, and the model runs
# only on batches of exactly 32. Ours is one vector that every item of any batch shares.
#
# ## 4. The encoder block (10 min)
#
# ### LayerNorm
#
# A layer norm works on **one token at a time**. It subtracts the mean of the token's $D$ entries, divides by
# their standard deviation, then applies a learned scale $\boldsymbol\gamma$ and shift $\boldsymbol\beta$,
# which start at 1 and 0:
#
# $$\text{LN}(\mathbf{x}) = \boldsymbol\gamma \odot \frac{\mathbf{x} - \mu}{\sqrt{\sigma^2 + \epsilon}} +
#   \boldsymbol\beta, \qquad \mu = \frac{1}{D}\sum_{j=1}^{D} x_j,\quad
#   \sigma^2 = \frac{1}{D}\sum_{j=1}^{D} (x_j - \mu)^2$$
#
# Most CNNs use BatchNorm instead, which in training takes its statistics over the *batch*, so one image's output
# depends on the other images in its batch (at test time it uses averages stored during training). The cell normalises item 0 alone and inside the batch of 13, with each
# norm. The small $\epsilon$ keeps the division safe; ViT uses $10^{-6}$.

# %%
ln = nn.LayerNorm(D, eps=1e-6).to(device)
bn = nn.BatchNorm1d(D).to(device).train()  # normalises each of the D channels over the batch (and tokens)
with torch.no_grad():
    out = ln(tokens_in)  # (B, N + 1, D)
    means, stds = out.mean(-1), out.std(-1, unbiased=False)  # (B, N + 1) each: one per token
    print(f"LayerNorm {tuple(tokens_in.shape)} -> {tuple(out.shape)}")
    print(f"every token's mean is 0 (|mean| < 1e-5): {bool((means.abs() < 1e-5).all())}")
    print(f"every token's std is 1 (within 0.001): {bool(((stds - 1).abs() < 1e-3).all())}")
    ln_same = torch.allclose(ln(tokens_in[:1]), out[:1], atol=1e-5)  # item 0 alone vs in the batch
    bn_batch = bn(tokens_in.transpose(1, 2)).transpose(1, 2)  # BatchNorm1d wants (B, D, N)
    bn_alone = bn(tokens_in[:1].transpose(1, 2)).transpose(1, 2)  # (1, N + 1, D): item 0 alone
    bn_same = torch.allclose(bn_alone, bn_batch[:1], atol=1e-5)
print(f"item 0 alone gives the same output as item 0 in the batch: LayerNorm {ln_same}, BatchNorm {bn_same}")
assert ln_same and not bn_same

# %% [markdown]
# ### GELU and the MLP
#
# The MLP works on each token separately, with the same weights for every token. At ViT's MLP ratio of 4 it
# widens from $D$ to $4D$, applies GELU and narrows back to $D$:
#
# $$\text{MLP}(\mathbf{x}) = \text{GELU}(\mathbf{x} W_1 + \mathbf{b}_1)\, W_2 + \mathbf{b}_2, \qquad
#   W_1: D \times 4D,\ W_2: 4D \times D$$
#
# GELU is a smooth relative of ReLU: [GELU against ReLU](#Evidence:-GELU-against-ReLU). Attention *mixes*
# tokens; the MLP *transforms* each token on its own.
#
# ### Pre-norm and post-norm
#
# The original Transformer (Vaswani et al., 2017) normalises *after* adding the residual. That is
# **post-norm**: $\mathbf{z} \leftarrow \text{LN}(\mathbf{z} + f(\mathbf{z}))$. ViT normalises *before* each
# part. That is **pre-norm**: $\mathbf{z} \leftarrow \mathbf{z} + f(\text{LN}(\mathbf{z}))$, equations (2)
# and (3).
#
# In pre-norm the path from input to output is a plain sum, so the gradient reaches every block through an
# identity path, however deep the stack. Post-norm Transformers need a *learning-rate warm-up*: over the first
# steps of training the learning rate climbs from near zero. Pre-norm ones *can* train without it, as Xiong et
# al. showed in *On Layer Normalization in the Transformer Architecture*, ICML 2020, Sections 3 and 4; ViT and
# notebook 07 still use one.
#
# The price: nothing normalises the sum itself, so its scale drifts through the blocks. The cell takes the 12
# blocks of a fresh ViT at D = 768, started as section 6 describes. It prints the tokens' standard deviation
# after each block, then after a final LayerNorm.

# %%
torch.manual_seed(0)
deep = VisionTransformer(embed_dim=D, depth=12, num_heads=12).to(device).eval()  # ViT-Base's blocks
with torch.no_grad():
    z = tokens_in[:2]  # (2, N + 1, D)
    spread = [z.std().item()]
    for layer in deep.blocks:
        z = layer(z)  # (2, N + 1, D): pre-norm, so z itself is never normalised
        spread.append(z.std().item())
    final_std = deep.norm(z).std(-1, unbiased=False)  # (2, N + 1): each token's std after the final norm
print("token std entering block 1, then after blocks 1 to 12:", [f"{v:.2f}" for v in spread])
print(f"after the final LayerNorm, every token's std: {final_std.mean().item():.2f}")
assert spread[-1] > spread[0] and bool(((final_std - 1).abs() < 1e-3).all())

# %% [markdown]
# ViT adds a **final** norm, so that the head sees token 0 normalised, at mean 0 and std 1 before the norm's
# learned scale and shift, whatever the depth and, once trained, the image. That is equation (4).
#
# The diagram shows one block at ViT-Base's width: D = 768, 12 heads, 176 tokens. The same block, step by
# step in code: [ViT's block step by step](#Evidence:-ViT's-block-step-by-step).

# %% mystnb={"image": {"alt": "Diagram of one pre-norm encoder block: the tokens (13, 176, 768) go through norm1, 12-head attention and a residual sum, then norm2, an MLP widening to 3072 and back, and a second residual sum"}}
block = EncoderBlock(D, num_heads=12, mlp_ratio=4.0).to(device).eval()
fig, ax = plt.subplots(figsize=(7.5, 8.25))
diagrams.encoder_block(ax=ax, block=block, batch=batch, tokens=n_tokens + 1)
plt.show()

# %% [markdown]
# **Exercise 2 (find the bug).** A colleague wants the original Transformer's **post-norm** block, described
# under "Pre-norm and post-norm" above, to compare it with ViT's. `norm1` belongs to the attention step, `norm2`
# to the MLP step. The function below runs and keeps every shape, but it is not a post-norm block.
#
# - (a) Write the corrected version as `my_post_norm_block`.
# - (b) Then predict. Put 12 of your post-norm blocks, freshly initialised, in place of the pre-norm ones in the
#   drift cell above. What std leaves block 12: `"about 1.0"`, `"about 1.4"` as in pre-norm, or `"above 2"`?
#   Set `answer_post_norm_std`, and write down whether a post-norm ViT would need equation (4)'s final norm.


# %%
def buggy_post_norm_block(block: EncoderBlock, x: torch.Tensor) -> torch.Tensor:
    x = block.norm1(x) + block.attn(x)  # (B, N, D)
    return x + block.norm2(block.mlp(x))  # (B, N, D)


# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "post_norm_block_function-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
def my_post_norm_block(block: EncoderBlock, x: torch.Tensor) -> torch.Tensor:
    ### BEGIN SOLUTION
    # The bug, in both steps: the norm acts on one term of the sum, LN(x) + f(x) and x + LN(f(x)).
    # Post-norm adds first and normalises the sum.
    x = block.norm1(x + block.attn(x))  # (B, N, D): attention, residual, then the norm
    return block.norm2(x + block.mlp(x))  # (B, N, D): MLP, residual, then the norm
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "post_norm_block_function-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.post_norm_block_function(my_post_norm_block)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "post_norm_block_function-test", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.post_norm_block_function, my_post_norm_block)
### END HIDDEN TESTS

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "post_norm_drift_choice-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_post_norm_std = None  # replace None with "about 1.0", "about 1.4" or "above 2"
### BEGIN SOLUTION
# Each post-norm block ends with a LayerNorm, which starts with scale 1 and shift 0: every token leaves the
# block at mean 0 and std 1, whatever entered it. So the std stays at 1.0, and no final norm is needed.
answer_post_norm_std = "about 1.0"
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "post_norm_drift_choice-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.post_norm_drift_choice(answer_post_norm_std)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "post_norm_drift_choice-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.post_norm_drift_choice, answer_post_norm_std)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 2: post-norm does not drift
#
# The drift cell again, with the same 12 fresh blocks run in post-norm order: add, then normalise.

# %%
with torch.no_grad():
    z = tokens_in[:2]  # (2, N + 1, D)
    spread_post = [z.std().item()]
    for layer in deep.blocks:
        z = layer.norm1(z + layer.attn(z))  # (2, N + 1, D): post-norm, the attention step
        z = layer.norm2(z + layer.mlp(z))  # (2, N + 1, D): post-norm, the MLP step
        spread_post.append(z.std().item())
print("post-norm: token std entering block 1, then after blocks 1 to 12:", [f"{v:.2f}" for v in spread_post])
assert all(abs(v - 1) < 1e-2 for v in spread_post[1:])

# %% [markdown]
# Each post-norm block ends with a fresh LayerNorm, so every token leaves it at std 1: a post-norm stack needs no
# final norm, and the original Transformer has none. Its price is the missing identity path for the gradient.

# %% [markdown]
# The CNN and the ViT with a convolutional stem are right on more than nine pictures in ten from 64 on. T2T-ViT,
# whose first step reads overlapping windows, gains the most from data: about 6 in 10 after 64 pictures, 9 in 10
# after 1,024; at 4,096 one seed failed (0.55), pulling the mean to 0.81. The ViT and the distillation token stay
# at chance at every size. The ViT does not even learn its training pictures. Its training loss stays near ln 2,
# a 50/50 guess, on 64 pictures and on 4,096 with four times the steps (the Evidence's control). A model
# that cannot fit its training pictures says nothing about how many it needs. So this sweep is not the paper's
# Figure 3: it shows an optimisation failure that a convolutional stem and T2T-ViT escape.
# Seeds, compute and the control: [a data-scale sweep](14_what_shapes_a_vit.ipynb#Evidence:-a-data-scale-sweep).
#
# ## 5. A block's parameters (3 min)
#
# Almost every parameter of a ViT sits in its blocks. At ViT's settings, MLP ratio 4 and qkv with a bias, one
# block holds two LayerNorms with a scale and a shift each, $4D$; qkv, $3D^2 + 3D$; proj, $D^2 + D$; and the
# MLP, $8D^2 + 5D$. That is $12D^2 + 13D$ in all. Each weight is used once per token, hence the $12ND^2$ of
# section 7. The cell checks the count at two widths.

# %%
for width in (64, 768):
    with torch.device("meta"):
        one_block = EncoderBlock(width, num_heads=4, mlp_ratio=4.0)
    counted_block = sum(p.numel() for p in one_block.parameters())
    print(f"one block at D = {width}: 12D² + 13D = {12 * width**2 + 13 * width:,}, counted {counted_block:,}")
    assert counted_block == 12 * width**2 + 13 * width

# %% [markdown]
# ## Summary
#
# - ViT is four equations: the tokens with the prediction token and positions, two pre-norm residual updates
#   per block, and a final norm on token 0 before the head.
# - The prediction token is one parameter expanded over the batch; the slides' token gives each slot its own.
# - LayerNorm normalises each token over its own D entries. The MLP widens to 4D in ViT, to 2D in this
#   course's trained models. Pre-norm keeps an identity path through the stack but lets the sum's scale drift;
#   post-norm normalises the sum.
# - One block costs $12ND^2 + 2N^2D$ multiply-adds and holds $12D^2 + 13D$ parameters at MLP ratio 4.
#   Attention's two products win only when $N > 6D$: they are about 4 % of ViT-B/16's 17.6 G.
# - With few built-in assumptions about images, ViT needed huge data sets. DeiT's recipe, a convolutional stem
#   and T2T are three answers. On the swap task the convolutions learned from 64 pictures and T2T-ViT gained
#   most from more. The ViT, with or without a distillation token, stayed at chance without fitting even its
#   training pictures. That is an optimisation failure that a convolutional stem and T2T-ViT escape, not a
#   measure of how much data a ViT needs.
# - Inside `vit_within`: no local heads, and a distance near the uniform one does not mean even attention.
#   Masked patch prediction brings most heads of blocks 2 to 4 closer, though none within half the uniform
#   distance, and not block 1: the opposite of the ViT paper's trend with depth.
#
# **Next:** [06 Tokens-to-Token](06_tokens_to_token.ipynb) replaces the patch split with overlapping soft splits
# and small token transformers. The sections below hold the evidence behind the findings above.

# %% [markdown]
# ## Evidence: the listing against the package
#
# The package's `VisionTransformer` adds input checks and tools for looking inside to the listing of section 2,
# but computes the same thing, with the same parameter names. The cell loads its weights into the listing for
# the picture model and for the shipped `vit_where`, with MLP ratio 2, and compares the outputs on the picture.

# %%
for name, model, ratio in (
    ("picture model", vit, 4.0),
    ("shipped vit_where", trained, shipped.config.mlp_ratio),
):
    listing = ViTListing(
        num_classes=model.head.out_features,
        embed_dim=model.embed_dim,
        depth=len(model.blocks),
        num_heads=model.blocks[0].attn.num_heads,
        mlp_ratio=ratio,
    ).to(device)
    listing.load_state_dict(model.state_dict())  # every name matches
    with torch.no_grad():
        same = torch.allclose(listing(image), model(image), rtol=1e-4, atol=1e-5)
    print(f"{name} (MLP ratio {ratio:g}): the listing gives the same outputs: {same}")
    assert same

# %% [markdown]
# ## Evidence: ViT's block step by step
#
# ViT's pre-norm block, equations (2) and (3), on two items of the walk-through batch. In the printout, `chan`
# is the length of q, k and v, always D in ViT. `v_skip=False`: ViT's attention does not add $\mathbf{v}$ to
# its output, unlike the article series' code; notebook 06 explains.

# %%
print(block)
with torch.no_grad():
    z = tokens_in[:2]  # (2, N + 1, D)
    h = block.attn(block.norm1(z))  # (2, N + 1, D)
    print(f"norm1, attention: {tuple(h.shape)}  ({block.attn.num_heads} heads of {block.attn.head_dim})")
    z_mid = z + h  # equation (2)
    h = block.mlp.fc1(block.norm2(z_mid))  # (2, N + 1, 4D)
    print(f"+ residual, norm2, fc1: {tuple(h.shape)}")
    h = block.mlp.fc2(block.mlp.act(h))  # (2, N + 1, D)
    z_out = z_mid + h  # equation (3)
    print(f"GELU, fc2, + residual: {tuple(z_out.shape)}")
    same = torch.allclose(z_out, block(z), atol=1e-5)
print(f"equals EncoderBlock.forward: {same}")
assert same and z_out.shape == z.shape

# %% [markdown]
# ## Evidence: GELU against ReLU
#
# GELU (Hendrycks and Gimpel, 2016) is $x\,\Phi(x)$, with $\Phi$ the standard normal's cumulative distribution:
# a smooth ReLU, almost $x$ for large $x$ and slightly negative for every $x < 0$.

# %%
values = torch.tensor([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0])
print("x:    ", [round(v, 3) for v in values.tolist()])
print("GELU: ", [round(v, 3) for v in nn.functional.gelu(values).tolist()])
print("ReLU: ", [round(v, 3) for v in torch.relu(values).tolist()])
grid = torch.linspace(-5.0, 0.0, 5001)  # steps of 0.001
gelu_grid = nn.functional.gelu(grid)
lowest = int(gelu_grid.argmin())
print(f"GELU's minimum on [-5, 0]: {gelu_grid[lowest].item():.3f} at x = {grid[lowest].item():.2f}")

# %% [markdown]
# ## Evidence: real weights and the lecture slides
#
# `vitcourse.checkpoints` loads timm's ViT checkpoints into our `VisionTransformer` through a documented key
# map. The names are the same; only the patch embedding is stored as a convolution there and as a linear layer
# here. The next cell compares our model with timm's on the picture only where the `timm` package and its
# ViT-B/16 weights are already on this computer. It looks in the local Hugging Face cache and never downloads;
# otherwise it says that the comparison was skipped, and why.

# %%
# NBVAL_IGNORE_OUTPUT
# (what this cell prints depends on whether timm and its weights are on this computer)
import importlib.util

from vitcourse import checkpoints

WEIGHTS = ("timm/vit_base_patch16_224.augreg2_in21k_ft_in1k", "model.safetensors")  # timm's default tag
max_difference = None  # set only where the comparison runs
if importlib.util.find_spec("timm") is None:
    print("Comparison with timm skipped: the timm package is not installed here.")
else:
    try:
        import timm
        from huggingface_hub import try_to_load_from_cache  # looks in the local cache only

        cached = try_to_load_from_cache(*WEIGHTS)
        if not isinstance(cached, str):
            raise FileNotFoundError(f"no cached weights for {WEIGHTS[0]}, and nothing is downloaded")
        reference = timm.create_model(
            "vit_base_patch16_224", pretrained=True, pretrained_cfg_overlay={"file": cached}
        ).eval()
        ours = checkpoints.load_pretrained(
            create_model("vit_base_patch16_224"), reference.state_dict(), "timm"
        ).eval()
    except Exception as err:  # any reason the reference cannot be loaded: say it, compare nothing
        print(f"Comparison with timm skipped: {type(err).__name__}: {err}")
    else:
        grey = nn.functional.interpolate(vitcourse.to_tensor(picture), size=(224, 224), mode="bilinear")
        rgb = (grey.repeat(1, 3, 1, 1) - 0.5) / 0.5  # (1, 3, 224, 224); these weights' normalisation
        with torch.no_grad():
            ours_logits, ref_logits = ours(rgb), reference(rgb)  # (1, 1000) each
        max_difference = (ours_logits - ref_logits).abs().max().item()
        top = ours_logits.softmax(-1).topk(5)
        pairs = zip(top.indices[0].tolist(), top.values[0].tolist(), strict=True)
        print("top-5 ImageNet classes (index, probability):", [(k, round(q, 3)) for k, q in pairs])
        print(f"largest difference between our logits and timm's: {max_difference:.2e}")

# %%
if max_difference is not None:  # the comparison ran: our model must agree with timm's
    assert max_difference < 1e-3, max_difference


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
# # 06 · The encoder block
#
# **Time:** about 60 minutes
#
# **Before this:** [notebook 05](05_multi_head_attention.ipynb), which builds multi-head attention.
#
# A Vision Transformer, or ViT (Dosovitskiy et al., 2021), puts the course's parts together. After the image is
# cut into patch tokens (notebook 01), the article series that the course follows runs three steps:
#
# 1. **token processing**: a learned *prediction token* in front of the patch tokens, then the position
#    embedding;
# 2. **encoder blocks**: attention and an MLP, each after a layer norm and inside a *residual connection*,
#    which adds a part's output to the part's own input, $\mathbf{z} + f(\mathbf{z})$, so the tokens pass
#    through unchanged except for what the part adds;
# 3. **prediction processing**: a final norm, then the *head*, a linear output layer (not an attention head),
#    on the prediction token alone.
#
# This notebook writes the whole model down, then builds the first two steps; section 3 also runs step 3's
# final norm. [Notebook 07](07_vision_transformer.ipynb) builds the third step in
# full, runs the whole model on the picture and counts its cost.
#
# By the end you can
# 1. write ViT's four equations and match each to its line of the whole model,
# 2. put a prediction token in front of a batch, and say what goes wrong with one token per batch slot,
# 3. say what LayerNorm normalises and what the MLP does,
# 4. tell pre-norm from post-norm, find a misplaced norm in someone else's block, and say what each order does
#    to the tokens' scale,
# 5. count the parameters of a block and of ViT-Base, -Large and -Huge.

# %%
import inspect

import matplotlib.pyplot as plt
import torch
from torch import nn

import vitcourse
from vitcourse import check, diagrams, vit_listing
from vitcourse.blocks import EncoderBlock
from vitcourse.models import VisionTransformer, count_parameters, create_model
from vitcourse.position import learned_position_embedding

torch.manual_seed(0)
device = vitcourse.get_device()

# %% [markdown]
# ## 1. ViT in four equations (5 min)
#
# The ViT paper writes the whole model in four lines. An image is cut into $N$ patches. $\mathbf{x}_p^i$ is
# patch $i$ flattened to length $P^2 C$; the $p$ is only a label, p for patch. $\mathbf{E}$ is the
# $(P^2 C) \times D$ patch projection. $\mathbf{x}_\text{class}$ is the learned prediction token, and
# $\mathbf{E}_\text{pos}$ the $(N + 1) \times D$ position embedding. With $L$ encoder blocks:
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
# MSA is notebook 05's multi-head self-attention and LN a layer norm. $\mathbf{z}_L^0$ is token 0 of the last
# block's output, the prediction token's row. The head turns $\mathbf{y}$ into the prediction. Here it is one
# linear layer; notebook 07 shows the paper's other head, with a hidden layer.
#
# The paper counts from 1. Its $\mathbf{x}_p^1$ is the course's patch 0, and $\mathbf{z}_\ell$ is what its block
# $\ell$ gives out, with $\mathbf{z}_0$ entering the first. In code the blocks sit in a list, `model.blocks`, and
# the course counts them as Python does: `model.blocks[0]` is block 0, and it computes $\mathbf{z}_1$.
#
# We build a small ViT for the picture: 60 × 100 pixels, one channel, 20 × 20 patches, one output. It has
# D = 64, 4 heads, 2 blocks and ViT's MLP ratio of 4: the MLP's hidden layer is 4D wide.
#
# The diagram is drawn by running the model on the `meta` device, which computes shapes but no numbers. It
# shows a batch of 13 images, the batch size of section 2's walk-through.
#
# In the diagram, follow the token count, the number just before the last one in the token shapes: 15 patch
# tokens become 16 when the prediction token is prepended, the blocks keep all 16, and taking token 0 leaves
# one row of 64 per image for the head.

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
# ## 2. Token processing (12 min)
#
# Notebook 01 made the patch tokens $\mathbf{x}_p^i \mathbf{E}$. Equation (1) adds two things.
#
# The **prediction token** $\mathbf{x}_\text{class}$ is one learned vector of length $D$, the same for every
# image. The ViT paper calls it the *class token* and the code `cls_token`; the course uses the article
# series' name, because the head on it need not name a class. It carries no pixels; through attention it can
# gather what the prediction needs from the patch tokens. It is always token 0, so patch $k$ becomes
# token $k + 1$, and only token 0's row goes to the head.
#
# Notebook 03's learned **position embedding** $\mathbf{E}_\text{pos}$ is one more table, of shape
# (1, N + 1, D), added to the tokens. The prediction token gets a row too.
#
# The walk-through uses the article series' sizes: a batch of 13 items of 175 random tokens of length 768.
# The three lengths differ, so every printed shape tells which axis is which. 175 is the article series' token
# count for T2T-ViT (notebook 03), 768 is ViT-Base's $D$, and the prediction token makes 176 tokens.

# %%
batch, n_tokens, D = 13, 175, 768
x = torch.randn(batch, n_tokens, D, generator=torch.Generator().manual_seed(1)).to(device)  # (B, N, D)
cls_token = nn.Parameter(torch.zeros(1, 1, D))  # (1, 1, D): one per model
nn.init.trunc_normal_(cls_token, std=0.02, a=-0.04, b=0.04)  # the package's random start (notebook 07)
cls_token = nn.Parameter(cls_token.detach().to(device))  # moved to the device, still a parameter that learns
pos_embed = learned_position_embedding(n_tokens + 1, D).to(device)  # (1, N + 1, D)
with torch.no_grad():
    with_cls = torch.cat([cls_token.expand(batch, -1, -1), x], dim=1)  # (B, N + 1, D)
    tokens_in = with_cls + pos_embed  # (B, N + 1, D), broadcast over the batch
print(f"tokens {tuple(x.shape)} + prediction token {tuple(cls_token.shape)} -> {tuple(with_cls.shape)}")
print(f"+ position embedding {tuple(pos_embed.shape)} -> {tuple(tokens_in.shape)}")
print(f"token 0 of item 5 is the prediction token: {torch.equal(with_cls[5, 0], cls_token[0, 0].detach())}")

# %% [markdown]
# `expand` repeats the (1, 1, D) token over the batch as a view, without copying. Every item uses the same
# parameter, so by the chain rule its gradient is the sum of every item's gradient. The next cell shows it with
# a stand-in loss.

# %%
per_item = torch.randn(batch, D, generator=torch.Generator().manual_seed(4)).to(device)  # a gradient per item
(cls_token.expand(batch, -1, -1)[:, 0] * per_item).sum().backward()  # each item's row gets its own gradient
print(f"gradient {tuple(cls_token.grad.shape)} = the sum over the 13 items: "
      f"{torch.allclose(cls_token.grad[0, 0], per_item.sum(0), atol=1e-5)}")  # fmt: skip
cls_token.grad = None

# %% [markdown]
# The lecture slides *ViT (Vision Transformer)*, one of the course's four main sources, build the token as
# `nn.Parameter(torch.ones(batch_size, 1, 768))`: one row of ones for each slot of a batch. The class below is
# that token alone.

# %% [markdown]
# ### Exercise 1 (predict)
#
# A model built with the slides' token for batches of 32, with no dropout or other randomness, takes one step of
# gradient descent on a batch of 32 different images, all with the same target.
#
# - (a) Afterwards, how many *different* token vectors does its parameter hold? Set `answer_distinct_tokens`.
# - (b) The same step again from the start, but with image A copied into slots 0 to 15 and image B into slots
#   16 to 31. How many different token vectors does the parameter hold then? Set `answer_two_images`.
#
# Write both numbers before you run the cells after the check.


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
answer_two_images = None  # replace None with a whole number
### BEGIN SOLUTION
# (a) The parameter holds one row per batch slot. Each row receives the gradient of the image in its slot, and
# the 32 images differ, so the 32 rows, equal at the start, all move apart after one step.
answer_distinct_tokens = 32
# (b) The rows start equal, and two slots that hold the same image (and the same target) give their rows the
# same gradient: those rows stay equal. Only the images set the rows apart: one vector per image, 2.
answer_two_images = 2
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "slides_token_count-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.slides_token_count(answer_distinct_tokens)
check.slides_token_count_one_image(answer_two_images)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "slides_token_count-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.slides_token_count, answer_distinct_tokens)
### END HIDDEN TESTS

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "slides_token_count_one_image-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.slides_token_count_one_image, answer_two_images)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 1

# %% [markdown]
# The cell runs one step of gradient descent (SGD, no momentum) on 32 different images, then on two images in
# 16 slots each, then tries a batch of 13. A toy head reads token 0 plus the mean of the patch tokens, a
# stand-in for attention's mixing. Every slot has the same target.

# %%
images_32 = torch.randn(32, n_tokens, D, generator=torch.Generator().manual_seed(2)).to(device)
readout = torch.randn(D, generator=torch.Generator().manual_seed(3)).to(device)  # a toy head on token 0
targets = torch.zeros(32, device=device)  # the same target in every slot


def one_step(images: torch.Tensor) -> SlidesToken:
    """The slides' token for 32 slots after one step of gradient descent on ``images`` (32, N, D)."""
    token = SlidesToken(32, D).to(device)
    with_token = token(images)  # (32, N + 1, D)
    mixed = with_token[:, 0] + with_token[:, 1:].mean(dim=1)  # (32, D): token 0 after mixing with the patches
    ((mixed @ readout - targets) ** 2).mean().backward()
    torch.optim.SGD(token.parameters(), lr=0.1).step()
    return token


slides = one_step(images_32)
two_images = one_step(images_32[[0] * 16 + [1] * 16])  # image 0 in slots 0 to 15, image 1 in 16 to 31


def count_different(token: SlidesToken) -> int:
    """How many different rows (token vectors) the parameter holds."""
    return len(torch.unique(token.cls_token.detach().flatten(1), dim=0))  # (32, D) -> its distinct rows


distinct, distinct_two = count_different(slides), count_different(two_images)
print(f"a parameter that learns: {slides.cls_token.requires_grad}; shape {tuple(slides.cls_token.shape)}")
print(f"different token vectors after one step, 32 different images: {distinct}")
print(f"different token vectors after one step, two images in 16 slots each: {distinct_two}")
try:
    slides(x)  # our batch of 13
except RuntimeError as err:
    print(f"a batch of 13: {type(err).__name__} (a token for 32 slots, tokens for 13 items)")
assert distinct > 2 and distinct_two == 2

# %% [markdown]
# Each slot's row gets the gradient of the image in that slot. The rows start equal and the targets were equal,
# so the images alone set the rows apart: slots with the same image keep equal rows. An image's prediction
# token then depends on where in the batch it sits, and the model runs only on batches of exactly 32. Ours is
# one vector that every item of any batch shares.

# %% [markdown]
# ## 3. The encoder block (25 min)

# %% [markdown]
# ### LayerNorm
#
# A layer norm works on **one token at a time**. It subtracts the mean of the token's $D$ entries, divides by
# their standard deviation, then applies a learned scale $\boldsymbol\gamma$ and shift $\boldsymbol\beta$,
# which start at 1 and 0:
#
# $$\text{LN}(\mathbf{x}) = \boldsymbol\gamma \odot \frac{\mathbf{x} - \mu}{\sqrt{\sigma^2 + \epsilon}} +
#   \boldsymbol\beta, \qquad \mu = \frac{1}{D}\sum_{j=0}^{D-1} x_j,\quad
#   \sigma^2 = \frac{1}{D}\sum_{j=0}^{D-1} (x_j - \mu)^2$$
#
# Many CNNs, ResNet among them, use BatchNorm instead, which in training takes its statistics over the *batch*, so one image's output
# depends on the other images in its batch (at test time it uses averages stored during training). The cell
# normalises item 0 alone and inside the batch of 13, with each norm.
#
# `nn.LayerNorm(D)` normalises over the last dimension, of length `normalized_shape` = D. Its
# `elementwise_affine=True`, the default, gives it $\boldsymbol\gamma$ (its `weight`), and `bias=True` gives it
# $\boldsymbol\beta$ (its `bias`). The small
# $\epsilon$ keeps the division safe: PyTorch's default is $10^{-5}$, ViT's code uses $10^{-6}$.

# %%
ln = nn.LayerNorm(D, eps=1e-6).to(device)
bn = nn.BatchNorm1d(D).to(device).train()  # normalises each of the D channels over the batch (and tokens)
print(f"PyTorch's default: {nn.LayerNorm(D)}; ViT's: {ln}")
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
# GELU is a smooth relative of ReLU: $x\,\Phi(x)$, with $\Phi$ the standard normal's cumulative distribution,
# so almost $x$ for large $x$ and slightly negative for $x < 0$ ([GELU against
# ReLU](#Evidence:-GELU-against-ReLU)). Attention *mixes* tokens; the MLP *transforms* each token on its own.

# %% [markdown]
# ### The block
#
# The diagram shows one block at ViT-Base's width: D = 768, 12 heads, 176 tokens. Each residual path leaves
# *before* its LayerNorm, so the stream of sums that runs from block to block is never normalised itself; each
# LayerNorm reads a normalised copy of it. LayerNorm 1 and 2 are the block's `norm1` and
# `norm2`; like fc1 and fc2 in the MLP, code names count a block's parts from 1, even in block 0. Under the
# diagram the cell runs the block's whole forward pass, equations (2) and (3), in two lines.

# %% mystnb={"image": {"alt": "Diagram of one pre-norm encoder block: the tokens (13, 176, 768) go through norm1, 12-head attention and a residual sum, then norm2, an MLP widening to 3072 and back, and a second residual sum"}}
block = EncoderBlock(D, num_heads=12, mlp_ratio=4.0).to(device).eval()
fig, ax = plt.subplots(figsize=(7.5, 8.25))
diagrams.encoder_block(ax=ax, block=block, batch=batch, tokens=n_tokens + 1)
plt.show()
with torch.no_grad():
    z = tokens_in[:2]  # (2, N + 1, D): two items of the batch
    z = z + block.attn(block.norm1(z))  # equation (2)
    z = z + block.mlp(block.norm2(z))  # equation (3); block.mlp: D -> 4D, GELU, 4D -> D, on each token
    same = torch.allclose(z, block(tokens_in[:2]), atol=1e-5)  # the two lines against the package's block
print(
    f"block: {tuple(tokens_in[:2].shape)} -> {tuple(z.shape)}, MLP hidden width {block.mlp.fc1.out_features}"
)
print(f"the two lines give the package's block(...): {same}")
assert same

# %% [markdown]
# ### Pre-norm and post-norm
#
# The original Transformer (Vaswani et al., 2017) normalises *after* adding the residual. That is
# **post-norm**: $\mathbf{z} \leftarrow \text{LN}(\mathbf{z} + f(\mathbf{z}))$. ViT normalises *before* each
# part. That is **pre-norm**: $\mathbf{z} \leftarrow \mathbf{z} + f(\text{LN}(\mathbf{z}))$, equations (2)
# and (3).
#
# In pre-norm the input reaches the output through a plain sum, an *identity path*, however deep the stack.
# Post-norm Transformers usually need a *learning-rate warm-up*: over the first steps of training the learning
# rate climbs from near zero. Pre-norm ones *can* train without it, as Xiong et
# al. showed in *On Layer Normalization in the Transformer Architecture*, ICML 2020, Sections 3 and 4; ViT and
# notebook 10 still use one.
#
# What pre-norm leaves open: nothing normalises the sum itself, so its scale is not fixed. The cell takes the 12
# blocks of a fresh ViT at D = 768, blocks 0 to 11, with the package's random starting weights. It prints the
# tokens' *overall std*, the standard deviation of all their entries together (`z.std()`), after each block,
# then each token's own std after a final LayerNorm. (`unbiased=False` divides by D, as LayerNorm's
# $\sigma^2$ does.)

# %%
torch.manual_seed(0)
deep = VisionTransformer(embed_dim=D, depth=12, num_heads=12).to(device).eval()  # ViT-Base's blocks
with torch.no_grad():
    z = tokens_in[:2]  # (2, N + 1, D)
    spread = [z.std().item()]  # the overall std: all 2 x 176 x 768 entries together
    for layer in deep.blocks:
        z = layer(z)  # (2, N + 1, D): pre-norm, so z itself is never normalised
        spread.append(z.std().item())
    final_std = deep.norm(z).std(-1, unbiased=False)  # (2, N + 1): each token's std after the final norm
print("overall std entering block 0, then after blocks 0 to 11:", [f"{v:.2f}" for v in spread])
print(f"after the final LayerNorm, every token's std: {final_std.mean().item():.2f}")
assert spread[-1] > spread[0] and bool(((final_std - 1).abs() < 1e-3).all())

# %% [markdown]
# This fresh stack grows only from 1.00 to 1.38 over its 12 blocks. The growth is small; the point is its
# cause. Nothing rescales the running sum $\mathbf{z}$: each block only adds its update, so the scale is
# whatever the input and the updates make it. ViT ends with a **final** norm, equation (4). The paper gives no
# reason; one is that nothing else fixes the sum's scale. The head then sees token 0 at mean 0 and std 1,
# before the norm's learned scale and shift, whatever the scale of $\mathbf{z}$.

# %% [markdown]
# ### Exercise 2 (find the bug)
#
# A colleague wants the original Transformer's **post-norm** block, to compare it with ViT's. `norm1` belongs to the attention step, `norm2`
# to the MLP step. The function below runs and keeps every shape, but it is not a post-norm block. Write the
# corrected version as `my_post_norm_block`.


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

# %% [markdown]
# ### Exercise 3 (predict)
#
# Run the drift cell's 12 fresh blocks again, each in the post-norm order of `my_post_norm_block` instead of
# ViT's.
#
# - (a) What overall std leaves the last one, block 11: `"about 1.0"`, `"about 1.4"` or `"above 2"`? Set
#   `answer_post_norm_std`.
# - (b) Now multiply the tokens that enter block 0 by 10. Divide the std that leaves block 11 by the std that
#   enters block 0: what ratio do you expect? Set `answer_scaled_ratio` to a number.
#
# Write down for yourself, too, whether a post-norm ViT would need equation (4)'s final norm.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "post_norm_drift_choice-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_post_norm_std = None  # replace None with "about 1.0", "about 1.4" or "above 2"
answer_scaled_ratio = None  # replace None with a number
### BEGIN SOLUTION
# (a) Each post-norm block ends with a LayerNorm, which starts with scale 1 and shift 0: every token leaves the
# block at mean 0 and std 1, whatever entered it. So the std stays at 1.0.
answer_post_norm_std = "about 1.0"
# (b) The last LayerNorm divides each token by its own std, so the input's scale is gone after block 0: about
# 10 enters, 1.0 leaves, a ratio of 1/10. A post-norm stack needs no final norm.
answer_scaled_ratio = 1 / 10
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "post_norm_drift_choice-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.post_norm_drift_choice(answer_post_norm_std)
check.post_norm_scaled_ratio(answer_scaled_ratio)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "post_norm_drift_choice-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.post_norm_drift_choice, answer_post_norm_std)
### END HIDDEN TESTS

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "post_norm_scaled_ratio-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.post_norm_scaled_ratio, answer_scaled_ratio)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 3

# %% [markdown]
# The drift cell again, with the same 12 fresh blocks run in the post-norm order (add, then normalise: the fix
# of Exercise 2, written out in the cell so that it runs whatever your answer). Then once more with the tokens
# entering block 0 ten times larger, in both orders. The chart draws each run relative to its own input's std:
# the input at its own scale on the left, ten times larger on the right; pre-norm blue, post-norm orange. On
# each side, compare where the two lines end.


# %% mystnb={"image": {"alt": "Two line charts of the tokens' overall std after each of blocks 0 to 11, relative to the std entering block 0. Left, the input at its own scale: pre-norm climbs to about 1.4, post-norm stays at 1. Right, the input ten times larger: pre-norm stays near 1, post-norm falls to a tenth after block 0 and stays there"}}
def stack_stds(z: torch.Tensor, post: bool) -> list[float]:
    """The overall std entering block 0, then after each of the 12 blocks of `deep`, pre-norm or post-norm."""
    stds = [z.std().item()]
    for layer in deep.blocks:
        if post:  # post-norm: each part's output added, then the sum normalised
            z = layer.norm1(z + layer.attn(z))
            z = layer.norm2(z + layer.mlp(z))  # (2, N + 1, D)
        else:
            z = layer(z)  # pre-norm, the package's block
        stds.append(z.std().item())
    return [v / stds[0] for v in stds]  # relative to the std entering block 0


with torch.no_grad():
    drift = {
        (post, factor): stack_stds(factor * tokens_in[:2], post)
        for post in (False, True)
        for factor in (1, 10)
    }
spread_post, spread_post_10 = drift[True, 1], drift[True, 10]
in_std = tokens_in[:2].std().item()  # the std entering block 0 at the input's own scale
print(
    "post-norm: std after blocks 0 to 11, relative to the std entering block 0:",
    [f"{v:.2f}" for v in spread_post[1:]],
)
for factor in (1, 10):
    print(
        f"input x{factor} (std {factor * in_std:.2f}): after block 11, relative to the start, "
        f"pre-norm {drift[False, factor][-1]:.3f}, post-norm {drift[True, factor][-1]:.3f}"
    )
added = drift[False, 1][-1] ** 2 - 1  # the variance the 12 pre-norm updates add, relative to the input's
predicted = (100 + added) ** 0.5 / 10  # the same updates added to an input of 100 times the variance
print(
    f"pre-norm: the updates add {added:.2f} to a variance of 1; from x10 that predicts "
    f"sqrt(100 + {added:.2f}) / 10 = {predicted:.3f}, measured {drift[False, 10][-1]:.3f}"
)
assert abs(predicted - drift[False, 10][-1]) < 2e-3  # the variance sum explains the x10 run
assert all(abs(v * in_std - 1) < 1e-2 for v in spread_post[1:])  # post-norm: std 1 after every block
assert all(abs(v * 10 * in_std - 1) < 1e-2 for v in spread_post_10[1:])  # whatever the scale coming in
assert (
    drift[False, 1][-1] > 1.2 and 1 < drift[False, 10][-1] < 1.02
)  # pre-norm: updates of a fixed size, added


fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True, layout="constrained")
for ax, factor in zip(axes, (1, 10), strict=True):
    for post in (False, True):
        ax.plot(
            range(-1, 12), drift[post, factor], marker="o", ms=4,
            color="tab:orange" if post else "tab:blue", label="post-norm" if post else "pre-norm",
        )  # fmt: skip
    ax.axhline(1, color="grey", lw=0.5)
    ax.set_xticks(range(-1, 12), ["in"] + [str(k) for k in range(12)])
    ax.set_xlabel("after block (in: entering block 0)")
    ax.set_title("input at its own scale" if factor == 1 else "input x 10")
    ax.legend(fontsize=8)
axes[0].set_ylabel("std / std entering block 0")
fig.suptitle(
    "Pre-norm keeps the input's scale and adds to it; post-norm sets the std to 1 (a tenth of a x10 input)"
)
plt.show()

# %% [markdown]
# **Pre-norm (blue).** The stream itself is never normalised, so the input's scale passes on through the identity path.
# Each block adds an update $f(\text{LN}(\mathbf{z}))$ whose input is normalised, so its size hardly depends on
# that scale. Roughly independent variances add. At the input's own scale (variance 1) the 12 updates add
# 0.92, and the std grows by about 38 %. From ten times larger (variance 100) the same amount is a small share:
# prediction and measurement, both printed, grow under 1 %.
#
# **Post-norm (orange).** Each post-norm block ends with a LayerNorm, and a fresh one ($\boldsymbol\gamma = 1$,
# $\boldsymbol\beta = 0$) leaves every token at std 1, whatever came in: relative to the inputs, 1 and 0.1.
# After training, the learned $\boldsymbol\gamma$ and $\boldsymbol\beta$ set that scale instead. So a post-norm
# stack needs no final norm, and the original Transformer has none.
#
# So the scale is not what favours pre-norm: post-norm holds it steadier. What post-norm gives
# up is the identity path. What that does to the gradients during training, and so to the warm-up, is Xiong et
# al.'s subject; this notebook does not measure it.

# %% [markdown]
# ## 4. The whole ViT in one listing (5 min)
#
# Every part is now known. Here is the whole model in one class of plain PyTorch, `vitcourse/vit_listing.py`:
# the patch tokens, the prediction token and the position embedding (section 2), the blocks (section 3), the
# final norm and the head on token 0. Comments name the paper's equation where a line implements one, and each
# reshape carries its shape; `forward`'s `p` is the patch size, the paper's $P$. Check each commented line
# against its equation in section 1. One line differs from the diagram of section 1: the listing takes token 0
# and then normalises it, `self.norm(x[:, 0])`, where the diagram normalises all tokens first. LayerNorm works
# on each token alone, so token 0's row comes out the same either way. The listing starts the prediction token and the table at zeros, where the
# package draws them at random; with the same weights, the package's `VisionTransformer` computes the same
# thing ([the listing against the package](#Evidence:-the-listing-against-the-package)).

# %%
print(inspect.getsource(vit_listing))

# %% [markdown]
# ## 5. A block's parameters (6 min)
#
# Almost every parameter of a ViT sits in its blocks. At ViT's settings, MLP ratio 4 and qkv with a bias, one
# block holds, part by part (a linear layer from length $a$ to length $b$ has $ab$ weights and $b$ biases):
#
# | part | weights | biases or shifts | in all |
# |---|---|---|---|
# | norm1: scale $\boldsymbol\gamma$, shift $\boldsymbol\beta$ | $D$ | $D$ | $2D$ |
# | qkv: $D \to 3D$ | $3D^2$ | $3D$ | $3D^2 + 3D$ |
# | proj: $D \to D$ | $D^2$ | $D$ | $D^2 + D$ |
# | norm2 | $D$ | $D$ | $2D$ |
# | fc1: $D \to 4D$ | $4D^2$ | $4D$ | $4D^2 + 4D$ |
# | fc2: $4D \to D$ | $4D^2$ | $D$ | $4D^2 + D$ |
# | **block** | | | $12D^2 + 13D$ |
#
# The cell first checks the sum at two widths.
#
# The ViT paper's Table 1 gives three sizes: Base, Large and Huge, with the number of blocks ("layers"), D, the
# MLP's hidden width, the heads and the parameters in millions. The cell then builds each on the `meta` device,
# free even at 632M parameters, counts it, and prints the paper's figure beside the count. ViT-B/16 is Base
# with 16 × 16 patches. The counts are of the models as the package builds them for ImageNet, a collection of photos in 1000 classes: a
# 224 × 224 × 3 input and a head for 1000 classes, whose $1000D + 1000$ parameters are part of the count (the
# "output layer" column).

# %%
for width in (64, 768):
    with torch.device("meta"):
        one_block = EncoderBlock(width, num_heads=4, mlp_ratio=4.0)
    counted_block = sum(p.numel() for p in one_block.parameters())
    print(f"one block at D = {width}: 12D² + 13D = {12 * width**2 + 13 * width:,}, counted {counted_block:,}")
    assert counted_block == 12 * width**2 + 13 * width

paper_millions = {"ViT-B/16": 86, "ViT-L/16": 307, "ViT-H/16": 632, "ViT-H/14": 632}  # ViT paper, Table 1
settings = {
    "ViT-B/16": ("vit_base_patch16_224", {}),
    "ViT-L/16": ("vit_large_patch16_224", {}),
    "ViT-H/16": ("vit_huge_patch16_224", {}),
    "ViT-H/14": ("vit_huge_patch16_224", {"patch_size": 14}),
}
rows = []
with torch.device("meta"):
    for label, (preset, overrides) in settings.items():
        model = create_model(preset, **overrides)
        blk = model.blocks[0]
        rows.append(
            (
                label,
                len(model.blocks),
                model.embed_dim,
                blk.mlp.fc1.out_features,
                blk.attn.num_heads,
                count_parameters(model)[0],
                paper_millions[label],
            )
        )
print(
    f"{'model':9s} {'layers':>6s} {'D':>5s} {'MLP':>5s} {'attn heads':>10s} {'counted':>12s} {'paper':>6s} "
    f"{'in blocks':>9s} {'output layer (M)':>16s}"
)
for label, layers, d_model, mlp, heads, count, millions in rows:
    in_blocks = layers * (12 * d_model**2 + 13 * d_model) / count
    head_m = (1000 * d_model + 1000) / 1e6  # the 1000-class head, in millions
    print(
        f"{label:9s} {layers:6d} {d_model:5d} {mlp:5d} {heads:10d} {count:12,d} {millions:5d}M "
        f"{in_blocks:9.1%} {head_m:16.2f}"
    )
    assert mlp == 4 * d_model and in_blocks > 0.98  # ratio 4; almost every parameter sits in the blocks

# %% [markdown]
# The paper's figures are rounded, and it does not say how it counted; they lie within 1 % of the exact counts
# of this layout ([the sizes against the paper](#Evidence:-the-sizes-against-the-paper) prints the gaps). In
# all sizes the blocks hold more than 98 % of the parameters (the "in blocks" column). Notebook 07 counts the
# multiply-adds that go with them.

# %% [markdown]
# ## Summary
#
# - ViT is four equations: the tokens with the prediction token and positions, two pre-norm residual updates
#   per block, and a final norm on token 0 before the head. The course counts blocks from 0, the paper from 1.
# - The prediction token is one parameter expanded over the batch; the slides' token, one per batch slot, ties
#   the model to one batch size.
# - LayerNorm normalises each token over its own D entries. The MLP widens each token to 4D in ViT (to 2D in
#   the models trained from notebook 10 on) and narrows it back.
# - Pre-norm keeps an identity path through the stack but lets the sum's scale drift, and ViT ends with a final
#   norm. Post-norm normalises the sum after each part instead; Exercise 3 measures what that does to the scale.
# - One block holds $12D^2 + 13D$ parameters at MLP ratio 4. With a 224 × 224 × 3 input and a 1000-class head,
#   ViT-B/16, -L/16 and -H/14 hold 86.57M, 304.33M and 632.05M parameters (the paper's labels: 86M, 307M,
#   632M), more than 98 % in their blocks.
#
# **Next:** [07 The whole Vision Transformer](07_vision_transformer.ipynb) builds the third step in full, runs
# the whole model on the picture and counts what a block costs. The sections below hold the evidence.

# %% [markdown]
# ## Evidence: the listing against the package
#
# The package's `VisionTransformer` adds input checks and tools for looking inside to the listing of section 4,
# but computes the same thing, with the same parameter names. The cell loads its weights into the listing for
# the picture model and for a fresh one with MLP ratio 2, the layout of the models trained from notebook 10 on,
# and compares the outputs on the picture.

# %%
from vitcourse import load_mountains
from vitcourse.vit_listing import ViTListing

picture = load_mountains()
image = vitcourse.to_tensor(picture).to(device)  # (1, 1, 60, 100)
torch.manual_seed(0)
ratio_2 = VisionTransformer(embed_dim=64, depth=2, num_heads=4, mlp_ratio=2.0).to(device).eval()
for name, model, ratio in (("picture model", vit, 4.0), ("fresh model", ratio_2, 2.0)):
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
# its output, unlike the article series' code; notebook 08 explains.

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
# ## Evidence: the sizes against the paper
#
# Section 5's counts beside the exact counts of timm, the reference library, and the paper's Table 1.

# %%
timm_counts = {"ViT-B/16": 86_567_656, "ViT-L/16": 304_326_632}  # timm's vit_{base,large}_patch16_224
for label, *_, count, millions in rows:
    timm_count = f"{timm_counts[label]:,d}" if label in timm_counts else "-"
    print(
        f"{label:9s} counted {count:12,d}  timm {timm_count:>12s}  paper {millions:4d}M  "
        f"counted - paper {(count - millions * 1e6) / 1e6:+.2f}M"
    )
print(f"the T2T-ViT paper's 86.8M for ViT-B/16 minus the exact count: {86.8 - rows[0][5] / 1e6:+.2f}M")
assert all(count == timm_counts[label] for label, *_, count, _ in rows if label in timm_counts)

# %% [markdown]
# Base and Large equal the counts timm reports, as copied from timm into the cell (timm is not needed to run
# the course). Table 1's figures are off by under 1 %
# either way: the exact count is 0.57M *above* Base's 86M (86.57M would round to 87M) and 2.67M *below* Large's
# 307M. The paper does not say how it counted; the exact count of the layout, ours and timm's, is the
# reference. Huge is within 0.2M of 632M with either patch size. The two Huge counts differ little from each
# other because the patch size changes only the patch projection ($P^2 \cdot 3 \cdot D$ weights) and the
# number of position rows. The T2T-ViT paper lists ViT-B/16 with 86.8M parameters, 0.23M more than the exact
# count; it rounds and counts in its own way, so notebook 07 compares only its multiply-adds (MACs). The chart
# shows the gaps in the same direction as the printout, counted minus paper; they would be too small to see
# beside the counts.

# %% mystnb={"image": {"alt": "Bar chart of the exact parameter count minus the ViT paper's Table 1 figure, in per cent of the paper's, for ViT-B/16, ViT-L/16, ViT-H/16 and ViT-H/14: every bar is within 1 per cent of zero, Base above, Large below"}}
labels = [r[0] for r in rows]
gaps = [100 * (r[5] - r[6] * 1e6) / (r[6] * 1e6) for r in rows]  # counted - paper, in % of the paper's
assert all(abs(g) < 1 for g in gaps)  # the title's claim
above, below = "tab:orange", "tab:blue"
fig, ax_gap = plt.subplots(figsize=(7, 3.8))
ax_gap.bar(labels, gaps, color=[above if g > 0 else below for g in gaps])
for k, g in enumerate(gaps):
    ax_gap.annotate(f"{g:+.2f}%", (k, g), ha="center", va="top" if g < 0 else "bottom", fontsize=9)
ax_gap.axhline(0, color="k", lw=0.8)
ax_gap.set_ylim(min(gaps) - 0.4, max(gaps) + 0.4)
ax_gap.set_ylabel("counted - paper (% of the paper's)")
ax_gap.set_xlabel("model")
ax_gap.set_title("Exact parameter counts against the paper's Table 1: within 1% for every size")
ax_gap.legend(
    handles=[
        plt.Rectangle((0, 0), 1, 1, color=above, label="exact count above the paper's figure"),
        plt.Rectangle((0, 0), 1, 1, color=below, label="exact count below the paper's figure"),
    ],
    loc="upper right",
    fontsize=8,
)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## Evidence: real weights and the lecture slides
#
# `vitcourse.checkpoints` loads timm's ViT checkpoints (saved weights) into our `VisionTransformer` through a
# key map, documented in that module. For timm the map keeps every name and changes one tensor's layout: the
# patch embedding's weight, stored as a convolution's there and as a linear layer's here. The next cell compares our model with timm's on the picture only where the `timm` package and its ViT-B/16
# weights are already on this computer. It looks in the local Hugging Face cache and never downloads;
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

# %% [markdown]
# | lecture slides | vitcourse |
# |---|---|
# | `nn.Conv2d(3, 768, kernel_size=16, stride=16, bias=False)`, then flatten | `PatchTokenizer`: `nn.Unfold` + `nn.Linear`, the same numbers with the same weights and our linear layer's bias at zero, since the slides' convolution has none (notebook 01) |
# | `nn.MultiheadAttention` | `Attention`, equal with copied weights (notebook 05) |
# | prediction token `nn.Parameter(torch.ones(batch_size, 1, 768))`: learns, one per batch slot | `cls_token`, one learned (1, 1, 768) vector, expanded over any batch (section 2) |

"""The whole Vision Transformer in one listing: one class, plain PyTorch, read from top to bottom.

It is the model of ``vitcourse.models.VisionTransformer`` with a learned position embedding. The parameters
have the same names, so ``ViTListing(...).load_state_dict(vit.state_dict())`` gives the same outputs
(``tests/test_vit_listing.py`` checks it). Notebook 06 prints this file.
"""

import torch
from torch import nn


class ViTListing(nn.Module):
    """Images (B, C, H, W) -> predictions (B, num_classes): equations (1) to (4) of the ViT paper."""

    def __init__(
        self,
        img_size: tuple[int, int] = (60, 100),  # (H, W): the course's picture
        patch_size: int = 20,  # P
        in_chans: int = 1,  # C
        num_classes: int = 1,
        embed_dim: int = 64,  # D, the token length
        depth: int = 2,  # L, the number of encoder blocks
        num_heads: int = 4,
        mlp_ratio: float = 4.0,  # the MLP's hidden width is mlp_ratio * D
        eps: float = 1e-6,  # LayerNorm's epsilon
    ) -> None:
        super().__init__()
        height, width = img_size
        n_patches = (height // patch_size) * (width // patch_size)  # N
        dim, hidden = embed_dim, int(embed_dim * mlp_ratio)
        self.patch_size, self.num_heads = patch_size, num_heads
        # equation (1): the patch projection E, the prediction token x_class, the position embedding E_pos
        self.patch_embed = nn.ModuleDict({"proj": nn.Linear(in_chans * patch_size**2, dim)})
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))  # one for the model, shared by every image
        self.pos_embed = nn.Parameter(torch.zeros(1, n_patches + 1, dim))  # one row per token
        # equations (2) and (3): L encoder blocks, each a norm and attention, then a norm and an MLP
        self.blocks = nn.ModuleList(
            nn.ModuleDict(
                {
                    "norm1": nn.LayerNorm(dim, eps=eps),
                    "attn": nn.ModuleDict({"qkv": nn.Linear(dim, 3 * dim), "proj": nn.Linear(dim, dim)}),
                    "norm2": nn.LayerNorm(dim, eps=eps),
                    "mlp": nn.ModuleDict({"fc1": nn.Linear(dim, hidden), "fc2": nn.Linear(hidden, dim)}),
                }
            )
            for _ in range(depth)
        )
        # equation (4): the final norm, then the head
        self.norm = nn.LayerNorm(dim, eps=eps)
        self.head = nn.Linear(dim, num_classes)

    def attention(self, attn: nn.ModuleDict, x: torch.Tensor) -> torch.Tensor:
        """Multi-head self-attention (notebooks 04 and 05): (B, N + 1, D) -> (B, N + 1, D)."""
        batch, n, dim = x.shape
        heads, head_dim = self.num_heads, dim // self.num_heads
        qkv = attn["qkv"](x).reshape(batch, n, 3, heads, head_dim)  # (B, N + 1, 3, heads, D / heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4)  # each (B, heads, N + 1, D / heads)
        scores = q @ k.transpose(-2, -1) * head_dim**-0.5  # (B, heads, N + 1, N + 1)
        mixed = scores.softmax(dim=-1) @ v  # (B, heads, N + 1, D / heads)
        merged = mixed.transpose(1, 2).reshape(batch, n, dim)  # (B, N + 1, heads, D / heads) -> (B, N + 1, D)
        return attn["proj"](merged)  # (B, N + 1, D)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        batch, chans, height, width = images.shape
        p = self.patch_size
        # cut into P x P patches, numbered row by row, and flatten each (notebook 01)
        x = images.reshape(batch, chans, height // p, p, width // p, p)  # (B, C, rows, P, columns, P)
        x = x.permute(0, 2, 4, 1, 3, 5)  # (B, rows, columns, C, P, P)
        x = x.reshape(batch, -1, chans * p * p)  # (B, N, C * P * P)
        x = self.patch_embed["proj"](x)  # (B, N, D)
        cls = self.cls_token.expand(batch, -1, -1)  # (B, 1, D): a view, not a copy
        x = torch.cat([cls, x], dim=1) + self.pos_embed  # (B, N + 1, D): equation (1)
        for block in self.blocks:
            x = x + self.attention(block["attn"], block["norm1"](x))  # equation (2)
            mlp = block["mlp"]
            x = x + mlp["fc2"](nn.functional.gelu(mlp["fc1"](block["norm2"](x))))  # equation (3)
        y = self.norm(x[:, 0])  # (B, D): the prediction token, token 0; equation (4)
        return self.head(y)  # (B, num_classes)

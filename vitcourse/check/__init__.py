"""Exercise checkers: each prints ✓ or a specific hint, returns a :class:`Verdict`, and never raises.

Every checker takes the learner's answer as it is (a number, a tuple, a tensor, an array, a function, or
something else entirely) and compares it with the package's own result. A wrong type, a wrong shape, a NaN, a
function that raises: each gets a sentence saying what was expected, never a traceback. Function checkers
also try the typical wrong answers on the same inputs and name the mistake when one matches.

Layout: ``_core`` holds the machinery; ``nb01`` ... ``nb07`` hold each notebook's exercises. Usage::

    from vitcourse import check
    check.patch_count(answer)
"""

from __future__ import annotations

from ._core import Verdict
from .nb01 import patch_count, patch_number, patchify_function, token_position
from .nb02 import count_tokens_function, rebuild_function, soft_split_count, soft_split_function
from .nb03 import (
    learned_embedding_size,
    permuted_weights_function,
    sinusoidal_entry,
    sinusoidal_function,
)
from .nb04 import (
    attention_entropy_function,
    attention_function,
    attention_parameter_count,
    entropy_prediction,
    merge_heads_function,
    scores_shape,
)
from .nb05 import (
    block_macs,
    block_parameter_count,
    mean_pool_function,
    post_norm_block_function,
    prepend_function,
    vit_token_count,
)
from .nb06 import t2t_picture_tokens, t2t_qkv_weight_count, t2t_smallest_side_function
from .nb07 import lr_at_step, no_decay_count, no_position_accuracy, seam_blocks_choice

__all__ = [
    "Verdict",
    "patch_count",
    "patch_number",
    "token_position",
    "patchify_function",
    "soft_split_count",
    "count_tokens_function",
    "soft_split_function",
    "rebuild_function",
    "permuted_weights_function",
    "sinusoidal_entry",
    "sinusoidal_function",
    "learned_embedding_size",
    "entropy_prediction",
    "attention_entropy_function",
    "scores_shape",
    "merge_heads_function",
    "attention_function",
    "attention_parameter_count",
    "vit_token_count",
    "block_parameter_count",
    "prepend_function",
    "post_norm_block_function",
    "mean_pool_function",
    "block_macs",
    "t2t_qkv_weight_count",
    "t2t_picture_tokens",
    "t2t_smallest_side_function",
    "lr_at_step",
    "no_position_accuracy",
    "seam_blocks_choice",
    "no_decay_count",
]

import os

import pytest
import torch

# Another floating-point path for the whole suite (book/pages/testing.md, "Re-runs"): with VITCOURSE_TEST_MKLDNN=0
# torch's CPU kernels run without oneDNN, and every test must still pass.
if os.environ.get("VITCOURSE_TEST_MKLDNN") == "0":
    torch.backends.mkldnn.enabled = False

# The unit tests use the shipped picture whatever the learner's environment says.
os.environ.pop("VITCOURSE_IMAGE", None)


@pytest.fixture(autouse=True)
def _seed() -> None:
    torch.manual_seed(0)

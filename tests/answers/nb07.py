"""Right answers for the checkers of notebook 07; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

VALUE_CHECKS: dict = {}
FUNCTION_CHECKS: dict = {}
MISTAKES: list = []

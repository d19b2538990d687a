"""scrubcheck.deadline: the time left, whether it has passed, how long a wait may block."""

from __future__ import annotations

import math
import time

from scrubcheck.deadline import Deadline


def test_no_limit_never_passes():
    deadline = Deadline(None)
    assert not deadline.passed()
    assert deadline.left() == math.inf
    assert deadline.wait_s() is None


def test_a_limit_counts_down_and_passes():
    deadline = Deadline(0.05)
    assert not deadline.passed()
    assert 0 < deadline.left() <= 0.05
    assert 0 < deadline.wait_s() <= 0.05
    time.sleep(0.06)
    assert deadline.passed()
    assert deadline.left() == 0.0 and deadline.wait_s() == 0.0


def test_a_zero_limit_has_passed_at_once():
    assert Deadline(0).passed()

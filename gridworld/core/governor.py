"""Governors: which proposal is executed, and why every other one was not.

``lexicographic`` filters, never weighs: (1) environment safety (off the map,
wall, hazard), (2) admissibility of the predicted kernel state, (3) Lyapunov
non-increase, (4) absorption (at ``b = 0`` only the zero-work Stay); then the
highest score among the survivors wins, ties to the first in action order.
Every gate runs on every proposal, so each proposal carries all its reasons.
Stay always survives, so a step never lacks an action.

``none`` executes the proposer's favourite unchecked; it records the reasons
the lexicographic gates would have given, and is the baseline that shows the
safety counters are live.

The gates run in ``gridworld.core.fastpath.decide_fast`` (on the map's
precomputed verdicts); the plain reference (``gate_reasons`` and ``decide``,
one call per proposal) is the tests' oracle in ``tests/gridworld/oracle.py``.
This module keeps the governors, the reason codes and ``NoSafeAction``.
"""

from __future__ import annotations

GOVERNOR_KINDS = ("lexicographic", "none")

OUT_OF_BOUNDS = "env:out_of_bounds"
WALL_COLLISION = "env:wall_collision"
HAZARD_COLLISION = "env:hazard_collision"
INADMISSIBLE = "kernel:inadmissible"
LYAPUNOV_PREFIX = "coh:lyapunov_increase"
ABSORBED = "abs:absorbed"


class NoSafeAction(AssertionError):
    """Raised if every proposal is rejected: impossible while Stay is proposed."""

"""The hazard gridworld, its coherence kernel, proposers, governor and receipts.

Pure Python with integer arithmetic only: no Django, no clock, no ``random``,
no set iteration in anything that is hashed, so a run replays byte for byte in
any process whatever its ``PYTHONHASHSEED``.
"""

"""The canonical JSON texts a run receipt hashes, written from parts.

``config_hash`` and ``run_hash`` are the sha256 of canonical JSON
(``gridworld.core.episode.canonical``). Encoding a whole config or receipt
for each episode was a third of a receipt's cost; these functions write the
same text from pieces: a config's text from a frame kept per batch shape
(everything but the initial memory and the seed), the run hash's text with
the config's text spliced in. ``tests/gridworld/core/test_receipt_text.py``
checks both against ``canonical`` on every kind of episode.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import orjson

from core.json_bytes import sorted_compact_json_text as canonical

if TYPE_CHECKING:
    from gridworld.core.episode import EpisodeConfig


# Stand-ins for the two config fields that change from episode to episode of
# a batch; a frame is used only where each occurs once in its text.
_MEMORY_MARK = "\x00memory\x00"
_SEED_MARK = "\x00seed\x00"
_CONFIG_MARK = "\x00config\x00"


# Frames kept by batch shape; emptied when full.
FRAMES_MAX = 64
_frames: dict[tuple[Any, ...], tuple[str, str, str] | None] = {}


def _frame(config: EpisodeConfig) -> tuple[str, str, str] | None:
    """The canonical JSON of ``config`` cut around ``initial_memory`` and
    ``seed``: ``head + canonical(memory) + middle + str(seed) + tail`` is the
    text of every episode of its batch; ``None`` where a stand-in is not
    found exactly once."""
    doc = replace(config, seed=0, initial_memory="").as_dict()
    doc["initial_memory"], doc["seed"] = _MEMORY_MARK, _SEED_MARK
    text = canonical(doc)
    memory, seed = canonical(_MEMORY_MARK), canonical(_SEED_MARK)
    if text.count(memory) != 1 or text.count(seed) != 1:
        return None
    head, _, rest = text.partition(memory)
    middle, _, tail = rest.partition(seed)
    return head, middle, tail


def config_text(config: EpisodeConfig) -> str:
    """``canonical(config.as_dict())``, from a frame kept per batch shape."""
    if config.proposer != "external":
        shape = (
            config.map,
            config.drift_period,
            config.max_steps,
            config.proposer,
            config.governor,
            config.kernel,
        )
        if shape in _frames:
            frame = _frames[shape]
        else:
            frame = _frame(config)
            if len(_frames) >= FRAMES_MAX:
                _frames.clear()
            _frames[shape] = frame
        if frame is not None:
            head, middle, tail = frame
            memory = canonical(config.initial_memory)
            return f"{head}{memory}{middle}{config.seed}{tail}"
    return canonical(config.as_dict())


def run_hash_text(receipt: dict[str, Any], config_json: str) -> str:
    """``canonical`` of the receipt without ``steps`` and ``run_hash``, with
    the config's canonical JSON given (``run_hash`` hashes this text).

    The rest is written by orjson with sorted keys and the config's text put
    in place of a stand-in: the receipt holds ints, bools, ``None``, lists,
    dicts with str keys and ASCII strings only, which orjson writes byte for
    byte as ``json.dumps`` does (``core.json_bytes.orjson_writes_alike``),
    ~20x faster for this size. An int past 64 bits goes to ``canonical``.
    """
    rest = {k: v for k, v in receipt.items() if k not in ("steps", "run_hash")}
    rest["config"] = _CONFIG_MARK
    try:
        text = orjson.dumps(rest, option=orjson.OPT_SORT_KEYS).decode("utf-8")
    except orjson.JSONEncodeError:
        text = canonical(rest)
    mark = canonical(_CONFIG_MARK)
    if text.count(mark) != 1:
        rest["config"] = receipt["config"]
        return canonical(rest)
    return text.replace(mark, config_json)

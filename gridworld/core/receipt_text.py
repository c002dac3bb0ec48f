"""The texts a run receipt hashes, written from parts.

``transition_text`` is the part of a step's chain preimage that does not
depend on ``t`` (see docs/gridworld.md, "Receipt bytes").

``config_hash`` and ``run_hash`` are the sha256 of canonical JSON
(``gridworld.core.episode.canonical``). Encoding a whole config or receipt
for each episode was a third of a receipt's cost; these functions write the
same text from pieces: a config's text from a frame kept per batch shape
(everything but the initial memory and the seed), the run hash's text with
the config's text spliced in. ``tests/gridworld/core/test_receipt_text.py``
checks both against ``canonical`` on every kind of episode.
"""

from __future__ import annotations

import hashlib
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
_CONFIG_MARK_JSON = canonical(_CONFIG_MARK)


# Frames kept by batch shape, with the config document of the shape;
# emptied when full.
FRAMES_MAX = 64
Frame = tuple[str, str, str]
_frames: dict[tuple[Any, ...], tuple[Frame | None, dict[str, Any]]] = {}
# canonical(text) of planner memories: an episode's final memory is the next
# one's initial memory in its lane. Emptied when full.
MEMORIES_MAX = 256
_memories: dict[str, str] = {}
_memory_digests: dict[str, str] = {}


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
    return config_parts(config)[1]


def config_parts(config: EpisodeConfig) -> tuple[dict[str, Any], str]:
    """``config.as_dict()`` and its canonical JSON (``config_text``), both
    from what is kept per batch shape: the text from its frame, the document
    a copy of the shape's with this episode's seed and initial memory (its
    map, start, goal and kernel are the shape's own objects: receipts are
    read-only)."""
    if config.proposer == "external":
        doc = config.as_dict()
        return doc, canonical(doc)
    shape = (
        config.map,
        config.drift_period,
        config.max_steps,
        config.proposer,
        config.governor,
        config.kernel,
    )
    kept = _frames.get(shape)
    if kept is None:
        kept = (_frame(config), config.as_dict())
        if len(_frames) >= FRAMES_MAX:
            _frames.clear()
        _frames[shape] = kept
    frame, base = kept
    doc = base.copy()
    doc["seed"] = config.seed
    doc["initial_memory"] = memory = config.initial_memory
    if frame is None:
        return doc, canonical(doc)
    head, middle, tail = frame
    return doc, f"{head}{memory_json(memory)}{middle}{config.seed}{tail}"


def memory_digest(memory: str) -> str:
    """The sha256 of a memory text (``final_memory_hash``), kept for the
    memories met lately (a lane's memory stops changing once it knows the
    map)."""
    digest = _memory_digests.get(memory)
    if digest is None:
        digest = hashlib.sha256(memory.encode("utf-8")).hexdigest()
        if len(_memory_digests) >= MEMORIES_MAX:
            _memory_digests.clear()
        _memory_digests[memory] = digest
    return digest


def memory_json(memory: str) -> str:
    """``canonical(memory)``, kept for the memories met lately."""
    text = _memories.get(memory)
    if text is None:
        text = canonical(memory)
        if len(_memories) >= MEMORIES_MAX:
            _memories.clear()
        _memories[memory] = text
    return text


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
    mark = _CONFIG_MARK_JSON
    if text.count(mark) != 1:
        rest["config"] = receipt["config"]
        return canonical(rest)
    return text.replace(mark, config_json)


def transition_text(step: dict[str, Any]) -> str:
    """The step's fields from ``kernel_state_hash`` to ``decision``,
    ``|``-separated in a fixed order; each proposal as its canonical encoding
    followed by its rejection reasons. None of them depends on ``t``."""
    proposals = ";".join(
        f"{p['action']}|{p['target'][0]},{p['target'][1]}|"
        f"{p['landing'][0]},{p['landing'][1]}|{p['v_task']}|{p['score']}|"
        f"{p['bonus']}:{','.join(p['reasons'])}"
        for p in step["decision"]
    )
    return (
        f"{step['kernel_state_hash']}|{step['proposalset_root']}|"
        f"{step['chosen_proposal_index']}|{step['chosen_proposal_hash']}|"
        f"{step['action_taken']}|{step['reward']}|{step['task_performance']}|"
        f"{int(step['goal_reached'])}|{step['budget']}|{step['exposure']}|"
        f"{step['work']}|{step['memory_writes']}|{proposals}"
    )

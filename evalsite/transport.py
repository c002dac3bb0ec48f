"""The embedded broker: kombu's filesystem transport, made at-least-once.

kombu's filesystem transport deletes a message file the moment a worker
fetches it, so a worker killed mid-task loses the task for good, whatever
``acks_late`` says. This transport keeps every message on disk until it is
settled:

- fetching *moves* the file (an atomic rename, so two workers never get the
  same file) from the queue folder into ``inflight_folder``, under a name
  that carries the fetching process's pid and the lease's deadline;
- ``ack`` and ``reject`` without requeue delete the in-flight file;
  ``reject`` with requeue, and a worker's clean shutdown, move it back;
- any consumer, on its first fetch and then every ``recover_interval``
  seconds, moves back every in-flight file whose owner process is gone
  (a SIGKILLed worker, a crashed machine) or whose lease ran past
  ``visibility_timeout`` -- the same contract as Redis's visibility timeout,
  so a message is redelivered, never lost. Tasks must therefore be safe to
  run twice, as ours are.

Messages of ``no_ack`` consumers (Celery's remote-control fanout) are
deleted on fetch, as before: nobody would ever acknowledge them.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
import uuid
from pathlib import Path
from queue import Empty
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem, virtual
from kombu.utils.encoding import bytes_to_str, str_to_bytes
from kombu.utils.json import dumps, loads

logger = logging.getLogger(__name__)

# <pid>~<lease deadline, epoch ms>~<the message's queue-folder name>
SEPARATOR = "~"
DEFAULT_VISIBILITY_TIMEOUT_S = 3600.0
DEFAULT_RECOVER_INTERVAL_S = 10.0


def process_is_alive(pid: int) -> bool:
    """Whether ``pid`` names a running (not zombie) process on this machine."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    # The state follows the command name in parentheses; "Z" and "X" are dead.
    return stat.rpartition(")")[2].split()[:1] not in (["Z"], ["X"])


def inflight_name(name: str, *, pid: int, deadline_ms: int) -> str:
    return f"{pid}{SEPARATOR}{deadline_ms}{SEPARATOR}{name}"


def parse_inflight_name(inflight: str) -> tuple[int, int, str] | None:
    """``(pid, deadline_ms, queue-folder name)``, or None for a stray file."""
    pid, _, rest = inflight.partition(SEPARATOR)
    deadline, _, name = rest.partition(SEPARATOR)
    if not (pid.isdigit() and deadline.isdigit() and name):
        return None
    return int(pid), int(deadline), name


def recover_inflight(
    inflight_folder: Path, queue_folder: Path, *, now_ms: int, own_pid: int
) -> list[str]:
    """Move back to ``queue_folder`` every in-flight message whose owner is
    gone or whose lease expired; returns the names moved back.

    Safe with any number of concurrent callers: each file is moved by one
    atomic rename, and a loser of the race just skips it.
    """
    restored: list[str] = []
    try:
        entries = sorted(os.listdir(inflight_folder))
    except FileNotFoundError:
        return restored
    for entry in entries:
        parsed = parse_inflight_name(entry)
        if parsed is None:
            continue
        pid, deadline_ms, name = parsed
        expired = now_ms >= deadline_ms
        orphaned = pid != own_pid and not process_is_alive(pid)
        if not (expired or orphaned):
            continue
        try:
            os.rename(inflight_folder / entry, queue_folder / name)
        except OSError:
            continue
        restored.append(name)
    return restored


class AcknowledgedQoS(virtual.QoS):
    """Settles the in-flight file when a message is acked or rejected."""

    def ack(self, delivery_tag: Any) -> None:
        self.channel.settle(delivery_tag)
        super().ack(delivery_tag)

    def reject(self, delivery_tag: Any, requeue: bool = False) -> None:
        # With requeue the channel's _restore moves the file back first, so
        # settle() then finds nothing left to delete.
        super().reject(delivery_tag, requeue=requeue)
        self.channel.settle(delivery_tag)


class Channel(filesystem.Channel):
    QoS = AcknowledgedQoS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._inflight: dict[Any, Path] = {}
        self._no_ack_queues: set[str] = set()
        self._next_recovery = 0.0

    # --- options -------------------------------------------------------------

    @property
    def inflight_folder(self) -> Path:
        folder = self.transport_options.get("inflight_folder")
        if folder:
            return Path(folder)
        return Path(self.data_folder_in).parent / "inflight"

    @property
    def visibility_timeout(self) -> float:
        return float(
            self.transport_options.get(
                "visibility_timeout", DEFAULT_VISIBILITY_TIMEOUT_S
            )
        )

    @property
    def recover_interval(self) -> float:
        return float(
            self.transport_options.get("recover_interval", DEFAULT_RECOVER_INTERVAL_S)
        )

    # --- publishing ----------------------------------------------------------

    def _put(self, queue: str, payload: Any, **kwargs: Any) -> None:
        """Write the message whole under a name no consumer looks at, then
        rename it into the queue. kombu creates the file and then writes it,
        and a consumer listing the folder in between read an empty message
        (JSONDecodeError: the worker stopped, and with it ``make demo``).
        The name keeps kombu's form (monotonic ms first: oldest first)."""
        name = f"{round(time.monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        folder = Path(self.data_folder_out)
        partial = folder / f".{name}.partial"
        try:
            partial.write_bytes(str_to_bytes(dumps(payload)))
            os.replace(partial, folder / name)
        except OSError as exc:
            partial.unlink(missing_ok=True)
            raise ChannelError(f"Cannot add file {name!r} to directory") from exc

    # --- consuming -----------------------------------------------------------

    def basic_consume(
        self, queue: str, no_ack: bool, callback: Any, consumer_tag: Any, **kw: Any
    ) -> Any:
        if no_ack:
            self._no_ack_queues.add(queue)
        return super().basic_consume(queue, no_ack, callback, consumer_tag, **kw)

    def basic_get(self, queue: str, no_ack: bool = False, **kwargs: Any) -> Any:
        message = super().basic_get(queue, no_ack=no_ack, **kwargs)
        if message is not None and no_ack:
            self.settle(message.delivery_tag)
        return message

    def _get(self, queue: str) -> Any:
        self._maybe_recover()
        queue_folder = Path(self.data_folder_in)
        inflight = self.inflight_folder
        wanted = f"{queue}.msg"
        for name in sorted(os.listdir(queue_folder)):
            if name.partition(".")[2] != wanted:
                continue
            deadline_ms = int((time.time() + self.visibility_timeout) * 1000)
            target = inflight / inflight_name(
                name, pid=os.getpid(), deadline_ms=deadline_ms
            )
            try:
                os.rename(queue_folder / name, target)
            except FileNotFoundError:
                continue  # another consumer took it first
            payload = loads(bytes_to_str(target.read_bytes()))
            tag = payload["properties"]["delivery_tag"]
            if queue in self._no_ack_queues:
                target.unlink(missing_ok=True)
            else:
                self._inflight[tag] = target
            return payload
        raise Empty()

    def _maybe_recover(self) -> None:
        now = time.monotonic()
        if now < self._next_recovery:
            return
        self._next_recovery = now + self.recover_interval
        self.inflight_folder.mkdir(parents=True, exist_ok=True)
        restored = recover_inflight(
            self.inflight_folder,
            Path(self.data_folder_in),
            now_ms=int(time.time() * 1000),
            own_pid=os.getpid(),
        )
        if restored:
            logger.warning(
                "[Ops] broker_redelivered count=%s reason=unacknowledged",
                len(restored),
            )

    # --- settling ------------------------------------------------------------

    def settle(self, delivery_tag: Any) -> None:
        """The message is done with: forget and delete its in-flight file."""
        path = self._inflight.pop(delivery_tag, None)
        if path is not None:
            path.unlink(missing_ok=True)

    def _restore(self, message: Any) -> None:
        """Redeliver: move the in-flight file back under its queue name."""
        path = self._inflight.pop(message.delivery_tag, None)
        if path is None:
            super()._restore(message)
            return
        parsed = parse_inflight_name(path.name)
        if parsed is None:  # pragma: no cover - names are ours
            return
        # A recovery elsewhere may have moved it back already.
        with contextlib.suppress(FileNotFoundError):
            os.rename(path, Path(self.data_folder_in) / parsed[2])


class Transport(filesystem.Transport):
    Channel = Channel
    driver_name = "evalsite-filesystem"
    # Set in a worker's main process only (evalsite.celery): see drain_events.
    drain_cap_s: float | None = None

    @property
    def default_connection_params(self) -> dict[str, Any]:
        """Folders on this machine have no host. kombu's default names one
        ('localhost'), and then every connection to ``filesystem://`` logged
        "No hostname was supplied. Reverting to default 'localhost'" as a
        warning (every command that queues a run, every beat tick)."""
        return {"port": self.default_port}

    def drain_events(self, connection: Any, timeout: float | None = None) -> Any:
        """Celery's worker loop for a transport with no event loop (this one)
        waits here up to 2 s at a time and acknowledges finished tasks only
        between waits; with one message per process, the next task waited
        for that acknowledgement. In a worker, return after ``drain_cap_s``
        so acknowledgements and the next message follow at once. Callers
        outside a worker keep the timeout they asked for."""
        cap = self.drain_cap_s
        if cap is not None and timeout is not None and timeout > cap:
            timeout = cap
        return super().drain_events(connection, timeout=timeout)

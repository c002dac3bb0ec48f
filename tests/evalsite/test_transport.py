"""The embedded broker keeps a message until it is acknowledged."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from queue import Empty
from typing import Any

import pytest
from kombu import Connection, Queue

from evalsite.transport import inflight_name, parse_inflight_name, recover_inflight


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[tuple[Connection, Path, Path]]:
    queue_dir, inflight = tmp_path / "queue", tmp_path / "inflight"
    for folder in (queue_dir, inflight, tmp_path / "control"):
        folder.mkdir()
    connection = Connection(
        "filesystem://",
        transport="evalsite.transport:Transport",
        transport_options={
            "data_folder_in": str(queue_dir),
            "data_folder_out": str(queue_dir),
            "control_folder": str(tmp_path / "control"),
            "inflight_folder": str(inflight),
            "visibility_timeout": 30,
            "recover_interval": 0,
        },
    )
    with connection:
        yield connection, queue_dir, inflight


def publish(connection: Connection, body: str) -> None:
    queue = Queue("work", routing_key="work")
    with connection.Producer() as producer:
        producer.publish(body, routing_key="work", declare=[queue])


def dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_a_fetched_message_stays_in_flight_until_acked(broker: Any) -> None:
    connection, queue_dir, inflight = broker
    publish(connection, "one")
    message = connection.SimpleQueue("work").get(timeout=1)

    assert list(queue_dir.iterdir()) == []
    [held] = list(inflight.iterdir())
    assert parse_inflight_name(held.name)[0] == os.getpid()  # type: ignore[index]

    message.ack()
    assert list(inflight.iterdir()) == []


def test_a_requeued_message_goes_back_to_its_queue(broker: Any) -> None:
    connection, queue_dir, inflight = broker
    publish(connection, "one")
    simple = connection.SimpleQueue("work")
    simple.get(timeout=1).reject(requeue=True)

    assert list(inflight.iterdir()) == []
    assert simple.get(timeout=1).payload == "one"


def test_a_rejected_message_is_deleted(broker: Any) -> None:
    connection, queue_dir, inflight = broker
    publish(connection, "one")
    connection.SimpleQueue("work").get(timeout=1).reject()

    assert (list(queue_dir.iterdir()), list(inflight.iterdir())) == ([], [])


def test_a_dead_owners_message_is_delivered_again(broker: Any) -> None:
    connection, queue_dir, inflight = broker
    publish(connection, "one")
    [queued] = list(queue_dir.iterdir())
    far = int((time.time() + 3600) * 1000)
    queued.rename(
        inflight / inflight_name(queued.name, pid=dead_pid(), deadline_ms=far)
    )

    message = connection.SimpleQueue("work").get(timeout=1)

    assert message.payload == "one"


def test_a_live_owners_message_waits_for_its_lease(tmp_path: Path) -> None:
    queue_dir, inflight = tmp_path / "q", tmp_path / "i"
    queue_dir.mkdir()
    inflight.mkdir()
    parent = os.getppid()
    (inflight / inflight_name("1_a.work.msg", pid=parent, deadline_ms=2000)).touch()

    assert recover_inflight(inflight, queue_dir, now_ms=1999, own_pid=1) == []
    assert recover_inflight(inflight, queue_dir, now_ms=2000, own_pid=1) == [
        "1_a.work.msg"
    ]
    assert (queue_dir / "1_a.work.msg").exists()


def test_chord_unlock_gives_up_after_the_configured_wait() -> None:
    from django.conf import settings

    from evalsite.celery import app

    task = app.tasks["celery.chord_unlock"]

    assert task.max_retries == (
        settings.EVALS_CHORD_MAX_WAIT_S // settings.CELERY_RESULT_CHORD_RETRY_INTERVAL
    )


def test_visibility_timeout_outlasts_the_longest_chunk() -> None:
    from django.conf import settings

    options = settings.CELERY_BROKER_TRANSPORT_OPTIONS
    assert options["visibility_timeout"] > settings.CELERY_TASK_TIME_LIMIT
    assert settings.CELERY_TASK_ACKS_LATE is True
    assert settings.CELERY_TASK_REJECT_ON_WORKER_LOST is True
    assert settings.CELERY_WORKER_PREFETCH_MULTIPLIER == 1


def test_a_worker_gets_control_back_after_one_poll_others_wait_as_asked(
    broker: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from evalsite.transport import Transport

    connection, _, _ = broker
    queue = Queue("work", routing_key="work")
    with connection.Consumer(queue, callbacks=[lambda body, message: None]):
        started = time.monotonic()
        with pytest.raises(TimeoutError):
            connection.drain_events(timeout=0.6)
        asked = time.monotonic() - started

        monkeypatch.setattr(Transport, "drain_cap_s", 0.05)
        started = time.monotonic()
        with pytest.raises(TimeoutError):
            connection.drain_events(timeout=2.0)
        capped = time.monotonic() - started

    assert asked >= 0.6
    assert capped < 0.5


def test_a_starting_worker_freezes_what_it_holds_for_the_cycle_collector() -> None:
    import gc

    from celery.signals import worker_init

    from evalsite.celery import freeze_startup_heap

    assert freeze_startup_heap in [ref() for _, ref in worker_init.receivers]
    held = [object()]  # a container: one the collector tracks
    gc.unfreeze()
    try:
        assert any(o is held for o in gc.get_objects())
        freeze_startup_heap()
        assert gc.get_freeze_count() > 0
        assert not any(o is held for o in gc.get_objects())
    finally:
        gc.unfreeze()


def test_the_embedded_broker_connects_without_a_missing_hostname_warning(
    broker: tuple[Connection, Path, Path], caplog: pytest.LogCaptureFixture
) -> None:
    connection, _, _ = broker
    with caplog.at_level("WARNING", logger="kombu.connection"):
        connection.info()
        publish(connection, "hello")
    assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == []


def test_a_consumer_never_reads_a_message_before_it_is_written(
    broker: tuple[Connection, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """kombu's filesystem broker creates the message file, then writes it: a
    worker listing the queue in between read an empty file, and the
    JSONDecodeError stopped the worker and with it make demo (seen on a
    beat tick). Whoever serialises the message, a consumer looking at that
    moment finds nothing, then the whole message."""
    import kombu.transport.filesystem as kombu_filesystem
    from kombu.utils.json import dumps as kombu_dumps

    import evalsite.transport as transport

    connection, _, _ = broker
    channel = connection.default_channel
    seen_mid_write: list[str] = []

    def serialise_while_a_consumer_looks(payload: Any) -> str:
        try:
            channel._get("work")
        except Empty:
            seen_mid_write.append("nothing")
        return kombu_dumps(payload)

    # kombu's own publisher and ours both serialise through the name patched.
    monkeypatch.setattr(kombu_filesystem, "dumps", serialise_while_a_consumer_looks)
    monkeypatch.setattr(transport, "dumps", serialise_while_a_consumer_looks)
    payload = {"body": "one", "properties": {"delivery_tag": "tag-1"}}
    channel._put("work", payload)

    assert seen_mid_write == ["nothing"]
    assert channel._get("work") == payload


@pytest.mark.redis
def test_a_dead_workers_restore_lock_expires_in_half_a_minute() -> None:
    """kombu holds a lock while it moves expired messages back to their
    queue; a worker killed holding it used to stall every other worker's
    recovery for kombu's default five minutes."""
    from evalsite.celery import RESTORE_LOCK_EXPIRE_S, app

    with app.connection_for_write() as connection:
        channel = connection.default_channel
        assert channel.unacked_mutex_expire == RESTORE_LOCK_EXPIRE_S == 30
        assert channel.unacked_restore_interval <= 10

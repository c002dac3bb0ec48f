"""kombu's Redis transport with a kept client per channel delivers as
kombu's does: what is published is consumed once, in order, a channel keeps
one client, and a dead server still fails the send at once. A real
``redis-server`` is started for each test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from kombu import Connection, Exchange, Queue
from redis.exceptions import ConnectionError as RedisConnectionError

from evalsite.redistransport import Channel, Transport
from tests.throwaway import RedisServer, redis_server

pytestmark = [pytest.mark.redis]

TRANSPORT = "evalsite.redistransport:Transport"
QUEUE = Queue("kept", Exchange("kept"), "kept")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RedisServer]:
    with redis_server(tmp_path) as running:
        yield running


def test_the_connection_uses_this_transport(server: RedisServer) -> None:
    with Connection(server.url(), transport=TRANSPORT) as conn:
        assert isinstance(conn.transport, Transport)
        assert isinstance(conn.default_channel, Channel)


def test_published_messages_are_consumed_once_in_order(server: RedisServer) -> None:
    with Connection(server.url(), transport=TRANSPORT) as conn:
        with conn.Producer() as producer:
            for n in range(20):
                producer.publish(
                    {"n": n},
                    exchange=QUEUE.exchange,
                    routing_key="kept",
                    declare=[QUEUE],
                )
        bound = QUEUE(conn.default_channel)
        got = []
        while (message := bound.get(no_ack=True)) is not None:
            got.append(message.payload["n"])
    assert got == list(range(20))


def test_a_channel_keeps_one_client_for_every_publish(server: RedisServer) -> None:
    with Connection(server.url(), transport=TRANSPORT) as conn:
        channel = conn.default_channel
        with channel.conn_or_acquire() as first:
            pass
        with conn.Producer(channel) as producer:
            producer.publish({"n": 1}, exchange=QUEUE.exchange, routing_key="kept")
        with channel.conn_or_acquire() as again:
            assert again is first
        with channel.conn_or_acquire(client="given") as given:
            assert given == "given"


def test_a_dead_server_fails_the_send_as_kombu_s_own_does(tmp_path: Path) -> None:
    raised = []
    for transport in ("redis", TRANSPORT):
        with redis_server(tmp_path / transport.replace(":", "-")) as running:
            conn = Connection(running.url(), transport=transport, connect_timeout=1)
            producer = conn.Producer()
            producer.publish({"n": 0}, exchange=QUEUE.exchange, routing_key="kept")
            running.kill()
            with pytest.raises(RedisConnectionError) as caught:
                producer.publish({"n": 1}, exchange=QUEUE.exchange, routing_key="kept")
            raised.append(type(caught.value))
            conn.release()
    assert raised[0] is raised[1]

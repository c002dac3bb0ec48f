"""The content-addressed file store of pack files: one file per SHA-256,
written whole or not at all, in bounded chunks."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from evals.core.blobs import BlobStore, ref_of


def test_put_stores_the_bytes_under_their_digest(tmp_path: Path) -> None:
    store = BlobStore(tmp_path)

    result = store.put(iter([b"ab", b"", b"cd"]))

    digest = hashlib.sha256(b"abcd").hexdigest()
    assert (result.ref.sha256, result.ref.size, result.created) == (digest, 4, True)
    assert (tmp_path / digest[:2] / digest).read_bytes() == b"abcd"
    assert store.read(digest) == b"abcd"
    assert list(store.chunks(digest)) == [b"abcd"]
    assert ref_of(b"abcd") == result.ref


def test_the_same_bytes_again_are_not_written_twice_but_touched(tmp_path: Path) -> None:
    store = BlobStore(tmp_path)
    first = store.put_bytes(b"same")

    second = store.put_bytes(b"same")

    assert second.created is False
    assert second.ref == first.ref
    assert second.mtime_ns > first.mtime_ns
    # The first writer giving the file up does not take it from the second.
    assert store.remove_if_unchanged(first.ref.sha256, first.mtime_ns) is False
    assert store.exists(first.ref.sha256)
    assert store.remove_if_unchanged(first.ref.sha256, second.mtime_ns) is True
    assert not store.exists(first.ref.sha256)


def test_a_failure_while_reading_leaves_no_file_and_no_temporary(
    tmp_path: Path,
) -> None:
    store = BlobStore(tmp_path)

    def chunks() -> Iterator[bytes]:
        yield b"x" * 1000
        raise ValueError("limit reached")

    with pytest.raises(ValueError, match="limit reached"):
        store.put(chunks())

    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []


def test_addresses_are_digests_only(tmp_path: Path) -> None:
    store = BlobStore(tmp_path)

    with pytest.raises(ValueError, match="not a SHA-256"):
        store.path("../../etc/passwd")
    assert store.remove("0" * 64) is False

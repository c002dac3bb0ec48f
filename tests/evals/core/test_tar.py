"""Tar headers are read with bounds: crafted headers are refused, cheaply."""

from __future__ import annotations

import io
import tarfile
import tracemalloc

import pytest

from evals.core.archive import UnsafeArchive, extract_pack_archive
from tests.hostile import MANIFEST, gzip_chunks, header, huge_extension, pad


def refusal(data: bytes) -> tuple[UnsafeArchive, int]:
    tracemalloc.start()
    try:
        with pytest.raises(UnsafeArchive) as caught:
            extract_pack_archive(data, filename="pack.tar.gz")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return caught.value, peak


@pytest.mark.parametrize(("kind", "label"), [(b"x", "PAX"), (b"L", "long-name")])
def test_huge_extension_header_is_refused_with_bounded_memory(
    kind: bytes, label: str
) -> None:
    size = 64 << 20
    data = huge_extension(kind, size)
    assert len(data) < 200_000  # a small upload that would expand 64 MB

    error, peak = refusal(data)

    assert error.code == "header_too_large"
    assert error.message == (
        f"pack.tar.gz: a {label} header of {size} bytes exceeds the 65536-byte limit"
    )
    assert peak < 2 << 20


def test_many_pax_headers_together_are_bounded() -> None:
    record = b"%d comment=" % 60_000
    payload = record + b"B" * (60_000 - len(record) - 1) + b"\n"
    members = []
    for index in range(80):
        name = b"f%d.txt" % index
        members.append(header(b"././@PaxHeader", b"x", len(payload)) + pad(payload))
        members.append(header(name, b"0", 1) + pad(b"x"))

    error, _ = refusal(gzip_chunks([*members, bytes(1024)]))

    assert error.code == "header_too_large"


def test_small_pax_header_applies_its_path_and_size() -> None:
    long_name = "pack/" + "d" * 150 + "/manifest.json"
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT) as tar:
        info = tarfile.TarInfo(long_name)
        info.size = len(MANIFEST)
        info.pax_headers = {"comment": "ok"}
        tar.addfile(info, io.BytesIO(MANIFEST))

    files = extract_pack_archive(buffer.getvalue(), filename="pack.tar.gz")

    assert files == {long_name: MANIFEST}


def test_gnu_long_name_is_applied() -> None:
    long_name = "pack/" + "e" * 150 + ".json"
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.GNU_FORMAT) as tar:
        info = tarfile.TarInfo(long_name)
        info.size = 1
        tar.addfile(info, io.BytesIO(b"y"))

    files = extract_pack_archive(buffer.getvalue(), filename="pack.tar.gz")

    assert files == {long_name: b"y"}


def test_nul_inside_a_tar_name_is_refused_not_truncated() -> None:
    data = gzip_chunks(
        [header(b"manifest.json\x00evil", b"0", 1), pad(b"x"), bytes(1024)]
    )

    error, _ = refusal(data)

    assert error.code == "unsafe_name"
    assert error.message == "pack.tar.gz: a member name has a NUL character inside it"


def test_non_utf8_tar_name_is_refused() -> None:
    data = gzip_chunks([header(b"caf\xe9.json", b"0", 1), pad(b"x"), bytes(1024)])

    assert refusal(data)[0].code == "unsafe_name"


def test_sparse_and_unknown_types_are_refused() -> None:
    for kind in (b"S", b"V", b"Z"):
        data = gzip_chunks([header(b"a.bin", kind, 0), bytes(1024)])

        assert refusal(data)[0].code == "special_file"


def test_bad_checksum_is_corrupt() -> None:
    block = bytearray(header(b"a.txt", b"0", 1))
    block[0] = ord("b")
    data = gzip_chunks([bytes(block), pad(b"x"), bytes(1024)])

    error, _ = refusal(data)

    assert error.code == "corrupt_archive"
    assert error.message == "pack.tar.gz: bad checksum in a tar header"


def test_truncated_member_is_corrupt() -> None:
    data = gzip_chunks([header(b"a.txt", b"0", 5000), b"x" * 100])

    assert refusal(data)[0].code == "corrupt_archive"


def test_endless_extension_headers_are_corrupt() -> None:
    payload = pad(b"12 comment=\n")
    data = gzip_chunks([header(b"p", b"x", 12) + payload] * 12 + [bytes(1024)])

    assert refusal(data)[0].message.endswith("extension headers in a row")

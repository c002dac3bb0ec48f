"""Pack archives: good zips and tarballs extract, malicious ones are refused."""

from __future__ import annotations

import io
import json
import stat
import tarfile
import warnings
import zipfile

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.errors import CoreError, SchemaInvalid
from evals.core.archive import (
    ArchiveLimits,
    ArchiveRefusal,
    UnsafeArchive,
    extract_pack_archive,
    member_path,
    pack_from_files,
)

MANIFEST = json.dumps(
    {
        "schemaVersion": 1,
        "benchmarkId": "ama",
        "title": "T",
        "cases": [{"id": "c", "prompt": "p"}],
    }
).encode()


def make_zip(
    *members: tuple[str | zipfile.ZipInfo, bytes], deflate: bool = True
) -> bytes:
    buffer = io.BytesIO()
    method = zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # duplicate names are the point of one test
        with zipfile.ZipFile(buffer, "w", compression=method) as archive:
            for name, content in members:
                archive.writestr(name, content)
    return buffer.getvalue()


def make_tar(*members: tuple[tarfile.TarInfo, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for info, content in members:
            info.size = len(content) if info.isreg() else 0
            archive.addfile(info, io.BytesIO(content) if info.isreg() else None)
    return buffer.getvalue()


def tar_member(
    name: str, kind: bytes = tarfile.REGTYPE, linkname: str = ""
) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    return info


def refusal(data: bytes, limits: ArchiveLimits | None = None) -> UnsafeArchive:
    with pytest.raises(UnsafeArchive) as caught:
        extract_pack_archive(data, filename="pack.bin", limits=limits)
    return caught.value


def test_zip_pack_extracts_regular_files_with_normalised_paths() -> None:
    data = make_zip(
        ("./manifest.json", MANIFEST),
        ("fixtures/", b""),
        ("fixtures\\trace.txt", b"t"),
    )

    assert extract_pack_archive(data, filename="pack.zip") == {
        "fixtures/trace.txt": b"t",
        "manifest.json": MANIFEST,
    }


def test_tar_gz_pack_extracts() -> None:
    data = make_tar(
        (tar_member("pack/manifest.json"), MANIFEST),
        (tar_member("pack/data", tarfile.DIRTYPE), b""),
        (tar_member("pack/data/x.txt"), b"x"),
    )

    assert extract_pack_archive(data, filename="pack.tar.gz") == {
        "pack/data/x.txt": b"x",
        "pack/manifest.json": MANIFEST,
    }


@pytest.mark.parametrize("name", ["../evil.json", "pack/../../evil.json", "..\\evil"])
def test_zip_slip_is_refused(name: str) -> None:
    error = refusal(make_zip(("manifest.json", MANIFEST), (name, b"x")))

    assert error.code == "parent_reference"
    assert error.message == f"pack.bin: member {name!r} escapes the archive with '..'"


@pytest.mark.parametrize("name", ["/etc/cron.d/evil", "C:\\evil.json", "\\\\server\\x"])
def test_absolute_paths_are_refused(name: str) -> None:
    error = refusal(make_zip((name, b"x")))

    assert error.reason is ArchiveRefusal.ABSOLUTE_PATH
    assert error.message == f"pack.bin: member {name!r} has an absolute path"


def test_tar_parent_reference_is_refused() -> None:
    error = refusal(make_tar((tar_member("../evil"), b"x")))

    assert error.code == "parent_reference"


def test_zip_symlink_is_refused() -> None:
    link = zipfile.ZipInfo("manifest.json")
    link.create_system = 3
    link.external_attr = (stat.S_IFLNK | 0o777) << 16

    error = refusal(make_zip((link, b"/etc/passwd")))

    assert error.code == "link"
    assert error.message == "pack.bin: member 'manifest.json' is a link"


@pytest.mark.parametrize("kind", [tarfile.SYMTYPE, tarfile.LNKTYPE])
def test_tar_links_are_refused(kind: bytes) -> None:
    error = refusal(make_tar((tar_member("manifest.json", kind, "/etc/passwd"), b"")))

    assert error.code == "link"


@pytest.mark.parametrize("kind", [tarfile.CHRTYPE, tarfile.BLKTYPE, tarfile.FIFOTYPE])
def test_tar_devices_and_fifos_are_refused(kind: bytes) -> None:
    error = refusal(make_tar((tar_member("dev", kind), b"")))

    assert error.code == "special_file"
    assert error.message == "pack.bin: member 'dev' is not a regular file"


def test_zip_fifo_mode_is_refused() -> None:
    fifo = zipfile.ZipInfo("pipe")
    fifo.create_system = 3
    fifo.external_attr = (stat.S_IFIFO | 0o644) << 16

    assert refusal(make_zip((fifo, b""))).code == "special_file"


def test_zip_bomb_ratio_is_refused() -> None:
    error = refusal(
        make_zip(("manifest.json", MANIFEST), ("zeros.bin", bytes(4 << 20)))
    )

    assert error.code == "compression_ratio"
    assert error.member == "zeros.bin"
    assert "above the 100x limit" in error.message


def test_tar_gz_bomb_ratio_is_refused() -> None:
    error = refusal(make_tar((tar_member("zeros.bin"), bytes(4 << 20))))

    assert error.code == "compression_ratio"


def test_small_highly_compressible_files_are_not_bombs() -> None:
    data = make_zip(("manifest.json", MANIFEST), ("blank.txt", b" " * 10_000))

    assert extract_pack_archive(data, filename="pack.zip")["blank.txt"] == b" " * 10_000


def test_too_many_members_is_refused() -> None:
    data = make_zip(*[(f"f{i}.txt", b"x") for i in range(4)])

    error = refusal(data, ArchiveLimits(max_members=3))

    assert error.code == "too_many_members"
    assert error.message == "pack.bin: more than 3 members"


def test_too_many_tar_members_is_refused() -> None:
    data = make_tar(*[(tar_member(f"f{i}.txt"), b"x") for i in range(4)])

    assert refusal(data, ArchiveLimits(max_members=3)).code == "too_many_members"


def test_oversize_member_is_refused() -> None:
    data = make_zip(("big.txt", b"0123456789A"), deflate=False)

    error = refusal(data, ArchiveLimits(max_member_bytes=10))

    assert error.code == "member_too_large"
    assert error.message == "pack.bin: member 'big.txt' is larger than 10 bytes"


def test_oversize_total_is_refused() -> None:
    data = make_zip(("a.txt", b"x" * 8), ("b.txt", b"y" * 8), deflate=False)

    error = refusal(data, ArchiveLimits(max_total_bytes=15))

    assert error.code == "total_too_large"
    assert error.message == "pack.bin: uncompressed size exceeds 15 bytes"


def test_duplicate_members_are_refused() -> None:
    error = refusal(make_zip(("a.txt", b"1"), ("./a.txt", b"2")))

    assert error.code == "duplicate_member"


def test_encrypted_zip_member_is_refused() -> None:
    data = bytearray(make_zip(("secret.txt", b"x"), deflate=False))
    # Set the "encrypted" general-purpose flag in the local and central headers.
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = data.find(signature)
        data[at + offset] |= 0x1

    assert refusal(bytes(data)).code == "encrypted_member"


def test_unknown_format_is_refused() -> None:
    error = refusal(b"just some bytes")

    assert error.code == "unsupported_format"
    assert error.message == "pack.bin: not a zip or tar.gz archive"


@pytest.mark.parametrize("data", [b"PK\x03\x04garbage", b"\x1f\x8b\x08garbage"])
def test_corrupt_archive_is_refused(data: bytes) -> None:
    error = refusal(data)

    assert error.code == "corrupt_archive"
    assert error.message.startswith("pack.bin: archive is corrupt: ")


def test_unsafe_archive_is_a_core_error() -> None:
    assert issubclass(UnsafeArchive, CoreError)


@given(st.text(alphabet="ab./\\:C\x00 ", max_size=12))
def test_member_paths_never_escape(name: str) -> None:
    try:
        path = member_path(name, filename="x")
    except UnsafeArchive:
        return
    if path is not None:
        parts = path.split("/")
        assert ".." not in parts
        assert "" not in parts
        assert "\\" not in path
        assert not path.startswith("/")


# --- pack_from_files ----------------------------------------------------------


def test_pack_from_files_splits_manifest_and_extras() -> None:
    document, extra = pack_from_files({"manifest.json": MANIFEST, "a/b.txt": b"b"})

    assert document == json.loads(MANIFEST)
    assert extra == {"a/b.txt": b"b"}


def test_pack_from_files_unwraps_a_single_top_folder() -> None:
    document, extra = pack_from_files(
        {"ama/manifest.json": MANIFEST, "ama/x.txt": b"x"}
    )

    assert document["benchmarkId"] == "ama"
    assert extra == {"x.txt": b"x"}


@pytest.mark.parametrize(
    "files",
    [
        {},
        {"README.md": b"r"},
        {"a/manifest.json": MANIFEST, "b/manifest.json": MANIFEST},
        {"a/b/manifest.json": MANIFEST},
    ],
)
def test_pack_from_files_requires_a_root_manifest(files: dict[str, bytes]) -> None:
    with pytest.raises(SchemaInvalid) as caught:
        pack_from_files(files)

    assert [(p.path, p.code, p.message) for p in caught.value.problems] == [
        ("$", "missing_manifest", "benchmark pack must contain a root manifest.json")
    ]


def test_pack_from_files_reports_a_manifest_that_is_not_json() -> None:
    with pytest.raises(SchemaInvalid) as caught:
        pack_from_files({"manifest.json": b"\xff\xfe not json"})

    [problem] = caught.value.problems
    assert problem.code == "invalid_json"
    assert problem.message.startswith("manifest.json is not valid JSON: ")


# --- member names that would break a later step ---------------------------------


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("a" * 300 + ".json", "has a component longer than 255 bytes"),
        ("/".join(["d" * 200] * 6), "is longer than 1024 bytes"),
        ("bell\x07.txt", "contains a control character (\\u0007)"),
        ("new\nline.txt", "contains a control character (\\u000a)"),
        ("evil\u202etxt.json", "contains an invisible formatting character (\\u202e)"),
        ("zero\u200bwidth.txt", "contains an invisible formatting character (\\u200b)"),
        ("non\uffffchar.txt", "contains a Unicode noncharacter (\\uffff)"),
    ],
)
def test_member_names_that_break_later_steps_are_refused(
    name: str, reason: str
) -> None:
    error = refusal(make_zip(("manifest.json", MANIFEST), (name, b"x")))

    assert error.code == "unsafe_name"
    assert error.message.endswith(reason)
    assert len(error.message) < 200


def test_tar_member_name_of_300_characters_is_refused() -> None:
    info = tarfile.TarInfo("pack/" + "n" * 300)

    error = refusal(
        make_tar((tar_member("pack/manifest.json"), MANIFEST), (info, b"x"))
    )

    assert error.code == "unsafe_name"


def test_zip_name_with_nul_is_refused_not_truncated() -> None:
    data = make_zip(("manifest.json", MANIFEST), ("evil.txt", b"x"))
    # zipfile cuts names at a NUL when it reads them: forge one in both headers.
    data = data.replace(b"evil.txt", b"ev\x00l.txt")

    assert refusal(data).code == "unsafe_name"

"""Files as the result bundles and the eval store write them.

- ``json_text`` / ``json_bytes``: sorted keys, 2-space indent, UTF-8
  characters as they are, a trailing newline.
- ``write_bytes_atomic`` and its text/JSON forms: a same-directory temp file
  renamed over the target, so a reader sees the old file or the new one,
  never half of one; ``durable`` fsyncs before the rename.
- ``sync_to_disk``: one flush for many files written without ``durable``.
- ``spread_subdirectories``: a directory whose subdirectories the
  filesystem spreads over the disk (one per run), where it can.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import struct
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from core.json_bytes import indented_json_bytes


def write_json_atomic(
    path: Path, document: Mapping[str, Any], *, durable: bool = True
) -> None:
    """Write ``document`` to ``path`` via a same-directory temp file +
    ``os.replace``; creates missing parent directories. ``durable``: see
    ``write_bytes_atomic``."""
    write_bytes_atomic(path, json_bytes(document), durable=durable)


def json_text(document: Mapping[str, Any]) -> str:
    """``document`` as the bundle writes it: sorted keys, 2-space indent,
    UTF-8 characters as they are, a trailing newline."""
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def json_bytes(document: Mapping[str, Any]) -> bytes:
    """``json_text(document)`` encoded as UTF-8."""
    return indented_json_bytes(document)


def write_text_atomic(path: Path, text: str, *, durable: bool = True) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically, as ``write_bytes_atomic``."""
    write_bytes_atomic(path, text.encode("utf-8"), durable=durable)


# Temp names: pid + a per-process counter, created exclusively (a name left
# by a crashed process of the same pid falls back to a random one).
_TEMP_COUNTER = itertools.count()


def write_bytes_atomic(path: Path | str, data: bytes, *, durable: bool = True) -> None:
    """Write ``data`` to ``path`` atomically: a same-directory temp file
    (mode 0600, as ``mkstemp`` makes it) renamed over ``path``; creates
    missing parent directories.

    A reader always sees the old file or the new one, never half of one.
    ``durable`` also fsyncs the file before the rename (a power cut cannot
    leave it empty); without it the file reaches the disk with the next
    ``sync_to_disk``, which costs one call for many files instead of one
    fsync each (an fsync is most of the cost of writing a small file).
    """
    target = os.fspath(path)
    directory, name = os.path.split(target)
    tmp_name = os.path.join(
        directory, f".{name}.{os.getpid():x}-{next(_TEMP_COUNTER):x}.tmp"
    )
    try:
        fd = os.open(tmp_name, _TEMP_FLAGS, 0o600)
    except FileNotFoundError:
        os.makedirs(directory or ".", exist_ok=True)
        fd = os.open(tmp_name, _TEMP_FLAGS, 0o600)
    except FileExistsError:
        fd, tmp_name = tempfile.mkstemp(
            dir=directory or None, prefix=f".{name}.", suffix=".tmp"
        )
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp_name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise


_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)


def sync_to_disk(*directories: Path | str) -> None:
    """Flush every file written without ``durable`` in ``directories`` (their
    contents and the renames that put them there) to the disk, so a file
    written after it, such as a run's ``summary.json``, is never on disk
    without them.

    On Linux, one ``syncfs`` per filesystem holding one of ``directories``:
    everything written to that filesystem reaches the disk, as ``sync``
    would do for it, while what other processes wrote to other filesystems
    is not waited for. Where ``syncfs`` does not exist, a directory cannot be
    opened, or ``syncfs`` reports a failure, it is one ``os.sync()`` for the
    whole machine instead, as it always was: never a weaker guarantee.
    """
    syncfs = _syncfs_function()
    if syncfs is None or not directories:
        os.sync()
        return
    synced: set[int] = set()
    try:
        for directory in directories:
            fd = os.open(directory, os.O_RDONLY | _DIRECTORY_FLAG)
            try:
                device = os.fstat(fd).st_dev
                if device not in synced:
                    syncfs(fd)
                    synced.add(device)
            finally:
                os.close(fd)
    except OSError:
        os.sync()


_DIRECTORY_FLAG = getattr(os, "O_DIRECTORY", 0)
# The C library's syncfs, looked up on first use: False until then, None
# where there is none.
_SYNCFS: Any = False


def _syncfs_function() -> Any:
    """A callable ``syncfs(fd)`` raising ``OSError`` on failure, or None
    where the platform has none."""
    global _SYNCFS
    if _SYNCFS is False:
        _SYNCFS = _load_syncfs()
    return _SYNCFS


def _load_syncfs() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        function = libc.syncfs
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int]
    function.restype = ctypes.c_int

    def syncfs(fd: int) -> None:
        if function(fd) != 0:
            errno = ctypes.get_errno()
            raise OSError(errno, f"syncfs: {os.strerror(errno)}")

    return syncfs


def spread_subdirectories(directory: Path | str) -> bool:
    """Ask the filesystem to place each directory made in ``directory`` where
    its block allocator finds room, spread over the disk, rather than beside
    its parent: ``chattr +T`` (the "top of directory hierarchies" flag of
    ext2/3/4's Orlov allocator), which the directory's owner may set.

    For a directory whose subdirectories are unrelated to one another (one
    per run). Files are made in their own directory's block group; in a
    group where many files were just deleted (an earlier run's, a test
    run's) each new file was seen to cost tens of times more kernel time to
    create for seconds afterwards (ext4 with online discard).

    True when the flag is set (now or before); False where the filesystem,
    the platform or the permissions have no such flag: then nothing changed
    and nothing needs to.
    """
    flags = directory_flags(directory)
    if flags is None:
        return False
    if flags & _TOPDIR_FLAG:
        return True
    return _inode_flags(directory, flags | _TOPDIR_FLAG) is not None


def directory_flags(directory: Path | str) -> int | None:
    """The directory's inode flags, as ``lsattr -d`` shows them; None where
    the filesystem or the platform keeps none."""
    return _inode_flags(directory, None)


def _inode_flags(directory: Path | str, new_flags: int | None) -> int | None:
    """FS_IOC_GETFLAGS, or FS_IOC_SETFLAGS to ``new_flags``; the flags, or
    None when the call is not possible here."""
    requests = _flag_requests()
    if requests is None:
        return None
    import array
    import fcntl

    try:
        fd = os.open(directory, os.O_RDONLY | _DIRECTORY_FLAG)
    except OSError:
        return None
    try:
        # The kernel reads and writes an int, whatever the request's size.
        flags = array.array("i", [0 if new_flags is None else new_flags])
        fcntl.ioctl(fd, requests[new_flags is not None], flags, True)
        return flags[0]
    except OSError:
        return None
    finally:
        os.close(fd)


# FS_TOPDIR_FL of linux/fs.h.
_TOPDIR_FLAG = 0x00020000
# Machines whose ioctl numbers use the generic encoding (direction in the top
# two bits, then the argument's size, type and number); elsewhere the flag is
# not attempted.
_GENERIC_IOCTL_MACHINES = ("x86_64", "i386", "i686", "aarch64", "arm", "riscv", "s390")


def _flag_requests() -> tuple[int, int] | None:
    """FS_IOC_GETFLAGS and FS_IOC_SETFLAGS (``_IOR/_IOW('f', 1 and 2,
    long)``), or None where they are not known."""
    if not sys.platform.startswith("linux"):
        return None
    if not os.uname().machine.startswith(_GENERIC_IOCTL_MACHINES):
        return None
    size = struct.calcsize("l")
    read, write = 2, 1
    return (
        (read << 30) | (size << 16) | (ord("f") << 8) | 1,
        (write << 30) | (size << 16) | (ord("f") << 8) | 2,
    )

"""A writer of the cpio "newc" format the kernel unpacks as an initramfs
(Documentation/driver-api/early-userspace/buffer-format.rst): each entry is a
110-byte ASCII header, the NUL-terminated name and the data, each padded to
4 bytes; the archive ends with the entry "TRAILER!!!"."""

from __future__ import annotations

import stat
from dataclasses import dataclass

_MAGIC = b"070701"


@dataclass(frozen=True)
class Entry:
    """One file system object of the archive. path has no leading '/'."""
    path: str
    mode: int           # full st_mode: type bits | permissions
    data: bytes = b""   # file contents, or a symlink's target


def directory(path: str) -> Entry:
    return Entry(path, stat.S_IFDIR | 0o755)


def regular(path: str, data: bytes, executable: bool = True) -> Entry:
    return Entry(path, stat.S_IFREG | (0o755 if executable else 0o644), data)


def symlink(path: str, target: str) -> Entry:
    return Entry(path, stat.S_IFLNK | 0o777, target.encode())


def _pad4(n: int) -> bytes:
    return b"\0" * (-n % 4)


def _header(ino: int, mode: int, nlink: int, size: int, namesize: int) -> bytes:
    fields = [ino, mode, 0, 0, nlink, 0, size, 0, 0, 0, 0, namesize, 0]
    return _MAGIC + b"".join(b"%08X" % f for f in fields)


def archive(entries: list[Entry]) -> bytes:
    """The newc archive of entries, in order, with parents created first.

    Directories named only as parents of a path are added (mode 0755), so
    entries need not list them; a path listed twice is an error, since the
    kernel would silently keep the last one.
    """
    seen: set[str] = set()
    out = bytearray()
    ino = 1

    def emit(entry: Entry) -> None:
        nonlocal ino
        name = entry.path.encode() + b"\0"
        nlink = 2 if stat.S_ISDIR(entry.mode) else 1
        out.extend(_header(ino, entry.mode, nlink, len(entry.data), len(name)))
        out.extend(name + _pad4(110 + len(name)))
        out.extend(entry.data + _pad4(len(entry.data)))
        ino += 1

    for entry in entries:
        path = entry.path.strip("/")
        if not path or path in seen:
            raise ValueError(f"initramfs: path {entry.path!r} is empty or listed twice")
        parts = path.split("/")
        for i in range(1, len(parts)):
            parent = "/".join(parts[:i])
            if parent not in seen:
                seen.add(parent)
                emit(directory(parent))
        seen.add(path)
        emit(Entry(path, entry.mode, entry.data))
    name = b"TRAILER!!!\0"
    out.extend(_header(0, 0, 1, 0, len(name)) + name + _pad4(110 + len(name)))
    return bytes(out)

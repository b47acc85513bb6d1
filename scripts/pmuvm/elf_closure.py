"""Which arm64 shared libraries a set of binaries loads: the closure of
their DT_NEEDED entries (elf(5)), found in Debian's multiarch directories.
The guest has no ld.so.cache, so every library goes where the loader looks
by default."""

from __future__ import annotations

import os
import re
import subprocess
from typing import Callable, Iterable

# Where Debian's :arm64 packages and the cross toolchain put the libraries.
MULTIARCH_DIRS = ("/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
                  "/usr/aarch64-linux-gnu/lib")
READELF = "aarch64-linux-gnu-readelf"

_NEEDED = re.compile(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]")
_INTERP = re.compile(r"\[Requesting program interpreter: ([^\]]+)\]")


def parse_needed(readelf_dynamic: str) -> list[str]:
    """The sonames of the NEEDED lines of `readelf -d`, in order."""
    return _NEEDED.findall(readelf_dynamic)


def parse_interpreter(readelf_program_headers: str) -> str | None:
    """The PT_INTERP path of `readelf -l`, or None for a static binary."""
    m = _INTERP.search(readelf_program_headers)
    return m.group(1) if m else None


def closure(roots: Iterable[str], needed_of: Callable[[str], list[str]],
            find: Callable[[str], str | None]) -> dict[str, str]:
    """soname -> host path of every library the roots load, directly or not.

    needed_of(path) lists a file's NEEDED sonames; find(soname) returns its
    host path or None. A soname that cannot be found is an error naming the
    file that needs it, so a missing :arm64 package shows up on the host, not
    as a loader failure inside the guest.
    """
    found: dict[str, str] = {}
    pending = list(roots)
    while pending:
        path = pending.pop()
        for soname in needed_of(path):
            if soname in found:
                continue
            lib = find(soname)
            if lib is None:
                raise FileNotFoundError(
                    f"{path} needs {soname}, found in none of "
                    f"{', '.join(MULTIARCH_DIRS)}: install the :arm64 package "
                    f"that ships it (apt-file search {soname})")
            found[soname] = lib
            pending.append(lib)
    return found


def find_in(dirs: Iterable[str]) -> Callable[[str], str | None]:
    """A find() for closure() that looks in dirs, in order."""
    dirs = tuple(dirs)

    def find(soname: str) -> str | None:
        for d in dirs:
            candidate = os.path.join(d, soname)
            if os.path.exists(candidate):
                return candidate
        return None
    return find


def _readelf(flag: str, path: str) -> str:
    return subprocess.run([READELF, flag, "-W", path], check=True,
                          capture_output=True, text=True).stdout


def readelf_needed(path: str) -> list[str]:
    return parse_needed(_readelf("-d", path))


def readelf_interpreter(path: str) -> str | None:
    return parse_interpreter(_readelf("-l", path))


def is_elf(path: str) -> bool:
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"

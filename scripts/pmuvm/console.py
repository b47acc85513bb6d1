"""The protocol between the guest's /init and the host, over the one serial
console (ttyAMA0) that QEMU's -nographic puts on its stdout.

The guest prefixes each line of the command's stdout with "O|" and of its
stderr with "E|", and frames the run with lines that carry a per-run nonce,
so neither the command's output nor the kernel's messages can fake them:

    <marker>:begin
    O|... / E|...            the command's output (kernel lines may interleave)
    <marker>:exit <status>
    <marker>:out-begin       only with --out: base64 of a gzip tar of $PMU_VM_OUT
    ...
    <marker>:out-end

and "<marker>:setup-failed <what>" when /init could not prepare the guest.
"""

from __future__ import annotations

import base64
import io
import os
import tarfile
from dataclasses import dataclass, field

# The command's streams; kernel lines while it ran; lines before and after.
STDOUT, STDERR, CONSOLE, BOOT = "stdout", "stderr", "console", "boot"


def marker(nonce: str) -> str:
    return f"@@pmu-vm:{nonce}"


@dataclass
class Demux:
    """Splits console lines into the command's stdout and stderr, the
    kernel's console noise, the exit status and the output archive.

    feed() takes one line (without its newline) and returns the
    (stream, text) pairs to show; the state it gathers is read after the
    guest powers off.
    """
    nonce: str
    exit_status: int | None = None
    setup_failure: str | None = None
    started: bool = False
    archive_lines: list[str] = field(default_factory=list)
    archive_complete: bool = False
    _in_archive: bool = False

    def feed(self, line: str) -> list[tuple[str, str]]:
        line = line.rstrip("\r")
        mark = marker(self.nonce) + ":"
        at = line.find(mark)
        if at < 0:
            return self._content(line)
        # A command line that ended without a newline runs into the marker.
        shown = self._content(line[:at]) if at > 0 else []
        self._control(line[at + len(mark):].strip())
        return shown

    def _content(self, line: str) -> list[tuple[str, str]]:
        if self._in_archive:
            self.archive_lines.append(line.strip())
            return []
        if not self.started or self.exit_status is not None:
            return [(BOOT, line)]
        if line.startswith("O|"):
            return [(STDOUT, line[2:])]
        if line.startswith("E|"):
            return [(STDERR, line[2:])]
        return [(CONSOLE, line)]

    def _control(self, word: str) -> None:
        verb, _, arg = word.partition(" ")
        if verb == "begin":
            self.started = True
        elif verb == "exit":
            self.exit_status = int(arg) if arg.strip().isdigit() else None
            if self.exit_status is None:
                self.setup_failure = f"unreadable exit status {arg!r}"
        elif verb == "out-begin":
            self._in_archive = True
        elif verb == "out-end":
            self._in_archive = False
            self.archive_complete = True
        elif verb == "setup-failed":
            self.setup_failure = arg or "unknown step"


def decode_archive(lines: list[str]) -> bytes:
    """The gzip tar the guest printed as base64 lines."""
    return base64.b64decode("".join(lines), validate=False)


def extract_archive(data: bytes, dest: str) -> list[str]:
    """Unpacks the guest's tar of $PMU_VM_OUT into dest; returns the names
    of the regular files written. Members that would land outside dest
    (absolute paths, '..', links) are refused: the archive comes from a
    guest program."""
    names = []
    os.makedirs(dest, exist_ok=True)
    root = os.path.realpath(dest)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for member in tar.getmembers():
            target = os.path.realpath(os.path.join(root, member.name))
            if target != root and not target.startswith(root + os.sep):
                raise ValueError(f"output archive member {member.name!r} escapes {dest}")
            if member.isdir():
                os.makedirs(target, exist_ok=True)
            elif member.isfile():
                os.makedirs(os.path.dirname(target), exist_ok=True)
                src = tar.extractfile(member)
                assert src is not None
                with open(target, "wb") as out:
                    out.write(src.read())
                names.append(os.path.relpath(target, root))
            else:
                raise ValueError(f"output archive member {member.name!r} is not a "
                                 "regular file or directory")
    return sorted(names)

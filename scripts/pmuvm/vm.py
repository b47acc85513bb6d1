"""Packs the initramfs and boots it under qemu-system-aarch64 with an
emulated PMUv3, streaming the console through console.Demux."""

from __future__ import annotations

import gzip
import os
import secrets
import selectors
import subprocess
import sys
import time
from collections import deque
from dataclasses import dataclass

from . import console, cpio, elf_closure, guest_init

GUEST_LIBDIR = "lib/aarch64-linux-gnu"
OBJCOPY = "aarch64-linux-gnu-objcopy"

# -icount shift=0: one instruction per virtual nanosecond, so instruction
# counts are exact and repeatable (without it QEMU offers no inst_retired).
# One vCPU: with more, QEMU's instruction count is machine-wide and other
# CPUs' instructions leak into a task's counts.
QEMU_ARGS = ("-M", "virt", "-cpu", "max", "-icount", "shift=0", "-smp", "1",
             "-m", "2048", "-nographic", "-no-reboot", "-nic", "none")
KERNEL_ARGS = "console=ttyAMA0 rdinit=/init quiet loglevel=3 panic=-1"


def lean_copy(path: str, cache_dir: str) -> str:
    """A copy of an ELF file that keeps what a profile reads (the symbol
    table for function names, the DWARF line tables for source lines) with
    its debug sections zlib-compressed and the variable locations dropped:
    about a third of the size. Cached by mtime under cache_dir."""
    out = os.path.join(cache_dir, path.lstrip("/"))
    if os.path.exists(out) and os.path.getmtime(out) >= os.path.getmtime(path):
        return out
    os.makedirs(os.path.dirname(out), exist_ok=True)
    subprocess.run([OBJCOPY, "--remove-section=.debug_loclists",
                    "--remove-section=.debug_loc",
                    "--remove-section=.debug_macro",
                    "--compress-debug-sections=zlib", path, out], check=True)
    return out


def build_initramfs(init_text: str, busybox: str, programs: list[str],
                    lean_cache: str, packaged: dict[str, str] | None = None) -> bytes:
    """gzip'd newc archive: /init, busybox, programs at their host paths
    (lean copies when ELF, see lean_copy), packaged files (guest path ->
    host path, copied as they are) and the arm64 libraries they all load."""
    packaged = packaged or {}
    elves = [p for p in programs if elf_closure.is_elf(p)]
    packaged_elves = [h for h in packaged.values() if elf_closure.is_elf(h)]
    libs = elf_closure.closure(elves + packaged_elves, elf_closure.readelf_needed,
                               elf_closure.find_in(elf_closure.MULTIARCH_DIRS))
    entries = [cpio.directory(d) for d in ("proc", "sys", "dev", "tmp", "bin")]
    entries.append(cpio.regular("init", init_text.encode()))
    entries.append(cpio.regular("bin/busybox", _read(busybox)))
    for soname, host_path in sorted(libs.items()):
        entries.append(cpio.regular(f"{GUEST_LIBDIR}/{soname}", _read(host_path)))
    # The loader is in the closure (libc needs it); PT_INTERP names it by
    # another path (/lib/ld-linux-aarch64.so.1): link that path to it.
    interpreters = {elf_closure.readelf_interpreter(p) for p in elves + packaged_elves}
    for interp in sorted(interpreters - {None}):
        base = os.path.basename(interp)
        if base not in libs:
            raise FileNotFoundError(f"{interp}: the loader is not among the libraries "
                                    f"the programs load ({', '.join(sorted(libs))})")
        if interp.strip("/") != f"{GUEST_LIBDIR}/{base}":
            entries.append(cpio.symlink(interp, f"/{GUEST_LIBDIR}/{base}"))
    for program in programs:
        data = _read(lean_copy(program, lean_cache) if program in elves else program)
        entries.append(cpio.regular(program, data, executable=os.access(program, os.X_OK)))
    for guest_path, host_path in sorted(packaged.items()):
        entries.append(cpio.regular(guest_path, _read(host_path),
                                    executable=os.access(host_path, os.X_OK)))
    return gzip.compress(cpio.archive(entries), compresslevel=6)


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


@dataclass
class Outcome:
    exit_status: int | None
    demux: console.Demux
    timed_out: bool
    console_tail: list[str]
    seconds: float


def boot(kernel: str, initrd_path: str, demux: console.Demux, timeout: float,
         show=None) -> Outcome:
    """Boots the guest and feeds each console line to demux, passing what it
    returns to show(stream, text). Kills QEMU after timeout seconds."""
    cmd = ["qemu-system-aarch64", *QEMU_ARGS, "-kernel", kernel,
           "-initrd", initrd_path, "-append", KERNEL_ARGS]
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    assert proc.stdout is not None
    tail: deque[str] = deque(maxlen=40)
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    pending = b""
    timed_out = False
    while True:
        left = start + timeout - time.monotonic()
        if left <= 0:
            timed_out = True
            proc.kill()
            break
        if not sel.select(timeout=min(left, 1.0)):
            continue
        chunk = os.read(proc.stdout.fileno(), 65536)
        if not chunk:
            break
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for raw in lines:
            text = raw.decode("utf-8", errors="replace")
            tail.append(text.rstrip("\r"))
            for stream, shown in demux.feed(text):
                if show:
                    show(stream, shown)
    if pending and not timed_out:
        for stream, shown in demux.feed(pending.decode("utf-8", errors="replace")):
            if show:
                show(stream, shown)
    proc.wait()
    return Outcome(demux.exit_status, demux, timed_out, list(tail),
                   time.monotonic() - start)


def new_nonce() -> str:
    return secrets.token_hex(8)


def init_script(nonce: str, workdir: str, argv: list[str], want_out: bool) -> str:
    return guest_init.script(nonce, workdir, argv, want_out)


def print_stream(stream: str, text: str) -> None:
    """Shows the guest's stdout on ours and its stderr and console on ours."""
    out = sys.stdout if stream == console.STDOUT else sys.stderr
    prefix = "[guest console] " if stream == console.CONSOLE else ""
    out.write(prefix + text + "\n")
    out.flush()

"""What the rig needs from Debian, installed on first use and found
quickly afterwards: host tools (apt-get install), the :arm64 development
libraries (multiarch), and an arm64 kernel, busybox and valgrind (apt-get
download, unpacked into a cache under build/)."""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys

HOST_PACKAGES = ("qemu-system-arm", "qemu-user", "g++-aarch64-linux-gnu")
ARM64_PACKAGES = ("libbenchmark-dev:arm64", "libabsl-dev:arm64",
                  "libdw-dev:arm64", "libgtest-dev:arm64",
                  "libgmock-dev:arm64")
KERNEL_PATTERN = r"^linux-image-.*-cloud-arm64-unsigned$"
BUSYBOX = "busybox-static:arm64"
VALGRIND = "valgrind:arm64"
# The one valgrind tool the guest runs (--pmubench_simulate starts callgrind).
VALGRIND_TOOL = "callgrind"
VALGRIND_LIBEXEC = "usr/libexec/valgrind"


class SetupError(RuntimeError):
    """The rig cannot be prepared; the message says what to do."""


def newest_kernel(package_names: list[str]) -> str | None:
    """The package with the highest kernel version among names like
    linux-image-6.1.0-56-cloud-arm64-unsigned and
    linux-image-6.12.117+deb12-cloud-arm64-unsigned."""
    def key(name: str) -> tuple[int, ...]:
        version = name[len("linux-image-"):-len("-cloud-arm64-unsigned")]
        return tuple(int(n) for n in re.findall(r"\d+", version))
    names = [n for n in package_names if re.match(KERNEL_PATTERN, n)]
    return max(names, key=key) if names else None


def _sudo() -> list[str]:
    if os.geteuid() == 0:
        return []
    if shutil.which("sudo"):
        return ["sudo"]
    raise SetupError("pmu-vm: not root and no sudo: as root, run "
                     "`dpkg --add-architecture arm64 && apt-get update && apt-get install "
                     + " ".join(HOST_PACKAGES + ARM64_PACKAGES) + "`")


def _run(cmd: list[str], what: str, cwd: str | None = None) -> str:
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout + proc.stderr)
        raise SetupError(f"pmu-vm: {what} failed: {' '.join(cmd)} (exit {proc.returncode})")
    return proc.stdout


def _missing(packages: tuple[str, ...]) -> list[str]:
    missing = []
    for p in packages:
        proc = subprocess.run(["dpkg-query", "-W", "-f=${db:Status-Status}", p],
                              capture_output=True, text=True)
        if proc.stdout.strip() != "installed":
            missing.append(p)
    return missing


class Apt:
    """apt-get with one `apt-get update` at most per run, and only when needed."""

    def __init__(self) -> None:
        self._updated = False

    def update(self) -> None:
        if not self._updated:
            print("pmu-vm: apt-get update", file=sys.stderr, flush=True)
            _run(_sudo() + ["apt-get", "update", "-q"], "apt-get update")
            self._updated = True

    def ensure_arm64_architecture(self) -> None:
        foreign = _run(["dpkg", "--print-foreign-architectures"], "dpkg").split()
        if "arm64" not in foreign:
            _run(_sudo() + ["dpkg", "--add-architecture", "arm64"], "dpkg --add-architecture arm64")
            self._updated = False
            self.update()

    def install(self, packages: tuple[str, ...]) -> None:
        missing = _missing(packages)
        if not missing:
            return
        self.update()
        print(f"pmu-vm: installing {' '.join(missing)}", file=sys.stderr, flush=True)
        _run(_sudo() + ["apt-get", "install", "-y", "-q", "--no-install-recommends",
                        *missing], "apt-get install")

    def search_names(self, pattern: str) -> list[str]:
        out = _run(["apt-cache", "search", "--names-only", pattern], "apt-cache search")
        names = [line.split(" ", 1)[0] for line in out.splitlines() if line.strip()]
        if not names and not self._updated:
            self.update()
            return self.search_names(pattern)
        return names

    def download_and_unpack(self, package: str, cache: str) -> str:
        """apt-get download into cache/deb, dpkg -x into cache/root; returns
        the unpacked root."""
        debs = os.path.join(cache, "deb")
        root = os.path.join(cache, "root")
        os.makedirs(debs, exist_ok=True)
        print(f"pmu-vm: downloading {package}", file=sys.stderr, flush=True)
        before = set(os.listdir(debs))
        # As root, apt drops to the _apt user to download: let it write here.
        os.chmod(debs, 0o777)
        _run(["apt-get", "download", "-q", package], "apt-get download", cwd=debs)
        new = sorted(set(os.listdir(debs)) - before) or sorted(os.listdir(debs))
        for deb in new:
            _run(["dpkg-deb", "-x", os.path.join(debs, deb), root], "dpkg-deb -x")
        return root


def ensure_build_tools(apt: Apt) -> None:
    """The cross compiler, qemu-user and the :arm64 libraries."""
    apt.install(("g++-aarch64-linux-gnu", "qemu-user"))
    apt.ensure_arm64_architecture()
    apt.install(ARM64_PACKAGES)


def ensure_kernel(apt: Apt, cache: str) -> str:
    """Path of the arm64 kernel Image, downloading the newest Debian cloud
    kernel on first use. Delete the cache directory to pick a newer one."""
    found = sorted(glob.glob(os.path.join(cache, "root", "boot", "vmlinuz-*")))
    if found:
        return found[-1]
    apt.ensure_arm64_architecture()
    package = newest_kernel(apt.search_names(KERNEL_PATTERN))
    if package is None:
        raise SetupError("pmu-vm: apt-cache finds no linux-image-*-cloud-arm64-unsigned "
                         "package: is the arm64 architecture enabled (dpkg "
                         "--add-architecture arm64; apt-get update)?")
    root = apt.download_and_unpack(package + ":arm64", cache)
    found = sorted(glob.glob(os.path.join(root, "boot", "vmlinuz-*")))
    if not found:
        raise SetupError(f"pmu-vm: {package} has no boot/vmlinuz-*")
    return found[-1]


def ensure_busybox(apt: Apt, cache: str) -> str:
    path = os.path.join(cache, "root", "bin", "busybox")
    if not os.path.exists(path):
        apt.ensure_arm64_architecture()
        apt.download_and_unpack(BUSYBOX, cache)
    if not os.path.exists(path):
        raise SetupError(f"pmu-vm: {BUSYBOX} did not provide bin/busybox")
    return path


def valgrind_files(package_files: list[str], tool: str = VALGRIND_TOOL) -> list[str]:
    """The files of the valgrind package (paths relative to its root) that
    run `valgrind --tool=TOOL` on arm64: Debian's launcher script
    usr/bin/valgrind and the valgrind.bin it execs, and from the compiled-in
    library directory (usr/libexec/valgrind, overridden by $VALGRIND_LIB)
    the tool, the core preload, the tool's own preload when it has one, and
    default.supp, which valgrind reads at every start. The other tools (~2 MB
    each) stay out."""
    present = {f.removeprefix("./").lstrip("/") for f in package_files}
    lib = VALGRIND_LIBEXEC
    required = ["usr/bin/valgrind", "usr/bin/valgrind.bin", f"{lib}/{tool}-arm64-linux",
                f"{lib}/vgpreload_core-arm64-linux.so", f"{lib}/default.supp"]
    missing = [f for f in required if f not in present]
    if missing:
        raise SetupError(f"pmu-vm: the {VALGRIND} package has no {', '.join(missing)}: "
                         "delete build/pmu-vm/valgrind to download it again")
    optional = f"{lib}/vgpreload_{tool}-arm64-linux.so"
    return required + ([optional] if optional in present else [])


def _files_under(root: str) -> list[str]:
    found = []
    for top, _dirs, files in os.walk(root):
        found.extend(os.path.relpath(os.path.join(top, f), root) for f in files)
    return found


def ensure_valgrind(apt: Apt, cache: str) -> dict[str, str]:
    """Guest path -> host path of the valgrind files the guest needs
    (valgrind_files), downloading Debian's arm64 package on first use. In
    the guest they sit where the package puts them, so the launcher finds
    its tools without $VALGRIND_LIB and /usr/bin is on the guest's PATH."""
    root = os.path.join(cache, "root")
    if not os.path.exists(os.path.join(root, VALGRIND_LIBEXEC,
                                       f"{VALGRIND_TOOL}-arm64-linux")):
        apt.ensure_arm64_architecture()
        apt.download_and_unpack(VALGRIND, cache)
    return {f"/{f}": os.path.join(root, f) for f in valgrind_files(_files_under(root))}


def ensure_vm_tools(apt: Apt) -> None:
    apt.install(("qemu-system-arm", "g++-aarch64-linux-gnu"))
    if not shutil.which("qemu-system-aarch64"):
        raise SetupError("pmu-vm: qemu-system-aarch64 is not on PATH although "
                         "qemu-system-arm is installed")

"""The guest's /init: a busybox sh script that prepares the kernel's view
(proc, sysfs, devtmpfs, a tmpfs /tmp), allows user-space counter reads,
runs one command with its output framed for the host (see console.py) and
powers off."""

from __future__ import annotations

import shlex

from . import console

GUEST_OUT = "/tmp/pmu-vm-out"

# perf_event_paranoid 1: per-process counting of user and kernel events
# without CAP_PERFMON (perf_event_open(2), "perf_event related
# configuration files"); perf_user_access 1: arm64 lets EL0 read the PMU
# counters of its own events (Documentation/arch/arm64/perf.rst).
SYSCTLS = (("kernel.perf_user_access", "1"), ("kernel.perf_event_paranoid", "1"))


def quote_argument(arg: str) -> str:
    """arg for the guest's sh, literal except that the text $PMU_VM_OUT
    becomes the output directory, so `--benchmark_out='$PMU_VM_OUT/r.json'`
    works without a shell of one's own."""
    return '"$PMU_VM_OUT"'.join(shlex.quote(part) for part in arg.split("$PMU_VM_OUT"))


def script(nonce: str, workdir: str, argv: list[str], want_out: bool) -> str:
    """The text of /init. argv runs in workdir with $PMU_VM_OUT set; its
    exit status is reported even when the output transfer fails."""
    mark = console.marker(nonce)
    command = " ".join(quote_argument(a) for a in argv)
    sysctls = "\n".join(
        f"sysctl -w {key}={value} >/dev/null || fail 'sysctl {key}={value}'"
        for key, value in SYSCTLS)
    # A tmpfs on /tmp would hide a repository that lives under /tmp (CI's
    # clone may); the initramfs root is writable, so /tmp is then kept as is.
    if workdir == "/tmp" or workdir.startswith("/tmp/"):
        tmp_setup = "mkdir -p /tmp || fail 'mkdir /tmp'"
    else:
        tmp_setup = "mount -t tmpfs tmpfs /tmp || fail 'mount /tmp'"
    out_transfer = ""
    if want_out:
        out_transfer = f"""echo '{mark}:out-begin'
tar -C "$PMU_VM_OUT" -cf - . | gzip -c | base64
echo '{mark}:out-end'
"""
    return f"""#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin:/usr/bin HOME=/tmp TMPDIR=/tmp PMU_VM_OUT={GUEST_OUT}
fail() {{ echo "{mark}:setup-failed $1"; poweroff -f; }}
mount -t proc proc /proc || fail 'mount /proc'
mount -t sysfs sysfs /sys || fail 'mount /sys'
mount -t devtmpfs devtmpfs /dev || fail 'mount /dev'
{tmp_setup}
{sysctls}
mkdir -p "$PMU_VM_OUT" && cd {shlex.quote(workdir)} || fail 'cd {workdir}'
mkfifo /tmp/.pmu-vm-stderr || fail 'mkfifo'
sed 's/^/E|/' </tmp/.pmu-vm-stderr &
echo '{mark}:begin'
{{ {command} </dev/null 2>/tmp/.pmu-vm-stderr; echo $? >/tmp/.pmu-vm-status; }} | sed 's/^/O|/'
wait
echo "{mark}:exit $(cat /tmp/.pmu-vm-status)"
{out_transfer}poweroff -f
"""

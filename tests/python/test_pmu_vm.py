"""scripts/pmu-vm's pure parts: the console protocol, the initramfs writer,
the ELF closure, the guest's /init and the counts of `pmu-vm test`. The VM
itself runs in scripts/test's pmu-vm step."""

from __future__ import annotations

import base64
import gzip
import io
import shutil
import stat
import subprocess
import tarfile

import pytest

from pmuvm import cli, console, cpio, elf_closure, guest_init, packages, test_results, vm
from dev.test_summary import Counts

NONCE = "0123456789abcdef"
MARK = console.marker(NONCE)


def feed_all(demux: console.Demux, text: str) -> list[tuple[str, str]]:
    shown = []
    for line in text.split("\n"):
        shown.extend(demux.feed(line))
    return shown


# --- console protocol -------------------------------------------------------

def test_demux_splits_streams_and_reads_exit_status():
    d = console.Demux(NONCE)
    shown = feed_all(d, f"[    0.3] boot noise\r\n{MARK}:begin\r\nO|hello\r\n"
                        f"E|oops\r\n[   12.0] kernel says\r\n{MARK}:exit 3\r\n"
                        "reboot: Power down")
    assert shown == [(console.BOOT, "[    0.3] boot noise"),
                     (console.STDOUT, "hello"), (console.STDERR, "oops"),
                     (console.CONSOLE, "[   12.0] kernel says"),
                     (console.BOOT, "reboot: Power down")]
    assert d.exit_status == 3 and d.started and d.setup_failure is None


def test_demux_splits_a_last_line_without_newline_from_the_marker():
    d = console.Demux(NONCE)
    shown = feed_all(d, f"{MARK}:begin\nO|partial{MARK}:exit 0")
    assert shown == [(console.STDOUT, "partial")]
    assert d.exit_status == 0


def test_output_cannot_fake_the_exit_marker_without_the_nonce():
    d = console.Demux(NONCE)
    feed_all(d, f"{MARK}:begin\nO|@@pmu-vm:ffffffffffffffff:exit 0\n")
    assert d.exit_status is None


def test_demux_reports_setup_failure_and_missing_begin():
    d = console.Demux(NONCE)
    feed_all(d, f"{MARK}:setup-failed sysctl kernel.perf_user_access=1")
    assert d.setup_failure == "sysctl kernel.perf_user_access=1"
    assert not d.started and d.exit_status is None


def _tar_gz(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def test_output_archive_round_trip(tmp_path):
    encoded = base64.encodebytes(_tar_gz({"./run.json": b"{}", "./sub/a.txt": b"x"}))
    d = console.Demux(NONCE)
    feed_all(d, f"{MARK}:begin\n{MARK}:exit 0\n{MARK}:out-begin\n"
                + encoded.decode() + f"{MARK}:out-end\n")
    assert d.archive_complete
    names = console.extract_archive(console.decode_archive(d.archive_lines), str(tmp_path))
    assert names == ["run.json", "sub/a.txt"]
    assert (tmp_path / "sub" / "a.txt").read_bytes() == b"x"


def test_output_archive_refuses_paths_outside_the_directory(tmp_path):
    with pytest.raises(ValueError, match="escapes"):
        console.extract_archive(_tar_gz({"../evil": b"x"}), str(tmp_path / "out"))
    assert not (tmp_path / "evil").exists()


# --- initramfs --------------------------------------------------------------

def test_cpio_newc_layout_is_what_the_kernel_unpacks():
    data = cpio.archive([cpio.regular("init", b"#!/bin/sh\n")])
    # Header: magic then 13 eight-digit hex fields; name padded to 4 bytes.
    assert data[:6] == b"070701"
    entries = []
    offset = 0
    while True:
        header = data[offset:offset + 110]
        fields = [int(header[6 + 8 * i:14 + 8 * i], 16) for i in range(13)]
        mode, size, namesize = fields[1], fields[6], fields[11]
        name_end = offset + 110 + namesize
        name = data[offset + 110:name_end - 1].decode()
        body = (name_end + 3) & ~3
        entries.append((name, mode, data[body:body + size]))
        offset = (body + size + 3) & ~3
        if name == "TRAILER!!!":
            break
    assert offset == len(data)
    assert entries[0] == ("init", stat.S_IFREG | 0o755, b"#!/bin/sh\n")


def test_cpio_creates_parents_once_and_refuses_duplicates():
    names = _cpio_names(cpio.archive([cpio.regular("a/b/c", b"1"),
                                      cpio.regular("a/b/d", b"2"),
                                      cpio.symlink("lib/ld.so", "/a/b/c")]))
    assert names == ["a", "a/b", "a/b/c", "a/b/d", "lib", "lib/ld.so", "TRAILER!!!"]
    with pytest.raises(ValueError, match="twice"):
        cpio.archive([cpio.regular("x", b""), cpio.regular("/x", b"")])


@pytest.mark.skipif(shutil.which("cpio") is None, reason="cpio(1) not installed")
def test_cpio_archive_lists_with_gnu_cpio():
    data = cpio.archive([cpio.regular("bin/busybox", b"\x7fELF" + b"\0" * 13),
                         cpio.symlink("bin/sh", "busybox")])
    out = subprocess.run(["cpio", "-t", "--quiet"], input=data, capture_output=True,
                         check=True).stdout.decode().split()
    assert out == ["bin", "bin/busybox", "bin/sh"]


def _cpio_names(data: bytes) -> list[str]:
    names, offset = [], 0
    while offset < len(data):
        header = data[offset:offset + 110]
        size = int(header[54:62], 16)
        namesize = int(header[94:102], 16)
        names.append(data[offset + 110:offset + 110 + namesize - 1].decode())
        body = (offset + 110 + namesize + 3) & ~3
        offset = (body + size + 3) & ~3
    return names


def test_initramfs_puts_packaged_files_at_their_guest_paths(tmp_path):
    busybox = tmp_path / "busybox"
    busybox.write_bytes(b"#!busybox\n")
    supp = tmp_path / "default.supp"
    supp.write_bytes(b"{ suppression }\n")
    launcher = tmp_path / "valgrind"
    launcher.write_bytes(b"#!/bin/sh -e\nexec $0.bin \"$@\"\n")
    launcher.chmod(0o755)
    data = gzip.decompress(vm.build_initramfs(
        "#!/bin/sh\n", str(busybox), [], str(tmp_path / "lean"),
        {"/usr/libexec/valgrind/default.supp": str(supp),
         "/usr/bin/valgrind": str(launcher)}))
    names = _cpio_names(data)
    assert "usr/libexec/valgrind/default.supp" in names
    assert "usr/bin/valgrind" in names
    assert names.index("usr/bin") < names.index("usr/bin/valgrind")
    assert b"{ suppression }" in data


# --- ELF closure --------------------------------------------------------------

READELF_D = """
Dynamic section at offset 0x1d0 contains 30 entries:
  Tag        Type                         Name/Value
 0x0000000000000001 (NEEDED)             Shared library: [libbenchmark.so.1debian]
 0x0000000000000001 (NEEDED)             Shared library: [libstdc++.so.6]
 0x0000000000000001 (NEEDED)             Shared library: [libc.so.6]
 0x000000000000000c (INIT)               0x4000
"""


def test_parse_needed_and_interpreter():
    assert elf_closure.parse_needed(READELF_D) == [
        "libbenchmark.so.1debian", "libstdc++.so.6", "libc.so.6"]
    assert elf_closure.parse_interpreter(
        "      [Requesting program interpreter: /lib/ld-linux-aarch64.so.1]") == \
        "/lib/ld-linux-aarch64.so.1"
    assert elf_closure.parse_interpreter("no PT_INTERP here") is None


def test_closure_follows_needed_transitively_once():
    graph = {"bin": ["libbenchmark.so.1", "libc.so.6"],
             "/l/libbenchmark.so.1": ["libstdc++.so.6", "libc.so.6"],
             "/l/libstdc++.so.6": ["libm.so.6", "libc.so.6"],
             "/l/libm.so.6": ["libc.so.6"],
             "/l/libc.so.6": ["ld-linux-aarch64.so.1"],
             "/l/ld-linux-aarch64.so.1": []}
    calls = []

    def needed_of(path):
        calls.append(path)
        return graph[path]
    found = elf_closure.closure(["bin"], needed_of, lambda s: "/l/" + s)
    assert found == {s: "/l/" + s for s in ("libbenchmark.so.1", "libc.so.6",
                                            "libstdc++.so.6", "libm.so.6",
                                            "ld-linux-aarch64.so.1")}
    assert sorted(calls) == sorted(graph)  # each file read once


def test_closure_names_the_binary_that_needs_a_missing_library():
    with pytest.raises(FileNotFoundError, match=r"bin needs libgone\.so\.1"):
        elf_closure.closure(["bin"], lambda p: ["libgone.so.1"], lambda s: None)


def test_find_in_prefers_earlier_directories(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "libx.so").write_bytes(b"")
    find = elf_closure.find_in([str(tmp_path / "a"), str(tmp_path / "b")])
    assert find("libx.so") == str(tmp_path / "b" / "libx.so")
    (tmp_path / "a" / "libx.so").write_bytes(b"")
    assert find("libx.so") == str(tmp_path / "a" / "libx.so")
    assert find("liby.so") is None


# --- guest /init and packages ---------------------------------------------------

def test_init_quotes_arguments_and_sets_the_sysctls():
    text = guest_init.script(NONCE, "/work/repo", ["build/arm64/benches/all",
                                                    "--benchmark_filter=BM_A|BM_B", "it's"],
                             want_out=True)
    assert text.startswith("#!/bin/busybox sh\n")
    assert "build/arm64/benches/all '--benchmark_filter=BM_A|BM_B' 'it'\"'\"'s'" in text
    assert "sysctl -w kernel.perf_user_access=1" in text
    assert "sysctl -w kernel.perf_event_paranoid=1" in text
    assert f"echo '{MARK}:out-begin'" in text
    assert text.rstrip().endswith("poweroff -f")
    assert f"{MARK}:out-begin" not in guest_init.script(NONCE, "/r", ["true"], False)


@pytest.mark.skipif(shutil.which("sh") is None, reason="no sh")
def test_arguments_stay_literal_except_the_output_directory():
    def through_sh(arg):
        quoted = guest_init.quote_argument(arg)
        return subprocess.run(["sh", "-c", f"printf %s {quoted}"], capture_output=True,
                              text=True, check=True,
                              env={"PMU_VM_OUT": "/tmp/out", "HOME": "/x"}).stdout
    assert through_sh("--benchmark_out=$PMU_VM_OUT/run.json") == "--benchmark_out=/tmp/out/run.json"
    assert through_sh("$HOME '*' $(echo x) \\") == "$HOME '*' $(echo x) \\"
    assert through_sh("") == ""


@pytest.mark.skipif(shutil.which("sh") is None, reason="no sh")
def test_init_script_is_valid_shell():
    text = guest_init.script(NONCE, "/r", ["a b", "$(rm -rf /)"], True)
    subprocess.run(["sh", "-n"], input=text.encode(), check=True)


VALGRIND_DEB = ["./usr/bin/valgrind", "./usr/bin/valgrind.bin", "./usr/bin/vgdb",
                "./usr/bin/callgrind_annotate", "./usr/include/valgrind/valgrind.h",
                "./usr/libexec/valgrind/callgrind-arm64-linux",
                "./usr/libexec/valgrind/memcheck-arm64-linux",
                "./usr/libexec/valgrind/vgpreload_core-arm64-linux.so",
                "./usr/libexec/valgrind/vgpreload_memcheck-arm64-linux.so",
                "./usr/libexec/valgrind/default.supp",
                "./usr/libexec/valgrind/arm-core.xml"]


def test_valgrind_files_are_the_launcher_one_tool_and_its_preloads():
    assert packages.valgrind_files(VALGRIND_DEB) == [
        "usr/bin/valgrind", "usr/bin/valgrind.bin",
        "usr/libexec/valgrind/callgrind-arm64-linux",
        "usr/libexec/valgrind/vgpreload_core-arm64-linux.so",
        "usr/libexec/valgrind/default.supp"]
    # A tool with a preload of its own brings it; paths may come without "./".
    memcheck = packages.valgrind_files([f[2:] for f in VALGRIND_DEB], tool="memcheck")
    assert "usr/libexec/valgrind/vgpreload_memcheck-arm64-linux.so" in memcheck
    assert "usr/libexec/valgrind/callgrind-arm64-linux" not in memcheck


def test_valgrind_files_name_what_the_package_lacks():
    without = [f for f in VALGRIND_DEB if not f.endswith(("default.supp", "valgrind.bin"))]
    with pytest.raises(packages.SetupError,
                       match=r"no usr/bin/valgrind\.bin, usr/libexec/valgrind/default\.supp"):
        packages.valgrind_files(without)


def test_guest_path_has_usr_bin_for_valgrind():
    text = guest_init.script(NONCE, "/r", ["true"], False)
    assert "export PATH=/bin:/usr/bin " in text


def test_newest_kernel_compares_versions_numerically():
    names = ["linux-image-6.1.0-56-cloud-arm64-unsigned",
             "linux-image-6.12.9+deb12-cloud-arm64-unsigned",
             "linux-image-6.12.117+deb12-cloud-arm64-unsigned",
             "linux-image-6.12.117+deb12-arm64-unsigned",
             "linux-image-6.1.0-9-cloud-arm64-unsigned"]
    assert packages.newest_kernel(names) == "linux-image-6.12.117+deb12-cloud-arm64-unsigned"
    assert packages.newest_kernel(["linux-image-6.1.0-56-arm64-unsigned"]) is None


# --- counts of `pmu-vm test` ----------------------------------------------------

GTEST_OK = """[==========] Running 5 tests from 2 test suites.
[ RUN      ] A.B
[       OK ] A.B (0 ms)
[  SKIPPED ] A.C (0 ms)
[  FAILED  ] A.D (3 ms)
[==========] 5 tests from 2 test suites ran. (12 ms total)
[  PASSED  ] 3 tests.
[  SKIPPED ] 1 test, listed below:
[  SKIPPED ] A.C
[  FAILED  ] 1 test, listed below:
[  FAILED  ] A.D

 1 FAILED TEST
"""


def test_gtest_counts_from_closing_lines():
    assert test_results.parse_gtest(GTEST_OK, 1) == Counts(passed=3, failed=1, skipped=1)
    only_pass = "[==========] 2 tests from 1 test suite ran. (1 ms total)\n[  PASSED  ] 2 tests.\n"
    assert test_results.parse_gtest(only_pass, 0) == Counts(passed=2)


def test_gtest_crash_counts_a_failure():
    crashed = "[==========] Running 5 tests from 2 test suites.\n[ RUN      ] A.B\n"
    assert test_results.parse_gtest(crashed, 139) == Counts(failed=1)
    exit_crash = "[==========] 1 test from 1 test suite ran. (1 ms total)\n[  PASSED  ] 1 test.\n"
    assert test_results.parse_gtest(exit_crash, 134) == Counts(passed=1, failed=1)


def test_split_sections_keeps_names_statuses_and_unfinished_runs():
    out = (f"{test_results.BEGIN} t/a\nline 1\n{test_results.END} t/a 0\n"
           f"noise\n{test_results.BEGIN} t/b\nline 2\n")
    sections = test_results.split_sections(out)
    assert [(s.name, s.output, s.exit_status) for s in sections] == [
        ("t/a", "line 1", 0), ("t/b", "line 2", None)]


def test_accuracy_check_holds_the_batch_to_the_loop_entry_slack():
    report = {"benchmarks": [
        {"name": "BM_AccuracyNops", "run_type": "iteration", "iterations": 1000,
         "instructions": 102.0, "expected_instructions": 102},
        {"name": "BM_AccuracyJumps", "run_type": "iteration", "iterations": 1000,
         "instructions": 102.002, "expected_instructions": 102},
        {"name": "BM_AccuracyEmptyLoop", "run_type": "iteration", "iterations": 1000,
         "instructions": 2.004, "expected_instructions": 2},
        {"name": "BM_AccuracyAdds", "run_type": "iteration", "iterations": 0,
         "instructions": 2.0, "expected_instructions": 2},
        {"name": "BM_Other", "run_type": "iteration", "instructions": 5.0},
        {"name": "BM_AccuracyNops_mean", "run_type": "aggregate",
         "instructions": 1.0, "expected_instructions": 102}]}
    check = test_results.check_accuracy(report)
    # 0 and 2 instructions per batch pass; 4 per batch, and a run without
    # iterations, fail.
    assert check.counts == Counts(passed=2, failed=2)
    assert "(4 per batch of 1000)" in check.lines[2]
    assert test_results.check_accuracy({"benchmarks": []}).counts.failed == 1


def test_simulated_accuracy_is_exact_against_expected_instructions():
    report = {"benchmarks": [
        {"name": "BM_AccuracyNops", "run_type": "iteration", "iterations": 50,
         "callgrind/instructions/": 102.0, "expected_instructions": 102},
        {"name": "BM_AccuracyEmptyLoop", "run_type": "iteration", "iterations": 50,
         "callgrind/instructions/": 2.02, "expected_instructions": 2},
        {"name": "BM_AccuracyJumps", "run_type": "iteration", "iterations": 50,
         "expected_instructions": 102}]}
    check = test_results.check_accuracy(report, "callgrind/instructions/", slack=0,
                                        expected_key="expected_instructions")
    # One instruction per batch of 50 is a failure; so is a missing count.
    assert check.counts == Counts(passed=1, failed=2)
    assert "(1 per batch of 50)" in check.lines[1]
    none = test_results.check_accuracy({"benchmarks": []}, "callgrind/instructions/",
                                       expected_key="expected_instructions")
    assert none.lines == ["FAIL no benchmark reports expected_instructions"]


def test_summary_line_for_scripts_test():
    out = "perf_tests: 3 passed, 0 failed, 1 skipped\n...\n140 passed, 2 failed, 9 skipped\n"
    assert test_results.parse_summary(out) == Counts(passed=140, failed=2, skipped=9)
    assert test_results.parse_summary("pmu-vm: qemu-system-aarch64 missing\n") == Counts(failed=1)


def _outcome(text: str, timed_out: bool = False) -> vm.Outcome:
    d = console.Demux(NONCE)
    feed_all(d, text)
    return vm.Outcome(d.exit_status, d, timed_out, [], 1.0)


def test_rig_failure_names_why_the_status_did_not_come_back():
    assert cli.rig_failure(_outcome(f"{MARK}:begin\n{MARK}:exit 7"), 60) is None
    assert "within 60 s" in cli.rig_failure(_outcome(f"{MARK}:begin", timed_out=True), 60)
    assert "before running" in cli.rig_failure(_outcome("Kernel panic - not syncing"), 60)
    assert "without reporting" in cli.rig_failure(_outcome(f"{MARK}:begin\nO|x"), 60)
    assert "mount /proc" in cli.rig_failure(_outcome(f"{MARK}:setup-failed mount /proc"), 60)


def test_test_script_frames_each_binary_and_the_accuracy_run():
    script = cli.test_script(["build/arm64/tests/perf/perf_tests"], "accuracy.json",
                             "simulated.json")
    assert f"echo '{test_results.BEGIN} build/arm64/tests/perf/perf_tests'" in script
    assert f'echo "{test_results.END} build/arm64/tests/perf/perf_tests $?"' in script
    assert "--counters=instructions" in script
    assert '$PMU_VM_OUT/accuracy.json' in script
    simulated = [line for line in script.splitlines()
                 if f"{test_results.BEGIN} simulated-accuracy" in line]
    assert len(simulated) == 1 and "--pmubench_simulate " in simulated[0]
    assert '$PMU_VM_OUT/simulated.json' in simulated[0]
    subprocess.run(["sh", "-n"], input=script.encode(), check=True)


def test_a_repository_under_tmp_is_not_hidden_by_a_tmpfs():
    from pmuvm import guest_init
    under_tmp = guest_init.script("n", "/tmp/clone", ["true"], want_out=False)
    assert "mount -t tmpfs tmpfs /tmp" not in under_tmp
    assert "cd /tmp/clone" in under_tmp
    elsewhere = guest_init.script("n", "/work/main", ["true"], want_out=False)
    assert "mount -t tmpfs tmpfs /tmp" in elsewhere

"""ci_compare.sh builds with line tables (issue 30, item 7): its default
CMake build is Release (-O3 -DNDEBUG) plus -g1, so a profile of the
binary (--pmubench_profile; under --simulate, exact per instruction) names
source lines, and the code is the one a plain Release build makes. (A
--cmake-arg build type of the user's own still wins:
test_ci_compare_safety.py, test_cmake_args_reach_configure_...)"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from test_ci_compare_safety import _BENCH, _project, _recipe

pytestmark = pytest.mark.skipif(
    not all(shutil.which(t) for t in ("cmake", "g++", "readelf", "objcopy")),
    reason="needs cmake, g++ and binutils")

_PROBE = "int Probe(int x) { return x * 3 + 1; }\nint main() { return Probe(0) - 1; }\n"

_CMAKE = """\
cmake_minimum_required(VERSION 3.18)
project(fake LANGUAGES CXX)
add_executable(probe probe.cc)
add_custom_target(benches_all
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/benches
  COMMAND ${CMAKE_COMMAND} -E copy ${CMAKE_SOURCE_DIR}/bench_main.py
          ${CMAKE_BINARY_DIR}/benches/all)
add_dependencies(benches_all probe)
"""


def _sections(binary) -> str:
    return subprocess.run(["readelf", "-S", "-W", str(binary)], check=True,
                          capture_output=True, text=True).stdout


def _text(binary, tmp_path) -> bytes:
    out = tmp_path / f"{binary.name}.text"
    subprocess.run(["objcopy", "-O", "binary", "--only-section=.text", str(binary), str(out)],
                   check=True)
    return out.read_bytes()


def test_the_default_cmake_build_has_line_tables_and_release_code(tmp_path):
    repo = _project(tmp_path, {"CMakeLists.txt": _CMAKE, "probe.cc": _PROBE,
                               "bench_main.py": "#!/usr/bin/python3\n" + _BENCH})
    out = tmp_path / "out"
    proc = _recipe(repo, "--base", "HEAD~1", "--reps", "3", "--cmake-target", "benches_all",
                   "--keep", "--out", out)
    assert proc.returncode == 1, proc.stdout + proc.stderr   # 1000 -> 1100 instructions
    built = out / "worktrees" / "base" / "build" / "probe"
    assert ".debug_line" in _sections(built)
    # The same code as a plain Release build (CMake's -O3 -DNDEBUG) of it.
    plain = tmp_path / "plain"
    subprocess.run(["g++", "-O3", "-DNDEBUG", "-o", str(plain), str(repo / "probe.cc")],
                   check=True)
    assert ".debug_line" not in _sections(plain)
    assert _text(built, tmp_path) == _text(plain, tmp_path)


_WHERE = '#include <cstdio>\nint main() { std::puts(__FILE__); return 0; }\n'


def test_an_a_a_builds_the_same_binary_on_both_sides(tmp_path):
    """-ffile-prefix-map: the worktree's path is in neither binary, so the
    same commit gives the same bytes on both sides (before, __FILE__ and the
    line tables held two paths of different lengths, which moved the data
    that came after them)."""
    repo = _project(tmp_path, {"CMakeLists.txt": _CMAKE, "probe.cc": _WHERE,
                               "bench_main.py": "#!/usr/bin/python3\n" + _BENCH})
    out = tmp_path / "out"
    proc = _recipe(repo, "--base", "HEAD", "--allow-same-commit", "--reps", "3",
                   "--cmake-target", "benches_all", "--keep", "--out", out)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    base = (out / "worktrees" / "base" / "build" / "probe").read_bytes()
    head = (out / "worktrees" / "head" / "build" / "probe").read_bytes()
    assert base == head
    assert str(out).encode() not in base
    assert b"./probe.cc" in base


_COUT = '#include <iostream>\nint main() { std::cout << "probe\\n"; return 0; }\n'


def _copy_relocations(binary) -> str:
    relocations = subprocess.run(["readelf", "-r", "-W", str(binary)], check=True,
                                 capture_output=True, text=True).stdout
    return "\n".join(line for line in relocations.splitlines() if "_COPY" in line)


@pytest.mark.skipif(subprocess.run(["g++", "-mno-direct-extern-access", "-x", "c++",
                                    "-fsyntax-only", "-"], input="", text=True,
                                   capture_output=True).returncode != 0,
                    reason="g++ without -mno-direct-extern-access (GCC 12, x86-64)")
@pytest.mark.parametrize("mode, copied", [("--simulate", False), ("--no-simulate", True)])
def test_under_callgrind_no_library_variable_is_copied_into_the_program(
        tmp_path, mode, copied):
    """A library's variable copied into the program (std::cout here; Abseil's
    hash seed in a real suite) has an address that moves with the program's
    own data: under --simulate the build reaches it through the GOT."""
    repo = _project(tmp_path, {"CMakeLists.txt": _CMAKE, "probe.cc": _COUT,
                               "bench_main.py": "#!/usr/bin/python3\n" + _BENCH})
    out = tmp_path / "out"
    _recipe(repo, "--base", "HEAD~1", "--reps", "3", mode, "--cmake-target", "benches_all",
            "--keep", "--out", out)
    built = out / "worktrees" / "base" / "build" / "probe"
    assert built.exists(), (out / "base-build.log").read_text()
    assert ("cout" in _copy_relocations(built)) == copied, _copy_relocations(built)

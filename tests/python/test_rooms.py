"""framework's rooms: includes run only down the stages, in both builds."""

import shutil
import subprocess

import pytest

from conftest import REPO_ROOT
from dev.check_rooms import (bazel_rooms, check, cmake_rooms,
                              include_offences, ladder_offences)

ROOMS = [("cli", []), ("plan", ["cli"]), ("measure", ["plan"]),
         ("run", ["measure"])]


def test_this_tree_runs_down_its_stages():
    assert check(REPO_ROOT) == []


@pytest.mark.parametrize("tree", ["perf", "runner"])
def test_both_builds_list_the_same_rooms(tree):
    cmake = cmake_rooms((REPO_ROOT / "framework/CMakeLists.txt").read_text(),
                        tree)
    bazel = bazel_rooms((REPO_ROOT / "framework/BUILD.bazel").read_text(),
                        tree)
    assert len(cmake) >= 5
    assert bazel == {room: sorted(below) for room, below in cmake}


def test_an_include_of_a_room_above_is_named():
    files = {"plan/plan.cc": '#include "framework/runner/run/case_runner.h"\n',
             "run/case_runner.cc": '#include "framework/runner/cli/flags.h"\n'}
    [offence] = include_offences(files, ROOMS)
    assert offence.startswith("framework/runner/plan/plan.cc includes "
                              "framework/runner/run/case_runner.h")
    assert "may include only cli, plan" in offence


def test_a_room_may_include_every_room_below_it_not_only_its_own_list():
    files = {"run/a.cc": '#include "framework/runner/cli/x.h"\n'
                         '#include "framework/runner/run/b.h"\n'}
    assert include_offences(files, ROOMS) == []


def test_a_file_outside_a_room_is_named():
    [offence] = include_offences({"loose.h": ""}, ROOMS)
    assert "framework/runner/loose.h: not in a room" in offence


def test_a_perf_room_including_a_room_above_is_named():
    files = {"events/pmu.cc":
             '#include "framework/perf/sampling/sampler.h"\n'}
    [offence] = include_offences(files, [("events", []), ("sampling", [])],
                                 "perf")
    assert offence.startswith("framework/perf/events/pmu.cc includes "
                              "framework/perf/sampling/sampler.h")


def test_a_room_listed_before_what_it_includes_is_named():
    [offence] = ladder_offences([("plan", ["cli"]), ("cli", [])])
    assert "room plan may include cli" in offence


def test_disagreeing_builds_and_perf_including_the_runner_are_named(tmp_path):
    root = tmp_path / "tree"
    shutil.copytree(REPO_ROOT / "framework", root / "framework")
    bazel = root / "framework/BUILD.bazel"
    planned = ('folder = "runner/plan",\n    below = [\n'
               '        ":pmubench_cli",\n    ],')
    assert planned in bazel.read_text()
    bazel.write_text(bazel.read_text().replace(
        planned, 'folder = "runner/plan",\n    below = [],'))
    (root / "framework/perf/leak.h").write_text(
        '#include "framework/runner/plan/plan.h"\n')
    offences = check(root)
    assert any("BUILD.bazel's runner rooms" in o for o in offences), offences
    assert "framework/perf/leak.h: not in a room (rooms: system, events, " \
        "counting, symbols, sampling)" in offences, offences
    assert "framework/perf/leak.h: framework/perf includes the runner or " \
        "Google Benchmark" in offences, offences


def test_the_command_line_exits_one_and_names_the_offence(tmp_path):
    root = tmp_path / "tree"
    shutil.copytree(REPO_ROOT / "framework", root / "framework")
    (root / "framework/runner/cli/up.h").write_text(
        '#include "framework/runner/api/registration.h"\n')
    done = subprocess.run(
        ["/usr/bin/python3", str(REPO_ROOT / "scripts/dev/check_rooms.py"),
         "--root", str(root)], capture_output=True, text=True, check=False)
    assert done.returncode == 1
    assert "framework/runner/cli/up.h includes" in done.stderr


def test_the_command_line_refuses_a_root_that_is_not_the_tree(tmp_path):
    done = subprocess.run(
        ["/usr/bin/python3", str(REPO_ROOT / "scripts/dev/check_rooms.py"),
         "--root", str(tmp_path)], capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert "no framework/CMakeLists.txt" in done.stderr

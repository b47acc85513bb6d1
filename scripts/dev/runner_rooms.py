#!/usr/bin/python3
"""Checks that framework/runner's includes run only down its stages.

framework/runner is split into rooms, one per stage of a run (docs/design.md),
each a library in both builds. framework/CMakeLists.txt lists each room with
the rooms below it that it may include (PMUBENCH_ROOM_DEPS);
framework/BUILD.bazel says the same in each pmubench_<room>'s deps. Bazel's
sandbox refuses an include from a room not depended on; CMake, whose include
directory is the source root, does not: this check does, for both.

  scripts/dev/runner_rooms.py [--root DIR]

Exit 0 when the two builds agree, the rooms form a ladder (each room's
rooms below it come earlier in the list) and every include goes to the
room itself or a room below it; exit 1 listing each offence otherwise.
"""

import argparse
import pathlib
import re
import sys

ROOM_LIST = re.compile(r"set\(PMUBENCH_ROOM_DEPS\s+(.*?)\)", re.S)
BAZEL_ROOM = re.compile(
    r'name = "pmubench_(\w+)",\s+srcs = glob\(\s+\["runner/\1/\*\.cc"\].*?'
    r"deps = \[(.*?)\]",
    re.S)
RUNNER_INCLUDE = re.compile(
    r'^\s*#\s*include\s+"framework/runner/([^"]+)"', re.M)
PERF_FORBIDDEN = re.compile(
    r'^\s*#\s*include\s+[<"](framework/runner/|benchmark/)', re.M)


def cmake_rooms(text):
    """[(room, [rooms below it])] in the order CMake lists them."""
    match = ROOM_LIST.search(text)
    if match is None:
        return []
    rooms = []
    for entry in re.findall(r'"([^"]*)"', match.group(1)):
        room, _, below = entry.partition(":")
        rooms.append((room, [b for b in below.split(",") if b]))
    return rooms


def bazel_rooms(text):
    """{room: sorted rooms it depends on} from pmubench_<room> libraries."""
    rooms = {}
    for room, deps in BAZEL_ROOM.findall(text):
        below = re.findall(r'":pmubench_(\w+)"', deps)
        rooms[room] = sorted(b for b in below if b != "perf")
    return rooms


def ladder_offences(rooms):
    """Rooms that name an unknown room, or one not listed before them."""
    offences, seen = [], set()
    for room, below in rooms:
        for b in below:
            if b not in seen:
                offences.append(
                    f"room {room} may include {b}, which is not a room "
                    f"listed before it (PMUBENCH_ROOM_DEPS is bottom-up)")
        seen.add(room)
    return offences


def reachable(rooms):
    """{room: rooms it may include: itself and every room below it}."""
    below = dict(rooms)
    out = {}
    for room, _ in rooms:
        stack, found = [room], set()
        while stack:
            r = stack.pop()
            if r in found:
                continue
            found.add(r)
            stack.extend(below.get(r, []))
        out[room] = found
    return out


def include_offences(files, rooms):
    """Includes that run against the stages.

    `files` maps a path under framework/runner ("plan/plan.cc") to its text.
    """
    allowed = reachable(rooms)
    offences = []
    for path, text in sorted(files.items()):
        parts = path.split("/")
        if len(parts) != 2 or parts[0] not in allowed:
            offences.append(f"framework/runner/{path}: not in a room "
                            f"(rooms: {', '.join(allowed)})")
            continue
        room = parts[0]
        for target in RUNNER_INCLUDE.findall(text):
            to = target.split("/")[0]
            if to not in allowed[room]:
                offences.append(
                    f"framework/runner/{path} includes framework/runner/"
                    f"{target}: room {room} may include only "
                    f"{', '.join(sorted(allowed[room]))}")
    return offences


def check(root):
    """Every offence in the tree at `root`, as lines."""
    framework = root / "framework"
    rooms = cmake_rooms((framework / "CMakeLists.txt").read_text())
    if not rooms:
        return ["framework/CMakeLists.txt: no PMUBENCH_ROOM_DEPS list"]
    offences = ladder_offences(rooms)
    bazel = bazel_rooms((framework / "BUILD.bazel").read_text())
    cmake = {room: sorted(below) for room, below in rooms}
    if bazel != cmake:
        offences.append(f"framework/BUILD.bazel's rooms {bazel} differ from "
                        f"framework/CMakeLists.txt's {cmake}")
    runner = framework / "runner"
    files = {str(p.relative_to(runner)): p.read_text()
             for p in sorted(runner.rglob("*")) if p.suffix in (".h", ".cc")}
    offences += include_offences(files, rooms)
    for p in sorted((framework / "perf").rglob("*")):
        if p.suffix in (".h", ".cc") and PERF_FORBIDDEN.search(p.read_text()):
            offences.append(f"{p.relative_to(root)}: framework/perf includes "
                            f"the runner or Google Benchmark")
    return offences


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=pathlib.Path,
                        default=pathlib.Path(__file__).resolve().parents[2],
                        help="the source tree (default: this checkout)")
    args = parser.parse_args(argv)
    if not (args.root / "framework" / "CMakeLists.txt").is_file():
        parser.error(f"--root {args.root}: no framework/CMakeLists.txt there; "
                     f"pass the pmubench source tree")
    offences = check(args.root)
    for line in offences:
        print(line, file=sys.stderr)
    if not offences:
        print(f"runner_rooms: every include under {args.root}/framework/runner "
              f"runs down its stages")
    return 1 if offences else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Checks that framework's includes run only down its stages.

framework/perf and framework/runner are split into rooms, one per stage
(docs/design.md#where-each-stage-lives), each a library in both builds.
framework/CMakeLists.txt lists each tree's rooms with the rooms below them
that they may include (PMUBENCH_PERF_ROOM_DEPS, PMUBENCH_RUNNER_ROOM_DEPS);
framework/BUILD.bazel says the same in each room()'s `below`. Bazel's
sandbox refuses an include from a room not depended on; CMake, whose include
directory is the source root, does not: this check does, for both.

  scripts/dev/check_rooms.py [--root DIR]

Exit 0 when the two builds agree, the rooms form a ladder (each room's
rooms below it come earlier in the list), every include goes to the room
itself or a room below it, and framework/perf includes neither the runner
nor Google Benchmark; exit 1 listing each offence otherwise.
"""

import argparse
import pathlib
import re
import sys

TREES = ("perf", "runner")
BAZEL_ROOM = re.compile(
    r'room\(\s*name = "(\w+)",\s*folder = "(\w+)/(\w+)",\s*below = \[(.*?)\]',
    re.S)
PERF_FORBIDDEN = re.compile(
    r'^\s*#\s*include\s+[<"](framework/runner/|benchmark/)', re.M)


def cmake_rooms(text, tree):
    """[(room, [rooms below it])] of `tree`, in the order CMake lists them."""
    match = re.search(
        rf"set\(PMUBENCH_{tree.upper()}_ROOM_DEPS\s+(.*?)\)", text, re.S)
    if match is None:
        return []
    rooms = []
    for entry in re.findall(r'"([^"]*)"', match.group(1)):
        room, _, below = entry.partition(":")
        rooms.append((room, [b for b in below.split(",") if b]))
    return rooms


def bazel_rooms(text, tree):
    """{room: sorted rooms it may include}, from the room() calls of
    framework/BUILD.bazel whose folder is <tree>/<room>."""
    libraries = [m for m in BAZEL_ROOM.findall(text) if m[1] == tree]
    room_of = {name: room for name, _, room, _ in libraries}
    rooms = {}
    for _, _, room, below in libraries:
        labels = re.findall(r'":(\w+)"', below)
        rooms[room] = sorted(room_of.get(b, b) for b in labels)
    return rooms


def ladder_offences(rooms):
    """Rooms that name an unknown room, or one not listed before them."""
    offences, seen = [], set()
    for room, below in rooms:
        for b in below:
            if b not in seen:
                offences.append(
                    f"room {room} may include {b}, which is not a room "
                    f"listed before it (framework/CMakeLists.txt lists "
                    f"rooms bottom up)")
        seen.add(room)
    return offences


def reachable(rooms):
    """{room: rooms it may include: itself and every room below it}, in one
    pass up the ladder (a room out of order gets only its own name)."""
    out = {}
    for room, below in rooms:
        out[room] = {room}.union(*(out.get(b, {b}) for b in below))
    return out


def include_offences(files, rooms, tree="runner"):
    """Includes that run against the stages of framework/<tree>.

    `files` maps a path under framework/<tree> ("plan/plan.cc") to its text.
    """
    allowed = reachable(rooms)
    include = re.compile(
        rf'^\s*#\s*include\s+"framework/{tree}/([^"]+)"', re.M)
    offences = []
    for path, text in sorted(files.items()):
        parts = path.split("/")
        if len(parts) != 2 or parts[0] not in allowed:
            offences.append(f"framework/{tree}/{path}: not in a room "
                            f"(rooms: {', '.join(allowed)})")
            continue
        room = parts[0]
        for target in include.findall(text):
            to = target.split("/")[0]
            if to not in allowed[room]:
                offences.append(
                    f"framework/{tree}/{path} includes framework/{tree}/"
                    f"{target}: room {room} may include only "
                    f"{', '.join(sorted(allowed[room]))}")
    return offences


def tree_offences(framework, tree, cmake_text, bazel_text):
    """Every offence of framework/<tree>: the builds' lists and includes."""
    rooms = cmake_rooms(cmake_text, tree)
    if not rooms:
        return [f"framework/CMakeLists.txt: no PMUBENCH_{tree.upper()}"
                f"_ROOM_DEPS list"]
    offences = ladder_offences(rooms)
    bazel = bazel_rooms(bazel_text, tree)
    cmake = {room: sorted(below) for room, below in rooms}
    if bazel != cmake:
        offences.append(f"framework/BUILD.bazel's {tree} rooms {bazel} differ "
                        f"from framework/CMakeLists.txt's {cmake}")
    root = framework / tree
    files = {str(p.relative_to(root)): p.read_text()
             for p in sorted(root.rglob("*")) if p.suffix in (".h", ".cc")}
    offences += include_offences(files, rooms, tree)
    if tree == "perf":
        offences += [f"framework/perf/{path}: framework/perf includes the "
                     f"runner or Google Benchmark"
                     for path, text in files.items()
                     if PERF_FORBIDDEN.search(text)]
    return offences


def check(root):
    """Every offence in the tree at `root`, as lines."""
    framework = root / "framework"
    cmake_text = (framework / "CMakeLists.txt").read_text()
    bazel_text = (framework / "BUILD.bazel").read_text()
    offences = []
    for tree in TREES:
        offences += tree_offences(framework, tree, cmake_text, bazel_text)
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
        print(f"check_rooms: every include under {args.root}/framework "
              f"runs down its stages")
    return 1 if offences else 0


if __name__ == "__main__":
    sys.exit(main())

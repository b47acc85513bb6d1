"""Reads folded stacks, the text flame graph tools take and pmubench writes
with --pmubench_profile_out: one line per distinct stack,

    root;caller;...;leaf COUNT

frames separated by ';', the sample count after the last space (frame
names may hold spaces: "(anonymous namespace)::f()"). parse_folded() turns
it into a tree of frames with the samples under each.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pmubench import benchjson


@dataclass
class Frame:
    name: str
    total: int = 0                        # samples in this frame and below
    children: dict[str, "Frame"] = field(default_factory=dict)

    def child(self, name: str) -> "Frame":
        found = self.children.get(name)
        if found is None:
            found = self.children[name] = Frame(name)
        return found

    def ordered_children(self) -> list["Frame"]:
        """By name, as flame graphs order siblings (the x axis is not time)."""
        return [self.children[k] for k in sorted(self.children)]


def parse_folded(text: str, path: str) -> Frame:
    """The tree of every stack in `text`, under a root named 'all'. Raises
    benchjson.BadInput naming path and line for a line without a positive
    whole sample count or with an empty frame."""
    root = Frame("all")
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        stack, sep, count_text = line.rpartition(" ")
        where = f"{path}:{number}"
        if not sep or not count_text.isdigit() or int(count_text) == 0:
            raise benchjson.BadInput(
                f"{where}: expected 'frame;frame;... COUNT' with a positive "
                f"whole COUNT after the last space, got {raw[:80]!r}; pass the "
                "file --pmubench_profile_out wrote")
        frames = stack.split(";")
        if any(not f.strip() for f in frames):
            raise benchjson.BadInput(
                f"{where}: an empty frame in {stack[:80]!r} (two ';' in a row, "
                "or one at an end)")
        count = int(count_text)
        node = root
        node.total += count
        for name in frames:
            node = node.child(name)
            node.total += count
    if root.total == 0:
        raise benchjson.BadInput(f"{path}: holds no stacks; run with "
                                 "--pmubench_profile_callchain")
    return root


def read_folded(path: str) -> Frame:
    """parse_folded of a file; an unreadable file is BadInput too."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise benchjson.BadInput(f"{path}: cannot read folded stacks: {e}") from e
    return parse_folded(text, path)

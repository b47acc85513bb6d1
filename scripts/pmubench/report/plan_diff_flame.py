"""Plans the differential flame graphs of a comparison: for each changed
benchmark whose two runs both carry a profile, a tree of frames with each
frame's count per iteration in the baseline and in the contender.
flame_plot.diff_flame_svg draws it (widths from the contender, red where a
frame grew, blue where it shrank, as Brendan Gregg's differential flame
graphs do).

Which frames:
- folded call chains on both sides (--folded, one file per side): the
  benchmark's call chains, under the root frame named after it; samples
  are turned into counts per iteration by the profile's own scale (the
  row's count per iteration over the benchmark's samples): estimated.
- otherwise the profile in the JSON, matched as compare's attribution
  matches it (verdicts/attribution.py: demangled names): two levels, the
  function, then its source lines. Under --pmubench_simulate these counts
  are exact per iteration (callgrind's self cost of each function and line
  over the row's own segments); callgrind's call graph is not in the JSON,
  so there is no call-chain level, and no inclusive cost is drawn. With a
  PMU they are the sampled top list, estimated.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pmubench.report.model import slug
from pmubench.runs.folded import Frame
from pmubench.verdicts import attribution, comparison


@dataclass
class DiffNode:
    """A frame of a differential flame graph: its count per iteration on
    each side (None where that side has no such frame)."""
    name: str
    base: float | None
    head: float | None
    children: dict[str, "DiffNode"] = field(default_factory=dict)

    @property
    def total(self) -> float:
        """The frame's width: the contender's count (0 when it vanished)."""
        return self.head or 0.0

    def ordered_children(self) -> list["DiffNode"]:
        return [self.children[k] for k in sorted(self.children)]

    def gone(self) -> list["DiffNode"]:
        """Frames below this one that only the baseline has."""
        out = []
        for child in self.ordered_children():
            out += [child] if child.head is None else child.gone()
        return out


@dataclass
class DiffFlame:
    benchmark: str
    filename: str         # diff-flame.<benchmark>.svg
    title: str            # the SVG's headline
    exactness: str        # what is exact and what is not, for title and docs
    tree: DiffNode


EXACT_NOTE = ("exact per iteration (callgrind): self cost of each function, "
              "then of its source lines; no call chains (callgrind's call "
              "graph is not in the JSON), so no inclusive costs")
ESTIMATED_NOTE = ("estimated per iteration: the sampled profile's top "
                  "functions, then their source lines, scaled by the row's count")
FOLDED_NOTE = ("estimated per iteration: sampled call chains (--folded), "
               "scaled by the row's count over the benchmark's samples")


def from_profiles(base: attribution.Profile, head: attribution.Profile) -> DiffNode:
    """all -> function -> source line, from two attribution profiles."""
    root = DiffNode("all", base.total, head.total)
    names = {**base.display, **head.display}
    for key in dict.fromkeys(list(base.functions) + list(head.functions)):
        root.children[key] = DiffNode(names.get(key, key), base.functions.get(key),
                                      head.functions.get(key))
    for key in dict.fromkeys(list(base.lines) + list(head.lines)):
        function, file, line = key
        parent = root.children.get(function)
        if parent is not None:
            parent.children[f"{file}:{line}"] = DiffNode(
                f"{file}:{line}", base.lines.get(key), head.lines.get(key))
    return root


def from_folded(base: Frame, head: Frame, scales: tuple[float, float]) -> DiffNode:
    """The two call-chain trees as one, each side's samples times its
    scale (None where a side lacks the frame)."""
    root = DiffNode(head.name, base.total * scales[0], head.total * scales[1])
    _merge(root, base, head, scales)
    return root


def _merge(node: DiffNode, base: Frame | None, head: Frame | None,
           scales: tuple[float, float]) -> None:
    b_kids = base.children if base else {}
    h_kids = head.children if head else {}
    for name in dict.fromkeys(list(b_kids) + list(h_kids)):
        b, h = b_kids.get(name), h_kids.get(name)
        child = node.children[name] = DiffNode(
            name, b.total * scales[0] if b else None, h.total * scales[1] if h else None)
        _merge(child, b, h, scales)


def _folded_tree(name: str, folded: tuple[Frame, Frame] | None,
                 profiles: tuple[attribution.Profile, attribution.Profile]
                 ) -> DiffNode | None:
    """The benchmark's call chains from both folded files, or None when
    either lacks the benchmark's root frame."""
    if folded is None:
        return None
    sides = [f.children.get(name) for f in folded]
    if sides[0] is None or sides[1] is None:
        return None
    scales = tuple(((p.total or 0.0) / s.total) if p.total else 1.0
                   for p, s in zip(profiles, sides))
    return from_folded(sides[0], sides[1], scales)


def plan(c: comparison.Comparison, labels: tuple[str, str],
         folded: tuple[Frame, Frame] | None, used: set[str],
         prefix: str = "") -> list[DiffFlame]:
    """A DiffFlame per benchmark compare attributed (a changed row, both
    sides profiled with the row's event), in the order of its rows."""
    runs = {b.name: (b, h) for b, h in c.pairing.common}
    flames = []
    for name in dict.fromkeys(a.benchmark for a in c.attributions):
        base = attribution.profile_of(runs[name][0])
        head = attribution.profile_of(runs[name][1])
        if base is None or head is None:
            continue
        tree = _folded_tree(name, folded, (base, head))
        if tree is not None:
            note = FOLDED_NOTE
        else:
            tree = from_profiles(base, head)
            note = EXACT_NOTE if base.kind == attribution.EXACT else ESTIMATED_NOTE
        stem = f"diff-flame.{prefix}{slug(name)}"
        filename, n = f"{stem}.svg", 2
        while filename in used:
            filename, n = f"{stem}.{n}.svg", n + 1
        used.add(filename)
        flames.append(DiffFlame(
            name, filename, f"{name}: {labels[0]} -> {labels[1]}, {base.event} "
            "per iteration; widths from the contender, red grew, blue shrank",
            note, tree))
    return flames

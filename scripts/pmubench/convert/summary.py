"""Step 4, what the command prints for one file: a line per kind of change
with its line numbers, then the notes.
"""

from __future__ import annotations


from pmubench.convert.model import KIND_INCLUDE, KIND_ORDER, PMUBENCH_INCLUDE, Result


def _line_list(lines: list[int]) -> str:
    lines = sorted(set(lines))
    word = "line" if len(lines) == 1 else "lines"
    return f"{word} " + ", ".join(str(n) for n in lines)


def summarize(name: str, result: Result) -> list[str]:
    """The lines the command prints for one file: a line per kind of change
    with its line numbers, then the notes."""
    out = []
    if not result.changes:
        out.append(f"{name}: nothing to change (already pmubench)")
    else:
        out.append(f"{name}: {len(result.changes)} change"
                   f"{'' if len(result.changes) == 1 else 's'}")
        by_kind: dict[str, list[int]] = {}
        for c in result.changes:
            by_kind.setdefault(c.kind, []).append(c.line)
        for kind in KIND_ORDER:
            if kind in by_kind:
                label = kind
                if kind == KIND_INCLUDE:
                    label = f"#include benchmark/benchmark.h -> {PMUBENCH_INCLUDE}"
                out.append(f"  {label}: {len(by_kind[kind])} at {_line_list(by_kind[kind])}")
    blocking = [n for n in result.notes if n.blocking]
    other = [n for n in result.notes if not n.blocking]
    if blocking:
        out.append(f"  NOT CONVERTED ({len(blocking)}): finish by hand")
        out.extend(f"    line {n.line}: {n.message}" for n in blocking)
    if other:
        out.append(f"  left as it was ({len(other)}):")
        out.extend(f"    line {n.line}: {n.message}" for n in other)
    return out

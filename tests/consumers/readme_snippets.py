"""The code blocks of docs/building.md's "Use it in your project" that the consumer
projects follow as written: the install recipe, and the Bazel consumer's
WORKSPACE, BUILD and .bazelrc.

    readme_snippets.py install            # the recipe's shell commands
    readme_snippets.py bazel-check        # diff tests/consumers/bazel
                                          # against docs/building.md (exit 1)

and importable (tests/python/test_consumer_docs.py).
"""
from __future__ import annotations

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "building.md"
BAZEL_CONSUMER = ROOT / "tests" / "consumers" / "bazel"

# Label in docs/building.md -> file of tests/consumers/bazel.
BAZEL_FILES = {"`WORKSPACE`:": "WORKSPACE", "`BUILD`:": "BUILD.bazel",
               "`.bazelrc`:": ".bazelrc"}
# What differs, on purpose, between docs/building.md and the consumer.
BAZEL_SUBSTITUTIONS = (('path = "/path/to/pmubench"', 'path = "../../.."'),
                       ('"mybench"', '"bench"'), ('"mybench.cc"', '"bench.cc"'))


def section(doc: str, heading: str = "## Use it in your project") -> str:
    start = doc.index(heading + "\n")
    end = doc.find("\n## ", start + len(heading))
    return doc[start:end if end >= 0 else len(doc)]


def block_after(text: str, label: str) -> str:
    """The fenced code block that first follows the line holding label."""
    at = text.index(label)
    fence = text.index("```", at)
    body = text.index("\n", fence) + 1
    close = text.index("\n```", body - 1)
    return text[body:close + 1]


def install_recipe(doc: str) -> str:
    return block_after(section(doc), "**CMake, installed.**")


def bazel_files(doc: str) -> dict[str, str]:
    """File name -> the text docs/building.md says it holds, with the consumer's
    substitutions."""
    bazel = section(doc)[section(doc).index("**Bazel**"):]
    out = {}
    for label, name in BAZEL_FILES.items():
        text = block_after(bazel, label)
        for old, new in BAZEL_SUBSTITUTIONS:
            text = text.replace(old, new)
        out[name] = text
    return out


def bazel_differences(doc: str, consumer: pathlib.Path = BAZEL_CONSUMER) -> list[str]:
    """How tests/consumers/bazel departs from docs/building.md: each file must be
    a header of comment lines, then the documented text exactly."""
    problems = []
    for name, want in bazel_files(doc).items():
        path = consumer / name
        if not path.exists():
            problems.append(f"{path}: missing")
            continue
        got = path.read_text()
        if not got.endswith(want):
            problems.append(f"{path}: does not end with docs/building.md's {name} block:\n{want}")
            continue
        header = got[:len(got) - len(want)]
        if any(line.strip() and not line.startswith("#") for line in header.splitlines()):
            problems.append(f"{path}: has more than comments before docs/building.md's text: {header!r}")
    return problems


def main(argv: list[str]) -> int:
    doc = DOC.read_text()
    if argv == ["install"]:
        sys.stdout.write(install_recipe(doc))
        return 0
    if argv == ["bazel-check"]:
        problems = bazel_differences(doc)
        for p in problems:
            print("readme_snippets:", p, file=sys.stderr)
        return 1 if problems else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

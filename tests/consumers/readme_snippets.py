"""The code blocks of README.md's "Use it in your project" that the consumer
projects follow as written: the install recipe, and the Bazel consumer's
WORKSPACE, BUILD and .bazelrc.

    readme_snippets.py install            # the recipe's shell commands
    readme_snippets.py bazel-check        # diff tests/consumers/bazel
                                          # against the README (exit 1)

and importable (tests/python/test_consumer_docs.py).
"""
from __future__ import annotations

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
BAZEL_CONSUMER = ROOT / "tests" / "consumers" / "bazel"

# Label in the README -> file of tests/consumers/bazel.
BAZEL_FILES = {"`WORKSPACE`:": "WORKSPACE", "`BUILD`:": "BUILD.bazel",
               "`.bazelrc`:": ".bazelrc"}
# What differs, on purpose, between the README and the consumer.
BAZEL_SUBSTITUTIONS = (('path = "/path/to/pmubench"', 'path = "../../.."'),
                       ('"mybench"', '"bench"'), ('"mybench.cc"', '"bench.cc"'))


def section(readme: str, heading: str = "## Use it in your project") -> str:
    start = readme.index(heading + "\n")
    end = readme.find("\n## ", start + len(heading))
    return readme[start:end if end >= 0 else len(readme)]


def block_after(text: str, label: str) -> str:
    """The fenced code block that first follows the line holding label."""
    at = text.index(label)
    fence = text.index("```", at)
    body = text.index("\n", fence) + 1
    close = text.index("\n```", body - 1)
    return text[body:close + 1]


def install_recipe(readme: str) -> str:
    return block_after(section(readme), "**CMake, installed.**")


def bazel_files(readme: str) -> dict[str, str]:
    """File name -> the text README says it holds, with the consumer's
    substitutions."""
    bazel = section(readme)[section(readme).index("**Bazel**"):]
    out = {}
    for label, name in BAZEL_FILES.items():
        text = block_after(bazel, label)
        for old, new in BAZEL_SUBSTITUTIONS:
            text = text.replace(old, new)
        out[name] = text
    return out


def bazel_differences(readme: str, consumer: pathlib.Path = BAZEL_CONSUMER) -> list[str]:
    """How tests/consumers/bazel departs from the README: each file must be
    a header of comment lines, then the documented text exactly."""
    problems = []
    for name, want in bazel_files(readme).items():
        path = consumer / name
        if not path.exists():
            problems.append(f"{path}: missing")
            continue
        got = path.read_text()
        if not got.endswith(want):
            problems.append(f"{path}: does not end with README's {name} block:\n{want}")
            continue
        header = got[:len(got) - len(want)]
        if any(line.strip() and not line.startswith("#") for line in header.splitlines()):
            problems.append(f"{path}: has more than comments before README's text: {header!r}")
    return problems


def main(argv: list[str]) -> int:
    readme = README.read_text()
    if argv == ["install"]:
        sys.stdout.write(install_recipe(readme))
        return 0
    if argv == ["bazel-check"]:
        problems = bazel_differences(readme)
        for p in problems:
            print("readme_snippets:", p, file=sys.stderr)
        return 1 if problems else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

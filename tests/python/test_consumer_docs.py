"""docs/building.md "Use it in your project" and tests/consumers say the same
thing: the Bazel consumer's WORKSPACE, BUILD and .bazelrc are that page's text,
and the install recipe builds the libraries only. (tests/consumers/run.sh
then builds and runs them: CTest consumers.*.)"""

from __future__ import annotations

import importlib.util
import pathlib
import re

REPO = pathlib.Path(__file__).resolve().parents[2]
DOC = (REPO / "docs" / "building.md").read_text()

_spec = importlib.util.spec_from_file_location(
    "readme_snippets", REPO / "tests" / "consumers" / "readme_snippets.py")
snippets = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(snippets)


def test_the_bazel_consumer_is_the_documented_text():
    assert snippets.bazel_differences(DOC) == []


def test_the_bazel_text_keeps_debians_sandbox_debug_out_and_names_abseil():
    files = snippets.bazel_files(DOC)
    rc = [ln for ln in files[".bazelrc"].splitlines() if not ln.startswith("#")]
    assert "build --nosandbox_debug" in rc
    assert "build --cxxopt=-std=c++20" in rc
    assert '"@pmubench//third_party:absl"' in files["BUILD.bazel"]


def test_the_abseil_target_the_docs_name_is_public():
    build = (REPO / "third_party" / "BUILD.bazel").read_text()
    assert 'package(default_visibility = ["//visibility:public"])' in build
    assert re.search(r'alias\(\s*name = "absl",', build)


def test_the_bazel_check_catches_a_consumer_that_departs(tmp_path):
    for name in ("WORKSPACE", "BUILD.bazel", ".bazelrc", "bench.cc"):
        (tmp_path / name).write_text((snippets.BAZEL_CONSUMER / name).read_text())
    rc = (tmp_path / ".bazelrc").read_text()
    (tmp_path / ".bazelrc").write_text(rc.replace("build --nosandbox_debug\n", ""))
    problems = snippets.bazel_differences(DOC, tmp_path)
    assert len(problems) == 1 and ".bazelrc" in problems[0]


def test_the_install_recipe_builds_the_libraries_only_with_a_bounded_j():
    recipe = snippets.install_recipe(DOC)
    lines = recipe.splitlines()
    assert lines[0].startswith("cmake -S pmubench -B pmubench/build ")
    assert "-DPMUBENCH_BUILD_TESTS=OFF" in lines[0]
    assert "-DPMUBENCH_BUILD_BENCHES=OFF" in lines[0]
    build = [ln for ln in lines if ln.startswith("cmake --build")]
    assert len(build) == 1
    # `-j` alone is unbounded (as many jobs as there are targets ready).
    assert re.search(r"(^|\s)-j(\s|$)", build[0]) is None, build[0]
    assert re.search(r"-j\s*\S", build[0]), build[0]
    assert any(ln.startswith("cmake --install pmubench/build --prefix") for ln in lines)

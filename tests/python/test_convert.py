"""scripts/convert: rewriting Google Benchmark source to pmubench.

The rewriting functions (scripts/pmubench/convert/) on small sources, and
the command line on files. tests/convert/ builds and runs the converted
sources of tests/convert/gbench (CTest: convert.*)."""

from __future__ import annotations

import os
import pathlib
import stat
import subprocess

import pytest

from pmubench import convert as conv

REPO = pathlib.Path(__file__).resolve().parents[2]
CONVERT = REPO / "scripts" / "convert"
GBENCH = REPO / "tests" / "convert" / "gbench"
PYTHON = "/usr/bin/python3"

CASE = """\
{include}

static void BM_X(benchmark::State& state) {{
  for (auto _ : state) benchmark::DoNotOptimize(state.range(0));
}}
BENCHMARK(BM_X)->Arg(8);

BENCHMARK_MAIN();
"""

WANT = """\
#include <pmubench/pmubench.h>

static void BM_X(pmubench::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(state.range(0));
}
PMU_BENCHMARK(BM_X)->Arg(8);

PMUBENCH_MAIN();
"""


@pytest.mark.parametrize("include", [
    "#include <benchmark/benchmark.h>",
    '#include "benchmark/benchmark.h"',  # the spelling the old sed missed
    '#  include   "benchmark/benchmark.h"  // Google Benchmark',
])
def test_both_include_spellings_become_pmubench(include):
    result = conv.convert_source(CASE.format(include=include))
    assert result.text.splitlines()[0].startswith('#include <pmubench/pmubench.h>') \
        or result.text.splitlines()[0].startswith('#  include   <pmubench/pmubench.h>')
    assert "benchmark/benchmark.h" not in result.text.splitlines()[0]
    assert result.text.split("\n", 1)[1] == WANT.split("\n", 1)[1]
    assert conv.Change(conv.KIND_INCLUDE, 1) in result.changes


def test_every_gbench_source_converts_the_same_from_either_include_spelling():
    """Each end-to-end source, with its include spelled the other way, gives
    the same pmubench file."""
    for path in sorted(GBENCH.glob("*.cc")):
        text = path.read_text()
        quoted = '#include "benchmark/benchmark.h"'
        angled = "#include <benchmark/benchmark.h>"
        assert (quoted in text) != (angled in text), path
        other = text.replace(quoted, angled) if quoted in text else text.replace(angled, quoted)
        assert conv.convert_source(text).text == conv.convert_source(other).text, path
        assert "benchmark/benchmark.h" not in conv.code_mask(conv.convert_source(text).text)


def test_the_gbench_sources_use_both_spellings():
    texts = [p.read_text() for p in GBENCH.glob("*.cc")]
    assert any('#include "benchmark/benchmark.h"' in t for t in texts)
    assert any("#include <benchmark/benchmark.h>" in t for t in texts)


@pytest.mark.parametrize("macro", conv.CASE_MACROS)
def test_every_case_macro_gets_its_pmu_twin(macro):
    args = {"BENCHMARK_CAPTURE": "BM_X, label, 42",
            "BENCHMARK_TEMPLATE2": "BM_X, int, 8",
            "BENCHMARK_RANGE2": "BM_X, 1, 2, 3, 4",
            "BENCHMARK_WITH_ARG2": "BM_X, 1, 2",
            "BENCHMARK_RANGE": "BM_X, 1, 8"}.get(macro, "BM_X, 1")
    if macro == "BENCHMARK":
        args = "BM_X"
    src = ("#include <benchmark/benchmark.h>\n"
           "template <class... T> void BM_X(benchmark::State& s, T...) {}\n"
           f"{macro}({args});\n")
    result = conv.convert_source(src)
    assert f"PMU_{macro}({args});" in result.text
    assert "void BM_X(pmubench::State& s, T...)" in result.text
    assert conv.Change(conv.macro_kind(macro), 3) in result.changes
    assert not result.blocking


@pytest.mark.parametrize("macro,extra", [
    ("BENCHMARK_F", ""), ("BENCHMARK_DEFINE_F", ""),
    ("BENCHMARK_TEMPLATE_F", ", int"), ("BENCHMARK_TEMPLATE1_F", ", int"),
    ("BENCHMARK_TEMPLATE2_F", ", int, 2"), ("BENCHMARK_TEMPLATE_DEFINE_F", ", int"),
    ("BENCHMARK_TEMPLATE1_DEFINE_F", ", int"), ("BENCHMARK_TEMPLATE2_DEFINE_F", ", int, 2"),
])
def test_every_fixture_macro_gets_its_pmu_twin_and_its_body_pmubench_state(macro, extra):
    src = ("#include <benchmark/benchmark.h>\n"
           "class Fix : public benchmark::Fixture {\n"
           " public:\n"
           "  void SetUp(const benchmark::State& st) override {}\n"
           "  void TearDown(benchmark::State& st) override {}\n"
           "};\n"
           f"{macro}(Fix, Case{extra})(benchmark::State& st) {{\n"
           "  for (auto _ : st) {}\n"
           "}\n"
           "BENCHMARK_REGISTER_F(Fix, Case)->Arg(1);\n")
    out = conv.convert_source(src).text
    assert "class Fix : public pmubench::Fixture {" in out
    assert "void SetUp(const pmubench::State& st) override" in out
    assert "void TearDown(pmubench::State& st) override" in out
    assert f"PMU_{macro}(Fix, Case{extra})(pmubench::State& st) {{" in out
    assert "PMU_BENCHMARK_REGISTER_F(Fix, Case)->Arg(1);" in out
    assert "benchmark::State" not in out


def test_a_fixture_derived_from_a_fixture_and_members_defined_outside():
    src = ("#include <benchmark/benchmark.h>\n"
           "struct Base : ::benchmark::Fixture {\n"
           "  void SetUp(const ::benchmark::State&) override;\n"
           "};\n"
           "void Base::SetUp(const ::benchmark::State& s) {}\n"
           "template <class T> class Derived : public Base {\n"
           "  void TearDown(const benchmark::State&) override {}\n"
           "};\n"
           "BENCHMARK_TEMPLATE_F(Derived, Run, int)(benchmark::State& s) {}\n")
    result = conv.convert_source(src)
    assert "benchmark::State" not in conv.code_mask(result.text).replace("pmubench::State", "")
    assert "struct Base : ::pmubench::Fixture {" in result.text
    assert "void Base::SetUp(const ::pmubench::State& s) {}" in result.text
    assert not result.notes


def test_google_benchmark_names_that_are_not_registrations_stay():
    src = """\
#include <benchmark/benchmark.h>
#ifdef BENCHMARK_HAS_CXX11
#endif
class Widget { BENCHMARK_DISALLOW_COPY_AND_ASSIGN(Widget); };
BENCHMARK_ALWAYS_INLINE int f() { return 1; }
static void BM_X(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(f());
    benchmark::ClobberMemory();
  }
  state.counters["n"] = benchmark::Counter(1, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_X)->Unit(benchmark::kMicrosecond)->Complexity(benchmark::oN);
"""
    out = conv.convert_source(src).text
    for kept in ("BENCHMARK_DISALLOW_COPY_AND_ASSIGN(Widget)", "BENCHMARK_ALWAYS_INLINE int",
                 "#ifdef BENCHMARK_HAS_CXX11", "benchmark::DoNotOptimize(f())",
                 "benchmark::ClobberMemory()", "benchmark::Counter(1, benchmark::Counter::kIsRate)",
                 "->Unit(benchmark::kMicrosecond)->Complexity(benchmark::oN)"):
        assert kept in out, kept
    assert "PMU_BENCHMARK(BM_X)" in out


def test_comments_and_strings_are_not_code():
    src = """\
#include <benchmark/benchmark.h>
// BENCHMARK(BM_Commented); benchmark::State in a comment
/* #include "benchmark/benchmark.h"
   BENCHMARK_MAIN() */
static const char* kDoc = "BENCHMARK(BM_InString) benchmark::Fixture";
static const char* kRaw = R"doc(BENCHMARK_F(A, B) ")" )doc";
static const int kBig = 1'000'000;
static void BM_X(benchmark::State& state) { for (auto _ : state) {} }
BENCHMARK(BM_X);
"""
    out = conv.convert_source(src).text
    lines = out.splitlines()
    assert lines[1] == "// BENCHMARK(BM_Commented); benchmark::State in a comment"
    assert lines[2] == '/* #include "benchmark/benchmark.h"'
    assert lines[3] == "   BENCHMARK_MAIN() */"
    assert lines[4] == 'static const char* kDoc = "BENCHMARK(BM_InString) benchmark::Fixture";'
    assert lines[5] == 'static const char* kRaw = R"doc(BENCHMARK_F(A, B) ")" )doc";'
    assert lines[8] == "PMU_BENCHMARK(BM_X);"
    assert "static void BM_X(pmubench::State& state)" in out


def test_state_that_is_not_a_cases_parameter_stays_and_is_listed():
    src = """\
#include "benchmark/benchmark.h"
static void Prepare(const benchmark::State&) {}
static void BM_Runtime(benchmark::State& state, int n) { for (auto _ : state) {} }
static void BM_X(benchmark::State& state) { for (auto _ : state) {} }
BENCHMARK(BM_X)->Setup(Prepare);
int registered = (benchmark::RegisterBenchmark("BM_Runtime", BM_Runtime, 3), 0);
"""
    result = conv.convert_source(src)
    assert "static void Prepare(const benchmark::State&) {}" in result.text
    assert "static void BM_Runtime(benchmark::State& state, int n)" in result.text
    assert "static void BM_X(pmubench::State& state)" in result.text
    blocking = result.blocking
    assert [n.line for n in blocking] == [6]
    assert "RegisterBenchmark" in blocking[0].message and "no counters" in blocking[0].message
    kept = {n.line: n.message for n in result.notes if not n.blocking}
    assert "->Setup()" in kept[2]
    assert "RegisterBenchmark" in kept[3]


def test_a_main_of_its_own_is_listed_as_not_converted():
    src = """\
#include <benchmark/benchmark.h>
static void BM_X(benchmark::State& state) { for (auto _ : state) {} }
BENCHMARK(BM_X);
int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
}
"""
    result = conv.convert_source(src)
    assert {n.line for n in result.blocking} == {5, 6}
    assert all("pmubench::RunMain" in n.message for n in result.blocking)
    assert "benchmark::Initialize(&argc, argv);" in result.text


def test_a_case_defined_elsewhere_is_listed():
    src = '#include "benchmark/benchmark.h"\n#include "cases.h"\nBENCHMARK(BM_FromHeader);\n'
    result = conv.convert_source(src)
    assert [n.line for n in result.blocking] == [3]
    assert "BM_FromHeader" in result.blocking[0].message


def test_a_macro_of_the_files_own_that_wraps_a_registration():
    """#define SIZES(fn) BENCHMARK(fn)->...: the cases are what SIZES is
    given, and an _F wrapper's parameter list follows its use."""
    src = """\
#include <benchmark/benchmark.h>
#define SIZES(fn) \\
  BENCHMARK(fn)->Range(8, 64)
#define CASE_OF(Fix, Name) BENCHMARK_F(Fix, Name)
static void BM_A(benchmark::State& state) { for (auto _ : state) {} }
SIZES(BM_A);
class T : public benchmark::Fixture {};
CASE_OF(T, Run)(benchmark::State& st) { for (auto _ : st) {} }
"""
    result = conv.convert_source(src)
    assert "  PMU_BENCHMARK(fn)->Range(8, 64)" in result.text
    assert "#define CASE_OF(Fix, Name) PMU_BENCHMARK_F(Fix, Name)" in result.text
    assert "static void BM_A(pmubench::State& state)" in result.text
    assert "CASE_OF(T, Run)(pmubench::State& st)" in result.text
    assert result.notes == []


def test_range_x_and_range_y_become_range_0_and_1():
    src = ("#include <benchmark/benchmark.h>\n"
           "void BM_X(benchmark::State& s) { for (auto _ : s) f(s.range_x(), s.range_y()); }\n"
           "BENCHMARK(BM_X)->ArgPair(1, 2);\n")
    out = conv.convert_source(src).text
    assert "f(s.range(0), s.range(1))" in out


def test_converting_twice_changes_nothing():
    for path in sorted(GBENCH.glob("*.cc")):
        once = conv.convert_source(path.read_text())
        twice = conv.convert_source(once.text)
        assert twice.text == once.text, path
        assert twice.changes == [], path
        assert once.changes, path


def test_a_file_that_is_not_google_benchmark_is_refused():
    with pytest.raises(conv.NotGoogleBenchmark):
        conv.convert_source("int main() { return 0; }\n")
    with pytest.raises(conv.NotGoogleBenchmark):
        conv.convert_source("// #include <benchmark/benchmark.h>\nint x;\n")


def test_the_summary_says_each_kind_with_its_lines():
    result = conv.convert_source(CASE.format(include='#include "benchmark/benchmark.h"'))
    lines = conv.summarize("bench.cc", result)
    assert lines[0] == "bench.cc: 4 changes"
    assert '  #include benchmark/benchmark.h -> <pmubench/pmubench.h>: 1 at line 1' in lines
    assert "  BENCHMARK -> PMU_BENCHMARK: 1 at line 6" in lines
    assert "  benchmark::State -> pmubench::State: 1 at line 3" in lines
    assert "  BENCHMARK_MAIN() -> PMUBENCH_MAIN(): 1 at line 8" in lines


def test_crlf_and_bytes_that_are_not_utf8_survive(tmp_path):
    src = CASE.format(include="#include <benchmark/benchmark.h>").replace("\n", "\r\n")
    data = b"// caf\xe9 (Latin-1)\r\n" + src.encode()
    path = tmp_path / "bench.cc"
    path.write_bytes(data)
    proc = _run(path)
    assert proc.returncode == 0, proc.stderr
    got = path.read_bytes()
    assert got.startswith(b"// caf\xe9 (Latin-1)\r\n#include <pmubench/pmubench.h>\r\n")
    assert got.count(b"\r\n") == data.count(b"\r\n")


# ---------------------------------------------------------------- the command


def _run(*args, cwd=None):
    return subprocess.run([PYTHON, str(CONVERT), *map(str, args)], capture_output=True,
                          text=True, cwd=cwd, timeout=60)


def test_in_place_keeps_the_mode_and_says_what_changed(tmp_path):
    path = tmp_path / "bench.cc"
    path.write_text(CASE.format(include='#include "benchmark/benchmark.h"'))
    os.chmod(path, 0o640)
    proc = _run(path)
    assert proc.returncode == 0, proc.stderr
    assert path.read_text() == WANT
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert f"{path}: 4 changes" in proc.stdout
    assert "BENCHMARK -> PMU_BENCHMARK: 1 at line 6" in proc.stdout
    assert sorted(os.listdir(tmp_path)) == ["bench.cc"]
    again = _run(path)
    assert again.returncode == 0
    assert "nothing to change" in again.stdout
    assert path.read_text() == WANT



def test_a_file_converted_before_the_public_header_changes_nothing():
    # Converted when scripts/convert wrote "framework/pmubench.h" (which
    # still forwards to <pmubench/pmubench.h>): already pmubench, left alone.
    old = WANT.replace("#include <pmubench/pmubench.h>", '#include "framework/pmubench.h"')
    result = conv.convert_source(old)
    assert result.text == old
    assert result.changes == []


def test_output_file_leaves_the_input_alone(tmp_path):
    src = tmp_path / "bench.cc"
    original = CASE.format(include="#include <benchmark/benchmark.h>")
    src.write_text(original)
    proc = _run(src, "-o", tmp_path / "out.cc")
    assert proc.returncode == 0, proc.stderr
    assert src.read_text() == original
    assert (tmp_path / "out.cc").read_text() == WANT
    to_stdout = _run(src, "-o", "-")
    assert to_stdout.stdout == WANT
    assert "4 changes" in to_stdout.stderr


def test_a_symlink_rewrites_the_file_it_names(tmp_path):
    real = tmp_path / "real.cc"
    real.write_text(CASE.format(include="#include <benchmark/benchmark.h>"))
    link = tmp_path / "link.cc"
    link.symlink_to(real)
    assert _run(link).returncode == 0
    assert link.is_symlink()
    assert real.read_text() == WANT


def test_dry_run_writes_nothing(tmp_path):
    path = tmp_path / "bench.cc"
    original = CASE.format(include="#include <benchmark/benchmark.h>")
    path.write_text(original)
    proc = _run("--dry-run", path)
    assert proc.returncode == 0
    assert "dry run" in proc.stdout
    assert path.read_text() == original


def test_bad_input_exits_2_naming_it_and_writes_nothing(tmp_path):
    good = tmp_path / "good.cc"
    original = CASE.format(include="#include <benchmark/benchmark.h>")
    good.write_text(original)
    missing = tmp_path / "missing.cc"
    proc = _run(good, missing)
    assert proc.returncode == 2
    assert f"{missing}: no such file" in proc.stderr
    assert good.read_text() == original  # checked before anything is written

    plain = tmp_path / "plain.cc"
    plain.write_text("int main() {}\n")
    proc = _run(plain)
    assert proc.returncode == 2
    assert f"{plain}: not a Google Benchmark file" in proc.stderr

    binary = tmp_path / "a.out"
    binary.write_bytes(b"\x7fELF\0\0BENCHMARK(")
    proc = _run(binary)
    assert proc.returncode == 2 and "not a text file" in proc.stderr

    proc = _run(good, plain, "-o", tmp_path / "x.cc")
    assert proc.returncode == 2 and "-o takes one FILE" in proc.stderr

    proc = _run(tmp_path)
    assert proc.returncode == 2 and "is a directory" in proc.stderr


def test_what_cannot_be_converted_exits_1_and_is_listed(tmp_path):
    path = tmp_path / "bench.cc"
    path.write_text((GBENCH / "register_benchmark.cc").read_text())
    proc = _run(path)
    assert proc.returncode == 1
    assert "NOT CONVERTED (1): finish by hand" in proc.stdout
    assert "line 27: benchmark::RegisterBenchmark" in proc.stdout
    assert "PMU_BENCHMARK(BM_Prepared)" in path.read_text()


def test_a_failed_write_leaves_the_file_as_it_was(tmp_path, monkeypatch):
    """The write is atomic: when it fails, the old file stays whole and no
    temporary file is left beside it."""
    from pmubench.base import atomic
    path = tmp_path / "bench.cc"
    path.write_text("old contents")

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "replace", broken_replace)
    with pytest.raises(OSError):
        atomic.write_bytes_atomically(str(path), b"new contents", mode=0o644)
    assert path.read_text() == "old contents"
    assert os.listdir(tmp_path) == ["bench.cc"]


def test_runs_as_a_command_under_debian_python(tmp_path):
    """scripts/convert is executable and names /usr/bin/python3 (it needs
    nothing but the standard library; under an interpreter older than 3.9
    it re-executes there, as compare.py does)."""
    assert os.access(CONVERT, os.X_OK)
    assert CONVERT.read_text().startswith("#!/usr/bin/python3\n")
    path = tmp_path / "bench.cc"
    path.write_text(CASE.format(include="#include <benchmark/benchmark.h>"))
    proc = subprocess.run([str(CONVERT), str(path)], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert path.read_text() == WANT

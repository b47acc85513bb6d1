"""scripts/dev/check_function_length.py: no function over 60 lines, C++ or
Python, on this tree; a planted long function fails it."""

from __future__ import annotations

import textwrap

from dev_scripts import REPO, copy_of_tree, load_dev_script, run_dev_script

check = load_dev_script("check_function_length")


def python_function(name: str, lines: int) -> str:
    """A def of exactly `lines` lines."""
    body = "".join(f"    x{i} = {i}\n" for i in range(lines - 2))
    return f"def {name}():\n{body}    return 0\n"


def cxx_function(name: str, lines: int) -> str:
    """A C++ function of exactly `lines` lines, signature to closing brace."""
    body = "".join(f"  int x{i} = {i};  // {{\n" for i in range(lines - 2))
    return f"int {name}() {{\n{body}}}\n"


def test_this_tree_has_no_function_over_60_lines():
    assert check.long_functions(REPO) == []


def test_the_command_passes_on_this_tree():
    result = run_dev_script("check_function_length")
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_planted_python_function_over_60_lines_fails(tmp_path):
    root = copy_of_tree(tmp_path)
    (root / "scripts" / "dev" / "planted.py").write_text(
        python_function("fits", 60) + "\n\n" + python_function("too_long", 61))
    result = run_dev_script("check_function_length", "--root", str(root))
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "scripts/dev/planted.py:63: too_long: 61 lines (over 60)"]


def test_a_planted_cxx_function_over_60_lines_fails(tmp_path):
    root = copy_of_tree(tmp_path)
    planted = root / "framework" / "perf" / "system" / "planted.cc"
    planted.write_text("namespace pmubench {\n" + cxx_function("Fits", 60) +
                       cxx_function("TooLong", 61) + "}  // namespace pmubench\n")
    assert check.long_functions(root) == [
        "framework/perf/system/planted.cc:62: TooLong: 61 lines (over 60)"]


def test_an_extensionless_python_script_is_checked(tmp_path):
    root = copy_of_tree(tmp_path)
    (root / "scripts" / "planted").write_text(
        "#!/usr/bin/python3\n" + python_function("main", 61))
    assert check.long_functions(root) == ["scripts/planted:2: main: 61 lines (over 60)"]


def test_python_functions_nested_and_decorated():
    text = "@dec\ndef outer():\n    def inner():\n        pass\n    return inner\n"
    assert check.python_functions(text) == [(2, 5, "outer"), (3, 4, "inner")]


CXX = textwrap.dedent("""\
    #include <string>
    #define BRACE {
    namespace pmubench {
    namespace {
    const char* kText = "}{";  // }
    const char kOpen = '{';
    constexpr int kMillion = 1'000'000;
    /* { */
    const std::string kRaw = R"x(
    }
    )x";
    const int kTable[] = {1, 2,
                          3};
    auto kLambda = [](int a) {
      return a;
    };
    }  // namespace

    template <typename T = int>
    T Twice(T a) {
      return a * 2;
    }

    class Counter : public Base {
     public:
      Counter(int a, int b) : a_(a), b_{b} {
        auto f = [&] { return a_; };
      }
      int a() const { return a_; }
      bool operator==(const Counter& o) const {
        return a_ == o.a_;
      }

     private:
      struct Inner {
        void Run() {}
      };
      int a_;
      int b_;
    };

    TEST(CounterTest, Counts) {
      EXPECT_EQ(1, 1);
    }

    template <typename Read = Rdpmc>
    [[gnu::always_inline]] inline int ReadPage(
        const Page* pc, Read read = Read{}) {
      return read(pc);
    }
    }  // namespace pmubench
    """)


def test_the_cxx_scanner_finds_each_function_and_its_lines():
    assert check.cxx_functions(CXX) == [
        (19, 22, "Twice"),
        (26, 28, "Counter"),
        (29, 29, "a"),
        (30, 32, "operator=="),
        (36, 36, "Run"),
        (42, 44, "TEST"),
        (46, 50, "ReadPage"),
    ]


def test_the_scanner_blanks_literals_and_comments_line_for_line():
    code = check.blank_cxx(CXX)
    assert code.count("\n") == CXX.count("\n")
    assert "}{" not in code and "BRACE" not in code and "'{'" not in code
    assert "1'000'000" in code

"""Every Python entry point answers --help with its usage and exit 0 (merge.py
exited 2 with its usage: issue 38, item 15)."""

import pytest

ENTRY_POINTS = ("scripts/merge.py", "scripts/compare.py", "scripts/history.py",
                "reports/plot.py", "scripts/convert", "scripts/pmu-vm", "scripts/test")


@pytest.mark.parametrize("script", ENTRY_POINTS)
def test_help_is_exit_0_with_the_usage(run_tool, script):
    done = run_tool(script, "--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: ") and done.stderr == ""


def test_merge_without_inputs_is_still_usage_exit_2(run_tool, tmp_path):
    done = run_tool("scripts/merge.py", tmp_path / "out.json")
    assert done.returncode == 2 and "IN.json" in done.stderr
    assert not (tmp_path / "out.json").exists()

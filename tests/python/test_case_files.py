"""The context's pmubench_case_files, read once for reports and history."""

from pmubench.runs.case_files import case_files, pmubench_families


def test_case_files_parses_the_runner_key_and_ignores_junk():
    context = {"pmubench_case_files":
               "BM_A=branch;BM_B=branch;bad;=x;BM_C=;BM_D=ilp;BM_A=other"}
    assert case_files(context) == {"BM_A": "branch", "BM_B": "branch",
                                   "BM_D": "ilp"}
    assert case_files({"pmubench_case_files": "none"}) == {}
    assert case_files({}) == {}
    assert case_files({"pmubench_case_files": 7}) == {}


def test_the_families_are_none_where_the_context_does_not_say():
    assert pmubench_families({}) is None
    assert pmubench_families({"pmubench_case_files": ""}) is None
    assert pmubench_families({"pmubench_case_files": 7}) is None


def test_none_lists_no_family_so_every_case_is_plain():
    assert pmubench_families({"pmubench_case_files": "none"}) == set()
    assert pmubench_families(
        {"pmubench_case_files": "BM_A=x;BM_B=y;junk"}) == {"BM_A", "BM_B"}

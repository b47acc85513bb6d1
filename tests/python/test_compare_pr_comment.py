"""A pull-request comment about what was gated (issue 30, item 5): under a
simulated comparison the markdown's list of rows and its tables lead with
the gated counts, and valgrind's times go apart, said not compared, never
crowding an instruction row out (the trial: a 250-row list, mostly
valgrind times, pushed 26 of 69 instruction rows out)."""

from __future__ import annotations

import json
import random

from pmubench.render import compare_markdown, compare_text
from pmubench.runs import benchjson
from pmubench.verdicts import comparison as cmp

GEOMETRY = "none"


def _file(tmp_path, name: str, benchmarks: int, seed: int, simulated: bool,
          extra: int = 0) -> benchjson.BenchFile:
    """One run a case: four time-class metrics that move by up to 40%
    (valgrind's times under another load) and the instruction count of
    case i, 1000 + i, plus `extra` in every case."""
    rng = random.Random(seed)
    runs = []
    for i in range(benchmarks):
        run = {"name": f"BM_Case/{i}", "run_name": f"BM_Case/{i}",
               "run_type": "iteration", "repetitions": 1, "repetition_index": 0,
               "threads": 1, "iterations": 50, "time_unit": "ns"}
        for metric in ("real_time", "cpu_time", "items_per_second", "bytes_per_second"):
            run[metric] = 1000.0 * rng.uniform(0.6, 1.4)
        key = "callgrind/instructions/" if simulated else "instructions"
        run[key] = 1000.0 + i + extra
        runs.append(run)
    context = ({"pmubench_backend": "callgrind", "pmubench_valgrind": "valgrind-3.19.0",
                "pmubench_cache_geometry": GEOMETRY} if simulated else {})
    path = tmp_path / name
    path.write_text(json.dumps({"context": context, "benchmarks": runs}))
    return benchjson.load(str(path))


def _details(markdown: str) -> list[str]:
    """The text of each <details> section."""
    return [part.split("</details>")[0] for part in markdown.split("<details>")[1:]]


def test_every_instruction_row_is_listed_before_valgrinds_times(tmp_path):
    # 120 cases: 480 time rows, 120 instruction rows; 600 rows in all, more
    # than the list's 250.
    c = cmp.compare(_file(tmp_path, "base.json", 120, 1, True),
                    _file(tmp_path, "head.json", 120, 2, True))
    assert len(c.rows) == 600 > compare_markdown.MAX_DETAIL_ROWS
    markdown = compare_markdown.render(c)
    counted, times = _details(markdown)
    assert counted.startswith("<summary>All 120 counted rows</summary>")
    for i in range(120):
        assert f"| `BM_Case/{i}` | callgrind/instructions/ |" in counted
    assert "real_time" not in counted and "cpu_time" not in counted
    assert times.startswith("<summary>Valgrind's times, not compared, the 50 "
                            "largest changes of 480:")
    assert "callgrind/instructions/" not in times
    assert times.count("| `BM_Case/") == compare_markdown.MAX_APART_ROWS
    # The geomean table leads with the count; the times say not compared.
    table = markdown.split("| Metric | Geomean change |")[1].split("<details>")[0]
    lines = [line for line in table.splitlines() if line.startswith("| ")]
    assert lines[0].startswith("| callgrind/instructions/ |")
    assert all(line.endswith("| not compared (valgrind's) |") for line in lines[1:])
    # The text tables lead with the count too.
    text = compare_text.render(c)
    assert text.index("callgrind/instructions/ (") < text.index("real_time (")


def test_more_gated_rows_than_the_list_holds_leave_no_room_for_times(tmp_path):
    # 300 instruction rows: the list holds 250 of them and no time.
    c = cmp.compare(_file(tmp_path, "base.json", 300, 1, True),
                    _file(tmp_path, "head.json", 300, 2, True))
    counted, _ = _details(compare_markdown.render(c))
    assert counted.startswith("<summary>The 250 largest changes of 300 counted rows")
    assert counted.count("callgrind/instructions/ |") == 250
    assert "real_time" not in counted


def test_a_hardware_comparison_keeps_its_largest_changes(tmp_path):
    # Without simulation nothing goes apart: one list of the largest changes.
    c = cmp.compare(_file(tmp_path, "base.json", 120, 1, False),
                    _file(tmp_path, "head.json", 120, 2, False))
    markdown = compare_markdown.render(c)
    sections = _details(markdown)
    assert len(sections) == 1
    assert sections[0].startswith("<summary>The 250 largest changes of 600 rows")
    assert "Valgrind" not in markdown and "not compared" not in markdown
    assert c.metric_order == c.metrics

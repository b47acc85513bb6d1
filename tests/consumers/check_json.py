"""Checks a consumer's JSON: exact page-faults per iteration for every case
of bench.cc, and whether the cases were compiled with optimization.

usage: check_json.py RUN.json true|false
"""
import json
import sys

# Case name prefix -> (page-faults per iteration, iterations or None).
EXPECTED = {
    "BM_TouchPage/iterations:64": (1, 64),
    "BM_TouchPages<3>/iterations:20": (3, 20),
    # KeepRunningBatch(4) with 30 iterations runs 32, as Google Benchmark.
    "BM_TouchBatch/iterations:30": (1, 32),
    "Pages/TouchTwo": (2, None),
    "Pages/TouchFour/iterations:10": (4, 10),
    "PagesOf<5>/Touch": (5, None),
}


def main(path, optimized):
    with open(path) as f:
        run = json.load(f)
    errors = []
    got = run["context"].get("pmubench_cases_optimized")
    if got != optimized:
        errors.append(f"context pmubench_cases_optimized={got!r}, want {optimized!r}")
    runs = {b["name"]: b for b in run["benchmarks"]}
    for name, (faults, iterations) in EXPECTED.items():
        b = runs.get(name)
        if b is None:
            errors.append(f"no run {name!r} in {sorted(runs)}")
            continue
        if b.get("error_occurred"):
            errors.append(f"{name}: failed: {b.get('error_message')}")
            continue
        if b.get("page-faults") != faults:
            errors.append(f"{name}: page-faults {b.get('page-faults')}, want {faults}")
        if iterations is not None and b["iterations"] != iterations:
            errors.append(f"{name}: iterations {b['iterations']}, want {iterations}")
    for e in errors:
        print("check_json:", e, file=sys.stderr)
    print(f"check_json: {len(EXPECTED)} cases checked, {len(errors)} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))

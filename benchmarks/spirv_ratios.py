#!/usr/bin/env python3
"""Ratio table of dglink_bench_spirv_intake's JSON output, as Markdown: what a program
from SPIR-V costs on an OpenCL device without IL (translated into SPIR bitcode) against
one from SPIR bitcode of the same source (issue 28's target: at most 1.5x), and what the
translation cache saves on a second creation of the same module (target: at least 10x).

    dglink_bench_spirv_intake --benchmark_repetitions=5 \\
        --benchmark_out=spirv.json --benchmark_out_format=json
    python3 benchmarks/spirv_ratios.py spirv.json

Values are the counter median_us (its median over repetitions where there are several).
"""
import json
import sys

CREATE_TARGET = 1.5
CACHE_TARGET = 10.0


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    with open(sys.argv[1]) as f:
        data = json.load(f)
    has_aggregates = any(b.get("run_type") == "aggregate" for b in data["benchmarks"])
    values, label = {}, ""
    for bench in data["benchmarks"]:
        if has_aggregates and bench.get("aggregate_name") != "median":
            continue
        if bench.get("error_occurred"):
            continue
        name = bench.get("run_name", bench["name"]).replace("/manual_time", "")
        values[name] = bench.get("median_us")
        label = bench.get("label", label)
    print(f"\n{label}\n")
    print("| what | µs | against | µs | ratio | target |")
    print("|---|---:|---|---:|---:|---|")
    missed = 0
    rows = [
        ("CreateBuild/spirv_first", "CreateBuild/spir", CREATE_TARGET, "≤"),
        ("CreateBuild/spirv_again", "CreateBuild/spir", CREATE_TARGET, "≤"),
        ("Create/spirv_first", "Create/spir", None, ""),
        ("Create/spirv_again", "Create/spir", CREATE_TARGET, "≤"),
        ("Create/spirv_first", "Create/spirv_again", CACHE_TARGET, "≥"),
        ("Translate/first", "Translate/again", CACHE_TARGET, "≥"),
        ("Translate/first", "Translate/in_process", None, ""),
    ]
    for mine, other, target, sense in rows:
        a, b = values.get(mine), values.get(other)
        if a is None or b is None or b == 0:
            continue
        r = a / b
        verdict = ""
        if target is not None:
            ok = r <= target if sense == "≤" else r >= target
            missed += 0 if ok else 1
            verdict = f"{sense} {target:g}: {'meets' if ok else 'MISSES'}"
        print(f"| {mine} | {a:.1f} | {other} | {b:.1f} | {r:.2f} | {verdict} |")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Ratio table of dglink_bench_device_global's JSON output, checked against the
targets of issue 19 (large copies against raw pageable and raw pinned, small ones at
the driver floor), as Markdown.

    dglink_bench_device_global --benchmark_out=bench.json --benchmark_out_format=json
    python3 benchmarks/ratios.py bench.json

Benchmark names are <Operation>/<implementation>/<bytes>; each row's value is the
counter median_us (the median of the per-call times), or the median aggregate of
it when the run used --benchmark_repetitions.
"""
import json
import sys


def load(path):
    with open(path) as f:
        data = json.load(f)
    values = {}  # (operation, implementation, bytes) -> {"median": us, "total": us, "spread"}
    samples = {}  # the same key -> every repetition's median_us
    has_aggregates = any(b.get("run_type") == "aggregate" for b in data["benchmarks"])
    for bench in data["benchmarks"]:
        if has_aggregates and bench.get("run_type") == "iteration" and not bench.get("error_occurred"):
            parts = bench.get("run_name", bench["name"]).split("/")
            if len(parts) >= 3 and "median_us" in bench:
                samples.setdefault((parts[0], parts[1], int(parts[2])), []).append(bench["median_us"])
            continue
        if has_aggregates and bench.get("aggregate_name") != "median":
            continue
        if not has_aggregates and bench.get("run_type", "iteration") != "iteration":
            continue
        if bench.get("error_occurred"):
            continue
        parts = bench.get("run_name", bench["name"]).split("/")
        if len(parts) < 3:
            continue
        key = (parts[0], parts[1], int(parts[2]))
        median = bench.get("median_us", bench.get("real_time"))
        values[key] = {"median": median, "total": bench.get("total_median_us")}
    for key, runs in samples.items():
        if key in values:
            values[key]["spread"] = (min(runs), max(runs))
    return data.get("context", {}), values


def fmt(value, digits=2):
    return "-" if value is None else f"{value:.{digits}f}"


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def verdict(ok):
    return "" if ok is None else ("meets" if ok else "MISSES")


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    context, values = load(sys.argv[1])

    def get(op, impl, size, field="median"):
        entry = values.get((op, impl, size))
        return None if entry is None else entry[field]

    print(f"adapter: {context.get('backend', 'cuda')}, device: {context.get('device', '?')}, CUDA driver "
          f"{context.get('cuda_driver_version', '?')}, date {context.get('date', '?')}, "
          f"host {context.get('host_name', '?')}")
    print()
    print("## Blocking copies (median µs per call)")
    print()
    print("| op | bytes | dglink [min-max] | direct | raw sync | raw pageable | raw pinned "
          "| cudaMemcpy*Symbol | dglink/raw | dglink/pinned | dispatch overhead | target |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    sizes = sorted({k[2] for k in values if k[0] in ("Write", "Read")})
    for op, runtime in (("Write", "cudaMemcpyToSymbol"), ("Read", "cudaMemcpyFromSymbol")):
        for size in sizes:
            dg = get(op, "dglink", size)
            spread = (values.get((op, "dglink", size)) or {}).get("spread")
            direct = get(op, "dglink_direct", size)
            raw = get(op, "raw_pageable", size)
            raw_sync = get(op, "raw_sync", size)
            pinned = get(op, "raw_pinned", size)
            rt = get(op, runtime, size)
            r_raw = ratio(dg, raw)
            r_pinned = ratio(dg, pinned)
            overhead = None if ratio(dg, direct) is None else ratio(dg, direct) - 1
            if size == 4 and op == "Write":
                floor = min(x for x in (raw, raw_sync, 1e9) if x is not None)
                ok = None if dg is None else dg <= floor
                target = f"<= fastest raw blocking ({fmt(floor)}): {verdict(ok)}"
            elif size <= 4096:
                ok = None if r_raw is None else r_raw <= 1.0
                target = f"<= 1.0x raw: {verdict(ok)}"
            elif size not in (65536, 1 << 20, 4 << 20):
                # Between issue 19's sizes: no target of its own, never slower than raw.
                ok = None if r_raw is None else r_raw <= 1.0
                target = f"(between targets) <= 1.0x raw: {verdict(ok)}"
            elif size < (1 << 20):
                ok = None if r_raw is None else r_raw <= 0.7
                target = f"<= 0.7x raw: {verdict(ok)}"
            else:
                limit = 0.45 if op == "Write" else 0.5
                ok = None if r_raw is None else r_raw <= limit
                near = "" if r_pinned is None else f", aim <= 1.6x pinned: {verdict(r_pinned <= 1.6)}"
                target = f"<= {limit}x raw: {verdict(ok)}{near}"
            spread_text = "" if spread is None else f" [{fmt(spread[0])}-{fmt(spread[1])}]"
            print(f"| {op} | {size} | {fmt(dg)}{spread_text} | {fmt(direct)} | {fmt(raw_sync)} | "
                  f"{fmt(raw)} | {fmt(pinned)} | {fmt(rt)} | {fmt(r_raw, 3)} | "
                  f"{fmt(r_pinned, 3)} | "
                  f"{fmt(None if overhead is None else overhead * 100, 1)}% | {target} |")
    print()
    print("Dispatch overhead target: <= 2% over calling the adapter directly.")
    print()
    print("## Non-blocking (100 enqueues, one wait; CPU µs per enqueue, median)")
    print()
    print("| op | bytes | dglink | direct | raw pageable | dglink - raw | with wait: dglink "
          "| with wait: raw | target |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    nb_sizes = sorted({k[2] for k in values if k[0].endswith("NonBlocking")})
    for op in ("WriteNonBlocking", "ReadNonBlocking"):
        for size in nb_sizes:
            dg = get(op, "dglink", size)
            raw = get(op, "raw_pageable", size)
            delta = None if dg is None or raw is None else dg - raw
            target = ""
            if delta is not None:
                target = f"<= raw: {verdict(delta <= 0)}"
            print(f"| {op} | {size} | {fmt(dg)} | {fmt(get(op, 'dglink_direct', size))} | "
                  f"{fmt(raw)} | {fmt(delta)} | {fmt(get(op, 'dglink', size, 'total'))} | "
                  f"{fmt(get(op, 'raw_pageable', size, 'total'))} | {target} |")
    print()
    print("## First access vs warm (4-byte blocking write, median µs)")
    print()
    print("| | dglink | raw driver |")
    print("|---|---:|---:|")
    print(f"| first access of a fresh program (lookup included) | "
          f"{fmt(get('FirstAccess', 'dglink', 4))} | {fmt(get('FirstAccess', 'raw', 4))} |")
    print(f"| warm access | {fmt(get('Write', 'dglink', 4))} | "
          f"{fmt(get('Write', 'raw_pageable', 4))} |")
    print(f"| cuModuleGetGlobal alone | | {fmt(get('Lookup', 'raw_cuModuleGetGlobal', 0))} |")
    copy_paths = [impl for impl in ("dglink", "dglink_usm", "ur_usm", "dglink_buffer", "ur_buffer")
                  if any(k[1] == impl for k in values)]
    if copy_paths:
        print()
        print("## DPC++'s copy paths x raw pageable (blocking, median µs; issue 31's targets)")
        print()
        print("Device global by name (`dglink`), USM (`dglink_usm`; `ur_usm`: DPC++'s copy of a "
              "device_global's USM instance), buffers (`dglink_buffer`, `ur_buffer`). Targets: "
              "64 KiB <= 0.75x, 1 MiB <= 0.5x, 4 MiB <= 0.45x, never above 1.05x.")
        print()
        print("| op | bytes | raw pageable | " + " | ".join(copy_paths) + " | worst | target |")
        print("|---|---:|---:|" + "---:|" * len(copy_paths) + "---:|---|")
        for op in ("Write", "Read"):
            for size in sizes:
                raw = get(op, "raw_pageable", size)
                cells, worst = [], None
                for impl in copy_paths:
                    value = get(op, impl, size)
                    r = ratio(value, raw)
                    cells.append("-" if value is None else f"{fmt(value)} ({fmt(r)})")
                    if r is not None:
                        worst = r if worst is None else max(worst, r)
                limit = {65536: 0.75, 1 << 20: 0.5, 4 << 20: 0.45}.get(size, 1.05)
                ok = None if worst is None else worst <= limit
                print(f"| {op} | {size} | {fmt(raw)} | " + " | ".join(cells) +
                      f" | {fmt(worst)} | <= {limit}x: {verdict(ok)} |")
    if any(k[1] == "ur" for k in values):
        print()
        print("## Through the Unified Runtime loader (blocking, median µs; docs/ur.md)")
        print()
        print("| op | bytes | PI face (dispatch) | UR loader | UR - PI | raw pageable | target |")
        print("|---|---:|---:|---:|---:|---:|---|")
        for op in ("Write", "Read"):
            for size in sizes:
                pi = get(op, "dglink", size)
                ur = get(op, "ur", size)
                delta = None if pi is None or ur is None else ur - pi
                target = "" if delta is None else f"<= PI + 0.1 µs: {verdict(delta <= 0.1)}"
                print(f"| {op} | {size} | {fmt(pi)} | {fmt(ur)} | {fmt(delta)} | "
                      f"{fmt(get(op, 'raw_pageable', size))} | {target} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env bash
# Runs a packaged dglink (scripts/package.sh) on this host: `dglink ls`, every
# unit test, the examples, `dglink conform` on every device found, the Unified Runtime
# face (urinfo through the UR loader, the conformance scenarios through UR, UR's own CTS
# per UR adapter), `dglink bench` and the benchmark programs, writing logs, JUnit XML,
# CSV and JSON into the results folder.
#   ./run.sh [results dir]      (env: DGLINK_SKIP_BENCH=1 to skip benchmarks;
#                                DGLINK_BENCH_ARGS, e.g. --benchmark_repetitions=3, goes to
#                                the benchmark programs; UR's CTS in parts:
#                                DGLINK_UR_CTS_ADAPTERS, e.g. "opencl" (default every UR
#                                adapter), DGLINK_UR_CTS_SUITES, e.g. "memory usm" (default
#                                all 23), DGLINK_UR_CTS_SELECTOR, e.g. "opencl:1" (default
#                                <backend>:*; the devices the per-device tests run on))
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
results=${1:-$here/results}
mkdir -p "$results"
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export POCL_KERNEL_CACHE=0
# The adapter tests load their adapter and device code from here, not the build tree.
export DGLINK_OPENCL_ADAPTER=$here/lib/libdglink_adapter_opencl.so
export DGLINK_OPENCL_TEST_DEVICE_CODE=$here/tests/opencl_device_code
export DGLINK_RUNTIME_TEST_BUNDLES=$here/tests/runtime_bundles
export DGLINK_VF_BENCH_BUNDLES=$here/tests/vf_bench

# OpenCL platforms: the host's ICD files, plus NVIDIA's OpenCL library when the
# driver ships it without an ICD file (no root needed: OCL_ICD_VENDORS).
vendors=$(mktemp -d)
cp /etc/OpenCL/vendors/*.icd "$vendors/" 2>/dev/null || true
if ldconfig -p | grep -q 'libnvidia-opencl.so.1' && ! grep -qs libnvidia-opencl "$vendors"/*.icd; then
  echo libnvidia-opencl.so.1 >"$vendors/nvidia.icd"
fi
export OCL_ICD_VENDORS=$vendors

status=0
# The OpenCL adapter's SPIR-V translation (SPIR-V into PTX on NVIDIA's OpenCL) needs
# every library of its LLVM side; say which one this host lacks, if any.
if [ -f "$here/lib/libdglink_device_code_llvm.so" ]; then
  missing=$(ldd "$here/lib/libdglink_device_code_llvm.so" 2>/dev/null | awk '/not found/{print $1}' | paste -sd' ' -)
  [ -z "$missing" ] || echo "note: SPIR-V translation off on this host, libdglink_device_code_llvm.so lacks: $missing" | tee "$results/spirv_translation.txt"
fi
"$here/bin/dglink" ls 2>&1 | tee "$results/ls.txt"
for t in "$here"/tests/*_tests; do
  [ -x "$t" ] || continue
  name=$(basename "$t")
  echo "== $name"
  "$t" --gtest_output="xml:$results/$name.xml" >"$results/$name.log" 2>&1 || { status=1; tail -30 "$results/$name.log"; }
  tail -3 "$results/$name.log"
done
# The examples check their own results: 0 passed, 77 skipped (no device for them).
for e in "$here"/examples/dglink_example_*; do
  [ -x "$e" ] || continue
  name=$(basename "$e")
  echo "== $name"
  "$e" >"$results/$name.log" 2>&1
  rc=$?
  if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then
    status=1
    tail -30 "$results/$name.log"
  fi
  tail -1 "$results/$name.log"
done
"$here/bin/dglink" conform --junit "$results/conform.xml" 2>&1 | tee "$results/conform.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

# The Unified Runtime face: the real UR loader loads every dglink UR adapter.
ur_adapters=$(ls "$here"/lib/libur_adapter_dglink_*.so 2>/dev/null | paste -sd, -)
if [ -n "$ur_adapters" ] && [ -x "$here/bin/urinfo" ]; then
  echo "== urinfo (UR_ADAPTERS_FORCE_LOAD=$ur_adapters)"
  UR_ADAPTERS_FORCE_LOAD=$ur_adapters "$here/bin/urinfo" 2>&1 | tee "$results/urinfo.txt"
  UR_ADAPTERS_FORCE_LOAD=$ur_adapters "$here/bin/urinfo" --verbose >"$results/urinfo_verbose.txt" 2>&1 || true
  if [ -x "$here/tests/dglink_conformance_ur" ]; then
    echo "== conformance through the UR loader"
    UR_ADAPTERS_FORCE_LOAD=$ur_adapters "$here/tests/dglink_conformance_ur" \
      --gtest_output="xml:$results/conformance_ur.xml" >"$results/conformance_ur.log" 2>&1 || status=1
    tail -5 "$results/conformance_ur.log"
    echo "== conformance through the UR loader with its full validation layer"
    UR_ADAPTERS_FORCE_LOAD=$ur_adapters sh "$here/tests/validation_run.sh" \
      "$here/tests/dglink_conformance_ur" "$results/conformance_ur_validation.log" || status=1
  fi
  if [ -x "$here/tests/ur_cts/ur-cts.sh" ]; then
    # shellcheck disable=SC2206 # lists of words on purpose
    cts_suites=(${DGLINK_UR_CTS_SUITES:-})
    for backend in ${DGLINK_UR_CTS_ADAPTERS:-opencl cuda hip hip_nvidia level_zero}; do
      adapter=$here/lib/libur_adapter_dglink_$backend.so
      [ -f "$adapter" ] || continue
      selector=${DGLINK_UR_CTS_SELECTOR:-${backend%_nvidia}:*}
      echo "== UR CTS, $backend ($selector${DGLINK_UR_CTS_SUITES:+; ${cts_suites[*]}})"
      UR_CTS_LOG_DIR=$results/ur_cts_$backend bash "$here/tests/ur_cts/ur-cts.sh" \
        "$here/tests/ur_cts" "$adapter" "$selector" "$here/tests/ur_cts/cts_known_failures.txt" \
        "${cts_suites[@]}" 2>&1 | tee "$results/ur_cts_$backend.txt" || true
    done
  fi
fi
if [ "${DGLINK_SKIP_BENCH:-0}" != 1 ]; then
  "$here/bin/dglink" bench --json "$results/dglink_bench.json" --csv "$results/dglink_bench.csv" \
    2>"$results/dglink_bench.log" | tee "$results/dglink_bench.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  for b in "$here"/bin/dglink_bench*; do
    [ -x "$b" ] || continue
    # shellcheck disable=SC2086 # DGLINK_BENCH_ARGS is a list of options
    "$b" ${DGLINK_BENCH_ARGS:-} --benchmark_out="$results/$(basename "$b").json" \
      --benchmark_out_format=json 2>&1 |
      tee "$results/$(basename "$b").txt"
  done
fi
exit $status

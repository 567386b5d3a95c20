#!/usr/bin/env bash
# Runs Unified Runtime's own conformance tests (CTS) against one dglink UR adapter
# through the real UR loader, and prints pass/fail/skip per suite.
#   scripts/ur-cts.sh CTS_DIR ADAPTER SELECTOR KNOWN_FAILURES [SUITE...]
# CTS_DIR: where the <suite>-test programs are (<suite>-test, or any <dir>/<suite>-test as
# UR builds them); ADAPTER: a libur_adapter_dglink_*.so; SELECTOR: ONEAPI_DEVICE_SELECTOR
# ("opencl:*"); KNOWN_FAILURES: the list of tests that fail for a reason docs/ur.md gives
# ("<suite> <Fixture.Test>" lines, or "<suite> <Fixture>.*" for every test of a fixture;
# "<suite>@<backend> ..." for the selector's backend only; a line may end with
# "[requires: <text>]": a failure is then known only where the failed test's output says
# <text>, so that a glob cannot hide a failure of another cause; '#' comments). SUITE: the
# suites to run (default: all 23; a suite may carry a GoogleTest filter,
# "<suite>:<filter>", e.g. "enqueue:urEnqueueKernelLaunch*").
# The suites that load device code find it in UR_CTS_KERNEL_DIR (default:
# CTS_DIR/device_binaries), <program>/<triple>.bin.0, as dglink's DPC++ stand-in built it
# (conformance/ur_cts).
# Fails when a suite crashes or a test fails that the list does not name; a listed test
# that passes is reported, so that the list only shrinks. With UR_CTS_COUNT_ONLY=1 it only
# counts (the list is not read, "-" will do; the table is printed and it never fails): for
# adapters that are not dglink's, e.g. UR's own (scripts/ur-peer.sh).
set -uo pipefail
if [ $# -lt 4 ]; then
  echo "usage: ur-cts.sh CTS_DIR ADAPTER SELECTOR KNOWN_FAILURES [SUITE...]" >&2
  exit 2
fi
cts=$1 adapter=$2 selector=$3 known=$4
shift 4
suites=("$@")
[ ${#suites[@]} -eq 0 ] && suites=(adapter platform device context memory event queue sampler
  virtual_memory exp_graph exp_reusable_events exp_usm_context_memcpy exp_usm_host_mem_register
  kernel program enqueue usm exp_command_buffer exp_kernel_launch_with_args memory-migrate
  integration exp_host_task exp_usm_p2p)
kernel_dir=${UR_CTS_KERNEL_DIR:-$cts/device_binaries}

# The known failures of one suite: one pattern a line ("Fixture.Test" or "Fixture.*"), from
# the lines "<suite> <pattern>" (every backend) and "<suite>@<backend> <pattern>" (only
# this selector's backend: opencl, level_zero, cuda, hip).
backend=${selector%%:*}
known_of() {
  grep -v '^#' "$known" | sed -E 's/[[:space:]]+#.*//; s/[[:space:]]+$//' |
    grep -E "^$1(@$backend)? " | sed -E "s/^$1(@$backend)? //"
}
# The output of every instance of test $1 in log $2: from its RUN line to its result line.
output_of() {
  awk -v t="$1" '
    index($0, "[ RUN      ] " t "/") == 1 || $0 == "[ RUN      ] " t { on = 1 }
    on { print }
    on && (index($0, "[  FAILED  ] " t) == 1 || index($0, "[       OK ] " t) == 1) { on = 0 }
  ' "$2"
}
# Whether test name $1 matches one of the patterns on stdin; a pattern's "[requires: X]"
# also needs X in the test's output in log $2 (where a log is given).
matches() {
  local line pattern required
  while IFS= read -r line; do
    pattern=${line%% \[requires: *}
    required=
    [ "$pattern" != "$line" ] && required=${line#* \[requires: } && required=${required%]}
    # shellcheck disable=SC2053 # the pattern is a glob on purpose
    [[ "$1" == $pattern ]] || continue
    if [ -n "$required" ] && [ -n "${2:-}" ]; then
      local output
      output=$(output_of "$1" "$2")
      [[ "$output" == *"$required"* ]] || continue
    fi
    return 0
  done
  return 1
}

export UR_ADAPTERS_FORCE_LOAD=$adapter ONEAPI_DEVICE_SELECTOR=$selector
export POCL_KERNEL_CACHE=${POCL_KERNEL_CACHE:-0}
log_dir=${UR_CTS_LOG_DIR:-$(mktemp -d)}
mkdir -p "$log_dir"
# HIP's NVIDIA platform takes PTX, but the CTS asks every HIP device for AMD code
# (<program>/amdgcn-amd-amdhsa.bin.0): give it the programs' PTX under that name.
if [[ $(basename "$adapter") == *hip_nvidia* ]] && [ -d "$kernel_dir" ]; then
  ptx_dir=$log_dir/device_binaries_hip_nvidia
  kernel_dir=$(cd "$kernel_dir" && pwd)
  for program in "$kernel_dir"/*/; do
    program=$(basename "$program")
    [ -f "$kernel_dir/$program/nvptx64-nvidia-cuda.bin.0" ] || continue
    mkdir -p "$ptx_dir/$program"
    ln -sf "$kernel_dir/$program/nvptx64-nvidia-cuda.bin.0" "$ptx_dir/$program/amdgcn-amd-amdhsa.bin.0"
  done
  kernel_dir=$ptx_dir
fi
status=0
count_only=${UR_CTS_COUNT_ONLY:-0}
printf '| suite | passed | failed (known) | skipped |\n|---|---:|---:|---:|\n'
for entry in "${suites[@]}"; do
  suite=${entry%%:*}
  filter=
  [ "$entry" != "$suite" ] && filter=--gtest_filter=${entry#*:}
  program=$cts/$suite/$suite-test
  [ -x "$program" ] || program=$cts/$suite-test
  if [ ! -x "$program" ]; then
    for candidate in "$cts"/*/"$suite-test"; do
      [ -x "$candidate" ] && program=$candidate
    done
  fi
  log=$log_dir/$suite.log
  if [ ! -x "$program" ]; then
    printf '| %s | not built | | |\n' "$suite"
    status=1
    continue
  fi
  args=()
  [ -n "$filter" ] && args+=("$filter")
  [ -d "$kernel_dir" ] && args+=("--kernel_directory=$kernel_dir")
  timeout 900 "$program" "${args[@]}" >"$log" 2>&1
  rc=$?
  if ! grep -aq '^\[==========\] .* ran\.' "$log" || { [ $rc -ne 0 ] && [ $rc -ne 1 ]; }; then
    printf '| %s | crashed (exit %s, see %s) | | |\n' "$suite" "$rc" "$log"
    status=1
    continue
  fi
  passed=$(grep -a -c '^\[       OK \]' "$log")
  skipped=$(grep -a -c '^\[  SKIPPED \] .* ms)$' "$log")
  failed_names=$(grep -a '^\[  FAILED  \] .* ms)$' "$log" | sed -E 's/^\[  FAILED  \] ([^/ ]+).*/\1/' | sort -u)
  failed=$(grep -a -c '^\[  FAILED  \] .* ms)$' "$log")
  patterns=
  [ "$count_only" = 1 ] || patterns=$(known_of "$suite")
  known_count=0
  while IFS= read -r name; do
    [ -z "$name" ] && continue
    if matches "$name" "$log" <<<"$patterns"; then
      known_count=$((known_count + 1))
    elif [ "$count_only" != 1 ]; then
      echo "ur-cts: $suite: $name failed and is not a known failure (see $log)" >&2
      status=1
    fi
  done <<<"$failed_names"
  passed_names=$(grep -a '^\[       OK \] ' "$log" | sed -E 's/^\[       OK \] ([^/ ]+).*/\1/' | sort -u)
  while IFS= read -r pattern; do
    [ -z "$pattern" ] && continue
    # Listed for one backend, a test may be skipped on another: only a pass (and no
    # failure under the same entry) says the entry is stale.
    failing=0 passing=0
    while IFS= read -r name; do
      [ -n "$name" ] && matches "$name" <<<"$pattern" && failing=1
    done <<<"$failed_names"
    while IFS= read -r name; do
      [ -n "$name" ] && matches "$name" <<<"$pattern" && passing=1
    done <<<"$passed_names"
    if [ $failing -eq 0 ] && [ $passing -eq 1 ]; then
      echo "ur-cts: $suite: $pattern is listed as a known failure but passed on every device here: drop it from $known unless another device of this backend fails it (the list's comment says which)" >&2
    fi
  done <<<"$patterns"
  printf '| %s | %s | %s (%s) | %s |\n' "$suite" "$passed" "$failed" "$known_count" "$skipped"
done
echo "ur-cts: logs in $log_dir"
[ "$count_only" = 1 ] && exit 0
exit $status

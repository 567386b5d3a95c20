#!/usr/bin/env bash
# Runs Unified Runtime's own conformance tests (the suites built without DPC++) against
# one dglink UR adapter through the real UR loader, and prints pass/fail/skip per suite.
#   scripts/ur-cts.sh CTS_DIR ADAPTER SELECTOR KNOWN_FAILURES [SUITE...]
# CTS_DIR: where the <suite>-test programs are (or <suite>/<suite>-test, as UR builds them); ADAPTER: a libur_adapter_dglink_*.so;
# SELECTOR: ONEAPI_DEVICE_SELECTOR ("opencl:*"); KNOWN_FAILURES: the list of tests that
# fail for a reason docs/ur.md gives ("<suite> <Test.Name>" lines, '#' comments).
# Fails when a suite crashes or a test fails that the list does not name; a listed test
# that passes is reported, so that the list only shrinks.
set -uo pipefail
if [ $# -lt 4 ]; then
  echo "usage: ur-cts.sh CTS_DIR ADAPTER SELECTOR KNOWN_FAILURES [SUITE...]" >&2
  exit 2
fi
cts=$1 adapter=$2 selector=$3 known=$4
shift 4
suites=("$@")
[ ${#suites[@]} -eq 0 ] && suites=(adapter platform device context memory event queue)

export UR_ADAPTERS_FORCE_LOAD=$adapter ONEAPI_DEVICE_SELECTOR=$selector
export POCL_KERNEL_CACHE=${POCL_KERNEL_CACHE:-0}
log_dir=${UR_CTS_LOG_DIR:-$(mktemp -d)}
mkdir -p "$log_dir"
status=0
printf '| suite | passed | failed (known) | skipped |\n|---|---:|---:|---:|\n'
for suite in "${suites[@]}"; do
  program=$cts/$suite/$suite-test
  [ -x "$program" ] || program=$cts/$suite-test
  log=$log_dir/$suite.log
  if [ ! -x "$program" ]; then
    printf '| %s | not built | | |\n' "$suite"
    status=1
    continue
  fi
  timeout 900 "$program" >"$log" 2>&1
  rc=$?
  if ! grep -q '^\[==========\] .* ran\.' "$log" || { [ $rc -ne 0 ] && [ $rc -ne 1 ]; }; then
    printf '| %s | crashed (exit %s, see %s) | | |\n' "$suite" "$rc" "$log"
    status=1
    continue
  fi
  passed=$(grep -c '^\[       OK \]' "$log")
  skipped=$(grep -c '^\[  SKIPPED \] .* ms)$' "$log")
  failed_names=$(grep '^\[  FAILED  \] .* ms)$' "$log" | sed -E 's/^\[  FAILED  \] ([^/ ]+).*/\1/' | sort -u)
  failed=$(grep -c '^\[  FAILED  \] .* ms)$' "$log")
  known_count=0
  while IFS= read -r name; do
    [ -z "$name" ] && continue
    if grep -qx "$suite $name" <(grep -v '^#' "$known" | sed -E 's/[[:space:]]+#.*//; s/[[:space:]]+$//'); then
      known_count=$((known_count + 1))
    else
      echo "ur-cts: $suite: $name failed and is not a known failure (see $log)" >&2
      status=1
    fi
  done <<<"$failed_names"
  while IFS= read -r line; do
    name=${line#"$suite "}
    # Listed for one backend, a test may be skipped on another: only a pass says the
    # entry is stale.
    if ! grep -qx "$name" <<<"$failed_names" && grep -q "^\[       OK \] $name/" "$log"; then
      echo "ur-cts: $suite: $name is listed as a known failure but passed: drop it from $known" >&2
    fi
  done < <(grep -v '^#' "$known" | sed -E 's/[[:space:]]+#.*//; s/[[:space:]]+$//' | grep "^$suite ")
  printf '| %s | %s | %s (%s) | %s |\n' "$suite" "$passed" "$failed" "$known_count" "$skipped"
done
echo "ur-cts: logs in $log_dir"
exit $status

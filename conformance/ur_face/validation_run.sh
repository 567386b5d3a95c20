#!/bin/sh
# Runs the conformance scenarios through the UR loader with the loader's full validation
# layer (parameter checks, handle lifetimes, the leak checker) and fails on a failed
# scenario, on a leaked reference, and on any validation message but two, both UR
# 0.12 layer defects (ur_valddi.cpp):
# - it does not record the programs urProgramLink / urProgramLinkExp create, so it
#   reports every later use and the release of such a program ("There are no valid
#   references to handle", "Attempting to release (or retain) nonexistent handle",
#   "Retained -N reference(s)"). The bridge names those programs ("dglink-ur-bridge: linked program
#   <handle>"); messages about them are counted and allowed; the same for the
#   sub-buffers of urMemBufferPartition ("dglink-ur-bridge: sub-buffer <handle>") and the
#   events of command-buffer commands (phEvent of the appends and of
#   urCommandBufferUpdateSignalEventExp; "dglink-ur-scenario: command event <handle>"), and
#   the events of urEnqueueUSMMemcpy2D, urEnqueueUSMFill2D and
#   urEnqueueTimestampRecordingExp ("dglink-ur-scenario: unrecorded event <handle>"), and the
#   program urKernelCreateWithNativeHandle makes of an OpenCL kernel's own program
#   ("dglink-ur-scenario: adopted program <handle>");
# - it checks the optional pool of urUSM*Alloc even when it is null ("There are no
#   valid references to handle 0"): allowed for handle 0 alone.
#   validation_run.sh CONFORMANCE_UR_PROGRAM LOG [gtest options]
set -u
program=$1 log=$2
shift 2
UR_ENABLE_LAYERS=UR_LAYER_FULL_VALIDATION UR_LOG_VALIDATION="level:warning;output:stderr" \
  "$program" "$@" >"$log" 2>&1
status=$?
tail -3 "$log"
if [ "$status" -ne 0 ]; then
  echo "validation_run: scenarios failed under the validation layer (exit $status):"
  grep '^\[  FAILED' "$log" | sort -u
  exit 1
fi
named='s/^dglink-ur-\(bridge\|scenario\): \(linked program\|sub-buffer\|command event\|unrecorded event\|adopted program\)'
linked=$(sed -n "$named"' \(0x[0-9a-f]*\).*/\3/p' "$log" | sort -u)
# The layer's own messages, without the backtraces it prints after some of them.
messages=$(grep '^<VALIDATION>' "$log" | grep -v ']: #[0-9]' | grep -v 'was recorded for first time here')
if printf '%s\n' "$messages" | grep -q 'Retained [1-9][0-9]* reference'; then
  echo "validation_run: the leak checker reports leaked references:"
  printf '%s\n' "$messages" | grep 'Retained [1-9]'
  exit 1
fi
allowed=0
nullpool=0
others=""
old_ifs=$IFS
IFS='
'
for line in $messages; do
  handle=$(printf '%s\n' "$line" | sed -n 's/.*handle \(0x[0-9a-f]*\).*/\1/p')
  case "$line" in
  *"There are no valid references to handle 0")
    nullpool=$((nullpool + 1))
    continue
    ;;
  *"There are no valid references to handle"* | *"Attempting to release nonexistent handle"* | \
    *"Attempting to retain nonexistent handle"* | *"Retained -"*" reference(s) to handle"*)
    if [ -n "$handle" ] && printf '%s\n' "$linked" | grep -qx "$handle"; then
      allowed=$((allowed + 1))
      continue
    fi
    ;;
  esac
  others="$others$line
"
done
IFS=$old_ifs
if [ -n "$others" ]; then
  echo "validation_run: the validation layer reports:"
  printf '%s' "$others" | sort | uniq -c
  exit 1
fi
echo "validation_run: no misuse and no leak reported; $allowed messages about the" \
  "$(printf '%s\n' "$linked" | grep -c .) linked programs, sub-buffers and command, 2D USM and timestamp events UR 0.12's layer" \
  "does not record," \
  "$nullpool about null USM pools"

#!/usr/bin/env bash
# The format check of CI: clang-format (Debian 12's clang-format-14, the one pinned
# version) over the folders that are kept formatted, with the root .clang-format.
# The list grows to the whole tree; a file that differs fails CI and the diff says how
# to fix it (clang-format-14 -i FILE).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
formatter=${CLANG_FORMAT:-clang-format-14}
formatted=(
  adapters
  common
  conformance/scenarios/core_guarantees.cpp
  conformance/ur_cts/check_ports.cpp
  conformance/ur_face
  examples
  include/dglink/runtime.h
  include/dglink/symbol.h
  include/dglink/ur_ext.h
  runtime
  tools/dglink/report.cpp
  tools/dglink/version.cpp
  tools/dglink/version.h
  tools/tests
)
status=0
count=0
while IFS= read -r file; do
  count=$((count + 1))
  if ! "$formatter" --dry-run -Werror "$file" >/dev/null 2>&1; then
    echo "check-format: $file is not formatted; the change $formatter -i would make:" >&2
    diff -u "$file" <("$formatter" "$file") >&2 || true
    status=1
  fi
done < <(git ls-files -- "${formatted[@]}" | grep -E '\.(c|cpp|h)$')
echo "check-format: $count files checked with $($formatter --version | head -1)"
exit $status

#!/usr/bin/env bash
# The lint of CI: clang-tidy (Debian 12's clang-tidy-14, the root .clang-tidy, every
# finding an error) over the sources kept to it, with the compile commands of a build
# folder (the first argument; default build/). The list grows with the adapter core.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
tidy=${CLANG_TIDY:-clang-tidy-14}
cd "$root"
mapfile -t files < <(git ls-files -- common/adapter_core common/device_code common/ur_face conformance/ur_face common/host_copy common/stream_backend common/cuda_driver/cuda_code.cpp \
  common/cuda_driver/cuda_stream.cpp common/cuda_driver/cuda_image.cpp adapters/cuda/backend.cpp adapters/hip/backend.cpp adapters/level_zero adapters/opencl \
  runtime | grep -E '\.cpp$' |
  grep -v -e '/tests/' -e '/fuzz/')
"$tidy" -p "$build" --quiet "${files[@]}" 2>/dev/null
echo "check-tidy: ${#files[@]} files clean with $($tidy --version | grep -m1 version)"

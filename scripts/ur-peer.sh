#!/usr/bin/env bash
# Builds Unified Runtime's OWN OpenCL or CUDA adapter from the UR snapshot, unchanged and
# offline, and runs UR's CTS on it, so that its results stand beside dglink's
# (docs/ur.md, "UR's own adapters beside dglink's").
#   scripts/ur-peer.sh opencl OUT OPENCL_HEADERS
#   scripts/ur-peer.sh cuda OUT UMF_SOURCE NVML_DIR
#   scripts/ur-peer.sh run ADAPTER CTS_DIR SELECTOR [SUITE...]
# OUT: a folder outside the repository: OUT/src (the snapshot), OUT/build-<adapter>, and
# OUT/<adapter>, the folder to use or carry to another host: the adapter, the libraries it
# loads that a host may lack (CUDA: libumf, libhwloc), ur-cts.sh and this script; the same
# as OUT/ur-peer-<adapter>.tar.gz, which unpacks as ur-peer/<adapter>.
# OPENCL_HEADERS: a KhronosGroup/OpenCL-Headers tree, v2025.07.22 (UR's pin) or newer;
# Debian 12's headers lack cl_khr_spirv_queries, which UR's CMake tests for. The ICD
# loader is the system's (ocl-icd-opencl-dev).
# UMF_SOURCE: oneapi-src/unified-memory-framework sources (UR pins v1.2.0), built inside
# UR's build with its CUDA provider; hwloc from the system (libhwloc-dev).
# NVML_DIR: a folder with nvml.h and a libnvidia-ml.so to link against, anywhere below it
# (Debian's libnvidia-ml-dev and libnvidia-ml1 unpacked there will do); the nvml.h must be
# CUDA 12.2's or newer, as the adapter calls nvmlDeviceGetCurrentClocksEventReasons with
# CUDA >= 12.6. The CUDA toolkit: CUDA_HOME (default /usr/local/cuda); libcuda and
# libnvidia-ml come from the driver of the host that runs the adapter.
# run: UR's CTS (the ur-cts.sh beside this script, counts only: UR's adapters have no list
# of known failures here) on ADAPTER, any libur_adapter_*.so (as built above, or dglink's
# for the same counting), its folder first on LD_LIBRARY_PATH; CTS_DIR as for ur-cts.sh (a
# build's test/conformance, or a dglink package's tests/ur_cts, whose ../../lib then gives
# the UR loader). Prints ur-cts.sh's table and how many device-global instances passed,
# failed, skipped; logs go to UR_CTS_LOG_DIR. On the GPU host, beside an unpacked dglink
# package:
#   bash ur-peer/cuda/ur-peer.sh run ur-peer/cuda/libur_adapter_cuda.so dglink/tests/ur_cts 'cuda:*'
# env: UR_SNAPSHOT (default: the snapshot in ../shared/third_party beside the repository),
# JOBS (build jobs, default 2).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
usage() {
  sed -n '5,7p' "${BASH_SOURCE[0]}" | sed 's/^# *//' >&2
  exit 2
}
[ $# -ge 1 ] || usage
mode=$1
shift

if [ "$mode" = run ]; then
  [ $# -ge 3 ] || usage
  adapter=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
  cts=$2 selector=$3
  shift 3
  libs=$(dirname "$adapter")
  [ -e "$cts/../../lib/libur_loader.so.0" ] && libs=$libs:$(cd "$cts/../../lib" && pwd)
  export LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  runner=$here/ur-cts.sh
  [ -f "$runner" ] || { echo "ur-peer: no ur-cts.sh beside $0" >&2; exit 1; }
  logs=${UR_CTS_LOG_DIR:-$(mktemp -d)}
  UR_CTS_COUNT_ONLY=1 UR_CTS_LOG_DIR=$logs bash "$runner" "$cts" "$adapter" "$selector" - "$@"
  # The instances that test device globals (urEnqueueDeviceGlobalVariableRead/Write as
  # the CTS names them, urProgramGetGlobalVariablePointer).
  { cat "$logs"/*.log | grep -a -E '^\[ +(OK|FAILED|SKIPPED) +\] [^ ]*(DeviceGlobal|GetGlobalVariable).* ms\)$' || true; } |
    awk '{n[$2]++} END {printf "ur-peer: device globals: %d instances, %d passed, %d failed, %d skipped\n",
      n["OK"] + n["FAILED"] + n["SKIPPED"], n["OK"], n["FAILED"], n["SKIPPED"]}'
  exit 0
fi

case "$mode" in
opencl) [ $# -eq 2 ] || usage ;;
cuda) [ $# -eq 3 ] || usage ;;
*) usage ;;
esac
out=$(realpath -m "$1")
repo=$(cd "$here/.." && pwd)
snapshot=${UR_SNAPSHOT:-$repo/../shared/third_party/unified-runtime-578c2a84.tar.gz}
jobs=${JOBS:-2}
case "$out/" in "$repo"/*)
  echo "ur-peer: OUT must be outside the repository" >&2
  exit 2
  ;;
esac
mkdir -p "$out"

src=$out/src/unified-runtime
if [ ! -f "$src/CMakeLists.txt" ]; then
  mkdir -p "$out/src"
  tar -xzf "$snapshot" -C "$out/src"
fi
build=$out/build-$mode dest=$out/$mode
# Only the adapter (and what it links) is built: no tests, tools, examples or device
# sanitizer layer, and not the loader (dglink's build has one). The libraries get their
# install RPATH ($ORIGIN: the adapter finds libumf beside it) in the build tree already.
common=(-G Ninja -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release
  -DUR_BUILD_TESTS=OFF -DUR_BUILD_TOOLS=OFF -DUR_BUILD_EXAMPLES=OFF
  -DUR_ENABLE_SANITIZER=OFF -DUR_STATIC_LOADER=OFF -DCMAKE_BUILD_WITH_INSTALL_RPATH=ON
  -DFETCHCONTENT_FULLY_DISCONNECTED=ON)
if [ "$mode" = opencl ]; then
  headers=$(cd "$2" && pwd)
  # A shared adapter linked to the ICD loader (UR's default embeds it in the loader).
  cmake "${common[@]}" -DUR_BUILD_ADAPTER_OPENCL=ON -DUR_STATIC_ADAPTER_OPENCL=OFF \
    -DOpenCL_INCLUDE_DIR="$headers"
  target=ur_adapter_opencl
else
  umf=$(cd "$2" && pwd) nvml=$(cd "$3" && pwd)
  cuda=${CUDA_HOME:-/usr/local/cuda}
  nvml_header=$(find "$nvml" -name nvml.h | head -1)
  nvml_library=$(find "$nvml" -name 'libnvidia-ml.so*' | sort | head -1)
  if [ -z "$nvml_header" ] || [ -z "$nvml_library" ]; then
    echo "ur-peer: $nvml has no nvml.h or no libnvidia-ml.so" >&2
    exit 1
  fi
  if ! grep -q nvmlDeviceGetCurrentClocksEventReasons "$nvml_header"; then
    echo "ur-peer: $nvml_header is older than CUDA 12.2's (no nvmlDeviceGetCurrentClocksEventReasons)" >&2
    exit 1
  fi
  # UMF from the given sources (its version is read from git or its VERSION file, which
  # UR does not check when it builds UMF itself), libumf finding libhwloc beside it.
  cmake "${common[@]}" -DUR_BUILD_ADAPTER_CUDA=ON -DCUDAToolkit_ROOT="$cuda" \
    -DCUDA_nvml_LIBRARY="$nvml_library" -DCMAKE_CXX_FLAGS="-isystem $(dirname "$nvml_header")" \
    -DUR_USE_EXTERNAL_UMF=OFF -DFETCHCONTENT_SOURCE_DIR_UNIFIED-MEMORY-FRAMEWORK="$umf" \
    -DUMF_INSTALL_RPATH="\$ORIGIN"
  target=ur_adapter_cuda
fi
ninja -C "$build" -j "$jobs" "$target"
rm -rf "$dest"
mkdir -p "$dest"
cp -a "$build"/lib/lib"$target".so* "$dest/"
if [ "$mode" = cuda ]; then
  cp -a "$build"/lib/libumf.so* "$dest/"
  # hwloc, which libumf loads, is not on every host: carried beside it.
  hwloc=$(ldd "$dest/libumf.so.1" | awk '/libhwloc/ {print $3}')
  [ -n "$hwloc" ] && cp -L "$hwloc" "$dest/"
fi
cp "$here/ur-cts.sh" "$here/ur-peer.sh" "$dest/"
# One file to carry, unpacking as ur-peer/<adapter>.
tar -C "$out" --transform "s,^$mode,ur-peer/$mode," -czf "$out/ur-peer-$mode.tar.gz" "$mode"
echo "ur-peer: $dest (and $out/ur-peer-$mode.tar.gz):"
ls -l "$dest"
# What the adapter still needs from the host: the driver's libraries and the C/C++ runtime.
ldd "$dest/lib$target.so" | grep -v -e "$dest" -e linux-vdso || true

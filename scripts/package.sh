#!/usr/bin/env bash
# Packages a dglink build into one folder (and a .tar.xz) that runs on another
# Linux x86-64 host with no package registry: binaries, the dglink libraries, the
# shared libraries Debian provided that such a host may lack, and run.sh.
#   scripts/package.sh [build dir] [output dir]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out=${2:-$root/dist/dglink}
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/tests"

for l in "$build"/lib/libdglink_*.so*; do
  case "$(basename "$l")" in
  libdglink_ze_test_driver*) ;; # a test component, never shipped beside real drivers
  *) cp -a "$l" "$out/lib/" ;;
  esac
done
cp -a "$build/bin/dglink" "$out/bin/"
# The Unified Runtime face (docs/ur.md): the UR loader and urinfo built from UR's
# source, the dglink UR adapters, the conformance scenarios through UR, and UR's own
# conformance tests with the runner and its list of known failures.
cp -a "$build"/lib/libur_loader.so* "$build"/lib/libur_adapter_dglink_*.so "$out/lib/" 2>/dev/null || true
[ -x "$build/bin/urinfo" ] && cp -a "$build/bin/urinfo" "$out/bin/"
cp "$root/conformance/ur_face/validation_run.sh" "$out/tests/"
cts=$build/_deps/unified-runtime-build/test/conformance
if [ -d "$cts" ]; then
  mkdir -p "$out/tests/ur_cts"
  for program in "$cts"/*/*-test; do
    [ -x "$program" ] && cp -a "$program" "$out/tests/ur_cts/"
  done
  # The device programs of the suites that load device code (SPIR-V and PTX, built by
  # dglink's DPC++ stand-in, conformance/ur_cts): ur-cts.sh passes --kernel_directory.
  for binary in "$cts"/device_binaries/*/*.bin.0; do
    [ -f "$binary" ] || continue
    program=$(basename "$(dirname "$binary")")
    mkdir -p "$out/tests/ur_cts/device_binaries/$program"
    cp -a "$binary" "$out/tests/ur_cts/device_binaries/$program/"
  done
  cp "$root/scripts/ur-cts.sh" "$root/conformance/ur_face/cts_known_failures.txt" "$out/tests/ur_cts/"
fi
for t in "$build"/bin/*; do
  name=$(basename "$t")
  case "$name" in
  dglink) ;;
  dglink_bench* | *benchmark*) cp -a "$t" "$out/bin/" ;;
  # The test programs that talk to the host's devices (and the copy engine's, whose threads
  # want the host's cores). The others (dispatch, shim,
  # Level Zero test driver) load files from the build tree and touch no device: CI
  # runs them, a GPU host has nothing to add.
  dglink_conformance | dglink_conformance_ur | dglink_cuda_tests | dglink_adapter_opencl_tests | \
    dglink_support_tests | dglink_hip_nvidia_tests | dglink_runtime_tests | dglink_copy_engine_tests)
    cp -a "$t" "$out/tests/" ;;
  esac
done
# The examples (examples/), with the bundles they load from beside themselves.
for e in "$build"/bin/dglink_example_* "$build"/bin/*.bundle; do
  [ -f "$e" ] || continue
  mkdir -p "$out/examples"
  cp -a "$e" "$out/examples/"
done
# The OpenCL adapter tests read their device code from files (run.sh points them here).
if [ -d "$build/adapters/opencl/tests/device_code" ]; then
  cp -a "$build/adapters/opencl/tests/device_code" "$out/tests/opencl_device_code"
fi
# The runtime tests' own bundles (run.sh points them here).
if [ -d "$build/runtime/tests/device_code" ]; then
  cp -a "$build/runtime/tests/device_code" "$out/tests/runtime_bundles"
  # The virtual-functions benchmark's bundles (DGLINK_VF_BENCH_BUNDLES).
  if [ -d "$build/runtime/vf_bench" ]; then
    cp -a "$build/runtime/vf_bench" "$out/tests/vf_bench"
  fi
fi
# Test-only adapter libraries some unit tests load from beside themselves.
[ -d "$build/testlib" ] && cp -a "$build/testlib" "$out/"

# Libraries from Debian that an Ubuntu GPU host may not have (glibc, libstdc++,
# the OpenCL ICD loader and GPU drivers are expected there and not bundled). LLVM 15 and
# LLVMSPIRVLib (with libz3, which LLVM links) carry the OpenCL adapter's SPIR-V
# translation (libdglink_device_code_llvm.so: SPIR-V into PTX for NVIDIA's OpenCL, into
# SPIR for PoCL); DGLINK_PACKAGE_LLVM=0 leaves them out (about 140 MB), and the adapter
# then refuses SPIR-V on devices without IL, saying why.
bundle='libgtest|libgmock|libbenchmark|libspdlog|libfmt|libze_loader|libamdhip64'
if [ "${DGLINK_PACKAGE_LLVM:-1}" != 0 ]; then
  bundle="$bundle|libLLVM-15|libLLVMSPIRVLib|libz3"
else
  rm -f "$out"/lib/libdglink_device_code_llvm.so
fi
for f in "$out"/bin/* "$out"/tests/* "$out"/examples/* "$out"/lib/*.so*; do
  [ -f "$f" ] || continue
  ldd "$f" 2>/dev/null | awk '/=> \//{print $3}' | grep -E "/($bundle)[^/]*$" || true
done | sort -u | while read -r lib; do cp -aL "$lib" "$out/lib/"; done

# Debug info makes the folder ten times larger; DGLINK_PACKAGE_KEEP_DEBUG=1 keeps it.
if [ "${DGLINK_PACKAGE_KEEP_DEBUG:-0}" != 1 ]; then
  find "$out" -type f \( -perm -u+x -o -name '*.so*' \) -exec strip --strip-debug {} + 2>/dev/null || true
fi

# The build tree's own folders in the binaries' run paths (CMake adds the link folders
# of in-tree libraries, e.g. the UR loader's) name this machine and would, on a host where
# the same path exists, load other libraries than the package's: only $ORIGIN-relative
# entries stay (or, where there were none, the package's lib/ relative to the binary).
if command -v patchelf >/dev/null 2>&1; then
  find "$out" -type f \( -perm -u+x -o -name '*.so*' \) -print0 |
    while IFS= read -r -d '' f; do
      old=$(patchelf --print-rpath "$f" 2>/dev/null) || continue
      [ -n "$old" ] || continue
      new=$(tr ':' '\n' <<<"$old" | { grep -E '^\$ORIGIN' || true; } | awk '!seen[$0]++' | paste -sd: -)
      # Only build-tree entries (UR's CTS programs): the package's lib/ instead.
      [ -n "$new" ] || new="\$ORIGIN/$(realpath --relative-to="$(dirname "$f")" "$out/lib")"
      [ "$new" = "$old" ] || patchelf --set-rpath "$new" "$f"
    done
else
  echo "package.sh: patchelf not found (apt-get install patchelf): the binaries keep the build tree's run-path entries" >&2
fi

cp "$root/scripts/run-gpu-host.sh" "$out/run.sh"
chmod +x "$out/run.sh"
# xz, not gzip: with LLVM bundled the folder is about 230 MB, 71 MB as .tar.gz and 44 MB
# as .tar.xz (what a GPU host may be sent in one piece is limited); `tar -xf` reads either.
rm -f "$out.tar.gz"
tar -C "$(dirname "$out")" -cf - "$(basename "$out")" | xz -T0 -6 > "$out.tar.xz"
echo "packaged $(du -sh "$out" | cut -f1) into $out (and $out.tar.xz)"

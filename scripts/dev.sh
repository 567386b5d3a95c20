#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine: install the Debian packages
# dglink needs, configure, build, then run the main job or the test suite.
#   scripts/dev.sh conform [dglink conform options]   run the conformance matrix
#   scripts/dev.sh test                               build with -Werror, run every test,
#                                                     check the install and the Debian
#                                                     packages (scripts/check-install.sh),
#                                                     then the tests again under ASan+UBSan
#   scripts/dev.sh build                              install + configure + build only
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${DGLINK_BUILD_DIR:-$root/build}
jobs=${DGLINK_JOBS:-$(nproc)}

# What `dev.sh conform` needs (the command, its scenarios and device images, every
# adapter), and what only the tests, checks and packages need besides: a fresh machine
# that only runs the main job does not fetch the linters' LLVM 14 and the rest.
packages=(
  build-essential cmake ninja-build pkg-config
  libgtest-dev libgmock-dev libbenchmark-dev
  libspdlog-dev libfmt-dev libcli11-dev nlohmann-json3-dev
  ocl-icd-opencl-dev opencl-headers ocl-icd-libopencl1 pocl-opencl-icd clinfo
  clang-15 llvm-15 llvm-spirv-15 lld-15
  llvm-15-dev libllvmspirvlib-15-dev libze-dev
  libamdhip64-dev libamd-comgr-dev rocm-device-libs
  python3
)
test_packages=(
  dpkg-dev file clang-format-14 clang-tidy-14 googletest llvm-15-tools ccache patchelf
)

install_packages() { # [test]: the test packages too
  local wanted=("${packages[@]}")
  [ "${1:-}" = test ] && wanted+=("${test_packages[@]}")
  local missing=()
  for p in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "dev.sh: missing packages (${missing[*]}); run as root or install them" >&2
    exit 1
  fi
  echo "dev.sh: installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

configure_and_build() { # <build dir> [extra cmake args] (DGLINK_BUILD_TARGET: one target)
  local dir=$1
  shift
  # ccache, when present, makes a rebuild (another worktree, a second run) cheap.
  local launcher=()
  if command -v ccache >/dev/null 2>&1; then
    launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
  fi
  # The Unified Runtime face is always built here: UR from ../shared/third_party
  # (DGLINK_UR_SNAPSHOT), or DGLINK_UR_SOURCE_DIR / an installed UR (docs/ur.md).
  cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DDGLINK_WARNINGS_AS_ERRORS=ON -DDGLINK_REQUIRE_UR=ON "${launcher[@]}" "$@"
  cmake --build "$dir" -j "$jobs" ${DGLINK_BUILD_TARGET:+--target "$DGLINK_BUILD_TARGET"}
}

# PoCL's kernel cache can hand one program another's state (FACTS.md).
export POCL_KERNEL_CACHE=0

cmd=${1:-test}
shift || true
case "$cmd" in
build)
  install_packages test
  configure_and_build "$build"
  ;;
conform)
  install_packages
  # Only what `dglink ls` and `dglink conform` need (the command, its scenarios, the
  # adapters): the first result in minutes. `dev.sh test` builds the rest.
  DGLINK_BUILD_TARGET=dglink_main configure_and_build "$build"
  "$build/bin/dglink" ls
  "$build/bin/dglink" conform "$@"
  ;;
test)
  install_packages test
  bash "$root/scripts/check-format.sh"
  configure_and_build "$build"
  bash "$root/scripts/check-tidy.sh" "$build"
  ctest --test-dir "$build" --output-on-failure -j "$jobs"
  # Installed into a prefix, used by another project, packaged, installed and run.
  bash "$root/scripts/check-install.sh" "$build"
  # Bad input must never crash: the same tests again under the sanitizers.
  # PoCL's own allocations are not ours to police, hence no leak detection.
  # UR's own conformance tests ran above; the UR face itself is tested here too.
  # -O1 with line tables only (what ASan suggests): the instrumented build is compiled
  # for its reports, and full debug information would double its compile time.
  configure_and_build "$build-sanitize" -DDGLINK_SANITIZE=ON -DDGLINK_BUILD_BENCHMARKS=OFF \
    -DDGLINK_UR_BUILD_CTS=OFF -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG"
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir "$build-sanitize" --output-on-failure -j "$jobs"
  ;;
*)
  echo "usage: scripts/dev.sh {conform|test|build}" >&2
  exit 2
  ;;
esac

#!/usr/bin/env bash
# CI's install check (docs/install.md), on a build folder (default build/):
#  1. `cmake --install --strip` into a temporary prefix, then check the tree: the files
#     expected and no others in include/, every header compiling on its own, every
#     RUNPATH relative ($ORIGIN), no file naming the source tree, the build tree or the
#     prefix. Broken copies (a header missing, a library pointing into the build tree)
#     must fail the same check, or the check proves nothing.
#  2. Move the prefix, build examples/consumer against it with find_package(dglink) and
#     run it (devices, a device global written, a kernel run, read back: PoCL in CI),
#     the version file's same-major rule, and a C program built with pkg-config.
#  3. cpack -G DEB: check the packages' files and dependencies; install them
#     (apt-get install ./dglink_*.deb as root), run the installed `dglink --version`,
#     `dglink ls` and `dglink conform`, build the consumer against /usr, remove them.
#     Not root, or DGLINK_CHECK_DEB_INSTALL=0: unpack them instead and run from there.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/dglink-check-install.XXXXXX")
installed_debs=0
cleanup() {
  if [ "$installed_debs" = 1 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq dglink-dev dglink >/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

export POCL_KERNEL_CACHE=0
# What is installed must work without any of these.
clean_env=(env -u DGLINK_ADAPTER_PATH -u DGLINK_ADAPTERS -u LD_LIBRARY_PATH)

step() { echo "check-install: $*"; }
fail() {
  echo "check-install: FAILED: $*" >&2
  exit 1
}
seconds() { echo "$((SECONDS - $1)) s"; }

# The public headers, exactly (cmake/DglinkInstall.cmake installs them).
expected_headers=(
  dglink/compiler/bundle.h
  dglink/device_global.h
  dglink/dispatch.h
  dglink/pi.h
  dglink/runtime.h
  dglink/symbol.h
  dglink/support/api.h
  dglink/support/image.h
  dglink/version.h
  dglink/virtual_functions.h
)
c_headers=(dglink/device_global.h dglink/dispatch.h dglink/pi.h dglink/version.h dglink/virtual_functions.h)

soname_of() { readelf -d "$1" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p'; }
is_elf() { [ -f "$1" ] && [ ! -L "$1" ] && [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ]; }

pi_soname=$(soname_of "$build/lib/libdglink_pi.so")
major=${pi_soname##*.so.}
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
[ -n "$major" ] && [ -n "$version" ] || fail "no SONAME or project version in $build"

# Prints every problem of the installed tree $1 and returns 1 if there is one.
check_tree() {
  local prefix=$1 problems=0 libdir file header name entry
  problem() {
    echo "  $*" >&2
    problems=1
  }
  file=$(find "$prefix" -name "$pi_soname" -print -quit)
  [ -n "$file" ] || {
    echo "  no $pi_soname anywhere under the prefix" >&2
    return 1
  }
  libdir=$(dirname "$file")
  for name in dglink_pi dglink_runtime dglink_support; do
    file=$libdir/lib$name.so.$major
    if [ ! -e "$file" ]; then
      problem "missing: ${file#"$prefix"/}"
    elif [ "$(soname_of "$file")" != "lib$name.so.$major" ]; then
      problem "${file#"$prefix"/}: SONAME is '$(soname_of "$file")', not lib$name.so.$major"
    elif [ "$(readlink -f "$file")" != "$(readlink -f "$libdir/lib$name.so.$version")" ]; then
      problem "${file#"$prefix"/} does not name lib$name.so.$version"
    fi
    [ -L "$libdir/lib$name.so" ] || problem "missing: the link ${libdir#"$prefix"/}/lib$name.so"
  done
  [ -f "$libdir/libdglink_bundle.a" ] || problem "missing: ${libdir#"$prefix"/}/libdglink_bundle.a"
  # Every adapter the build made, by its SONAME, and no link-time name for any.
  for file in "$build"/lib/libdglink_adapter_*.so."$major"; do
    name=$(basename "$file")
    [ -e "$libdir/$name" ] || problem "missing adapter: ${libdir#"$prefix"/}/$name"
  done
  for file in "$libdir"/libdglink_adapter_*.so; do
    [ -e "$file" ] && problem "an adapter link-time name is installed: ${file#"$prefix"/}"
  done
  for file in bin/dglink share/doc/dglink/README.md share/doc/dglink/docs/install.md; do
    [ -e "$prefix/$file" ] || problem "missing: $file"
  done
  if [ -e "$build/bin/dglink-post-link" ] && [ ! -e "$prefix/bin/dglink-post-link" ]; then
    problem "missing: bin/dglink-post-link"
  fi
  for file in cmake/dglink/dglinkConfig.cmake cmake/dglink/dglinkConfigVersion.cmake \
    cmake/dglink/dglinkTargets.cmake pkgconfig/dglink.pc pkgconfig/dglink-runtime.pc; do
    [ -e "$libdir/$file" ] || problem "missing: ${libdir#"$prefix"/}/$file"
  done

  # The public headers and no others; each compiles on its own (C++17, and C for the
  # C ones), so none includes a header that was not installed.
  local found
  found=$(cd "$prefix/include" 2>/dev/null && find . -type f | sed 's|^\./||' | sort)
  while IFS= read -r header; do
    grep -qxF "$header" <<<"$found" || problem "missing header: include/$header"
  done < <(printf '%s\n' "${expected_headers[@]}")
  while IFS= read -r header; do
    [ -z "$header" ] && continue
    printf '%s\n' "${expected_headers[@]}" | grep -qxF "$header" ||
      problem "not a public header, but installed: include/$header"
  done <<<"$found"
  for header in $found; do
    echo "#include <$header>" | c++ -std=c++17 -Wall -Wextra -Werror -fsyntax-only -x c++ \
      -I "$prefix/include" - 2>&1 | sed "s|^|  $header (C++): |" >&2
    [ "${PIPESTATUS[1]}" = 0 ] || problem "include/$header does not compile on its own (C++)"
  done
  for header in "${c_headers[@]}"; do
    [ -e "$prefix/include/$header" ] || continue
    echo "#include <$header>" | cc -std=c11 -Wall -Wextra -Werror -fsyntax-only -x c \
      -I "$prefix/include" - 2>&1 | sed "s|^|  $header (C): |" >&2
    [ "${PIPESTATUS[1]}" = 0 ] || problem "include/$header does not compile on its own (C)"
  done

  # Libraries and programs find each other relative to themselves, nothing else.
  while IFS= read -r file; do
    is_elf "$file" || continue
    while IFS= read -r entry; do
      # shellcheck disable=SC2016 # the literal $ORIGIN the dynamic loader expands
      case "$entry" in
      '$ORIGIN' | '$ORIGIN/'*) ;;
      *) problem "${file#"$prefix"/}: RUNPATH entry '$entry' is not relative to \$ORIGIN" ;;
      esac
    done < <(readelf -d "$file" | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]/\2/p' | tr ':' '\n')
    if readelf -d "$file" | grep '(NEEDED)' | grep -q '\[.*/'; then
      problem "${file#"$prefix"/}: a NEEDED entry is a path"
    fi
  done < <(find "$prefix" -type f)
  # No file names the source tree, the build tree or where it was installed.
  for entry in "$root" "$build" "$prefix"; do
    while IFS= read -r file; do
      problem "${file#"$prefix"/} names $entry"
    done < <(grep -rlF --binary-files=text -e "$entry" "$prefix" || true)
  done
  return $problems
}

# ---- 1. the installed tree ----
start=$SECONDS
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" --strip >"$work/install.log" ||
  fail "cmake --install (log: $(cat "$work/install.log"))"
check_tree "$prefix" || fail "the installed tree (above)"
step "installed tree checked: $(find "$prefix" -type f | wc -l) files, $(du -sh "$prefix" | cut -f1)"
libdir_rel=$(dirname "$(find "$prefix" -name "$pi_soname" -print -quit)")
libdir_rel=${libdir_rel#"$prefix"/}

# The check must catch what it is there for.
cp -a "$prefix" "$work/no-header"
rm "$work/no-header/include/dglink/runtime.h"
if check_tree "$work/no-header" 2>"$work/no-header.log"; then
  fail "the check passed a tree without include/dglink/runtime.h"
fi
grep -q "missing header: include/dglink/runtime.h" "$work/no-header.log" ||
  fail "the check did not name the missing header: $(cat "$work/no-header.log")"
cp -a "$prefix" "$work/build-rpath"
echo 'int dglinkProbe(void) { return 1; }' |
  cc -shared -fPIC -x c - -o "$work/build-rpath/$libdir_rel/libdglink_probe.so" -Wl,-rpath,"$build/lib"
if check_tree "$work/build-rpath" 2>"$work/build-rpath.log"; then
  fail "the check passed a library whose RUNPATH is the build tree"
fi
grep -q "libdglink_probe.so: RUNPATH entry '$build/lib'" "$work/build-rpath.log" ||
  fail "the check did not name the library pointing into the build tree: $(cat "$work/build-rpath.log")"
rm -rf "$work/no-header" "$work/build-rpath"
step "the check fails a tree missing a header and one with a library pointing into the build tree"

# ---- 2. a project that uses the installed tree, after it moved ----
moved=$work/moved
mv "$prefix" "$moved"
consumer_flags=(-G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS=-Wall -Wextra -Werror")
cmake -S "$root/examples/consumer" -B "$work/consumer" "${consumer_flags[@]}" \
  -DCMAKE_PREFIX_PATH="$moved" >"$work/consumer.log" 2>&1 ||
  fail "configuring examples/consumer with find_package(dglink): $(cat "$work/consumer.log")"
cmake --build "$work/consumer" >>"$work/consumer.log" 2>&1 ||
  fail "building examples/consumer: $(cat "$work/consumer.log")"
"${clean_env[@]}" "$work/consumer/dglink_consumer" | tee "$work/consumer.out" ||
  fail "examples/consumer failed against the installed tree"

# The version file: the same major version is found, another major is not.
mkdir -p "$work/version-probe"
cat >"$work/version-probe/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.20)
project(dglink_version_probe LANGUAGES CXX)
find_package(dglink $major.0 CONFIG REQUIRED)
find_package(dglink $((major + 1)) CONFIG QUIET)
if(dglink_FOUND)
  message(FATAL_ERROR "find_package(dglink $((major + 1))) accepted dglink \${dglink_VERSION}")
endif()
EOF
cmake -S "$work/version-probe" -B "$work/version-probe/build" -DCMAKE_PREFIX_PATH="$moved" \
  >"$work/version-probe.log" 2>&1 || fail "the package's version file: $(cat "$work/version-probe.log")"

# pkg-config, from C.
export PKG_CONFIG_PATH=$moved/$libdir_rel/pkgconfig
[ "$(pkg-config --modversion dglink-runtime)" = "$version" ] ||
  fail "pkg-config --modversion dglink-runtime is not $version"
# shellcheck disable=SC2046 # pkg-config's output is a list of flags
cc -std=c11 -Wall -Wextra -Werror "$root/examples/consumer/pkg_config.c" -o "$work/pkg_config" \
  $(pkg-config --cflags --libs dglink) -Wl,-rpath,"$moved/$libdir_rel" ||
  fail "building a C program with pkg-config --cflags --libs dglink"
"${clean_env[@]}" "$work/pkg_config" || fail "the pkg-config program found no platform"
unset PKG_CONFIG_PATH
step "prefix install, consumer (find_package), version rule and pkg-config: $(seconds "$start")"

# ---- 3. the Debian packages ----
start=$SECONDS
(cd "$build" && cpack -G DEB -B "$work/deb" >"$work/cpack.log" 2>&1) ||
  fail "cpack -G DEB: $(cat "$work/cpack.log")"
deb=$(find "$work/deb" -maxdepth 1 -name "dglink_${version}_*.deb" -print -quit)
dev_deb=$(find "$work/deb" -maxdepth 1 -name "dglink-dev_${version}_*.deb" -print -quit)
[ -n "$deb" ] && [ -n "$dev_deb" ] || fail "cpack made no dglink and dglink-dev packages: $(ls "$work/deb")"
for package in "$deb" "$dev_deb"; do
  step "$(basename "$package"): $(du -k "$package" | cut -f1) KiB, installed $(dpkg-deb -f "$package" Installed-Size) KiB"
  step "  Depends: $(dpkg-deb -f "$package" Depends)"
done
depends=$(dpkg-deb -f "$deb" Depends)
for needed in libze1 ocl-icd-libopencl1 libllvm15 libllvmspirvlib15 libstdc++6 libc6; do
  tr ',|' '\n\n' <<<"$depends" | awk '{print $1}' | grep -qxF "$needed" ||
    fail "dglink's Depends lacks $needed: $depends"
done
if grep -qiE 'cuda|nvidia|hip|rocm|amd' <<<"$depends"; then
  fail "dglink depends on CUDA or HIP, which must stay optional: $depends"
fi
grep -q "^dglink (= $version" <<<"$(dpkg-deb -f "$dev_deb" Depends)" ||
  fail "dglink-dev does not depend on dglink (= $version)"
files=$(dpkg-deb -c "$deb")
dev_files=$(dpkg-deb -c "$dev_deb")
grep -q "/libdglink_pi.so.$major -> " <<<"$files" || fail "dglink lacks libdglink_pi.so.$major"
others=$(awk '$1 !~ /^d/ && /\/include\//' <<<"$files" | grep -v -e '/include/dglink/device_global.h$' -e '/include/dglink/virtual_functions.h$' || true)
[ -z "$others" ] || fail "dglink holds headers other than dglink/device_global.h and dglink/virtual_functions.h: $others"
grep -q "/include/dglink/pi.h$" <<<"$dev_files" || fail "dglink-dev lacks include/dglink/pi.h"
grep -q "/cmake/dglink/dglinkConfig.cmake$" <<<"$dev_files" || fail "dglink-dev lacks the CMake package"

if [ "$(id -u)" = 0 ] && [ "${DGLINK_CHECK_DEB_INSTALL:-1}" = 1 ]; then
  dpkg-query -W dglink >/dev/null 2>&1 && fail "a dglink package is installed already: remove it first"
  installed_debs=1
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$deb" "$dev_deb" \
    >"$work/apt.log" 2>&1 || fail "apt-get install of the packages: $(cat "$work/apt.log")"
  debroot=
  how=installed
  step "installed with apt-get: $(dpkg-query -W dglink dglink-dev | tr '\t\n' ' ')"
else
  debroot=$work/debroot
  dpkg-deb -x "$deb" "$debroot"
  dpkg-deb -x "$dev_deb" "$debroot"
  how=unpacked
  step "not root (or DGLINK_CHECK_DEB_INSTALL=0): packages unpacked into a folder, not installed"
fi
dglink=$debroot/usr/bin/dglink
(cd / && "${clean_env[@]}" "$dglink" --version) | tee "$work/version.out"
grep -q "^dglink $version (source revision " "$work/version.out" || fail "dglink --version"
grep -qE "^  opencl +$version  PI [0-9.]+  driver: " "$work/version.out" ||
  fail "dglink --version shows no OpenCL adapter with its driver"
(cd / && "${clean_env[@]}" "$dglink" ls) >"$work/ls.out" || fail "dglink ls: $(cat "$work/ls.out")"
grep -qE "^  opencl +loaded, [1-9]" "$work/ls.out" ||
  fail "the installed dglink ls loaded no OpenCL platform: $(cat "$work/ls.out")"
(cd / && "${clean_env[@]}" "$dglink" conform) >"$work/conform.out" 2>&1 ||
  fail "the installed dglink conform: $(tail -40 "$work/conform.out")"
tail -4 "$work/conform.out"
# The summary adds up: tests = per device + not per device.
total=$(sed -n 's/^PASSED \([0-9]*\) tests .*/\1/p' "$work/conform.out")
per_device=$(sed -n 's/^  per device (.*): \([0-9]*\) tests\{0,1\}: .*/\1/p' "$work/conform.out")
once=$(sed -n 's/^  not per device (.*): \([0-9]*\) tests\{0,1\}: .*/\1/p' "$work/conform.out")
[ -n "$total" ] && [ -n "$per_device" ] && [ -n "$once" ] && [ $((per_device + once)) = "$total" ] ||
  fail "dglink conform's summary does not add up ($total tests, $per_device per device, $once not)"
if [ -z "$debroot" ]; then
  cmake -S "$root/examples/consumer" -B "$work/consumer-system" "${consumer_flags[@]}" \
    >"$work/consumer-system.log" 2>&1 && cmake --build "$work/consumer-system" \
    >>"$work/consumer-system.log" 2>&1 ||
    fail "building examples/consumer against the installed packages: $(cat "$work/consumer-system.log")"
  "${clean_env[@]}" "$work/consumer-system/dglink_consumer" >"$work/consumer-system.out" ||
    fail "examples/consumer against the installed packages: $(cat "$work/consumer-system.out")"
  tail -1 "$work/consumer-system.out"
  DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq dglink-dev dglink >/dev/null
  installed_debs=0
  step "packages removed"
fi
step "Debian packages built, checked, $how and run: $(seconds "$start")"

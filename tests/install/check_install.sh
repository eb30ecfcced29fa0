#!/usr/bin/env bash
# check_install.sh - CTest "install_consumers": install the build into a fresh prefix and prove
# that outside programs built against it load *that* libpmix.so.2, with no LD_LIBRARY_PATH.
#
#   1. cmake --install <build> --prefix <fresh temp dir>
#   2. a C consumer built with `pkg-config --cflags --libs pmix`, where pkg-config can see only
#      the prefix (Debian's libpmix-dev ships its own pmix.pc in the default search path, and its
#      libpmix.so.2 sits in the default linker path: either would make the test lie)
#   3. the same consumer built by a CMake project with find_package(pmix) + PMIx::pmix
#   4. both run with LD_LIBRARY_PATH/LD_PRELOAD removed, from two working directories; each
#      checks with dladdr() that the library it loaded is <prefix>/<libdir>/libpmix.so.2
#   5. the installed pmix-selfcheck resolves the same library (through its $ORIGIN rpath)
#   6. the installed pmixrun runs the installed putget example (both resolve that library)
# Any failure prints the pkg-config output, the pc file, readelf -d, ldd and the loader's trace.
#
# Why these precautions: the rpath baked into pmix.pc must be the prefix the files land in
# (`--prefix` at install time, not the configure-time prefix), and with --enable-new-dtags (the
# Debian default) it becomes a RUNPATH, which LD_LIBRARY_PATH overrides - so the environment
# the test runs in must not carry one. Paths are compared after realpath(): the prefix may sit
# behind a symlink, and CI runs from a different checkout path than developers.
set -uo pipefail

usage() {
  echo "usage: $0 --build DIR --source DIR --scratch DIR --libdir REL --includedir REL" \
       "--cmake EXE --cc EXE --generator NAME [--skip REASON]" >&2
  exit 2
}
build='' source='' scratch='' libdir='' includedir='' cmake_exe='' cc='' generator='' skip=''
while (($#)); do
  case $1 in
    --build) build=$2 ;; --source) source=$2 ;; --scratch) scratch=$2 ;;
    --libdir) libdir=$2 ;; --includedir) includedir=$2 ;;
    --cmake) cmake_exe=$2 ;; --cc) cc=$2 ;; --generator) generator=$2 ;; --skip) skip=$2 ;;
    *) usage ;;
  esac
  shift 2 || usage
done
[[ -n $build && -n $source && -n $scratch && -n $libdir && -n $includedir && -n $cmake_exe &&
   -n $cc && -n $generator ]] || usage

if [[ -n $skip ]]; then
  echo "SKIP: $skip"
  exit 77
fi
if [[ $libdir == /* || $includedir == /* ]]; then
  # An absolute install dir ignores --prefix: the test would install into the system.
  echo "SKIP: CMAKE_INSTALL_LIBDIR/INCLUDEDIR is absolute ($libdir, $includedir);" \
       "cannot install into a scratch prefix"
  exit 77
fi
for tool in pkg-config readelf ldd; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool is not installed"; exit 1; }
done

# A clean environment: nothing may steer the linker or loader towards another libpmix.
unset LD_LIBRARY_PATH LD_PRELOAD DESTDIR CMAKE_PREFIX_PATH pmix_DIR PKG_CONFIG_SYSROOT_DIR \
      PKG_CONFIG_ALLOW_SYSTEM_CFLAGS PKG_CONFIG_ALLOW_SYSTEM_LIBS CFLAGS LDFLAGS CPPFLAGS \
      LIBRARY_PATH CPATH C_INCLUDE_PATH

# A fresh prefix for every run, under the build tree rather than /tmp: consumers are executed
# from it, and /tmp may be mounted noexec on CI machines.
mkdir -p "$scratch" || exit 1
work=$(mktemp -d "$(cd "$scratch" && pwd)/install-test.XXXXXX") || exit 1
prefix=$work/prefix
failed=0
cleanup() {  # shellcheck disable=SC2317  # invoked by the EXIT trap
  if ((failed)); then
    echo "(scratch directory kept for inspection: $work)"
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT

step() { echo; echo "=== $*"; }
fail() { echo "FAIL: $*"; failed=1; }

step "install $build into $prefix"
if ! "$cmake_exe" --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1; then
  cat "$work/install.log"
  fail "cmake --install failed"
  exit 1
fi
grep -c "Installing:\|Up-to-date:" "$work/install.log" | sed 's/^/files installed: /'

expected_lib=$prefix/$libdir/libpmix.so.2
pcdir=$prefix/$libdir/pkgconfig
for f in "$expected_lib" "$pcdir/pmix.pc" "$prefix/$libdir/cmake/pmix/pmixConfig.cmake" \
         "$prefix/$includedir/pmix.h"; do
  [[ -e $f ]] || fail "not installed: $f"
done
((failed)) && { find "$prefix" | sort; exit 1; }
expected_real=$(readlink -f "$expected_lib")
echo "expected library: $expected_lib -> $expected_real"

# Everything useful for understanding why a consumer loaded something else.
diagnose() {
  local exe=$1
  echo "--- pmix.pc ($pcdir/pmix.pc):"; cat "$pcdir/pmix.pc"
  echo "--- pkg-config --cflags --libs pmix:"; pkg-config --cflags --libs pmix
  echo "--- pkg-config --path pmix: $(pkg-config --path pmix 2>&1)"
  if [[ -f $exe ]]; then
    echo "--- readelf -d $exe:"; readelf -d "$exe" | grep -E 'NEEDED|RPATH|RUNPATH'
    echo "--- ldd $exe:"; env -u LD_LIBRARY_PATH ldd "$exe"
    echo "--- loader search for libpmix (LD_DEBUG=libs):"
    (cd / && env -u LD_LIBRARY_PATH LD_DEBUG=libs "$exe" "$expected_lib" 2>&1 |
       grep -E 'libpmix|search path|trying file' | head -20)
  fi
  echo "--- installed files:"; find "$prefix/$libdir" -maxdepth 1 | sort
}

# Run a consumer from two directories; it checks the loaded library itself (dladdr).
run_consumer() {
  local label=$1 exe=$2 dir out
  for dir in / "$work"; do
    if out=$(cd "$dir" && env -u LD_LIBRARY_PATH -u LD_PRELOAD "$exe" "$expected_lib" 2>&1); then
      echo "$label (cwd $dir): $(grep '^loaded:' <<<"$out")"
    else
      echo "$out"
      fail "$label consumer did not load our library (cwd $dir)"
      diagnose "$exe"
      return
    fi
  done
  if ! readelf -d "$exe" | grep -E 'RPATH|RUNPATH' | grep -qF "$prefix/$libdir"; then
    fail "$label consumer carries no rpath/runpath to $prefix/$libdir"
    diagnose "$exe"
  fi
}

step "pkg-config consumer"
# PKG_CONFIG_LIBDIR replaces the default search path; PKG_CONFIG_PATH alone would only prepend.
export PKG_CONFIG_LIBDIR=$pcdir PKG_CONFIG_PATH=$pcdir
pc_file=$(pkg-config --path pmix 2>/dev/null)
pc_flags=$(pkg-config --cflags --libs pmix 2>&1)
echo "pkg-config --path pmix: $pc_file"
echo "pkg-config --cflags --libs pmix: $pc_flags"
echo "pkg-config --modversion pmix: $(pkg-config --modversion pmix 2>&1)"
if [[ $(readlink -f "$pc_file") != $(readlink -f "$pcdir/pmix.pc") ]]; then
  fail "pkg-config did not find the installed pmix.pc"
fi
if [[ $(pkg-config --variable=libdir pmix) != "$prefix/$libdir" ]]; then
  fail "pmix.pc libdir is $(pkg-config --variable=libdir pmix), expected $prefix/$libdir"
fi
if [[ $pc_flags != *"-Wl,-rpath,$prefix/$libdir"* ]]; then
  fail "pmix.pc Libs lack -Wl,-rpath,$prefix/$libdir"
fi
# shellcheck disable=SC2086  # the flags are meant to split into words
if "$cc" -o "$work/consumer_pc" "$source/consumer.c" $pc_flags -ldl >"$work/cc.log" 2>&1; then
  run_consumer "pkg-config" "$work/consumer_pc"
else
  cat "$work/cc.log"
  fail "building the pkg-config consumer failed"
  diagnose "$work/consumer_pc"
fi
unset PKG_CONFIG_LIBDIR PKG_CONFIG_PATH

step "CMake find_package consumer"
if "$cmake_exe" -S "$source/consumer_cmake" -B "$work/cmake-build" -G "$generator" \
       -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
       -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
       -DCONSUMER_SOURCE="$source/consumer.c" >"$work/cmake.log" 2>&1 &&
   "$cmake_exe" --build "$work/cmake-build" >>"$work/cmake.log" 2>&1; then
  grep -E 'pmix_DIR=|pmix_VERSION=' "$work/cmake.log" | sed 's/^-- //'
  found_dir=$(sed -n 's/^-- pmix_DIR=//p' "$work/cmake.log")
  if [[ $(readlink -f "$found_dir") != $(readlink -f "$prefix/$libdir/cmake/pmix") ]]; then
    fail "find_package(pmix) found $found_dir, not the installed package"
  fi
  run_consumer "CMake" "$work/cmake-build/consumer_cmake"
else
  cat "$work/cmake.log"
  fail "configuring/building the CMake consumer failed"
fi

step "installed pmix-selfcheck"
selfcheck=$prefix/bin/pmix-selfcheck
if [[ -x $selfcheck ]]; then
  resolved=$(cd / && env -u LD_LIBRARY_PATH ldd "$selfcheck" |
             awk '$1 == "libpmix.so.2" {print $3}')
  echo "pmix-selfcheck resolves libpmix.so.2 to: ${resolved:-nothing}"
  if [[ -z $resolved || $(readlink -f "$resolved") != "$expected_real" ]]; then
    fail "installed pmix-selfcheck does not resolve the installed library"
    diagnose "$selfcheck"
  fi
else
  echo "(not installed: examples/ absent)"
fi

step "installed pmixrun running an installed example"
pmixrun_bin=$prefix/bin/pmixrun
putget_bin=$prefix/share/pmix_cpp/examples/putget
if [[ -x $pmixrun_bin && -x $putget_bin ]]; then
  for exe in "$pmixrun_bin" "$putget_bin"; do
    resolved=$(cd / && env -u LD_LIBRARY_PATH ldd "$exe" | awk '$1 == "libpmix.so.2" {print $3}')
    echo "$(basename "$exe") resolves libpmix.so.2 to: ${resolved:-nothing}"
    if [[ -z $resolved || $(readlink -f "$resolved") != "$expected_real" ]]; then
      fail "installed $(basename "$exe") does not resolve the installed library"
      diagnose "$exe"
    fi
  done
  if out=$(cd / && env -u LD_LIBRARY_PATH TMPDIR="$work" timeout -s KILL 60 "$pmixrun_bin" -n 2 "$putget_bin" 2>&1); then
    echo "$out"
    [[ $(grep -c "putget: rank [01] checked 2 keys of 2/2 ranks" <<<"$out") -eq 2 ]] ||
      fail "installed pmixrun/putget did not report both ranks"
  else
    echo "$out"
    fail "installed pmixrun -n 2 putget failed"
  fi
  [[ -f $prefix/share/pmix_cpp/examples/putget.c ]] || fail "example sources not installed"
else
  echo "(not installed: launcher/ or examples/ absent)"
fi

echo
if ((failed)); then
  echo "install_consumers: FAILED"
  exit 1
fi
echo "install_consumers: both consumers, pmix-selfcheck, pmixrun and putget load $expected_real"
exit 0

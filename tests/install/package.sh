#!/usr/bin/env bash
# package.sh - CTest "install_package" (labels install;package): the Debian package libpmix2-cpp
# (cmake/package.cmake) installed and removed in a throwaway root, never on this machine's system.
#
#   1. cpack -G DEB the build; its libpmix.so.2.6.2 is the reference for "ours", and the system's
#      libpmix2 file (checked against dpkg's md5sums) the reference for "Debian's"
#   2. a private mount and PID namespace (unshare); in it an overlay whose lower layer is / and
#      whose upper layer is a tmpfs, with its own /proc, /dev/shm and /sys read-only; everything
#      below runs chrooted in it, with an empty environment (no LD_LIBRARY_PATH)
#   3. before: an Open MPI hello under mpirun, `import pmix` (python3-pmix) and the path Slurm's
#      mpi/pmix plugin dlopen()s all map Debian's library; where slurm-wlm is installed, also the
#      same hello under `srun --mpi=pmix` of a one-node cluster in the root (slurm_node.sh), whose
#      slurmstepd is the ranks' PMIx server
#   4. dpkg -i: libpmix2, libopenmpi3 and python3-pmix stay installed (apt-get check, dpkg --audit);
#      Debian's file is diverted; the same now map ours (mpirun or slurmstepd, and each rank)
#   5. dpkg -i again (an upgrade): nothing changes
#   6. dpkg -r: the diversion is gone, Debian's file is back byte for byte (sha256, dpkg --verify),
#      and the same map Debian's again
# "Which library" is decided by comparing the bytes of the mapped file with each reference
# (loaded_libpmix.c / .py): after installation both have the same path.
# Leaving the namespace unmounts everything in it and kills whatever is left there; the upper layer
# lives on a tmpfs, so nothing of the installation reaches the disk.
set -uo pipefail

usage() {
  echo "usage: $0 --build DIR --scratch DIR --cpack EXE --mpi-program EXE --python-check FILE" >&2
  exit 2
}
build='' scratch='' cpack_exe='' mpi_program='' python_check='' inside=''
while (($#)); do
  case $1 in
    --build) build=$2 ;; --scratch) scratch=$2 ;; --cpack) cpack_exe=$2 ;;
    --mpi-program) mpi_program=$2 ;; --python-check) python_check=$2 ;;
    --inside) inside=$2 ;;  # internal: the work directory, when re-run inside the namespace
    *) usage ;;
  esac
  shift 2 || usage
done

multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
libdir=/usr/lib/$multiarch/pmix2/lib
debian_file=$libdir/libpmix.so.2.6.2 # libpmix2's one real file; every libpmix.so* links to it
package=libpmix2-cpp
failed=0
step() { echo; echo "=== $*"; }
fail() { echo "FAIL: $*"; failed=1; }

# ---- inside the namespace ------------------------------------------------------------------------
if [[ -n $inside ]]; then
  work=$inside
  root=$work/ns/merged
  # shellcheck disable=SC2317  # invoked by the EXIT trap
  cleanup_inside() {
    umount -R "$root" 2>/dev/null
    umount -R "$work/ns" 2>/dev/null
  }
  trap cleanup_inside EXIT
  mkdir -p "$work/ns" || exit 1
  if ! { mount -t tmpfs -o size=512m pkgtest "$work/ns" && mkdir "$work/ns"/{upper,work,merged} &&
         mount -t overlay pkgtest \
           -o "lowerdir=/,upperdir=$work/ns/upper,workdir=$work/ns/work" "$root" &&
         mount -t proc proc "$root/proc" &&
         mount --rbind /dev "$root/dev" && mount -t tmpfs tmpfs "$root/dev/shm" &&
         mount --rbind /sys "$root/sys"; }; then
    echo "FAIL: cannot build the throwaway root"
    exit 1
  fi
  # /sys read-only with everything mounted below it (slurmd wants to see the cgroup file systems).
  findmnt -R -n -l -o TARGET "$root/sys" | while read -r m; do mount -o remount,bind,ro "$m"; done
  # dpkg runs only in a root that is this overlay; anything else would be the real system.
  if [[ $(findmnt -n -o FSTYPE "$root") != overlay ||
        $(stat -c %d "$root") == $(stat -c %d /) ]]; then
    echo "FAIL: $root is not the overlay; refusing to run dpkg"
    exit 1
  fi
  echo "throwaway root: $(findmnt -n -o SOURCE,FSTYPE,OPTIONS "$root")"
  in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@"; }
  t=/tmp/pkgtest  # inside the root, staged by the caller in the upper layer
  mkdir -p "$root$t" && cp "$work"/stage/* "$root$t/" || exit 1

  # job WANT LABEL LAUNCHER...: an Open MPI hello of 2 ranks started by LAUNCHER (mpirun, or srun
  # whose slurmstepd is the ranks' PMIx server); each rank and its server must map WANT.
  job() {
    local want=$1 label=$2 out rc
    shift 2
    echo "--- $label"
    out=$("$@" "$t/loaded_libpmix" "$t/ours.so" "$t/debian.so" 2>&1)
    rc=$?
    echo "$out" | sort
    ((rc == 0)) || { fail "$label exited with $rc"; return; }
    [[ $(grep -c "^hello from [01] of 2, sum 1$" <<<"$out") -eq 2 ]] || fail "the hello did not run"
    [[ $(grep -cE "^rank [01]( server)?: .* is $want$" <<<"$out") -eq 4 ]] ||
      fail "not every rank and server mapped $want's library under $label"
  }
  # pycheck HOW WANT: python3-pmix ("import") or Slurm's plugin path (a file) must map WANT.
  pycheck() {
    local out
    out=$(in_root timeout -s KILL 30 /usr/bin/python3 -W ignore "$t/loaded_libpmix.py" "$1" \
            "$t/ours.so" "$t/debian.so" 2>&1)
    echo "$out"
    grep -q "^$1: .* is $2$" <<<"$out" || fail "$1 did not map $2's library"
  }
  # The path Slurm 22.05's mpi/pmix plugin dlopen()s: its PMIXP_V4_LIBPATH + "libpmix.so" (Debian
  # builds in pmix2/lib; newer Debian patches make the name libpmix.so.2).
  slurm_plugin=/usr/lib/$multiarch/slurm-wlm/mpi_pmix_v4.so
  slurm_path=''
  if [[ -f $slurm_plugin ]]; then
    slurm_dir=$(strings "$slurm_plugin" | grep -m1 -x '/.*/pmix2/lib')
    slurm_name=libpmix.so
    strings "$slurm_plugin" | grep -qx 'libpmix\.so\.2' && slurm_name=libpmix.so.2
    slurm_path=$slurm_dir/$slurm_name
  fi
  # With slurmd, slurmctld, munged and srun installed too: a one-node cluster in this root.
  slurm_up=0
  if [[ -n $slurm_path && -e $root$slurm_path ]] &&
     command -v slurmd slurmctld munged srun sinfo nsenter >/dev/null; then
    # shellcheck source=tests/install/slurm_node.sh
    source "$(dirname "$0")/slurm_node.sh"
    step "a one-node Slurm cluster in the throwaway root"
    if slurm_node_start; then
      slurm_up=1
      echo "node n0 idle"
    else
      fail "the one-node Slurm cluster did not start"
    fi
  fi
  three_loaders() {
    job "$1" "mpirun -np 2 (the ranks' server: mpirun)" \
      in_root timeout -s KILL 60 mpirun --allow-run-as-root --oversubscribe -np 2
    if ((slurm_up)); then
      job "$1" "srun --mpi=pmix -n 2 (the ranks' server: slurmstepd)" \
        in_slurm timeout -s KILL 60 srun --mpi=pmix -n 2
    fi
    pycheck import "$1"
    if [[ -z $slurm_path ]]; then
      echo "(slurm-wlm's mpi/pmix plugin not installed: its path is not checked)"
    elif [[ ! -e $root$slurm_path ]]; then
      echo "(Slurm's plugin dlopen()s $slurm_path, which is missing: libpmix-dev not installed)"
    else
      pycheck "$slurm_path" "$1"
    fi
  }
  # shellcheck disable=SC2016  # dpkg-query's format, not the shell's
  installed() {
    in_root dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
  }
  consistent() {
    local p audit
    for p in libpmix2 libopenmpi3 python3-pmix; do
      installed "$p" || fail "$p is not installed any more"
    done
    audit=$(in_root dpkg --audit 2>&1)
    [[ -z $audit ]] || { echo "$audit"; fail "dpkg --audit reports broken packages"; }
    in_root apt-get check -qq >/dev/null 2>&1 || fail "apt-get check: unmet dependencies"
  }

  # shellcheck disable=SC2016  # dpkg-query's format, not the shell's
  step "before: Debian's libpmix2 $(in_root dpkg-query -W -f='${Version}' libpmix2)"
  sha_before=$(sha256sum <"$root$debian_file")
  echo "sha256 $debian_file: ${sha_before%% *}"
  three_loaders debian

  step "dpkg -i $(basename "$work"/stage/*.deb)"
  in_root dpkg -i "$t/$(basename "$work"/stage/*.deb)" || fail "dpkg -i failed"
  installed "$package" || fail "$package is not installed"
  in_root dpkg-divert --list "$debian_file"
  consistent
  [[ $(sha256sum <"$root$debian_file") == $(sha256sum <"$work/stage/ours.so") ]] ||
    fail "$debian_file is not our library"
  [[ $(sha256sum <"$root$debian_file.openpmix") == "$sha_before" ]] ||
    fail "Debian's library was not diverted intact to $debian_file.openpmix"
  for lib in "$root/usr/lib/$multiarch/openmpi/lib/openmpi3/mca_pmix_ext3x.so" \
             "$root/usr/lib/python3/dist-packages/pmix.cpython-"*"-$multiarch.so"; do
    lib=${lib#"$root"}
    resolved=$(in_root ldd "$lib" | awk '$1 == "libpmix.so.2" {print $3}')
    echo "ldd $lib: libpmix.so.2 => $resolved -> $(in_root readlink -f "$resolved")"
  done
  three_loaders ours
  in_root timeout -s KILL 30 /usr/bin/python3 -W ignore "$t/loaded_libpmix.py" import \
    "$t/ours.so" "$t/debian.so" | grep -q "PMIx_Get_version: PMIx-C++" ||
    fail "python3-pmix's library does not call itself PMIx-C++"

  step "dpkg -i again (the preinst's upgrade path): still one diversion, still ours"
  in_root dpkg -i "$t/$(basename "$work"/stage/*.deb)" >/dev/null || fail "reinstalling failed"
  [[ $(in_root dpkg-divert --list | grep -c "libpmix") -eq 1 ]] || fail "not exactly one diversion"
  if [[ $(sha256sum <"$root$debian_file") == $(sha256sum <"$work/stage/ours.so") &&
        $(sha256sum <"$root$debian_file.openpmix") == "$sha_before" ]]; then
    echo "ours at $debian_file, Debian's at $debian_file.openpmix"
  else
    fail "reinstalling changed the files"
  fi

  step "dpkg -r $package"
  in_root dpkg -r "$package" || fail "dpkg -r failed"
  installed "$package" && fail "$package is still installed"
  consistent
  if in_root dpkg-divert --list "$debian_file" | grep -q .; then
    fail "the diversion of $debian_file is still there"
  fi
  [[ -e $root$debian_file.openpmix ]] && fail "$debian_file.openpmix is left behind"
  sha_after=$(sha256sum <"$root$debian_file")
  echo "sha256 $debian_file: ${sha_after%% *}"
  [[ $sha_after == "$sha_before" ]] || fail "Debian's library is not back byte for byte"
  in_root dpkg --verify libpmix2 || fail "dpkg --verify libpmix2 reports changed files"
  three_loaders debian
  exit $((failed ? 1 : 0))
fi

# ---- outside: checks, the package, the references ------------------------------------------------
[[ -n $build && -n $scratch && -n $cpack_exe && -n $mpi_program && -n $python_check ]] || usage
if (($(id -u) != 0)); then
  echo "SKIP: needs root (mount and PID namespaces, overlay mounts, chroot, dpkg)"
  exit 77
fi
# shellcheck disable=SC2016  # expanded by the inner shell
if ! timeout 20 unshare -m --propagation private sh -c 'd=$(mktemp -d) &&
       mount -t tmpfs t "$d" && mkdir "$d/u" "$d/w" "$d/m" &&
       mount -t overlay t -o "lowerdir=/,upperdir=$d/u,workdir=$d/w" "$d/m"; r=$?
       umount -R "$d" 2>/dev/null; rmdir "$d"; exit $r' >/dev/null 2>&1; then
  echo "SKIP: cannot mount an overlay over / in a private mount namespace (no overlayfs here)"
  exit 77
fi
for tool in dpkg-deb dpkg-divert chroot findmnt strings sha256sum mpirun; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool is not installed"; exit 1; }
done
[[ -f $build/CPackConfig.cmake ]] || { echo "FAIL: no $build/CPackConfig.cmake"; exit 1; }
if ! dpkg-query -W -f='${Status}' libpmix2 2>/dev/null | grep -q 'install ok installed'; then
  echo "FAIL: Debian's libpmix2 is not installed: nothing to install in place of"
  exit 1
fi

mkdir -p "$scratch" || exit 1
work=$(mktemp -d "$(cd "$scratch" && pwd)/package-test.XXXXXX") || exit 1
# shellcheck disable=SC2317  # invoked by the EXIT trap
cleanup() {
  # The namespace's mounts die with it; this only catches one left by a killed run.
  umount -R "$work/ns" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

step "cpack -G DEB"
if ! timeout -s KILL 120 "$cpack_exe" -G DEB --config "$build/CPackConfig.cmake" -B "$work/pkg" \
       >"$work/cpack.log" 2>&1; then
  cat "$work/cpack.log"
  echo "FAIL: cpack failed"
  exit 1
fi
deb=$(ls "$work"/pkg/*.deb)
dpkg-deb -f "$deb" Package Version Depends
dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {print $6, $3}'
mkdir -p "$work/stage" "$work/extract" && dpkg-deb -x "$deb" "$work/extract" || exit 1
cp "$deb" "$work/stage/" && cp "$work/extract$debian_file" "$work/stage/ours.so" &&
  cp "$debian_file" "$work/stage/debian.so" && cp "$mpi_program" "$work/stage/loaded_libpmix" &&
  cp "$python_check" "$work/stage/loaded_libpmix.py" || exit 1
# The Debian reference must be libpmix2's file as shipped, not something already replaced.
want_md5=$(awk -v f="${debian_file#/}" '$2 == f {print $1}' /var/lib/dpkg/info/libpmix2:*.md5sums)
[[ $(md5sum <"$work/stage/debian.so" | cut -d' ' -f1) == "$want_md5" ]] ||
  { echo "FAIL: $debian_file does not match libpmix2's md5sums"; exit 1; }

start=$(date +%s)
timeout -s KILL 240 unshare --mount --pid --fork --propagation private \
  bash "$0" --inside "$work"
rc=$?
echo
if ((rc != 0)); then
  echo "install_package: FAILED (rc $rc) after $(($(date +%s) - start)) s"
  exit 1
fi
echo "install_package: installed and removed in a throwaway root in $(($(date +%s) - start)) s;" \
     "ours mapped while installed, Debian's before and after, byte-identical"
exit 0

#!/usr/bin/env bash
# bench/deps/run.sh [build-dir] - the numbers behind docs/ARCHITECTURE.md's "Dependencies of the
# design card": segment lifecycle timings (ours vs Boost.Interprocess), what each does on a full
# /dev/shm (a 1 MiB tmpfs over /dev/shm in a private mount namespace: needs root or unshare -r),
# client code size and libraries, and the 1,000,000-process registration steps serial vs TBB.
set -euo pipefail
bin=${1:-build/release}/bin
echo "## segment create + map + touch + unmap + unlink, median (us)"
"$bin/bench-deps-shm" 21
echo
echo "## full /dev/shm"
unshare -m sh -c "mount -t tmpfs -o size=1m none /dev/shm && '$bin/bench-deps-shm' enospc"
echo
echo "## client side of a segment: text size (bytes) and libraries"
for c in raw boost; do
    printf '%s: text %s bytes; needs: %s\n' "$c" \
        "$(size -A "$bin/bench-deps-client-$c" | awk '$1==".text"{print $2}')" \
        "$(readelf -d "$bin/bench-deps-client-$c" | awk '/NEEDED/{printf "%s ", $5}')"
done
echo
echo "## registration of 1,000,000 processes on 10,000 nodes, median (ms)"
"$bin/bench-deps-tbb" 1000000 10000 7

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
echo
echo "## start of an empty program linked to libpmix, without / with libtbb loaded (median us, 3 x 300)"
python3 - "$bin" <<'PY'
import statistics, subprocess, sys, time
def median_us(path, n=300):
    t = []
    for _ in range(n):
        a = time.perf_counter()
        subprocess.run([path], check=True)
        t.append((time.perf_counter() - a) * 1e6)
    return statistics.median(t)
rows = {"libpmix": [], "libpmix + libtbb": []}
for _ in range(3):  # alternating
    rows["libpmix"].append(median_us(sys.argv[1] + "/bench-deps-start"))
    rows["libpmix + libtbb"].append(median_us(sys.argv[1] + "/bench-deps-start-tbb"))
for k, v in rows.items():
    print(f"{k}: " + ", ".join(f"{x:.0f}" for x in v))
PY

// bench/fabric/fence_node.cpp - one simulated node's side of the cross-node fence benchmark.
//
// D copies run, one per network namespace (bench/fabric/run.sh). Each opens a libfabric endpoint
// on its node address, publishes it as a file in a shared directory (the namespaces share the
// file system, as ssh-started daemons would share a launcher's pipe), reads everyone else's,
// and then runs, with the same engine the daemons use:
//   - latency: rank 0 and rank 1 ping-pong through 2-member barriers (one round each way);
//   - per-byte cost: the same with a 64 KiB allgather between ranks 0 and 1;
//   - for each size S: `iters` Bruck allgathers over all D nodes of S bytes per node (0 B is
//     also run as a dissemination barrier).
// Rank 0 prints one Markdown row per size: median and max time, and the model
// 2 x ceil(log2 D) x latency + bytes x per-byte cost.
#include "fabric/engine.h"
#include "fabric/ofi.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <numeric>
#include <string>
#include <thread>

namespace fs = std::filesystem;
using namespace pmix::fabric;

namespace {

struct Args {
    std::uint32_t rank = 0, size = 1;
    std::string dir, node, provider;
    std::vector<std::size_t> sizes{0, 64, 4096, 65536};
    int iters = 200;
    int deadline_ms = 30000;
    int kill_after = -1;  // tests: this node exits abruptly after that many collectives
};

[[noreturn]] void die(const std::string& why) {
    std::fprintf(stderr, "fence_node: %s\n", why.c_str());
    std::exit(1);
}

Args parse(int argc, char** argv) {
    Args a;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string k = argv[i], v = argv[i + 1];
        if (k == "--rank") a.rank = static_cast<std::uint32_t>(std::stoul(v));
        else if (k == "--size") a.size = static_cast<std::uint32_t>(std::stoul(v));
        else if (k == "--dir") a.dir = v;
        else if (k == "--node") a.node = v;
        else if (k == "--provider") a.provider = v;
        else if (k == "--iters") a.iters = std::stoi(v);
        else if (k == "--deadline-ms") a.deadline_ms = std::stoi(v);
        else if (k == "--kill-after") a.kill_after = std::stoi(v);
        else die("unknown option " + k);
    }
    if (a.dir.empty() || a.rank >= a.size)
        die("usage: --rank R --size D --dir DIR [--node ADDR] [--provider P] [--iters N]");
    return a;
}

// Publishes our address and waits (up to 30 s) for everyone's.
std::vector<Bytes> exchange_addresses(const Args& a, const Bytes& mine) {
    const fs::path tmp = fs::path(a.dir) / ("addr." + std::to_string(a.rank) + ".tmp");
    std::ofstream(tmp, std::ios::binary)
        .write(reinterpret_cast<const char*>(mine.data()),
               static_cast<std::streamsize>(mine.size()));
    fs::rename(tmp, fs::path(a.dir) / ("addr." + std::to_string(a.rank)));
    std::vector<Bytes> all(a.size);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    for (std::uint32_t r = 0; r < a.size; ++r) {
        const fs::path p = fs::path(a.dir) / ("addr." + std::to_string(r));
        while (!fs::exists(p)) {
            if (std::chrono::steady_clock::now() > give_up)
                die("no address from rank " + std::to_string(r));
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        std::ifstream in(p, std::ios::binary);
        std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        all[r].resize(s.size());
        std::memcpy(all[r].data(), s.data(), s.size());
    }
    return all;
}

// Runs a series of collectives back to back, each started from the previous one's completion
// on the transport's progress thread, as a daemon chains fences: the times are the fabric's,
// without a hand-off to the main thread per collective. Exits on failure.
class Runner {
public:
    Runner(Engine& e, const Args& a)
        : engine_(e), rank_(a.rank), deadline_(a.deadline_ms), kill_after_(a.kill_after) {}
    // Collective ids are (phase << 32) + count: members of a phase agree on them even when
    // some ranks skip a phase.
    void phase(std::uint64_t p) { id_ = p << 32; }

    std::vector<double> series(int n, Algorithm alg, const std::vector<std::uint32_t>& members,
                               std::size_t bytes) {
        alg_ = alg;
        members_ = members;
        mine_ = alg == Algorithm::dissemination
                    ? Bytes{}
                    : Bytes(bytes, std::byte{static_cast<unsigned char>(rank_)});
        left_ = n;
        times_.clear();
        done_ = std::promise<pmix_status_t>();
        auto f = done_.get_future();
        next();
        while (f.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready) {
            engine_.expire(std::chrono::steady_clock::now());
        }
        if (const pmix_status_t s = f.get(); s != PMIX_SUCCESS) {
            die("collective " + std::to_string(id_) + " failed: " +
                (s == PMIX_ERR_TIMEOUT           ? "timeout"
                 : s == PMIX_ERR_LOST_CONNECTION ? "lost connection"
                                                 : std::to_string(s)));
        }
        return times_;
    }

private:
    void next() {
        t0_ = std::chrono::steady_clock::now();
        const auto deadline = t0_ + std::chrono::milliseconds(deadline_);
        if (kill_after_ >= 0 && started_++ == kill_after_) std::_Exit(9);  // a daemon dying mid-job
        const pmix_status_t rc =
            engine_.start({++id_, alg_, members_, deadline}, mine_,
                          [this](pmix_status_t s, std::vector<Bytes> b) { finished(s, b); });
        if (rc != PMIX_SUCCESS) done_.set_value(rc);
    }
    // Every member's block must be there, `bytes` long and filled with its member index.
    bool complete(const std::vector<Bytes>& blocks) const {
        if (alg_ == Algorithm::dissemination) return blocks.empty();
        if (blocks.size() != members_.size()) return false;
        for (std::size_t j = 0; j < blocks.size(); ++j) {
            if (blocks[j] !=
                Bytes(mine_.size(), std::byte{static_cast<unsigned char>(members_[j])}))
                return false;
        }
        return true;
    }
    void finished(pmix_status_t s, const std::vector<Bytes>& blocks) {
        if (s == PMIX_SUCCESS && !complete(blocks)) {
            std::fprintf(stderr, "fence_node: collective %llu delivered wrong data\n",
                         static_cast<unsigned long long>(id_));
            s = PMIX_ERR_BAD_PARAM;
        }
        times_.push_back(
            std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0_)
                .count());
        if (s != PMIX_SUCCESS || --left_ == 0) {
            done_.set_value(s);
            return;
        }
        next();
    }

    Engine& engine_;
    std::uint32_t rank_;
    int deadline_;
    int kill_after_;
    int started_ = 0;
    std::uint64_t id_ = 0;
    Algorithm alg_ = Algorithm::bruck;
    std::vector<std::uint32_t> members_;
    Bytes mine_;
    int left_ = 0;
    std::vector<double> times_;
    std::promise<pmix_status_t> done_;
    std::chrono::steady_clock::time_point t0_;
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    const Args a = parse(argc, argv);
    OfiOptions o;
    o.provider = a.provider;
    o.node = a.node;
    std::string error;
    auto transport = OfiTransport::open(o, error);
    if (!transport) die(error);
    const auto addresses = exchange_addresses(a, transport->address());
    Engine engine(*transport);
    if (!transport->connect(a.rank, addresses, &engine, error)) die(error);
    Runner runner(engine, a);
    std::vector<std::uint32_t> all(a.size);
    std::iota(all.begin(), all.end(), 0u);

    runner.phase(1);
    runner.series(200, Algorithm::dissemination, all, 0);  // warm-up: connections are made lazily
    double latency = 0, per_byte = 0;
    runner.phase(2);
    if (a.size >= 2 && a.rank < 2) {
        const std::vector<std::uint32_t> pair{0, 1};
        latency = median(runner.series(a.iters, Algorithm::dissemination, pair, 0));
        const double big = median(runner.series(a.iters / 4 + 1, Algorithm::bruck, pair, 65536));
        per_byte = std::max(0.0, (big - latency) / 65536.0);
    }
    runner.phase(3);
    runner.series(5, Algorithm::dissemination, all, 0);  // everyone waits for the pair
    const double rounds = std::ceil(std::log2(std::max<std::uint32_t>(a.size, 1)));
    if (a.rank == 0) {
        std::printf(
            "| D | provider | per node | algorithm | median (us) | max (us) | model (us) |\n");
        std::printf("|---:|---|---:|---|---:|---:|---:|\n");
    }
    auto report = [&](const char* what, std::size_t bytes, const std::vector<double>& t) {
        if (a.rank != 0) return;
        const double model =
            2 * rounds * latency + static_cast<double>(bytes) * (a.size - 1) * per_byte;
        std::printf("| %u | %s | %zu B | %s | %.1f | %.1f | %.1f |\n", a.size,
                    transport->provider_name().c_str(), bytes, what, median(t),
                    *std::max_element(t.begin(), t.end()), model);
    };
    runner.phase(4);
    report("barrier", 0, runner.series(a.iters, Algorithm::dissemination, all, 0));
    std::uint64_t next_phase = 5;
    for (std::size_t s : a.sizes) {
        runner.phase(next_phase++);
        report("bruck allgather", s, runner.series(a.iters, Algorithm::bruck, all, s));
    }
    runner.phase(next_phase);
    if (a.rank == 0) {
        std::printf(
            "\none-way latency (2-member barrier, median): %.1f us; per-byte cost %.4f us/B (%.0f "
            "MB/s)\n",
            latency, per_byte, per_byte > 0 ? 1.0 / per_byte : 0.0);
    }
    runner.series(3, Algorithm::dissemination, all, 0);  // nobody leaves while others still send
    transport.reset();  // stops its progress thread before the engine it delivers to goes
    return 0;
}

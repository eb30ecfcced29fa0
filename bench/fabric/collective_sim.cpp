// bench/fabric/collective_sim.cpp - the node daemons' collectives at D = 64 .. 16,384 nodes, on a
// virtual clock (bench/fabric/sim_network.h), and the projected time to a fenced job.
//
// Two ways to run each collective, on the same Wire (latency L per message, G per byte):
//   real   one fabric::Engine per node over SimNetwork: the daemons' code, every packet encoded,
//          decoded and checked; every node's result is verified (every blob, in member order).
//          Allgather blobs are 8-byte stamps charged as `bytes per node` on the wire. Up to
//          --real-max nodes (ring: --real-max / 4): D engines of D blocks each must fit in memory.
//   model  fabric::Collective::peer/origins replayed without data (any D; ring up to 1,024,
//          D (D-1) messages beyond that).
// Where both run they must agree; the table shows both.
//
//   bench-collective-sim [--quick] [--d 64,256,...] [--latency-us L] [--per-byte-us G]
//                        [--overhead-us o] [--real-max D] [--local-ms T] [--sweep B,B,..]
#include "sim_network.h"

#include "fabric/collective.h"
#include "fabric/engine.h"

#include <algorithm>
#include <ctime>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

using namespace pmix;
using fabric::Algorithm;
using fabric::Bytes;

namespace {

struct Args {
    std::vector<std::uint32_t> d{64, 256, 1024, 4096, 16384};
    std::vector<std::uint64_t> sweep{64, 1024, 32768, 262144};  // allgather bytes per node
    // bench/results/fabric-20261127-130339.md: 2-member barrier 17.4 / 17.6 / 17.8 us, per-byte
    // 0.0035 / 0.0026 / 0.0027 us (runs of D = 2, 4, 8): the medians. The overhead o is not
    // measured (an assumption: a socket send's system call and copy).
    bench::WireCost cost{17.6, 0.0027, 5.0};
    std::vector<std::uint64_t> blobs{1024, 65536, 1048576};  // broadcast sweep
    std::uint32_t real_max = 1024;
    double local_ms = 50.1;
    bool quick = false;
};

// Fence with data: 64 ranks per node x 8 keys x 64 B of modex each.
constexpr std::uint64_t kFenceBytes = 64 * 8 * 64;
constexpr std::uint32_t kRingModelMax = 1024;

// The setup_application blob: ofi-tcp's layout (7 + 4 D bytes: version, base port, count, an
// IPv4 address per node) plus the node names of PMIX_NODE_MAP the host ships with it, 16 B each.
std::uint64_t setup_blob_bytes(std::uint32_t d) { return 7 + 4ull * d + 16ull * d; }

Bytes stamp(std::uint32_t origin, std::uint64_t size) {
    Bytes b(size);
    for (std::uint64_t i = 0; i < size; ++i)
        b[i] = static_cast<std::byte>((origin * 131 + i * 7 + (origin >> 8)) & 0xff);
    return b;
}

struct RealResult {
    double us = 0;
    std::uint64_t messages = 0;
    bool correct = true;
    double engine_s = 0;           // host time in the engines and the network, checks excluded
    std::uint64_t wire_bytes = 0;  // charged on the wire
};

bool is_allgather(Algorithm a) { return a != Algorithm::dissemination && a != Algorithm::bcast; }

// Every member's result: all blobs in member order, the root's blob, or nothing.
bool verify(Algorithm a, std::uint32_t d, std::uint64_t bytes, const std::vector<Bytes>& got) {
    if (a == Algorithm::dissemination) return got.empty();
    if (got.size() != d) return false;
    for (std::uint32_t j = 0; j < d; ++j) {
        const std::uint64_t size = a == Algorithm::bcast && j != 0 ? 0 : bytes;
        if (got[j] != stamp(j, size)) return false;
    }
    return true;
}

// CPU time of this (single-threaded) process: what the engines cost, whatever else the machine
// runs meanwhile.
double cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// One collective over D real engines. Allgather blobs are 8-byte stamps charged as `bytes`,
// unless `full_payload` (then they are `bytes` long: the engines' own cost per byte).
RealResult run_real(Algorithm a, std::uint32_t d, std::uint64_t bytes, bench::WireCost cost,
                    bool full_payload = false) {
    const std::uint64_t real_bytes =
        is_allgather(a) && !full_payload ? std::min<std::uint64_t>(bytes, 8) : bytes;
    const double t0 = cpu_seconds();
    double checking_s = 0;
    bench::SimNetwork net(d, cost, bytes - real_bytes);
    std::vector<std::unique_ptr<fabric::Engine>> engines;
    for (std::uint32_t r = 0; r < d; ++r) {
        engines.push_back(std::make_unique<fabric::Engine>(net.transport(r)));
        net.attach(r, engines.back().get());
    }
    std::vector<std::uint32_t> all(d);
    for (std::uint32_t r = 0; r < d; ++r) all[r] = r;
    RealResult out;
    std::uint32_t finished = 0;
    auto done = [&, d, a, real_bytes](pmix_status_t s, std::vector<Bytes> blocks) {
        const double c0 = cpu_seconds();
        out.correct = out.correct && s == PMIX_SUCCESS && verify(a, d, real_bytes, blocks);
        out.us = std::max(out.us, net.now());
        ++finished;
        checking_s += cpu_seconds() - c0;
    };
    for (std::uint32_t r = 0; r < d; ++r) {
        const bool silent = a == Algorithm::dissemination || (a == Algorithm::bcast && r != 0);
        const Bytes mine = silent ? Bytes{} : stamp(r, real_bytes);
        const pmix_status_t rc =
            engines[r]->start({1, a, all, fabric::Clock::time_point::max()}, mine, done);
        if (rc != PMIX_SUCCESS) out.correct = false;
    }
    out.messages = net.run();
    out.correct = out.correct && finished == d;
    out.engine_s = cpu_seconds() - t0 - checking_s;
    out.wire_bytes = net.bytes_charged();
    return out;
}

struct Row {
    std::string operation;
    std::uint32_t d;
    std::uint64_t bytes;
    Algorithm alg;
    std::optional<RealResult> real;
    std::optional<double> model_us;
    std::uint64_t messages = 0;
};

std::string us_text(std::optional<double> us) {
    if (!us) return "-";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f", *us);
    return buf;
}

bool real_fits(const Args& args, Algorithm a, std::uint32_t d) {
    return d <= (a == Algorithm::ring ? args.real_max / 4 : args.real_max);
}

Row measure(const Args& args, const std::string& op, std::uint32_t d, std::uint64_t bytes,
            Algorithm a) {
    Row row{op, d, bytes, a, std::nullopt, std::nullopt, 0};
    if (real_fits(args, a, d)) {
        row.real = run_real(a, d, bytes, args.cost);
        row.messages = row.real->messages;
    }
    if (a != Algorithm::ring || d <= kRingModelMax) {
        std::uint64_t messages = 0;
        row.model_us = bench::model_collective(a, d, bytes, args.cost, messages);
        row.messages = messages;
    }
    return row;
}

// The model replays the code's schedule on the same wire: where both ran, the times must match.
bool agrees(const Row& r) {
    if (!r.real || !r.model_us) return true;
    return std::abs(r.real->us - *r.model_us) <= 1e-6 * std::max(1.0, *r.model_us);
}

bool row_ok(const Row& r) { return !r.real || (r.real->correct && agrees(r)); }

void print_row(const Row& r) {
    const std::string messages = r.real || r.model_us ? std::to_string(r.messages) : "-";
    std::printf("| %s | %u | %llu B | %s | %s | %s | %s | %s |\n", r.operation.c_str(), r.d,
                static_cast<unsigned long long>(r.bytes), fabric::algorithm_name(r.alg),
                us_text(r.real ? std::optional<double>(r.real->us) : std::nullopt).c_str(),
                us_text(r.model_us).c_str(), messages.c_str(),
                !r.real            ? "-"
                : !r.real->correct ? "WRONG"
                : agrees(r)        ? "ok"
                                   : "ok, MODEL DIFFERS");
    std::fflush(stdout);
}

double best_us(const Row& r) { return r.model_us ? *r.model_us : r.real ? r.real->us : 1e300; }

// The head sends the blob to every node itself (D - 1 messages through its one link).
double flat_bcast_us(std::uint32_t d, std::uint64_t bytes, bench::WireCost cost) {
    bench::Wire wire(d, cost);
    double last = 0;
    for (std::uint32_t r = 1; r < d; ++r)
        last = wire.send(0, r, bench::packet_bytes(Algorithm::bcast, 1, bytes), 0);
    return last;
}

[[noreturn]] void usage(const char* why) {
    std::fprintf(stderr, "bench-collective-sim: %s\n", why);
    std::exit(2);
}

template <class T>
std::vector<T> list_of(const char* text) {
    std::vector<T> out;
    for (const char* p = text; *p != '\0';) {
        char* end = nullptr;
        out.push_back(static_cast<T>(std::strtoull(p, &end, 10)));
        if (end == p) usage("bad list");
        p = *end == ',' ? end + 1 : end;
    }
    return out;
}

Args parse(int argc, char** argv) {
    Args a;
    for (int i = 1; i < argc; ++i) {
        const std::string k = argv[i];
        if (k == "--quick") {
            a.quick = true;
            a.d = {2, 3, 8, 16};
            a.sweep = {0, 64, 1000};
            a.blobs = {100};
            continue;
        }
        if (i + 1 >= argc) usage(("missing value for " + k).c_str());
        const char* v = argv[++i];
        if (k == "--d") a.d = list_of<std::uint32_t>(v);
        else if (k == "--sweep") a.sweep = list_of<std::uint64_t>(v);
        else if (k == "--latency-us") a.cost.latency_us = std::strtod(v, nullptr);
        else if (k == "--per-byte-us") a.cost.us_per_byte = std::strtod(v, nullptr);
        else if (k == "--overhead-us") a.cost.overhead_us = std::strtod(v, nullptr);
        else if (k == "--real-max")
            a.real_max = static_cast<std::uint32_t>(std::strtoul(v, nullptr, 10));
        else if (k == "--local-ms") a.local_ms = std::strtod(v, nullptr);
        else usage(("unknown option " + k).c_str());
    }
    return a;
}

}  // namespace

namespace {

constexpr Algorithm kAllgathers[] = {Algorithm::bruck, Algorithm::recursive_doubling,
                                     Algorithm::tree, Algorithm::ring};

struct AtScale {
    double fence_us = 0, barrier_us = 0, bcast_us = 0;
    Algorithm fence_alg = Algorithm::bruck;
};

// Table 1: each operation with every algorithm, real code and model. Returns false on a wrong
// result or a model that disagrees with the code.
bool operations(const Args& args, std::map<std::uint32_t, AtScale>& best) {
    std::printf(
        "| operation | D | bytes per node | algorithm | real code (us) | model (us) | "
        "messages | data |\n|---|---:|---:|---|---:|---:|---:|---|\n");
    bool ok = true;
    const std::uint64_t fence = args.quick ? 1000 : kFenceBytes;
    for (const std::uint32_t d : args.d) {
        AtScale& at = best[d];
        at.fence_us = at.barrier_us = at.bcast_us = 1e300;
        for (const Algorithm a : kAllgathers) {
            if (!fabric::Collective::supports(a, d)) continue;
            const Row r = measure(args, "fence with data", d, fence, a);
            print_row(r);
            ok = ok && row_ok(r);
            if (best_us(r) < at.fence_us) at.fence_us = best_us(r), at.fence_alg = a;
        }
        for (const Algorithm a : {Algorithm::dissemination, Algorithm::tree}) {
            const Row r = measure(args, "barrier", d, 0, a);
            print_row(r);
            ok = ok && row_ok(r);
            at.barrier_us = std::min(at.barrier_us, best_us(r));
        }
        const std::uint64_t blob = setup_blob_bytes(d);
        const Row r = measure(args, "setup blob", d, blob, Algorithm::bcast);
        print_row(r);
        ok = ok && row_ok(r);
        at.bcast_us = best_us(r);
        std::printf("| setup blob | %u | %llu B | flat (head to each) | - | %.1f | %u | - |\n", d,
                    static_cast<unsigned long long>(blob), flat_bcast_us(d, blob, args.cost),
                    d - 1);
    }
    return ok;
}

// Table 2: which allgather wins, by D and bytes per node (model).
void winners(const Args& args) {
    std::printf(
        "\n| D | bytes per node | bruck (us) | recursive-doubling (us) | tree (us) | "
        "ring (us) | fastest |\n|---:|---:|---:|---:|---:|---:|---|\n");
    for (const std::uint32_t d : args.d) {
        for (const std::uint64_t bytes : args.sweep) {
            std::string cells, winner;
            double best = 1e300;
            for (const Algorithm a : kAllgathers) {
                if (!fabric::Collective::supports(a, d) ||
                    (a == Algorithm::ring && d > kRingModelMax)) {
                    cells += " - |";
                    continue;
                }
                std::uint64_t messages = 0;
                const double us = bench::model_collective(a, d, bytes, args.cost, messages);
                cells += " " + us_text(us) + " |";
                if (us < best * (1 - 1e-9)) best = us, winner = fabric::algorithm_name(a);
                else if (us <= best * (1 + 1e-9))
                    winner += " = " + std::string(fabric::algorithm_name(a));
            }
            std::printf("| %u | %llu B |%s %s |\n", d, static_cast<unsigned long long>(bytes),
                        cells.c_str(), winner.c_str());
        }
    }
}

// Table 2b: binomial broadcast against the head sending to each node (model).
void broadcasts(const Args& args) {
    std::printf(
        "\n| D | blob | binomial bcast (us) | flat (us) | fastest |\n"
        "|---:|---:|---:|---:|---|\n");
    for (const std::uint32_t d : args.d) {
        for (const std::uint64_t blob : args.blobs) {
            std::uint64_t messages = 0;
            const double tree =
                bench::model_collective(Algorithm::bcast, d, blob, args.cost, messages);
            const double flat = flat_bcast_us(d, blob, args.cost);
            std::printf("| %u | %llu B | %.1f | %.1f | %s |\n", d,
                        static_cast<unsigned long long>(blob), tree, flat,
                        tree <= flat ? "binomial" : "flat");
        }
    }
}

// Table 3: the projected time to a fenced, wired-up job.
// `host_ns_per_byte`: the engines' own cost, added as if it did not overlap the wire (an upper
// bound: a daemon's progress thread decodes one packet while the next is on the wire).
void projection(const Args& args, const std::map<std::uint32_t, AtScale>& best,
                double host_ns_per_byte) {
    std::printf(
        "\n| D | ranks (64/node) | setup blob bcast (ms) | local start (ms) | "
        "fence with data (ms) | + engines' host cost (ms) | barrier (ms) | full modex job (ms) | "
        "instant-on job (ms) |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    const std::uint64_t fence = args.quick ? 1000 : kFenceBytes;
    for (const auto& [d, at] : best) {
        const double bcast = at.bcast_us / 1000, fence_ms = at.fence_us / 1000;
        const double barrier = at.barrier_us / 1000;
        const double host =
            static_cast<double>(d - 1) * static_cast<double>(fence + 8) * host_ns_per_byte / 1e6;
        const double local = bcast + args.local_ms;
        std::printf("| %u | %u | %.2f | %.1f | %.2f (%s) | %.1f | %.2f | %.1f - %.1f | %.1f |\n", d,
                    d * 64, bcast, args.local_ms, fence_ms, fabric::algorithm_name(at.fence_alg),
                    host, barrier, local + fence_ms, local + fence_ms + host, local + barrier);
    }
}

}  // namespace

int main(int argc, char** argv) {
    const Args args = parse(argc, argv);
    std::printf(
        "Wire: latency %.2f us per message (of which %.2f us sender/receiver overhead), %.5f us "
        "per byte (%.0f MB/s); fence with data = %llu B per node.\n\n",
        args.cost.latency_us, args.cost.overhead_us, args.cost.us_per_byte,
        1 / args.cost.us_per_byte,
        static_cast<unsigned long long>(args.quick ? 1000 : kFenceBytes));
    // The engines' own host cost per byte (encode, copy, decode, keep), which the wire model
    // leaves out: a real Bruck allgather with full payloads, all D nodes on this one thread.
    const std::uint32_t cpu_d = args.quick ? 8 : 64;
    const RealResult cpu =
        run_real(Algorithm::bruck, cpu_d, args.quick ? 1000 : kFenceBytes, args.cost, true);
    std::printf(
        "Engines' host cost, not in the model: %.2f ns per wire byte (real Bruck "
        "allgather, D = %u, full payloads, %llu MiB, %.0f ms of CPU, data %s) "
        "against the wire's %.2f ns.\n\n",
        cpu.engine_s * 1e9 / static_cast<double>(cpu.wire_bytes), cpu_d,
        static_cast<unsigned long long>(cpu.wire_bytes >> 20), cpu.engine_s * 1e3,
        cpu.correct ? "ok" : "WRONG", args.cost.us_per_byte * 1e3);
    std::map<std::uint32_t, AtScale> best;
    const bool ok = operations(args, best) && cpu.correct;
    winners(args);
    broadcasts(args);
    projection(args, best, cpu.engine_s * 1e9 / static_cast<double>(cpu.wire_bytes));
    if (!ok)
        std::fprintf(stderr,
                     "bench-collective-sim: a collective delivered wrong data or "
                     "the model disagrees with the code\n");
    return ok ? 0 : 1;
}

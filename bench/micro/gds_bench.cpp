// bench/micro/gds_bench.cpp - Google Benchmark of the shared-memory store alone (gds/), on the
// shared-memory and the heap implementation: the reads PMIx_Get turns into, and the writer's
// cost of publishing one fence's data. Every read is checked (a broken store cannot produce a
// number). Run: bench-gds [--benchmark_filter=...]
#include "gds/store.h"

#include <benchmark/benchmark.h>
#include <pmix_common.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

namespace {

using pmix::gds::Entity;

constexpr pmix_rank_t kRanks = 1024;
constexpr const char* kNs = "bench.gds";

pmix_value_t u32(std::uint32_t x) {
    pmix_value_t v{};
    v.type = PMIX_UINT32;
    v.data.uint32 = x;
    return v;
}

pmix_value_t text(const std::string& s) {
    pmix_value_t v{};
    v.type = PMIX_STRING;
    v.data.string = const_cast<char*>(s.c_str());  // put() copies
    return v;
}

// A registered job (job size, 3 per-proc keys) plus one 64-byte modex key per rank.
std::unique_ptr<pmix::gds::StoreWriter> make_job(bool shm) {
    auto w = shm ? pmix::gds::make_shm_store() : pmix::gds::make_heap_store();
    if (w == nullptr) std::abort();
    w->begin_namespace(kNs);
    pmix_value_t js = u32(kRanks);
    w->put(kNs, Entity::job(), PMIX_JOB_SIZE, js);
    for (pmix_rank_t r = 0; r < kRanks; ++r) {
        pmix_value_t node = u32(r / 64);
        w->put(kNs, Entity::proc(r), PMIX_NODEID, node);
        pmix_value_t lr{};
        lr.type = PMIX_UINT16;
        lr.data.uint16 = static_cast<std::uint16_t>(r % 64);
        w->put(kNs, Entity::proc(r), PMIX_LOCAL_RANK, lr);
        const std::string host = "node" + std::to_string(r / 64);
        pmix_value_t h = text(host);
        w->put(kNs, Entity::proc(r), PMIX_HOSTNAME, h);
        const std::string payload =
            ("endpoint-" + std::to_string(r) + std::string(60, 'x')).substr(0, 63);
        pmix_value_t m = text(payload);
        w->put_modex(kNs, r, PMIX_GLOBAL, "bench.modex", m);
    }
    w->commit();
    return w;
}

struct Fixture {
    std::unique_ptr<pmix::gds::StoreWriter> writer;
    std::unique_ptr<pmix::gds::StoreReader> reader;
    explicit Fixture(bool shm) : writer(make_job(shm)) {
        reader = shm ? pmix::gds::open_shm_reader(writer->locator()) : writer->make_reader();
        if (reader == nullptr || reader->attach(kNs) != PMIX_SUCCESS) std::abort();
    }
};

void check(benchmark::State& state, pmix_status_t rc) {
    if (rc != PMIX_SUCCESS) state.SkipWithError("store read failed");
}

void GetJobKey(benchmark::State& state) {
    Fixture f(state.range(0) != 0);
    for (auto _ : state) {
        pmix_value_t v{};
        check(state, f.reader->get(kNs, Entity::job(), PMIX_JOB_SIZE, &v));
        if (v.data.uint32 != kRanks) state.SkipWithError("wrong value");
        benchmark::DoNotOptimize(v);
    }
}

void GetProcKey(benchmark::State& state) {
    Fixture f(state.range(0) != 0);
    pmix_rank_t r = 0;
    for (auto _ : state) {
        pmix_value_t v{};
        check(state, f.reader->get(kNs, Entity::proc(r), PMIX_NODEID, &v));
        if (v.data.uint32 != r / 64) state.SkipWithError("wrong value");
        r = (r + 7) % kRanks;
    }
}

void GetPeerModexCopy(benchmark::State& state) {
    Fixture f(state.range(0) != 0);
    pmix_rank_t r = 0;
    for (auto _ : state) {
        pmix_value_t v{};
        check(state, f.reader->get(kNs, Entity::proc(r), "bench.modex", &v));
        if (v.type != PMIX_STRING || std::strncmp(v.data.string, "endpoint-", 9) != 0) {
            state.SkipWithError("wrong value");
        }
        std::free(v.data.string);
        r = (r + 7) % kRanks;
    }
}

void GetPeerModexPointer(benchmark::State& state) {
    Fixture f(state.range(0) != 0);
    pmix_rank_t r = 0;
    pmix::gds::ValueView view;
    for (auto _ : state) {
        view.reset();
        check(state, f.reader->get_view(kNs, Entity::proc(r), "bench.modex", view));
        if (view.value().type != PMIX_STRING) state.SkipWithError("wrong value");
        benchmark::DoNotOptimize(view.value().data.string);
        r = (r + 7) % kRanks;
    }
}

void VisitAllKeysOfProc(benchmark::State& state) {
    Fixture f(state.range(0) != 0);
    pmix_rank_t r = 0;
    for (auto _ : state) {
        int n = 0;
        check(state, f.reader->visit(kNs, Entity::proc(r),
                                     [&n](std::string_view, const pmix_value_t&) { ++n; }));
        if (n != 4) state.SkipWithError("wrong key count");
        r = (r + 7) % kRanks;
    }
}

// The writer's cost of one fence result: 64 ranks x one 64-byte key, put + commit.
void PublishFenceOf64(benchmark::State& state) {
    Fixture f(state.range(0) != 0);
    std::uint64_t round = 0;
    const std::string payload(63, 'y');
    for (auto _ : state) {
        for (pmix_rank_t r = 0; r < 64; ++r) {
            pmix_value_t m = text(payload);
            f.writer->put_modex(kNs, r, PMIX_GLOBAL, "bench.fence." + std::to_string(round % 4), m);
        }
        check(state, f.writer->commit());
        ++round;
    }
}

}  // namespace

// Arg 1 = shared memory, 0 = heap.
BENCHMARK(GetJobKey)->Arg(1)->Arg(0);
BENCHMARK(GetProcKey)->Arg(1)->Arg(0);
BENCHMARK(GetPeerModexCopy)->Arg(1)->Arg(0);
BENCHMARK(GetPeerModexPointer)->Arg(1)->Arg(0);
BENCHMARK(VisitAllKeysOfProc)->Arg(1)->Arg(0);
BENCHMARK(PublishFenceOf64)->Arg(1)->Arg(0)->Iterations(2000);
BENCHMARK_MAIN();

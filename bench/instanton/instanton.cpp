// bench/instanton/instanton.cpp - one rank of the instant-on wireup benchmark (a PMIx client).
//
//   bench-instanton preassigned | modex
//
// Each rank opens a libfabric endpoint (tcp;ofi_rxm) and sends one message to every other rank,
// then waits for one from each. How it learns the peers' addresses is what is measured:
//   preassigned: its own and every peer's PMIX_FABRIC_ENDPT, stored before launch by the ofi-tcp
//                plugin through setup_application / setup_local_support: no Put, no Fence;
//   modex:       the classic way: open on any port, Put the address, Commit, Fence with
//                PMIX_COLLECT_DATA, Get every peer's.
// Per rank, from PMIx_Init's return: "open" (the endpoint opened: libfabric's own start-up),
// "resolve" (every peer's address known: Gets from the store, or Put + Commit + Fence + Gets) and
// "total" (the last peer's message received). Rank 0 prints the median and slowest rank of each
// (gathered after the measurement) as "instanton: ...". Exit 0 only when every message arrived
// (and, preassigned, every endpoint opened on its assigned address).
#include "fabric/ofi.h"

#include <pmix.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using pmix::fabric::Bytes;

class Counter final : public pmix::fabric::Receiver {
public:
    void on_packet(std::uint32_t from, std::span<const std::byte>) override {
        std::lock_guard lock(mu_);
        from_.insert(from);
    }
    void on_peer_lost(std::uint32_t) override {}
    std::size_t heard() {
        std::lock_guard lock(mu_);
        return from_.size();
    }

private:
    std::mutex mu_;
    std::set<std::uint32_t> from_;
};

int fail(const pmix_proc_t& me, const std::string& why) {
    std::fprintf(stderr, "instanton: rank %u: %s\n", me.rank, why.c_str());
    return 1;
}

bool endpoint_of(const pmix_proc_t& p, Bytes& out) {
    pmix_value_t* v = nullptr;
    if (PMIx_Get(&p, PMIX_FABRIC_ENDPT, nullptr, 0, &v) != PMIX_SUCCESS || v == nullptr)
        return false;
    bool ok = v->type == PMIX_DATA_ARRAY && v->data.darray != nullptr &&
              v->data.darray->type == PMIX_ENDPOINT && v->data.darray->size >= 1;
    if (ok) {
        const auto* ep = static_cast<const pmix_endpoint_t*>(v->data.darray->array);
        const auto* b = reinterpret_cast<const std::byte*>(ep->endpt.bytes);
        out.assign(b, b + ep->endpt.size);
    }
    PMIX_VALUE_RELEASE(v);
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    const bool preassigned = argc > 1 && std::strcmp(argv[1], "preassigned") == 0;
    pmix_proc_t me;
    if (PMIx_Init(&me, nullptr, 0) != PMIX_SUCCESS) return 1;
    const auto t0 = Clock::now();
    pmix_proc_t job = me;
    job.rank = PMIX_RANK_WILDCARD;
    pmix_value_t* sz = nullptr;
    if (PMIx_Get(&job, PMIX_JOB_SIZE, nullptr, 0, &sz) != PMIX_SUCCESS)
        return fail(me, "no job size");
    const std::uint32_t n = sz->data.uint32;
    PMIX_VALUE_RELEASE(sz);
    std::vector<Bytes> addrs(n);
    pmix::fabric::OfiOptions o;
    std::string error;
    std::unique_ptr<pmix::fabric::OfiTransport> t;
    Clock::time_point t_opened;
    if (preassigned) {
        if (!endpoint_of(me, addrs[me.rank])) return fail(me, "no PMIX_FABRIC_ENDPT for myself");
        if (addrs[me.rank].size() != sizeof(sockaddr_in)) return fail(me, "not an IPv4 endpoint");
        sockaddr_in sa;
        std::memcpy(&sa, addrs[me.rank].data(), sizeof sa);
        char ip[INET_ADDRSTRLEN] = {};
        ::inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof ip);
        o.node = ip;
        o.service = std::to_string(ntohs(sa.sin_port));
        // setup_fork told this process the same thing through its environment.
        const char* env = std::getenv("PMIX_CPP_FABRIC_ENDPOINT");
        if (env == nullptr || o.node + ":" + o.service != env)
            return fail(me, "PMIX_CPP_FABRIC_ENDPOINT differs from PMIX_FABRIC_ENDPT");
        t = pmix::fabric::OfiTransport::open(o, error);
        if (!t)
            return fail(
                me, "cannot open the assigned endpoint " + o.node + ":" + o.service + ": " + error);
        if (t->address() != addrs[me.rank])
            return fail(me, "the endpoint's address differs from the assigned one");
        t_opened = Clock::now();
        for (std::uint32_t r = 0; r < n; ++r) {
            pmix_proc_t p = me;
            p.rank = r;
            if (r != me.rank && !endpoint_of(p, addrs[r]))
                return fail(me, "no endpoint for rank " + std::to_string(r));
        }
    } else {
        o.node = pmix::fabric::default_node_address();
        t = pmix::fabric::OfiTransport::open(o, error);
        if (!t) return fail(me, "cannot open an endpoint: " + error);
        t_opened = Clock::now();
        addrs[me.rank] = t->address();
        pmix_value_t v;
        pmix_byte_object_t bo{reinterpret_cast<char*>(addrs[me.rank].data()),
                              addrs[me.rank].size()};
        PMIX_VALUE_LOAD(&v, &bo, PMIX_BYTE_OBJECT);
        PMIx_Put(PMIX_GLOBAL, "bench.addr", &v);
        PMIX_VALUE_DESTRUCT(&v);
        pmix_info_t collect;
        bool yes = true;
        PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
        if (PMIx_Commit() != PMIX_SUCCESS || PMIx_Fence(nullptr, 0, &collect, 1) != PMIX_SUCCESS)
            return fail(me, "modex fence failed");
        for (std::uint32_t r = 0; r < n; ++r) {
            if (r == me.rank) continue;
            pmix_proc_t p = me;
            p.rank = r;
            pmix_value_t* got = nullptr;
            if (PMIx_Get(&p, "bench.addr", nullptr, 0, &got) != PMIX_SUCCESS ||
                got->type != PMIX_BYTE_OBJECT)
                return fail(me, "no address of rank " + std::to_string(r));
            const auto* b = reinterpret_cast<const std::byte*>(got->data.bo.bytes);
            addrs[r].assign(b, b + got->data.bo.size);
            PMIX_VALUE_RELEASE(got);
        }
    }
    Counter heard;
    const auto t_resolved = Clock::now();
    if (!t->connect(me.rank, addrs, &heard, error)) return fail(me, "connect: " + error);
    for (std::uint32_t r = 0; r < n; ++r) {
        if (r != me.rank && !t->send(r, Bytes(8, std::byte{0x5a}))) return fail(me, "send refused");
    }
    const auto deadline = Clock::now() + std::chrono::seconds(30);
    while (heard.heard() < n - 1 && Clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::microseconds(20));
    const auto t_end = Clock::now();
    const bool all = heard.heard() == n - 1;
    auto us = [](Clock::time_point a, Clock::time_point b) {
        return std::chrono::duration<double, std::micro>(b - a).count();
    };
    // Not measured: everyone's times to rank 0, and nobody closes before every message is in.
    const double mine[3] = {us(t0, t_opened), us(t_opened, t_resolved), us(t0, t_end)};
    static const char* const keys[3] = {"bench.open", "bench.resolve", "bench.total"};
    for (int k = 0; k < 3; ++k) {
        pmix_value_t v;
        PMIX_VALUE_LOAD(&v, &mine[k], PMIX_DOUBLE);
        PMIx_Put(PMIX_GLOBAL, keys[k], &v);
    }
    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    PMIx_Commit();
    PMIx_Fence(nullptr, 0, &collect, 1);
    if (me.rank == 0) {
        std::printf("instanton: mode %s ranks %u", preassigned ? "preassigned" : "modex", n);
        for (int k = 0; k < 3; ++k) {
            std::vector<double> ts;
            for (std::uint32_t r = 0; r < n; ++r) {
                pmix_proc_t p = me;
                p.rank = r;
                pmix_value_t* got = nullptr;
                if (PMIx_Get(&p, keys[k], nullptr, 0, &got) == PMIX_SUCCESS) {
                    ts.push_back(got->data.dval);
                    PMIX_VALUE_RELEASE(got);
                }
            }
            std::sort(ts.begin(), ts.end());
            std::printf(" %s_median_us %.1f %s_max_us %.1f", keys[k] + 6,
                        ts.empty() ? 0.0 : ts[ts.size() / 2], keys[k] + 6,
                        ts.empty() ? 0.0 : ts.back());
        }
        std::printf("\n");
    }
    t.reset();
    PMIx_Finalize(nullptr, 0);
    return all ? 0
               : fail(me, "heard from " + std::to_string(heard.heard()) + " of " +
                              std::to_string(n - 1) + " peers");
}

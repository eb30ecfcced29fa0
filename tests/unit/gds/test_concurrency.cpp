// tests/unit/gds/test_concurrency.cpp - readers on 8 threads while the writer appends commits,
// chains segments and grows the index. Correctness only (run it under ASan/TSan); no timing.
#include "store_fixture.h"

#include <atomic>
#include <cstdio>
#include <mutex>
#include <random>
#include <chrono>
#include <thread>
#include <vector>

namespace gds_test {
namespace {

using pmix::gds::Entity;

template <typename Kind>
using Concurrency = StoreTest<Kind>;
TYPED_TEST_SUITE(Concurrency, StoreKinds);

constexpr std::uint64_t kCommits = 1500;
constexpr int kThreads = 8;
constexpr pmix_rank_t kPeers = 64;

struct Failures {
    std::atomic<int> count{0};
    std::mutex mutex;
    std::string first;
    void add(const std::string& what) {
        if (count.fetch_add(1) == 0) {
            std::lock_guard lock(mutex);
            first = what;
        }
    }
};

// What every snapshot must satisfy: the counter never goes back; every key committed at or
// before the counter's commit is there with its value; a peer's modex value is the newest one
// for that peer (never older than one seen before).
void reader_loop(pmix::gds::StoreReader& reader, const std::atomic<bool>& done, unsigned seed,
                 Failures& failures, std::atomic<std::uint64_t>& reads, std::atomic<int>& started) {
    started.fetch_add(1);
    std::mt19937_64 rng(seed);
    std::uint64_t last_counter = 0;
    std::vector<std::uint64_t> last_modex(kPeers, 0);
    std::uint64_t n = 0;
    // At least one pass each, however late the thread got a core (CI once saw the writer finish
    // all its commits before any reader ran).
    do {
        Value c;
        if (reader.get("job.conc", Entity::job(), "counter", &c) != PMIX_SUCCESS ||
            c.v.data.uint64 < last_counter) {
            failures.add("counter missing or went back");
            return;
        }
        last_counter = c.v.data.uint64;
        const std::uint64_t i = last_counter == 0 ? 0 : 1 + rng() % last_counter;
        if (i != 0) {
            Value k;
            if (reader.get("job.conc", Entity::job(), "k." + std::to_string(i), &k) !=
                    PMIX_SUCCESS ||
                k.v.data.uint64 != i * 3) {
                failures.add("k." + std::to_string(i) + " missing or wrong");
                return;
            }
            pmix::gds::ValueView s;
            const std::string want = "value-" + std::to_string(i);
            if (reader.get_view("job.conc", Entity::job(), "s." + std::to_string(i), s) !=
                    PMIX_SUCCESS ||
                s.value().type != PMIX_STRING || want != s.value().data.string) {
                failures.add("s." + std::to_string(i) + " missing or wrong");
                return;
            }
        }
        const auto peer = static_cast<pmix_rank_t>(rng() % kPeers);
        pmix::gds::ValueView m;
        const pmix_status_t rc = reader.get_view("job.conc", Entity::proc(peer), "m", m);
        if (rc == PMIX_SUCCESS) {
            const std::uint64_t g = m.value().data.uint64;
            if (g % kPeers != peer || g < last_modex[peer]) {
                failures.add("modex of peer " + std::to_string(peer) + " wrong");
                return;
            }
            last_modex[peer] = g;
        } else if (rc != PMIX_ERR_NOT_FOUND || last_modex[peer] != 0) {
            failures.add("modex of peer " + std::to_string(peer) + " vanished");
            return;
        }
        n += 3;
    } while (!done.load(std::memory_order_relaxed) && failures.count.load() == 0);
    reads.fetch_add(n);
}

TYPED_TEST(Concurrency, EightReadersWhileWriterAppends) {
    pmix::gds::StoreOptions o;
    o.segment_bytes = 64 * 1024;  // chains every few dozen commits
    o.grow = false;
    this->open(o);
    auto& w = this->writer();
    ASSERT_EQ(w.begin_namespace("job.conc"), PMIX_SUCCESS);
    this->put_u64("job.conc", Entity::job(), "counter", 0);
    ASSERT_EQ(w.commit(), PMIX_SUCCESS);

    std::atomic<bool> done{false};
    std::atomic<std::uint64_t> reads{0};
    Failures failures;
    std::atomic<int> started{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back(reader_loop, std::ref(this->reader()), std::cref(done),
                             static_cast<unsigned>(t + 1), std::ref(failures), std::ref(reads),
                             std::ref(started));
    }
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (started.load() < kThreads && std::chrono::steady_clock::now() < until) {
        std::this_thread::yield();
    }
    for (std::uint64_t g = 1; g <= kCommits && failures.count.load() == 0; ++g) {
        this->put_u64("job.conc", Entity::job(), "k." + std::to_string(g), g * 3);
        this->put_string("job.conc", Entity::job(), "s." + std::to_string(g),
                         "value-" + std::to_string(g));
        Value m;
        make_u64(&m, g);
        this->put_u64("job.conc", Entity::job(), "counter", g);
        // No ASSERT here: returning early would leave the reader threads unjoined.
        if (w.put_modex("job.conc", static_cast<pmix_rank_t>(g % kPeers), PMIX_GLOBAL, "m", m.v) !=
                PMIX_SUCCESS ||
            w.commit() != PMIX_SUCCESS) {
            failures.add("writer failed at commit " + std::to_string(g));
        }
    }
    done.store(true);
    for (auto& t : threads) {
        t.join();
    }
    EXPECT_EQ(failures.count.load(), 0) << failures.first;
    EXPECT_GT(reads.load(), 0u);
    pmix::gds::NamespaceStats st;
    ASSERT_EQ(w.stats("job.conc", st), PMIX_SUCCESS);
    EXPECT_GT(st.segments, 3u);  // the readers did cross chained segments
    std::printf("[ measure  ] %llu reads on %d threads during %llu commits, %zu segments\n",
                static_cast<unsigned long long>(reads.load()), kThreads,
                static_cast<unsigned long long>(kCommits), st.segments);
}

}  // namespace
}  // namespace gds_test

// tests/unit/gds/test_churn.cpp - namespaces created and deleted by the thousand on one store (a
// persistent launcher retires every job it ran): what the store holds stays flat, and readers of
// the namespaces that stay keep reading them while the directory's entries are reused.
//
// Measured before the directory reused entries (a region appended to for every namespace): shm
// bytes 65,536 / 196,608 / 983,040 after 0 / 250 / 2,000 namespaces, the reader's heap +233 KiB
// from 250 to 2,000 (its attachments were never freed). Now: 65,536 at every count, heap flat.
#include "store_fixture.h"

#include <malloc.h>
#include <sys/stat.h>

#include <atomic>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace gds_test {
namespace {

using pmix::gds::Entity;

template <typename Kind>
using Churn = StoreTest<Kind>;
TYPED_TEST_SUITE(Churn, StoreKinds);

// Bytes of this process's shared-memory objects with the test prefix.
std::size_t shm_bytes() {
    std::size_t total = 0;
    for (const std::string& name : shm_objects(kShmPrefix + 1)) {
        struct stat st {};
        if (::stat(("/dev/shm/" + name).c_str(), &st) == 0) {
            total += static_cast<std::size_t>(st.st_size);
        }
    }
    return total;
}

struct Sample {
    pmix::gds::DirectoryStats dir;
    std::size_t shm = 0;
    std::size_t heap = 0;  // malloc'd bytes in use, mmapped blocks included (0 under ASan)
};

Sample sample(const pmix::gds::StoreWriter& w) {
    const struct mallinfo2 mi = ::mallinfo2();
    return Sample{w.directory_stats(), shm_bytes(), mi.uordblks + mi.hblkhd};
}

std::string churn_name(int i) { return "job.churn." + std::to_string(i); }

TYPED_TEST(Churn, TwoThousandNamespacesStayFlat) {
    pmix::gds::StoreOptions o;
    o.segment_bytes = 16 * 1024;
    this->open(o);
    auto& w = this->writer();
    ASSERT_EQ(w.begin_namespace("job.keep"), PMIX_SUCCESS);
    this->put_u64("job.keep", Entity::job(), "k", 7);
    ASSERT_EQ(w.commit(), PMIX_SUCCESS);
    Sample at250;
    const Sample at0 = sample(w);
    for (int i = 1; i <= 2000; ++i) {
        const std::string ns = churn_name(i);
        ASSERT_EQ(w.begin_namespace(ns), PMIX_SUCCESS);
        this->put_u64(ns, Entity::job(), "n", static_cast<std::uint64_t>(i));
        ASSERT_EQ(w.commit(), PMIX_SUCCESS);
        ASSERT_EQ(this->get_u64(ns, Entity::job(), "n"), static_cast<std::uint64_t>(i));
        ASSERT_EQ(this->get_u64("job.keep", Entity::job(), "k"), 7u);
        this->reader().detach(ns);  // what the server does before it deletes a namespace
        ASSERT_EQ(w.delete_namespace(ns), PMIX_SUCCESS);
        if (i == 250) at250 = sample(w);
    }
    const Sample at2000 = sample(w);
    std::printf(
        "churn: directory %zu/%zu/%zu bytes, %zu entries; shm %zu/%zu/%zu bytes; "
        "heap %zu/%zu/%zu bytes (0/250/2000 namespaces)\n",
        at0.dir.bytes_reserved, at250.dir.bytes_reserved, at2000.dir.bytes_reserved,
        at2000.dir.capacity, at0.shm, at250.shm, at2000.shm, at0.heap, at250.heap, at2000.heap);
    EXPECT_EQ(at2000.dir.namespaces, 1u);
    EXPECT_EQ(at2000.dir.segments, 1u);
    EXPECT_EQ(at2000.dir.bytes_reserved, at0.dir.bytes_reserved);
    EXPECT_EQ(at2000.dir.capacity, at0.dir.capacity);
    EXPECT_LE(at2000.shm, at250.shm);
    if (at250.heap != 0) {
        EXPECT_LE(at2000.heap, at250.heap + 16 * 1024);  // was +233 KiB
    } else {
        std::printf("churn: heap not judged (a sanitizer's allocator reports no mallinfo2)\n");
    }
    EXPECT_EQ(this->get_u64("job.keep", Entity::job(), "k"), 7u);
}

// More namespaces alive at once than segment 0 holds: the directory chains a segment, finds
// every one, and reuses the entries when they go (its size follows the peak, not the total).
TYPED_TEST(Churn, DirectoryGrowsWithNamespacesAliveAtOnce) {
    pmix::gds::StoreOptions o;
    o.segment_bytes = 4096;
    this->open(o);
    auto& w = this->writer();
    const std::size_t first = w.directory_stats().capacity;
    const int alive = static_cast<int>(first) + 10;
    for (int round = 0; round < 3; ++round) {
        for (int i = 0; i < alive; ++i) {
            ASSERT_EQ(w.begin_namespace(churn_name(i)), PMIX_SUCCESS);
            this->put_u64(churn_name(i), Entity::job(), "n", static_cast<std::uint64_t>(i));
        }
        ASSERT_EQ(w.commit(), PMIX_SUCCESS);
        EXPECT_EQ(w.directory_stats().namespaces, static_cast<std::size_t>(alive));
        auto fresh = w.make_reader();  // looks every one up in the directory
        for (int i = 0; i < alive; ++i) {
            Value v;
            ASSERT_EQ(fresh->get(churn_name(i), Entity::job(), "n", &v), PMIX_SUCCESS) << i;
            EXPECT_EQ(v.v.data.uint64, static_cast<std::uint64_t>(i));
        }
        for (int i = 0; i < alive; ++i) {
            ASSERT_EQ(w.delete_namespace(churn_name(i)), PMIX_SUCCESS);
        }
        EXPECT_EQ(w.directory_stats().namespaces, 0u);
        EXPECT_EQ(w.directory_stats().segments, 2u) << "round " << round;
    }
}

// Reader threads, each with its own reader (so each one also frees what it detaches), read a
// namespace that stays while the writer creates and deletes 2,000 others, whose directory
// entries are reused all along; they look the others up too. A lookup finds a namespace's own
// data or nothing, never another namespace's.
TYPED_TEST(Churn, ReadersOfOtherNamespacesWhileEntriesAreReused) {
    pmix::gds::StoreOptions o;
    o.segment_bytes = 16 * 1024;
    this->open(o);
    auto& w = this->writer();
    constexpr int kKeys = 32;
    ASSERT_EQ(w.begin_namespace("job.keep"), PMIX_SUCCESS);
    for (int k = 0; k < kKeys; ++k) {
        this->put_u64("job.keep", Entity::job(), "k." + std::to_string(k),
                      static_cast<std::uint64_t>(k * 11));
    }
    ASSERT_EQ(w.commit(), PMIX_SUCCESS);
    constexpr int kThreads = 4;
    std::vector<std::unique_ptr<pmix::gds::StoreReader>> readers;
    for (int t = 0; t < kThreads; ++t) {
        readers.push_back(w.make_reader());
        ASSERT_NE(readers.back(), nullptr);
    }
    std::atomic<int> newest{0};
    std::atomic<bool> done{false};
    std::atomic<int> wrong{0};
    std::atomic<long> found{0};
    std::atomic<long> keep_reads{0};
    auto reader_loop = [&](pmix::gds::StoreReader& r, unsigned seed) {
        std::mt19937 rng(seed);
        do {
            const int k = static_cast<int>(rng() % kKeys);
            Value v;
            if (r.get("job.keep", Entity::job(), "k." + std::to_string(k), &v) != PMIX_SUCCESS ||
                v.v.data.uint64 != static_cast<std::uint64_t>(k * 11)) {
                wrong.fetch_add(1);
            }
            keep_reads.fetch_add(1, std::memory_order_relaxed);
            const int j = newest.load() - static_cast<int>(rng() % 4);
            if (j > 0) {
                Value n;
                const pmix_status_t rc = r.get(churn_name(j), Entity::job(), "n", &n);
                if (rc == PMIX_SUCCESS) {
                    found.fetch_add(1, std::memory_order_relaxed);
                    wrong.fetch_add(n.v.data.uint64 == static_cast<std::uint64_t>(j) ? 0 : 1);
                } else if (rc != PMIX_ERR_NOT_FOUND) {
                    wrong.fetch_add(1);
                }
                r.detach(churn_name(j));  // only this thread reads through r
            }
        } while (!done.load() && wrong.load() == 0);
    };
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back(reader_loop, std::ref(*readers[t]), static_cast<unsigned>(t + 1));
    }
    bool writer_ok = true;
    for (int i = 1; i <= 2000 && writer_ok && wrong.load() == 0; ++i) {
        Value n;
        make_u64(&n.v, static_cast<std::uint64_t>(i));
        writer_ok = w.begin_namespace(churn_name(i)) == PMIX_SUCCESS &&
                    w.put(churn_name(i), Entity::job(), "n", n.v) == PMIX_SUCCESS &&
                    w.commit() == PMIX_SUCCESS;
        newest.store(i);
        if (i > 3) {  // three alive at a time: entries are freed and taken again all along
            writer_ok = writer_ok && w.delete_namespace(churn_name(i - 3)) == PMIX_SUCCESS;
        }
    }
    done.store(true);
    for (auto& t : threads) {
        t.join();
    }
    EXPECT_TRUE(writer_ok);
    EXPECT_EQ(wrong.load(), 0);
    EXPECT_GE(keep_reads.load(), kThreads);
    std::printf("churn: %ld reads of the namespace that stays, %ld of churned ones found\n",
                keep_reads.load(), found.load());
    EXPECT_EQ(w.directory_stats().segments, 1u);
    readers.clear();
}

// One reader shared by two threads: the one that detaches must not free what the other may be
// looking through (the reader keeps detached attachments then). The other thread alternates
// between two namespaces, so its lookups walk the reader's table all along (ASan/TSan would see a
// table or an attachment freed under it).
TYPED_TEST(Churn, SharedReaderKeepsWhatOtherThreadsMayHold) {
    auto& w = this->writer();
    for (const char* ns : {"job.keep.a", "job.keep.b"}) {
        ASSERT_EQ(w.begin_namespace(ns), PMIX_SUCCESS);
        this->put_string(ns, Entity::job(), "name", ns);
    }
    ASSERT_EQ(w.commit(), PMIX_SUCCESS);
    std::atomic<bool> done{false};
    std::atomic<int> wrong{0};
    std::atomic<int> rounds{0};
    std::thread other([&] {
        do {
            for (const char* ns : {"job.keep.a", "job.keep.b"}) {
                Value v;
                if (this->reader().get(ns, Entity::job(), "name", &v) != PMIX_SUCCESS ||
                    std::string(v.v.data.string) != ns) {
                    wrong.fetch_add(1);
                }
            }
            rounds.fetch_add(1);
        } while (!done.load());
    });
    while (rounds.load() == 0) {
        std::this_thread::yield();
    }
    bool ok = true;  // no ASSERT while the other thread runs: it would be left unjoined
    for (int i = 1; i <= 300 && ok && wrong.load() == 0; ++i) {
        const std::string ns = churn_name(i);
        Value n;
        make_u64(&n.v, static_cast<std::uint64_t>(i));
        ok = w.begin_namespace(ns) == PMIX_SUCCESS &&
             w.put(ns, Entity::job(), "n", n.v) == PMIX_SUCCESS && w.commit() == PMIX_SUCCESS &&
             this->get_u64(ns, Entity::job(), "n") == static_cast<std::uint64_t>(i);
        this->reader().detach(ns);
        ok = ok && w.delete_namespace(ns) == PMIX_SUCCESS;
    }
    done.store(true);
    other.join();
    EXPECT_TRUE(ok);
    EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace gds_test

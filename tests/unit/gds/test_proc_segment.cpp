// tests/unit/gds/test_proc_segment.cpp - a process's own modex segment (gds/proc_segment.h): what
// a peer reads from it, what it refuses (another rank's segment, a wrong owner, damage of any
// kind, an object that is not a sealed memfd), that nobody can shrink it under a reader, what a
// retired segment tells readers, and that a writer killed at any moment leaves readers on a
// complete earlier commit or a clean error. A Get that meets a damaged segment falls back to the server's store
// (here a heap store holding the same commits), as client/store_path.cpp does.
#include "samples.h"

#include "gds/backing.h"
#include "gds/proc_segment.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <random>
#include <thread>

namespace gds_test {
namespace {

using pmix::gds::Entity;
using pmix::gds::kErrCorrupt;
using pmix::gds::ModexPut;
using pmix::gds::OwnSegment;

constexpr char kNs[] = "job.seg";
constexpr pmix_rank_t kRank = 3;

std::string value_of(int key, int generation) {
    return "key-" + std::to_string(key) + "-gen-" + std::to_string(generation) +
           std::string(40, 'x');
}

// The owner's commit of keys 0..n-1 at `generation`, into its segment and the "server" store.
void commit_both(OwnSegment& own, pmix::gds::StoreWriter& server, int n, int generation) {
    std::vector<Value> values(static_cast<std::size_t>(n));
    std::vector<std::string> keys;
    std::vector<ModexPut> puts;
    for (int k = 0; k < n; ++k) keys.push_back("peer.key." + std::to_string(k));
    ASSERT_EQ(server.begin_namespace(kNs), PMIX_SUCCESS);
    for (int k = 0; k < n; ++k) {
        make_string(&values[static_cast<std::size_t>(k)], value_of(k, generation));
        puts.push_back({PMIX_GLOBAL, keys[static_cast<std::size_t>(k)],
                        values[static_cast<std::size_t>(k)].get()});
        ASSERT_EQ(server.put_modex(kNs, kRank, PMIX_GLOBAL, keys[static_cast<std::size_t>(k)],
                                   values[static_cast<std::size_t>(k)].v),
                  PMIX_SUCCESS);
    }
    ASSERT_EQ(own.commit(puts.data(), puts.size()), PMIX_SUCCESS);
    ASSERT_EQ(server.commit(), PMIX_SUCCESS);
}

// client/store_path.cpp's order: the peer's segment unless distrusted, then the server's store.
struct PeerGet {
    pmix::gds::StoreReader* segment = nullptr;
    pmix::gds::StoreReader* server = nullptr;
    bool distrusted = false;

    pmix_status_t get(const std::string& key, pmix_value_t* out) {
        if (segment != nullptr && !distrusted) {
            const pmix_status_t rc = segment->get(kNs, Entity::proc(kRank), key, out);
            if (rc == PMIX_SUCCESS) return rc;
            if (rc == kErrCorrupt) distrusted = true;
        }
        return server->get(kNs, Entity::proc(kRank), key, out);
    }
};

std::unique_ptr<OwnSegment> make_own() {
    std::unique_ptr<OwnSegment> own;
    EXPECT_EQ(OwnSegment::create(kNs, kRank, own), PMIX_SUCCESS);
    return own;
}

TEST(ProcSegment, PeerReadsNewestCommitWithScope) {
    auto own = make_own();
    ASSERT_NE(own, nullptr);
    Value a, b;
    make_string(&a, "first");
    make_u32(&b, 7);
    ModexPut puts[] = {{PMIX_SCOPE_UNDEF, "k.a", a.get()}, {PMIX_REMOTE, "k.b", b.get()}};
    ASSERT_EQ(own->commit(puts, 2), PMIX_SUCCESS);
    pmix_status_t rc = PMIX_ERROR;
    auto reader = pmix::gds::open_peer_segment(own->announcement(), kNs, kRank, &rc);
    ASSERT_NE(reader, nullptr) << rc;
    Value got;
    ASSERT_EQ(reader->get(kNs, Entity::proc(kRank), "k.a", &got), PMIX_SUCCESS);
    EXPECT_STREQ(got.v.data.string, "first");
    // Scope kept as the server's store keeps it: UNDEF stored as GLOBAL, REMOTE as REMOTE.
    Value scoped;
    EXPECT_EQ(reader->get(kNs, Entity::proc(kRank), "k.b", &scoped, pmix::gds::kLocalPeer),
              PMIX_ERR_NOT_FOUND);
    EXPECT_EQ(reader->get(kNs, Entity::proc(kRank), "k.b", &scoped, pmix::gds::kRemotePeer),
              PMIX_SUCCESS);
    Value again;
    make_string(&again, "second");
    ModexPut next[] = {{PMIX_GLOBAL, "k.a", again.get()}};
    ASSERT_EQ(own->commit(next, 1), PMIX_SUCCESS);
    Value newest;
    ASSERT_EQ(reader->get(kNs, Entity::proc(kRank), "k.a", &newest), PMIX_SUCCESS);
    EXPECT_STREQ(newest.v.data.string, "second");
}

TEST(ProcSegment, RefusedForAnotherRankOrNamespace) {
    auto own = make_own();
    ASSERT_NE(own, nullptr);
    pmix_status_t rc = PMIX_SUCCESS;
    EXPECT_EQ(pmix::gds::open_peer_segment(own->announcement(), kNs, kRank + 1, &rc), nullptr);
    EXPECT_EQ(rc, kErrCorrupt);
    EXPECT_EQ(pmix::gds::open_peer_segment(own->announcement(), "job.other", kRank, &rc), nullptr);
    EXPECT_EQ(pmix::gds::open_peer_segment("/pmixgds-test-1-999999", kNs, kRank, &rc), nullptr);
    // Another segment's nonce (the same descriptor reused after PMIx_Init again): refused.
    const std::string& a = own->announcement();
    EXPECT_EQ(pmix::gds::open_peer_segment(a.substr(0, a.rfind('#')) + "#1", kNs, kRank, &rc),
              nullptr);
    EXPECT_EQ(rc, kErrCorrupt);
}

// A store in POSIX shared memory (its writer could shrink it under a reader) is no segment a
// peer reads, even with a well-formed owner stamp.
TEST(ProcSegment, UnsealedStoreIsRefused) {
    pmix::gds::StoreOptions options;
    options.prefix = kShmPrefix;
    auto shm = pmix::gds::make_shm_store(options);
    ASSERT_NE(shm, nullptr);
    Value stamp;
    make_string(&stamp, std::to_string(kRank) + ":" + std::to_string(::getpid()) + ":7");
    ASSERT_EQ(shm->begin_namespace(kNs), PMIX_SUCCESS);
    ASSERT_EQ(shm->put(kNs, Entity::job(), pmix::gds::kOwnerKey, stamp.v), PMIX_SUCCESS);
    ASSERT_EQ(shm->commit(), PMIX_SUCCESS);
    pmix_status_t rc = PMIX_SUCCESS;
    EXPECT_EQ(pmix::gds::open_peer_segment(shm->locator() + "#7", kNs, kRank, &rc), nullptr);
    EXPECT_EQ(rc, kErrCorrupt);
    EXPECT_NE(pmix::gds::check_announced(shm->locator() + "#7", kNs, kRank, ::getpid(),
                                         ::geteuid()),
              PMIX_SUCCESS);
}

TEST(ProcSegment, ServerCheckOfTheAnnouncement) {
    auto own = make_own();
    ASSERT_NE(own, nullptr);
    const std::string& ann = own->announcement();
    const pid_t me = ::getpid();
    const uid_t uid = ::geteuid();
    EXPECT_EQ(pmix::gds::check_announced(ann, kNs, kRank, me, uid), PMIX_SUCCESS);
    // Another pid than the connection's, another owner: refused.
    EXPECT_NE(pmix::gds::check_announced(ann, kNs, kRank, me + 1, uid), PMIX_SUCCESS);
    EXPECT_NE(pmix::gds::check_announced(ann, kNs, kRank, me, uid + 1), PMIX_SUCCESS);
    // No nonce, or not a /proc/<pid>/fd name: refused.
    EXPECT_NE(pmix::gds::check_announced(ann.substr(0, ann.rfind('#')), kNs, kRank, me, uid),
              PMIX_SUCCESS);
    EXPECT_NE(pmix::gds::check_announced("/etc/passwd#1", kNs, kRank, me, uid), PMIX_SUCCESS);
    // The stamp: checked by the deep check (and by every peer at attach).
    EXPECT_EQ(pmix::gds::check_announced(ann, kNs, kRank, me, uid, true), PMIX_SUCCESS);
    EXPECT_NE(pmix::gds::check_announced(ann, kNs, kRank + 1, me, uid, true), PMIX_SUCCESS);
    EXPECT_NE(pmix::gds::check_announced(ann, "job.x", kRank, me, uid, true), PMIX_SUCCESS);
    // Writable by the group: a peer could change what others read.
    const int fd = ::open(own->writer().locator().c_str(), O_RDWR);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::fchmod(fd, 0660), 0);
    ::close(fd);
    EXPECT_EQ(pmix::gds::check_announced(ann, kNs, kRank, me, uid), PMIX_ERR_NO_PERMISSIONS);
    EXPECT_EQ(pmix::gds::prefix_of_locator("/pmixgds-12-0"), "/pmixgds");
    EXPECT_EQ(pmix::gds::prefix_of_locator("/a-b-12-0"), "/a-b");
    EXPECT_EQ(pmix::gds::prefix_of_locator("/pmixgds"), "");
}

// Every shared-memory object of the owner's segment, mapped writable.
struct Scribbler {
    std::vector<std::pair<std::byte*, std::size_t>> maps;
    explicit Scribbler(const std::vector<std::string>& names) {
        for (const auto& n : names) {
            const int fd = ::open(n.c_str(), O_RDWR);  // the owner's own /proc/<pid>/fd
            struct stat st {};
            if (fd < 0) continue;
            if (::fstat(fd, &st) == 0 && st.st_size > 0) {
                void* p = ::mmap(nullptr, static_cast<std::size_t>(st.st_size),
                                 PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
                if (p != MAP_FAILED) {
                    maps.emplace_back(static_cast<std::byte*>(p), st.st_size);
                }
            }
            ::close(fd);
        }
    }
    ~Scribbler() {
        for (auto& [p, n] : maps) ::munmap(p, n);
    }
    // `count` random bytes at random places of [lo, hi) of a random object.
    void scribble(std::mt19937& rng, std::size_t lo, std::size_t hi, int count) {
        for (int i = 0; i < count && !maps.empty(); ++i) {
            auto& [p, n] = maps[rng() % maps.size()];
            const std::size_t top = std::min(hi, n);
            if (top <= lo) continue;
            p[lo + rng() % (top - lo)] = static_cast<std::byte>(rng());
        }
    }
};

std::vector<std::string> objects_of(OwnSegment& own) {
    std::vector<std::string> names = own.writer().segment_names(kNs);
    names.insert(names.begin(), own.writer().locator());
    return names;
}

// Damage in `[lo, hi)` of the segment's objects, read through a reader attached before and one
// attached after: every Get answers the committed value, from the segment or the fallback, or a
// clean error; nothing crashes (ASan checks the reads).
void damage_round(unsigned seed, std::size_t lo, std::size_t hi, bool header_or_index) {
    auto own = make_own();
    ASSERT_NE(own, nullptr);
    auto server = HeapKind::make();
    auto server_reader = server->make_reader();
    commit_both(*own, *server, 8, 1);
    pmix_status_t rc = PMIX_SUCCESS;
    auto before = pmix::gds::open_peer_segment(own->announcement(), kNs, kRank, &rc);
    ASSERT_NE(before, nullptr);
    std::mt19937 rng(seed);
    {
        Scribbler s(objects_of(*own));
        s.scribble(rng, lo, hi, 1 + static_cast<int>(rng() % 64));
    }
    auto after = pmix::gds::open_peer_segment(own->announcement(), kNs, kRank, &rc);
    for (auto* seg : {before.get(), after.get()}) {
        PeerGet g{seg, server_reader.get()};
        for (int k = 0; k < 8; ++k) {
            Value v;
            const pmix_status_t st = g.get("peer.key." + std::to_string(k), &v.v);
            ASSERT_TRUE(st == PMIX_SUCCESS || st == PMIX_ERR_NOT_FOUND || st == kErrCorrupt)
                << st;
            if (st != PMIX_SUCCESS) continue;
            ASSERT_EQ(v.v.type, PMIX_STRING);
            if (header_or_index) {
                // Structure damaged, payloads intact: the right value or the fallback's.
                EXPECT_EQ(std::string(v.v.data.string), value_of(k, 1)) << "seed " << seed;
            } else {
                // A payload byte changed is the owner's own data changed (it could have put
                // that): bounded and well-formed is all a reader can check.
                EXPECT_LT(std::strlen(v.v.data.string), 4096u);
            }
        }
    }
}

TEST(ProcSegment, DamagedHeaderIsRefused) {
    for (unsigned seed = 1; seed <= 200; ++seed) {
        damage_round(seed, 0, 256, true);
        if (HasFatalFailure()) return;
    }
}

TEST(ProcSegment, RandomDamageAnywhereNeverCrashes) {
    for (unsigned seed = 1; seed <= 300; ++seed) {
        damage_round(seed, 0, std::size_t{1} << 20, false);
        if (HasFatalFailure()) return;
    }
}

// The SIGBUS the fence boards once suffered (tests/faults truncated_board): an owner that shrinks
// its segment under a reader. Sealed: ftruncate fails with EPERM, for the owner as for anyone,
// and a reader attached before and one attached after read every value.
TEST(ProcSegment, NobodyCanShrinkASegment) {
    auto own = make_own();
    ASSERT_NE(own, nullptr);
    auto server = HeapKind::make();
    commit_both(*own, *server, 4, 1);
    pmix_status_t rc = PMIX_SUCCESS;
    auto before = pmix::gds::open_peer_segment(own->announcement(), kNs, kRank, &rc);
    ASSERT_NE(before, nullptr) << rc;
    for (const std::string& name : objects_of(*own)) {
        const int fd = ::open(name.c_str(), O_RDWR);
        ASSERT_GE(fd, 0) << name;
        errno = 0;
        EXPECT_EQ(::ftruncate(fd, 100), -1) << name;
        EXPECT_EQ(errno, EPERM) << name;
        EXPECT_EQ(::ftruncate(fd, std::int64_t{1} << 30), -1) << name;  // nor grow
        ::close(fd);
    }
    auto after = pmix::gds::open_peer_segment(own->announcement(), kNs, kRank, &rc);
    ASSERT_NE(after, nullptr) << rc;
    for (auto* reader : {before.get(), after.get()}) {
        for (int k = 0; k < 4; ++k) {
            Value v;
            ASSERT_EQ(reader->get(kNs, Entity::proc(kRank), "peer.key." + std::to_string(k), &v.v),
                      PMIX_SUCCESS);
            EXPECT_EQ(std::string(v.v.data.string), value_of(k, 1));
        }
    }
}

// What the owner says with retire reaches a reader already attached: closed keeps the data
// readable; abandoned says it must not be read (client/peer_segments.cpp then reads the
// server's store). Retiring needs no space: it works on a segment the writer could not grow.
TEST(ProcSegment, RetiredSegmentTellsItsReaders) {
    auto own = make_own();
    ASSERT_NE(own, nullptr);
    auto server = HeapKind::make();
    commit_both(*own, *server, 2, 1);
    pmix_status_t rc = PMIX_SUCCESS;
    auto reader = pmix::gds::open_peer_segment(own->announcement(), kNs, kRank, &rc);
    ASSERT_NE(reader, nullptr) << rc;
    using Retired = pmix::gds::StoreReader::Retired;
    EXPECT_EQ(reader->retired(kNs), Retired::live);
    own->retire(false);
    EXPECT_EQ(reader->retired(kNs), Retired::closed);
    Value v;
    ASSERT_EQ(reader->get(kNs, Entity::proc(kRank), "peer.key.1", &v.v), PMIX_SUCCESS);
    EXPECT_EQ(std::string(v.v.data.string), value_of(1, 1));
    own->retire(true);
    EXPECT_EQ(reader->retired(kNs), Retired::abandoned);
    // A reader attached afterwards sees it too.
    auto later = pmix::gds::open_peer_segment(own->announcement(), kNs, kRank, &rc);
    ASSERT_NE(later, nullptr) << rc;
    EXPECT_EQ(later->retired(kNs), Retired::abandoned);
}

// A writer killed at a random moment of a commit loop: what readers see is always one whole
// earlier commit (all keys of one generation), the last one published stays readable.
TEST(ProcSegment, WriterKilledMidCommitLeavesPreviousData) {
    for (int round = 0; round < 6; ++round) {
        int pipefd[2];
        ASSERT_EQ(::pipe(pipefd), 0);
        const pid_t child = ::fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            ::close(pipefd[0]);
            std::unique_ptr<OwnSegment> own;
            if (OwnSegment::create(kNs, kRank, own) != PMIX_SUCCESS) ::_exit(2);
            char name[128] = {};
            std::strncpy(name, own->announcement().c_str(), sizeof name - 1);
            for (int gen = 1;; ++gen) {
                // One commit: the same generation in every key (a torn commit would mix them).
                std::vector<Value> vals(4);
                std::vector<std::string> keys;
                std::vector<ModexPut> puts;
                for (int k = 0; k < 4; ++k) keys.push_back("peer.key." + std::to_string(k));
                for (int k = 0; k < 4; ++k) {
                    make_string(&vals[static_cast<std::size_t>(k)], value_of(0, gen));
                    puts.push_back({PMIX_GLOBAL, keys[static_cast<std::size_t>(k)],
                                    vals[static_cast<std::size_t>(k)].get()});
                }
                if (own->commit(puts.data(), puts.size()) != PMIX_SUCCESS) ::_exit(3);
                if (gen == 1 && ::write(pipefd[1], name, sizeof name) != sizeof name) ::_exit(4);
            }
        }
        ::close(pipefd[1]);
        char name[128] = {};
        ASSERT_EQ(::read(pipefd[0], name, sizeof name), static_cast<ssize_t>(sizeof name));
        ::close(pipefd[0]);
        pmix_status_t rc = PMIX_SUCCESS;
        auto reader = pmix::gds::open_peer_segment(name, kNs, kRank, &rc);
        ASSERT_NE(reader, nullptr) << rc;
        std::mt19937 rng(static_cast<unsigned>(round));
        const auto stop = std::chrono::steady_clock::now() +
                          std::chrono::microseconds(2000 + rng() % 20000);
        while (std::chrono::steady_clock::now() < stop) {
            Value v;
            ASSERT_EQ(reader->get(kNs, Entity::proc(kRank), "peer.key.0", &v.v), PMIX_SUCCESS);
        }
        ::kill(child, SIGKILL);
        int status = 0;
        ASSERT_EQ(::waitpid(child, &status, 0), child);
        // After the kill: every key of one generation, the newest published; or a clean error
        // where the commit the reader now reaches lies in a segment it had not mapped yet (its
        // memfd went with the writer: the client reads the server's store then).
        std::string first;
        for (int k = 0; k < 4; ++k) {
            Value v;
            const pmix_status_t st =
                reader->get(kNs, Entity::proc(kRank), "peer.key." + std::to_string(k), &v.v);
            ASSERT_TRUE(st == PMIX_SUCCESS || st == PMIX_ERR_NOT_FOUND || st == kErrCorrupt) << st;
            if (st != PMIX_SUCCESS) continue;
            if (first.empty()) first = v.v.data.string;
            EXPECT_EQ(first, std::string(v.v.data.string));
        }
    }
}

// The owner scribbling over its own segment while a peer reads it: the peer reads that rank's
// values or errors, never another rank's data, never crashes; and a segment made for one rank
// cannot be passed off as another's.
TEST(ProcSegment, HostileOwnerCannotShowAnotherRanksData) {
    auto own = make_own();
    ASSERT_NE(own, nullptr);
    auto server = HeapKind::make();
    auto server_reader = server->make_reader();
    commit_both(*own, *server, 8, 1);
    // The owner also files data under another rank in its own store.
    Value foreign;
    make_string(&foreign, "not-yours");
    ModexPut dummy[] = {{PMIX_GLOBAL, "unused", foreign.get()}};
    ASSERT_EQ(own->commit(dummy, 1), PMIX_SUCCESS);
    ASSERT_EQ(own->writer().put_modex(kNs, kRank + 1, PMIX_GLOBAL, "peer.key.0", foreign.v),
              PMIX_SUCCESS);
    ASSERT_EQ(own->writer().commit(), PMIX_SUCCESS);
    pmix_status_t rc = PMIX_SUCCESS;
    EXPECT_EQ(pmix::gds::open_peer_segment(own->announcement(), kNs, kRank + 1, &rc), nullptr);
    auto reader = pmix::gds::open_peer_segment(own->announcement(), kNs, kRank, &rc);
    ASSERT_NE(reader, nullptr);
    std::atomic<bool> done{false};
    std::thread hostile([&] {
        Scribbler s(objects_of(*own));
        std::mt19937 rng(42);
        while (!done.load()) s.scribble(rng, 0, std::size_t{1} << 20, 16);
    });
    PeerGet g{reader.get(), server_reader.get()};
    for (int i = 0; i < 20000; ++i) {
        Value v;
        const int k = i % 8;
        const pmix_status_t st = g.get("peer.key." + std::to_string(k), &v.v);
        ASSERT_TRUE(st == PMIX_SUCCESS || st == PMIX_ERR_NOT_FOUND || st == kErrCorrupt);
        if (st == PMIX_SUCCESS && v.v.type == PMIX_STRING && v.v.data.string != nullptr) {
            EXPECT_NE(std::string(v.v.data.string), "not-yours");
        }
    }
    done.store(true);
    hostile.join();
}

// A forked child that ends normally destroys its copy of the owner's segment (static destructors
// at exit): that closes the child's descriptors only, and a peer can still attach and read.
TEST(ProcSegment, AForkedChildEndingDoesNotRemoveTheParentsSegment) {
    auto own = make_own();
    ASSERT_NE(own, nullptr);
    Value a;
    make_string(&a, "kept");
    ModexPut puts[] = {{PMIX_GLOBAL, "k.a", a.get()}};
    ASSERT_EQ(own->commit(puts, 1), PMIX_SUCCESS);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        own.reset();  // what exit() does to a global owner
        ::_exit(0);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    pmix_status_t rc = PMIX_ERROR;
    auto reader = pmix::gds::open_peer_segment(own->announcement(), kNs, kRank, &rc);
    ASSERT_NE(reader, nullptr) << rc;
    Value got;
    ASSERT_EQ(reader->get(kNs, Entity::proc(kRank), "k.a", &got), PMIX_SUCCESS);
    EXPECT_STREQ(got.v.data.string, "kept");
}

}  // namespace
}  // namespace gds_test

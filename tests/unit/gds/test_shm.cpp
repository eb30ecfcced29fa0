// tests/unit/gds/test_shm.cpp - what only shared memory can show: other processes reading while
// the writer appends, a reader that writes into its mapping dying alone, names that never
// outlive the store, and store selection.
#include "samples.h"

#include "gds/backing.h"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>

namespace gds_test {
namespace {

using pmix::gds::Entity;

class Shm : public ::testing::Test {
protected:
    void SetUp() override {
        writer_ = ShmKind::make();
        ASSERT_NE(writer_, nullptr);
        ASSERT_EQ(writer_->begin_namespace("job.shm"), PMIX_SUCCESS);
        put_u64(Entity::job(), "counter", 0);
        put_string(Entity::job(), PMIX_HOSTNAME, "hello");
        ASSERT_EQ(writer_->commit(), PMIX_SUCCESS);
    }
    void TearDown() override {
        writer_.reset();
        EXPECT_TRUE(shm_objects(kShmPrefix + 1).empty());
    }
    void put_u64(const Entity& e, const std::string& key, std::uint64_t x) {
        Value v;
        make_u64(&v, x);
        ASSERT_EQ(writer_->put("job.shm", e, key, v.v), PMIX_SUCCESS);
    }
    void put_string(const Entity& e, const std::string& key, const std::string& s) {
        Value v;
        make_string(&v, s);
        ASSERT_EQ(writer_->put("job.shm", e, key, v.v), PMIX_SUCCESS);
    }

    pmix::gds::NamespaceStats stats(const std::string& ns) {
        pmix::gds::NamespaceStats out;
        EXPECT_EQ(writer_->stats(ns, out), PMIX_SUCCESS);
        return out;
    }

    std::unique_ptr<pmix::gds::StoreWriter> writer_;
};

// Child process bodies return an exit code; they never return into gtest.
[[noreturn]] void run_child(int (*body)(const std::string&), const std::string& locator) {
    ::alarm(60);  // a stuck child dies instead of hanging the suite
    ::_exit(body(locator));
}

int wait_exit(pid_t pid, int* signal_out = nullptr) {
    int status = 0;
    if (::waitpid(pid, &status, 0) != pid) {
        return -1;
    }
    if (WIFSIGNALED(status)) {
        if (signal_out != nullptr) {
            *signal_out = WTERMSIG(status);
        }
        return -2;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -3;
}

constexpr std::uint64_t kFinal = 400;

// Reads until the counter reaches kFinal, checking every snapshot: the counter never goes back,
// each key committed before the counter is there with its value.
int consistent_reader(const std::string& locator) {
    pmix_status_t rc = PMIX_SUCCESS;
    auto reader = pmix::gds::open_shm_reader(locator, &rc);
    if (reader == nullptr) {
        return 10;
    }
    std::mt19937 rng(static_cast<unsigned>(::getpid()));
    std::uint64_t last = 0;
    while (last < kFinal) {
        Value c;
        if (reader->get("job.shm", Entity::job(), "counter", &c) != PMIX_SUCCESS ||
            c.v.data.uint64 < last) {
            return 11;
        }
        last = c.v.data.uint64;
        for (int n = 0; n < 8 && last != 0; ++n) {
            const std::uint64_t i = 1 + rng() % last;
            Value k;
            if (reader->get("job.shm", Entity::proc(static_cast<pmix_rank_t>(i % 32)),
                            "key." + std::to_string(i), &k) != PMIX_SUCCESS ||
                k.v.data.uint64 != i) {
                return 12;
            }
        }
    }
    return 0;
}

TEST_F(Shm, ReaderProcessesWhileWriterAppends) {
    pmix::gds::StoreOptions o;
    o.segment_bytes = 64 * 1024;
    o.grow = false;
    writer_ = ShmKind::make(o);  // small segments: the children follow the chain as it grows
    ASSERT_EQ(writer_->begin_namespace("job.shm"), PMIX_SUCCESS);
    put_u64(Entity::job(), "counter", 0);
    ASSERT_EQ(writer_->commit(), PMIX_SUCCESS);
    std::vector<pid_t> children;
    for (int i = 0; i < 3; ++i) {
        const pid_t pid = ::fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            run_child(consistent_reader, writer_->locator());
        }
        children.push_back(pid);
    }
    for (std::uint64_t g = 1; g <= kFinal; ++g) {
        for (int n = 0; n < 20; ++n) {  // filler so that segments fill up
            put_u64(Entity::proc(static_cast<pmix_rank_t>(n)), "fill." + std::to_string(g), g);
        }
        put_u64(Entity::proc(static_cast<pmix_rank_t>(g % 32)), "key." + std::to_string(g), g);
        put_u64(Entity::job(), "counter", g);
        ASSERT_EQ(writer_->commit(), PMIX_SUCCESS);
        if (g % 50 == 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
    }
    for (const pid_t pid : children) {
        EXPECT_EQ(wait_exit(pid), 0);
    }
    pmix::gds::NamespaceStats st;
    ASSERT_EQ(writer_->stats("job.shm", st), PMIX_SUCCESS);
    EXPECT_GT(st.segments, 3u);
}

int writes_into_mapping(const std::string& locator) {
    auto reader = pmix::gds::open_shm_reader(locator);
    pmix::gds::ValueView view;
    if (reader == nullptr ||
        reader->get_view("job.shm", Entity::job(), PMIX_HOSTNAME, view) != PMIX_SUCCESS ||
        !view.zero_copy()) {
        return 20;
    }
    // Let the fault be an ordinary SIGSEGV even under a sanitizer's handler.
    ::signal(SIGSEGV, SIG_DFL);
    char* p = view.value().data.string;
    *const_cast<volatile char*>(p) = 'X';
    return 21;  // survived a write into a PROT_READ mapping: the test fails
}

int keeps_reading(const std::string& locator) {
    auto reader = pmix::gds::open_shm_reader(locator);
    if (reader == nullptr) {
        return 30;
    }
    std::uint64_t last = 0;
    while (last < 100) {
        Value host;
        Value c;
        if (reader->get("job.shm", Entity::job(), PMIX_HOSTNAME, &host) != PMIX_SUCCESS ||
            std::string(host.v.data.string) != "hello" ||
            reader->get("job.shm", Entity::job(), "counter", &c) != PMIX_SUCCESS ||
            c.v.data.uint64 < last) {
            return 31;
        }
        last = c.v.data.uint64;
    }
    return 0;
}

TEST_F(Shm, ReaderThatWritesDiesAloneOthersKeepReading) {
    const pid_t good = ::fork();
    ASSERT_GE(good, 0);
    if (good == 0) {
        run_child(keeps_reading, writer_->locator());
    }
    const pid_t bad = ::fork();
    ASSERT_GE(bad, 0);
    if (bad == 0) {
        run_child(writes_into_mapping, writer_->locator());
    }
    int sig = 0;
    EXPECT_EQ(wait_exit(bad, &sig), -2);
    EXPECT_EQ(sig, SIGSEGV);
    for (std::uint64_t g = 1; g <= 100; ++g) {
        put_u64(Entity::job(), "counter", g);
        ASSERT_EQ(writer_->commit(), PMIX_SUCCESS);
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    EXPECT_EQ(wait_exit(good), 0);
    // And the data was not changed by the attempt.
    auto reader = writer_->make_reader();
    Value host;
    ASSERT_EQ(reader->get("job.shm", Entity::job(), PMIX_HOSTNAME, &host), PMIX_SUCCESS);
    EXPECT_STREQ(host.v.data.string, "hello");
}

TEST_F(Shm, ReadersKeepTheirViewAfterTheWriterIsGone) {
    auto reader = writer_->make_reader();
    ASSERT_EQ(reader->attach("job.shm"), PMIX_SUCCESS);
    pmix::gds::ValueView view;
    ASSERT_EQ(reader->get_view("job.shm", Entity::job(), PMIX_HOSTNAME, view), PMIX_SUCCESS);
    writer_.reset();  // every name is unlinked now
    EXPECT_TRUE(shm_objects(kShmPrefix + 1).empty());
    EXPECT_STREQ(view.value().data.string, "hello");
    Value host;
    ASSERT_EQ(reader->get("job.shm", Entity::job(), PMIX_HOSTNAME, &host), PMIX_SUCCESS);
    EXPECT_STREQ(host.v.data.string, "hello");
}

// What a client does after a fence (StoreReader::warm): its view moves to the newest commit,
// including commits whose records went into segments it has not mapped yet, and reads go on
// as before. Warming an unknown or invalid namespace, or twice, changes nothing.
TEST_F(Shm, WarmMovesTheViewAcrossNewCommitsAndSegments) {
    auto reader = writer_->make_reader();
    Value first;
    ASSERT_EQ(reader->get("job.shm", Entity::job(), "counter", &first), PMIX_SUCCESS);
    const pmix::gds::NamespaceStats before = stats("job.shm");
    const std::string big(4000, 'x');
    for (int i = 1; i <= 600; ++i) {  // ~2.4 MB: the chain grows past its first segment
        put_string(Entity::proc(static_cast<pmix_rank_t>(i % 8)), "big." + std::to_string(i),
                   big + std::to_string(i));
        if (i % 100 == 0) {
            ASSERT_EQ(writer_->commit(), PMIX_SUCCESS);
        }
    }
    ASSERT_GT(stats("job.shm").segments, before.segments);
    reader->warm("job.shm");
    reader->warm("job.shm");
    reader->warm("no.such.namespace");
    reader->warm(std::string(PMIX_MAX_NSLEN + 8, 'n'));
    for (int i = 1; i <= 600; i += 37) {
        Value v;
        ASSERT_EQ(reader->get("job.shm", Entity::proc(static_cast<pmix_rank_t>(i % 8)),
                              "big." + std::to_string(i), &v),
                  PMIX_SUCCESS);
        EXPECT_EQ(std::string(v.v.data.string), big + std::to_string(i));
    }
    // Between two fences a client may read only through another reader (a peer's own segment):
    // the next warm starts where the previous one stopped and the new commit reads back.
    auto other = writer_->make_reader();
    Value seen;
    ASSERT_EQ(other->get("job.shm", Entity::job(), "counter", &seen), PMIX_SUCCESS);
    put_string(Entity::proc(3), "after.other", "fresh");
    ASSERT_EQ(writer_->commit(), PMIX_SUCCESS);
    reader->warm("job.shm");
    Value fresh;
    ASSERT_EQ(reader->get("job.shm", Entity::proc(3), "after.other", &fresh), PMIX_SUCCESS);
    EXPECT_STREQ(fresh.v.data.string, "fresh");
}

// Resident kilobytes of this process's read-only mapping of shared-memory object `name`, -1 if none.
long reader_mapping_rss_kb(const std::string& name) {
    std::FILE* f = std::fopen("/proc/self/smaps", "r");
    if (f == nullptr) return -1;
    char line[512];
    bool in_mapping = false;
    long rss = -1;
    while (std::fgets(line, sizeof line, f) != nullptr) {
        const std::string l(line);
        if (l.find(" r--s ") != std::string::npos) {
            in_mapping = l.find("/dev/shm" + name) != std::string::npos ||
                         l.find("/dev/shm/" + name) != std::string::npos;
        } else if (in_mapping && l.rfind("Rss:", 0) == 0) {
            rss = std::atol(l.c_str() + 4);
            break;
        }
    }
    std::fclose(f);
    return rss;
}

// A reader prefaults the page tables of what the namespace's first segment holds and
// kPopulateMargin beyond, not the whole segment (256 pages of a 1 MiB segment were 0.4-0.5 ms of
// PMIx_Init here).
TEST_F(Shm, ReaderPrefaultsWhatIsWrittenNotTheWholeSegment) {
    auto reader = writer_->make_reader();
    Value v;
    ASSERT_EQ(reader->get("job.shm", Entity::job(), "counter", &v), PMIX_SUCCESS);
    const pmix::gds::NamespaceStats st = stats("job.shm");
    ASSERT_EQ(st.segments, 1u);
    ASSERT_GT(st.bytes_reserved, st.bytes_used + pmix::gds::kPopulateMargin + 8192);
    const std::vector<std::string> names = writer_->segment_names("job.shm");
    ASSERT_FALSE(names.empty());
    const long rss = reader_mapping_rss_kb(names[0]);
    ASSERT_GT(rss, 0) << names[0];
    EXPECT_LE(static_cast<std::size_t>(rss) * 1024,
              st.bytes_used + pmix::gds::kPopulateMargin + 8192);
}

// StoreReader::version: unchanged until a commit is published to the namespace, different after
// one and after the namespace is deleted and registered anew; 0 for what cannot be read.
TEST_F(Shm, VersionMovesWithEachCommitAndRegistration) {
    auto reader = writer_->make_reader();
    const std::uint64_t first = reader->version("job.shm");
    EXPECT_NE(first, 0u);
    EXPECT_EQ(reader->version("job.shm"), first);
    put_string(Entity::proc(1), "v.key", "one");
    ASSERT_EQ(writer_->commit(), PMIX_SUCCESS);
    const std::uint64_t second = reader->version("job.shm");
    EXPECT_NE(second, first);
    EXPECT_EQ(reader->version("job.shm"), second);
    ASSERT_EQ(writer_->delete_namespace("job.shm"), PMIX_SUCCESS);
    ASSERT_EQ(writer_->begin_namespace("job.shm"), PMIX_SUCCESS);
    put_string(Entity::job(), PMIX_HOSTNAME, "hello");
    ASSERT_EQ(writer_->commit(), PMIX_SUCCESS);
    const std::uint64_t third = reader->version("job.shm");
    EXPECT_NE(third, 0u);
    EXPECT_NE(third, second);
    EXPECT_NE(third, first);
    EXPECT_EQ(reader->version("no.such.namespace"), 0u);
    EXPECT_EQ(reader->version(""), 0u);
    EXPECT_EQ(reader->version(std::string(PMIX_MAX_NSLEN + 8, 'n')), 0u);
}

TEST_F(Shm, NamesAreUniqueAndRemoved) {
    auto second = ShmKind::make();
    ASSERT_NE(second, nullptr);
    EXPECT_NE(second->locator(), writer_->locator());
    ASSERT_EQ(second->begin_namespace("job.other"), PMIX_SUCCESS);
    ASSERT_EQ(second->commit(), PMIX_SUCCESS);
    const auto names = writer_->segment_names("job.shm");
    ASSERT_EQ(names.size(), 1u);
    EXPECT_EQ(names[0].rfind(std::string(kShmPrefix) + "-" + std::to_string(::getpid()) + "-", 0),
              0u);
    EXPECT_EQ(shm_objects(kShmPrefix + 1).size(), 4u);  // two directories, two namespaces
    ASSERT_EQ(writer_->delete_namespace("job.shm"), PMIX_SUCCESS);
    EXPECT_EQ(shm_objects(kShmPrefix + 1).size(), 3u);
    second.reset();
    EXPECT_EQ(shm_objects(kShmPrefix + 1).size(), 1u);
}

// A namespace shared with a job's group (a server hosting another user's job): every segment,
// including those chained after the call, is 0640 with that group and still the writer's; the
// directory is 0644. Uses this process's own group, which any writer may hand out.
TEST(ShmShare, NamespaceSegmentsGoToTheGroupChainedOnesToo) {
    pmix::gds::StoreOptions o;
    o.prefix = kShmPrefix;
    o.segment_bytes = 4096;
    auto w = pmix::gds::make_shm_store(o);
    ASSERT_NE(w, nullptr);
    ASSERT_EQ(w->begin_namespace("job.shared"), PMIX_SUCCESS);
    ASSERT_EQ(w->commit(), PMIX_SUCCESS);
    EXPECT_EQ(w->share_namespace("job.none", ::getegid()), PMIX_ERR_NOT_FOUND);
    ASSERT_EQ(w->share_namespace("job.shared", ::getegid()), PMIX_SUCCESS);
    Value v;
    make_string(&v, std::string(1000, 'x'));
    for (pmix_rank_t r = 0; r < 64; ++r) {
        ASSERT_EQ(w->put("job.shared", Entity::proc(r), "big", v.v), PMIX_SUCCESS);
    }
    ASSERT_EQ(w->commit(), PMIX_SUCCESS);
    const auto names = w->segment_names("job.shared");
    ASSERT_GT(names.size(), 1u) << "the puts should have chained segments";
    auto mode_of = [](const std::string& name, struct stat& sb) {
        return ::stat(("/dev/shm" + name).c_str(), &sb) == 0;
    };
    for (const auto& name : names) {
        struct stat sb {};
        ASSERT_TRUE(mode_of(name, sb)) << name;
        EXPECT_EQ(sb.st_mode & 0777, 0640u) << name;
        EXPECT_EQ(sb.st_gid, ::getegid()) << name;
        EXPECT_EQ(sb.st_uid, ::geteuid()) << name;
    }
    struct stat dir {};
    ASSERT_TRUE(mode_of(w->locator(), dir));
    EXPECT_EQ(dir.st_mode & 0777, 0644u);
    ASSERT_EQ(w->begin_namespace("job.private"), PMIX_SUCCESS);
    ASSERT_EQ(w->commit(), PMIX_SUCCESS);
    struct stat priv {};
    ASSERT_TRUE(mode_of(w->segment_names("job.private").at(0), priv));
    EXPECT_EQ(priv.st_mode & 0777, 0600u) << "an unshared namespace stays private";
    auto heap = HeapKind::make();
    ASSERT_EQ(heap->begin_namespace("job.heap"), PMIX_SUCCESS);
    EXPECT_EQ(heap->share_namespace("job.heap", ::getegid()), PMIX_SUCCESS);  // nothing to do
}

TEST_F(Shm, BadLocators) {
    pmix_status_t rc = PMIX_SUCCESS;
    EXPECT_EQ(pmix::gds::open_shm_reader("/pmixgds-test-no-such-segment", &rc), nullptr);
    EXPECT_EQ(rc, PMIX_ERR_NOT_FOUND);
    EXPECT_EQ(pmix::gds::open_shm_reader("no-slash", &rc), nullptr);
    EXPECT_EQ(rc, pmix::gds::kErrCorrupt);
    EXPECT_EQ(pmix::gds::open_shm_reader("", &rc), nullptr);
    EXPECT_EQ(rc, pmix::gds::kErrCorrupt);
    // The heap store has no locator another process could use.
    EXPECT_EQ(HeapKind::make()->locator(), "");
}

TEST(StoreSelection, SettingPicksTheStore) {
    using pmix::gds::StoreKind;
    EXPECT_EQ(pmix::gds::select_store_kind(nullptr), StoreKind::shm);
    EXPECT_EQ(pmix::gds::select_store_kind(""), StoreKind::shm);
    EXPECT_EQ(pmix::gds::select_store_kind("shm"), StoreKind::shm);
    EXPECT_EQ(pmix::gds::select_store_kind("ds21"), StoreKind::shm);
    EXPECT_EQ(pmix::gds::select_store_kind("hash"), StoreKind::heap);
    EXPECT_EQ(pmix::gds::select_store_kind("heap"), StoreKind::heap);
    EXPECT_EQ(pmix::gds::select_store_kind("something-else"), StoreKind::heap);
    auto heap = pmix::gds::make_store(StoreKind::heap);
    ASSERT_NE(heap, nullptr);
    EXPECT_EQ(heap->locator(), "");
    pmix::gds::StoreOptions o;
    o.prefix = kShmPrefix;
    auto shm = pmix::gds::make_store(StoreKind::shm, o);
    ASSERT_NE(shm, nullptr);
    EXPECT_NE(shm->locator(), "");
    // An unusable prefix makes shared memory fail; make_store falls back to the heap.
    o.prefix = "no/such/dir";
    pmix_status_t rc = PMIX_SUCCESS;
    EXPECT_EQ(pmix::gds::make_shm_store(o, &rc), nullptr);
    EXPECT_NE(rc, PMIX_SUCCESS);
    auto fallback = pmix::gds::make_store(StoreKind::shm, o);
    ASSERT_NE(fallback, nullptr);
    EXPECT_EQ(fallback->locator(), "");
}

}  // namespace
}  // namespace gds_test

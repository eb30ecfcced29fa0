// tests/unit/gds/test_corrupt.cpp - damaged segments are refused with kErrCorrupt, never read past
// the failed check and never crash (run under ASan): wrong stamps, references out of bounds,
// records of the wrong shape, truncated objects.
#include "samples.h"

#include "gds/index.h"
#include "gds/keys.h"
#include "gds/layout.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

namespace gds_test {
namespace {

using namespace pmix::gds::layout;
using pmix::gds::Entity;
using pmix::gds::kErrCorrupt;

// A writable mapping of a segment by name: what a buggy or hostile process could do.
class RawSegment {
public:
    explicit RawSegment(const std::string& name) {
        const int fd = ::shm_open(name.c_str(), O_RDWR, 0);
        struct stat st {};
        if (fd >= 0 && ::fstat(fd, &st) == 0) {
            size_ = static_cast<std::size_t>(st.st_size);
            void* p = ::mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            base_ = p == MAP_FAILED ? nullptr : static_cast<std::byte*>(p);
        }
        if (fd >= 0) {
            ::close(fd);
        }
    }
    ~RawSegment() {
        if (base_ != nullptr) {
            ::munmap(base_, size_);
        }
    }
    RawSegment(const RawSegment&) = delete;
    RawSegment& operator=(const RawSegment&) = delete;

    explicit operator bool() const { return base_ != nullptr; }
    std::size_t size() const { return size_; }
    SegmentHeader& header() { return *reinterpret_cast<SegmentHeader*>(base_); }
    template <typename T>
    T& at(Ref ref) {
        return *reinterpret_cast<T*>(base_ + ref_offset(ref));
    }

private:
    std::byte* base_ = nullptr;
    std::size_t size_ = 0;
};

class Corrupt : public ::testing::Test {
protected:
    void SetUp() override {
        writer_ = ShmKind::make();
        ASSERT_NE(writer_, nullptr);
        ASSERT_EQ(writer_->begin_namespace("job.bad"), PMIX_SUCCESS);
        Value host;
        make_string(&host, "hello");
        ASSERT_EQ(writer_->put("job.bad", Entity::job(), PMIX_HOSTNAME, host.v), PMIX_SUCCESS);
        Value size;
        make_u32(&size, 4);
        ASSERT_EQ(writer_->put("job.bad", Entity::job(), PMIX_JOB_SIZE, size.v), PMIX_SUCCESS);
        Value envar;
        make_sample(PMIX_ENVAR, 7, &envar);
        ASSERT_EQ(writer_->put("job.bad", Entity::job(), PMIX_SET_ENVAR, envar.v), PMIX_SUCCESS);
        ASSERT_EQ(writer_->commit(), PMIX_SUCCESS);
        attached_ = writer_->make_reader();
        ASSERT_EQ(attached_->attach("job.bad"), PMIX_SUCCESS);
        seg_ = std::make_unique<RawSegment>(writer_->segment_names("job.bad").at(0));
        ASSERT_TRUE(*seg_);
    }
    void TearDown() override {
        seg_.reset();
        attached_.reset();
        writer_.reset();  // never commits after damage: the writer trusts its own memory
        EXPECT_TRUE(shm_objects(kShmPrefix + 1).empty());
    }

    // Status of a get through the reader attached before the damage and a fresh one.
    pmix_status_t get_attached(const char* key) {
        Value v;
        return attached_->get("job.bad", Entity::job(), key, &v);
    }
    pmix_status_t get_fresh(const char* key) {
        auto reader = writer_->make_reader();
        Value v;
        return reader == nullptr ? PMIX_ERROR : reader->get("job.bad", Entity::job(), key, &v);
    }
    RootRecord& root() { return seg_->at<RootRecord>(seg_->header().root); }

    // The slot (and record) of a job-level standard key.
    std::uint64_t& slot_of(const char* key) {
        const auto probe =
            pmix::gds::Probe::value(Space::job, 0, pmix::gds::keys::standard_id(key));
        auto* slots = &seg_->at<std::uint64_t>(root().slots);
        for (std::uint64_t i = probe.hash & (root().capacity - 1);;
             i = (i + 1) & (root().capacity - 1)) {
            if (slots[i] != 0 && slot_matches_tag(slots[i], probe.hash) &&
                seg_->at<ValueRecord>(slots[i] & kRefMask).key == probe.key) {
                return slots[i];
            }
        }
    }
    ValueRecord& record_of(const char* key) {
        return seg_->at<ValueRecord>(slot_of(key) & kRefMask);
    }
    BlobHeader& blob_of(const char* key) { return seg_->at<BlobHeader>(record_of(key).payload); }

    std::unique_ptr<pmix::gds::StoreWriter> writer_;
    std::unique_ptr<pmix::gds::StoreReader> attached_;
    std::unique_ptr<RawSegment> seg_;
};

TEST_F(Corrupt, IntactStoreReads) {
    EXPECT_EQ(get_attached(PMIX_HOSTNAME), PMIX_SUCCESS);
    EXPECT_EQ(get_fresh(PMIX_SET_ENVAR), PMIX_SUCCESS);
}

TEST_F(Corrupt, WrongStampsAreRefused) {
    const std::uint64_t stamp = seg_->header().layout_stamp;
    seg_->header().layout_stamp ^= 1;
    auto reader = writer_->make_reader();
    ASSERT_NE(reader, nullptr);
    EXPECT_EQ(reader->attach("job.bad"), kErrCorrupt);
    seg_->header().layout_stamp = stamp;
    seg_->header().keys_stamp ^= 0x100;
    EXPECT_EQ(reader->attach("job.bad"), kErrCorrupt);
    seg_->header().magic = 0;
    EXPECT_EQ(get_fresh(PMIX_HOSTNAME), kErrCorrupt);
    // The directory too.
    RawSegment dir(writer_->locator());
    ASSERT_TRUE(dir);
    dir.header().layout_stamp += 1;
    pmix_status_t rc = PMIX_SUCCESS;
    EXPECT_EQ(pmix::gds::open_shm_reader(writer_->locator(), &rc), nullptr);
    EXPECT_EQ(rc, kErrCorrupt);
    dir.header().layout_stamp -= 1;
    dir.header().size += 4096;  // claims more than is mapped
    EXPECT_EQ(pmix::gds::open_shm_reader(writer_->locator(), &rc), nullptr);
    EXPECT_EQ(rc, kErrCorrupt);
}

// A directory entry left in the middle of a change (an odd sequence: a writer that died there, or
// damage; the store's fuzzer made one and each lookup then waited): lookups skip it at once and
// find the namespace again when the entry is whole. A damaged segment name is refused.
TEST_F(Corrupt, DirectoryEntryMidChangeIsSkipped) {
    RawSegment dir(writer_->locator());
    ASSERT_TRUE(dir);
    const std::size_t entries =
        (dir.size() - sizeof(SegmentHeader)) / (sizeof(std::uint64_t) + sizeof(DirEntry));
    auto& entry = dir.at<DirEntry>(
        make_ref(0, sizeof(SegmentHeader) + entries * sizeof(std::uint64_t)));  // the first
    ASSERT_EQ(std::string(entry.nspace, entry.length), "job.bad");
    entry.sequence += 1;
    auto reader = writer_->make_reader();
    ASSERT_NE(reader, nullptr);
    EXPECT_EQ(reader->attach("job.bad"), PMIX_ERR_NOT_FOUND);
    EXPECT_EQ(reader->attach("job.bad"), PMIX_ERR_NOT_FOUND);
    entry.sequence += 1;
    EXPECT_EQ(reader->attach("job.bad"), PMIX_SUCCESS);
    const char saved = entry.segment[0];
    entry.segment[0] = '\0';
    EXPECT_EQ(writer_->make_reader()->attach("job.bad"), kErrCorrupt);
    entry.segment[0] = saved;
    EXPECT_EQ(writer_->make_reader()->attach("job.bad"), PMIX_SUCCESS);
}

TEST_F(Corrupt, BadRootIsRefused) {
    const Ref good = seg_->header().root;
    const Ref record = slot_of(PMIX_HOSTNAME) & kRefMask;
    seg_->header().root = make_ref(0, seg_->size() + 64);  // past the end
    EXPECT_EQ(get_attached(PMIX_HOSTNAME), kErrCorrupt);
    seg_->header().root = make_ref(0, seg_->size() - 16);  // straddles the end
    EXPECT_EQ(get_attached(PMIX_HOSTNAME), kErrCorrupt);
    seg_->header().root = make_ref(9, 512);  // a segment that was never chained
    EXPECT_EQ(get_attached(PMIX_HOSTNAME), kErrCorrupt);
    seg_->header().root = 0;
    EXPECT_EQ(get_attached(PMIX_HOSTNAME), kErrCorrupt);
    seg_->header().root = record;  // a value record, not a root
    EXPECT_EQ(get_attached(PMIX_HOSTNAME), kErrCorrupt);
    seg_->header().root = good;
    root().capacity = 1000;  // not a power of two
    EXPECT_EQ(get_attached(PMIX_HOSTNAME), kErrCorrupt);
    root().capacity = std::uint64_t{1} << 30;  // slots past the end
    EXPECT_EQ(get_attached(PMIX_HOSTNAME), kErrCorrupt);
}

TEST_F(Corrupt, SlotsPointingOutsideAreRefused) {
    std::uint64_t& slot = slot_of(PMIX_HOSTNAME);
    const std::uint64_t tag = slot & ~kRefMask;
    slot = tag | make_ref(0, seg_->size() + 4096);
    EXPECT_EQ(get_attached(PMIX_HOSTNAME), kErrCorrupt);
    slot = tag | make_ref(0, seg_->size() - 8);  // the record would straddle the end
    EXPECT_EQ(get_fresh(PMIX_HOSTNAME), kErrCorrupt);
    slot = tag | make_ref(0, 8);  // inside the header
    EXPECT_EQ(get_attached(PMIX_HOSTNAME), kErrCorrupt);
}

TEST_F(Corrupt, BadPayloadsAreRefused) {
    ValueRecord& rec = record_of(PMIX_HOSTNAME);
    const ValueRecord saved = rec;
    rec.payload = make_ref(0, seg_->size() + 8);
    EXPECT_EQ(get_attached(PMIX_HOSTNAME), kErrCorrupt);
    rec = saved;
    blob_of(PMIX_HOSTNAME).size = 0x7fffffff;
    EXPECT_EQ(get_attached(PMIX_HOSTNAME), kErrCorrupt);
    blob_of(PMIX_HOSTNAME).size = saved.size;
    blob_of(PMIX_HOSTNAME).kind = Kind::value;
    EXPECT_EQ(get_attached(PMIX_HOSTNAME), kErrCorrupt);
    blob_of(PMIX_HOSTNAME).kind = Kind::blob;
    // A string whose NUL was overwritten.
    auto* chars = reinterpret_cast<char*>(&blob_of(PMIX_HOSTNAME) + 1);
    chars[saved.size - 1] = '!';
    EXPECT_EQ(get_attached(PMIX_HOSTNAME), kErrCorrupt);
    pmix::gds::ValueView view;
    EXPECT_EQ(attached_->get_view("job.bad", Entity::job(), PMIX_HOSTNAME, view), kErrCorrupt);
    chars[saved.size - 1] = '\0';
    EXPECT_EQ(get_attached(PMIX_HOSTNAME), PMIX_SUCCESS);
    rec.head.aux = 99;  // no such encoding
    EXPECT_EQ(get_attached(PMIX_HOSTNAME), kErrCorrupt);
    rec = saved;
    ValueRecord& size = record_of(PMIX_JOB_SIZE);
    size.size = 9;  // a scalar wider than its slot
    EXPECT_EQ(get_attached(PMIX_JOB_SIZE), kErrCorrupt);
    size.size = 2;  // the wrong width for PMIX_UINT32
    EXPECT_EQ(get_attached(PMIX_JOB_SIZE), kErrCorrupt);
}

TEST_F(Corrupt, VersionLoopsAreRefused) {
    ValueRecord& rec = record_of(PMIX_HOSTNAME);
    rec.head.generation = 1u << 30;  // "newer" than any snapshot: the reader follows prev
    rec.head.prev = slot_of(PMIX_HOSTNAME) & kRefMask;  // to itself
    EXPECT_EQ(get_attached(PMIX_HOSTNAME), kErrCorrupt);
    rec.head.prev = make_ref(0, seg_->size() * 2);
    EXPECT_EQ(get_attached(PMIX_HOSTNAME), kErrCorrupt);
}

TEST_F(Corrupt, GarbledCodecPayloadIsRefused) {
    BlobHeader& blob = blob_of(PMIX_SET_ENVAR);
    auto* bytes = reinterpret_cast<unsigned char*>(&blob + 1);
    for (std::uint32_t i = 0; i < blob.size; ++i) {
        bytes[i] = static_cast<unsigned char>(0xA5 ^ (i * 37));
    }
    EXPECT_EQ(get_attached(PMIX_SET_ENVAR), kErrCorrupt);
    pmix::gds::ValueView view;
    EXPECT_EQ(attached_->get_view("job.bad", Entity::job(), PMIX_SET_ENVAR, view), kErrCorrupt);
    blob.size /= 2;  // a truncated encoding
    record_of(PMIX_SET_ENVAR).size = blob.size;
    EXPECT_EQ(get_attached(PMIX_SET_ENVAR), kErrCorrupt);
    EXPECT_EQ(get_attached(PMIX_HOSTNAME), PMIX_SUCCESS);  // the rest still reads
}

TEST_F(Corrupt, TruncatedSegmentsAreRefused) {
    const std::string name = writer_->segment_names("job.bad").at(0);
    seg_.reset();
    attached_.reset();  // a reader that mapped the old size would fault past the new end
    const int fd = ::shm_open(name.c_str(), O_RDWR, 0);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, 8192), 0);
    EXPECT_EQ(get_fresh(PMIX_HOSTNAME), kErrCorrupt);
    ASSERT_EQ(::ftruncate(fd, 100), 0);  // not even a header
    EXPECT_EQ(get_fresh(PMIX_HOSTNAME), kErrCorrupt);
    ::close(fd);
}

// Damage in a chained segment is found when a lookup first reaches it.
TEST_F(Corrupt, DamagedChainedSegmentIsRefused) {
    pmix::gds::StoreOptions o;
    o.segment_bytes = 4096;
    o.grow = false;
    writer_ = ShmKind::make(o);
    ASSERT_EQ(writer_->begin_namespace("job.bad"), PMIX_SUCCESS);
    for (int i = 0; i < 200; ++i) {
        Value v;
        make_u64(&v, static_cast<std::uint64_t>(i));
        ASSERT_EQ(writer_->put("job.bad", Entity::proc(static_cast<pmix_rank_t>(i)), "k", v.v),
                  PMIX_SUCCESS);
        ASSERT_EQ(writer_->commit(), PMIX_SUCCESS);
    }
    const auto names = writer_->segment_names("job.bad");
    ASSERT_GT(names.size(), 3u);
    RawSegment last(names.back());
    ASSERT_TRUE(last);
    last.header().index += 1;
    auto reader = writer_->make_reader();
    Value v;
    EXPECT_EQ(reader->get("job.bad", Entity::proc(199), "k", &v), kErrCorrupt);
    last.header().index -= 1;
    RawSegment first(names.front());
    std::memcpy(first.header().next, "/no-such-segment", 17);  // the chain leads nowhere
    auto fresh = writer_->make_reader();
    EXPECT_NE(fresh->get("job.bad", Entity::proc(199), "k", &v), PMIX_SUCCESS);
}

}  // namespace
}  // namespace gds_test

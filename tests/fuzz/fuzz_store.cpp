// tests/fuzz/fuzz_store.cpp - the job-data store as a client reads it (gds/store_reader.cpp): the
// segments a server wrote, corrupted, read through the lock-free reader. A damaged segment must be
// reported (gds::kErrCorrupt, or NOT_FOUND), never read past its end.
//
// Input: segment images (fuzz_store.h), served to the reader by an in-memory Backing under their
// names, exactly as shm_open would serve them. Every get/get_view/locate/visit the client makes is
// tried on the job, the ranks, nodes by id and by name.
#include "fuzz_input.h"
#include "fuzz_store.h"

#include "data/value.h"
#include "gds/backing.h"
#include "gds/reader.h"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>

namespace {

using namespace pmix::gds;
using pmix::fuzz::Input;

// A segment image mapped as a client maps a segment: page-aligned, zero-filled past its content,
// and read-only (PROT_READ), so that a reader writing into it crashes here as it would in a client.
struct Image {
    Image(std::size_t n, std::span<const std::uint8_t> content) : size(n) {
        void* p = ::mmap(nullptr, n == 0 ? 1 : n, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return;
        if (!content.empty()) std::memcpy(p, content.data(), content.size());
        ::mprotect(p, n == 0 ? 1 : n, PROT_READ);
        bytes = static_cast<std::byte*>(p);
    }
    ~Image() {
        if (bytes != nullptr) ::munmap(bytes, size == 0 ? 1 : size);
    }
    Image(const Image&) = delete;
    Image& operator=(const Image&) = delete;
    std::byte* bytes = nullptr;
    std::size_t size;
};

class ImageMapping final : public MappedSegment {
public:
    explicit ImageMapping(std::shared_ptr<Image> image)
        : MappedSegment(image->bytes, image->size), image_(std::move(image)) {}

private:
    std::shared_ptr<Image> image_;
};

// Serves the images by name; a reader never creates segments.
class ImageBacking final : public Backing {
public:
    std::map<std::string, std::shared_ptr<Image>, std::less<>> images;

    pmix_status_t create(std::size_t, std::unique_ptr<WritableSegment>&) override {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    pmix_status_t open(std::string_view name, std::unique_ptr<MappedSegment>& out) override {
        const auto it = images.find(name);
        if (it == images.end()) return PMIX_ERR_NOT_FOUND;
        out = std::make_unique<ImageMapping>(it->second);
        return PMIX_SUCCESS;
    }
    bool shared() const noexcept override { return true; }
    pmix_status_t share(const std::string&, const SegmentAccess&) override {
        return PMIX_ERR_NOT_SUPPORTED;
    }
};

// Parses the images; the name of the first (the directory), empty when there is none.
std::string load_images(Input& in, ImageBacking& backing) {
    std::string first;
    while (!in.empty()) {
        const auto name_bytes = in.bytes(in.u8());
        const std::size_t size = in.u32();
        const std::size_t used = in.u32();
        if (size > pmix::fuzz::kMaxSegmentBytes || used > size) break;
        auto image = std::make_shared<Image>(size, in.bytes(used));
        if (image->bytes == nullptr) break;
        std::string name(reinterpret_cast<const char*>(name_bytes.data()), name_bytes.size());
        if (first.empty()) first = name;
        backing.images.emplace(std::move(name), std::move(image));
    }
    return first;
}

void expect_status(pmix_status_t rc) {
    if (rc != PMIX_SUCCESS && rc != PMIX_ERR_NOT_FOUND && rc != kErrCorrupt &&
        rc != PMIX_ERR_BAD_PARAM && rc != PMIX_ERR_NOMEM) {
        std::fprintf(stderr, "fuzz: store reader status %d\n", rc);
        pmix::fuzz::violated("the store reader returned an unexpected status");
    }
}

void read_entity(StoreReader& reader, std::string_view ns, const Entity& entity) {
    static const char* const keys[] = {PMIX_JOB_SIZE, PMIX_RANK,   PMIX_LOCAL_RANK,  PMIX_HOSTNAME,
                                       "fuzz.str",    "fuzz.blob", "fuzz.int",       "fuzz.modex",
                                       PMIX_NODEID,   PMIX_APPNUM, PMIX_LOCAL_PEERS, "fuzz.infos"};
    for (const char* key : keys) {
        pmix_value_t v;
        PMIX_VALUE_CONSTRUCT(&v);
        expect_status(reader.get(ns, entity, key, &v));
        pmix::data::value_destruct(&v);
        ValueView view;
        expect_status(reader.get_view(ns, entity, key, view, kRemotePeer));
        const void* source = nullptr;
        expect_status(reader.locate(ns, entity, key, &source));
    }
    std::size_t seen = 0;
    expect_status(reader.visit(ns, entity, [&](std::string_view, const pmix_value_t&) { ++seen; }));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    Input in(data, size);
    auto backing = std::make_shared<ImageBacking>();
    const std::string directory = load_images(in, *backing);
    if (directory.empty()) return 0;
    std::unique_ptr<StoreReader> reader;
    const pmix_status_t rc = open_reader(backing, directory, reader);
    expect_status(rc);
    if (rc != PMIX_SUCCESS) return 0;
    const std::string_view ns = pmix::fuzz::kFuzzNamespace;
    expect_status(reader->attach(ns));
    reader->warm(ns);  // what a client does after a fence: bounds-checked reads only
    read_entity(*reader, ns, Entity::job());
    for (pmix_rank_t rank = 0; rank < pmix::fuzz::kFuzzRanks + 2; rank += 3) {
        read_entity(*reader, ns, Entity::proc(rank));
    }
    read_entity(*reader, ns, Entity::node(0));
    read_entity(*reader, ns, Entity::node("fuzz-node"));
    read_entity(*reader, ns, Entity::app(0));
    reader->detach(ns);
    return 0;
}

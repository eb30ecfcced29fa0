// tests/fuzz/seeds_local.cpp - seeds for the harnesses of bytes that stay on a node or travel
// between daemons: store images, fence boards, fabric packets, launcher channel messages.
#include "fuzz_store.h"
#include "seeds.h"

#include "channel.h"
#include "data/value.h"
#include "fabric/packet.h"
#include "gds/board.h"
#include "gds/store.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

namespace pmix::fuzz {
namespace {

void put_u32(Bytes& b, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) b.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

// One segment in the harness's format, read from /dev/shm (trailing zeros left out).
bool append_segment(Bytes& image, const std::string& name) {
    std::ifstream in("/dev/shm" + name, std::ios::binary);
    Bytes bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (bytes.empty() || name.size() > 255) return false;
    std::size_t used = bytes.size();
    while (used > 0 && bytes[used - 1] == 0) --used;
    image.push_back(static_cast<std::uint8_t>(name.size()));
    image.insert(image.end(), name.begin(), name.end());
    put_u32(image, static_cast<std::uint32_t>(bytes.size()));
    put_u32(image, static_cast<std::uint32_t>(used));
    image.insert(image.end(), bytes.begin(), bytes.begin() + static_cast<long>(used));
    return true;
}

Bytes store_image(gds::StoreWriter& store) {
    Bytes image;
    bool ok = append_segment(image, store.locator());
    for (const auto& name : store.segment_names(kFuzzNamespace))
        ok = ok && append_segment(image, name);
    return ok ? image : Bytes{};
}

void put(gds::StoreWriter& store, const gds::Entity& e, const char* key, const void* v,
         pmix_data_type_t type) {
    pmix_value_t value;
    PMIX_VALUE_CONSTRUCT(&value);
    data::value_load(&value, v, type);
    store.put(kFuzzNamespace, e, key, value);
    data::value_destruct(&value);
}

void fill_store(gds::StoreWriter& store) {
    using gds::Entity;
    store.begin_namespace(kFuzzNamespace);
    const std::uint32_t size = kFuzzRanks;
    put(store, Entity::job(), PMIX_JOB_SIZE, &size, PMIX_UINT32);
    put(store, Entity::job(), "fuzz.str", "a job-level string", PMIX_STRING);
    pmix_byte_object_t blob{const_cast<char*>("blob\0blob"), 9};
    put(store, Entity::job(), "fuzz.blob", &blob, PMIX_BYTE_OBJECT);
    for (pmix_rank_t r = 0; r < kFuzzRanks; ++r) {  // >= 16 ranks: stored as columns
        put(store, Entity::proc(r), PMIX_RANK, &r, PMIX_PROC_RANK);
        const std::uint16_t local = static_cast<std::uint16_t>(r % 4);
        put(store, Entity::proc(r), PMIX_LOCAL_RANK, &local, PMIX_UINT16);
    }
    put(store, Entity::proc(3), "fuzz.int", &size, PMIX_UINT32);
    put(store, Entity::node(0), PMIX_HOSTNAME, "fuzz-node", PMIX_STRING);
    put(store, Entity::node(0), PMIX_LOCAL_PEERS, "0,1,2,3", PMIX_STRING);
    store.alias_node(kFuzzNamespace, "fuzz-node", 0);
    const std::uint32_t appnum = 0;
    put(store, Entity::app(0), PMIX_APPNUM, &appnum, PMIX_UINT32);
    pmix_info_t infos[2];
    std::memset(infos, 0, sizeof infos);
    data::info_load(&infos[0], "fuzz.a", &size, PMIX_UINT32);
    data::info_load(&infos[1], "fuzz.b", "text", PMIX_STRING);
    pmix_data_array_t array{PMIX_INFO, 2, infos};
    put(store, Entity::job(), "fuzz.infos", &array, PMIX_DATA_ARRAY);
    for (auto& info : infos) data::info_destruct(&info);
    pmix_value_t modex;
    PMIX_VALUE_CONSTRUCT(&modex);
    data::value_load(&modex, "modex data", PMIX_STRING);
    store.put_modex(kFuzzNamespace, 1, PMIX_REMOTE, "fuzz.modex", modex);
    data::value_destruct(&modex);
}

}  // namespace

int seed_store(const std::filesystem::path& root) {
    SeedWriter out(root, "store");
    gds::StoreOptions options;
    options.segment_bytes = 4096;  // small: the image stays small and the chain gets segments
    options.prefix = "/pmixfuzzseed";
    pmix_status_t rc = PMIX_SUCCESS;
    auto store = gds::make_shm_store(options, &rc);
    if (!store) {
        std::fprintf(stderr, "fuzz_seeds: no shared memory store (%d)\n", rc);
        std::exit(1);
    }
    fill_store(*store);
    store->commit();
    out.add(store_image(*store));
    // A second generation: more data, segments chained.
    std::string big(3000, 'y');
    for (pmix_rank_t r = 0; r < 4; ++r)
        put(*store, gds::Entity::proc(r), "fuzz.str", big.c_str(), PMIX_STRING);
    store->commit();
    const Bytes image = store_image(*store);
    out.add(image);
    out.add(Bytes(image.begin(), image.begin() + static_cast<long>(image.size() / 2)));
    return out.count();
}

int seed_board(const std::filesystem::path& root) {
    SeedWriter out(root, "board");
    using namespace gds::board_layout;
    const auto arrived = static_cast<std::uint16_t>(offsetof(BoardHeader, arrived));
    const auto word = static_cast<std::uint16_t>(offsetof(BoardHeader, word));
    const auto nranks = static_cast<std::uint16_t>(offsetof(BoardHeader, nranks));
    auto patch = [](std::uint16_t at, std::uint8_t v) {
        return Bytes{static_cast<std::uint8_t>(at), static_cast<std::uint8_t>(at >> 8), v};
    };
    out.add({0, 0});                         // one rank, untouched: the fence completes
    out.add({0, 1});                         // two ranks: the other never comes, timeout
    out.add({1, 1}, patch(word + 3, 0x80));  // disabled while waiting: redirect
    out.add({0, 2}, patch(arrived, 2));      // counter ahead of the ranks
    out.add({1, 3}, patch(arrived, 0xff));   // counter scribbled after open
    out.add({0, 1}, patch(nranks, 0));       // no ranks: refused
    out.add({0, 0}, patch(0, 'X'));          // bad magic
    out.add({2, 0});                         // truncated
    return out.count();
}

int seed_packet(const std::filesystem::path& root) {
    SeedWriter out(root, "packet");
    fabric::Block a{0, {std::byte{1}, std::byte{2}, std::byte{3}}};
    fabric::Block b{2, {}};
    fabric::Block c{3, fabric::Bytes(100, std::byte{0x5a})};
    const std::vector<std::vector<const fabric::Block*>> lists = {{}, {&a}, {&a, &b, &c}};
    std::uint32_t round = 0;
    for (const auto& list : lists) {
        for (auto alg : {fabric::Algorithm::bruck, fabric::Algorithm::ring,
                         fabric::Algorithm::dissemination}) {
            fabric::PacketHeader h{alg, 0x1234567890ull, round++, 1};
            const fabric::Bytes body = alg == fabric::Algorithm::dissemination
                                           ? fabric::Bytes{}
                                           : fabric::encode_blocks(list);
            const fabric::Bytes packet = fabric::encode_packet(h, body);
            const auto* p = reinterpret_cast<const std::uint8_t*>(packet.data());
            out.add({4}, Bytes(p, p + packet.size()));
        }
    }
    return out.count();
}

int seed_channel(const std::filesystem::path& root) {
    SeedWriter out(root, "channel");
    int fds[2];
    if (::pipe(fds) != 0) std::exit(1);
    launcher::Channel channel(fds[0], fds[1]);
    auto framed = [&](launcher::MessageKind kind, const std::vector<std::string>& fields) {
        channel.send(kind, fields);
        Bytes bytes(1 << 16);
        const ssize_t n = ::read(fds[0], bytes.data(), bytes.size());
        bytes.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
        return bytes;
    };
    launcher::JobMessage job;
    job.nspace = "pmixrun.fuzz";
    job.nprocs = 4;
    job.nodes = {{"node-a", 2, "addr-a"}, {"node-b", 2, std::string("\0\1\2", 3)}};
    job.argv = {"/bin/hostname", "-s"};
    job.env = {"A=1", "B=2"};
    job.env_directives = {{launcher::EnvDirective::Kind::set, "X", "1", '\0'},
                          {launcher::EnvDirective::Kind::prepend, "PATH", "/opt/bin", ':'},
                          {launcher::EnvDirective::Kind::unset, "SLURM_*", "", '\0'}};
    job.launch_blob = std::string("\x01\x02packed", 8);
    Bytes all;
    auto add = [&](const Bytes& b) {
        out.add({0}, b);
        all.insert(all.end(), b.begin(), b.end());
    };
    add(framed(launcher::MessageKind::job, launcher::encode_job(job)));
    add(framed(launcher::MessageKind::address, {"fabric-addr", "tcp", "10.0.0.2"}));
    add(framed(launcher::MessageKind::exited, {"3", "4242", "0"}));
    add(framed(launcher::MessageKind::output, {"[1,0]", "1", "hello"}));
    add(framed(launcher::MessageKind::event, {"-25", "ns", "0", "4", std::string("\0\1", 2)}));
    add(framed(launcher::MessageKind::quit, {}));
    out.add({2}, all);
    out.add({255}, all);
    ::close(fds[0]);
    ::close(fds[1]);
    return out.count();
}

}  // namespace pmix::fuzz

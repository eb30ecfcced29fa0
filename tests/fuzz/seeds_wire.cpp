// tests/fuzz/seeds_wire.cpp - seeds for the harnesses of bytes that travel over sockets and files:
// frames and Hellos, protocol payloads, packed application data, rendezvous files.
#include "fuzz_proto.h"
#include "seeds.h"

#include "codec/codec.h"
#include "data/value.h"
#include "wire/frame.h"
#include "wire/hello.h"
#include "wire/proto/message.h"
#include "wire/rendezvous.h"

#include <cstdlib>
#include <cstring>
#include <vector>

namespace pmix::fuzz {
namespace {

// A few infos of different value types, as requests carry them.
struct SampleInfos {
    pmix_info_t infos[4];
    SampleInfos() {
        std::memset(infos, 0, sizeof infos);
        const std::uint32_t size = 4;
        const bool yes = true;
        pmix_proc_t proc;
        std::memset(&proc, 0, sizeof proc);
        std::strcpy(proc.nspace, "fuzz.ns");
        proc.rank = 3;
        data::info_load(&infos[0], PMIX_JOB_SIZE, &size, PMIX_UINT32);
        data::info_load(&infos[1], PMIX_HOSTNAME, "node-1", PMIX_STRING);
        data::info_load(&infos[2], PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
        data::info_load(&infos[3], "fuzz.proc", &proc, PMIX_PROC);
    }
    ~SampleInfos() {
        for (auto& info : infos) data::info_destruct(&info);
    }
    SampleInfos(const SampleInfos&) = delete;
    SampleInfos& operator=(const SampleInfos&) = delete;
};

pmix_proc_t sample_proc(pmix_rank_t rank) {
    pmix_proc_t p;
    std::memset(&p, 0, sizeof p);
    std::strcpy(p.nspace, "fuzz.ns");
    p.rank = rank;
    return p;
}

void write_field(proto::Writer& w, Field f, const SampleInfos& s) {
    const pmix_proc_t procs[2] = {sample_proc(0), sample_proc(PMIX_RANK_WILDCARD)};
    char* strings[2] = {const_cast<char*>("key-a"), const_cast<char*>("key-b")};
    const pmix_status_t codes[2] = {PMIX_ERR_PROC_ABORTED, PMIX_EVENT_JOB_END};
    switch (f) {
        case Field::status:
            w.status(PMIX_SUCCESS);
            break;
        case Field::size:
            w.size(2);
            break;
        case Field::string:
            w.string("fuzz.key");
            break;
        case Field::scope:
            w.scope(PMIX_GLOBAL);
            break;
        case Field::range:
            w.range(PMIX_RANGE_NAMESPACE);
            break;
        case Field::proc:
            w.proc(procs[0]);
            break;
        case Field::value:
            w.value(s.infos[1].value);
            break;
        case Field::procs:
            w.procs(procs, 2);
            break;
        case Field::infos:
            w.infos(s.infos, 4);
            break;
        case Field::strings:
            w.strings(strings, 2);
            break;
        case Field::statuses:
            w.statuses(codes, 2);
            break;
        case Field::pdata: {
            pmix_pdata_t pd;
            std::memset(&pd, 0, sizeof pd);
            pd.proc = procs[0];
            std::strcpy(pd.key, "fuzz.pub");
            data::value_xfer(&pd.value, &s.infos[1].value);
            w.pdata(&pd, 1);
            data::value_destruct(&pd.value);
            break;
        }
        case Field::apps: {
            pmix_app_t app;
            std::memset(&app, 0, sizeof app);
            char* argv[] = {const_cast<char*>("/bin/true"), nullptr};
            char* env[] = {const_cast<char*>("A=1"), nullptr};
            app.cmd = const_cast<char*>("/bin/true");
            app.argv = argv;
            app.env = env;
            app.maxprocs = 2;
            app.info = const_cast<pmix_info_t*>(s.infos);
            app.ninfo = 2;
            w.apps(&app, 1);
            break;
        }
        case Field::queries: {
            pmix_query_t q;
            std::memset(&q, 0, sizeof q);
            char* keys[] = {const_cast<char*>(PMIX_QUERY_NAMESPACES), nullptr};
            q.keys = keys;
            q.qualifiers = const_cast<pmix_info_t*>(s.infos);
            q.nqual = 1;
            w.queries(&q, 1);
            break;
        }
        case Field::commit_items:
            w.size(2);
            for (int i = 0; i < 2; ++i) {
                w.scope(i == 0 ? PMIX_LOCAL : PMIX_REMOTE);
                w.raw(&s.infos[i], 1, PMIX_INFO);
            }
            break;
        case Field::get_reply:
            w.status(PMIX_SUCCESS).value(s.infos[0].value);
            break;
        case Field::byte_object: {
            char bytes[] = "credential";
            pmix_byte_object_t bo{bytes, sizeof bytes};
            w.raw(&bo, 1, PMIX_BYTE_OBJECT);
            break;
        }
        case Field::info:
            w.raw(&s.infos[0], 1, PMIX_INFO);
            break;
        case Field::alloc_directive: {
            const pmix_alloc_directive_t d = PMIX_ALLOC_NEW;
            w.raw(&d, 1, PMIX_ALLOC_DIRECTIVE);
            break;
        }
        case Field::uint8: {
            const std::uint8_t op = PMIX_FABRIC_REQUEST_INFO;
            w.raw(&op, 1, PMIX_UINT8);
            break;
        }
    }
}

Bytes proto_payload(const ProtoMessage& m, const SampleInfos& s) {
    proto::Writer w;
    for (Field f : m.fields) write_field(w, f, s);
    return w.take();
}

}  // namespace

int seed_frames(const std::filesystem::path& root) {
    SeedWriter out(root, "frame");
    const wire::Hello hello = wire::Hello::for_this_process("fuzz.ns", 0, wire::Role::client);
    wire::HelloReply reply;
    reply.server_pid = 42;
    const wire::Bytes hello_bytes = wire::encode(hello);
    wire::HelloReply refused;
    refused.status = PMIX_ERR_NO_PERMISSIONS;
    refused.reason = "uid mismatch";
    Bytes stream;
    for (const auto& payload : {hello_bytes, wire::encode(reply), wire::encode(refused)}) {
        wire::Frame f;
        f.op = wire::kOpHello;
        f.flags = payload == hello_bytes ? 0 : wire::kFlagReply;
        f.payload = payload;
        const Bytes frame = wire::encode_frame(f);
        out.add({0}, frame);
        out.add({7}, frame);
        stream.insert(stream.end(), frame.begin(), frame.end());
    }
    SampleInfos s;
    std::uint32_t op = 0x100;
    for (const auto& m : proto_messages()) {
        wire::Frame f;
        f.op = op++;
        f.tag = op;
        f.payload = proto_payload(m, s);
        const Bytes frame = wire::encode_frame(f);
        stream.insert(stream.end(), frame.begin(), frame.end());
    }
    out.add({3}, stream);
    out.add({63}, Bytes(stream.begin(), stream.begin() + static_cast<long>(stream.size() / 2)));
    return out.count();
}

int seed_proto(const std::filesystem::path& root) {
    SeedWriter out(root, "proto");
    SampleInfos s;
    const auto& all = proto_messages();
    for (std::size_t i = 0; i < all.size(); ++i) {
        out.add({static_cast<std::uint8_t>(i)}, proto_payload(all[i], s));
    }
    return out.count();
}

int seed_unpack(const std::filesystem::path& root) {
    SeedWriter out(root, "unpack");
    // The harness's first byte indexes the known types in order; count byte 4.
    std::vector<pmix_data_type_t> types;
    for (unsigned i = 0; i < 256; ++i) {
        if (data::is_known_type(static_cast<pmix_data_type_t>(i))) {
            types.push_back(static_cast<pmix_data_type_t>(i));
        }
    }
    auto packed = [](const void* src, std::int32_t n, pmix_data_type_t type) {
        pmix_data_buffer_t buf;
        std::memset(&buf, 0, sizeof buf);
        Bytes bytes;
        if (codec::pack(&buf, src, n, type) == PMIX_SUCCESS) {
            bytes.assign(buf.base_ptr, buf.base_ptr + buf.bytes_used);
        }
        codec::reset(&buf);
        return bytes;
    };
    // Every type, two zeroed elements (NULL strings, empty arrays, zero scalars).
    for (std::size_t i = 0; i < types.size(); ++i) {
        std::vector<std::uint8_t> zero(data::element_size(types[i]) * 2, 0);
        if (Bytes b = packed(zero.data(), 2, types[i]); !b.empty()) {
            out.add({static_cast<std::uint8_t>(i), 4}, b);
        }
    }
    // Values with content: infos, each info's value, a proc, strings, a data array of infos, and
    // one buffer holding several batches.
    auto index_of = [&](pmix_data_type_t t) {
        for (std::size_t i = 0; i < types.size(); ++i) {
            if (types[i] == t) return static_cast<std::uint8_t>(i);
        }
        return std::uint8_t{0};
    };
    SampleInfos s;
    Bytes many;
    auto add = [&](const void* src, std::int32_t n, pmix_data_type_t type) {
        const Bytes b = packed(src, n, type);
        out.add({index_of(type), 1}, b);
        many.insert(many.end(), b.begin(), b.end());
    };
    add(s.infos, 4, PMIX_INFO);
    for (const auto& info : s.infos) add(&info.value, 1, PMIX_VALUE);
    const pmix_proc_t proc = sample_proc(7);
    add(&proc, 1, PMIX_PROC);
    const char* strings[] = {"alpha", "", "gamma"};
    add(strings, 3, PMIX_STRING);
    pmix_data_array_t array{PMIX_INFO, 4, s.infos};
    add(&array, 1, PMIX_DATA_ARRAY);
    pmix_byte_object_t bo{const_cast<char*>("bytes\0with\0nul"), 15};
    add(&bo, 1, PMIX_BYTE_OBJECT);
    out.add({index_of(PMIX_INFO), 8}, many);
    // A compressed block (the harness also decompresses the bytes).
    std::uint8_t* z = nullptr;
    std::size_t zn = 0;
    const std::string text(400, 'x');
    if (codec::compress(reinterpret_cast<const std::uint8_t*>(text.data()), text.size(), &z, &zn)) {
        out.add({0, 1}, Bytes(z, z + zn));
        std::free(z);
    }
    return out.count();
}

int seed_rendezvous(const std::filesystem::path& root) {
    SeedWriter out(root, "rendezvous");
    wire::Rendezvous r;
    r.nspace = "pmix.fuzz.1";
    r.rank = 0;
    r.socket = "/tmp/pmix-fuzz/server.sock";
    r.uri = wire::make_uri(r.nspace, r.rank, r.socket);
    r.version = "4.2.2";
    r.pid = 1234;
    r.uid = 1000;
    r.gid = 1000;
    auto text = [](const std::string& t) { return Bytes(t.begin(), t.end()); };
    out.add(text(wire::format_rendezvous(r)));
    r.host = "node-1";
    r.tcp_uri = "pmix.fuzz.1.0;tcp4://10.0.0.1:40000";
    r.secret = "0123456789abcdef0123456789abcdef";
    out.add(text(wire::format_rendezvous(r)));
    out.add(text(r.uri));
    out.add(text("tcp4://127.0.0.1:5000"));
    out.add(text(wire::format_rendezvous(r) + "future:field\n"));
    return out.count();
}

}  // namespace pmix::fuzz

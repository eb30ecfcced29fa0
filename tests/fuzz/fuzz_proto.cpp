// tests/fuzz/fuzz_proto.cpp - the payloads of the protocol's messages (wire/proto/protocol.h), read
// with proto::Reader field by field exactly in the order the server reads each request and the
// client each reply. The server has no decode layer separate from its handlers (they read and act
// in one pass, server/requests.cpp), so this harness follows the field sequences of protocol.h.
//
// Input: one byte choosing the message (request or reply of an op), then its payload. Besides "no
// crash": a failed read hands out no memory, finish() never succeeds after a failed read, and every
// value read is released here, so what leaks is the decoder's (the leak checker sees it).
#include "fuzz_input.h"
#include "fuzz_proto.h"

#include "data/info_array.h"
#include "data/value.h"
#include "wire/proto/message.h"
#include "wire/proto/protocol.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using pmix::fuzz::Field;
using pmix::proto::Reader;
using F = pmix::fuzz::Field;

void read_array(Reader& r, pmix_data_type_t type) {
    void* block = nullptr;
    std::size_t n = 0;
    if (r.array(&block, &n, type) == PMIX_SUCCESS && block != nullptr) {
        pmix::data::free_elements(block, n, type);
    } else if (block != nullptr) {
        pmix::fuzz::violated("a failed array read handed out memory");
    }
}

void read_value(Reader& r) {
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    r.value(&v);
    pmix::data::value_destruct(&v);
}

void read_commit_items(Reader& r) {
    std::size_t n = 0;
    r.size(&n);
    for (std::size_t i = 0; i < n && r.status_code() == PMIX_SUCCESS && i < pmix::proto::kMaxArray;
         ++i) {
        pmix_scope_t scope = PMIX_SCOPE_UNDEF;
        pmix_info_t info;
        std::memset(&info, 0, sizeof info);
        r.scope(&scope);
        r.raw(&info, 1, PMIX_INFO);
        pmix::data::info_destruct(&info);
    }
}

void read_field(Reader& r, Field f) {
    switch (f) {
        case F::status: {
            pmix_status_t s = 0;
            r.status(&s);
            break;
        }
        case F::size: {
            std::size_t n = 0;
            r.size(&n);
            break;
        }
        case F::string: {
            std::string s;
            r.string(&s);
            break;
        }
        case F::scope: {
            pmix_scope_t s = 0;
            r.scope(&s);
            break;
        }
        case F::range: {
            pmix_data_range_t g = 0;
            r.range(&g);
            break;
        }
        case F::proc: {
            pmix_proc_t p;
            r.proc(&p);
            break;
        }
        case F::value:
            read_value(r);
            break;
        case F::procs: {
            std::vector<pmix_proc_t> p;
            r.procs(&p);
            break;
        }
        case F::infos: {
            pmix::data::InfoArray a;
            r.infos(&a);
            break;
        }
        case F::strings: {
            std::vector<std::string> s;
            r.strings(&s);
            break;
        }
        case F::statuses: {
            std::vector<pmix_status_t> s;
            r.statuses(&s);
            break;
        }
        case F::pdata:
            read_array(r, PMIX_PDATA);
            break;
        case F::apps:
            read_array(r, PMIX_APP);
            break;
        case F::queries:
            read_array(r, PMIX_QUERY);
            break;
        case F::commit_items:
            read_commit_items(r);
            break;
        case F::byte_object: {
            pmix_byte_object_t bo;
            std::memset(&bo, 0, sizeof bo);
            r.raw(&bo, 1, PMIX_BYTE_OBJECT);
            std::free(bo.bytes);  // left NULL by a failed read
            break;
        }
        case F::info: {
            pmix_info_t info;
            std::memset(&info, 0, sizeof info);
            r.raw(&info, 1, PMIX_INFO);
            pmix::data::info_destruct(&info);
            break;
        }
        case F::alloc_directive: {
            pmix_alloc_directive_t d = 0;
            r.raw(&d, 1, PMIX_ALLOC_DIRECTIVE);
            break;
        }
        case F::uint8: {
            std::uint8_t b = 0;
            r.raw(&b, 1, PMIX_UINT8);
            break;
        }
        case F::get_reply: {
            // The client reads the status, then a value for a key or infos for all keys.
            pmix_status_t s = 0;
            if (r.status(&s) == PMIX_SUCCESS && s == PMIX_SUCCESS) {
                if (r.at_end()) break;
                read_value(r);
            }
            break;
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    pmix::fuzz::Input in(data, size);
    const auto& all = pmix::fuzz::proto_messages();
    const pmix::fuzz::ProtoMessage& m = all[in.u8() % all.size()];
    const auto payload = in.rest();
    Reader r(payload.data(), payload.size());
    for (Field f : m.fields) {
        read_field(r, f);
        if (r.status_code() != PMIX_SUCCESS) break;
    }
    const pmix_status_t rc = r.finish();
    if (rc == PMIX_SUCCESS && r.status_code() != PMIX_SUCCESS) {
        pmix::fuzz::violated("finish() succeeded after a failed read");
    }
    return 0;
}

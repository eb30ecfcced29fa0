// tests/unit/core/codec/test_errors.cpp - bad arguments, unknown types, mismatches and hostile
// bytes: each gives a clear PMIx error, leaves the buffer where it was and leaks nothing.
#include "samples.h"

#include "codec/codec.h"

#include <gtest/gtest.h>

#include <cstring>

namespace codec_test {
namespace {

using pmix::codec::pack;
using pmix::codec::unpack;

// Hand-written wire bytes.
struct Bytes {
    std::vector<unsigned char> v;
    Bytes& u8(unsigned x) {
        v.push_back(static_cast<unsigned char>(x));
        return *this;
    }
    Bytes& u16(unsigned x) { return u8(x & 0xFF).u8(x >> 8); }
    Bytes& u32(std::uint32_t x) { return u16(x & 0xFFFF).u16(x >> 16); }
    Bytes& u64(std::uint64_t x) {
        return u32(static_cast<std::uint32_t>(x)).u32(static_cast<std::uint32_t>(x >> 32));
    }
    Bytes& header(pmix_data_type_t t, std::uint32_t n) { return u8(0xA1).u16(t).u32(n); }
    Bytes& str(const char* s) {
        u32(static_cast<std::uint32_t>(std::strlen(s)));
        v.insert(v.end(), s, s + std::strlen(s));
        return *this;
    }
};

// Unpack `n` elements of `type` from `bytes` and expect `want`, an untouched buffer and n == 0.
void expect_refused(const Bytes& bytes, pmix_data_type_t type, std::int32_t n, pmix_status_t want) {
    Buffer buf;
    buf.load(bytes.v);
    Elements out(type, static_cast<std::size_t>(n));
    std::int32_t room = n;
    EXPECT_EQ(want, unpack(buf.get(), out.data(), &room, type)) << type_name(type);
    EXPECT_EQ(0, room);
    EXPECT_EQ(0u, buf.offset());
    EXPECT_EQ(bytes.v, buf.bytes());
}

TEST(Errors, PackArguments) {
    std::int32_t v = 1;
    Buffer buf;
    EXPECT_EQ(PMIX_ERR_BAD_PARAM, pack(nullptr, &v, 1, PMIX_INT32));
    EXPECT_EQ(PMIX_ERR_BAD_PARAM, pack(buf.get(), nullptr, 1, PMIX_INT32));
    EXPECT_EQ(PMIX_ERR_BAD_PARAM, pack(buf.get(), &v, -1, PMIX_INT32));
    EXPECT_EQ(0u, buf->bytes_used);
}

TEST(Errors, UnknownTypes) {
    std::int32_t v = 1;
    Buffer buf;
    for (pmix_data_type_t t : {0, 26, 29, 44, 70, 499, 500, 0xFFFF}) {
        EXPECT_EQ(PMIX_ERR_UNKNOWN_DATA_TYPE, pack(buf.get(), &v, 1, t)) << t;
    }
    EXPECT_EQ(0u, buf->bytes_used);
    ASSERT_EQ(PMIX_SUCCESS, pack(buf.get(), &v, 1, PMIX_INT32));
    std::int32_t n = 1;
    EXPECT_EQ(PMIX_ERR_UNKNOWN_DATA_TYPE, unpack(buf.get(), &v, &n, 26));
    EXPECT_EQ(0, n);
    EXPECT_EQ(0u, buf.offset());
}

TEST(Errors, UnpackArguments) {
    Buffer buf;
    std::int32_t v = 3;
    ASSERT_EQ(PMIX_SUCCESS, pack(buf.get(), &v, 1, PMIX_INT32));
    std::int32_t n = 1;
    EXPECT_EQ(PMIX_ERR_BAD_PARAM, unpack(nullptr, &v, &n, PMIX_INT32));
    EXPECT_EQ(PMIX_ERR_BAD_PARAM, unpack(buf.get(), nullptr, &n, PMIX_INT32));
    EXPECT_EQ(PMIX_ERR_BAD_PARAM, unpack(buf.get(), &v, nullptr, PMIX_INT32));
    n = -1;
    EXPECT_EQ(PMIX_ERR_BAD_PARAM, unpack(buf.get(), &v, &n, PMIX_INT32));
    n = 0;
    EXPECT_EQ(PMIX_ERR_UNPACK_INADEQUATE_SPACE, unpack(buf.get(), &v, &n, PMIX_INT32));
    EXPECT_EQ(0u, buf.offset());
    n = 1;
    EXPECT_EQ(PMIX_SUCCESS, unpack(buf.get(), &v, &n, PMIX_INT32));
}

TEST(Errors, InconsistentBufferIsRefused) {
    char storage[16] = {};
    pmix_data_buffer_t b{};
    b.base_ptr = storage;
    b.unpack_ptr = storage + 12;  // beyond bytes_used
    b.pack_ptr = storage + 8;
    b.bytes_used = 8;
    b.bytes_allocated = 16;
    std::int32_t v = 0;
    std::int32_t n = 1;
    EXPECT_EQ(PMIX_ERR_BAD_PARAM, unpack(&b, &v, &n, PMIX_INT32));
    EXPECT_EQ(PMIX_ERR_BAD_PARAM, pack(&b, &v, 1, PMIX_INT32));
    b.unpack_ptr = storage;
    b.bytes_used = 32;  // more used than allocated
    EXPECT_EQ(PMIX_ERR_BAD_PARAM, pack(&b, &v, 1, PMIX_INT32));
    pmix_data_buffer_t empty{};
    empty.bytes_used = 4;  // no storage but claims content
    EXPECT_EQ(PMIX_ERR_BAD_PARAM, pack(&empty, &v, 1, PMIX_INT32));
}

TEST(Errors, ReadPastEndLeavesBufferAlone) {
    Buffer buf;
    std::int32_t v = 0;
    std::int32_t n = 1;
    EXPECT_EQ(PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER, unpack(buf.get(), &v, &n, PMIX_INT32));
    EXPECT_EQ(0, n);
    ASSERT_EQ(PMIX_SUCCESS, pack(buf.get(), &v, 1, PMIX_INT32));
    n = 1;
    ASSERT_EQ(PMIX_SUCCESS, unpack(buf.get(), &v, &n, PMIX_INT32));
    std::size_t at = buf.offset();
    n = 1;
    EXPECT_EQ(PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER, unpack(buf.get(), &v, &n, PMIX_INT32));
    EXPECT_EQ(at, buf.offset());
}

TEST(Errors, TypeMismatchLeavesBufferAlone) {
    Buffer buf;
    const char* s = "text";
    ASSERT_EQ(PMIX_SUCCESS, pack(buf.get(), &s, 1, PMIX_STRING));
    std::int32_t v = 0;
    std::int32_t n = 1;
    EXPECT_EQ(PMIX_ERR_PACK_MISMATCH, unpack(buf.get(), &v, &n, PMIX_INT32));
    EXPECT_EQ(0, n);
    EXPECT_EQ(0u, buf.offset());
    // Same width, different type: still a mismatch.
    n = 1;
    std::uint32_t u = 7;
    ASSERT_EQ(PMIX_SUCCESS, pack(buf.get(), &u, 1, PMIX_UINT32));
    char* out = nullptr;
    ASSERT_EQ(PMIX_SUCCESS, unpack(buf.get(), &out, &n, PMIX_STRING));
    std::free(out);
    n = 1;
    EXPECT_EQ(PMIX_ERR_PACK_MISMATCH, unpack(buf.get(), &v, &n, PMIX_INT32));
    n = 1;
    EXPECT_EQ(PMIX_SUCCESS, unpack(buf.get(), &u, &n, PMIX_UINT32));
    EXPECT_EQ(7u, u);
}

TEST(Errors, BadBatchTag) {
    Bytes b;
    b.u8(0xA2).u16(PMIX_INT8).u32(1).u8(5);
    expect_refused(b, PMIX_INT8, 1, PMIX_ERR_UNPACK_FAILURE);
}

TEST(Errors, CountLargerThanTheBytes) {
    Bytes b;
    b.header(PMIX_UINT64, 0xFFFFFFFF).u64(1);
    expect_refused(b, PMIX_UINT64, 4, PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
}

// A caller that says "up to 1000" but sized its array for the 2 values it expects must not be
// overrun by a forged count: nothing is written unless the bytes really hold the elements.
// (ASan would flag a write past the 2-element heap array.)
TEST(Errors, ForgedCountNeverWritesPastRealData) {
    Bytes b;
    b.header(PMIX_INT64, 1000).u64(1).u64(2);
    Buffer buf;
    buf.load(b.v);
    auto* two = static_cast<std::int64_t*>(std::calloc(2, sizeof(std::int64_t)));
    std::int32_t room = 1000;
    EXPECT_EQ(PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER, unpack(buf.get(), two, &room, PMIX_INT64));
    EXPECT_EQ(0, room);
    std::free(two);
}

TEST(Errors, HostileStringLengths) {
    Bytes huge;
    huge.header(PMIX_STRING, 1).u32(0xFFFFFFFE).u8('a');
    expect_refused(huge, PMIX_STRING, 1, PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
    Bytes nul;
    nul.header(PMIX_STRING, 1).u32(3).u8('a').u8(0).u8('b');
    expect_refused(nul, PMIX_STRING, 1, PMIX_ERR_UNPACK_FAILURE);
    // The first string is fine and allocated; the second is bad: nothing may leak.
    Bytes second;
    second.header(PMIX_STRING, 2).str("fine").u32(100);
    expect_refused(second, PMIX_STRING, 2, PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
}

TEST(Errors, HostileBlobAndArrayCounts) {
    Bytes blob;
    blob.header(PMIX_BYTE_OBJECT, 1).u64(~0ull);
    expect_refused(blob, PMIX_BYTE_OBJECT, 1, PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
    // A data array claiming 2^32-1 infos must not allocate them.
    Bytes darray;
    darray.header(PMIX_DATA_ARRAY, 1).u16(PMIX_INFO).u32(0xFFFFFFFF).str("k");
    expect_refused(darray, PMIX_DATA_ARRAY, 1, PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
    Bytes argv;
    argv.header(PMIX_QUERY, 1).u32(0x7FFFFFFF);
    expect_refused(argv, PMIX_QUERY, 1, PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
    Bytes undef;
    undef.header(PMIX_DATA_ARRAY, 1).u16(PMIX_UNDEF).u32(5);
    expect_refused(undef, PMIX_DATA_ARRAY, 1, PMIX_ERR_UNPACK_FAILURE);
}

TEST(Errors, BadMarkersAndKeys) {
    Bytes flag;
    flag.header(PMIX_BOOL, 1).u8(2);
    expect_refused(flag, PMIX_BOOL, 1, PMIX_ERR_UNPACK_FAILURE);
    Bytes ptr;
    ptr.header(PMIX_POINTER, 1).u8(9);
    expect_refused(ptr, PMIX_POINTER, 1, PMIX_ERR_UNPACK_FAILURE);
    Bytes key;  // an info key one character too long
    std::string k(PMIX_MAX_KEYLEN + 1, 'k');
    key.header(PMIX_INFO, 1).str(k.c_str()).u32(0).u16(PMIX_UNDEF);
    expect_refused(key, PMIX_INFO, 1, PMIX_ERR_UNPACK_FAILURE);
    Bytes nullkey;
    nullkey.header(PMIX_INFO, 1).u32(0xFFFFFFFF).u32(0).u16(PMIX_UNDEF);
    expect_refused(nullkey, PMIX_INFO, 1, PMIX_ERR_UNPACK_FAILURE);
    Bytes ns;
    std::string n(PMIX_MAX_NSLEN + 1, 'n');
    ns.header(PMIX_PROC, 1).str(n.c_str()).u32(0);
    expect_refused(ns, PMIX_PROC, 1, PMIX_ERR_UNPACK_FAILURE);
    Bytes vtype;  // a value of a type that does not exist
    vtype.header(PMIX_VALUE, 1).u16(44).u32(0);
    expect_refused(vtype, PMIX_VALUE, 1, PMIX_ERR_UNPACK_FAILURE);
    Bytes kval;
    kval.header(PMIX_KVAL, 1).str("k").u8(3);
    expect_refused(kval, PMIX_KVAL, 1, PMIX_ERR_UNPACK_FAILURE);
    Bytes argv_null;  // an argv entry cannot be NULL
    argv_null.header(PMIX_QUERY, 1).u32(2).str("a").u32(0xFFFFFFFF).u32(0);
    expect_refused(argv_null, PMIX_QUERY, 1, PMIX_ERR_UNPACK_FAILURE);
}

TEST(Errors, HostileCpusetLists) {
    for (const char* list :
         {"0-4000000000", "1,,2", "a", "3-x", "1-2-3", ",", "99999999999999999999", "5,"}) {
        Bytes b;
        b.header(PMIX_PROC_CPUSET, 1).str(list);
        expect_refused(b, PMIX_PROC_CPUSET, 1, PMIX_ERR_UNPACK_FAILURE);
    }
}

TEST(Errors, HostileTopologyXml) {
    for (const char* xml :
         {"not xml at all, definitely not", "<x/>", "<?xml version=\"1.0\"?><topology>",
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE topology SYSTEM "
          "\"hwloc2.dtd\">\n<topology version=\"2.0\"></topology>\n"}) {
        Bytes b;
        b.header(PMIX_TOPO, 1).str(xml);
        expect_refused(b, PMIX_TOPO, 1, PMIX_ERR_UNPACK_FAILURE);
    }
}

// hwloc 2.9 crashes on an object with a cpuset but no complete_cpuset (found by fuzzing); the
// decoder refuses such XML itself. Built from this machine's real export.
TEST(Errors, TopologyXmlWithUnpairedSetsIsRefused) {
    char* xml = nullptr;
    int len = 0;
    ASSERT_EQ(0, hwloc_topology_export_xmlbuffer(machine_topology(), &xml, &len, 0));
    const std::string good(xml);
    hwloc_free_xmlbuffer(machine_topology(), xml);
    for (const char* attr : {" complete_cpuset=\"", " complete_nodeset=\""}) {
        std::size_t at = good.find(attr, good.find("<object", good.find("<object") + 1));
        ASSERT_NE(std::string::npos, at) << attr;
        std::size_t close = good.find('"', at + std::strlen(attr));
        std::string bad = good.substr(0, at) + good.substr(close + 1);
        Bytes b;
        b.header(PMIX_TOPO, 1).str(bad.c_str());
        expect_refused(b, PMIX_TOPO, 1, PMIX_ERR_UNPACK_FAILURE);
    }
    Bytes ok;
    ok.header(PMIX_TOPO, 1).str(good.c_str());
    Buffer buf;
    buf.load(ok.v);
    Elements out(PMIX_TOPO, 1);
    std::int32_t n = 1;
    EXPECT_EQ(PMIX_SUCCESS, unpack(buf.get(), out.data(), &n, PMIX_TOPO));
}

TEST(Errors, ForeignCpusetAndTopologyCannotBePacked) {
    pmix_cpuset_t cs{};
    cs.source = const_cast<char*>("other");
    int bits = 0;
    cs.bitmap = &bits;
    Buffer buf;
    EXPECT_EQ(PMIX_ERR_NOT_SUPPORTED, pack(buf.get(), &cs, 1, PMIX_PROC_CPUSET));
    pmix_topology_t tp{};
    tp.source = const_cast<char*>("other");
    tp.topology = &bits;
    EXPECT_EQ(PMIX_ERR_NOT_SUPPORTED, pack(buf.get(), &tp, 1, PMIX_TOPO));
    EXPECT_EQ(0u, buf->bytes_used);
}

// A failing element in the middle of a batch rolls the whole batch back.
TEST(Errors, FailedPackAddsNothing) {
    Buffer buf;
    std::int32_t v = 1;
    ASSERT_EQ(PMIX_SUCCESS, pack(buf.get(), &v, 1, PMIX_INT32));
    const std::vector<unsigned char> before = buf.bytes();
    pmix_value_t vals[3] = {};
    vals[0].type = PMIX_STRING;
    vals[0].data.string = const_cast<char*>("ok");
    vals[1].type = PMIX_INT;
    vals[2].type = PMIX_DATA_ARRAY;  // NULL darray pointer: refused
    EXPECT_EQ(PMIX_ERR_BAD_PARAM, pack(buf.get(), vals, 3, PMIX_VALUE));
    EXPECT_EQ(before, buf.bytes());
    EXPECT_EQ(buf->base_ptr + buf->bytes_used, buf->pack_ptr);
}

}  // namespace
}  // namespace codec_test

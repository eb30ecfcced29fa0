// The built-in fabric plugins (static registration) and the blob helpers.
#include "fabric/plugins/plugin.h"

#include "base/le.h"
#include "data/value.h"

namespace pmix::fabric {

Plugin* env_plugin();      // plugins/env
Plugin* ofi_tcp_plugin();  // plugins/ofi_tcp

std::span<Plugin* const> plugins() {
    static Plugin* const all[] = {env_plugin(), ofi_tcp_plugin()};
    return all;
}

Plugin* find_plugin(std::string_view name) {
    for (Plugin* p : plugins()) {
        if (p->name() == name) return p;
    }
    return nullptr;
}

OwnedValue::OwnedValue() { value = pmix_value_t{}; }
OwnedValue::~OwnedValue() { data::value_destruct(&value); }

namespace {
template <class T>
void put_le(Blob& b, T v) {
    std::byte field[sizeof v];
    le::store(field, v);
    b.insert(b.end(), field, field + sizeof v);
}
}  // namespace

void put_u16(Blob& b, std::uint16_t v) { put_le(b, v); }
void put_u32(Blob& b, std::uint32_t v) { put_le(b, v); }

void put_string(Blob& b, std::string_view s) {
    put_u32(b, static_cast<std::uint32_t>(s.size()));
    for (char c : s) b.push_back(static_cast<std::byte>(c));
}

bool BlobReader::u8(std::uint8_t& v) {
    if (b_.size() - at_ < 1) return false;
    v = static_cast<std::uint8_t>(b_[at_++]);
    return true;
}

bool BlobReader::u16(std::uint16_t& v) {
    if (b_.size() - at_ < 2) return false;
    v = le::load<std::uint16_t>(b_.data() + at_);
    at_ += 2;
    return true;
}

bool BlobReader::u32(std::uint32_t& v) {
    if (b_.size() - at_ < 4) return false;
    v = le::load<std::uint32_t>(b_.data() + at_);
    at_ += 4;
    return true;
}

bool BlobReader::string(std::string& s) {
    std::uint32_t n = 0;
    if (!u32(n) || b_.size() - at_ < n) return false;
    s.assign(reinterpret_cast<const char*>(b_.data() + at_), n);
    at_ += n;
    return true;
}

}  // namespace pmix::fabric

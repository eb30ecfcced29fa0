// tests/fuzz/seeds.h - the seed generator's parts (seeds*.cpp), one function per harness; each
// returns how many seeds it wrote.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace pmix::fuzz {

using Bytes = std::vector<std::uint8_t>;

// Writes <root>/<harness>/<harness>-<n>, starting from an empty directory.
class SeedWriter {
public:
    SeedWriter(const std::filesystem::path& root, std::string harness);
    void add(const Bytes& bytes);
    // The control bytes, then the payload.
    void add(const Bytes& prefix, const Bytes& payload) {
        Bytes all = prefix;
        all.insert(all.end(), payload.begin(), payload.end());
        add(all);
    }
    int count() const { return count_; }

private:
    std::filesystem::path dir_;
    std::string name_;
    int count_ = 0;
};

int seed_frames(const std::filesystem::path& root);
int seed_proto(const std::filesystem::path& root);
int seed_unpack(const std::filesystem::path& root);
int seed_rendezvous(const std::filesystem::path& root);
int seed_store(const std::filesystem::path& root);
int seed_board(const std::filesystem::path& root);
int seed_packet(const std::filesystem::path& root);
int seed_channel(const std::filesystem::path& root);

}  // namespace pmix::fuzz

// tests/fuzz/seeds.cpp - fuzz_seeds <dir>: writes each harness's seed corpus, <dir>/<harness>/,
// made by this project's own encoders (frames, packed values of every type, rendezvous texts, a
// real store image, boards, packets, channel messages), so that fuzzing starts from valid inputs
// and the replay tests check that valid inputs still decode. Each seed carries the harness's
// control bytes first (fuzz_input.h).
#include "seeds.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <cstdlib>

namespace pmix::fuzz {

void SeedWriter::add(const Bytes& bytes) {
    const auto path = dir_ / (name_ + "-" + std::to_string(count_++));
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    if (!out) {
        std::fprintf(stderr, "fuzz_seeds: cannot write %s\n", path.c_str());
        std::exit(1);
    }
}

SeedWriter::SeedWriter(const std::filesystem::path& root, std::string harness)
    : dir_(root / harness), name_(std::move(harness)) {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
}

}  // namespace pmix::fuzz

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: fuzz_seeds <output dir>\n");
        return 2;
    }
    const std::filesystem::path root(argv[1]);
    using namespace pmix::fuzz;
    const int written = seed_frames(root) + seed_proto(root) + seed_unpack(root) +
                        seed_rendezvous(root) + seed_store(root) + seed_board(root) +
                        seed_packet(root) + seed_channel(root);
    std::printf("fuzz_seeds: %d seeds in %s\n", written, root.c_str());
    return 0;
}

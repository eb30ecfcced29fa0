// tests/fuzz/replay_main.cpp - runs a harness's LLVMFuzzerTestOneInput over every file of the
// directories (or files) given, without libFuzzer: how the dev, asan and tsan presets turn the
// seed corpora and the crash reproducers of tests/fuzz/regressions/ into regression tests. Exits
// 1 when no input was found at all (a corpus that silently vanished tests nothing).
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

int run_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.eof() && in.fail()) {
        std::fprintf(stderr, "replay: cannot read %s\n", path.c_str());
        return 0;
    }
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    int inputs = 0;
    for (int i = 1; i < argc; ++i) {
        const std::filesystem::path arg(argv[i]);
        std::error_code ec;
        if (std::filesystem::is_directory(arg, ec)) {
            for (const auto& entry : std::filesystem::recursive_directory_iterator(arg)) {
                if (entry.is_regular_file() && entry.path().filename() != ".gitkeep") {
                    inputs += run_file(entry.path());
                }
            }
        } else if (std::filesystem::is_regular_file(arg, ec)) {
            inputs += run_file(arg);
        }
    }
    std::printf("replay: %d inputs, no crash\n", inputs);
    return inputs > 0 ? 0 : 1;
}

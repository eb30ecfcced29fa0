// tests/fuzz/fuzz_input.h - reading a fuzzer's input as a few control fields followed by the
// bytes handed to a decoder. Every harness takes its choices (which op, how to split a stream)
// from the front of the input, so libFuzzer can mutate them like any other byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <span>

namespace pmix::fuzz {

class Input {
public:
    Input(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}

    std::uint8_t u8() noexcept { return pos_ < size_ ? data_[pos_++] : 0; }
    std::uint32_t u32() noexcept {
        std::uint32_t v = 0;
        for (int i = 0; i < 4; ++i) v |= std::uint32_t{u8()} << (8 * i);
        return v;
    }
    // Up to n bytes (fewer at the end of the input).
    std::span<const std::uint8_t> bytes(std::size_t n) noexcept {
        const std::size_t k = n < size_ - pos_ ? n : size_ - pos_;
        std::span<const std::uint8_t> out(data_ + pos_, k);
        pos_ += k;
        return out;
    }
    std::span<const std::uint8_t> rest() noexcept { return bytes(size_ - pos_); }
    bool empty() const noexcept { return pos_ >= size_; }

private:
    const std::uint8_t* data_;
    std::size_t size_;
    std::size_t pos_ = 0;
};

// A property of the decoder that must hold for every input failed: abort, so that libFuzzer (and
// the replay tests) report it as a crash with the input that caused it.
[[noreturn]] inline void violated(const char* what) noexcept {
    std::fprintf(stderr, "fuzz: property violated: %s\n", what);
    std::abort();
}

}  // namespace pmix::fuzz

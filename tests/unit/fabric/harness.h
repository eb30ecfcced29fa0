// tests/unit/fabric/harness.h - N engines over one LoopbackHub, driven by a seeded shuffle.
#pragma once

#include "fabric/engine.h"
#include "fabric/loopback.h"

#include <memory>
#include <optional>
#include <random>
#include <vector>

namespace pmix::fabric::test {

// A deterministic contribution: `size` bytes that name their origin.
inline Bytes pattern(std::uint32_t origin, std::size_t size) {
    Bytes b(size);
    for (std::size_t i = 0; i < size; ++i)
        b[i] = static_cast<std::byte>((origin * 131 + i * 7) & 0xff);
    return b;
}

struct Outcome {
    std::optional<pmix_status_t> status;
    std::vector<Bytes> blocks;
};

class Cluster {
public:
    explicit Cluster(std::uint32_t n, std::uint32_t seed = 1) : hub_(n), rng_(seed) {
        for (std::uint32_t r = 0; r < n; ++r) {
            engines_.push_back(std::make_unique<Engine>(hub_.transport(r)));
            hub_.attach(r, engines_.back().get());
        }
    }
    Engine& engine(std::uint32_t r) { return *engines_.at(r); }
    LoopbackHub& hub() { return hub_; }

    // Starts collective `spec` on member `r`, recording its outcome in `out`.
    pmix_status_t start(std::uint32_t r, CollectiveSpec spec, Bytes mine, Outcome& out) {
        return engine(r).start(std::move(spec), std::move(mine),
                               [&out](pmix_status_t s, std::vector<Bytes> b) {
                                   out.status = s;
                                   out.blocks = std::move(b);
                               });
    }
    // Delivers up to `limit` queued packets, each chosen at random among all queued.
    std::size_t shuffle_deliver(std::size_t limit = SIZE_MAX) {
        std::size_t n = 0;
        while (hub_.queued() != 0 && n < limit) {
            std::uniform_int_distribution<std::size_t> pick(0, hub_.queued() - 1);
            hub_.deliver(pick(rng_));
            ++n;
        }
        return n;
    }
    std::mt19937& rng() { return rng_; }

private:
    LoopbackHub hub_;
    std::vector<std::unique_ptr<Engine>> engines_;
    std::mt19937 rng_;
};

}  // namespace pmix::fabric::test

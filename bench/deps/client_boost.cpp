// bench/deps/client_boost.cpp - the same client side as client_raw.cpp through Boost.Interprocess
// (shared_memory_object open_only read_only + mapped_region), for the code-size comparison.
#include <boost/interprocess/mapped_region.hpp>
#include <boost/interprocess/shared_memory_object.hpp>

#include <cstdio>

int main(int argc, char** argv) {
    namespace bip = boost::interprocess;
    if (argc < 2) return 2;
    try {
        bip::shared_memory_object shm(bip::open_only, argv[1] + 1, bip::read_only);
        bip::mapped_region region(shm, bip::read_only);
        std::printf("%d\n", static_cast<const char*>(region.get_address())[0]);
    } catch (const bip::interprocess_exception&) {
        return 1;
    }
    return 0;
}

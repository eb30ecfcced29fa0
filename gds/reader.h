// gds/reader.h - construction of the one StoreReader implementation (store_reader.cpp).
// Private to gds/.
#pragma once

#include "gds/backing.h"
#include "gds/store.h"

#include <memory>
#include <string_view>

namespace pmix::gds {

// A reader over the store whose directory region starts at segment `directory`.
pmix_status_t open_reader(std::shared_ptr<Backing> backing, std::string_view directory,
                          std::unique_ptr<StoreReader>& out) noexcept;

}  // namespace pmix::gds

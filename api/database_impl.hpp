// Database::Impl, shared by api/database.cpp and api/search.cpp. Include after api/engine.hpp.
#pragma once

#include <utility>

#include "api/engine.hpp"
#include "warpsearch/database.hpp"

namespace warpsearch {
inline namespace v0 {

struct Database::Impl {
  explicit Impl(engine::Database opened) : database(std::move(opened)) {}
  engine::Database database;
};

}  // namespace v0
}  // namespace warpsearch

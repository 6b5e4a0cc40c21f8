// Cluster mode's messages: byte strings of little-endian PODs and length-prefixed strings, read back with
// bounds checks, and what travels in them (candidate keys, aligned hits). Private to cluster/.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "search/warpsearch.hpp"

namespace warpsearch::distributed {

class Writer {
 public:
  template <typename T>
  void put(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const std::size_t at = bytes_.size();
    bytes_.resize(at + sizeof value);
    std::memcpy(bytes_.data() + at, &value, sizeof value);
  }
  void put_string(const std::string& text) {
    put<std::uint64_t>(text.size());
    bytes_ += text;
  }
  std::string take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

class Reader {
 public:
  Reader(const std::string& bytes, std::string from) : bytes_(bytes), from_(std::move(from)) {}
  template <typename T>
  T get() {
    T value;
    need(sizeof value);
    std::memcpy(&value, bytes_.data() + at_, sizeof value);
    at_ += sizeof value;
    return value;
  }
  std::string get_string() {
    const auto size = get<std::uint64_t>();
    need(size);
    std::string text = bytes_.substr(at_, size);
    at_ += size;
    return text;
  }
  bool done() const { return at_ == bytes_.size(); }

 private:
  void need(std::uint64_t size) const {
    if (size > bytes_.size() - at_)
      throw std::runtime_error("internal error: a truncated message from " + from_ + " (" +
                               std::to_string(bytes_.size()) + " bytes)");
  }
  const std::string& bytes_;
  std::string from_;
  std::size_t at_ = 0;
};

void put_key(Writer& out, const CandidateKey& key);
CandidateKey get_key(Reader& in);
void put_hit(Writer& out, const Hit& hit);
Hit get_hit(Reader& in);
// A reported hit's place in the engine's order: its candidate's key (a hit without statistics has a NaN
// E-value where its candidate had 0).
CandidateKey key_of(const Hit& hit);

}  // namespace warpsearch::distributed

#include "profile/query_profile.hpp"

#include <array>
#include <stdexcept>
#include <string>
#include <vector>

namespace warpsearch {
namespace {

void check_query(std::string_view query_codes) {
  if (query_codes.empty()) throw std::invalid_argument("cannot build a query profile for an empty query");
  if (query_codes.size() > 0xFFFFFFF0u)
    throw std::invalid_argument("query of " + std::to_string(query_codes.size()) + " residues is too long");
  for (std::size_t i = 0; i < query_codes.size(); ++i) {
    const auto code = static_cast<unsigned char>(query_codes[i]);
    if (code >= kMaxCodes)
      throw std::invalid_argument("query residue " + std::to_string(i + 1) + " has code " + std::to_string(code) +
                                  ", not a residue code (below " + std::to_string(kMaxCodes) + ")");
  }
}

}  // namespace

SequentialProfile::SequentialProfile(const SubstitutionMatrix& matrix, std::string_view query_codes) {
  check_query(query_codes);
  query_length_ = static_cast<std::uint32_t>(query_codes.size());
  padded_length_ = (query_length_ + 3u) & ~3u;
  scores_ = AlignedBuffer<std::int8_t>(std::size_t{kRows} * padded_length_);
  const std::uint8_t pad = matrix.alphabet().pad_code();
  for (int c = 0; c < kRows; ++c) {
    const auto& scores = matrix.row(static_cast<std::uint8_t>(c));
    std::int8_t* out = scores_.data() + std::size_t(c) * padded_length_;
    for (std::uint32_t i = 0; i < query_length_; ++i) out[i] = scores[static_cast<unsigned char>(query_codes[i])];
    for (std::uint32_t i = query_length_; i < padded_length_; ++i) out[i] = scores[pad];
  }
}

std::uint32_t SequentialProfile::word(std::uint8_t code, std::uint32_t w) const {
  const std::int8_t* scores = row(code) + 4 * std::size_t{w};
  std::uint32_t packed = 0;
  for (int k = 0; k < 4; ++k) packed |= std::uint32_t{static_cast<std::uint8_t>(scores[k])} << (8 * k);
  return packed;
}

template <typename Element>
StripedProfile<Element>::StripedProfile(const SubstitutionMatrix& matrix, std::string_view query_codes, int lanes) {
  static_assert(std::is_same_v<Element, std::int8_t> || std::is_same_v<Element, std::uint8_t> ||
                    std::is_same_v<Element, std::int16_t>,
                "striped profiles hold int8, biased uint8 or int16 scores");
  check_query(query_codes);
  if (lanes < 1 || lanes > 64 || (lanes & (lanes - 1)) != 0)
    throw std::invalid_argument("striped profile lane count must be a power of two from 1 to 64, not " +
                                std::to_string(lanes));
  query_length_ = static_cast<std::uint32_t>(query_codes.size());
  lanes_ = lanes;
  const auto v = static_cast<std::uint32_t>(lanes);
  segment_length_ = (query_length_ + v - 1) / v;
  bias_ = kBiased ? -matrix.min_score() : 0;
  elements_ = AlignedBuffer<Element>(std::size_t{kRows} * segment_length_ * v);
  const std::uint8_t pad = matrix.alphabet().pad_code();
  // The query in striped order once (position l * S + s at s * V + l, the padding code past its end);
  // then each row is one gather through it, which a profile built for every pair of a batch needs fast.
  const std::size_t count = std::size_t{segment_length_} * v;
  std::vector<std::uint8_t> striped(count, pad);
  for (std::uint32_t l = 0; l < v; ++l)
    for (std::uint32_t s = 0; s < segment_length_ && l * segment_length_ + s < query_length_; ++s)
      striped[std::size_t{s} * v + l] = static_cast<std::uint8_t>(query_codes[l * segment_length_ + s]);
  for (int c = 0; c < kRows; ++c) {
    const auto& scores = matrix.row(static_cast<std::uint8_t>(c));
    std::array<Element, kMaxCodes> row;
    for (int k = 0; k < kMaxCodes; ++k) row[static_cast<std::size_t>(k)] = static_cast<Element>(scores[k] + bias_);
    Element* out = elements_.data() + std::size_t(c) * count;
    for (std::size_t i = 0; i < count; ++i) out[i] = row[striped[i]];
  }
}

template class StripedProfile<std::int8_t>;
template class StripedProfile<std::uint8_t>;
template class StripedProfile<std::int16_t>;

}  // namespace warpsearch

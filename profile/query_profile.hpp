// Query profiles: the substitution scores of one query, laid out the way kernels read them.
// Built once per query (and scoring scheme), read by every kernel that scans subjects against it.
//
// Both profiles have kMaxCodes (32) rows, one per possible residue code, not alphabet size + 1: a
// packed subject byte is always below kMaxCodes (core/alphabet.hpp), so a kernel may index a row with
// any code it reads, padding included, without a clamp or a bounds check. Rows of codes the alphabet
// does not use score as the padding code does (the matrix minimum). The cost is a few rows
// (protein 28 used of 32, nucleotide 6 of 32), which is small next to the query length.
//
// --- Sequential profile (SequentialProfile) -------------------------------------------------------
//   P = padded_length() = query length rounded up to a multiple of 4.
//   byte (c * P + i), for code c in 0..31 and position i in 0..P-1, is the int8 score
//       M[c][q_i]                 for i <  query length
//       M[c][pad]                 for i >= query length (pad = the alphabet's padding code; that is
//                                  the matrix minimum, so reading the padding tail never raises a
//                                  local alignment score)
//   Each row starts on a 4-byte boundary, so a kernel loads scores 4w..4w+3 of row c as the 32-bit
//   little-endian word at byte c * P + 4 w (score 4w in bits 0..7, CUDA's char4 layout). The buffer
//   starts on a 64-byte boundary. Total size 32 * P bytes.
//
// --- Striped profile (StripedProfile<Element>, Farrar 2007) -----------------------------------------
//   V = lanes() elements per vector, S = segment_length() = ceil(m / V) for a query of length m.
//   The query is cut into V stripes of S consecutive positions; lane l of vector s holds position
//   l * S + s. Element (c, s, l), for code c in 0..31, segment s in 0..S-1, lane l in 0..V-1, sits at
//   element index (c * S + s) * V + l, i.e. byte ((c * S + s) * V + l) * sizeof(Element), and holds
//       M[c][q[l * S + s]] + bias   when l * S + s < m
//       M[c][pad] + bias            otherwise (positions past the end score as padding)
//   So vector (c, s) is V * sizeof(Element) contiguous bytes, and the S vectors of code c are
//   contiguous: a kernel walking segment s = 0..S-1 for subject residue c reads one vector per step.
//   The buffer starts on a 64-byte boundary; with V * sizeof(Element) in {16, 32, 64} (SSE, AVX2,
//   AVX-512) every vector is aligned to its own size.
//   Element types: int8_t (bias 0), int16_t (bias 0), and uint8_t, the biased layout for unsigned
//   8-bit kernels: bias = -(matrix minimum), so every stored score is >= 0 and the padding scores 0.
//
// Ownership and thread safety: a profile owns its buffer (move-only); const members may be called
// from any number of threads at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <string_view>
#include <type_traits>
#include <utility>

#include "core/alphabet.hpp"
#include "profile/scoring.hpp"

namespace warpsearch {

// A move-only, 64-byte aligned, zero-initialised array of trivially copyable elements.
template <typename T>
class AlignedBuffer {
 public:
  static constexpr std::size_t kAlignment = 64;
  AlignedBuffer() = default;
  explicit AlignedBuffer(std::size_t count);
  ~AlignedBuffer() { release(); }
  AlignedBuffer(AlignedBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  AlignedBuffer& operator=(AlignedBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }

 private:
  void release() noexcept {
    if (data_ != nullptr) ::operator delete(data_, std::align_val_t(kAlignment));
    data_ = nullptr;
    size_ = 0;
  }
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

template <typename T>
AlignedBuffer<T>::AlignedBuffer(std::size_t count) : size_(count) {
  static_assert(std::is_trivially_copyable_v<T>, "AlignedBuffer holds plain data only");
  if (count == 0) return;
  data_ = static_cast<T*>(::operator new(count * sizeof(T), std::align_val_t(kAlignment)));
  std::memset(static_cast<void*>(data_), 0, count * sizeof(T));
}

// The sequential (position-major within a code row) int8 profile. See the layout above.
class SequentialProfile {
 public:
  static constexpr int kRows = kMaxCodes;

  // query_codes: residue codes (core/alphabet.hpp) of the matrix's alphabet. Throws
  // std::invalid_argument for an empty query or a code >= kMaxCodes.
  SequentialProfile(const SubstitutionMatrix& matrix, std::string_view query_codes);

  std::uint32_t query_length() const { return query_length_; }
  std::uint32_t padded_length() const { return padded_length_; }
  // Row of code c: padded_length() scores.
  const std::int8_t* row(std::uint8_t code) const { return scores_.data() + std::size_t{code} * padded_length_; }
  int score(std::uint8_t code, std::uint32_t position) const { return row(code)[position]; }
  // Scores 4w..4w+3 of row c packed little-endian (score 4w in the low byte).
  std::uint32_t word(std::uint8_t code, std::uint32_t w) const;

  const std::int8_t* data() const { return scores_.data(); }
  std::size_t size_bytes() const { return scores_.size(); }

 private:
  std::uint32_t query_length_ = 0;
  std::uint32_t padded_length_ = 0;
  AlignedBuffer<std::int8_t> scores_;
};

// Farrar's striped profile. Element is std::int8_t, std::uint8_t (biased) or std::int16_t.
template <typename Element>
class StripedProfile {
 public:
  static constexpr int kRows = kMaxCodes;
  static constexpr bool kBiased = std::is_unsigned_v<Element>;

  // lanes: a power of two from 1 to 64 (16/32/64 bytes or 8/16/32 words for SSE/AVX2/AVX-512).
  // Throws std::invalid_argument for an empty query, a code >= kMaxCodes or an unsupported lane count.
  StripedProfile(const SubstitutionMatrix& matrix, std::string_view query_codes, int lanes);

  std::uint32_t query_length() const { return query_length_; }
  int lanes() const { return lanes_; }
  std::uint32_t segment_length() const { return segment_length_; }
  // Added to every matrix score before storing (0 unless Element is unsigned).
  int bias() const { return bias_; }

  // The S vectors of code c, S * V elements.
  const Element* row(std::uint8_t code) const {
    return elements_.data() + std::size_t{code} * segment_length_ * static_cast<std::size_t>(lanes_);
  }
  // The V elements of vector (c, s).
  const Element* vector(std::uint8_t code, std::uint32_t segment) const {
    return row(code) + std::size_t{segment} * static_cast<std::size_t>(lanes_);
  }
  Element element(std::uint8_t code, std::uint32_t segment, int lane) const { return vector(code, segment)[lane]; }

  const Element* data() const { return elements_.data(); }
  std::size_t size_bytes() const { return elements_.size() * sizeof(Element); }

 private:
  std::uint32_t query_length_ = 0;
  int lanes_ = 0;
  std::uint32_t segment_length_ = 0;
  int bias_ = 0;
  AlignedBuffer<Element> elements_;
};

extern template class StripedProfile<std::int8_t>;
extern template class StripedProfile<std::uint8_t>;
extern template class StripedProfile<std::int16_t>;

}  // namespace warpsearch

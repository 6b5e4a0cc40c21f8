// Private to kernels/cpu: the inter-sequence Smith-Waterman scan kernel, one template for every
// instruction set and element width. Include it only from a per-instruction-set source file, which
// defines that instruction set's traits (the x86 ones share the lookups of scan_x86.hpp) and
// instantiates the kernel with make_scan_table: everything here has internal linkage, so code
// compiled with one file's -m flags never serves another.
//
// Layout. Each of the Traits::lanes SIMD lanes scores one subject. The subject axis is walked in
// blocks of four columns (one packed 32-bit word of every lane's subject); within a block, the query
// axis is walked row by row, and the four columns of a row are computed one after the other, so the
// vertical (F) chains of the four columns and the horizontal (E) chain of the row overlap in the
// pipeline. Between blocks, per query row, the H and E values of the block's last column are kept in
// `state` (2 vectors per row). A lane whose subject has ended is given the next subject at a block
// boundary; the H, E and running maximum of that lane are zeroed there by a mask.
//
// Arithmetic. Elements are unsigned and saturating. Substitution scores are stored biased
// (score - min >= 0): H = subs(adds(H_diag, S + bias), bias) floors at zero for free, and so do the gap
// states (a local alignment never needs a negative E or F). The first cell whose true score reaches
// cap - bias computes exactly cap - bias (everything before it was exact), so a lane maximum
// >= cap - bias flags a possibly wrong score, and a lane maximum below it is exact.
//
// Per cell and vector: adds, subs (bias), 2x subs + max (E), subs + max (F), max (E), max (F),
// max (running maximum), subs (H - open - extend, shared by E and F): 10 operations; per row of four
// cells also 2 loads, 2 stores and one profile address.
//
// Traits. A traits type T (ScalarTraits below is the plainest) gives: V, the vector; Elem, its unsigned
// element; lanes, elements per vector; cap, the element's largest value (kCap8, kCap16, kCap32);
// zero, splat, adds, subs, max, and_ (saturating unsigned lane arithmetic), load and store (aligned V);
// load_lanes and store_lanes (unaligned V from / to an array of Elem); and the score lookup:
// codes(lane_codes) (one subject code per lane, one byte each), row(biased_row) (one query letter's 32
// biased scores, one per subject code) and lookup(row, codes), each lane's score widened to Elem.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#include "kernels/cpu/scan_table.hpp"

namespace warpsearch::cpu::detail {
namespace {

constexpr int kBlockColumns = 4;  // subject columns per block: one packed word per lane

// One aligned allocation, freed on scope exit (also on an exception).
class AlignedBuffer {
 public:
  explicit AlignedBuffer(std::size_t bytes)
      : data_(static_cast<unsigned char*>(::operator new (bytes == 0 ? 64 : bytes, std::align_val_t{64}))) {}
  ~AlignedBuffer() { ::operator delete (data_, std::align_val_t{64}); }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  unsigned char* data() const { return data_; }

 private:
  unsigned char* data_;
};

constexpr std::size_t round_up_64(std::size_t bytes) { return (bytes + 63) / 64 * 64; }

// The query rows of one block. Reset: some lane starts a new subject in this block, so its H and E
// of the previous column are masked to zero.
template <class T, bool Reset>
inline typename T::V scan_block_rows(const ScanProfile& profile, typename T::V* state,
                                     const typename T::V* block_profile, typename T::V keep,
                                     typename T::V running_max) {
  using V = typename T::V;
  const V bias = T::splat(profile.bias);
  const V open_extend = T::splat(profile.gap_open_extend);
  const V extend = T::splat(profile.gap_extend);
  V f[kBlockColumns];
  V h_above[kBlockColumns];  // H of the row above, per column of the block
#pragma GCC unroll 8
  for (int k = 0; k < kBlockColumns; ++k) f[k] = h_above[k] = T::zero();
  V h_left_above = T::zero();  // H(i - 1, j - 1): the previous block's last column, row above
  // Locals, not profile's fields: stores through V (a may_alias type) would force reloads.
  const std::uint8_t* const query = profile.query;
  const std::size_t query_length = profile.query_length;
  for (std::size_t i = 0; i < query_length; ++i) {
    const V* scores = block_profile + static_cast<std::size_t>(query[i]) * kBlockColumns;
    V h_left = T::load(state + 2 * i);
    V e = T::load(state + 2 * i + 1);
    if constexpr (Reset) {
      h_left = T::and_(h_left, keep);
      e = T::and_(e, keep);
    }
    V diagonal = h_left_above;
    h_left_above = h_left;
    V h_open = T::subs(h_left, open_extend);
    V h = h_left;
    // Fully unrolled, so that f[] and h_above[] live in registers.
#pragma GCC unroll 8
    for (int k = 0; k < kBlockColumns; ++k) {
      h = T::subs(T::adds(diagonal, T::load(scores + k)), bias);
      e = T::max(T::subs(e, extend), h_open);
      h = T::max(h, e);
      h = T::max(h, f[k]);
      running_max = T::max(running_max, h);
      h_open = T::subs(h, open_extend);
      f[k] = T::max(T::subs(f[k], extend), h_open);
      diagonal = h_above[k];
      h_above[k] = h;
    }
    T::store(state + 2 * i, h);
    T::store(state + 2 * i + 1, e);
  }
  return running_max;
}

template <class T>
void scan_subjects(const ScanProfile& profile, const ScanRequest& request) {
  using V = typename T::V;
  using Elem = typename T::Elem;
  constexpr int kLanes = T::lanes;
  const SubjectBatch& batch = *request.batch;
  const std::int64_t limit = T::cap - profile.bias;

  if (profile.query_length == 0) {
    for (std::size_t n = 0; n < request.count; ++n) {
      request.scores[request.order[n]] = 0;
      request.saturated[request.order[n]] = 0;
    }
    return;
  }

  // Scratch: state (2 vectors per query row), the block's score profile (letters x 4 vectors), the
  // lanes' residue codes of the block (4 x 64 bytes), the keep mask and the lane maxima.
  const std::size_t state_bytes = round_up_64(2 * profile.query_length * sizeof(V));
  const std::size_t profile_bytes = round_up_64(static_cast<std::size_t>(profile.letters) * kBlockColumns * sizeof(V));
  const std::size_t codes_bytes = kBlockColumns * 64;
  const std::size_t lane_bytes = round_up_64(sizeof(V));
  AlignedBuffer scratch(state_bytes + profile_bytes + codes_bytes + 2 * lane_bytes);
  V* state = reinterpret_cast<V*>(scratch.data());
  V* block_profile = reinterpret_cast<V*>(scratch.data() + state_bytes);
  std::uint8_t* codes = scratch.data() + state_bytes + profile_bytes;
  Elem* keep_lanes = reinterpret_cast<Elem*>(codes + codes_bytes);
  Elem* max_lanes = reinterpret_cast<Elem*>(codes + codes_bytes + lane_bytes);
  std::memset(state, 0, state_bytes);
  std::memset(codes, kIdleCode, codes_bytes);

  // Lane bookkeeping.
  bool active[kLanes];
  std::size_t subject[kLanes];     // index into the batch
  std::uint32_t position[kLanes];  // next residue of the subject (a multiple of 4)
  std::uint32_t length[kLanes];
  for (int lane = 0; lane < kLanes; ++lane) {
    active[lane] = false;
    subject[lane] = 0;
    position[lane] = length[lane] = 0;
  }
  std::size_t next = 0;
  V running_max = T::zero();

  for (;;) {
    // Lanes whose subject ended in the previous block hand in their score.
    bool any_finished = false;
    for (int lane = 0; lane < kLanes; ++lane) any_finished |= active[lane] && position[lane] >= length[lane];
    if (any_finished) {
      T::store_lanes(max_lanes, running_max);
      for (int lane = 0; lane < kLanes; ++lane) {
        if (!active[lane] || position[lane] < length[lane]) continue;
        const std::int64_t best = max_lanes[lane];
        request.scores[subject[lane]] = static_cast<std::int32_t>(best);
        request.saturated[subject[lane]] = best >= limit ? 1 : 0;
        active[lane] = false;
      }
    }
    // Idle lanes take the next subjects.
    bool any_started = false;
    bool any_active = false;
    for (int lane = 0; lane < kLanes; ++lane) {
      keep_lanes[lane] = static_cast<Elem>(~Elem{0});
      if (!active[lane]) {
        while (next < request.count && batch.lengths[request.order[next]] == 0) {
          request.scores[request.order[next]] = 0;
          request.saturated[request.order[next]] = 0;
          ++next;
        }
        if (next < request.count) {
          subject[lane] = request.order[next++];
          length[lane] = batch.lengths[subject[lane]];
          position[lane] = 0;
          active[lane] = true;
          keep_lanes[lane] = 0;
          any_started = true;
        }
      }
      any_active |= active[lane];
    }
    if (!any_active) break;

    // The block's residue codes, column-major: codes[64 * k + lane]. Past a subject's end: idle code.
    for (int lane = 0; lane < kLanes; ++lane) {
      std::uint32_t word = 0x1F1F1F1Fu;  // four idle codes
      if (active[lane]) {
        word = batch.words[batch.word_offsets[subject[lane]] + position[lane] / 4];
        const std::uint32_t left = length[lane] - position[lane];
        if (left < 4) word = (word & ((1u << (8 * left)) - 1)) | (0x1F1F1F1Fu << (8 * left));
        position[lane] += 4;
      }
      for (int k = 0; k < kBlockColumns; ++k) codes[64 * k + lane] = static_cast<std::uint8_t>((word >> (8 * k)) & 31u);
    }

    // The block's score profile: block_profile[4 * a + k] = biased scores of query letter a against
    // the lanes' residues in column k.
    {
      typename T::Codes column_codes[kBlockColumns];
      for (int k = 0; k < kBlockColumns; ++k) column_codes[k] = T::codes(codes + 64 * k);
      for (int a = 0; a < profile.letters; ++a) {
        const typename T::Row row = T::row(profile.biased_rows + 32 * a);
        for (int k = 0; k < kBlockColumns; ++k)
          T::store(block_profile + kBlockColumns * a + k, T::lookup(row, column_codes[k]));
      }
    }

    if (any_started) {
      const V keep = T::load_lanes(keep_lanes);
      running_max = T::and_(running_max, keep);
      running_max = scan_block_rows<T, true>(profile, state, block_profile, keep, running_max);
    } else {
      running_max = scan_block_rows<T, false>(profile, state, block_profile, T::zero(), running_max);
    }
  }
}

// Plain C++ lanes: one lane, saturating at Cap. The scalar instruction set, and the 32-bit width of
// every instruction set.
template <class E, std::int64_t Cap>
struct ScalarTraits {
  using V = E;
  using Elem = E;
  static constexpr int lanes = 1;
  static constexpr std::int64_t cap = Cap;
  using Codes = std::uint8_t;
  using Row = const std::uint8_t*;

  static V zero() { return 0; }
  static V splat(int x) { return static_cast<V>(x); }
  static V adds(V a, V b) {
    const std::uint64_t sum = std::uint64_t{a} + std::uint64_t{b};
    return static_cast<V>(sum > static_cast<std::uint64_t>(Cap) ? static_cast<std::uint64_t>(Cap) : sum);
  }
  static V subs(V a, V b) { return a > b ? static_cast<V>(a - b) : V{0}; }
  static V max(V a, V b) { return a > b ? a : b; }
  static V and_(V a, V b) { return static_cast<V>(a & b); }
  static V load(const V* p) { return *p; }
  static void store(V* p, V v) { *p = v; }
  static V load_lanes(const Elem* p) { return *p; }
  static void store_lanes(Elem* p, V v) { *p = v; }
  static Codes codes(const std::uint8_t* lane_codes) { return lane_codes[0]; }
  static Row row(const std::uint8_t* biased_row) { return biased_row; }
  static V lookup(Row row, Codes code) { return row[code & 31u]; }
};

// An instruction set's table: its 8- and 16-bit traits, and plain 32-bit lanes (compiled, like the
// rest of the including file, with that instruction set's flags).
template <class U8, class U16>
constexpr ScanTable make_scan_table() {
  return {{&scan_subjects<U8>, &scan_subjects<U16>, &scan_subjects<ScalarTraits<std::uint32_t, kCap32>>}};
}

}  // namespace
}  // namespace warpsearch::cpu::detail

// Private to kernels/cpu: the striped (Farrar 2007) pair kernel, one template for every instruction
// set, element width and alignment mode. Include it only from a per-instruction-set source file:
// everything here has internal linkage, so code compiled with one file's -m flags never serves another.
//
// Layout. The query is cut into V stripes (V = lanes) of S = ceil(m / V) consecutive positions: lane l
// of vector s is query position l * S + s (profile/query_profile.hpp, StripedProfile). One subject
// column is S vector steps.
//
// Recurrences (gap of length k costs open + k * extend; oe = open + extend; 1-based DP rows/columns):
//   X(i, j) = max(H(i-1, j-1) + s(q_i, t_j), E(i, j) [, 0 for local])
//   H(i, j) = max(X(i, j), F(i, j))
//   E(i, j+1) = max(E(i, j) - extend, H(i, j) - oe)
//   F(i+1, j) = max(F(i, j) - extend, H(i, j) - oe) = max(F(i, j) - extend, X(i, j) - oe)
// The last form holds because F - oe <= F - extend. It makes F a max-plus scan of X alone, which is what
// lets a column be done in two passes:
//   1. Over the segments: X, and F along each lane's own stripe (the F entering lane l > 0 left out);
//      H' = max(X, F') is stored, so is E from H'. H is off the F chain: 2 operations of latency per step.
//   2. The F entering each lane exactly, by a prefix scan over the lanes (log2 V steps: the F leaving lane
//      l, or the F entering it minus S extends), then a second walk over the segments that raises H and E
//      where that carried F is higher. It stops at the first segment after which no lane's carried F can
//      exceed the F the first pass already had: F'(s + 1) >= H'(s) - oe, so a carry c with
//      c - extend <= H'(s) - oe is dominated from there on (and stays so, both falling by extend).
// Unlike Farrar's lazy-F loop, which carries F one lane further per sweep and needs up to V sweeps in a
// column crossed by a long vertical gap (common in global alignment, and below every high-scoring cell of
// a related pair), the second walk is at most one sweep.
// Row 0 and column 0 are the mode's boundaries: 0 (local; semiglobal row 0) or one gap,
// -(open + k * extend) (global; semiglobal column 0).
//
// Per cell and vector, first pass: adds (substitution), max (E), [max (0), local], max (F), max (running
// maximum), [min (running minimum), global 16-bit], 2 subs (- oe), 2 subs (- extend), 2 max (E', F'):
// 10-11 ALU operations, 2 loads (E, diagonal H; the profile load folds into adds), 2 stores (H, E).
// Second walk, per segment it visits: max, subs, max (E), max (running maximum), subs, subs and a
// compare: about 7 operations, 2 loads, 2 stores.
//
// Exactness of the 16-bit kernels. Saturating add and subtract compute clamp(true value) whenever their
// input is exact, and max/min commute with clamp, so every value is exact until some true value leaves
// the range. Upward: the first such value is an H (E and F never exceed an earlier H), whose computed
// value is then the cap 32767, so a running maximum >= 32767 flags it (checked after every column: the
// pass stops there, as nothing after it can make the outcome usable). Downward: E, F and X are at least
// H - 2 oe (and diagonal sums only enter maxima), so when every H is >= -32768 + 2 oe + 128 nothing
// leaves the range. Local alignment never goes that low (H >= 0); semi-global H is at least the column-0
// boundary -(open + m * extend), which the dispatcher bounds before choosing 16 bits; global keeps a
// running minimum of H (the first-pass values, which are never above the final ones) and the dispatcher
// bounds the two boundaries. Carried F values of the scan that fall below that floor (their cost is
// clamped, so they may land a little above their true value) stay below every real F and change nothing.
// Padding positions (past the query's end) only feed later padding positions; they may raise a false
// alarm near a limit, never hide one.
// The 32-bit kernels use wrapping arithmetic with minus infinity = -2^30; the dispatcher keeps every
// true value within +-2^29 (striped.cpp, fits_32_bits: H of each mode lies in a range set by its
// boundaries, the gap costs and the largest substitution score, and E, F, X within one open + extend of
// it). Minus infinity then only ever loses bounded amounts: a carry of the scan is at least
// -2^30 - 2^30 = -2^31 (each stripe cost is capped at 2^30), and lane 0's carry in the second walk falls
// by extend per segment for at most (high - low + oe) / extend + 1 segments (the walk stops once no lane's
// carry beats a real H - oe), so no computed value wraps. The 64-bit kernels (the scalar template with
// int64_t and minus infinity -2^62) serve every pair beyond that: with lengths below 2^32 and scores and
// gap costs below 128 every value is within +-2^41.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#include "kernels/cpu/striped_table.hpp"

namespace warpsearch::cpu::detail {
namespace {

// Scratch (three columns: H of the previous column, H of this one, E of the next; two vectors of
// running extremes and one of the current column's maximum), freed on scope exit.
class StripedScratch {
 public:
  explicit StripedScratch(std::size_t bytes)
      : data_(static_cast<unsigned char*>(::operator new (bytes == 0 ? 64 : bytes, std::align_val_t{64}))) {}
  ~StripedScratch() { ::operator delete (data_, std::align_val_t{64}); }
  StripedScratch(const StripedScratch&) = delete;
  StripedScratch& operator=(const StripedScratch&) = delete;
  unsigned char* data() const { return data_; }

 private:
  unsigned char* data_;
};

// The low end of the range every 16-bit H must stay in (see the header comment); the dispatcher uses
// the same margin for its static bounds.
constexpr std::int64_t kLowMarginPerOpenExtend = 2;
constexpr std::int64_t kLowMarginSubstitution = 128;

template <class T>
typename T::Elem clamp_to(std::int64_t x) {
  if (x < T::kMinusInfinity) return T::kMinusInfinity;
  if (x > T::kMax) return T::kMax;
  return static_cast<typename T::Elem>(x);
}

template <class T>
std::int64_t horizontal_max(typename T::V v) {
  alignas(64) typename T::Elem lanes[T::lanes];
  T::store(reinterpret_cast<typename T::V*>(lanes), v);
  std::int64_t best = lanes[0];
  for (int l = 1; l < T::lanes; ++l) best = lanes[l] > best ? lanes[l] : best;
  return best;
}

template <class T>
std::int64_t horizontal_min(typename T::V v) {
  alignas(64) typename T::Elem lanes[T::lanes];
  T::store(reinterpret_cast<typename T::V*>(lanes), v);
  std::int64_t least = lanes[0];
  for (int l = 1; l < T::lanes; ++l) least = lanes[l] < least ? lanes[l] : least;
  return least;
}

// The cost of carrying F across `lanes` whole stripes, as the subtrahends a and b of two saturating
// subtractions (16 bits: each at most 32767, so carry - a - b is exact or clamped; a cost beyond both
// makes the carry a value below any real F). 32 bits: one subtraction, at most 2^30.
template <class T>
struct ScanCost {
  typename T::V first, second;
};

template <class T>
ScanCost<T> scan_cost(std::int64_t cost) {
  if constexpr (T::saturating) {
    const std::int64_t first = cost < T::kMax ? cost : T::kMax;
    const std::int64_t rest = cost - first;
    return {T::splat(static_cast<typename T::Elem>(first)),
            T::splat(static_cast<typename T::Elem>(rest < T::kMax ? rest : T::kMax))};
  } else {
    return {T::splat(static_cast<typename T::Elem>(cost < T::kMax ? cost : T::kMax)), T::splat(0)};
  }
}

// Max-plus prefix scan over the lanes (Hillis-Steele): carry(l) = max over k <= l of
// carry(k) - (l - k) * stripe_cost, in log2(lanes) steps of D = 1, 2, 4, ... lanes.
template <class T, int D>
typename T::V scan_lanes(typename T::V carry, const ScanCost<T>* costs, typename T::V minus_infinity) {
  if constexpr (D < T::lanes) {
    typename T::V moved = T::template shift_up<D>(carry, minus_infinity);
    moved = T::subs(moved, costs->first);
    if constexpr (T::saturating) moved = T::subs(moved, costs->second);
    return scan_lanes<T, 2 * D>(T::max(carry, moved), costs + 1, minus_infinity);
  } else {
    return carry;
  }
}

// The F entering every lane's first segment, from the F leaving every lane in the first pass (lane 0's
// entered in the first pass already). Not inlined on purpose: inlined, GCC (12) hoists the scan's cost
// vectors out of the column loop into registers and keeps the first pass's running maximum in memory
// instead, a store-to-load round trip on every step of the first pass.
template <class T>
__attribute__((noinline)) typename T::V carry_into_lanes(typename T::V f_out, const ScanCost<T>* costs) {
  const typename T::V minus_infinity = T::splat(T::kMinusInfinity);
  return scan_lanes<T, 1>(T::template shift_up<1>(f_out, minus_infinity), costs, minus_infinity);
}

// The pass stays one function (about 180 lines): its vectors live in registers across the column loop; the
// one step kept out of line is carry_into_lanes, for the reason given above it.
template <class T, AlignmentMode Mode>
StripedOutcome striped_pass(const StripedPass& pass) {
  using V = typename T::V;
  using Elem = typename T::Elem;
  constexpr int kLanes = T::lanes;
  constexpr bool kLocal = Mode == AlignmentMode::local;
  constexpr bool kGlobal = Mode == AlignmentMode::global;
  constexpr bool kSemiglobal = Mode == AlignmentMode::semiglobal;
  constexpr bool kTrackMax = kLocal || T::saturating;
  constexpr bool kTrackMin = kGlobal && T::saturating;

  const std::size_t segments = pass.segments;
  const std::size_t m = pass.query_length;
  const std::size_t n = pass.subject_length;
  const std::int64_t open = pass.gap_open;
  const std::int64_t extend = pass.gap_extend;
  const std::int64_t open_extend = open + extend;
  const V v_open_extend = T::splat(static_cast<Elem>(open_extend));
  const V v_extend = T::splat(static_cast<Elem>(extend));
  const V v_minus_infinity = T::splat(T::kMinusInfinity);
  // The cost of carrying F across 1, 2, 4, ... whole stripes of S positions.
  ScanCost<T> stripe_costs[8];
  for (int step = 0, lanes = 1; lanes < kLanes; ++step, lanes *= 2)
    stripe_costs[step] = scan_cost<T>(static_cast<std::int64_t>(lanes) * static_cast<std::int64_t>(segments) * extend);
  // H of row 0 in column j.
  auto row0 = [&](std::size_t j) -> std::int64_t {
    return kGlobal && j > 0 ? -(open + static_cast<std::int64_t>(j) * extend) : 0;
  };

  StripedScratch scratch((3 * segments + 3) * sizeof(V));
  V* h_previous = reinterpret_cast<V*>(scratch.data());
  V* h_current = h_previous + segments;
  V* e = h_current + segments;
  // The running maximum and minimum of H, kept in memory between columns on purpose: a vector live
  // across the call to carry_into_lanes lives in memory (every vector register is caller-saved), and
  // GCC then leaves it there during the first pass too, a store-to-load round trip on every step
  // (2000 x 2000, AVX2 16-bit global: 3.4 GCUPS with it, 8.7 without). The empty asm statements
  // that may read or write `extremes` keep GCC from forwarding the stored values in registers.
  V* extremes = e + segments;

  // Column 0: H(i, 0) is 0 (local) or one vertical gap; E of column 1 = H(i, 0) - oe (no horizontal
  // gap ends in column 0).
  {
    Elem* h0 = reinterpret_cast<Elem*>(h_previous);
    Elem* e1 = reinterpret_cast<Elem*>(e);
    for (std::size_t s = 0; s < segments; ++s)
      for (int lane = 0; lane < kLanes; ++lane) {
        const std::size_t position = static_cast<std::size_t>(lane) * segments + s;
        const std::int64_t h = kLocal ? 0 : -(open + static_cast<std::int64_t>(position + 1) * extend);
        h0[s * kLanes + static_cast<std::size_t>(lane)] = clamp_to<T>(h);
        e1[s * kLanes + static_cast<std::size_t>(lane)] = clamp_to<T>(h - open_extend);
      }
  }

  StripedOutcome outcome;
  // Where query position m - 1 (DP row m) sits in a column: vector end_segment, lane end_lane.
  const std::size_t end_index = ((m - 1) % segments) * kLanes + (m - 1) / segments;
  std::int64_t best = 0;
  if constexpr (kSemiglobal) {
    best = -(open + static_cast<std::int64_t>(m) * extend);  // H(m, 0): the whole query against a gap
    outcome.query_end = static_cast<std::uint32_t>(m);
  }
  T::store(extremes, T::splat(kLocal ? Elem{0} : T::kMinusInfinity));
  T::store(extremes + 1, T::splat(T::kMax));
  V v_best = T::splat(Elem{0});
  // A cell >= hot_threshold is one > hot_threshold - 1 (clamped: a threshold beyond the element's range
  // is only reached by a saturated pass, which the caller recomputes wider).
  const V v_hot = T::splat(clamp_to<T>(pass.hot_threshold - 1));

  for (std::size_t j = 1; j <= n; ++j) {
    const std::int16_t* column_profile =
        pass.profile + static_cast<std::size_t>(pass.subject[j - 1] & 31u) * segments * kLanes;
    V diagonal = T::template shift_up<1>(T::load(h_previous + segments - 1), T::splat(clamp_to<T>(row0(j - 1))));
    V f = T::template shift_up<1>(v_minus_infinity, T::splat(clamp_to<T>(row0(j) - open_extend)));
    asm volatile("" : : "r"(extremes) : "memory");
    // Local alignment needs each column's own maximum (the best cell and the hot columns are found per
    // column); the running maximum, kept for the saturation check, is raised once per column.
    V column_max = kLocal ? T::splat(Elem{0}) : T::load(extremes);
    V column_min = T::load(extremes + 1);
    for (std::size_t s = 0; s < segments; ++s) {
      V x = T::adds(diagonal, T::load_profile(column_profile + s * kLanes));
      const V e_here = T::load(e + s);
      x = T::max(x, e_here);
      if constexpr (kLocal) x = T::max(x, T::splat(Elem{0}));
      const V h = T::max(x, f);
      if constexpr (kTrackMax) column_max = T::max(column_max, h);
      if constexpr (kTrackMin) column_min = T::min(column_min, h);
      diagonal = T::load(h_previous + s);
      T::store(h_current + s, h);
      T::store(e + s, T::max(T::subs(e_here, v_extend), T::subs(h, v_open_extend)));
      f = T::max(T::subs(f, v_extend), T::subs(x, v_open_extend));
    }

    T::store(kLocal ? extremes + 2 : extremes, column_max);
    T::store(extremes + 1, column_min);

    // The second walk. Its carry only falls (by extend per segment) and is applied at segment 0 of
    // every lane, so the column's new maximum is max(first pass, carry at segment 0): no running
    // maximum in the walk.
    V carry = carry_into_lanes<T>(f, stripe_costs);
    asm volatile("" : : "r"(extremes) : "memory");
    const V column_max_final = T::max(T::load(kLocal ? extremes + 2 : extremes), carry);
    if constexpr (kLocal)
      T::store(extremes, T::max(T::load(extremes), column_max_final));
    else
      T::store(extremes, column_max_final);
    if constexpr (T::saturating && !kLocal) {
      // Saturated (local checks below, where a new maximum is found): stop here, as the outcome is
      // unusable anyway.
      if (T::any_greater(column_max_final, T::splat(static_cast<Elem>(T::kMax - 1)))) {
        outcome.saturated = true;
        return outcome;
      }
    }
    for (std::size_t s = 0; kLanes > 1 && s < segments; ++s) {
      const V h_old = T::load(h_current + s);
      const V h_new = T::max(h_old, carry);
      T::store(h_current + s, h_new);
      T::store(e + s, T::max(T::load(e + s), T::subs(h_new, v_open_extend)));
      carry = T::subs(carry, v_extend);
      if (!T::any_greater(carry, T::subs(h_old, v_open_extend))) break;
    }

    if constexpr (kLocal) {
      // A new maximum lies in this column: the smallest query position holding it.
      if (j > pass.first_column && T::any_greater(column_max_final, v_best)) {
        best = horizontal_max<T>(column_max_final);
        if constexpr (T::saturating) {
          // Saturated: the rest of the subject cannot make the outcome usable (a long related pair
          // would otherwise run to the end before its 32-bit pass).
          if (best >= T::kMax) {
            outcome.saturated = true;
            return outcome;
          }
        }
        v_best = T::splat(static_cast<Elem>(best));
        std::size_t first = m;
        for (std::size_t s = 0; s < segments; ++s) {
          const std::uint64_t mask = T::equal_mask(T::load(h_current + s), v_best);
          if (mask == 0) continue;
          const std::size_t lane = static_cast<std::size_t>(__builtin_ctzll(mask)) / T::mask_bits;
          const std::size_t position = lane * segments + s;
          if (position < first) first = position;
        }
        outcome.query_end = static_cast<std::uint32_t>(first + 1);
        outcome.subject_end = static_cast<std::uint32_t>(j);
      }
      if (pass.hot_columns && j > pass.first_column && T::any_greater(column_max_final, v_hot)) {
        std::vector<ColumnRange>& ranges = *pass.hot_columns;
        if (!ranges.empty() && ranges.back().end == j - 1)
          ranges.back().end = j;
        else
          ranges.push_back({j - 1, j});
      }
      if (best >= pass.stop_score) break;
    }
    if constexpr (kSemiglobal) {
      const std::int64_t last_row = reinterpret_cast<const Elem*>(h_current)[end_index];
      if (last_row > best) {
        best = last_row;
        outcome.subject_end = static_cast<std::uint32_t>(j);
      }
    }
    V* swap = h_previous;
    h_previous = h_current;
    h_current = swap;
  }

  if constexpr (kGlobal) {
    best = reinterpret_cast<const Elem*>(h_previous)[end_index];
    outcome.query_end = static_cast<std::uint32_t>(m);
    outcome.subject_end = static_cast<std::uint32_t>(n);
  }
  outcome.score = best;
  if constexpr (T::saturating) {
    outcome.saturated = horizontal_max<T>(T::load(extremes)) >= T::kMax;
    if constexpr (kTrackMin)
      outcome.saturated |= horizontal_min<T>(T::load(extremes + 1)) <
                           T::kMinusInfinity + kLowMarginPerOpenExtend * open_extend + kLowMarginSubstitution;
  }
  return outcome;
}

// One lane in plain C++: the scalar instruction set's kernels (saturating at 16 bits, or wrapping at 32
// or 64 bits; minus infinity -2^30 or -2^62).
template <class E, bool Saturating>
struct ScalarStripedTraits {
  using V = E;
  using Elem = E;
  static constexpr int lanes = 1;
  static constexpr bool saturating = Saturating;
  static constexpr E kMax = Saturating ? E{32767} : static_cast<E>(E{1} << (8 * sizeof(E) - 2));
  static constexpr E kMinusInfinity = Saturating ? E{-32768} : static_cast<E>(-kMax);
  static constexpr int mask_bits = 1;

  static E narrow(std::int64_t x) {
    if constexpr (Saturating) {
      if (x < kMinusInfinity) return kMinusInfinity;
      if (x > kMax) return kMax;
    }
    return static_cast<E>(x);
  }
  static V splat(E x) { return x; }
  static V adds(V a, V b) { return narrow(std::int64_t{a} + std::int64_t{b}); }
  static V subs(V a, V b) { return narrow(std::int64_t{a} - std::int64_t{b}); }
  static V max(V a, V b) { return a > b ? a : b; }
  static V min(V a, V b) { return a < b ? a : b; }
  static V load(const V* p) { return *p; }
  static void store(V* p, V v) { *p = v; }
  static V load_profile(const std::int16_t* p) { return static_cast<E>(*p); }
  template <int D>
  static V shift_up(V, V fill) {
    return fill;
  }
  static bool any_greater(V a, V b) { return a > b; }
  static std::uint64_t equal_mask(V a, V b) { return a == b ? 1 : 0; }
};

// The 64-bit kernels, every mode (one lane: the fallback beyond the 32-bit bound).
constexpr StripedFunction64 make_striped_64() {
  using T = ScalarStripedTraits<std::int64_t, false>;
  return {{&striped_pass<T, AlignmentMode::local>, &striped_pass<T, AlignmentMode::global>,
           &striped_pass<T, AlignmentMode::semiglobal>}};
}

// The table of one instruction set: its 16-bit and 32-bit traits, every mode.
template <class T16, class T32>
constexpr StripedTable make_striped_table() {
  return {{T16::lanes, T32::lanes},
          {{&striped_pass<T16, AlignmentMode::local>, &striped_pass<T16, AlignmentMode::global>,
            &striped_pass<T16, AlignmentMode::semiglobal>},
           {&striped_pass<T32, AlignmentMode::local>, &striped_pass<T32, AlignmentMode::global>,
            &striped_pass<T32, AlignmentMode::semiglobal>}}};
}

}  // namespace
}  // namespace warpsearch::cpu::detail

// DUST (see dust.hpp).
#include "profile/dust.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <list>
#include <sstream>
#include <stdexcept>

namespace warpsearch {
namespace {

constexpr std::uint8_t kNCode = 4;
constexpr unsigned kTripletMask = 63;

// The 2-bit value DUST reads for a base code: A C G T as themselves, N as A.
unsigned base_value(char code) {
  const auto c = static_cast<std::uint8_t>(code);
  return c < kNCode ? c : 0u;
}

// A candidate interval of bases [first, last] (inclusive, relative to the scanned range), with its score
// (sum of c (c - 1) / 2 over its triplets) and its triplet count less one (the score's denominator). Runs of
// one triplet are kept with score and length 0.
struct Perfect {
  std::size_t first = 0, last = 0;
  unsigned score = 0;
  std::size_t length = 0;
};

// The perfect intervals that may still grow or be settled, by decreasing start (for one start, the later
// and longer one last).
using PerfectList = std::list<Perfect>;

// The sliding window of triplets [first, end) (triplet k covers bases k, k+1, k+2), with the triplet counts
// of the whole window and of its suffix [suffix_begin, end), the longest suffix in which no triplet occurs
// more than level / 5 times (the suffixes that need no look: Proposition 2 of the paper).
class TripletWindow {
 public:
  TripletWindow(const DustParameters& parameters, PerfectList& perfect)
      : max_triplets_(static_cast<std::size_t>(parameters.window) - 2),
        suffix_limit_(static_cast<unsigned>(parameters.level / 5)),
        level_(static_cast<unsigned>(parameters.level)),
        perfect_(perfect) {}

  std::size_t first() const { return first_; }

  // Slides the window one triplet to the right (it grows until it holds window - 2 triplets). False when
  // the full window is one triplet repeated: it is then a perfect interval, and the caller walks the run
  // with slide_along_run().
  bool slide(unsigned t) {
    if (triplets_.size() >= max_triplets_) {
      if (distinct_ <= 1) return slide_along_run(t);
      const unsigned dropped = triplets_.front();
      triplets_.pop_front();
      remove(window_sum_, window_counts_, dropped);
      if (window_counts_[dropped] == 0) --distinct_;
      if (suffix_begin_ == first_) {
        ++suffix_begin_;
        remove(suffix_sum_, suffix_counts_, dropped);
      }
      ++first_;
    }
    triplets_.push_back(static_cast<std::uint8_t>(t));
    if (window_counts_[t] == 0) ++distinct_;
    add(window_sum_, window_counts_, t);
    add(suffix_sum_, suffix_counts_, t);
    // Too many copies of t in the suffix: it now starts after the first of them.
    if (suffix_counts_[t] > suffix_limit_) {
      unsigned removed = 0;
      do {
        removed = at(suffix_begin_);
        remove(suffix_sum_, suffix_counts_, removed);
        ++suffix_begin_;
      } while (removed != t);
    }
    ++end_;
    if (triplets_.size() >= max_triplets_ && distinct_ <= 1) {
      perfect_.clear();
      perfect_.push_front({first_, end_ + 1, 0, 0});
      return false;
    }
    return true;
  }

  // Slides a full window of one repeated triplet; false while it stays one triplet (each position is then
  // a perfect interval).
  bool slide_along_run(unsigned t) {
    const unsigned dropped = triplets_.front();
    triplets_.pop_front();
    remove(window_sum_, window_counts_, dropped);
    if (window_counts_[dropped] == 0) --distinct_;
    ++first_;
    triplets_.push_back(static_cast<std::uint8_t>(t));
    if (window_counts_[t] == 0) ++distinct_;
    add(window_sum_, window_counts_, t);
    ++end_;
    if (distinct_ > 1) return true;
    perfect_.push_front({first_, end_ + 1, 0, 0});
    return false;
  }

  // Whether a suffix longer than the low-count one can score above the threshold (else no new perfect
  // interval ends here).
  bool worth_a_look() const {
    const std::size_t suffix = end_ - suffix_begin_;
    return suffix < triplets_.size() && 10 * window_sum_ > threshold(suffix);
  }

  // Adds the perfect intervals that end at the window's last triplet: each suffix longer than the low-count
  // one, from the shortest, that scores above the threshold and at least as much as the best perfect interval
  // inside it.
  void find_perfect() {
    std::array<std::uint8_t, 64> counts = suffix_counts_;
    unsigned score = suffix_sum_;
    std::size_t length = end_ - suffix_begin_;  // triplets of the interval less one, once it starts at `start`
    auto inside = perfect_.begin();             // the next perfect interval not yet inside
    unsigned best_score = 0;
    std::size_t best_length = 0;
    for (std::size_t start = suffix_begin_; start-- > first_; ++length) {
      const unsigned t = at(start);
      const unsigned copies = counts[t];
      score += copies;
      ++counts[t];
      if (copies == 0 || 10 * score <= threshold(length)) continue;
      for (; inside != perfect_.end() && start <= inside->first; ++inside)
        if (best_score == 0 || best_length * inside->score > best_score * inside->length) {
          best_score = inside->score;
          best_length = inside->length;
        }
      if (best_score == 0 || score * best_length >= best_score * length) {
        best_score = score;
        best_length = length;
        inside = perfect_.insert(inside, {start, end_ + 1, score, length});
      }
    }
  }

 private:
  // The threshold for an interval of length + 1 triplets: its score, times 10, must exceed it.
  unsigned threshold(std::size_t length) const { return length == 0 ? 1u : static_cast<unsigned>(length) * level_; }
  unsigned at(std::size_t position) const { return triplets_[position - first_]; }
  static void add(unsigned& sum, std::array<std::uint8_t, 64>& counts, unsigned t) {
    sum += counts[t];
    ++counts[t];
  }
  static void remove(unsigned& sum, std::array<std::uint8_t, 64>& counts, unsigned t) {
    --counts[t];
    sum -= counts[t];
  }

  std::size_t max_triplets_;
  unsigned suffix_limit_, level_;
  PerfectList& perfect_;
  std::deque<std::uint8_t> triplets_;  // triplet values, oldest first
  std::size_t first_ = 0, end_ = 0, suffix_begin_ = 0;
  std::array<std::uint8_t, 64> window_counts_{}, suffix_counts_{};
  unsigned window_sum_ = 0, suffix_sum_ = 0;
  unsigned distinct_ = 0;
};

// Inclusive intervals of bases, as DUST settles and merges them.
struct Settled {
  std::size_t first, last;
};

class DustScan {
 public:
  DustScan(std::string_view codes, const DustParameters& parameters)
      : codes_(codes), parameters_(parameters), linker_(static_cast<std::size_t>(parameters.linker)) {}

  // Scans from the start; after a run of one triplet, or once the window has reached the end, the scan
  // starts again where the window began (BLAST+ does, and its results depend on it).
  std::vector<Settled> run() {
    if (codes_.empty()) return settled_;
    const std::size_t last = codes_.size() - 1;
    std::size_t start = 0;
    while (last > start + 2) {
      perfect_.clear();
      TripletWindow window(parameters_, perfect_);
      unsigned t = (base_value(codes_[start]) << 2) + base_value(codes_[start + 1]);
      std::size_t next = start + 2;  // the base that ends the next triplet
      bool run_ended = false;
      while (!run_ended && next <= last) {
        settle(window.first(), start);
        t = ((t << 2) & kTripletMask) + base_value(codes_[next++]);
        if (window.slide(t)) {
          if (window.worth_a_look()) window.find_perfect();
          continue;
        }
        for (; next <= last; ++next) {
          settle(window.first(), start);
          t = ((t << 2) & kTripletMask) + base_value(codes_[next]);
          if (window.slide(t)) {
            run_ended = true;
            break;
          }
        }
      }
      for (std::size_t passed = window.first(); !perfect_.empty(); ++passed) settle(passed, start);
      if (window.first() == 0) break;
      start += window.first();
    }
    return settled_;
  }

 private:
  // Once the window starts after the leftmost perfect interval, that interval (the longest of those with
  // its start) is settled, merged with the previous one if they are at most `linker` bases apart; the
  // others that start before the window are dropped.
  void settle(std::size_t window_first, std::size_t offset) {
    if (perfect_.empty() || perfect_.back().first >= window_first) return;
    const Settled interval{perfect_.back().first + offset, perfect_.back().last + offset};
    if (!settled_.empty() && settled_.back().last + linker_ >= interval.first)
      settled_.back().last = std::max(settled_.back().last, interval.last);
    else
      settled_.push_back(interval);
    while (!perfect_.empty() && perfect_.back().first < window_first) perfect_.pop_back();
  }

  std::string_view codes_;
  const DustParameters& parameters_;
  std::size_t linker_;
  PerfectList perfect_;
  std::vector<Settled> settled_;
};

}  // namespace

DustParameters DustParameters::parse(const std::string& text) {
  if (text == "yes") return DustParameters{};
  std::istringstream in(text);
  DustParameters p;
  std::string rest;
  if (!(in >> p.level >> p.window >> p.linker) || (in >> rest))
    throw std::invalid_argument("DUST parameters '" + text +
                                "': expected yes, no, or a level, a window and a linker, e.g. '20 64 1'");
  if (p.level < 2 || p.level > 64 || p.window < 8 || p.window > 64 || p.linker < 1 || p.linker > 32)
    throw std::invalid_argument("DUST parameters '" + text +
                                "': the level is 2 to 64, the window 8 to 64 and the linker 1 to 32");
  return p;
}

std::vector<MaskedInterval> dust_intervals(std::string_view codes, const DustParameters& parameters) {
  std::vector<MaskedInterval> intervals;
  for (const Settled& s : DustScan(codes, parameters).run())
    intervals.push_back({static_cast<std::uint32_t>(s.first), static_cast<std::uint32_t>(s.last + 1)});
  return intervals;
}

std::string dust_masked(std::string_view codes, const DustParameters& parameters) {
  return mask_intervals(codes, dust_intervals(codes, parameters), static_cast<char>(kNCode));
}

}  // namespace warpsearch

// SEG (see seg.hpp).
#include "profile/seg.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace warpsearch {
namespace {

constexpr int kLetters = 20;  // residue codes 0..19; every other code is "bogus" to SEG
constexpr std::uint8_t kXCode = 23;

// ln n!, rounded to 6 decimals as BLAST tabulates it (a table for the usual lengths).
double rounded_ln_factorial(std::size_t n) { return std::round(std::lgamma(static_cast<double>(n) + 1.0) * 1e6) / 1e6; }
constexpr std::size_t kTabulated = 1 << 16;
double ln_factorial(std::size_t n) {
  static const std::vector<double> table = [] {
    std::vector<double> t(kTabulated);
    for (std::size_t k = 0; k < kTabulated; ++k) t[k] = rounded_ln_factorial(k);
    return t;
  }();
  return n < kTabulated ? table[n] : rounded_ln_factorial(n);
}

// A window [start, start + length) of a sequence, with its letter counts and its state vector: the
// non-zero counts sorted in decreasing order, followed by zeros (one more slot than letters, so that the
// vector always ends with a zero).
struct Window {
  std::string_view sequence;  // the sequence the window slides on
  std::size_t start = 0, length = 0;
  std::array<int, kLetters> counts{};
  std::array<int, kLetters + 1> state{};
  int bogus = 0;
  bool track_entropy = false;
  double entropy = 0;

  Window(std::string_view s, std::size_t first, std::size_t size) : sequence(s), start(first), length(size) {
    for (std::size_t k = first; k < first + size; ++k) {
      const auto c = static_cast<std::uint8_t>(s[k]);
      if (c < kLetters)
        ++counts[c];
      else
        ++bogus;
    }
    int used = 0;
    for (int c : counts)
      if (c != 0) state[used++] = c;
    std::sort(state.begin(), state.begin() + used, std::greater<int>());
  }

  void start_entropy() {
    track_entropy = true;
    entropy = state_entropy();
  }

  double state_entropy() const {
    int total = 0;
    for (int i = 0; state[i] != 0; ++i) total += state[i];
    if (total == 0) return 0;
    double h = 0;
    for (int i = 0; state[i] != 0; ++i) h += state[i] * std::log(static_cast<double>(state[i]) / total) / std::log(2.0);
    return std::abs(h / total);
  }

  // The first slot holding `count` whose successor is smaller loses one (the vector stays sorted).
  void decrement(int count) {
    for (int i = 0; state[i] != 0; ++i)
      if (state[i] == count && state[i + 1] < count) {
        --state[i];
        return;
      }
  }
  // The first slot holding `count` gains one.
  void increment(int count) {
    for (int i = 0;; ++i)
      if (state[i] == count) {
        ++state[i];
        return;
      }
  }

  // Moves one position right; false (unchanged) at the end of the sequence.
  bool shift() {
    if (start + 1 + length > sequence.size()) return false;
    const auto leaving = static_cast<std::uint8_t>(sequence[start]);
    if (leaving < kLetters)
      decrement(counts[leaving]--);
    else
      --bogus;
    const auto entering = static_cast<std::uint8_t>(sequence[start + length]);
    if (entering < kLetters)
      increment(counts[entering]++);
    else
      ++bogus;
    ++start;
    if (track_entropy) entropy = state_entropy();
    return true;
  }
};

// ln of the number of compositions with this state's complexity (equation 1 of the 1993 paper): 20! over
// the factorials of the sizes of the classes of equal counts and of the number of absent letters.
double ln_compositions(const std::array<int, kLetters + 1>& sv) {
  double answer = ln_factorial(kLetters);
  if (sv[0] == 0) return answer;
  int total = kLetters, size = 1;
  int previous = sv[0];
  for (int i = 0;;) {
    if (++i == kLetters) {
      answer -= ln_factorial(static_cast<std::size_t>(size));
      break;
    }
    const int current = sv[static_cast<std::size_t>(i)];
    if (current == previous) {
      ++size;
      continue;
    }
    total -= size;
    answer -= ln_factorial(static_cast<std::size_t>(size));
    if (current == 0) {
      answer -= ln_factorial(static_cast<std::size_t>(total));
      break;
    }
    size = 1;
    previous = current;
  }
  return answer;
}

// ln of the number of sequences with this state (equation 3): length! over the counts' factorials.
double ln_permutations(const std::array<int, kLetters + 1>& sv, std::size_t length) {
  double answer = ln_factorial(length);
  for (int i = 0; sv[i] != 0; ++i) answer -= ln_factorial(static_cast<std::size_t>(sv[i]));
  return answer;
}

// ln P0 of a window (equation 3 of the 1996 paper).
double ln_probability(const std::array<int, kLetters + 1>& sv, std::size_t length) {
  const double all = static_cast<double>(length) * 2.9957322735539909;  // ln 20
  return ln_compositions(sv) + ln_permutations(sv, length) - all;
}

class Segmenter {
 public:
  Segmenter(std::string_view codes, const SegParameters& p) : codes_(codes), p_(p) {}

  void run(std::size_t first, std::size_t length, std::size_t offset, std::vector<MaskedInterval>& out) {
    const std::string_view part = codes_.substr(first, length);
    const int window = p_.window;
    if (window <= 0 || static_cast<std::size_t>(window) > part.size()) return;
    const long downset = (window + 1) / 2 - 1, upset = window - downset;
    const std::vector<double> h = complexities(part);
    const long last = static_cast<long>(part.size()) - upset;
    long low_limit = downset;
    for (long i = downset; i <= last; ++i) {
      if (!(h[static_cast<std::size_t>(i)] <= p_.locut && h[static_cast<std::size_t>(i)] != -1.0)) continue;
      long low = i;
      while (low >= low_limit && h[static_cast<std::size_t>(low)] != -1.0 &&
             h[static_cast<std::size_t>(low)] <= p_.hicut)
        --low;
      ++low;
      long high = i;
      while (high <= last && h[static_cast<std::size_t>(high)] != -1.0 && h[static_cast<std::size_t>(high)] <= p_.hicut)
        ++high;
      --high;
      long left = low - downset, right = high + upset - 1;
      trim(part, left, right);
      if (i + upset - 1 < left) {
        // A trigger window left of the trimmed segment: searched again on its own.
        const long left_begin = low - downset, left_end = left - 1;
        run(first + static_cast<std::size_t>(left_begin), static_cast<std::size_t>(left_end - left_begin + 1),
            offset + static_cast<std::size_t>(left_begin), out);
      }
      out.push_back({static_cast<std::uint32_t>(offset + static_cast<std::size_t>(left)),
                     static_cast<std::uint32_t>(offset + static_cast<std::size_t>(right) + 1)});
      i = std::min(high, right + downset);
      low_limit = i + 1;
    }
  }

 private:
  // The complexity of the window centred on each position, -1 where there is none.
  std::vector<double> complexities(std::string_view part) const {
    const long window = p_.window;
    const long downset = (window + 1) / 2 - 1, upset = window - downset;
    std::vector<double> h(part.size(), -1.0);
    Window w(part, 0, static_cast<std::size_t>(window));
    w.start_entropy();
    for (long i = downset; i <= static_cast<long>(part.size()) - upset; ++i) {
      h[static_cast<std::size_t>(i)] = w.bogus > p_.maxbogus ? -1.0 : w.entropy;
      w.shift();
    }
    return h;
  }

  // Narrows [left, right] (positions in part) to its sub-segment of least probability, trimming at most
  // maxtrim residues.
  void trim(std::string_view part, long& left, long& right) const {
    const std::string_view segment =
        part.substr(static_cast<std::size_t>(left), static_cast<std::size_t>(right - left + 1));
    const long length = static_cast<long>(segment.size());
    long best_left = 0, best_right = length - 1;
    long min_length = 1;
    if (length - p_.maxtrim > min_length) min_length = length - p_.maxtrim;
    double least = 1.0;
    for (long size = length; size > min_length; --size) {
      Window w(segment, 0, static_cast<std::size_t>(size));
      long at = 0;
      bool more = true;
      while (more) {
        const double probability = ln_probability(w.state, static_cast<std::size_t>(size));
        if (probability < least) {
          least = probability;
          best_left = at;
          best_right = size + at - 1;
        }
        more = w.shift();
        ++at;
      }
    }
    right -= length - best_right - 1;
    left += best_left;
  }

  std::string_view codes_;
  SegParameters p_;
};

}  // namespace

SegParameters SegParameters::parse(const std::string& text) {
  if (text == "yes") return SegParameters{};
  std::istringstream in(text);
  SegParameters p;
  std::string rest;
  if (!(in >> p.window >> p.locut >> p.hicut) || (in >> rest) || p.window <= 0 || p.locut < 0 || p.hicut < 0)
    throw std::invalid_argument(
        "SEG parameters '" + text +
        "': expected yes, no, or a window length and two complexity cut-offs, e.g. '12 2.2 2.5'");
  if (p.locut > p.hicut) p.hicut = p.locut;
  return p;
}

std::vector<MaskedInterval> seg_intervals(std::string_view codes, const SegParameters& parameters) {
  std::vector<MaskedInterval> intervals;
  Segmenter(codes, parameters).run(0, codes.size(), 0, intervals);
  return intervals;
}

std::string mask_intervals(std::string_view codes, const std::vector<MaskedInterval>& intervals, char code) {
  std::string out(codes);
  for (const MaskedInterval& m : intervals) std::fill(out.begin() + m.begin, out.begin() + m.end, code);
  return out;
}

std::string seg_masked(std::string_view codes, const SegParameters& parameters) {
  return mask_intervals(codes, seg_intervals(codes, parameters), static_cast<char>(kXCode));
}

}  // namespace warpsearch

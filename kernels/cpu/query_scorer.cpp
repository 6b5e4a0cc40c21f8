#include "kernels/cpu/query_scorer.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "kernels/cpu/scan_table.hpp"

namespace warpsearch::cpu {
namespace {

bool cpu_runs(Isa isa) {
#if defined(WARPSEARCH_CPU_X86)
  switch (isa) {
    case Isa::scalar: return true;
    case Isa::sse41: return __builtin_cpu_supports("sse4.1");
    case Isa::avx2: return __builtin_cpu_supports("avx2");
    case Isa::avx512bw: return __builtin_cpu_supports("avx512bw");
  }
  return false;
#else
  return isa == Isa::scalar;
#endif
}

const detail::ScanTable& table(Isa isa) {
  switch (isa) {
#if defined(WARPSEARCH_CPU_X86)
    case Isa::sse41: return detail::kScanSse41;
    case Isa::avx2: return detail::kScanAvx2;
    case Isa::avx512bw: return detail::kScanAvx512bw;
#endif
    default: return detail::kScanScalar;
  }
}

int width_index(Width width) {
  switch (width) {
    case Width::w8: return 0;
    case Width::w16: return 1;
    case Width::w32: return 2;
  }
  throw std::invalid_argument("unknown score width");
}

std::int64_t width_cap(Width width) {
  const std::int64_t caps[] = {detail::kCap8, detail::kCap16, detail::kCap32};
  return caps[width_index(width)];
}

// The subjects of a batch, longest first: idle lanes at the end of a scan then wait only for the
// shortest subjects. A length-sorted batch (the usual case) needs no sort.
std::vector<std::uint32_t> longest_first(const SubjectBatch& batch) {
  std::vector<std::uint32_t> order(batch.count);
  std::iota(order.begin(), order.end(), 0u);
  const bool ascending = std::is_sorted(batch.lengths, batch.lengths + batch.count);
  if (ascending) {
    std::reverse(order.begin(), order.end());
  } else {
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return batch.lengths[a] > batch.lengths[b]; });
  }
  return order;
}

}  // namespace

bool isa_supported(Isa isa) { return cpu_runs(isa); }

Isa best_isa() {
  for (Isa isa : {Isa::avx512bw, Isa::avx2, Isa::sse41})
    if (cpu_runs(isa)) return isa;
  return Isa::scalar;
}

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::scalar: return "scalar";
    case Isa::sse41: return "sse4.1";
    case Isa::avx2: return "avx2";
    case Isa::avx512bw: return "avx512bw";
  }
  return "unknown";
}

QueryScorer::QueryScorer(std::string_view query_codes, const ScoringScheme& scoring, Isa isa)
    : query_(query_codes), biased_rows_(32 * 32, '\0'), isa_(isa) {
  if (!cpu_runs(isa))
    throw std::invalid_argument(std::string("QueryScorer: this CPU or build cannot run the ") + isa_name(isa) +
                                " kernels");
  for (std::size_t i = 0; i < query_.size(); ++i) {
    const auto code = static_cast<unsigned char>(query_[i]);
    if (code >= static_cast<unsigned>(detail::kIdleCode))
      throw std::invalid_argument("QueryScorer: query residue " + std::to_string(i) + " has code " +
                                  std::to_string(code) + ", not a residue code");
    letters_ = std::max(letters_, code + 1);
  }
  const SubstitutionMatrix& matrix = scoring.matrix();
  bias_ = -matrix.min_score();
  gap_open_extend_ = scoring.gap_open() + scoring.gap_extend();
  gap_extend_ = scoring.gap_extend();
  if (bias_ <= 0 || bias_ > 255)
    throw std::invalid_argument("QueryScorer: the matrix needs a negative minimum score above -256");
  for (int a = 0; a < letters_; ++a)
    for (int c = 0; c < 32; ++c) {
      const int biased = c == detail::kIdleCode
                             ? 0
                             : scoring.score(static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(c)) + bias_;
      biased_rows_[static_cast<std::size_t>(32 * a + c)] = static_cast<char>(static_cast<unsigned char>(biased));
    }
}

std::int64_t QueryScorer::saturation_limit(Width width) const { return width_cap(width) - bias_; }

void QueryScorer::scan(const SubjectBatch& subjects, Width width, const std::uint32_t* order, std::size_t count,
                       std::int32_t* scores, std::uint8_t* saturated) const {
  detail::ScanFunction function = table(isa_).width[width_index(width)];
  if (function == nullptr) function = detail::kScanScalar.width[width_index(width)];
  detail::ScanProfile profile;
  profile.query = reinterpret_cast<const std::uint8_t*>(query_.data());
  profile.query_length = query_.size();
  profile.biased_rows = reinterpret_cast<const std::uint8_t*>(biased_rows_.data());
  profile.letters = letters_;
  profile.bias = bias_;
  profile.gap_open_extend = gap_open_extend_;
  profile.gap_extend = gap_extend_;
  detail::ScanRequest request;
  request.batch = &subjects;
  request.order = order;
  request.count = count;
  request.scores = scores;
  request.saturated = saturated;
  function(profile, request);
}

void QueryScorer::score_width(const SubjectBatch& subjects, Width width, std::int32_t* scores,
                              std::uint8_t* saturated) const {
  const std::vector<std::uint32_t> order = longest_first(subjects);
  scan(subjects, width, order.data(), order.size(), scores, saturated);
}

ScanStats QueryScorer::score(const SubjectBatch& subjects, std::int32_t* scores, Width first) const {
  ScanStats stats;
  std::vector<std::uint32_t> order = longest_first(subjects);
  std::vector<std::uint8_t> saturated(subjects.count, 0);
  std::size_t* counters[] = {&stats.scored_8, &stats.scored_16, &stats.scored_32};
  const Width widths[] = {Width::w8, Width::w16, Width::w32};
  for (int w = width_index(first); w < 3 && !order.empty(); ++w) {
    *counters[w] = order.size();
    scan(subjects, widths[w], order.data(), order.size(), scores, saturated.data());
    // Keep the saturated ones, in the same (longest first) order, for the next width.
    order.erase(std::remove_if(order.begin(), order.end(), [&](std::uint32_t s) { return saturated[s] == 0; }),
                order.end());
  }
  if (!order.empty())
    throw std::overflow_error("QueryScorer: subject " + std::to_string(order.front()) +
                              " scores beyond the 32-bit range (" + std::to_string(saturation_limit(Width::w32)) + ")");
  return stats;
}

void QueryScorer::score(const SubjectBatch& subjects, std::int32_t* scores) const {
  score(subjects, scores, isa_ == Isa::scalar ? Width::w32 : Width::w8);
}

}  // namespace warpsearch::cpu

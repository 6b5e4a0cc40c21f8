// Aligner, align: over search/align_engine.hpp, with the columns `warpsearch align` prints
// (output/align_output.cpp).
#include "api/engine.hpp"  // first: see there

#include <optional>
#include <stdexcept>
#include <utility>

#include "api/convert.hpp"
#include "warpsearch/align.hpp"

namespace warpsearch {
inline namespace v0 {
namespace {

// The API boundary: the public AlignMode (include/warpsearch/align.hpp, free of internal headers) is the
// engine's AlignmentMode (core/alignment_mode.hpp) under its public name; this and parse_align_mode
// (api/common.cpp) are the only places that map one to the other.
engine::AlignmentMode to_engine(AlignMode mode) {
  switch (mode) {
    case AlignMode::global: return engine::AlignmentMode::global;
    case AlignMode::semiglobal: return engine::AlignmentMode::semiglobal;
    case AlignMode::xdrop: return engine::AlignmentMode::xdrop;
    default: return engine::AlignmentMode::local;
  }
}

Alignment present(const engine::PairAlignment& pair, std::string_view query, std::string_view target,
                  const engine::Alphabet& alphabet, const AlignOptions& options) {
  Alignment out;
  out.score = pair.score;
  if (pair.query_end > pair.query_begin) {
    out.query_start = pair.query_begin + 1;
    out.query_end = pair.query_end;
  }
  if (pair.subject_end > pair.subject_begin) {
    out.target_start = pair.subject_begin + 1;
    out.target_end = pair.subject_end;
  }
  if (options.cigar || options.aligned) {
    out.cigar = pair.operations.empty() ? std::string() : engine::cigar(pair.operations);
    out.length = static_cast<std::uint32_t>(pair.operations.size());
    out.nident = pair.identities;
    out.mismatch = pair.mismatches;
    out.gapopen = pair.gap_opens;
    out.gaps = pair.gaps;
  }
  if (options.aligned) {
    std::size_t i = pair.query_begin, j = pair.subject_begin;
    for (const char op : pair.operations) {
      out.query_aligned += op == 'D' ? '-' : alphabet.decode(static_cast<std::uint8_t>(query[i++]));
      out.target_aligned += op == 'I' ? '-' : alphabet.decode(static_cast<std::uint8_t>(target[j++]));
    }
  }
  if (!options.cigar) out.cigar.clear();
  return out;
}

}  // namespace

struct Aligner::Impl {
  explicit Impl(AlignOptions given) : options(std::move(given)) {
    if (options.xdrop < 0) throw std::invalid_argument("xdrop must be at least 0");
    if (options.mode != AlignMode::xdrop && options.xdrop != 50) throw std::invalid_argument("xdrop is for mode xdrop");
    if (options.threads > 4096) throw std::invalid_argument("threads takes a number from 0 (every usable CPU) to 4096");
    for (const int gpu : options.gpus)
      if (gpu < 0) throw std::invalid_argument("gpus takes GPU numbers from 0, not " + std::to_string(gpu));
    if (options.type) start(*options.type);
  }

  // The engine, once the sequence type is known.
  void start(SequenceType sequence_type) {
    engine::AlignOptions engine_options;
    engine_options.mode = to_engine(options.mode);
    engine_options.xdrop = engine::XDrop{options.xdrop};
    engine_options.operations = options.cigar || options.aligned;
    engine_options.threads = options.threads;
    engine_options.device = detail::to_engine(options.device);
    engine_options.gpus = options.gpus;
    engine.emplace(detail::scoring_scheme(options.scoring, sequence_type == SequenceType::nucleotide, "sequences"),
                   std::move(engine_options));
    type = sequence_type;
  }

  AlignOptions options;
  std::optional<SequenceType> type;
  std::optional<engine::AlignEngine> engine;
};

Aligner::Aligner(AlignOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
Aligner::Aligner(Aligner&&) noexcept = default;
Aligner& Aligner::operator=(Aligner&&) noexcept = default;
Aligner::~Aligner() = default;

std::vector<Alignment> Aligner::align(const std::vector<Sequence>& queries, const std::vector<Sequence>& targets,
                                      const std::vector<Seed>& seeds) {
  if (queries.size() != targets.size())
    throw std::invalid_argument(std::to_string(queries.size()) + " queries but " + std::to_string(targets.size()) +
                                " targets: query i is aligned with target i");
  if (!seeds.empty() && impl_->options.mode != AlignMode::xdrop)
    throw std::invalid_argument("seeds are for mode xdrop");
  if (!seeds.empty() && seeds.size() != queries.size())
    throw std::invalid_argument(std::to_string(queries.size()) + " pairs but " + std::to_string(seeds.size()) +
                                " seeds: one seed per pair, or none");
  if (!impl_->engine) impl_->start(guess_sequence_type(queries));
  const engine::Alphabet& alphabet = engine::Alphabet::of(detail::to_engine(*impl_->type));

  std::vector<std::string> query_codes(queries.size()), target_codes(targets.size());
  std::vector<engine::SequencePair> pairs(queries.size());
  for (std::size_t p = 0; p < queries.size(); ++p) {
    query_codes[p] = detail::encode(queries[p], alphabet, "query", p, true);
    target_codes[p] = detail::encode(targets[p], alphabet, "target", p, true);
    engine::Seed seed{0, 0, 0};  // extend from the start of both sequences
    if (!seeds.empty()) {
      if (seeds[p].query_start < 1 || seeds[p].target_start < 1)
        throw std::invalid_argument("seed " + std::to_string(p + 1) + ": positions are 1-based, from 1");
      seed = {seeds[p].query_start - 1, seeds[p].target_start - 1, seeds[p].length};
    }
    pairs[p] = {query_codes[p], target_codes[p], seed};
  }
  const std::vector<engine::PairAlignment> results = impl_->engine->align(pairs);
  std::vector<Alignment> out;
  out.reserve(results.size());
  for (std::size_t p = 0; p < results.size(); ++p)
    out.push_back(present(results[p], query_codes[p], target_codes[p], alphabet, impl_->options));
  return out;
}

double Aligner::cells() const { return impl_->engine ? impl_->engine->cells() : 0.0; }

std::string Aligner::backend() const { return impl_->engine ? impl_->engine->backend_description() : std::string(); }

std::vector<Alignment> align(const std::vector<Sequence>& queries, const std::vector<Sequence>& targets,
                             const AlignOptions& options, const std::vector<Seed>& seeds) {
  return Aligner(options).align(queries, targets, seeds);
}

}  // namespace v0
}  // namespace warpsearch

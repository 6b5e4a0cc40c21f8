// version(), names, and the conversions of api/convert.hpp.
#include "api/engine.hpp"  // first: see there

#include <cctype>
#include <filesystem>
#include <stdexcept>
#include <utility>

#include "api/convert.hpp"
#include "warpsearch/align.hpp"
#include "warpsearch/common.hpp"
#include "warpsearch/fasta.hpp"
#include "warpsearch/scoring.hpp"
#include "warpsearch/version.hpp"

namespace warpsearch {
inline namespace v0 {

const char* version() noexcept { return WARPSEARCH_VERSION_STRING; }

const char* sequence_type_name(SequenceType type) noexcept {
  return type == SequenceType::protein ? "protein" : "nucleotide";
}

std::vector<std::string> builtin_matrices() { return engine::SubstitutionMatrix::builtin_names(); }

const char* align_mode_name(AlignMode mode) noexcept {
  switch (mode) {
    case AlignMode::global: return "global";
    case AlignMode::semiglobal: return "semiglobal";
    case AlignMode::xdrop: return "xdrop";
    default: return "local";
  }
}

AlignMode parse_align_mode(const std::string& name) {
  switch (engine::parse_alignment_mode(name)) {
    case engine::AlignmentMode::global: return AlignMode::global;
    case engine::AlignmentMode::semiglobal: return AlignMode::semiglobal;
    case engine::AlignmentMode::xdrop: return AlignMode::xdrop;
    default: return AlignMode::local;
  }
}

std::vector<Sequence> read_fasta(const std::string& path, std::optional<SequenceType> type, bool skip_invalid) {
  std::optional<engine::SequenceType> engine_type;
  if (type) engine_type = detail::to_engine(*type);
  engine::FastaReader reader(path, engine_type, skip_invalid);
  std::vector<Sequence> records;
  for (engine::SequenceRecord record; reader.next(record);)
    records.emplace_back(std::move(record.id), reader.alphabet().decode_string(record.codes),
                         std::move(record.description));
  return records;
}

namespace detail {

engine::ScoringScheme scoring_scheme(const Scoring& scoring, bool nucleotide, const std::string& sequences) {
  engine::SubstitutionMatrix substitution = engine::SubstitutionMatrix::builtin("BLOSUM62");
  if (nucleotide) {
    if (scoring.matrix) throw std::invalid_argument("matrix is for protein " + sequences + "; use match and mismatch");
    substitution = engine::SubstitutionMatrix::nucleotide(scoring.match.value_or(2), scoring.mismatch.value_or(-3));
  } else {
    if (scoring.match || scoring.mismatch)
      throw std::invalid_argument("match and mismatch are for nucleotide " + sequences);
    const std::string matrix = scoring.matrix.value_or("BLOSUM62");
    substitution = std::filesystem::exists(matrix) ? engine::SubstitutionMatrix::from_file(matrix)
                                                   : engine::SubstitutionMatrix::builtin(matrix);
  }
  return engine::ScoringScheme(std::move(substitution), engine::GapOpen{scoring.gap_open.value_or(nucleotide ? 5 : 11)},
                               engine::GapExtend{scoring.gap_extend.value_or(nucleotide ? 2 : 1)});
}

std::string encode(const Sequence& sequence, const engine::Alphabet& alphabet, const char* role, std::size_t index,
                   bool allow_empty) {
  std::string_view letters = sequence.residues;
  const auto where = [&] { return std::string(role) + " " + std::to_string(index + 1) + " ('" + sequence.id + "')"; };
  if (alphabet.type() == engine::SequenceType::protein && !letters.empty() && letters.back() == '*')
    letters.remove_suffix(1);
  std::string codes;
  codes.reserve(letters.size());
  for (std::size_t i = 0; i < letters.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(letters[i]);
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
    const std::uint8_t code = alphabet.encode(c);
    if (code >= engine::Alphabet::kIgnored) {
      const std::string shown = std::isprint(c) ? std::string(1, static_cast<char>(c)) : "byte " + std::to_string(c);
      throw std::invalid_argument(where() + ": '" + shown + "' at position " + std::to_string(i + 1) + " is not a " +
                                  alphabet.name() + " residue");
    }
    codes += static_cast<char>(code);
  }
  if (codes.empty() && !allow_empty) throw std::invalid_argument(where() + " has no residues");
  return codes;
}

}  // namespace detail

SequenceType guess_sequence_type(const std::vector<Sequence>& sequences) {
  constexpr std::size_t kSample = std::size_t{256} << 10;  // as the FASTA reader's sample
  std::string sample;
  for (const Sequence& sequence : sequences) {
    for (const char c : sequence.residues) {
      if (std::isalpha(static_cast<unsigned char>(c))) sample += c;
      if (sample.size() >= kSample) break;
    }
    if (sample.size() >= kSample) break;
  }
  return detail::from_engine(engine::guess_sequence_type(sample));
}

}  // namespace v0
}  // namespace warpsearch

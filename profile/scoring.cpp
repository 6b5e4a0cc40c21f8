#include "profile/scoring.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "base/text.hpp"
#include "profile/builtin_matrices.hpp"

namespace warpsearch {
namespace {

std::string upper(std::string_view text) {
  std::string result(text);
  for (auto& c : result) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return result;
}

// A matrix file's letters: one letter, or '*'.
bool is_matrix_letter(const std::string& token) {
  return token.size() == 1 && (std::isalpha(static_cast<unsigned char>(token[0])) || token[0] == '*');
}

bool parse_integer(const std::string& token, long& value) {
  std::size_t used = 0;
  try {
    value = std::stol(token, &used);
  } catch (const std::exception&) {
    return false;
  }
  return used == token.size();
}

std::string joined_builtin_names() {
  std::string names;
  for (const auto& name : SubstitutionMatrix::builtin_names()) names += (names.empty() ? "" : ", ") + name;
  return names;
}

}  // namespace

std::vector<std::string> SubstitutionMatrix::builtin_names() {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < kBuiltinMatrixCount; ++i) names.emplace_back(kBuiltinMatrices[i].name);
  return names;
}

SubstitutionMatrix SubstitutionMatrix::builtin(std::string_view name) {
  const std::string wanted = upper(name);
  for (std::size_t m = 0; m < kBuiltinMatrixCount; ++m) {
    const BuiltinMatrix& builtin = kBuiltinMatrices[m];
    if (wanted != builtin.name) continue;
    SubstitutionMatrix matrix;
    matrix.name_ = builtin.name;
    matrix.type_ = SequenceType::protein;
    for (int a = 0; a < kMatrixLetters; ++a)
      for (int b = 0; b < kMatrixLetters; ++b) matrix.scores_[a][b] = builtin.scores[a][b];
    matrix.finish();
    return matrix;
  }
  throw std::invalid_argument("unknown matrix " + quoted_excerpt(name) + " (built in: " + joined_builtin_names() +
                              ", or the path of an NCBI matrix file)");
}

SubstitutionMatrix SubstitutionMatrix::from_file(const std::string& path) {
  // Only regular files: a FIFO would wait for a writer, a device (/dev/zero) never ends a line. A
  // matrix file is a few kB; a megabyte is not one.
  constexpr std::uintmax_t kMaxMatrixBytes = 1 << 20;
  const std::string shown = printable_excerpt(path);
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (!error && !std::filesystem::is_regular_file(status))
    throw std::runtime_error(shown + ": not a regular file; expected an NCBI matrix file");
  if (!error && std::filesystem::file_size(path, error) > kMaxMatrixBytes && !error)
    throw std::runtime_error(shown + ": larger than 1 MiB; expected an NCBI matrix file");
  std::ifstream in(path);
  if (!in) throw std::runtime_error(shown + ": cannot open the matrix file");
  const std::string_view letters = Alphabet::protein().matrix_letters();
  SubstitutionMatrix matrix;
  matrix.name_ = path;
  matrix.type_ = SequenceType::protein;
  std::vector<int> column_code;  // matrix letter code of each column, -1 for letters we don't use
  std::vector<bool> row_seen(letters.size(), false);
  std::string line;
  for (long line_number = 1; std::getline(in, line); ++line_number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    std::istringstream fields(line);
    const auto where = shown + ":" + std::to_string(line_number) + ": ";
    if (column_code.empty()) {
      std::string letter;
      while (fields >> letter) {
        if (!is_matrix_letter(letter))
          throw std::runtime_error(where + "expected a header of single letters, found " + quoted_excerpt(letter));
        const auto pos = letters.find(static_cast<char>(std::toupper(static_cast<unsigned char>(letter[0]))));
        column_code.push_back(pos == std::string_view::npos ? -1 : static_cast<int>(pos));
      }
      continue;
    }
    std::string row_letter;
    fields >> row_letter;
    if (!is_matrix_letter(row_letter))
      throw std::runtime_error(where + "expected a row letter, found " + quoted_excerpt(row_letter));
    const auto row = letters.find(static_cast<char>(std::toupper(static_cast<unsigned char>(row_letter[0]))));
    if (row != std::string_view::npos && row_seen[row])
      throw std::runtime_error(where + "a second row for '" + row_letter + "'");
    for (std::size_t column = 0; column < column_code.size(); ++column) {
      std::string token;
      if (!(fields >> token))
        throw std::runtime_error(where + "row '" + row_letter + "' has fewer scores than the header has letters");
      long value = 0;
      if (!parse_integer(token, value))
        throw std::runtime_error(where + "score " + quoted_excerpt(token) + " in row '" + row_letter +
                                 "' is not an integer");
      if (value < -127 || value > 127)
        throw std::runtime_error(where + "score " + std::to_string(value) + " is outside -127..127");
      if (row != std::string_view::npos && column_code[column] >= 0)
        matrix.scores_[row][column_code[column]] = static_cast<std::int8_t>(value);
    }
    std::string extra;
    if (fields >> extra)
      throw std::runtime_error(where + "row '" + row_letter + "' has more scores than the header has letters");
    if (row != std::string_view::npos) row_seen[row] = true;
  }
  if (column_code.empty()) throw std::runtime_error(shown + ": no header line of letters: not an NCBI matrix file");
  for (std::size_t i = 0; i < letters.size(); ++i) {
    const bool in_columns = std::find(column_code.begin(), column_code.end(), static_cast<int>(i)) != column_code.end();
    if (!row_seen[i] || !in_columns)
      throw std::runtime_error(shown + ": the matrix has no " + (row_seen[i] ? "column" : "row") + " for '" +
                               letters[i] + "' (every one of " + std::string(letters) + " is needed)");
  }
  matrix.finish();
  return matrix;
}

SubstitutionMatrix SubstitutionMatrix::nucleotide(int match, int mismatch) {
  if (match <= 0) throw std::invalid_argument("the match score must be positive, not " + std::to_string(match));
  if (mismatch >= 0)
    throw std::invalid_argument("the mismatch score must be negative, not " + std::to_string(mismatch));
  if (match > 127 || mismatch < -127)
    throw std::invalid_argument("match and mismatch scores must lie within -127..127");
  SubstitutionMatrix matrix;
  matrix.name_ = std::to_string(match) + "/" + std::to_string(mismatch);
  matrix.type_ = SequenceType::nucleotide;
  const int letters = Alphabet::nucleotide().size();
  for (int a = 0; a < letters; ++a)
    for (int b = 0; b < letters; ++b)
      matrix.scores_[a][b] = static_cast<std::int8_t>(a == b && a < 4 ? match : mismatch);
  // N stands for any of 4 bases: blastn scores it (against anything, N included) as the average of one match
  // and three mismatches, rounded half away from zero.
  const auto n_score = static_cast<std::int8_t>(std::lround((match + 3.0 * mismatch) / 4.0));
  const std::uint8_t n = Alphabet::nucleotide().encode('N');
  for (int b = 0; b < letters; ++b) matrix.scores_[n][b] = matrix.scores_[b][n] = n_score;
  matrix.finish();
  return matrix;
}

void SubstitutionMatrix::finish() {
  const Alphabet& alphabet = Alphabet::of(type_);
  const int letters = static_cast<int>(alphabet.matrix_letters().size());
  min_ = max_ = scores_[0][0];
  for (int a = 0; a < letters; ++a)
    for (int b = 0; b < letters; ++b) {
      min_ = std::min<int>(min_, scores_[a][b]);
      max_ = std::max<int>(max_, scores_[a][b]);
    }
  // Codes scored as another letter copy its row and column; the padding code scores the minimum.
  for (int a = letters; a < alphabet.size(); ++a) {
    const int as = alphabet.scored_as(static_cast<std::uint8_t>(a));
    for (int b = 0; b < kMaxCodes; ++b) scores_[a][b] = scores_[as][b];
    for (int b = 0; b < kMaxCodes; ++b) scores_[b][a] = scores_[b][as];
  }
  for (int a = letters; a < alphabet.size(); ++a)
    for (int b = letters; b < alphabet.size(); ++b)
      scores_[a][b] =
          scores_[alphabet.scored_as(static_cast<std::uint8_t>(a))][alphabet.scored_as(static_cast<std::uint8_t>(b))];
  for (int a = alphabet.size(); a < kMaxCodes; ++a)
    for (int b = 0; b < kMaxCodes; ++b) scores_[a][b] = scores_[b][a] = static_cast<std::int8_t>(min_);
}

ScoringScheme::ScoringScheme(SubstitutionMatrix matrix, GapOpen open, GapExtend extend)
    : matrix_(std::move(matrix)), open_(open.value), extend_(extend.value) {
  if (open_ < 0) throw std::invalid_argument("the gap open cost must be 0 or more, not " + std::to_string(open_));
  if (extend_ < 1) throw std::invalid_argument("the gap extend cost must be 1 or more, not " + std::to_string(extend_));
  if (open_ + extend_ > 127)
    throw std::invalid_argument("gap open + extend must be at most 127, not " + std::to_string(open_ + extend_));
  if (matrix_.max_score() <= 0 || matrix_.min_score() >= 0)
    throw std::invalid_argument("matrix " + matrix_.name() +
                                " needs both positive and negative scores for local alignment");
}

}  // namespace warpsearch

// Database, make_database: over db/database.hpp and db/makedb.hpp.
#include "api/engine.hpp"  // first: see there

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <utility>

#include "api/convert.hpp"
#include "api/database_impl.hpp"
#include "warpsearch/database.hpp"

namespace warpsearch {
inline namespace v0 {
namespace {

MakeDbReport from_engine(const engine::MakeDbReport& report) {
  MakeDbReport out;
  out.type = detail::from_engine(report.type);
  out.sequences = report.sequences;
  out.residues = report.residues;
  out.skipped = report.skipped;
  out.input_bytes = report.input_bytes;
  out.max_length = report.max_length;
  out.chunks = report.chunks;
  out.seconds = report.seconds;
  return out;
}

engine::MakeDbOptions to_engine(const MakeDbOptions& options, const std::string& input, const std::string& output) {
  engine::MakeDbOptions make;
  make.input = input;
  make.output = output;
  if (options.type) make.type = detail::to_engine(*options.type);
  make.chunk_residues = options.chunk_residues;
  make.skip_invalid = options.skip_invalid;
  return make;
}

// A FASTA file of the sequences, beside the database to be, removed when this goes out of scope.
class TemporaryFasta {
 public:
  TemporaryFasta(const std::vector<Sequence>& sequences, const std::string& database) {
    std::filesystem::path parent = std::filesystem::absolute(database).parent_path();
    path_ = (parent / ("." + std::filesystem::path(database).filename().string() + ".tmp-input-XXXXXX")).string();
    const int fd = ::mkstemp(path_.data());
    if (fd < 0)
      throw std::runtime_error("cannot create a temporary file in '" + parent.string() + "': " + std::strerror(errno));
    std::string text;
    for (const Sequence& sequence : sequences) {
      text += '>';
      text += sequence.id;
      if (!sequence.description.empty()) text += ' ' + sequence.description;
      text += '\n';
      text += sequence.residues;
      text += '\n';
    }
    std::size_t written = 0;
    while (written < text.size()) {
      const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        const int error = errno;
        ::close(fd);
        ::unlink(path_.c_str());
        throw std::runtime_error("cannot write '" + path_ + "': " + std::strerror(error));
      }
      written += static_cast<std::size_t>(n);
    }
    ::close(fd);
  }
  TemporaryFasta(const TemporaryFasta&) = delete;
  TemporaryFasta& operator=(const TemporaryFasta&) = delete;
  ~TemporaryFasta() { ::unlink(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Checks what the FASTA form cannot say by itself: headers that would not read back as written.
void check_headers(const std::vector<Sequence>& sequences) {
  if (sequences.empty()) throw std::invalid_argument("no sequences to put in the database");
  for (std::size_t i = 0; i < sequences.size(); ++i) {
    const Sequence& sequence = sequences[i];
    const std::string where = "sequence " + std::to_string(i + 1) + " ('" + sequence.id + "')";
    if (sequence.id.empty()) throw std::invalid_argument("sequence " + std::to_string(i + 1) + " has no ID");
    if (sequence.id.find_first_of(" \t\r\n\v\f") != std::string::npos)
      throw std::invalid_argument(where + ": an ID is one word, without blanks or line breaks");
    // The FASTA reader accepts no control byte in a header but TAB and SOH (NCBI's title separator).
    const auto control = [](const std::string& text) {
      for (const unsigned char c : text)
        if ((c < 0x20 && c != '\t' && c != 0x01) || c == 0x7F) return true;
      return false;
    };
    if (control(sequence.id) || control(sequence.description))
      throw std::invalid_argument(where + ": the header holds a line break or another control byte");
  }
}

}  // namespace

MakeDbReport make_database(const std::string& fasta_path, const std::string& database, const MakeDbOptions& options) {
  return from_engine(engine::make_database(to_engine(options, fasta_path, database)));
}

MakeDbReport make_database(const std::vector<Sequence>& sequences, const std::string& database,
                           const MakeDbOptions& options) {
  check_headers(sequences);
  // Letters are checked here, so that an error names the sequence by its index, not a temporary file's line.
  const SequenceType type = options.type ? *options.type : guess_sequence_type(sequences);
  const engine::Alphabet& alphabet = engine::Alphabet::of(detail::to_engine(type));
  std::vector<Sequence> valid;
  const std::vector<Sequence>* written = &sequences;
  std::uint64_t skipped = 0;
  if (options.skip_invalid) {
    for (std::size_t i = 0; i < sequences.size(); ++i) {
      try {
        (void)detail::encode(sequences[i], alphabet, "sequence", i);
        valid.push_back(sequences[i]);
      } catch (const std::invalid_argument&) {
        ++skipped;
      }
    }
    if (valid.empty()) throw std::invalid_argument("no valid sequences to put in the database");
    written = &valid;
  } else {
    for (std::size_t i = 0; i < sequences.size(); ++i) (void)detail::encode(sequences[i], alphabet, "sequence", i);
  }
  const TemporaryFasta fasta(*written, database);
  MakeDbOptions typed = options;
  typed.type = type;
  MakeDbReport report = from_engine(engine::make_database(to_engine(typed, fasta.path(), database)));
  report.skipped += skipped;
  return report;
}

Database::Database(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

Database Database::open(const std::string& path) {
  return Database(std::make_shared<const Impl>(engine::Database::open(path)));
}

const std::string& Database::path() const { return impl_->database.path(); }

DatabaseInfo Database::info() const {
  const engine::DatabaseInfo& info = impl_->database.info();
  DatabaseInfo out;
  out.type = detail::from_engine(info.type);
  out.subjects = info.subjects;
  out.residues = info.residues;
  out.min_length = info.min_length;
  out.max_length = info.max_length;
  out.chunks = info.chunks.size();
  out.skipped = info.skipped;
  out.created_by = info.created_by;
  out.created_at = info.created_at;
  out.source = info.source;
  return out;
}

namespace {
void check_subject(const engine::Database& database, std::uint64_t subject) {
  if (subject >= database.info().subjects)
    throw std::out_of_range("subject " + std::to_string(subject) + " is past the end of " + database.path() + " (" +
                            std::to_string(database.info().subjects) + " subjects)");
}
}  // namespace

std::string Database::id(std::uint64_t subject) const {
  check_subject(impl_->database, subject);
  return std::string(impl_->database.id(subject));
}

std::string Database::description(std::uint64_t subject) const {
  check_subject(impl_->database, subject);
  return std::string(impl_->database.description(subject));
}

void Database::verify() const { impl_->database.verify(); }

}  // namespace v0
}  // namespace warpsearch

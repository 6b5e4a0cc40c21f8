// libFuzzer target: the FASTA / FASTQ reader (db/fasta.hpp) on arbitrary bytes, plain or gzip.
//
// The first byte picks the options (sequence type fixed or detected, --skip-invalid); the rest is the
// file. Any std::exception is an accepted answer to bad input; a crash, a hang, a sanitizer report or an
// exception of another kind is a finding. Records that are delivered must hold only residue codes of
// the reader's alphabet and a non-empty ID, as the reader promises.
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <optional>

#include "db/fasta.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace warpsearch;
  if (size == 0) return 0;
  const std::uint8_t options = data[0];
  const std::string path = fuzz::scratch_directory() + "/input";
  fuzz::write_bytes(path, data + 1, size - 1);
  std::optional<SequenceType> type;
  if ((options & 3) == 1) type = SequenceType::protein;
  if ((options & 3) == 2) type = SequenceType::nucleotide;
  const bool skip_invalid = (options & 4) != 0;
  try {
    FastaReader reader(path, type, skip_invalid);
    const int alphabet_size = reader.alphabet().size();
    SequenceRecord record;
    std::uint64_t expected_index = 0;
    while (reader.next(record)) {
      if (record.id.empty() || record.codes.empty() || record.index != expected_index++) std::abort();
      for (char code : record.codes)
        if (static_cast<std::uint8_t>(code) >= alphabet_size) std::abort();
      if (reader.bytes_consumed() > size) std::abort();
    }
  } catch (const std::exception&) {
    // Rejected input: that is allowed.
  }
  return 0;
}

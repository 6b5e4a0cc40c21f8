#include "search/translation.hpp"

#include <algorithm>
#include <memory>
#include <numeric>
#include <stdexcept>

#include "base/parallel.hpp"
#include "base/usable_cpus.hpp"
#include "search/warpsearch.hpp"

namespace warpsearch {

const char* program_name(Program program) {
  switch (program) {
    case Program::blastp: return "blastp";
    case Program::blastn: return "blastn";
    case Program::blastx: return "blastx";
    case Program::tblastn: return "tblastn";
    case Program::tblastx: return "tblastx";
    case Program::automatic: break;
  }
  return "automatic";
}

Program program_named(const std::string& name) {
  for (Program program : {Program::blastp, Program::blastn, Program::blastx, Program::tblastn, Program::tblastx})
    if (name == program_name(program)) return program;
  throw std::invalid_argument("unknown program '" + name + "' (blastp, blastn, blastx, tblastn or tblastx)");
}

bool translates_query(Program program) { return program == Program::blastx || program == Program::tblastx; }
bool translates_subjects(Program program) { return program == Program::tblastn || program == Program::tblastx; }

SequenceType query_type(Program program, SequenceType database) {
  switch (program) {
    case Program::blastp:
    case Program::tblastn: return SequenceType::protein;
    case Program::blastn:
    case Program::blastx:
    case Program::tblastx: return SequenceType::nucleotide;
    case Program::automatic: break;
  }
  return database;
}

SequenceType database_type(Program program, SequenceType database) {
  switch (program) {
    case Program::blastp:
    case Program::blastx: return SequenceType::protein;
    case Program::blastn:
    case Program::tblastn:
    case Program::tblastx: return SequenceType::nucleotide;
    case Program::automatic: break;
  }
  return database;
}

Program program_for(SequenceType queries, SequenceType database) {
  if (queries == database) return queries == SequenceType::protein ? Program::blastp : Program::blastn;
  if (queries == SequenceType::nucleotide)
    throw std::invalid_argument(
        "the queries are nucleotide sequences and the database holds proteins: choose --program blastx (translate "
        "the queries in six frames) or --program blastp (read the queries as proteins)");
  throw std::invalid_argument(
      "the queries are proteins and the database holds nucleotide sequences: choose --program tblastn (translate "
      "the database in six frames) or --program blastn (read the queries as nucleotides)");
}

TranslatedChunk translate_chunk(const Chunk& nucleotide, const GeneticCode& code, unsigned threads) {
  const SubjectBatch source = nucleotide.batch();
  struct Frame {
    std::uint32_t length;
    std::uint64_t subject;
    std::int8_t frame;
  };
  std::vector<Frame> frames;
  frames.reserve(source.count * 6);
  for (std::size_t s = 0; s < source.count; ++s)
    for (int frame : kReadingFrames) {
      const auto length = static_cast<std::uint32_t>(frame_length(source.lengths[s], frame));
      if (length > 0) frames.push_back({length, s, static_cast<std::int8_t>(frame)});
    }
  std::stable_sort(frames.begin(), frames.end(), [](const Frame& a, const Frame& b) { return a.length < b.length; });

  ChunkInfo info;
  info.first_subject = 6 * nucleotide.info().first_subject;
  info.subjects = frames.size();
  std::vector<std::uint32_t> lengths(frames.size());
  std::vector<std::uint64_t> offsets(frames.size()), originals(frames.size());
  TranslatedChunk translated{Chunk::in_memory({}, {}, {}, {}, nullptr), std::vector<std::uint64_t>(frames.size()),
                             std::vector<std::int8_t>(frames.size())};
  const std::uint64_t* source_originals = nucleotide.original_indices();
  for (std::size_t t = 0; t < frames.size(); ++t) {
    lengths[t] = frames[t].length;
    offsets[t] = info.words;
    originals[t] = source_originals[frames[t].subject];
    translated.source[t] = frames[t].subject;
    translated.frame[t] = frames[t].frame;
    info.words += (std::uint64_t{frames[t].length} + 3) / 4;
    info.residues += frames[t].length;
  }
  info.min_length = frames.empty() ? 0 : frames.front().length;
  info.max_length = frames.empty() ? 0 : frames.back().length;
  // Not zeroed: the tasks below write every byte, each frame's residues and the padding code after its
  // end in its last word (as in a database chunk), so that the pages are first touched on all threads
  // (a genome's frames are 200 MB, which a vector filled on one thread first).
  const auto pad = static_cast<char>(Alphabet::protein().pad_code());
  std::unique_ptr<std::uint32_t[]> words(new std::uint32_t[info.words]);
  // Tasks of about kPiece amino acids: runs of short frames, or pieces of a long one (a chromosome's
  // frames are millions of codons: one task each left the other threads idle).
  constexpr std::size_t kPiece = std::size_t{1} << 18;
  struct Task {
    std::size_t begin, end;   // frames [begin, end)
    std::size_t first, last;  // amino acids [first, last) of each (translate_frame stops at its end)
  };
  std::vector<Task> tasks;
  for (std::size_t t = 0; t < frames.size();) {
    if (frames[t].length >= kPiece) {
      for (std::size_t first = 0; first < frames[t].length; first += kPiece)
        tasks.push_back({t, t + 1, first, first + kPiece});
      ++t;
      continue;
    }
    const std::size_t begin = t;
    for (std::size_t taken = 0; t < frames.size() && frames[t].length < kPiece && taken < kPiece; ++t)
      taken += frames[t].length;
    tasks.push_back({begin, t, 0, kPiece});
  }
  parallel_for(tasks.size(), threads_or_usable_cpus(threads), [&](std::size_t k, unsigned) {
    for (std::size_t t = tasks[k].begin; t < tasks[k].end; ++t) {
      const std::uint64_t s = frames[t].subject;
      // Little-endian packing: a subject's residues are its bytes in order.
      const auto* bases = reinterpret_cast<const char*>(source.words + source.word_offsets[s]);
      char* out = reinterpret_cast<char*>(words.get() + offsets[t]);
      translate_frame(bases, source.lengths[s], frames[t].frame, code, out, tasks[k].first, tasks[k].last);
      if (tasks[k].last >= frames[t].length)  // the task holding the frame's end
        for (std::uint64_t i = frames[t].length; i % 4 != 0; ++i) out[i] = pad;
    }
  });
  translated.chunk =
      Chunk::in_memory(info, std::move(lengths), std::move(offsets), std::move(originals), std::move(words));
  return translated;
}

}  // namespace warpsearch

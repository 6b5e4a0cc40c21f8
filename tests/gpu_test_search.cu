// The GPU search end to end, through the command line, against the CPU search: the same output byte
// for byte on the bundled real database (protein) and on a nucleotide database (both strands), with
// one GPU, with every GPU, and with a device-memory limit small enough to force several batches of
// subjects per chunk. Skips (with a warning) where no GPU is usable.
#include <random>
#include <string>
#include <vector>

#include "kernels/gpu/gpu_scorer.hpp"
#include "tests/catch.hpp"
#include "tests/test_support.hpp"

namespace {

using warpsearch::test::run_warpsearch;
using warpsearch::test::TempDir;

// Every column the output can hold, so that any difference in a hit's alignment shows.
const char* const kAllColumns =
    "--outfmt '6 qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue bitscore score "
    "qlen slen cigar qseq sseq qcovhsp sstrand nident gaps'";

std::string search(const std::string& arguments) {
  const auto result = run_warpsearch("search --quiet " + std::string(kAllColumns) + " " + arguments);
  INFO("warpsearch search " << arguments << "\n" << result.err);
  REQUIRE(result.exit_code == 0);
  return result.out;
}

bool gpu_usable() {
  if (warpsearch::gpu::usable_device_count() > 0) return true;
  WARN("no usable GPU: the GPU search tests are skipped");
  return false;
}

}  // namespace

TEST_CASE("gpu search: output equals the CPU's on the bundled protein database", "[gpu][search]") {
  if (!gpu_usable()) return;
  TempDir dir;
  const std::string db = dir.file("sample.wsdb");
  const auto made = run_warpsearch("makedb --quiet " + warpsearch::test::source_path("data/uniprot_sample.fa") + " " + db);
  REQUIRE(made.exit_code == 0);
  const std::string common = "-q " + warpsearch::test::source_path("data/queries.fa") + " -d " + db;
  const std::string cpu = search(common + " --device cpu");
  REQUIRE(cpu.size() > 1000);  // real hits, not an empty output
  CHECK(search(common + " --device gpu --gpus 0") == cpu);
  CHECK(search(common + " --device gpu") == cpu);  // every GPU: shares split by residues, merged
  if (warpsearch::gpu::usable_device_count() >= 2) CHECK(search(common + " --device gpu --gpus 1,0") == cpu);
  // A limit that leaves room for about a third of the database: several batches of subjects.
  const std::uint64_t limit = (std::uint64_t{256} << 20) +
                              warpsearch::gpu::GpuScorer::bytes_for_subjects(700000, 1500, 5000);
  CHECK(search(common + " --device gpu --gpu-memory " + std::to_string(limit)) == cpu);
  CHECK(search(common + " --device gpu --max-target-seqs 5 --evalue 1e-5") ==
        search(common + " --device cpu --max-target-seqs 5 --evalue 1e-5"));
}

TEST_CASE("gpu search: nucleotide output equals the CPU's on both strands", "[gpu][search]") {
  if (!gpu_usable()) return;
  TempDir dir;
  std::mt19937_64 rng(2026);
  const char* const bases = "ACGT";
  auto random_dna = [&](std::size_t length) {
    std::string s;
    for (std::size_t i = 0; i < length; ++i) s += bases[rng() % 4];
    return s;
  };
  auto reverse_complement = [](std::string s) {
    std::string out(s.rbegin(), s.rend());
    for (auto& c : out) c = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : 'A';
    return out;
  };
  std::string queries, subjects;
  std::vector<std::string> query_seqs;
  for (int q = 0; q < 4; ++q) {
    query_seqs.push_back(random_dna(100 + 150 * q));
    queries += ">q" + std::to_string(q) + "\n" + query_seqs.back() + "\n";
  }
  for (int s = 0; s < 400; ++s) {
    std::string seq = random_dna(50 + rng() % 3000);
    if (s % 5 == 0) {  // a piece of a query, on either strand, with a few substitutions
      std::string piece = query_seqs[s / 5 % 4].substr(10, 80);
      for (auto& c : piece)
        if (rng() % 12 == 0) c = bases[rng() % 4];
      if (s % 10 == 0) piece = reverse_complement(piece);
      seq.insert(seq.size() / 2, piece);
    }
    subjects += ">s" + std::to_string(s) + " subject " + std::to_string(s) + "\n" + seq + "\n";
  }
  warpsearch::test::write_file(dir.file("q.fa"), queries);
  warpsearch::test::write_file(dir.file("s.fa"), subjects);
  REQUIRE(run_warpsearch("makedb --quiet " + dir.file("s.fa") + " " + dir.file("s.wsdb")).exit_code == 0);
  const std::string common = "-q " + dir.file("q.fa") + " -d " + dir.file("s.wsdb");
  const std::string cpu = search(common + " --device cpu");
  REQUIRE(cpu.find("minus") != std::string::npos);
  REQUIRE(cpu.find("plus") != std::string::npos);
  CHECK(search(common + " --device gpu") == cpu);
}

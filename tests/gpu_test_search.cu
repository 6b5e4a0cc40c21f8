// The GPU search end to end, through the command line, against the CPU search: the same output byte
// for byte on the bundled real database (protein) and on a nucleotide database (both strands), with
// one GPU, with every GPU, and with a device-memory limit small enough to force several batches of
// subjects per chunk, several chunks and several query batches (a query's hits are aligned while the
// others are scanned). And the GPU backend's locate() (the spans of the hits) against reference::span
// and the CPU backend's, pairs too long for the GPU pair kernel included. Skips (with a warning) where
// no GPU is usable.
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "core/alphabet.hpp"
#include "kernels/gpu/gpu_scorer.hpp"
#include "kernels/gpu/pair_aligner.hpp"
#include "kernels/reference/reference.hpp"
#include "search/gpu_rates.hpp"
#include "search/scan_backend.hpp"
#include "tests/catch.hpp"
#include "tests/gpu_test_support.hpp"
#include "tests/test_support.hpp"
#include "tests/translation_support.hpp"

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

bool gpu_usable() { return warpsearch::test::gpu_usable("the GPU search tests"); }

struct CodesPair {
  std::string query, subject;
};

// Planted (gapped copies in random flanks), unrelated, identical, tandem-repeat and tiny pairs.
std::vector<CodesPair> planted_pairs(std::uint64_t seed, int letters, std::size_t count) {
  std::mt19937_64 rng(seed);
  std::vector<CodesPair> pairs;
  for (std::size_t k = 0; k < count; ++k) {
    const std::string query = warpsearch::test::random_codes(rng, 1 + rng() % 600, letters);
    const std::string piece = query.substr(query.size() / 5, std::max<std::size_t>(1, query.size() / 2));
    auto random = [&](std::size_t length) { return warpsearch::test::random_codes(rng, length, letters); };
    switch (k % 5) {
      case 0:
        pairs.push_back({query, random(rng() % 300) + warpsearch::test::mutated_codes(rng, piece, letters, 0.2, 6) +
                                    random(rng() % 300)});
        break;
      case 1: pairs.push_back({query, random(1 + rng() % 900)}); break;
      case 2: pairs.push_back({query, query}); break;
      case 3: pairs.push_back({piece + piece, random(5) + piece + random(2) + piece}); break;
      default: pairs.push_back({query, random(1 + rng() % 3)}); break;
    }
  }
  return pairs;
}

// The spans of backend.locate() on all pairs in one call, field by field against reference::span
// (and, when given, against the spans of a second backend).
void check_locate(warpsearch::ScanBackend& backend, const warpsearch::ScoringScheme& scoring,
                  const std::vector<CodesPair>& pairs, warpsearch::ScanBackend* other = nullptr) {
  std::vector<warpsearch::HitPair> hit_pairs;
  for (const auto& pair : pairs) hit_pairs.push_back({pair.query, pair.subject});
  std::vector<warpsearch::Span> spans, other_spans;
  backend.locate(hit_pairs, spans);
  REQUIRE(spans.size() == pairs.size());
  if (other) other->locate(hit_pairs, other_spans);
  std::size_t differences = 0;
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const auto expected =
        warpsearch::reference::span(pairs[k].query, pairs[k].subject, scoring, warpsearch::AlignmentMode::local);
    const warpsearch::Span& got = spans[k];
    bool same = got.score == expected.score && got.query_begin == expected.query_begin &&
                got.query_end == expected.query_end && got.subject_begin == expected.subject_begin &&
                got.subject_end == expected.subject_end;
    if (other)
      same = same && other_spans[k].score == got.score && other_spans[k].query_begin == got.query_begin &&
             other_spans[k].query_end == got.query_end && other_spans[k].subject_begin == got.subject_begin &&
             other_spans[k].subject_end == got.subject_end;
    if (!same && ++differences <= 5)
      UNSCOPED_INFO("pair " << k << " (" << pairs[k].query.size() << " x " << pairs[k].subject.size() << "): GPU "
                            << got.score << " q[" << got.query_begin << "," << got.query_end << ") s["
                            << got.subject_begin << "," << got.subject_end << "), reference " << expected.score << " q["
                            << expected.query_begin << "," << expected.query_end << ") s[" << expected.subject_begin
                            << "," << expected.subject_end << ")");
  }
  CHECK(differences == 0);
}

}  // namespace

TEST_CASE("gpu search: the GPU backend locates hits as reference::span and the CPU backend do",
          "[gpu][search][locate]") {
  if (!gpu_usable()) return;
  using namespace warpsearch;
  const ScoringScheme blosum62(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  const auto cpu = make_cpu_backend(blosum62, 0);
  const auto protein = planted_pairs(51, 20, 400);
  check_locate(*make_gpu_backend(blosum62, {0}, 0, 0), blosum62, protein, cpu.get());
  check_locate(*make_gpu_backend(blosum62, {}, 0, 0), blosum62, protein, cpu.get());  // split across every GPU
  if (gpu::usable_device_count() >= 2) check_locate(*make_gpu_backend(blosum62, {1, 0}, 0, 0), blosum62, protein);
  check_locate(*make_gpu_backend(blosum62, {}, 0, 0), blosum62, planted_pairs(52, 27, 150));  // B Z X * too

  const ScoringScheme blastn(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  check_locate(*make_gpu_backend(blastn, {}, 0, 0), blastn, planted_pairs(53, 4, 300));
  const ScoringScheme ties(SubstitutionMatrix::nucleotide(1, -1), GapOpen{0}, GapExtend{1});
  check_locate(*make_gpu_backend(ties, {}, 0, 0), ties, planted_pairs(54, 4, 300));

  // A subject longer than the GPU pair kernel takes goes to the CPU, in the same call as the others.
  std::mt19937_64 rng(55);
  std::vector<CodesPair> mixed = planted_pairs(56, 4, 20);
  CodesPair long_pair{test::random_codes(rng, 40, 4),
                      test::random_codes(rng, gpu::GpuPairAligner::kMaxSequenceLength + 1, 4)};
  long_pair.subject.replace(long_pair.subject.size() - 100, 30, long_pair.query.substr(5, 30));
  mixed.insert(mixed.begin() + 7, long_pair);
  check_locate(*make_gpu_backend(blastn, {}, 0, 2), blastn, mixed);

  std::vector<Span> spans(2);
  make_gpu_backend(blosum62, {}, 0, 0)->locate({}, spans);
  CHECK(spans.empty());
}

TEST_CASE("gpu search: output equals the CPU's on the bundled protein database", "[gpu][search]") {
  if (!gpu_usable()) return;
  TempDir dir;
  const std::string db = dir.file("sample.wsdb");
  const auto made =
      run_warpsearch("makedb --quiet " + warpsearch::test::source_path("data/uniprot_sample.fa") + " " + db);
  REQUIRE(made.exit_code == 0);
  const std::string common = "-q " + warpsearch::test::source_path("data/queries.fa") + " -d " + db;
  const std::string cpu = search(common + " --device cpu");
  REQUIRE(cpu.size() > 1000);  // real hits, not an empty output
  CHECK(search(common + " --device gpu --gpus 0") == cpu);
  CHECK(search(common + " --device gpu") == cpu);  // every GPU: shares split by residues, merged
  if (warpsearch::gpu::usable_device_count() >= 2) CHECK(search(common + " --device gpu --gpus 1,0") == cpu);
  // --gpus shows CUDA only those GPUs; one past the last is reported in the user's numbering.
  const std::string missing = std::to_string(warpsearch::gpu::usable_device_count());
  const auto beyond = run_warpsearch("search " + common + " --device gpu --gpus " + missing + " -o " + dir.file("x"));
  CHECK(beyond.exit_code != 0);
  CHECK(beyond.err.find("GPU " + missing + " does not exist") != std::string::npos);
  // A limit that leaves room for about a third of the database: several batches of subjects.
  const std::uint64_t limit =
      (std::uint64_t{256} << 20) + warpsearch::gpu::GpuScorer::bytes_for_subjects(700000, 1500, 5000);
  CHECK(search(common + " --device gpu --gpu-memory " + std::to_string(limit)) == cpu);
  CHECK(search(common + " --device gpu --max-target-seqs 5 --evalue 1e-5") ==
        search(common + " --device cpu --max-target-seqs 5 --evalue 1e-5"));
  // Hits are aligned as each query's scan ends on the last chunk: several chunks, several query batches.
  const std::string chunked = dir.file("chunked.wsdb");
  REQUIRE(run_warpsearch("makedb --quiet --chunk-size 300K " + warpsearch::test::source_path("data/uniprot_sample.fa") +
                         " " + chunked)
              .exit_code == 0);
  const std::string in_chunks = "-q " + warpsearch::test::source_path("data/queries.fa") + " -d " + chunked;
  CHECK(search(in_chunks + " --device gpu") == cpu);
  CHECK(search(in_chunks + " --device gpu --query-batch 2") == cpu);
  // Memory for about two chunks at a time: the chunks stream through the resident sets, the next one
  // loading while one is scored, the least recently used giving way; every query batch streams them again.
  const std::uint64_t two_chunks =
      (std::uint64_t{256} << 20) + 2 * warpsearch::gpu::GpuScorer::bytes_for_subjects(330000, 1500, 100000);
  CHECK(search(in_chunks + " --device gpu --query-batch 3 --gpu-memory " + std::to_string(two_chunks)) == cpu);
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
  REQUIRE(run_warpsearch("makedb --quiet --chunk-size 200K " + dir.file("s.fa") + " " + dir.file("c.wsdb")).exit_code ==
          0);
  CHECK(search("-q " + dir.file("q.fa") + " -d " + dir.file("c.wsdb") + " --device gpu --query-batch 3") == cpu);
}

TEST_CASE("gpu search: long DNA subjects (segments, several HSPs) give the CPU's output byte for byte",
          "[gpu][search][hsps]") {
  if (!gpu_usable()) return;
  TempDir dir;
  std::mt19937_64 rng(404);
  const auto& dna = warpsearch::Alphabet::nucleotide();
  // Three queries; six subjects of 0.3-2.5 Mb (above the long-subject length: scored in segments), each
  // holding mutated copies of the queries on both strands, some close together, and a few short subjects.
  std::vector<std::string> queries;
  std::string query_fasta;
  for (int q = 0; q < 3; ++q) {
    queries.push_back(warpsearch::test::random_codes(rng, 400 + 800 * static_cast<std::size_t>(q), 4));
    query_fasta += ">q" + std::to_string(q) + "\n" + dna.decode_string(queries.back()) + "\n";
  }
  std::string db_fasta;
  for (int s = 0; s < 6; ++s) {
    std::string subject = warpsearch::test::random_codes(rng, 300000 + 440000 * static_cast<std::size_t>(s), 4);
    for (int copy = 0; copy < 2 + s; ++copy) {
      std::string piece = warpsearch::test::mutated_codes(rng, queries[static_cast<std::size_t>(copy) % 3], 4, 0.12, 3);
      if (copy % 2) piece = warpsearch::test::reverse_complement(piece);
      const std::size_t at = rng() % (subject.size() - piece.size());
      subject.replace(at, piece.size(), piece);
    }
    db_fasta += ">chr" + std::to_string(s) + "\n" + dna.decode_string(subject) + "\n";
  }
  for (int s = 0; s < 20; ++s)
    db_fasta +=
        ">short" + std::to_string(s) + "\n" +
        dna.decode_string(warpsearch::test::mutated_codes(rng, queries[static_cast<std::size_t>(s) % 3], 4, 0.2, 3)) +
        "\n";
  warpsearch::test::write_file(dir.file("db.fa"), db_fasta);
  warpsearch::test::write_file(dir.file("q.fa"), query_fasta);
  REQUIRE(run_warpsearch("makedb --quiet " + dir.file("db.fa") + " " + dir.file("db.wsdb")).exit_code == 0);
  const std::string common = "-q " + dir.file("q.fa") + " -d " + dir.file("db.wsdb") + " --evalue 1e-5";
  const std::string cpu = search("--device cpu " + common);
  CHECK(std::count(cpu.begin(), cpu.end(), '\n') >= 40);
  CHECK(search("--device gpu " + common) == cpu);
  // Room for about a third of the segments at a time: several batches of them.
  const std::uint64_t limit =
      (std::uint64_t{256} << 20) + warpsearch::gpu::GpuScorer::bytes_for_subjects(3000000, 100, 5000);
  CHECK(search("--device gpu --gpu-memory " + std::to_string(limit) + " " + common) == cpu);
}

TEST_CASE("gpu search: a query as long as its subjects (the long-pair kernel's scan) gives the CPU's output",
          "[gpu][search][hsps]") {
  if (!gpu_usable()) return;
  TempDir dir;
  std::mt19937_64 rng(1919);
  const auto& dna = warpsearch::Alphabet::nucleotide();
  // A 30 kb query (reach about 60 k) and a 1 kb piece of it against four subjects of 70-260 kb: a few
  // segments each, so the long query's scan takes the long-pair kernel (checked below with the reach's
  // bounds) and the piece takes the segments. Copies of the whole query, of parts of it, on both strands,
  // two in one subject; one subject unrelated.
  const std::string query = warpsearch::test::random_codes(rng, 30000, 4);
  const std::string piece = query.substr(12000, 1000);
  warpsearch::test::write_file(dir.file("q.fa"),
                               ">long\n" + dna.decode_string(query) + "\n>piece\n" + dna.decode_string(piece) + "\n");
  std::vector<std::uint64_t> lengths;
  std::string db_fasta;
  for (int s = 0; s < 4; ++s) {
    std::string subject = warpsearch::test::random_codes(rng, 70000 + 63000 * static_cast<std::size_t>(s), 4);
    for (int copy = 0; copy < (s == 3 ? 0 : 1 + s % 2); ++copy) {
      const std::size_t length = copy == 0 ? query.size() : 6000;
      std::string copied = warpsearch::test::mutated_codes(
          rng, query.substr(rng() % (query.size() - length + 1), length), 4, 0.06 + 0.03 * s, 3);
      if ((s + copy) % 2) copied = warpsearch::test::reverse_complement(copied);
      subject.replace(static_cast<std::size_t>(copy) * (subject.size() / 2) + rng() % (subject.size() / 2 - length),
                      copied.size(), copied);
    }
    lengths.push_back(subject.size());
    db_fasta += ">chr" + std::to_string(s) + "\n" + dna.decode_string(subject) + "\n";
  }
  const warpsearch::ScoringScheme blastn(warpsearch::SubstitutionMatrix::nucleotide(2, -3), warpsearch::GapOpen{5},
                                         warpsearch::GapExtend{2});
  warpsearch::gpu::GpuScorer scorer(0, blastn);
  warpsearch::SubjectSegments::GpuKernels kernels;
  kernels.cooperative_pairs = scorer.cooperative_pairs_per_wave();
  kernels.queries_in_flight = warpsearch::gpu::GpuScorer::kQueriesInFlight;
  const warpsearch::LongQueryScanRates rates = warpsearch::long_query_scan_rates(kernels);
  for (const std::uint64_t reach : {query.size(), 2 * query.size()})  // the reach lies between (2/-3, gaps 5/2)
    CHECK(warpsearch::pair_scan_pays(query.size(), reach, lengths, rates));
  CHECK_FALSE(warpsearch::pair_scan_pays(piece.size(), 2 * piece.size(), lengths, rates));
  warpsearch::test::write_file(dir.file("db.fa"), db_fasta);
  REQUIRE(run_warpsearch("makedb --quiet " + dir.file("db.fa") + " " + dir.file("db.wsdb")).exit_code == 0);
  const std::string common = "-q " + dir.file("q.fa") + " -d " + dir.file("db.wsdb") + " --evalue 1e-5";
  const std::string cpu = search("--device cpu " + common);
  CHECK(std::count(cpu.begin(), cpu.end(), '\n') >= 6);
  CHECK(search("--device gpu " + common) == cpu);
}

TEST_CASE("gpu search: blastx, tblastn and tblastx give the CPU's output byte for byte, long subjects included",
          "[gpu][search][translate]") {
  if (!gpu_usable()) return;
  TempDir dir;
  std::mt19937_64 rng(505);
  // One codon per amino acid (standard code), enough to hide proteins in DNA.
  const std::string amino_acids = "ARNDCQEGHILKMFPSTWYV";
  const char* codons[] = {"GCT", "CGT", "AAT", "GAT", "TGT", "CAA", "GAA", "GGT", "CAT", "ATT",
                          "CTG", "AAA", "ATG", "TTT", "CCG", "TCT", "ACT", "TGG", "TAT", "GTT"};
  const auto random_dna = [&](std::size_t length) {
    std::string dna(length, 'A');
    for (auto& c : dna) c = "ACGT"[rng() % 4];
    return dna;
  };
  const auto reverse_complement = [](const std::string& dna) {
    std::string result(dna.rbegin(), dna.rend());
    for (auto& c : result) c = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : 'A';
    return result;
  };
  std::vector<std::string> proteins, coding;
  std::string protein_fasta, dna_query_fasta;
  for (int q = 0; q < 3; ++q) {
    std::string protein, dna;
    for (std::size_t k = 0; k < 80 + 120 * static_cast<std::size_t>(q); ++k) {
      const std::size_t a = rng() % amino_acids.size();
      protein += amino_acids[a];
      dna += codons[a];
    }
    proteins.push_back(protein);
    coding.push_back(dna);
    protein_fasta += ">p" + std::to_string(q) + "\n" + protein + "\n";
    std::string dna_query = dna;
    for (auto& c : dna_query)
      if (rng() % 20 == 0) c = "ACGT"[rng() % 4];
    dna_query_fasta += ">n" + std::to_string(q) + "\n" + dna_query + "\n";
  }
  // Two subjects above the long-subject length in every frame (scored in segments), and short ones;
  // each holds copies of the coding sequences on both strands, with 5% of the bases changed.
  std::string db_fasta;
  for (int s = 0; s < 6; ++s) {
    std::string subject = random_dna(s < 2 ? 250000 + 150000 * static_cast<std::size_t>(s) : 3000);
    for (int copy = 0; copy < 2 + s % 3; ++copy) {
      std::string piece = coding[static_cast<std::size_t>(copy + s) % coding.size()];
      for (auto& c : piece)
        if (rng() % 20 == 0) c = "ACGT"[rng() % 4];
      if (copy % 2) piece = reverse_complement(piece);
      const std::size_t at = rng() % (subject.size() - piece.size());
      subject.replace(at, piece.size(), piece);
    }
    db_fasta += ">chr" + std::to_string(s) + "\n" + subject + "\n";
  }
  warpsearch::test::write_file(dir.file("db.fa"), db_fasta);
  warpsearch::test::write_file(dir.file("p.fa"), protein_fasta);
  warpsearch::test::write_file(dir.file("n.fa"), dna_query_fasta);
  REQUIRE(run_warpsearch("makedb --quiet " + dir.file("db.fa") + " " + dir.file("db.wsdb")).exit_code == 0);
  for (const std::string program : {"tblastn", "tblastx"}) {
    INFO(program);
    const std::string common = "--program " + program + " -q " + dir.file(program == "tblastn" ? "p.fa" : "n.fa") +
                               " -d " + dir.file("db.wsdb") + " --evalue 1e-5";
    const std::string cpu = search("--device cpu " + common);
    CHECK(std::count(cpu.begin(), cpu.end(), '\n') >= 10);
    CHECK(search("--device gpu " + common) == cpu);
  }
  // blastx: the DNA queries and contigs holding the coding sequences (both strands) against the proteins
  // among random ones.
  std::string proteins_fasta = protein_fasta, contigs_fasta = dna_query_fasta;
  for (int p = 0; p < 200; ++p) {
    std::string protein;
    for (std::size_t k = 0; k < 50 + rng() % 400; ++k) protein += amino_acids[rng() % amino_acids.size()];
    proteins_fasta += ">r" + std::to_string(p) + "\n" + protein + "\n";
  }
  for (int c = 0; c < 3; ++c) {
    std::string contig = random_dna(2000 + 700 * static_cast<std::size_t>(c));
    const std::string& piece = coding[static_cast<std::size_t>(c)];
    contig.replace(contig.size() / 3, piece.size(), c % 2 ? reverse_complement(piece) : piece);
    contigs_fasta += ">contig" + std::to_string(c) + "\n" + contig + "\n";
  }
  warpsearch::test::write_file(dir.file("proteins.fa"), proteins_fasta);
  warpsearch::test::write_file(dir.file("contigs.fa"), contigs_fasta);
  REQUIRE(run_warpsearch("makedb --quiet " + dir.file("proteins.fa") + " " + dir.file("proteins.wsdb")).exit_code == 0);
  const std::string common =
      "--program blastx -q " + dir.file("contigs.fa") + " -d " + dir.file("proteins.wsdb") + " --evalue 1e-5";
  const std::string cpu = search("--device cpu " + common);
  CHECK(std::count(cpu.begin(), cpu.end(), '\n') >= 6);
  CHECK(search("--device gpu " + common) == cpu);
}

// warpsearch makedb: pack a FASTA (or FASTQ) file into a length-sorted, chunked database.
#include <boost/program_options.hpp>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <optional>

#include "base/interrupt.hpp"
#include "base/text.hpp"
#include "db/makedb.hpp"
#include "output/taxonomy.hpp"
#include "tools/commands.hpp"
#include "tools/common_options.hpp"

namespace po = boost::program_options;

namespace warpsearch::tools {
namespace {

constexpr const char* kMakedbUsage =
    "usage: warpsearch makedb IN DB [options]\n"
    "\n"
    "Packs the sequences of IN (FASTA or FASTQ, plain or compressed with gzip, bzip2, xz or zstd; '-' for\n"
    "stdin) into the database directory DB, which must not exist. The database appears complete or not at all.\n";

}  // namespace

// "1000", "64K", "512M", "1G" (binary multiples) -> a count.
std::uint64_t parse_size(const std::string& option, const std::string& what, const std::string& text) {
  const auto bad = [&] {
    return UsageError{option + " takes a positive number of " + what + " with an optional K, M or G suffix " +
                      "(e.g. 512M), not " + quoted_excerpt(text)};
  };
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 15 || text.size() > digits + 1) throw bad();
  std::uint64_t value = std::stoull(text.substr(0, digits));
  if (digits < text.size()) {
    int shift = 0;
    switch (std::toupper(static_cast<unsigned char>(text[digits]))) {
      case 'K': shift = 10; break;
      case 'M': shift = 20; break;
      case 'G': shift = 30; break;
      default: throw bad();
    }
    // 15 digits times 2^30 would wrap around 64 bits.
    if (value > (std::numeric_limits<std::uint64_t>::max() >> shift)) throw bad();
    value <<= shift;
  }
  if (value == 0) throw bad();
  return value;
}

int run_makedb(int argc, char** argv) {
  std::string input, output, dbtype, chunk_size, taxid_map;
  Number<std::uint32_t> taxid = 0;
  Number<unsigned> threads = 0;
  po::options_description options("options");
  options.add_options()("help,h", "show this help")("dbtype", po::value(&dbtype)->value_name("prot|nucl"),
                                                    "sequence type (default: detected from the residues)")(
      "chunk-size", po::value(&chunk_size)->value_name("N"),
      "residues per chunk, at most; K, M, G suffixes (default 1G)")(
      "skip-invalid", "skip records with invalid residues or no residues, and count them")(
      "taxid-map", po::value(&taxid_map)->value_name("FILE"),
      "lines 'SEQID TAXID': stores each record's NCBI taxonomy ID, as makeblastdb -taxid_map (SEQID an ID or "
      "accession, with or without version)")("taxid", po::value(&taxid)->value_name("N"),
                                             "one NCBI taxonomy ID for every record, as makeblastdb -taxid")(
      "threads", po::value(&threads)->value_name("N"),
      "threads that parse and pack (default: the CPUs this process may use); the database is the same for any N")(
      "quiet", "no summary on stderr");
  po::options_description hidden;
  hidden.add_options()("in", po::value(&input))("db", po::value(&output));
  po::positional_options_description positional;
  positional.add("in", 1).add("db", 1);
  po::variables_map vm;
  if (!parse_command_line(argc, argv, options, kMakedbUsage, vm, hidden, positional)) return 0;
  if (input.empty()) throw UsageError{"the input FASTA file is missing (IN)"};
  if (output.empty()) throw UsageError{"the database directory is missing (DB)"};

  MakeDbOptions make;
  make.input = input;
  make.output = output;
  make.skip_invalid = vm.count("skip-invalid") > 0;
  if (threads.value > 4096) throw UsageError{"--threads takes a number from 0 (every core) to 4096"};
  make.threads = threads.value;
  if (vm.count("dbtype")) {
    if (dbtype == "prot")
      make.type = SequenceType::protein;
    else if (dbtype == "nucl")
      make.type = SequenceType::nucleotide;
    else
      throw UsageError{"--dbtype takes prot or nucl, not " + quoted_excerpt(dbtype)};
  }
  if (vm.count("taxid-map") && vm.count("taxid")) throw UsageError{"--taxid-map and --taxid exclude each other"};
  std::optional<TaxidMap> map;
  if (vm.count("taxid-map")) {
    map.emplace(TaxidMap::read(taxid_map));
    make.taxid_of = [&map](std::string_view id) { return map->taxid_of(id); };
  }
  if (vm.count("taxid")) {
    const std::uint32_t every = taxid;
    make.taxid_of = [every](std::string_view) { return every; };
  }
  if (vm.count("chunk-size")) make.chunk_residues = parse_size("--chunk-size", "residues", chunk_size);
  // A database that exists already is refused by make_database; a new one needs a writable directory.
  std::error_code ignored;
  if (!std::filesystem::exists(std::filesystem::symlink_status(output, ignored))) check_output_path(output, {input});

  install_interrupt_handlers();
  const MakeDbReport report = make_database(make);
  if (!vm.count("quiet")) {
    const double megabytes = static_cast<double>(report.input_bytes) / 1e6;
    std::fprintf(stderr,
                 "warpsearch makedb: %llu %s sequences, %llu residues, %llu skipped, %zu chunk%s, "
                 "%.2f s, %.1f MB/s -> %s\n",
                 static_cast<unsigned long long>(report.sequences), Alphabet::of(report.type).name(),
                 static_cast<unsigned long long>(report.residues), static_cast<unsigned long long>(report.skipped),
                 report.chunks, report.chunks == 1 ? "" : "s", report.seconds,
                 report.seconds > 0 ? megabytes / report.seconds : 0.0, output.c_str());
  }
  return 0;
}

}  // namespace warpsearch::tools

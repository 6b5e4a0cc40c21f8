// warpsearch dbinfo: what a database holds, and (--verify) whether its files are intact.
#include <boost/program_options.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <stdexcept>

#include "base/interrupt.hpp"
#include "base/text.hpp"
#include "db/database.hpp"
#include "tools/commands.hpp"
#include "tools/common_options.hpp"

namespace po = boost::program_options;

namespace warpsearch::tools {
namespace {

constexpr const char* kDbinfoUsage =
    "usage: warpsearch dbinfo DB [--verify]\n"
    "\n"
    "Describes the database directory DB made by 'warpsearch makedb'.\n";

// "1,234,567": counts of residues are easier to read grouped.
std::string grouped(std::uint64_t value) {
  std::string digits = std::to_string(value);
  for (int at = static_cast<int>(digits.size()) - 3; at > 0; at -= 3) digits.insert(static_cast<std::size_t>(at), ",");
  return digits;
}

void print_histogram(const DatabaseInfo& info) {
  // The stored bins are powers of two; they are printed in groups of two (factors of four), which
  // keeps the table to a handful of lines.
  std::printf("length histogram:\n");
  const auto& bins = info.length_histogram;
  for (std::size_t k = 0; k < bins.size(); k += 2) {
    const std::uint64_t count = bins[k] + (k + 1 < bins.size() ? bins[k + 1] : 0);
    if (count == 0) continue;
    const std::uint64_t low = std::uint64_t{1} << k, high = (std::uint64_t{1} << (k + 2)) - 1;
    const double percent = 100.0 * static_cast<double>(count) / static_cast<double>(info.subjects);
    std::printf("  %12s - %-12s %14s  %5.1f%%\n", grouped(low).c_str(), grouped(high).c_str(), grouped(count).c_str(),
                percent);
  }
}

}  // namespace

int run_dbinfo(int argc, char** argv) {
  std::string path;
  po::options_description options("options");
  options.add_options()("help,h", "show this help")("verify", "re-read every file and check its checksum");
  po::options_description hidden;
  hidden.add_options()("db", po::value(&path));
  po::positional_options_description positional;
  positional.add("db", 1);
  po::variables_map vm;
  if (!parse_command_line(argc, argv, options, kDbinfoUsage, vm, hidden, positional)) return 0;
  if (path.empty()) throw UsageError{"the database directory is missing (DB)"};
  install_interrupt_handlers();

  const Database database = Database::open(path);
  const DatabaseInfo& info = database.info();
  // The path and the manifest's text fields are user text: shown escaped, so that a forged manifest
  // cannot send control sequences to the terminal.
  const auto text = [](const std::string& value) { return printable_excerpt(value, 4096); };
  std::printf("database        %s\n", text(path).c_str());
  std::printf("type            %s\n", database.alphabet().name());
  std::printf("sequences       %s\n", grouped(info.subjects).c_str());
  std::printf("residues        %s\n", grouped(info.residues).c_str());
  std::printf("longest         %s\n", grouped(info.max_length).c_str());
  std::printf("shortest        %s\n", grouped(info.min_length).c_str());
  std::printf("skipped         %s invalid records\n", grouped(info.skipped).c_str());
  std::printf("taxonomy IDs    %s\n", database.has_taxids() ? "stored (makedb --taxid-map / --taxid)" : "none");
  std::printf("chunks          %zu\n", info.chunks.size());
  for (std::size_t i = 0; i < info.chunks.size(); ++i) {
    const ChunkInfo& chunk = info.chunks[i];
    std::printf("  chunk %-5zu   %s sequences, %s residues, lengths %s - %s\n", i, grouped(chunk.subjects).c_str(),
                grouped(chunk.residues).c_str(), grouped(chunk.min_length).c_str(), grouped(chunk.max_length).c_str());
  }
  std::printf("format version  %u\n", info.format_version);
  std::printf("created by      %s\n", text(info.created_by).c_str());
  std::printf("created at      %s\n", text(info.created_at).c_str());
  std::printf("source          %s\n", text(info.source).c_str());
  print_histogram(info);
  if (vm.count("verify")) {
    std::fflush(stdout);
    database.verify();
    std::printf("verify          every file matches its checksum\n");
  }
  // printf() reports nothing: a full disk or a closed pipe would otherwise pass as success.
  if (std::fflush(stdout) != 0 || std::ferror(stdout))
    throw std::runtime_error(std::string("cannot write standard output: ") + std::strerror(errno));
  return 0;
}

}  // namespace warpsearch::tools

// Signals at every phase of every command: SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE while a
// command reads its input, computes (a 100,000-residue query or pair: minutes of work), or writes to a
// pipe nobody reads. Each run must end within a second of the signal with exit status 128 + signal,
// say so on stderr, and leave no output, database or temporary file. Also: temporaries of a run killed
// by SIGKILL are removed by the next run on that path, while a live run's are left alone.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "search/scan_backend.hpp"
#include "tests/catch.hpp"
#include "tests/robustness_support.hpp"
#include "tests/test_support.hpp"

namespace ws = warpsearch;
using namespace ws::test::robustness;
using ws::test::run_warpsearch;
using ws::test::source_path;
using ws::test::TempDir;
using ws::test::write_file;

namespace {

// A pipe whose read end the test keeps; the write end is filled until it holds no more, so that a
// process given it as stdout blocks on its first write.
struct FullPipe {
  int read_end = -1, write_end = -1;
  FullPipe() {
    int fds[2];
    REQUIRE(::pipe2(fds, O_CLOEXEC) == 0);
    read_end = fds[0];
    write_end = fds[1];
    (void)::fcntl(write_end, F_SETPIPE_SZ, 4096);
    const int flags = ::fcntl(write_end, F_GETFL);
    ::fcntl(write_end, F_SETFL, flags | O_NONBLOCK);
    const std::string block(4096, 'x');
    while (::write(write_end, block.data(), block.size()) > 0) {
    }
    ::fcntl(write_end, F_SETFL, flags);
  }
  ~FullPipe() {
    ::close(read_end);
    ::close(write_end);
  }
};

// A pipe the test writes into (feed(), once the reader runs) and keeps open: the child reads it as
// stdin and waits for more.
struct HeldPipe {
  int read_end = -1, write_end = -1;
  HeldPipe() {
    int fds[2];
    REQUIRE(::pipe2(fds, O_CLOEXEC) == 0);
    read_end = fds[0];
    write_end = fds[1];
  }
  void feed(const std::string& data) const {
    REQUIRE(::write(write_end, data.data(), data.size()) == static_cast<ssize_t>(data.size()));
  }
  ~HeldPipe() {
    ::close(read_end);
    ::close(write_end);
  }
};

// True when the process sleeps in a write to a pipe (its kernel wait channel says so).
bool blocked_writing(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/wchan");
  std::string channel;
  std::getline(in, channel);
  return channel.find("pipe_write") != std::string::npos || channel.find("pipe_wait") != std::string::npos;
}

bool wait_until(Process& process, const std::function<bool()>& ready) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline && process.running()) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// The inputs shared by every run.
struct Inputs {
  TempDir dir;
  std::string db, small_queries, long_query, long_target, partial_fasta;
  Inputs() {
    db = dir.file("sample.wsdb");
    REQUIRE(
        run_warpsearch("makedb --quiet " + shell_quoted(source_path("data/uniprot_sample.fa")) + " " + shell_quoted(db))
            .exit_code == 0);
    small_queries = source_path("data/queries.fa");
    std::mt19937_64 rng(53);
    long_query = dir.file("long_query.fa");
    write_file(long_query, fasta_record("long", random_protein(rng, 100000)));
    long_target = dir.file("long_target.fa");
    write_file(long_target, fasta_record("target", random_protein(rng, 40000)));
    // Records enough for makedb to guess the type and start its database, the last one cut short: the
    // reader waits for the rest.
    for (int i = 0; i < 300; ++i) partial_fasta += fasta_record("s" + std::to_string(i), random_protein(rng, 1000));
    partial_fasta += ">last\nMKV";
  }
};

struct Phase {
  const char* command;
  const char* phase;
  // The arguments for a run writing its output (if any) to OUT in the scratch directory.
  std::function<std::vector<std::string>(const Inputs&, const std::string& out)> arguments;
  enum class Input { none, held_pipe } input;
  enum class Output { file, full_pipe } output;
  // Waits until the process is in the phase; false if it never got there.
  std::function<bool(Process&, const std::string& scratch)> reached;
};

bool sleeping_a_while(Process& process, const std::string&) {
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  return process.running();
}

bool computing(Process& process, const std::string&) { return wait_for_cpu_time(process, 0.3); }

bool writing(Process& process, const std::string&) {
  // Where the kernel does not show wait channels, a few seconds: the outputs are small, the work quick,
  // so the process is blocked on the full pipe by then.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  return wait_until(process,
                    [&] { return blocked_writing(process.pid()) || std::chrono::steady_clock::now() > give_up; });
}

std::vector<Phase> phases() {
  using I = Phase::Input;
  using O = Phase::Output;
  return {
      {"makedb", "reading",
       [](const Inputs&, const std::string& out) {
         return std::vector<std::string>{"makedb", "-", out};
       },
       I::held_pipe, O::file, sleeping_a_while},
      {"search", "reading",
       [](const Inputs& in, const std::string& out) {
         return std::vector<std::string>{"search", "--quiet", "--device", "cpu", "-q", "-", "-d", in.db, "-o", out};
       },
       I::held_pipe, O::file, sleeping_a_while},
      {"search", "computing",
       [](const Inputs& in, const std::string& out) {
         return std::vector<std::string>{"search", "--quiet",     "--device", "cpu", "--threads", "2",
                                         "-q",     in.long_query, "-d",       in.db, "-o",        out};
       },
       I::none, O::file, computing},
      {"search", "writing",
       [](const Inputs& in, const std::string&) {
         return std::vector<std::string>{"search", "--quiet", "--device", "cpu", "-q", in.small_queries, "-d", in.db};
       },
       I::none, O::full_pipe, writing},
      {"align", "reading",
       [](const Inputs& in, const std::string& out) {
         return std::vector<std::string>{"align", "--quiet", "--device",     "cpu", "-q",
                                         "-",     "-t",      in.long_target, "-o",  out};
       },
       I::held_pipe, O::file, sleeping_a_while},
      {"align", "computing the last pair",
       [](const Inputs& in, const std::string& out) {
         return std::vector<std::string>{"align",        "--quiet", "--device", "cpu",         "--mode",
                                         "global",       "--cigar", "-q",       in.long_query, "-t",
                                         in.long_target, "-o",      out};
       },
       I::none, O::file, computing},
      {"align", "writing",
       [](const Inputs& in, const std::string&) {
         return std::vector<std::string>{"align", "--quiet",        "--device", "cpu",
                                         "-q",    in.small_queries, "-t",       in.small_queries};
       },
       I::none, O::full_pipe, writing},
      {"dbinfo", "writing",
       [](const Inputs& in, const std::string&) {
         return std::vector<std::string>{"dbinfo", "--verify", in.db};
       },
       I::none, O::full_pipe, writing},
  };
}

const char* signal_name(int signal_number) {
  switch (signal_number) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGQUIT: return "SIGQUIT";
    default: return "SIGPIPE";
  }
}

}  // namespace

TEST_CASE("robustness: every command ends within 1 s of any signal at any phase, leaving nothing",
          "[robustness][cli][signal]") {
  Inputs inputs;
  for (const Phase& phase : phases()) {
    for (const int signal_number : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) {
      DYNAMIC_SECTION(phase.command << " " << phase.phase << ", " << signal_name(signal_number)) {
        TempDir scratch;
        const std::string out = scratch.file("out");
        std::unique_ptr<HeldPipe> input;
        std::unique_ptr<FullPipe> output;
        if (phase.input == Phase::Input::held_pipe) input = std::make_unique<HeldPipe>();
        if (phase.output == Phase::Output::full_pipe) output = std::make_unique<FullPipe>();
        Process process(phase.arguments(inputs, out), scratch.file("run"), input ? input->read_end : -1,
                        output ? output->write_end : -1);
        if (input) input->feed(inputs.partial_fasta);
        const bool reached = phase.reached(process, scratch.path());
        INFO(process.err());
        REQUIRE(reached);
        const auto signalled = std::chrono::steady_clock::now();
        ::kill(process.pid(), signal_number);
        process.wait();
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - signalled).count();
        INFO(process.err());
        CHECK(process.exited());
        CHECK(process.exit_status() == 128 + signal_number);
        CHECK(contains(process.err(), "interrupted by signal " + std::to_string(signal_number)));
        CHECK(seconds < 1.0);
        // No output, no database, no temporary file or directory.
        const auto expected =
            output ? std::vector<std::string>{"run.stderr"} : std::vector<std::string>{"run.stderr", "run.stdout"};
        CHECK(entries(scratch.path()) == expected);
      }
    }
  }
}

TEST_CASE("robustness: temporaries of a killed run are removed by the next run, a live run's are kept",
          "[robustness][cli][signal]") {
  Inputs inputs;
  TempDir scratch;
  const std::string fasta = inputs.partial_fasta + "\n";
  SECTION("makedb") {
    const std::string db = scratch.file("db");
    {
      HeldPipe input;
      Process killed({"makedb", "-", db}, scratch.file("killed"), input.read_end);
      input.feed(inputs.partial_fasta);
      REQUIRE(wait_for_entry(scratch.path(), ".db.tmp-", killed));
      ::kill(killed.pid(), SIGKILL);
      killed.wait();
    }
    HeldPipe input;
    Process live({"makedb", "-", db}, scratch.file("live"), input.read_end);
    input.feed(inputs.partial_fasta);
    const std::string live_prefix = ".db.tmp-" + std::to_string(live.pid()) + "-";
    REQUIRE(wait_for_entry(scratch.path(), live_prefix, live));
    std::size_t temporaries = 0;
    for (const std::string& name : entries(scratch.path())) temporaries += name.rfind(".db.tmp-", 0) == 0;
    // The live run removed the killed run's directory and has its own.
    CHECK(temporaries == 1);
    CHECK(wait_for_entry(scratch.path(), live_prefix, live));
    // A third run on the same path finishes (its input complete) and leaves the live one's alone.
    write_file(scratch.file("in.fa"), fasta);
    CHECK(
        run_warpsearch("makedb --quiet " + shell_quoted(scratch.file("in.fa")) + " " + shell_quoted(scratch.file("db")))
            .exit_code == 0);
    CHECK(wait_for_entry(scratch.path(), live_prefix, live));
    ::kill(live.pid(), SIGTERM);
    live.wait();
    CHECK(live.exit_status() == 143);
  }
  SECTION("search -o") {
    const std::string out = scratch.file("hits.tsv");
    {
      Process killed({"search", "--quiet", "--device", "cpu", "-q", inputs.long_query, "-d", inputs.db, "-o", out},
                     scratch.file("killed"));
      REQUIRE(wait_for_entry(scratch.path(), ".hits.tsv.tmp-", killed));
      ::kill(killed.pid(), SIGKILL);
      killed.wait();
    }
    REQUIRE(run_warpsearch("search --quiet --device cpu -q " + shell_quoted(inputs.small_queries) + " -d " +
                           shell_quoted(inputs.db) + " -o " + shell_quoted(out))
                .exit_code == 0);
    CHECK(entries(scratch.path()) == std::vector<std::string>{"hits.tsv", "killed.stderr", "killed.stdout"});
  }
}

TEST_CASE("robustness: GPU search and align end within 1 s of a signal while computing, leaving nothing",
          "[robustness][cli][signal][gpu]") {
#ifdef WARPSEARCH_HAVE_CUDA
  if (ws::usable_gpu_count() == 0) {
    WARN("no usable GPU: the GPU twin of the signal tests is skipped");
    return;
  }
  Inputs inputs;
  // The GPU aligns the protein pair of the CPU's runs in a fraction of a second, waiting without spending
  // CPU time: two unrelated 1 Mb DNA sequences (whole passes of 10^12 cells) keep it computing well past
  // the CPU time that `computing` waits for.
  std::mt19937_64 rng(59);
  const auto random_dna = [&](std::size_t length) {
    std::uniform_int_distribution<int> pick(0, 3);
    std::string letters(length, 'A');
    for (char& c : letters) c = "ACGT"[pick(rng)];
    return letters;
  };
  const std::string dna_query = inputs.dir.file("dna_query.fa"), dna_target = inputs.dir.file("dna_target.fa");
  write_file(dna_query, fasta_record("q", random_dna(1000000)));
  write_file(dna_target, fasta_record("t", random_dna(1000000)));
  const std::vector<std::pair<const char*, std::function<std::vector<std::string>(const std::string&)>>> runs = {
      {"search",
       [&](const std::string& out) {
         return std::vector<std::string>{"search",          "--quiet", "--device", "gpu", "-q",
                                         inputs.long_query, "-d",      inputs.db,  "-o",  out};
       }},
      {"align", [&](const std::string& out) {
         return std::vector<std::string>{"align", "--quiet", "--device", "gpu",      "--mode", "global", "--cigar",
                                         "-q",    dna_query, "-t",       dna_target, "-o",     out};
       }}};
  for (const auto& [command, arguments] : runs)
    for (const int signal_number : {SIGINT, SIGTERM}) {
      DYNAMIC_SECTION(command << ", " << signal_name(signal_number)) {
        TempDir scratch;
        Process process(arguments(scratch.file("out")), scratch.file("run"));
        const bool reached = computing(process, scratch.path());
        INFO(process.err());
        REQUIRE(reached);
        const auto signalled = std::chrono::steady_clock::now();
        ::kill(process.pid(), signal_number);
        process.wait();
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - signalled).count();
        INFO(process.err());
        CHECK(process.exit_status() == 128 + signal_number);
        CHECK(seconds < 1.0);
        CHECK(entries(scratch.path()) == std::vector<std::string>{"run.stderr", "run.stdout"});
      }
    }
#else
  WARN("built without CUDA: the GPU twin of the signal tests is skipped");
#endif
}

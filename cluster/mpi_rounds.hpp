// Cluster mode's MPI plumbing: the session (ranks, hosts, gather and broadcast that poll, so that a
// waiting rank leaves the cores to working ones and notices signals), the rounds of the protocol
// (cluster/distributed.cpp describes it) and the watchdog. Private to cluster/.
#pragma once

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "base/interrupt.hpp"

namespace warpsearch::distributed {

using Clock = std::chrono::steady_clock;

// Throws std::runtime_error naming the call unless code is MPI_SUCCESS.
void check(int code, const char* call);
// Waits for a request, polling: sleeps grow from 20 us to 2 ms, so a rank that waits for slower ones
// leaves the cores to them, and a signal is noticed within milliseconds.
void wait_polling(MPI_Request& request, const char* call);

// MPI counts are ints: larger messages travel in pieces.
constexpr std::size_t kPiece = std::size_t{1} << 30;

class MpiSession {
 public:
  MpiSession() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
      int provided = 0;
      // Only the main thread calls MPI; the engine's worker threads and the watchdog never do.
      check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    }
    // Errors come back as codes (thrown with context) instead of aborting the process with its
    // temporary output still on disk.
    check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
    MPI_Comm local;
    check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local),
          "MPI_Comm_split_type");
    check(MPI_Comm_rank(local, &local_rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(local, &local_size_), "MPI_Comm_size");
    MPI_Comm_free(&local);
    char name[MPI_MAX_PROCESSOR_NAME];
    int length = 0;
    check(MPI_Get_processor_name(name, &length), "MPI_Get_processor_name");
    host_.assign(name, static_cast<std::size_t>(length));
  }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  // No MPI_Finalize here: after a signal, peers may be gone and finalizing could wait for them; the
  // launcher is ending the job then anyway. Orderly endings call finalize().
  ~MpiSession() = default;

  void finalize() { MPI_Finalize(); }

  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }
  int local_size() const { return local_size_; }
  const std::string& host() const { return host_; }
  std::string name_of(int rank) const { return "rank " + std::to_string(rank) + " of " + std::to_string(size_); }

  // Rank 0 receives every rank's message (its own included), in rank order.
  std::vector<std::string> gather(std::string mine) const {
    std::vector<std::string> all(static_cast<std::size_t>(rank_ == 0 ? size_ : 0));
    if (rank_ != 0) {
      std::uint64_t size = mine.size();
      MPI_Request request;
      check(MPI_Isend(&size, 1, MPI_UINT64_T, 0, kSizeTag, MPI_COMM_WORLD, &request), "MPI_Isend");
      wait_polling(request, "MPI_Isend");
      for (std::size_t at = 0; at < mine.size(); at += kPiece)
        check(MPI_Send(mine.data() + at, static_cast<int>(std::min(kPiece, mine.size() - at)), MPI_BYTE, 0, kDataTag,
                       MPI_COMM_WORLD),
              "MPI_Send");
      return all;
    }
    all[0] = std::move(mine);
    for (int from = 1; from < size_; ++from) {
      std::uint64_t size = 0;
      MPI_Request request;
      check(MPI_Irecv(&size, 1, MPI_UINT64_T, from, kSizeTag, MPI_COMM_WORLD, &request), "MPI_Irecv");
      wait_polling(request, "MPI_Irecv");
      std::string& message = all[static_cast<std::size_t>(from)];
      message.resize(size);
      for (std::size_t at = 0; at < message.size(); at += kPiece)
        check(MPI_Recv(message.data() + at, static_cast<int>(std::min(kPiece, message.size() - at)), MPI_BYTE, from,
                       kDataTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
              "MPI_Recv");
    }
    return all;
  }

  // Rank 0's message to every rank.
  std::string broadcast(std::string message) const {
    std::uint64_t size = message.size();
    MPI_Request request;
    check(MPI_Ibcast(&size, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD, &request), "MPI_Ibcast");
    wait_polling(request, "MPI_Ibcast");
    message.resize(size);
    for (std::size_t at = 0; at < message.size(); at += kPiece)
      check(MPI_Bcast(message.data() + at, static_cast<int>(std::min(kPiece, message.size() - at)), MPI_BYTE, 0,
                      MPI_COMM_WORLD),
            "MPI_Bcast");
    return message;
  }

 private:
  static constexpr int kSizeTag = 1, kDataTag = 2;
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
  std::string host_;
};

// ---------------------------------------------------------------------------------------------
// Rounds

// The job is over because some rank failed; rank 0 has printed why.
class JobFailed : public std::runtime_error {
 public:
  JobFailed() : std::runtime_error("the distributed search failed") {}
};

constexpr char kOk = 'K', kFailed = 'F', kAbort = 'A';

inline std::string ok(std::string body) { return kOk + body; }

// The message of an exception, for the failure report (std::bad_alloc named as such).
std::string describe_failure(const std::exception& error);

// Every rank calls round() at the same points of the protocol. Rank 0 runs decide() on the bodies of
// the ranks' messages, unless one failed; the reply (decide's answer, or an abort carrying the
// failures) reaches every rank, and an abort is thrown as JobFailed everywhere.
std::string round(const MpiSession& mpi, std::string message,
                  const std::function<std::string(std::vector<std::string>&)>& decide);

// ---------------------------------------------------------------------------------------------
// The watchdog

// After SIGINT / SIGTERM, the main thread unwinds at its next check, which a long GPU scan or a blocking
// transfer may delay beyond the launcher's patience (Open MPI sends SIGKILL one second after SIGTERM;
// Slurm after KillWait). The watchdog then does the one thing that matters, removing the temporary
// output, and ends the process.
class Watchdog {
 public:
  explicit Watchdog(std::string rank_name) : rank_name_(std::move(rank_name)), thread_([this] { watch(); }) {}
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  ~Watchdog() {
    stop_.store(true);
    thread_.join();
  }
  // The file to unlink before leaving after a signal (empty: none).
  void guard(const std::string& path) {
    std::lock_guard<std::mutex> lock(mutex_);
    guarded_ = path;
  }
  // For a rank that unwound after a signal.
  void remove_guarded() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!guarded_.empty()) ::unlink(guarded_.c_str());
  }

 private:
  void watch() {
    constexpr auto kTick = std::chrono::milliseconds(10);
    constexpr auto kGrace = std::chrono::milliseconds(150);
    std::optional<Clock::time_point> noticed;
    while (!stop_.load()) {
      std::this_thread::sleep_for(kTick);
      const int signal_number = pending_interrupt();
      if (signal_number == 0) continue;
      if (!noticed) noticed = Clock::now();
      if (Clock::now() - *noticed < kGrace) continue;
      remove_guarded();
      char text[200];
      const int length =
          std::snprintf(text, sizeof text, "warpsearch search: %s: interrupted by signal %d; no output was written\n",
                        rank_name_.c_str(), signal_number);
      if (length > 0) (void)!::write(STDERR_FILENO, text, static_cast<std::size_t>(length));
      std::_Exit(128 + signal_number);
    }
  }

  std::string rank_name_;
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::string guarded_;
  std::thread thread_;
};

}  // namespace warpsearch::distributed

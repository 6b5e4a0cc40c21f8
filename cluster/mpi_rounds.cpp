#include "cluster/mpi_rounds.hpp"

#include <new>

namespace warpsearch::distributed {

void check(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(std::string("MPI: ") + call +
                           " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

void wait_polling(MPI_Request& request, const char* call) {
  auto pause = std::chrono::microseconds(20);
  for (;;) {
    int done = 0;
    check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), call);
    if (done) return;
    throw_if_interrupted();
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(2000));
  }
}

std::string describe_failure(const std::exception& error) {
  if (dynamic_cast<const std::bad_alloc*>(&error)) return "out of memory (std::bad_alloc)";
  return error.what();
}

// Every rank calls round() at the same points of the protocol. Rank 0 runs decide() on the bodies of
// the ranks' messages, unless one failed; the reply (decide's answer, or an abort carrying the
// failures) reaches every rank, and an abort is thrown as JobFailed everywhere.
std::string round(const MpiSession& mpi, std::string message,
                  const std::function<std::string(std::vector<std::string>&)>& decide) {
  std::string reply;
  if (mpi.rank() == 0) {
    std::vector<std::string> bodies = mpi.gather(std::move(message));
    std::string failures;
    for (std::size_t r = 0; r < bodies.size(); ++r) {
      if (!bodies[r].empty() && bodies[r][0] == kOk) {
        bodies[r].erase(0, 1);
        continue;
      }
      failures += "warpsearch search: " + mpi.name_of(static_cast<int>(r)) + " " +
                  (bodies[r].empty() ? std::string("sent an empty message") : bodies[r].substr(1)) + "\n";
    }
    if (failures.empty()) {
      try {
        reply = kOk + decide(bodies);
      } catch (const Interrupted&) {
        throw;
      } catch (const std::exception& e) {
        failures =
            "warpsearch search: " + mpi.name_of(0) + " (" + mpi.host() + "): error: " + describe_failure(e) + "\n";
      }
    }
    if (!failures.empty()) {
      std::fputs(failures.c_str(), stderr);
      std::fputs("warpsearch search: the job stopped; no output was written\n", stderr);
      reply = kAbort;
    }
    mpi.broadcast(reply);
  } else {
    mpi.gather(std::move(message));
    reply = mpi.broadcast({});
  }
  if (reply.empty() || reply[0] != kOk) throw JobFailed();
  return reply.substr(1);
}

}  // namespace warpsearch::distributed

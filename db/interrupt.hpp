// Orderly interruption by SIGINT / SIGTERM.
//
// The handlers only record the signal; long loops call throw_if_interrupted() at safe points, and the
// exception unwinds through the RAII owners of temporary files and directories, which remove them.
// main() maps Interrupted to the exit status 128 + signal, as a shell does for a killed process.
#pragma once

#include <stdexcept>

namespace warpsearch {

class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(int signal_number);
  int signal_number() const noexcept { return signal_number_; }

 private:
  int signal_number_;
};

// Installs the SIGINT and SIGTERM handlers (idempotent). A second signal of the same kind gets the
// default action, so an impatient user can still kill the process at once.
void install_interrupt_handlers();

// The signal received since the handlers were installed (or the last clear_interrupt()), else 0.
int pending_interrupt() noexcept;

// Throws Interrupted when a signal is pending. Cheap (one atomic load): call it in long loops.
void throw_if_interrupted();

// Forgets a pending signal (tests, and programs that handle one interruption and go on).
void clear_interrupt() noexcept;

}  // namespace warpsearch

// Shared by the benchmarks (bench/*.cu): the median of repeated timings and the command-line walk.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace warpsearch::bench {

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Walks argv: next() moves to the next option, value() takes the argument after it (a missing one
// is an error that names the option).
class Arguments {
 public:
  Arguments(int argc, char** argv) : argc_(argc), argv_(argv) {}
  bool next() {
    if (++at_ >= argc_) return false;
    option_ = argv_[at_];
    return true;
  }
  const std::string& option() const { return option_; }
  std::string value() {
    if (at_ + 1 >= argc_) throw std::invalid_argument(option_ + " needs a value");
    return argv_[++at_];
  }

 private:
  int argc_;
  char** argv_;
  int at_ = 0;
  std::string option_;
};

}  // namespace warpsearch::bench

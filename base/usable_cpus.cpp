#include "base/usable_cpus.hpp"

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace warpsearch {
namespace {

std::optional<std::string> read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// CPUs allowed by quota / period; nullopt for no limit ("max", -1) or unreadable values.
std::optional<unsigned> limit_of(double quota, double period) {
  if (!(quota > 0) || !(period > 0)) return std::nullopt;
  return static_cast<unsigned>(std::max(1.0, std::ceil(quota / period)));
}

std::optional<unsigned> tighter(std::optional<unsigned> a, std::optional<unsigned> b) {
  if (!a) return b;
  if (!b) return a;
  return std::min(*a, *b);
}

// The directories from a cgroup to the root of its hierarchy: root + "/a/b", root + "/a", root.
std::vector<std::string> path_to_root(const std::string& root, std::string path) {
  std::vector<std::string> directories;
  while (!path.empty() && path.back() == '/') path.pop_back();
  for (;;) {
    directories.push_back(root + path);
    if (path.empty()) return directories;
    path.erase(path.rfind('/'));
  }
}

}  // namespace

std::optional<unsigned> affinity_cpus() {
  // A mask large enough for any machine this runs on (CPU_ALLOC grows past CPU_SETSIZE's 1024).
  for (int cpus = 1024; cpus <= (1 << 16); cpus *= 4) {
    cpu_set_t* set = CPU_ALLOC(static_cast<std::size_t>(cpus));
    if (set == nullptr) return std::nullopt;
    const std::size_t size = CPU_ALLOC_SIZE(static_cast<std::size_t>(cpus));
    CPU_ZERO_S(size, set);
    if (sched_getaffinity(0, size, set) == 0) {
      const int count = CPU_COUNT_S(size, set);
      CPU_FREE(set);
      return count > 0 ? std::optional<unsigned>(static_cast<unsigned>(count)) : std::nullopt;
    }
    CPU_FREE(set);
    if (errno != EINVAL) return std::nullopt;  // EINVAL: the mask was too small
  }
  return std::nullopt;
}

std::optional<unsigned> cgroup_cpu_limit(const std::string& proc_self_cgroup, const std::string& cgroup_root) {
  std::optional<unsigned> limit;
  std::istringstream lines(proc_self_cgroup);
  for (std::string line; std::getline(lines, line);) {
    // "hierarchy-id:controllers:path"; v2 is "0::path".
    const auto first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1), path = line.substr(second + 1);
    if (controllers.empty()) {
      for (const auto& directory : path_to_root(cgroup_root, path)) {
        const auto text = read_text(directory + "/cpu.max");  // "max 100000" or "150000 100000"
        if (!text) continue;
        std::istringstream fields(*text);
        std::string quota;
        double period = 0;
        fields >> quota >> period;
        if (quota != "max") limit = tighter(limit, limit_of(std::atof(quota.c_str()), period));
      }
      continue;
    }
    std::istringstream names(controllers);
    bool cpu = false;
    for (std::string name; std::getline(names, name, ',');) cpu = cpu || name == "cpu";
    if (!cpu) continue;
    // v1 mounts the cpu controller at cpu, cpu,cpuacct or cpuacct,cpu.
    for (const char* mount : {"/cpu", "/cpu,cpuacct", "/cpuacct,cpu"}) {
      for (const auto& directory : path_to_root(cgroup_root + mount, path)) {
        const auto quota = read_text(directory + "/cpu.cfs_quota_us");
        const auto period = read_text(directory + "/cpu.cfs_period_us");
        if (quota && period) limit = tighter(limit, limit_of(std::atof(quota->c_str()), std::atof(period->c_str())));
      }
    }
  }
  return limit;
}

unsigned usable_cpus() {
  unsigned cpus = affinity_cpus().value_or(std::max(1u, std::thread::hardware_concurrency()));
  if (const auto text = read_text("/proc/self/cgroup"))
    if (const auto limit = cgroup_cpu_limit(*text, "/sys/fs/cgroup")) cpus = std::min(cpus, *limit);
  return std::max(1u, cpus);
}

}  // namespace warpsearch

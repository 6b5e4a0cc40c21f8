// How many CPUs this process may use: the CPUs of its affinity mask (taskset, cpusets, Slurm's
// binding), further capped by the CPU bandwidth quota of its cgroup (containers: `docker --cpus`,
// Kubernetes CPU limits), cgroup v2's cpu.max or v1's cpu.cfs_quota_us / cpu.cfs_period_us, along the
// cgroup's path up to the root. A quota of 1.5 CPUs allows 2 threads (rounded up: the last thread
// still gets half a CPU). std::thread::hardware_concurrency counts every online CPU and sees neither.
//
// Thread safety: the functions read /proc and /sys each time; safe to call from any thread.
#pragma once

#include <optional>
#include <string>

namespace warpsearch {

// At least 1.
unsigned usable_cpus();

// A thread count as the options give it: `requested`, or usable_cpus() for 0.
inline unsigned threads_or_usable_cpus(unsigned requested) { return requested != 0 ? requested : usable_cpus(); }

// The CPUs in this process's affinity mask (sched_getaffinity), or nullopt where it cannot be read.
std::optional<unsigned> affinity_cpus();

// The CPU limit of the cgroup quota, rounded up, or nullopt without a quota. proc_self_cgroup: the
// text of /proc/self/cgroup; cgroup_root: where the cgroup file systems are mounted (/sys/fs/cgroup).
// Parameters for the tests, which build a fake hierarchy.
std::optional<unsigned> cgroup_cpu_limit(const std::string& proc_self_cgroup, const std::string& cgroup_root);

}  // namespace warpsearch

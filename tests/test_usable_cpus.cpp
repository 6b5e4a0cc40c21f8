// usable_cpus(): the affinity mask and the cgroup CPU quota (v2 cpu.max, v1 cfs_quota_us / cfs_period_us),
// read from fake cgroup hierarchies built in a temporary directory.
#include <filesystem>
#include <string>
#include <thread>

#include "base/usable_cpus.hpp"
#include "tests/catch.hpp"
#include "tests/test_support.hpp"

namespace ws = warpsearch;
using ws::test::put_file;
using ws::test::TempDir;

TEST_CASE("usable cpus: cgroup v2 cpu.max, the tightest along the path", "[cpus]") {
  TempDir root;
  const std::string cgroup = "0::/user.slice/job\n";
  CHECK(!ws::cgroup_cpu_limit(cgroup, root.path()));  // no files: no limit
  put_file(root, "user.slice/job/cpu.max", "max 100000\n");
  CHECK(!ws::cgroup_cpu_limit(cgroup, root.path()));
  put_file(root, "user.slice/job/cpu.max", "150000 100000\n");
  CHECK(ws::cgroup_cpu_limit(cgroup, root.path()) == 2u);  // 1.5 CPUs: 2 threads
  put_file(root, "user.slice/job/cpu.max", "400000 100000\n");
  CHECK(ws::cgroup_cpu_limit(cgroup, root.path()) == 4u);
  put_file(root, "user.slice/cpu.max", "50000 100000\n");  // a parent's quota binds its children
  CHECK(ws::cgroup_cpu_limit(cgroup, root.path()) == 1u);
}

TEST_CASE("usable cpus: cgroup v1 cfs quota and period", "[cpus]") {
  TempDir root;
  const std::string cgroup = "4:memory:/x\n3:cpu,cpuacct:/docker/abc\n2:cpuset:/\n";
  put_file(root, "cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "-1\n");
  put_file(root, "cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000\n");
  CHECK(!ws::cgroup_cpu_limit(cgroup, root.path()));
  put_file(root, "cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "250000\n");
  CHECK(ws::cgroup_cpu_limit(cgroup, root.path()) == 3u);
  // A controller line without cpu is not read.
  CHECK(!ws::cgroup_cpu_limit("4:memory:/docker/abc\n", root.path()));
}

TEST_CASE("usable cpus: at least one, at most the affinity mask", "[cpus]") {
  const unsigned cpus = ws::usable_cpus();
  CHECK(cpus >= 1);
  if (const auto affinity = ws::affinity_cpus()) CHECK(cpus <= *affinity);
  CHECK(cpus <= std::max(1u, std::thread::hardware_concurrency()));
}

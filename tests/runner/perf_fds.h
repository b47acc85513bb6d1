// The perf_event file descriptors this process holds, every thread's: what
// a test reads to see which counter groups are open (the /proc/self/fd links
// of perf_event_open(2) fds read anon_inode:[perf_event]).
#ifndef PMUBENCH_TESTS_RUNNER_PERF_FDS_H_
#define PMUBENCH_TESTS_RUNNER_PERF_FDS_H_

#include <dirent.h>
#include <unistd.h>

#include <string>

namespace pmubench::testing {

inline int OpenPerfFds() {
  int count = 0;
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  while (dirent* entry = readdir(dir)) {
    const std::string path = std::string("/proc/self/fd/") + entry->d_name;
    char target[128] = {};
    const ssize_t n = readlink(path.c_str(), target, sizeof(target) - 1);
    if (n > 0 && std::string(target, n) == "anon_inode:[perf_event]") ++count;
  }
  closedir(dir);
  return count;
}

}  // namespace pmubench::testing

#endif  // PMUBENCH_TESTS_RUNNER_PERF_FDS_H_

// Reading the small one-line files of sysfs and procfs
// (/sys/bus/event_source/devices/*/type, /proc/sys/kernel/perf_event_paranoid).
#ifndef PMUBENCH_FRAMEWORK_PERF_SYSTEM_SYSFS_FILE_H_
#define PMUBENCH_FRAMEWORK_PERF_SYSTEM_SYSFS_FILE_H_

#include <optional>
#include <string>

namespace pmubench::perf {

// The file's content without leading or trailing whitespace (sysfs ends
// values with a newline); nullopt when the file cannot be opened or read.
std::optional<std::string> ReadTrimmedFile(const std::string& path);

}  // namespace pmubench::perf

#endif  // PMUBENCH_FRAMEWORK_PERF_SYSTEM_SYSFS_FILE_H_

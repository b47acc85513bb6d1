// What the end-to-end tests read back from a run: its captured streams,
// files it wrote, and the columns of its console lines; and the private
// directories and the full disk they write to.
#ifndef PMUBENCH_TESTS_RUNNER_TEXT_OF_RUNS_H_
#define PMUBENCH_TESTS_RUNNER_TEXT_OF_RUNS_H_

#include <dirent.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace pmubench::testing {

// A finished subprocess: its exit code and what it wrote.
struct Result {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// The whole file, or "" when it cannot be read.
inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The column just past the end of each space-separated field of `line`.
inline std::vector<size_t> FieldEnds(const std::string& line) {
  std::vector<size_t> ends;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] != ' ' && (i + 1 == line.size() || line[i + 1] == ' ')) {
      ends.push_back(i + 1);
    }
  }
  return ends;
}

// Mounts a 4 KiB tmpfs (a disk soon full) on the existing directory `dir`:
// "" when mounted, else why not, with `dir` removed (mounting needs
// CAP_SYS_ADMIN: the caller skips). Unmount with umount(2).
inline std::string MountTinyTmpfs(const std::string& dir) {
  if (mount("tmpfs", dir.c_str(), "tmpfs", 0, "size=4k") == 0) return "";
  const int error = errno;
  rmdir(dir.c_str());
  return std::string("cannot mount a small tmpfs (") + strerror(error) +
         "): needs CAP_SYS_ADMIN";
}

// The names in `dir` (not "." and ".."), in readdir order.
inline std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    closedir(d);
  }
  return names;
}

// A new private directory (mkdtemp(3)): `prefix` and six random characters.
// "" when it cannot be made.
inline std::string MakePrivateDir(const std::string& prefix) {
  std::string pattern = prefix + "XXXXXX";
  return mkdtemp(pattern.data()) != nullptr ? pattern : "";
}

// Removes `dir` and the files in it (the tests make no subdirectories).
inline void RemoveDirAndFiles(const std::string& dir) {
  for (const std::string& name : ListDir(dir)) {
    unlink((dir + "/" + name).c_str());
  }
  rmdir(dir.c_str());
}

// The numeric field `field` of the first JSON run named `name` in Google
// Benchmark's JSON, or NaN.
inline double JsonRunField(const std::string& json, const std::string& name,
                           const std::string& field) {
  const size_t run = json.find("\"name\": \"" + name + "\"");
  if (run == std::string::npos) return NAN;
  const size_t end = json.find('}', run);
  const size_t at = json.find("\"" + field + "\": ", run);
  if (at == std::string::npos || at > end) return NAN;
  return std::strtod(json.c_str() + at + field.size() + 4, nullptr);
}

}  // namespace pmubench::testing

#endif  // PMUBENCH_TESTS_RUNNER_TEXT_OF_RUNS_H_

#include "framework/runner/output/output_file.h"

#include <cstdlib>
#include <optional>
#include <string_view>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "framework/runner/cli/command_line.h"

namespace pmubench {
namespace {

constexpr char kOutFlag[] = "--benchmark_out=";

}  // namespace

std::string ResolveOutputPath(const std::string& path) {
  const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (path.empty() || path.front() == '/' || cwd == nullptr || cwd[0] == '\0') {
    return path;
  }
  return absl::StrCat(cwd, "/", path);
}

absl::Status OutputFile::Prepare(std::vector<char*>* args) {
  const int argc = static_cast<int>(args->size());
  const std::optional<std::string> requested =
      FlagOrEnv(argc, args->data(), "benchmark_out");
  if (!requested || requested->empty()) return absl::OkStatus();
  const std::string resolved = ResolveOutputPath(*requested);
  if (absl::Status s = file_.Open(resolved); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--benchmark_out=", *requested,
        resolved == *requested ? "" : " (in $BUILD_WORKING_DIRECTORY)", ": ",
        s.message()));
  }
  // Every occurrence, and one more for the environment's default.
  rewritten_arg_ = absl::StrCat(kOutFlag, "/dev/null");
  bool replaced = false;
  for (char*& arg : *args) {
    if (arg != nullptr && absl::StartsWith(arg, kOutFlag)) {
      arg = rewritten_arg_.data();
      replaced = true;
    }
  }
  if (!replaced) args->push_back(rewritten_arg_.data());

  const std::string format =
      FlagOrEnv(argc, args->data(), "benchmark_out_format").value_or("json");
  std::unique_ptr<benchmark::BenchmarkReporter> inner =
      ReporterForFormat(format);
  if (format == "json" && json_wrapper_)
    inner = json_wrapper_(std::move(inner));
  reporter_ = std::make_unique<CapturedReporter>(
      std::move(inner), format == "json",
      [this](std::string_view text) { content_.append(text); });
  return absl::OkStatus();
}

absl::StatusOr<bool> OutputFile::Commit(bool allow_empty) {
  if (!active() || (reporter_->runs() == 0 && !allow_empty)) return false;
  if (absl::Status s = file_.Commit(content_); !s.ok()) {
    return absl::InternalError(absl::StrCat("--benchmark_out: ", s.message(),
                                            "; no file was written"));
  }
  return true;
}

}  // namespace pmubench

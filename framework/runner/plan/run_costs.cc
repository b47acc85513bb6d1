#include "framework/runner/plan/run_costs.h"

#include <cctype>
#include <cstdlib>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "framework/runner/plan/case_seconds.h"

namespace pmubench::internal {
namespace {

// A JSON value, as much of one as a run's file needs: strings, numbers,
// objects and arrays (true, false and null are read as kOther).
struct Value {
  enum Kind { kOther, kString, kNumber, kObject, kArray } kind = kOther;
  std::string text;
  double number = 0;
  std::vector<std::pair<std::string, Value>> members;
  std::vector<Value> items;

  const Value* Get(std::string_view key) const {
    for (const auto& [k, v] : members) {
      if (k == key) return &v;
    }
    return nullptr;
  }
};

// A recursive-descent reader over RFC 8259 JSON; nullopt on any error.
class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  std::optional<Value> Document() {
    std::optional<Value> value = Parse(0);
    Space();
    if (!value.has_value() || at_ != text_.size()) return std::nullopt;
    return value;
  }

 private:
  void Space() {
    while (at_ < text_.size() &&
           std::isspace(static_cast<unsigned char>(text_[at_]))) {
      ++at_;
    }
  }
  bool Eat(char c) {
    Space();
    if (at_ < text_.size() && text_[at_] == c) return ++at_, true;
    return false;
  }

  std::optional<std::string> String() {
    if (!Eat('"')) return std::nullopt;
    std::string out;
    while (at_ < text_.size() && text_[at_] != '"') {
      char c = text_[at_++];
      if (c == '\\') {
        if (at_ >= text_.size()) return std::nullopt;
        c = text_[at_++];
        if (c == 'u') {  // kept as written: names and units are ASCII
          out += "\\u";
          continue;
        }
        c = c == 'n' ? '\n' : c == 't' ? '\t' : c;
      }
      out += c;
    }
    if (at_ >= text_.size()) return std::nullopt;
    ++at_;
    return out;
  }

  std::optional<Value> Composite(int depth, char close) {
    Value value;
    value.kind = close == '}' ? Value::kObject : Value::kArray;
    if (Eat(close)) return value;
    do {
      std::string key;
      if (close == '}') {
        std::optional<std::string> k = String();
        if (!k.has_value() || !Eat(':')) return std::nullopt;
        key = *std::move(k);
      }
      std::optional<Value> item = Parse(depth + 1);
      if (!item.has_value()) return std::nullopt;
      if (close == '}') {
        value.members.emplace_back(std::move(key), *std::move(item));
      } else {
        value.items.push_back(*std::move(item));
      }
    } while (Eat(','));
    if (!Eat(close)) return std::nullopt;
    return value;
  }

  std::optional<Value> Parse(int depth) {
    Space();
    if (depth > 64 || at_ >= text_.size()) return std::nullopt;
    const char c = text_[at_];
    if (c == '{' || c == '[') {
      ++at_;
      return Composite(depth, c == '{' ? '}' : ']');
    }
    Value value;
    if (c == '"') {
      std::optional<std::string> s = String();
      if (!s.has_value()) return std::nullopt;
      value.kind = Value::kString;
      value.text = *std::move(s);
      return value;
    }
    for (std::string_view word : {"true", "false", "null"}) {
      if (text_.substr(at_, word.size()) == word) {
        at_ += word.size();
        return value;
      }
    }
    const std::string rest(text_.substr(at_, 64));
    char* end = nullptr;
    value.number = std::strtod(rest.c_str(), &end);
    if (end == rest.c_str()) return std::nullopt;
    at_ += static_cast<size_t>(end - rest.c_str());
    value.kind = Value::kNumber;
    return value;
  }

  std::string_view text_;
  size_t at_ = 0;
};

// Seconds per `unit` (Google Benchmark's time_unit), or nullopt.
std::optional<double> SecondsPer(const Value* unit) {
  const std::string name = unit == nullptr ? "ns" : unit->text;
  if (name == "ns") return 1e-9;
  if (name == "us") return 1e-6;
  if (name == "ms") return 1e-3;
  if (name == "s") return 1.0;
  return std::nullopt;
}

// One run's cost: its measured seconds (iterations x real_time) and, where
// the row has it, its case's whole seconds (case_seconds.h).
struct RunSeconds {
  std::string name;
  double measured = 0;
  std::optional<double> whole;
};

// One run's seconds, or nullopt for an aggregate or a run that lacks what a
// cost needs.
std::optional<RunSeconds> RunCost(const Value& run) {
  const Value* type = run.Get("run_type");
  if (type != nullptr && type->text == "aggregate") return std::nullopt;
  const Value* name = run.Get("run_name");
  if (name == nullptr) name = run.Get("name");
  const Value* iterations = run.Get("iterations");
  const Value* real_time = run.Get("real_time");
  const std::optional<double> per = SecondsPer(run.Get("time_unit"));
  if (name == nullptr || iterations == nullptr || real_time == nullptr ||
      !per.has_value() || iterations->kind != Value::kNumber ||
      real_time->kind != Value::kNumber) {
    return std::nullopt;
  }
  RunSeconds cost{name->text, iterations->number * real_time->number * *per,
                  std::nullopt};
  const Value* whole = run.Get(kCaseSecondsField);
  if (whole != nullptr && whole->kind == Value::kNumber && whole->number >= 0) {
    cost.whole = whole->number;
  }
  return cost;
}

}  // namespace

absl::StatusOr<std::map<std::string, double>> ParseRunCosts(
    std::string_view json, std::string_view path) {
  const std::optional<Value> doc = Reader(json).Document();
  const Value* context = doc.has_value() ? doc->Get("context") : nullptr;
  const Value* runs = doc.has_value() ? doc->Get("benchmarks") : nullptr;
  std::map<std::string, double> costs;
  std::map<std::string, double> whole;  // every repetition row carries it
  if (context != nullptr && context->kind == Value::kObject &&
      runs != nullptr && runs->kind == Value::kArray) {
    for (const Value& run : runs->items) {
      const std::optional<RunSeconds> cost = RunCost(run);
      if (!cost.has_value()) continue;
      costs[cost->name] += cost->measured;
      if (cost->whole.has_value()) whole[cost->name] = *cost->whole;
    }
  }
  for (const auto& [name, seconds] : whole) costs[name] = seconds;
  if (costs.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--pmubench_shard_costs=", std::string(path),
        ": not a run (a JSON object with \"context\" and \"benchmarks\" "
        "holding at least one run with iterations and real_time); give the "
        "file a previous run wrote with --benchmark_out=FILE "
        "--benchmark_out_format=json"));
  }
  return costs;
}

}  // namespace pmubench::internal

// Expensive benchmark inputs, built once per case instead of once per batch.
//
// Google Benchmark calls a case function once per batch (several times per
// case while it sizes the batch), so setup inside the function runs again on
// every call. That is harmless for small inputs, but a 256 MiB pointer-chasing
// ring or a million-entry std::map takes a noticeable fraction of a second to
// build. CachedInput builds such an input on the first call and hands the same
// object to the following calls with the same key.
//
//   const Ring& ring = CachedInput<Ring>(bytes, [&] { return Ring(bytes); });
//
// One input is held at a time for the whole binary: asking for a different
// type or key frees the previous input before building the next, so peak
// memory stays at the largest single input.
//
// NOTE: not thread-safe. Use it from cases that run on one thread only.

#ifndef PMUBENCH_BENCHES_CACHED_INPUT_H_
#define PMUBENCH_BENCHES_CACHED_INPUT_H_

#include <cstdint>
#include <memory>
#include <typeinfo>
#include <utility>

namespace pmubench::benches {

namespace internal {

struct CachedInputSlot {
  const std::type_info* type = nullptr;
  int64_t key = 0;
  std::shared_ptr<const void> value;
};

// An inline function's static is one object across translation units.
inline CachedInputSlot& TheCachedInputSlot() {
  static CachedInputSlot slot;
  return slot;
}

}  // namespace internal

// Returns the T that `make()` built for (T, key), calling `make` only when the
// previous call asked for another type or key. The reference stays valid
// until the next call with a different type or key.
template <typename T, typename Make>
const T& CachedInput(int64_t key, Make&& make) {
  internal::CachedInputSlot& slot = internal::TheCachedInputSlot();
  if (slot.type != nullptr && *slot.type == typeid(T) && slot.key == key) {
    return *static_cast<const T*>(slot.value.get());
  }
  slot.type = nullptr;
  slot.value.reset();  // Free the old input first: peak memory is one input.
  auto built = std::make_shared<const T>(std::forward<Make>(make)());
  slot.value = built;
  slot.type = &typeid(T);
  slot.key = key;
  return *built;
}

}  // namespace pmubench::benches

#endif  // PMUBENCH_BENCHES_CACHED_INPUT_H_

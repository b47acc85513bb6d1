// Pure counter arithmetic, kept apart from the syscalls so it is tested
// everywhere: a counter that is quietly 5% low looks exactly like a correct
// one.
#ifndef PMUBENCH_FRAMEWORK_PERF_COUNTING_COUNTER_MATH_H_
#define PMUBENCH_FRAMEWORK_PERF_COUNTING_COUNTER_MATH_H_

#include <cstdint>

namespace pmubench::perf {

// Sign-extends the low `width` bits of a raw rdpmc value (perf_event_mmap_page
// pmc_width). Arithmetic right shift of a signed value is well defined in
// C++20; a logical shift would report 2^width too much. Branch-free: a width
// of 0 or 64 masks the shift to 0, which leaves the value as it is.
inline int64_t SignExtend(uint64_t value, uint16_t width) {
#if defined(__aarch64__)
  // neg, lsl, asr: LSLV and ASRV shift by the amount modulo 64 (Arm ARM), so
  // -width is 64 - width, and only the low 6 bits of `width` matter, so the
  // register's upper bits need no clearing. (g++ 12 adds an `and` for the
  // mask and another to zero-extend the page's volatile 16-bit field.)
  uint64_t out;
  uint16_t shift = width;
  asm("neg %w[s], %w[s]\n\t"
      "lsl %[o], %[v], %x[s]\n\t"
      "asr %[o], %[o], %x[s]"
      : [o] "=&r"(out), [s] "+r"(shift)
      : [v] "r"(value));
  return static_cast<int64_t>(out);
#else
  const unsigned shift = (64u - width) & 63u;
  return static_cast<int64_t>(value << shift) >> shift;
#endif
}

// Time since the page's time_offset, from a TSC value (cap_user_time), as the
// perf_event_mmap_page comment computes it without overflowing 64 bits:
//   quot = cyc >> shift; rem = cyc & ((1 << shift) - 1);
//   delta = offset + quot * mult + ((rem * mult) >> shift);
inline uint64_t TscToPerfTime(uint64_t cyc, uint16_t time_shift,
                              uint32_t time_mult, uint64_t time_offset) {
  const uint64_t quot = cyc >> time_shift;
  const uint64_t rem = cyc & ((uint64_t{1} << time_shift) - 1);
  return time_offset + quot * time_mult + ((rem * time_mult) >> time_shift);
}

// b - a, or 0 when b < a (a counter that went backwards is a read error,
// never a huge unsigned count).
inline uint64_t SaturatingSub(uint64_t b, uint64_t a) {
  return b >= a ? b - a : 0;
}

// Scales a multiplexed count to the whole enabled time (perf stat's
// "scaled from N%"). A count never running is 0; a fully running one (also
// when no time passed at all) is exact.
inline double ScaleCount(uint64_t count, uint64_t enabled, uint64_t running) {
  if (running >= enabled) return static_cast<double>(count);
  if (running == 0) return 0.0;
  return static_cast<double>(count) *
         (static_cast<double>(enabled) / static_cast<double>(running));
}

// Fraction of the enabled time the counters were on the PMU, in [0, 1];
// 1 when no time passed.
inline double RunningFraction(uint64_t enabled, uint64_t running) {
  if (enabled == 0) return 1.0;
  if (running >= enabled) return 1.0;
  return static_cast<double>(running) / static_cast<double>(enabled);
}

// Subtracts the calibrated cost of an empty measurement, never below zero.
inline double SubtractOverhead(double value, double overhead) {
  return value > overhead ? value - overhead : 0.0;
}

}  // namespace pmubench::perf

#endif  // PMUBENCH_FRAMEWORK_PERF_COUNTING_COUNTER_MATH_H_

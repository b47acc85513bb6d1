"""scripts/pmu-vm: runs pmubench's arm64 build on a real Linux kernel with
an emulated PMUv3 (qemu-system-aarch64 -cpu max -icount shift=0).

Pure logic (console protocol, initramfs writer, ELF closure, gtest counts)
sits in modules of their own so tests/python can exercise it without QEMU.
"""

# denywrite: build the patched kernel, the CLI and the guest, and test them
# in QEMU.  See README.md.  Everything built lands in build/ (git-ignored).

B := build
KSRC := $(B)/linux
KOBJ := $(B)/obj
STOCK_SRC := $(B)/linux-stock
STOCK_OBJ := $(B)/obj-stock
BZIMAGE := $(KOBJ)/arch/x86/boot/bzImage
STOCK_BZIMAGE := $(STOCK_OBJ)/arch/x86/boot/bzImage
INITRD := $(B)/initramfs.cpio.gz
CLI := policy-tool/denywritectl
FRAGMENTS := qemu/kernel.config qemu/debug.config qemu/denywrite.config
STOCK_FRAGMENTS := qemu/kernel.config qemu/debug.config

export QEMU_ACCEL ?= tcg

.PHONY: all deps kernel kernel-stock cli guest-progs bench-progs initramfs \
	run test test-stock check-host checkpatch bench bench-patched clean

all: kernel initramfs

deps:
	@scripts/deps.sh

kernel: deps
	@scripts/prepare-tree.sh $(KSRC) patches
	@scripts/build-kernel.sh $(KSRC) $(KOBJ) $(FRAGMENTS)

kernel-stock: deps
	@scripts/prepare-tree.sh $(STOCK_SRC)
	@scripts/build-kernel.sh $(STOCK_SRC) $(STOCK_OBJ) $(STOCK_FRAGMENTS)

cli: deps
	@$(MAKE) -s -C policy-tool

guest-progs: deps
	@$(MAKE) -s -C tests/guest

bench-progs: deps
	@$(MAKE) -s -C tests/bench

initramfs: cli guest-progs bench-progs
	@$(MAKE) -s $(INITRD)

$(INITRD): scripts/mkinitramfs.sh qemu/init qemu/guest-suites.sh qemu/demo.sh \
		$(wildcard tests/guest/*.sh) $(CLI) $(wildcard tests/guest/bin/*) \
		tests/bench/install.sh tests/bench/suite.sh $(wildcard tests/bench/bin/*)
	@echo "initramfs: $@"
	@scripts/mkinitramfs.sh $@

# Host unit tests: fast, no VM.
check-host: deps
	@$(MAKE) -s -C policy-tool check

# Boot the patched kernel with denywrite: a shell on the serial console, or
# a scripted demonstration when stdin is not a terminal.
run: kernel initramfs
	@if [ -t 0 ]; then \
		scripts/boot.sh --interactive $(BZIMAGE) $(INITRD) "lsm=denywrite quiet dwsuite=shell"; \
	else \
		scripts/boot.sh $(BZIMAGE) $(INITRD) $(B)/run "lsm=denywrite dwsuite=demo" && \
		scripts/report.py --demo $(B)/run; \
	fi

test: deps
	@scripts/test.sh all

test-stock: deps
	@scripts/test.sh stock

checkpatch: kernel
	@scripts/checkpatch.sh $(KSRC)

# Benchmarks, not part of `make test` (README.md, "Performance"): build
# the two benchmark kernels, boot every configuration, print the table
# (build/bench.txt, build/bench.csv).  bench-patched reruns only the
# patched kernel's configurations against the saved stock results.
bench: deps
	@scripts/bench.sh

bench-patched: deps
	@scripts/bench.sh --patched-only

clean:
	rm -rf $(B)
	$(MAKE) -s -C policy-tool clean
	$(MAKE) -s -C tests/guest clean
	$(MAKE) -s -C tests/bench clean

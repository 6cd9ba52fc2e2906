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
FSIMAGE := $(B)/dwfs.img
CLI := policy-tool/denywritectl
FRAGMENTS := qemu/kernel.config qemu/debug.config qemu/ima.config \
	qemu/denywrite.config
STOCK_FRAGMENTS := qemu/kernel.config qemu/debug.config qemu/ima.config
# The KCSAN kernel (suite kcsan): no KASAN, which KCSAN excludes.
KCSAN_OBJ := $(B)/obj-kcsan
KCSAN_FRAGMENTS := qemu/kernel.config qemu/denywrite.config qemu/kcsan.config
# The Debian guest's kernel: no KASAN or lockdep, so systemd boots in
# reasonable time under TCG (README.md, "On a real system").
DEBIAN_OBJ := $(B)/obj-debian
DEBIAN_FRAGMENTS := qemu/kernel.config qemu/denywrite.config qemu/systemd.config

# The distribution kernel (docs/distro.md): Debian's own configuration of
# 6.12 plus denywrite (build/obj-distro); the package of make kernel-deb
# lands in build/kernel-deb.
DISTRO_OBJ := $(B)/obj-distro
KERNEL_DEB := $(B)/kernel-deb
# The Debian guests' releases (docs/debian-guest.md): Debian 12 in
# build/debian, Debian 13 in build/debian-trixie.  make debian-vm and
# make test-debian make and test each of DEBIAN; make run-debian boots
# the first.  make test-debian DEBIAN=trixie tests one.
DEBIAN ?= bookworm trixie
debian_dir = $(if $(filter bookworm,$(1)),$(B)/debian,$(B)/debian-$(1))
DEBIAN_DIRS := $(foreach r,$(DEBIAN),$(call debian_dir,$(r)))

export QEMU_ACCEL ?= tcg

.PHONY: all deps kernel kernel-stock kernel-kcsan cli install deb headers guest-progs bench-progs \
	initramfs run test test-stock test-mutants check-host checkpatch series check-series \
	bench bench-patched bench-distro clean \
	kernel-debian debian-vm test-debian run-debian golden \
	deps-distro kernel-distro kernel-deb

all: kernel initramfs

# Everything make test needs: the kernel's, QEMU's and the guest's
# packages (scripts/deps.sh), and the CLI's for its host tests, its
# static analysis and its package (policy-tool/deps.sh).
deps:
	@scripts/deps.sh
	@policy-tool/deps.sh check analyze deb

kernel: deps
	@scripts/prepare-tree.sh $(KSRC) patches
	@scripts/build-kernel.sh $(KSRC) $(KOBJ) $(FRAGMENTS)

kernel-stock: deps
	@scripts/prepare-tree.sh $(STOCK_SRC)
	@scripts/build-kernel.sh $(STOCK_SRC) $(STOCK_OBJ) $(STOCK_FRAGMENTS)

kernel-kcsan: deps
	@scripts/prepare-tree.sh $(KSRC) patches
	@scripts/build-kernel.sh $(KSRC) $(KCSAN_OBJ) $(KCSAN_FRAGMENTS)

# The CLI needs only gcc, make, libcap-dev and nettle-dev
# (policy-tool/deps.sh), never
# the kernel's build dependencies.  cli builds it static, for the guest's
# initramfs; install installs a dynamic one (it calls NSS), with PREFIX
# (default /usr) and DESTDIR; deb builds
# build/deb/denywrite-tools_<version>_amd64.deb.
cli:
	@policy-tool/deps.sh build
	@$(MAKE) -s -C policy-tool STATIC=-static

install:
	@policy-tool/deps.sh build
	@$(MAKE) -s -C policy-tool install

deb:
	@policy-tool/deps.sh deb
	@policy-tool/dist/mkdeb.sh $(B)/deb

# The guest's programs include the selftests of the series, built from the
# patched tree with its uapi headers.
headers: deps
	@scripts/prepare-tree.sh $(KSRC) patches
	@$(MAKE) -s -C $(KSRC) O=$(abspath $(KOBJ)) headers

guest-progs: headers
	@$(MAKE) -s -C tests/guest

bench-progs: deps
	@$(MAKE) -s -C tests/bench

initramfs: cli guest-progs bench-progs
	@$(MAKE) -s $(INITRD) $(FSIMAGE)

# The guest's content is the list in qemu/initramfs.list: a listed file that
# is missing fails the build (no rule to make it), and editing the list
# (removing a file from the guest) rebuilds the image.
INITRD_LIST := qemu/initramfs.list
INITRD_FILES := $(shell sed 's/\#.*//' $(INITRD_LIST) | awk 'NF { print $$1 }')

$(INITRD): scripts/mkinitramfs.sh $(INITRD_LIST) $(INITRD_FILES)
	@echo "initramfs: $@"
	@scripts/mkinitramfs.sh $@ $(INITRD_LIST)

# The guest's disk (scripts/mkfsimage.sh): an ext4 image holding the
# list's /usr/lib files, for the matrix on ext4 and through overlayfs.
FSIMAGE_FILES := $(shell sed 's/\#.*//' $(INITRD_LIST) | awk '$$2 ~ /^\/usr\/lib\// { print $$1 }')

$(FSIMAGE): scripts/mkfsimage.sh $(INITRD_LIST) $(FSIMAGE_FILES)
	@echo "fs image: $@"
	@scripts/mkfsimage.sh $@ $(INITRD_LIST)

# Host unit tests: fast, no VM, none of the kernel's packages.
check-host:
	@policy-tool/deps.sh check
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

# The securityfs files' real output, captured in the guest into
# tests/golden/ (tests/golden/README.md): after a change of their format,
# review "git diff tests/golden" and commit it with the change.
golden: kernel initramfs
	@scripts/golden.sh

test-stock: deps
	@scripts/test.sh stock

# Deliberately broken kernels and tools, each of which the tests must
# fail (scripts/mutants.sh; README.md, "Tests"); not part of make test.
test-mutants: deps
	@FRAGMENTS="$(FRAGMENTS)" scripts/mutants.sh

# The Debian guests' kernel, with systemd's options (docs/debian-guest.md).
kernel-debian: deps
	@scripts/prepare-tree.sh $(KSRC) patches
	@scripts/build-kernel.sh $(KSRC) $(DEBIAN_OBJ) $(DEBIAN_FRAGMENTS)

# Debian's configuration of 6.12 with denywrite, and as a Debian package
# (docs/distro.md).
deps-distro:
	@scripts/deps.sh --distro

kernel-distro: deps-distro
	@scripts/prepare-tree.sh $(KSRC) patches
	@scripts/build-distro-kernel.sh patched $(KSRC) $(DISTRO_OBJ)

kernel-deb: deps-distro
	@scripts/prepare-tree.sh $(KSRC) patches
	@scripts/build-distro-kernel.sh patched $(KSRC) $(DISTRO_OBJ) --deb $(KERNEL_DEB)

debian-vm: kernel-debian kernel-deb
	@$(foreach r,$(DEBIAN),scripts/debian-vm.sh --release $(r) \
		$(call debian_dir,$(r)) $(KERNEL_DEB) &&) true

test-debian: debian-vm
	@scripts/test-debian.sh test $(DEBIAN_DIRS)

run-debian: debian-vm
	@scripts/test-debian.sh run $(firstword $(DEBIAN_DIRS))

checkpatch: kernel
	@scripts/checkpatch.sh $(KSRC)

# The patch series as it is sent (build/series/), and what a maintainer
# does with it: git am on a fresh tree, a build after each patch,
# checkpatch and get_maintainer on each (README.md, "The series").
series: deps
	@scripts/make-series.sh $(B)/series

check-series: series
	@scripts/check-series.sh $(B)/series

# Benchmarks, not part of `make test` (README.md, "Performance"): build
# the two benchmark kernels, boot every configuration, print the table
# (build/bench.txt, build/bench.csv).  bench-patched reruns only the
# patched kernel's configurations against the saved stock results.
bench: deps
	@scripts/bench.sh

bench-patched: deps
	@scripts/bench.sh --patched-only

# The same on Debian's configuration, stock against patched, with and
# without 200 background processes (docs/distro.md): build/bench-distro.txt.
# The guest's programs need the patched tree's uapi headers (headers).
bench-distro: deps-distro headers
	@scripts/bench.sh --distro

clean:
	rm -rf $(B)
	$(MAKE) -s -C policy-tool clean
	$(MAKE) -s -C tests/guest clean
	$(MAKE) -s -C tests/bench clean

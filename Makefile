# ptelab: one build for the VMM (hosted C), the guest kernel for x86_64 and
# arm64 (freestanding C + newlib) and the host test runner (ASan + UBSan).
#
#   make            build everything (installs missing Debian packages as root)
#   make run        build the VMM and one guest, run the demo (ARCH=x86_64|arm64,
#                   default x86_64)
#   make test       build and run every test
#   make bench      build and run the benchmarks
#   make format     reformat the sources with clang-format

ARCH ?= x86_64
# Every core by default: a clean `make test` compiles five builds (VMM,
# two guests, sanitized host runners) before it tests anything.
MAKEFLAGS += -j$(shell nproc)
GUEST_ARCHES := x86_64 arm64
B := build

DEB_PKGS := libfdt-dev device-tree-compiler newlib-source qemu-system-x86 qemu-system-arm \
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross linux-libc-dev gnuplot-nox parallel \
	openssh-server rsync xz-utils chromium
DEPS := $(B)/.deps-ok

# Quiet by default: one "CC file" line per step; V=1 prints whole commands.
ifeq ($(V),1)
Q :=
quiet = @true
else
Q := @
quiet = @printf '  %-7s %s\n' $(1) $(2)
endif

WARN := -Wall -Wextra -Werror
HOSTCC ?= gcc
HOST_CFLAGS := -O2 -g -std=gnu11 $(WARN) -MMD -MP
# Who may include what, enforced by the include paths (a backward include
# does not compile; tests/build/includes.sh checks it): the VMM sees its
# own headers and include/ptelab/ (the ABI and the command-line grammar),
# nothing of the guest; the guest, mm/ and arch/ see include/ but never
# vmm/. cmdline/, the grammar's code, is neither side's: both build it,
# and it sees include/ alone. Only tests see every side.
VMM_INC := -Ivmm -Iinclude -I$(B)/gen
CMDLINE_INC := -Iinclude
TEST_HOST_INC := $(VMM_INC) -Iguest/include -Imm -Icore/include -Itests
HOST_INC = $(VMM_INC)
# The kernel's rooms, bottom up, each seeing its own headers and those of
# the rooms below it (every build of kernel code, guest or host, adds
# its arch's include directories and include/ to these): core/ (panic,
# printing, time, machine, SMP, locks), mm/ on the core, kernel/ (user
# processes) on mm, guest/ (the application: commands, benches, demos)
# on all of them. arch/ implements the hooks of the rooms below guest/.
# cmdline/ sees include/ alone. tests/ sees everything, and only tests/
# sees tests/: no product file can include a test header.
ROOM_INC_core := -Icore/include
ROOM_INC_mm := -Imm $(ROOM_INC_core)
ROOM_INC_kernel := -Ikernel $(ROOM_INC_mm)
ROOM_INC_arch := $(ROOM_INC_kernel)
ROOM_INC_guest := -Iguest/include $(ROOM_INC_kernel)
ROOM_INC_cmdline :=
ROOM_INC_tests := $(ROOM_INC_guest) -Itests
# room_inc FILE: the -I paths of FILE's room, named by its first
# directory (the host backend's main, arch/host/boot/, is the guest
# application's entry, as guest/main.c is in the guest).
room_of = $(if $(filter arch/host/boot/%,$(1)),guest,$(firstword $(subst /, ,$(1))))
room_inc = $(ROOM_INC_$(call room_of,$(1)))
# host_kernel_flags FORMAT: what the three host builds of kernel code
# (the mm runner, its ThreadSanitizer twin, the host backend) share,
# beside their own optimisation, sanitizer and room paths: the hosted
# simulation's arch.h force-included first (core/include/kernel.h's
# "arch.h" would find core/include/arch.h beside it; the guard then
# keeps the host's), arch/host/include (its asm/mmu.h and asm/layout.h
# shadow the guest's), the PTE format's arch directory for asm/pgtable.h
# only, then include/.
host_kernel_flags = -g -std=gnu11 $(WARN) -MMD -MP -include arch/host/include/arch.h \
	-Iarch/host/include -Iarch/$(1)/include -Iinclude -DHOST_PTE_FORMAT='"$(1)"'
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

.PHONY: all run test bench clean format deps
all: $(B)/ptelab $(foreach a,$(GUEST_ARCHES),$(B)/$(a)/guest.elf $(B)/$(a)/guest-trace.elf) $(B)/host-tests $(B)/timeit \
	extra-all

# --- Debian packages -------------------------------------------------------
# Installs what is missing when we are root with apt-get, else stops with the
# exact command to run (mk/deps.sh).
deps: $(DEPS)
# DEPS_INSTALL is replaceable so tests/build/run.sh can play a package
# installer whose compiler appears mid-build.
DEPS_INSTALL ?= sh mk/deps.sh
$(DEPS): Makefile mk/deps.sh
	@$(DEPS_INSTALL) $(B) $(DEB_PKGS)
	@mkdir -p $(B) && touch $@

# What the cross toolchains answer about themselves, asked once the packages
# are installed. Make rebuilds an included makefile that is out of date and
# then reads every makefile again, so these paths are never evaluated before
# the compilers exist (a fresh machine gets them in the same `make run`).
TOOLCHAIN_MK := $(B)/toolchain.mk
$(TOOLCHAIN_MK): $(DEPS)
	@{ for a in $(GUEST_ARCHES); do \
		case $$a in x86_64) cc=gcc;; arm64) cc=aarch64-linux-gnu-gcc;; esac; \
		inc=$$($$cc -print-file-name=include) && [ -f "$$inc/stddef.h" ] || \
			{ echo "$$cc: no compiler headers (is its package installed?)" >&2; exit 1; }; \
		echo "GCC_INC_$$a := $$inc"; \
		echo "LIBGCC_$$a := $$($$cc -print-libgcc-file-name)"; \
	done; } >$@.tmp && mv $@.tmp $@
NO_BUILD_GOALS := clean format help
ifneq ($(filter-out $(NO_BUILD_GOALS),$(or $(MAKECMDGOALS),all)),)
include $(TOOLCHAIN_MK)
endif

# --- the VMM ---------------------------------------------------------------
# The VMM's host-arch files end in _x86.c or _arm64.c; the host that builds
# ptelab is the host that runs it (its KVM backend is the host's arch).
# It checks the guest command line with the grammar the guest builds too
# (cmdline/, plain C), so a bad word is refused before anything boots.
VMM_HOST_ARCH ?= $(if $(filter aarch64 arm64,$(shell uname -m)),arm64,x86)
vmm_srcs_for = $(filter-out %_x86.c %_arm64.c,$(wildcard vmm/*.c)) $(wildcard vmm/*_$(1).c)
CMDLINE_SRCS := $(wildcard cmdline/*.c)
VMM_SRCS := $(call vmm_srcs_for,$(VMM_HOST_ARCH))
VMM_OBJS := $(patsubst %.c,$(B)/host/%.o,$(VMM_SRCS) $(CMDLINE_SRCS))

# git describe, baked into ptelab (--version, RESULT lines); the header is
# rewritten only when the description changes, so nothing else rebuilds.
PTELAB_VERSION := $(shell git describe --always --dirty --tags 2>/dev/null || echo unknown)
$(B)/gen/version.h: FORCE
	@mkdir -p $(dir $@)
	@echo '#define PTELAB_VERSION "$(PTELAB_VERSION)"' >$@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
$(B)/host/vmm/version.o $(B)/host-san/vmm/version.o: $(B)/gen/version.h
.PHONY: FORCE
FORCE:

$(B)/host/%.o: %.c | $(DEPS)
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)
	$(Q)$(HOSTCC) $(HOST_CFLAGS) $(HOST_INC) -c $< -o $@

$(B)/ptelab: $(VMM_OBJS)
	@mkdir -p $(dir $@)
	$(call quiet,LD,$@)
	$(Q)$(HOSTCC) -o $@ $^ -lfdt -pthread

$(B)/timeit: tests/bench/timeit.c | $(DEPS)
	$(call quiet,CC,$@)
	$(Q)$(HOSTCC) -O2 $(WARN) -o $@ $<

# --- host tests (sanitized) -------------------------------------------------
HT_SRCS := $(wildcard tests/host/*.c) tests/runner.c $(filter-out vmm/main.c,$(VMM_SRCS)) \
	core/dt.c core/machine.c $(CMDLINE_SRCS)
HT_OBJS := $(patsubst %.c,$(B)/host-san/%.o,$(HT_SRCS))

$(B)/host-san/%.o: %.c | $(DEPS)
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)
	$(Q)$(HOSTCC) $(HOST_CFLAGS) $(HOST_INC) $(SAN) -c $< -o $@
# The tests, and the guest's FDT reader they test on the host, see more.
$(B)/host/tests/%.o $(B)/host-san/tests/%.o: HOST_INC = $(TEST_HOST_INC)
$(B)/host-san/core/dt.o $(B)/host-san/core/machine.o: HOST_INC = -Icore/include -Iinclude
$(B)/host/cmdline/%.o $(B)/host-san/cmdline/%.o: HOST_INC = $(CMDLINE_INC)

$(B)/host-tests: $(HT_OBJS)
	@mkdir -p $(dir $@)
	$(call quiet,LD,$@)
	$(Q)$(HOSTCC) $(SAN) -o $@ $^ -lfdt -pthread

# --- newlib, built once per guest arch --------------------------------------
TRIPLE_x86_64 := x86_64-elf
TRIPLE_arm64 := aarch64-elf
# The stamps are only order-only prerequisites: without .PRECIOUS make
# treats them as intermediate and deletes them, and newlib is rebuilt.
# The two builds share the unpacked source, so the second waits for the
# first (each uses every core itself).
.PRECIOUS: $(B)/newlib/.built-%
$(B)/newlib/.built-%: guest/build-newlib.sh | $(DEPS)
	$(Q)sh guest/build-newlib.sh $(if $(filter x86_64-elf,$*),x86_64,arm64) $(B)/newlib
$(B)/newlib/.built-aarch64-elf: | $(B)/newlib/.built-x86_64-elf

# --- the guest kernel, one set of rules per arch ----------------------------
CC_x86_64 := gcc
CC_arm64 := aarch64-linux-gnu-gcc
GFLAGS_x86_64 := -mno-red-zone -mcmodel=kernel
# Inline LL/SC atomics: GCC's default outline atomics call libgcc helpers
# that probe the CPU with getauxval(), which a freestanding kernel lacks.
GFLAGS_arm64 := -mcmodel=small -mno-outline-atomics
# The guest: its core, all of mm/, the mm test cases (run=selftest runs
# them on the real MMU), the explorer's mixes (run=stress:mm runs them on
# the real CPUs) and the arch's own files. test_explore.c drives arch/host's
# schedule explorer: host runners only.
GUEST_COMMON = $(wildcard core/*.c guest/*.c kernel/*.c) $(CMDLINE_SRCS) $(wildcard tests/guest/*.c) \
	tests/runner.c \
	$(wildcard mm/*.c) $(filter-out tests/mm/test_explore.c,$(wildcard tests/mm/*.c))

# $(1) = arch
define guest_rules
$(1)_NL := $(B)/newlib/install/$(TRIPLE_$(1))
$(1)_CFLAGS := -O2 -g -std=gnu11 $(WARN) -ffreestanding -fno-pie -fno-stack-protector \
	-fno-builtin -fno-omit-frame-pointer $(GFLAGS_$(1)) -nostdinc \
	-isystem $$($(1)_NL)/include -isystem $$(GCC_INC_$(1)) \
	-Iarch/$(1)/include -Iinclude -MMD -MP
$(1)_SRCS := $(GUEST_COMMON) $(wildcard arch/$(1)/*.c) $(wildcard arch/$(1)/*.S) \
	$(wildcard tests/guest/$(1)/*.c)
$(1)_OBJS := $$(patsubst %,$(B)/$(1)/obj/%.o,$$($(1)_SRCS))
$(1)_LIBS := $$($(1)_NL)/lib/libc.a $$($(1)_NL)/lib/libm.a $$(LIBGCC_$(1))

$(B)/$(1)/obj/%.c.o: %.c | $(B)/newlib/.built-$(TRIPLE_$(1))
	@mkdir -p $$(dir $$@)
	$$(call quiet,CC,$$@)
	$(Q)$(CC_$(1)) $$($(1)_CFLAGS) $$(call room_inc,$$<) -c $$< -o $$@

$(B)/$(1)/obj/%.S.o: %.S | $(B)/newlib/.built-$(TRIPLE_$(1))
	@mkdir -p $$(dir $$@)
	$$(call quiet,AS,$$@)
	$(Q)$(CC_$(1)) $$($(1)_CFLAGS) $$(call room_inc,$$<) -D__ASSEMBLER__ -c $$< -o $$@

$(B)/$(1)/guest.elf: $$($(1)_OBJS) linker/$(1).ld
	$$(call quiet,LD,$$@)
	$(Q)$(CC_$(1)) -nostdlib -static -no-pie -T linker/$(1).ld -Wl,--build-id=none -Wl,-z,noexecstack \
		-Wl,-Map=$(B)/$(1)/guest.map -o $$@ $$($(1)_OBJS) $$($(1)_LIBS)

# The same kernel with trace=on built in (mm/trace.h): ptelab boots it
# for trace=on, so the measured image carries no trace at all. Only the
# sources that include trace.h or pte_batch.h (the one header that
# includes it; tests/build/includes.sh keeps it so) differ: the rest
# of the image is guest.elf's objects.
$(1)_TSRCS := $$(shell grep -l -E '^\#include "(trace|pte_batch)\.h"' $$($(1)_SRCS))
$(1)_TOBJS := $$(patsubst %,$(B)/$(1)/obj-trace/%.o,$$($(1)_TSRCS)) \
	$$(patsubst %,$(B)/$(1)/obj/%.o,$$(filter-out $$($(1)_TSRCS),$$($(1)_SRCS)))

$(B)/$(1)/obj-trace/%.c.o: %.c | $(B)/newlib/.built-$(TRIPLE_$(1))
	@mkdir -p $$(dir $$@)
	$$(call quiet,CC,$$@)
	$(Q)$(CC_$(1)) $$($(1)_CFLAGS) $$(call room_inc,$$<) -DPTELAB_TRACE -c $$< -o $$@

$(B)/$(1)/obj-trace/%.S.o: %.S | $(B)/newlib/.built-$(TRIPLE_$(1))
	@mkdir -p $$(dir $$@)
	$$(call quiet,AS,$$@)
	$(Q)$(CC_$(1)) $$($(1)_CFLAGS) $$(call room_inc,$$<) -DPTELAB_TRACE -D__ASSEMBLER__ -c $$< -o $$@

$(B)/$(1)/guest-trace.elf: $$($(1)_TOBJS) linker/$(1).ld
	$$(call quiet,LD,$$@)
	$(Q)$(CC_$(1)) -nostdlib -static -no-pie -T linker/$(1).ld -Wl,--build-id=none -Wl,-z,noexecstack \
		-o $$@ $$($(1)_TOBJS) $$($(1)_LIBS)
endef
# Fragments: one per part of the build with its own runner or target (mm
# host runner, tsan, host backend, VMM test tools, compare, kvm, sweep).
# Those whose outputs `all` must build add them to EXTRA_ALL, which
# extra-all expands here, after the fragments; the others (compare, kvm,
# sweep) build what their own targets need.
-include $(sort $(wildcard mk/*.mk))
.PHONY: extra-all
extra-all: $(EXTRA_ALL)

$(foreach a,$(GUEST_ARCHES),$(eval $(call guest_rules,$(a))))

# --- the two commands and friends -------------------------------------------
run: $(B)/ptelab $(B)/$(ARCH)/guest.elf
	@tests/demo.sh $(ARCH)

test: all
	@tests/run-all.sh

bench: all
	@tests/bench/run.sh

# make print-VAR: VAR's value (tests/build/includes.sh reads the include
# paths the build uses, so it tests these and no copy of them).
print-%:
	@echo '$($*)'
# make print-inc FILE=path: the room -I paths the kernel builds give path.
.PHONY: print-inc
print-inc:
	@echo '$(call room_inc,$(FILE))'

FORMAT_SRCS = $(shell git ls-files '*.c' '*.h' 2>/dev/null)
format:
	clang-format -i $(FORMAT_SRCS)

clean:
	rm -rf $(B)/host $(B)/host-san $(B)/x86_64 $(B)/arm64 $(B)/ptelab $(B)/host-tests \
		$(B)/timeit $(B)/mm-host-* $(B)/mm-tests-* $(B)/mm-tsan-* $(B)/mkelf $(B)/hostrun-* \
		$(B)/ptelab-host-* $(B)/gen $(B)/kvm $(B)/compare $(B)/results-csv

# build/selftests holds an unpacked Linux tree (tests/selftests/fetch.sh),
# whose directories named *.d are no dependency files.
-include $(shell find $(B) -path $(B)/selftests -prune -o -name '*.d' -type f -print 2>/dev/null)

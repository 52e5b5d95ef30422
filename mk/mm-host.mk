# mk/mm-host.mk - the mm host test runner, once per PTE format.
#
# build/mm-tests-x86_64 and build/mm-tests-arm64 are mm/ + the hosted
# simulation (arch/host) + the shared mm test cases (tests/mm) and the
# Linux semantics scenarios (tests/linux/semantics_mm.c), compiled
# with ASan and UBSan. They differ only in the <asm/pgtable.h> they see:
# arch/x86_64's or arch/arm64's (whose contpte code, arch/arm64/contpte.c,
# is pure C and is compiled in too). tests/mm/run.sh runs both.
#
# Flags and include order: Makefile's host_kernel_flags (shared with the
# tsan runner and the host backend), then each file's room (room_inc), as
# in the guest.

MM_HOST_FORMATS := x86_64 arm64
# mm/kmap.c builds the kernel half of real page tables at boot: guest only.
# kernel/'s pure parts (the initial stack, the initramfs reader) are
# tested here too; the rest of kernel/ needs a user mode.
MM_HOST_SRCS := $(filter-out mm/kmap.c,$(wildcard mm/*.c)) $(wildcard arch/host/*.c) \
	$(wildcard tests/mm/*.c) $(wildcard tests/mm/host/*.c) tests/host/main.c tests/runner.c kernel/exec_stack.c \
	kernel/initramfs.c tests/linux/semantics_mm.c tests/linux/semantics_table.c core/spinlock.c
MM_HOST_SRCS_arm64 := arch/arm64/contpte.c

# $(1) = PTE format
define mm_host_rules
MM_HOST_CFLAGS_$(1) := -O2 $(SAN) $(call host_kernel_flags,$(1)) -DPTELAB_TRACE
MM_HOST_OBJS_$(1) := $$(patsubst %.c,$(B)/mm-host-$(1)/%.o,$(MM_HOST_SRCS) $(MM_HOST_SRCS_$(1)))

$(B)/mm-host-$(1)/%.o: %.c
	@mkdir -p $$(dir $$@)
	$$(call quiet,CC,$$@)
	$(Q)$(HOSTCC) $$(MM_HOST_CFLAGS_$(1)) $$(call room_inc,$$<) -c $$< -o $$@

$(B)/mm-tests-$(1): $$(MM_HOST_OBJS_$(1))
	$$(call quiet,LD,$$@)
	$(Q)$(HOSTCC) $(SAN) -o $$@ $$^
endef

$(foreach f,$(MM_HOST_FORMATS),$(eval $(call mm_host_rules,$(f))))

.PHONY: mm-host-tests
mm-host-tests: $(foreach f,$(MM_HOST_FORMATS),$(B)/mm-tests-$(f))

EXTRA_ALL += $(foreach f,$(MM_HOST_FORMATS),$(B)/mm-tests-$(f))

# make stress: the schedule explorer's mixes for a long budget, both
# formats side by side (tests/mm/stress.sh; SCHEDULES=N seeds per mix),
# the QEMU boots with the one-CPU in-guest selftest too (BOOT_FULL=1
# tests/boot/run.sh: make test runs it on 4 CPUs only, which has every
# case), then the nested-KVM cases with the one-vCPU selftest too
# (tests/kvm/run.sh --full; STRESS_KVM=0 leaves them out).
STRESS_KVM ?= 1
.PHONY: stress
stress: $(foreach f,$(MM_HOST_FORMATS),$(B)/mm-tests-$(f))
	SCHEDULES=$(SCHEDULES) sh tests/mm/stress.sh
	BOOT_FULL=1 sh tests/boot/run.sh
	@if [ "$(STRESS_KVM)" = 1 ]; then sh tests/kvm/run.sh --full; fi

# mk/host-backend.mk - build/ptelab-host-<arch>, what `ptelab --backend
# host` runs: the guest's commands (every guest/*.c but the boot, the
# machine and the libc glue: HOSTRUN_GUEST_SKIP), all of mm/ and the hosted simulation (arch/host), built
# for the host CPU and optimised like the guest (no sanitizers: it is
# timed). One binary per PTE format, as for the mm host runner
# (mk/mm-host.mk, whose include order it shares).

HOSTRUN_FORMATS := x86_64 arm64
# The guest files that need a booted machine; a new command file in
# guest/ joins the host backend by itself. The test glue (tests/) stays
# out, and so does the test runner: the strict TLB model
# reports through a callback the tests install (and the backend turns the
# model off).
HOSTRUN_GUEST_SKIP := guest/main.c guest/exec_cmd.c
HOSTRUN_SRCS := $(filter-out $(HOSTRUN_GUEST_SKIP),$(wildcard guest/*.c)) $(CMDLINE_SRCS) \
	$(filter-out mm/kmap.c,$(wildcard mm/*.c)) core/spinlock.c \
	$(wildcard arch/host/*.c) \
	arch/host/boot/main.c
# arm64's contpte code is pure C (as in the mm host runner).
HOSTRUN_SRCS_arm64 := arch/arm64/contpte.c

# $(1) = PTE format
define hostrun_rules
HOSTRUN_CFLAGS_$(1) := -O2 -g -std=gnu11 $(WARN) -MMD -MP \
	-include arch/host/include/arch.h -Iarch/host/include -Iarch/$(1)/include \
	-Iinclude -DHOST_PTE_FORMAT='"$(1)"'
HOSTRUN_OBJS_$(1) := $$(patsubst %.c,$(B)/hostrun-$(1)/%.o,$(HOSTRUN_SRCS) $(HOSTRUN_SRCS_$(1)))

$(B)/hostrun-$(1)/%.o: %.c
	@mkdir -p $$(dir $$@)
	$$(call quiet,CC,$$@)
	$(Q)$(HOSTCC) $$(HOSTRUN_CFLAGS_$(1)) $$(call room_inc,$$<) $$(HOSTRUN_EXTRA) -c $$< -o $$@
$(B)/hostrun-$(1)/arch/host/boot/main.o: HOSTRUN_EXTRA := -D_GNU_SOURCE

$(B)/ptelab-host-$(1): $$(HOSTRUN_OBJS_$(1))
	$$(call quiet,LD,$$@)
	$(Q)$(HOSTCC) -o $$@ $$^
endef

$(foreach f,$(HOSTRUN_FORMATS),$(eval $(call hostrun_rules,$(f))))

EXTRA_ALL += $(foreach f,$(HOSTRUN_FORMATS),$(B)/ptelab-host-$(f))

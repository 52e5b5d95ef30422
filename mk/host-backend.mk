# mk/host-backend.mk - build/ptelab-host-<arch>, what `ptelab --backend
# host` runs: the guest's commands that need no booted machine
# (HOSTRUN_GUEST), the command-line grammar, all of mm/, the core's locks
# and the hosted simulation (arch/host, whose boot/main.c plays the
# guest's entry), built for the host CPU and optimised like the guest (no
# sanitizers: it is timed). One binary per PTE format, as for the mm host
# runner (the flags both share: Makefile, host_kernel_flags).

HOSTRUN_FORMATS := x86_64 arm64
# Opt-in: a guest file runs on the host backend when it is named here.
# Left out: guest/main.c (the guest's boot; arch/host/boot/main.c is the
# backend's) and guest/exec_cmd.c (run=exec needs user mode). A new
# command file joins by being added; commands.c naming a command whose
# file is not here fails to link. The test glue (tests/) stays out, and
# so does the test runner: the strict TLB model reports through a
# callback the tests install (and the backend turns the model off).
HOSTRUN_GUEST := guest/bench.c guest/bench_active.c guest/bench_cmd.c guest/bench_fork.c \
	guest/bench_gup.c guest/bench_madvise.c guest/bench_migrate.c guest/bench_mm.c \
	guest/bench_move_pages.c guest/bench_mremap.c guest/bench_numa_hint.c guest/bench_reclaim.c \
	guest/bench_swap.c guest/bench_young.c guest/commands.c guest/knob_parse.c \
	guest/numa_maps_demo.c guest/ptdump_demo.c
HOSTRUN_SRCS := $(HOSTRUN_GUEST) $(CMDLINE_SRCS) $(filter-out mm/kmap.c,$(wildcard mm/*.c)) \
	core/spinlock.c $(wildcard arch/host/*.c) arch/host/boot/main.c
# arm64's contpte code is pure C (as in the mm host runner).
HOSTRUN_SRCS_arm64 := arch/arm64/contpte.c

# $(1) = PTE format
define hostrun_rules
HOSTRUN_CFLAGS_$(1) := -O2 $(call host_kernel_flags,$(1))
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

# mk/compare.mk - `make compare` (tests/bench/compare.sh): ptelab beside
# Debian's Linux 6.1 and 6.12 on the same clock. Builds the static
# Linux-side benchmark per arch and the RESULT-to-CSV converter (ptelab's
# own vmm/csv.c). ARCHES=, KERNELS=, SIZE=, REPS=, BENCH=, FOLIOS=, OPTS= pass
# through the environment, as do PT_USER= (off: no "ptelab (same binary)"
# column, the same lbench run as a ptelab user process) and MICRO= (the
# micro-benchmarks on both kernels; empty: none).

LB_CC_x86_64 := gcc
LB_CC_arm64 := aarch64-linux-gnu-gcc
define lbench_rules
$(B)/compare/$(1)/lbench: tests/bench/linux/lbench.c | $(DEPS)
	@mkdir -p $$(dir $$@)
	$$(call quiet,CCLD,$$@)
	$(Q)$(LB_CC_$(1)) -O2 -std=gnu11 $(WARN) -static -o $$@ $$<
endef
$(foreach a,x86_64 arm64,$(eval $(call lbench_rules,$(a))))

$(B)/results-csv: tests/bench/linux/results_csv.c vmm/csv.c vmm/json.c | $(DEPS)
	$(call quiet,CCLD,$@)
	$(Q)$(HOSTCC) -O2 -std=gnu11 $(WARN) -Ivmm -Iinclude -o $@ $^



.PHONY: compare
compare: $(B)/ptelab $(foreach a,$(GUEST_ARCHES),$(B)/$(a)/guest.elf) $(B)/results-csv \
		$(B)/compare/x86_64/lbench $(B)/compare/arm64/lbench
	@ARCHES="$(ARCHES)" KERNELS="$(KERNELS)" SIZE="$(SIZE)" REPS="$(REPS)" BENCH="$(BENCH)" OPTS="$(OPTS)" \
		FOLIOS="$(FOLIOS)" tests/bench/compare.sh

# `make linux-semantics` (tests/linux/record.sh): the scenario program of
# tests/linux/semantics.c, static, booted on Debian's 6.12 and 6.1; its
# output becomes tests/linux/semantics-*.out. KERNELS= picks the kernels,
# ARCHES= the arches (default x86_64; arm64 records -arm64.out files).
SEM_SRCS := tests/linux/semantics.c tests/linux/semantics_table.c
define semantics_rules
$(B)/compare/$(1)/semantics: $(SEM_SRCS) tests/linux/semantics.h | $(DEPS)
	@mkdir -p $$(dir $$@)
	$$(call quiet,CCLD,$$@)
	$(Q)$(LB_CC_$(1)) -O2 -std=gnu11 $(WARN) -static -o $$@ $(SEM_SRCS)
endef
$(foreach a,x86_64 arm64,$(eval $(call semantics_rules,$(a))))

.PHONY: linux-semantics
linux-semantics:
	@ARCHES="$(ARCHES)" tests/linux/record.sh $(KERNELS)

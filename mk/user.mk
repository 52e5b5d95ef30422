# mk/user.mk - the user programs run=exec runs (tests/user/*.c), static
# glibc binaries built with Debian's compilers: gcc for x86_64,
# aarch64-linux-gnu-gcc for arm64. tests/user/run.sh packs each arch's
# directory into the initramfs with ptelab --initramfs.

USER_PROGS := $(patsubst tests/user/%.c,%,$(wildcard tests/user/*.c))
USER_CC_x86_64 := gcc
USER_CC_arm64 := aarch64-linux-gnu-gcc
USER_CFLAGS := -static -O2 -g $(WARN)

# $(1) = arch
define user_rules
$(B)/user/$(1)/bin/%: tests/user/%.c | $(DEPS)
	@mkdir -p $$(dir $$@)
	$$(call quiet,CC,$$@)
	$(Q)$(USER_CC_$(1)) $(USER_CFLAGS) -o $$@ $$<
endef

$(foreach a,$(GUEST_ARCHES),$(eval $(call user_rules,$(a))))

USER_BINS := $(foreach a,$(GUEST_ARCHES),$(patsubst %,$(B)/user/$(a)/bin/%,$(USER_PROGS)))
.PHONY: user-progs
user-progs: $(USER_BINS)
EXTRA_ALL += $(USER_BINS)

# lbench, the static program `make compare` boots Linux with
# (mk/compare.mk), copied as it is: the user stage runs that same binary.
define lbench_user_rules
$(B)/user/$(1)/bin/lbench: $(B)/compare/$(1)/lbench
	@mkdir -p $$(dir $$@)
	$(Q)cp $$< $$@
endef
$(foreach a,$(GUEST_ARCHES),$(eval $(call lbench_user_rules,$(a))))
LBENCH_USER := $(foreach a,$(GUEST_ARCHES),$(B)/user/$(a)/bin/lbench)
user-progs: $(LBENCH_USER)
EXTRA_ALL += $(LBENCH_USER)

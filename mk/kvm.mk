# mk/kvm.mk - static ptelab, mkelf and timeit for the nested KVM stage
# (tests/kvm/run.sh), one per arch of the nested VM: x86_64 with the host
# gcc and libfdt.a, arm64 with gcc-aarch64-linux-gnu and the arm64 libfdt
# that tests/kvm/fetch.sh unpacks into build/kvm/arm64/libfdt. The arch
# files of the VMM are those of the nested VM's arch (its host).

KVM_CC_x86_64 := gcc
KVM_CC_arm64 := aarch64-linux-gnu-gcc
KVM_VMMARCH_x86_64 := x86
KVM_VMMARCH_arm64 := arm64
KVM_FDT_x86_64 := -l:libfdt.a
KVM_FDT_arm64 := -I$(B)/kvm/arm64/libfdt/usr/include \
	$(B)/kvm/arm64/libfdt/usr/lib/aarch64-linux-gnu/libfdt.a
KVM_FETCHED_arm64 := $(B)/kvm/arm64/.fetched
KVM_MKELF_SRCS := tests/vmm/mkelf.c tests/host/elf_build.c vmm/elf.c vmm/guestmem.c vmm/layout.c \
	vmm/util.c vmm/args.c $(CMDLINE_SRCS)
KVM_STATIC_CFLAGS := -O2 -std=gnu11 $(WARN) -Ivmm -Iinclude -I$(B)/gen -static

# Each static binary is one compiler call over all its sources, where -MMD
# would keep only the last file's dependencies; so after it links, every
# source's headers are listed into <binary>.d (read back by the Makefile's
# include of build/**/*.d), and a change to any header any of them
# includes (the counter list, the knobs, the command-line grammar, ...)
# rebuilds it. As -MP does for headers, each source gets an empty rule of
# its own, so a source that moves away rebuilds the binary instead of
# stopping make. $(1) = arch, $(2) = the target, $(3) = its sources.
kvm_deps = for f in $(3); do \
		$(KVM_CC_$(1)) $(filter-out -static,$(KVM_STATIC_CFLAGS)) \
			$(filter -I%,$(KVM_FDT_$(1))) -Itests -MM -MP -MT $(2) $$f && echo "$$f:" || exit 1; \
	done >$(2).d

# $(1) = arch of the nested VM
define kvm_static_rules
KVM_PTELAB_SRCS_$(1) := $(call vmm_srcs_for,$(KVM_VMMARCH_$(1))) $(CMDLINE_SRCS)
$(B)/kvm/$(1)/ptelab: $$(KVM_PTELAB_SRCS_$(1)) $(B)/gen/version.h $(KVM_FETCHED_$(1)) | $(DEPS)
	@mkdir -p $$(dir $$@)
	$$(call quiet,CCLD,$$@)
	$(Q)$(KVM_CC_$(1)) $(KVM_STATIC_CFLAGS) -o $$@ $$(KVM_PTELAB_SRCS_$(1)) $(KVM_FDT_$(1)) -pthread
	$(Q)$$(call kvm_deps,$(1),$$@,$$(KVM_PTELAB_SRCS_$(1)))

$(B)/kvm/$(1)/mkelf: $(KVM_MKELF_SRCS) | $(DEPS)
	@mkdir -p $$(dir $$@)
	$$(call quiet,CCLD,$$@)
	$(Q)$(KVM_CC_$(1)) $(KVM_STATIC_CFLAGS) -Itests -o $$@ $(KVM_MKELF_SRCS)
	$(Q)$$(call kvm_deps,$(1),$$@,$(KVM_MKELF_SRCS))

$(B)/kvm/$(1)/timeit: tests/bench/timeit.c | $(DEPS)
	@mkdir -p $$(dir $$@)
	$$(call quiet,CCLD,$$@)
	$(Q)$(KVM_CC_$(1)) $(KVM_STATIC_CFLAGS) -o $$@ $$<
endef
$(foreach a,x86_64 arm64,$(eval $(call kvm_static_rules,$(a))))

$(B)/kvm/arm64/.fetched:
	$(call quiet,FETCH,$@)
	$(Q)tests/kvm/fetch.sh arm64 $(B)/kvm/arm64

.PHONY: test-kvm
test-kvm: $(B)/ptelab $(foreach a,$(GUEST_ARCHES),$(B)/$(a)/guest.elf)
	@tests/kvm/run.sh

# mk/vmm-tests.mk - the VMM test tools.
#
# build/mkelf writes, for tests/vmm/run.sh, one defective guest image per
# defect of tests/host/elf_build.c (from the real guest kernel or a
# synthetic one) and a few tiny hand-assembled guests that exercise the
# VMM's exit paths. It links the VMM's own validator to check a real base
# image before breaking it (and ptelab's option parser, vmm/args.c, which
# reads the guest words with the grammar, cmdline/). `make test-vmm` runs
# the VMM test runner alone.

MKELF_OBJS := $(B)/host/tests/vmm/mkelf.o $(B)/host/tests/host/elf_build.o \
	$(B)/host/vmm/elf.o $(B)/host/vmm/guestmem.o $(B)/host/vmm/layout.o $(B)/host/vmm/util.o \
	$(B)/host/vmm/args.o $(patsubst %.c,$(B)/host/%.o,$(CMDLINE_SRCS))

$(B)/mkelf: $(MKELF_OBJS)
	$(call quiet,LD,$@)
	$(Q)$(HOSTCC) -o $@ $^

EXTRA_ALL += $(B)/mkelf

.PHONY: test-vmm
test-vmm: $(B)/ptelab $(B)/mkelf
	@tests/vmm/run.sh

# mk/mm-tsan.mk - the mm host runner built with ThreadSanitizer.
#
# build/mm-tsan-x86_64 and build/mm-tsan-arm64 are the mm host runner
# (mk/mm-host.mk: same sources and include order) with -fsanitize=thread
# instead of ASan/UBSan (the two cannot be combined). tests/mm/tsan.sh
# runs their SMP cases, whose CPUs are threads, and fails on any report.

MM_TSAN := -fsanitize=thread -fno-omit-frame-pointer

# $(1) = PTE format
define mm_tsan_rules
MM_TSAN_CFLAGS_$(1) := -O1 $(MM_TSAN) $(call host_kernel_flags,$(1)) -DPTELAB_TRACE
MM_TSAN_OBJS_$(1) := $$(patsubst %.c,$(B)/mm-tsan-obj-$(1)/%.o,$(MM_HOST_SRCS) $(MM_HOST_SRCS_$(1)))

$(B)/mm-tsan-obj-$(1)/%.o: %.c
	@mkdir -p $$(dir $$@)
	$$(call quiet,CC,$$@)
	$(Q)$(HOSTCC) $$(MM_TSAN_CFLAGS_$(1)) $$(call room_inc,$$<) -c $$< -o $$@

$(B)/mm-tsan-$(1): $$(MM_TSAN_OBJS_$(1))
	$$(call quiet,LD,$$@)
	$(Q)$(HOSTCC) $(MM_TSAN) -o $$@ $$^
endef

$(foreach f,$(MM_HOST_FORMATS),$(eval $(call mm_tsan_rules,$(f))))

EXTRA_ALL += $(foreach f,$(MM_HOST_FORMATS),$(B)/mm-tsan-$(f))

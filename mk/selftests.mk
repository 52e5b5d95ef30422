# mk/selftests.mk - Linux 6.12's mm selftests on ptelab (tests/selftests/):
# `make selftests` fetches and builds them (tests/selftests/fetch.sh, cached
# in build/selftests) and runs every program on both arches, checked
# against tests/selftests/expected and, beside it, against Linux 6.12's
# own results (tests/selftests/linux-6.12-ARCH.tap). `make test` runs the
# same as its selftests stage, less the slow programs (migration:
# SELFTESTS_FULL, tests/selftests/run.sh). `make selftests-linux` boots Debian's Linux
# 6.12 under QEMU with the same programs and rewrites those recordings
# (tests/selftests/record.sh; ARCHES= picks arches, default both).
.PHONY: selftests selftests-fetch selftests-linux
selftests-fetch: | $(DEPS)
	@sh tests/selftests/fetch.sh
selftests: $(B)/ptelab $(foreach a,$(GUEST_ARCHES),$(B)/$(a)/guest.elf)
	@SELFTESTS_FULL=1 sh tests/selftests/run.sh
selftests-linux: | $(DEPS)
	@ARCHES="$(ARCHES)" sh tests/selftests/record.sh

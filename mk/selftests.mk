# mk/selftests.mk - Linux 6.12's mm selftests on ptelab (tests/selftests/):
# `make selftests` fetches and builds them (tests/selftests/fetch.sh, cached
# in build/selftests) and runs every program on both arches, checked
# against tests/selftests/expected. `make test` runs the same as its
# selftests stage.
.PHONY: selftests selftests-fetch
selftests-fetch: | $(DEPS)
	@sh tests/selftests/fetch.sh
selftests: $(B)/ptelab $(foreach a,$(GUEST_ARCHES),$(B)/$(a)/guest.elf)
	@sh tests/selftests/run.sh

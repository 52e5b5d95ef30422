# mk/sweep.mk - `make sweep`: a batch-cap sweep to CSV and PNG plots
# (tests/bench/sweep.sh; BENCH=, ARCH=, FOLIOS=, CAPS=, SIZE=, CLOCK=,
# REPS=, HOSTS=, CPUS=, ACTIVE=, KNOB= are passed through the environment).

.PHONY: sweep
sweep: $(B)/ptelab $(B)/$(or $(ARCH),x86_64)/guest.elf $(B)/ptelab-host-$(or $(ARCH),x86_64)
	@BENCH="$(BENCH)" ARCH="$(ARCH)" FOLIOS="$(FOLIOS)" CAPS="$(CAPS)" SIZE="$(SIZE)" \
		CLOCK="$(CLOCK)" REPS="$(REPS)" HOSTS="$(HOSTS)" CPUS="$(CPUS)" ACTIVE="$(ACTIVE)" \
		KNOB="$(KNOB)" tests/bench/sweep.sh

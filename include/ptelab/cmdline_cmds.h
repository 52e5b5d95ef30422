/*
 * ptelab/cmdline_cmds.h - every run= command and every benchmark, one row
 * each. The one place a command or a benchmark is added: ptelab's check
 * before it boots and the guest's (cmdline/cmds.c), the guest's table of
 * commands (guest/commands.c binds cmd_<id> to each row) and of
 * benchmarks (guest/bench_cmd.c binds bench_<id> to each row), run=list
 * and the messages naming them are all made from these rows.
 *
 * A command row is X(id, arg, form, words, what, lo, hi, needs_machine,
 * help):
 *   id      the command as typed, and cmd_<id>, the guest function it runs
 *   arg     does it take :ARG (enum cmdline_arg, without CMDLINE_ARG_):
 *           NONE, OPTIONAL or REQUIRED
 *   form    what ARG may be (enum cmdline_arg_form, without CMDLINE_FORM_):
 *           TEXT   anything
 *           NUM    a decimal number lo..hi
 *           WORD   one of @words
 *           PATH   an absolute path
 *           BENCH  a benchmark's name or group (CMDLINE_BENCHES)
 *   words   WORD: the comma-separated words; NULL for the other forms
 *   what    what a message calls ARG ("N", "operation"); NULL for TEXT
 *   lo, hi  NUM: the range (0 for the others)
 *   needs_machine  it needs a booted guest (its console, exit, MMU), so
 *           --backend host refuses it
 *   help    run=list's line
 *
 * A benchmark row is X(id, group, choice, cap_key, companions, smp,
 * takes_active, every_node):
 *   id      its name (run=bench:<id>), and bench_<id>, the guest's bench
 *   group, choice  NULL, or the group that runs it by its name
 *           (run=bench:madvise) when the group's list key (advice=) names
 *           @choice
 *   cap_key the knob of its timed operation ("zap"); NULL: none (caps=
 *           does not apply)
 *   companions  NULL, or the comma-separated other knobs that set part of
 *           the timed operation: like cap_key, giving one runs a single
 *           variant with the knobs as given, and rules out caps=
 *   smp     it takes cpus= (its timed work runs on cpus= CPUs)
 *   takes_active  it takes active= (other CPUs in the mm while it times)
 *   every_node  it moves the whole set to another node: size= must fit
 *           on every node, and it needs two nodes
 */
#ifndef PTELAB_CMDLINE_CMDS_H
#define PTELAB_CMDLINE_CMDS_H

/* Every command, in the order run=list prints them. */
#define CMDLINE_CMDS(X)                                                                            \
	X(hello, NONE, TEXT, NULL, NULL, 0, 0, true, "print the machine summary")                  \
	X(exit, REQUIRED, NUM, NULL, "N", 0, 255, true, "exit:N - stop with status N (0..255)")    \
	X(fault, NONE, TEXT, NULL, NULL, 0, 0, true, "take an unhandled page fault (exits 3)")     \
	X(hang, NONE, TEXT, NULL, NULL, 0, 0, true, "spin forever with interrupts off")            \
	X(selftest, OPTIONAL, TEXT, NULL, NULL, 0, 0, true,                                        \
	  "selftest[:FILTER] - run the in-guest tests whose name has a part of FILTER (parts "     \
	  "joined by +; a part -X leaves out the tests X names); selftest:list names them")        \
	X(stress, REQUIRED, WORD, "mm", "stress", 0, 0, true,                                      \
	  "stress:mm - random concurrent mm mixes on cpus= CPUs for seconds=, checked")            \
	X(bench, OPTIONAL, BENCH, NULL, "NAME", 0, 0, false,                                       \
	  "bench[:NAME] - run one benchmark or all (run=help lists their keys)")                   \
	X(ptdump, OPTIONAL, WORD, "munmap,mprotect,fork,gup,migrate", "operation", 0, 0, false,    \
	  "ptdump[:OP] - watch PTE runs form and break (batching caps apply); OP (munmap, "        \
	  "mprotect, fork, gup, migrate) on folios= folios, with PTE strips before and after")     \
	X(numa_maps, NONE, TEXT, NULL, NULL, 0, 0, false,                                          \
	  "mbind, migrate_pages, move_pages of a small mm, numa_maps after each")                  \
	X(exec, REQUIRED, PATH, NULL, "PATH", 0, 0, true,                                          \
	  "exec:PATH - run the static program PATH from the initramfs as a user process")          \
	X(list, NONE, TEXT, NULL, NULL, 0, 0, false, "list the commands")                          \
	X(help, NONE, TEXT, NULL, NULL, 0, 0, false,                                               \
	  "the commands, and every key=value the command line takes")

/* Every benchmark, in the order run=bench runs them. */
#define CMDLINE_BENCHES(X)                                                                         \
	X(fault, NULL, NULL, NULL, NULL, true, false, false)                                       \
	X(zap, NULL, NULL, "zap", NULL, false, true, false)                                        \
	X(mprotect, NULL, NULL, "mprotect", NULL, false, true, false)                              \
	X(fork, NULL, NULL, "fork", NULL, false, false, false)                                     \
	X(fork_exit, NULL, NULL, "zap", NULL, false, false, false)                                 \
	X(gup, NULL, NULL, "gup_grab", "gup_walk", true, false, false)                             \
	X(gup_put, NULL, NULL, "gup_grab", "gup_walk", true, false, false)                         \
	X(migrate, NULL, NULL, "migrate", "migrate_unmap,migrate_flush", false, true, true)        \
	X(move_pages, NULL, NULL, "migrate_unmap", "migrate_flush", false, false, true)            \
	X(mremap, NULL, NULL, "mremap", NULL, false, false, false)                                 \
	X(madvise_free, "madvise", "free", "madvise", NULL, false, true, false)                    \
	X(madvise_dontneed, "madvise", "dontneed", "madvise", NULL, false, true, false)            \
	X(madvise_populate, "madvise", "populate", "madvise", NULL, false, true, false)            \
	X(numa_hint, NULL, NULL, "numa_hint", NULL, false, true, false)                            \
	X(pageout, NULL, NULL, "pageout", NULL, false, false, false)                               \
	X(swapin, NULL, NULL, "swapin", NULL, false, false, false)                                 \
	X(reclaim, NULL, NULL, "pageout", "young,swapin", false, false, false)                     \
	X(reclaim_shared, NULL, NULL, "pageout", "young,swapin", false, false, false)              \
	X(young, NULL, NULL, "young", NULL, false, true, false)

#endif

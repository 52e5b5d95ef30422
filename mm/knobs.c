/*
 * knobs.c - the batching knobs' defaults (see knobs.h), each its row's
 * default in ptelab/cmdline_keys.h: every cap max, the GUP walk and
 * contpte folding on. The command line's parser is the guest's
 * (guest/knob_parse.c).
 */
#include "knobs.h"

struct batch_caps mm_caps = {
#define CAP_DEFAULT(id, name, kind, lo, hi, what, dflt, ...) .id = CMDLINE_DFLT_CAP_##dflt,
#define SWITCH_DEFAULT(id, name, kind, lo, hi, what, dflt, ...) .id = CMDLINE_DFLT_SWITCH_##dflt,
	CMDLINE_KNOB_CAPS(CAP_DEFAULT) CMDLINE_KNOB_BATCH_SWITCHES(SWITCH_DEFAULT)
		CMDLINE_KNOB_SWITCHES(SWITCH_DEFAULT)
#undef CAP_DEFAULT
#undef SWITCH_DEFAULT
};

void caps_set_all(bool batched)
{
#define CAP_SET(id, ...) mm_caps.id = batched ? CAP_MAX : 1;
#define SWITCH_SET(id, ...) mm_caps.id = batched;
	CMDLINE_KNOB_CAPS(CAP_SET)
	CMDLINE_KNOB_BATCH_SWITCHES(SWITCH_SET)
#undef CAP_SET
#undef SWITCH_SET
}

/*
 * knobs.c - the batching caps' defaults (see knobs.h): every cap max, the
 * GUP walk and contpte folding on. The command line's parser is the
 * guest's (guest/knobs.c).
 */
#include "knobs.h"
#include "ptelab/cmdline.h"

struct batch_caps caps = {
#define CAP_DEFAULT(key, help) .key = CAP_MAX,
	CMDLINE_CAP_KEYS(CAP_DEFAULT)
#undef CAP_DEFAULT
		.gup_walk = true,
	.contpte = true
};

void caps_set_all(bool batched)
{
#define CAP_SET(key, help) caps.key = batched ? CAP_MAX : 1;
	CMDLINE_CAP_KEYS(CAP_SET)
#undef CAP_SET
	caps.gup_walk = batched;
}

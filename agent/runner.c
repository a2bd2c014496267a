/* SPDX-License-Identifier: MIT */
/* The one list of task runners: a new runner is a file and a line here. */
#include <string.h>

#include "agent_int.h"

static const struct sw_agent_runner *const runners[] = {
        &sw_agent_runner_synthetic,
        &sw_agent_runner_exec,
};

const struct sw_agent_runner *sw_agent_runner_find(const char *name)
{
	for (size_t i = 0; i < sizeof(runners) / sizeof(runners[0]); i++)
		if (!strcmp(runners[i]->name, name))
			return runners[i];
	return NULL;
}

/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options.h"
#include "runner.h"

const char options_help[] =
        "  --mix NAME|FILE     mix1, mix2 or mix3 (the ShuffleWatcher paper's mixes; default\n"
        "                      mix2), a SWIM trace (*.tsv) or a JSON Lines job mix (*.jsonl).\n"
        "                      Paper mixes run on the paper's cluster: 10 racks x 10 nodes,\n"
        "                      250 Mbit/s NICs, 5:1 uplinks; SWIM traces on Facebook's:\n"
        "                      30 racks x 20 nodes, 1 Gbit/s NICs, 5:1 uplinks; a .jsonl\n"
        "                      mix on its topology line (else the paper's cluster)\n"
        "  --schedulers LIST   comma-separated policies (default fair,sw-fair,delay,\n"
        "                      sw-relaxed,drf,sw-drf: three baselines and their\n"
        "                      ShuffleWatcher counterparts)\n"
        "  --baseline NAME     scheduler the ratios are relative to (default fair)\n"
        "  --duration HOURS    paper mixes: hours of job arrivals (default 5)\n"
        "  --warmup HOURS      ramp-up left out of the steady-state window\n"
        "                      (default: 1, or a fifth of the arrival span if shorter)\n"
        "  --users N           number of users, at most 2^20 (default: 30 for paper mixes,\n"
        "                      200 for SWIM)\n"
        "  --jobs-per-user N   paper mixes: set --users so that each user submits N jobs on\n"
        "                      average in the steady-state window (the paper's default is 12)\n"
        "  --interarrival SEC  paper mixes: mean seconds between job arrivals (default 40)\n"
        "  --seed N            random seed for synthesised jobs and placement (1 to 2^53)\n"
        "  --topology FILE     a JSON file with the cluster (the fields of a .jsonl mix's\n"
        "                      topology line) replacing the mix's cluster, from anywhere\n"
        "  --oversub RATIO     rack uplink oversubscription, overriding the mix's topology\n"
        "  --time-scale X      SWIM and .jsonl mixes: multiply arrival times by X (default\n"
        "                      1; a .jsonl job's deadline keeps its distance to its arrival)\n"
        "  --size-scale X      multiply byte counts by X (default 1; paper mixes start\n"
        "                      from a tenth of Table 2's sizes, see tools/sim/README.md)\n"
        "  --heartbeat SEC     node heartbeat interval (default 3)\n"
        "  --saturation-threshold X\n"
        "                      sw-*: NetSat's NWSaturationThreshold, a fraction of the\n"
        "                      rack uplink (default 0.8)\n"
        "  --map-completion-threshold X\n"
        "                      sw-*: SARP's MapCompletionThreshold, a fraction of a job's\n"
        "                      maps (default 0.15)\n"
        "  --affinity-delays N adaptive: times in a row a job ahead of its goal may pass a\n"
        "                      slot on a node without its input to the next job (Polo's\n"
        "                      data affinity; default 1, 0 = his basic scheduler)\n"
        "  --accel-threshold X adaptive-hw: the speedup of a job's calibration maps\n"
        "                      (regular over accelerated) above which it is accelerable\n"
        "                      (Polo's threshold; default 1.5, at least 1)\n"
        "  --plan-period SEC   ras, sw-ras, reverse-adaptive: seconds between two\n"
        "                      placements (default 30)\n"
        "  --aria-bound low|avg|up\n"
        "                      minedf, aria, sw-minedf and --load-threshold's admission:\n"
        "                      the completion-time bound a job's Lagrange minimum pair is\n"
        "                      sized on (default avg; ARIA does not say which it deploys)\n"
        "  --deadline-factor LO:HI\n"
        "                      every job's deadline drawn again: its arrival + U[LO, HI] x\n"
        "                      its time alone on the whole cluster (default: the mix's; paper\n"
        "                      mixes and SWIM traces draw U[1, 3], ARIA's rule)\n"
        "  --transactional FILE\n"
        "                      a transactional load on every node: \"seconds,share\" lines,\n"
        "                      the share of each node's slots it holds from then on; the\n"
        "                      nodes report only the slots it leaves, and reverse-adaptive\n"
        "                      plans with it as its forecast (tools/sim/README.md)\n"
        "  --starvation-window SEC|Kx\n"
        "                      sw-*: a user's jobs of an earlier window of this many\n"
        "                      seconds go first (default 600; 0 turns it off); Kx is K\n"
        "                      times the mean completion time of the window's jobs under\n"
        "                      the baseline, run first without a window (the paper's \"some\n"
        "                      multiple of the average job completion time\")\n"
        "  --map-input hdfs|live\n"
        "                      hdfs (default): splits placed as HDFS does, a map reads its\n"
        "                      split over the network when it runs off its replicas; live:\n"
        "                      splits where the live controller places them, no reads (the\n"
        "                      live replay's synthetic maps read nothing)\n"
        "  --output-replicas hdfs|1|2\n"
        "                      hdfs (default): 3 replicas, the writer's, one on another\n"
        "                      rack and one beside it; 1 or 2: the writer's and one on each\n"
        "                      of the next nodes in node order, as the live controller\n"
        "                      places them (live replays: 1)\n"
        "  --fail-node RACK.NODE@SEC[+DOWN]\n"
        "                      node NODE of rack RACK (both from 0) fails at SEC seconds\n"
        "                      and, with +DOWN, comes back empty DOWN seconds later;\n"
        "                      repeatable (at most 64)\n"
        "  --task-failure-rate P\n"
        "                      probability in [0, 1] that a task attempt fails, drawn per\n"
        "                      attempt from --seed (default 0); a job fails when one of\n"
        "                      its tasks has failed 4 times, as in Hadoop\n"
        "  --reduces auto|N    reducers of every job that shuffles: auto (default) is one\n"
        "                      per GiB of shuffle, at most one wave of the cluster's reduce\n"
        "                      slots (a .jsonl mix's own counts stay); N gives each N\n"
        "  --placement random|rack\n"
        "                      where a job's input blocks are: random (default), as HDFS\n"
        "                      places a file written from outside the cluster; rack, as\n"
        "                      loaded from inside one rack (one replica there)\n"
        "  --compute-scale X   multiply every task's compute time by X (default 1): the\n"
        "                      model's compute/network balance\n"
        "  --load-threshold X  ARIA's arrivals: a job is submitted at its arrival or later,\n"
        "                      once the load (--load-measure) with its Lagrange minimum\n"
        "                      for its deadline added stays below X (ARIA: 0.85-1.05; its\n"
        "                      deadline moves with it); 0 (default): at its arrival\n"
        "  --load-measure sum|kinds\n"
        "                      what --load-threshold weighs, counting the running tasks,\n"
        "                      what the jobs let in have not launched yet and the job's\n"
        "                      minimum: sum (default, ARIA's words) each kind's share of\n"
        "                      its slots, summed, at most 2; kinds each kind of slot on\n"
        "                      its own, below X times the slots of that kind\n"
        "  --workflow-slots free|basic|refined\n"
        "                      what a workflow of the mix (jobs with \"workflow\" and\n"
        "                      \"after\") is held to, as its user, from its first job to its\n"
        "                      last: free (default) nothing; basic the Lagrange pair of its\n"
        "                      jobs summed; refined Algorithm 2's pair (not under fifo and\n"
        "                      capacity, whose pools mix users)\n"
        "  --workflow-deadline X\n"
        "                      a workflow whose jobs carry no deadline gets X times its time\n"
        "                      on the whole cluster (default 2, the thesis' D = 2T)\n"
        "  --net-quantum SEC   0 (default): exact max-min rates at every flow start and end;\n"
        "                      SEC > 0 (at most 10), an approximation for day-long traces:\n"
        "                      flows that start, and those of a changed link that carries\n"
        "                      few, share what the others leave; the others keep their\n"
        "                      rates until the next multiple of SEC, where the changed\n"
        "                      components are solved exactly (tools/sim/README.md)\n"
        "  --net-model flow|rack\n"
        "                      flow (default): a reducer fetches from each node in a flow\n"
        "                      of its own, the exact model; rack, an approximation for\n"
        "                      day-long traces: one flow from each other rack's uplink\n"
        "                      carries all that rack holds for it (same bytes on every\n"
        "                      uplink, no sender NIC; tools/sim/README.md)\n"
        "  --rack-fetch-min BYTES\n"
        "                      with --net-model rack: 0 (default), a reducer fetches all\n"
        "                      another rack holds for it at once; BYTES > 0 (at most 2^30),\n"
        "                      it waits until that is BYTES or the job's maps are all done\n"
        "                      (fewer, larger flows for jobs of tiny outputs; README)\n"
        "  --straggler-rate P  probability in [0, 1] that a task attempt straggles, drawn\n"
        "                      per attempt from --seed (default 0): it computes\n"
        "                      --straggler-slowdown X times longer (default 3, at most 100)\n"
        "  --straggler-slowdown X\n"
        "                      see --straggler-rate\n"
        "  --contention on|off off (default): a task computes at its benchmark's rate\n"
        "                      whatever else runs on its node; on: the tasks computing on\n"
        "                      a node share its CPU, disk and memory, and memory asked\n"
        "                      beyond the node's slows its CPU and disk (tools/sim/README.md)\n"
        "  --slots-only on|off off (default): a task starts only where its demand fits;\n"
        "                      on: jobs reach the scheduler without demands and every\n"
        "                      policy places by slots alone, as Hadoop 1's schedulers do\n"
        "  --copy-memory reduce|none\n"
        "                      what a reducer holds in memory while it copies, for a\n"
        "                      benchmark with a shuffle profile (Polo's GridMix jobs):\n"
        "                      reduce (default) its reduce memory, none nothing (Polo's\n"
        "                      Table 4.2 gives \"-\"; perf/README.md, \"RAS against Fair\")\n"
        "  --timeline on|off   off (default); on: tasks.csv, every task of every completed\n"
        "                      job (its last attempt: job, kind, node, pool, start, end),\n"
        "                      tasks.png, the running tasks of each job over time, and\n"
        "                      under ras, sw-ras and reverse-adaptive plans.csv, each\n"
        "                      control cycle's s_pend, s_req, targets and utility per job\n"
        "  --ratio-history on|off\n"
        "                      on (default): a job is submitted with the ShuffleInputRatio\n"
        "                      its program measured at its last completed run of the\n"
        "                      replay; off: every job starts at 1.0 (the paper's initial\n"
        "                      value) and the ratio follows its map outputs\n"
        "  --out DIR           where results go (default: see above)\n"
        "  --jobs N            simulations run at once, at most 256 (default: number of\n"
        "                      cores)\n"
        "  --no-plot           skip rendering the plots with gnuplot\n"
        "  --quiet             no progress line\n"
        "  --progress SEC      when stderr is not a terminal, a progress line every SEC\n"
        "                      seconds (default 10; on a terminal one line is redrawn)\n"
        "  -h, --help          this text\n";

static const struct option longopts[] = {
        {"mix", required_argument, NULL, 'm'},
        {"schedulers", required_argument, NULL, 's'},
        {"baseline", required_argument, NULL, 'b'},
        {"duration", required_argument, NULL, 'd'},
        {"warmup", required_argument, NULL, 'w'},
        {"users", required_argument, NULL, 'u'},
        {"seed", required_argument, NULL, 'S'},
        {"oversub", required_argument, NULL, 'O'},
        {"topology", required_argument, NULL, 'Y'},
        {"time-scale", required_argument, NULL, 'T'},
        {"size-scale", required_argument, NULL, 'Z'},
        {"heartbeat", required_argument, NULL, 'H'},
        {"jobs-per-user", required_argument, NULL, 'J'},
        {"interarrival", required_argument, NULL, 'I'},
        {"saturation-threshold", required_argument, NULL, 't'},
        {"map-completion-threshold", required_argument, NULL, 'M'},
        {"starvation-window", required_argument, NULL, 'W'},
        {"affinity-delays", required_argument, NULL, 'A'},
        {"accel-threshold", required_argument, NULL, 'V'},
        {"plan-period", required_argument, NULL, 'K'},
        {"aria-bound", required_argument, NULL, 'B'},
        {"map-input", required_argument, NULL, 'i'},
        {"output-replicas", required_argument, NULL, 'e'},
        {"fail-node", required_argument, NULL, 'F'},
        {"task-failure-rate", required_argument, NULL, 'R'},
        {"ratio-history", required_argument, NULL, 'r'},
        {"contention", required_argument, NULL, 'c'},
        {"slots-only", required_argument, NULL, 'k'},
        {"copy-memory", required_argument, NULL, 'U'},
        {"timeline", required_argument, NULL, 'l'},
        {"load-threshold", required_argument, NULL, 'X'},
        {"load-measure", required_argument, NULL, 'Q'},
        {"workflow-slots", required_argument, NULL, 'g'},
        {"workflow-deadline", required_argument, NULL, 'x'},
        {"net-quantum", required_argument, NULL, 'N'},
        {"net-model", required_argument, NULL, 'n'},
        {"rack-fetch-min", required_argument, NULL, 'a'},
        {"straggler-rate", required_argument, NULL, 'y'},
        {"straggler-slowdown", required_argument, NULL, 'z'},
        {"reduces", required_argument, NULL, 'D'},
        {"placement", required_argument, NULL, 'L'},
        {"compute-scale", required_argument, NULL, 'C'},
        {"deadline-factor", required_argument, NULL, 'E'},
        {"transactional", required_argument, NULL, 'f'},
        {"out", required_argument, NULL, 'o'},
        {"jobs", required_argument, NULL, 'j'},
        {"no-plot", no_argument, NULL, 'P'},
        {"quiet", no_argument, NULL, 'q'},
        {"progress", required_argument, NULL, 'G'},
        {"help", no_argument, NULL, 'h'},
        {"param", required_argument, NULL, 'p'}, /* last: only for contexts that take it */
        {NULL, 0, NULL, 0},
};

#define N_LONGOPTS (sizeof(longopts) / sizeof(longopts[0]) - 1)

int options_lookup(const char *name)
{
	for (size_t i = 0; i < N_LONGOPTS - 1; i++)
		if (!strcmp(longopts[i].name, name))
			return longopts[i].has_arg == required_argument;
	return -ENOENT;
}

static int parse_double(const struct options_ctx *ctx, const char *opt, const char *arg, double min,
                        double *out)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !isfinite(v) || v < min) {
		fprintf(stderr, "%s: %s %s: expected a number >= %g\n", ctx->prefix, opt, arg, min);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

/* A number in [min, max]: an option whose documented bound keeps a run's cost in reach. */
static int parse_bounded(const struct options_ctx *ctx, const char *opt, const char *arg,
                         double min, double max, double *out)
{
	int rc = parse_double(ctx, opt, arg, min, out);

	if (!rc && *out > max) {
		fprintf(stderr, "%s: %s %s: must be at most %g\n", ctx->prefix, opt, arg, max);
		rc = -EINVAL;
	}
	return rc;
}

/* A whole number in [1, max]: a count that sizes memory, so it has a documented bound. */
static int parse_count(const struct options_ctx *ctx, const char *opt, const char *arg, double max,
                       double *out)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !(v >= 1 && v <= max) || v != floor(v)) {
		fprintf(stderr, "%s: %s %s: expected a whole number from 1 to %.0f\n", ctx->prefix,
		        opt, arg, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static int parse_fraction(const struct options_ctx *ctx, const char *opt, const char *arg,
                          int open_at_zero, double *out)
{
	double v;

	if (parse_double(ctx, opt, arg, 0, &v) < 0)
		return -EINVAL;
	if (v > 1 || (open_at_zero && v == 0)) {
		fprintf(stderr, "%s: %s %s: must be in %s0, 1]\n", ctx->prefix, opt, arg,
		        open_at_zero ? "(" : "[");
		return -EINVAL;
	}
	*out = v;
	return 0;
}

/* One of @p n names in @p names (the option's values, in its help's order): its index. */
static int parse_choice(const struct options_ctx *ctx, const char *opt, const char *arg,
                        const char *const *names, int n, int *out)
{
	for (int i = 0; i < n; i++) {
		if (!strcmp(arg, names[i])) {
			*out = i;
			return 0;
		}
	}
	fprintf(stderr, "%s: %s %s: expected one of", ctx->prefix, opt, arg);
	for (int i = 0; i < n; i++)
		fprintf(stderr, " %s", names[i]);
	fprintf(stderr, "\n");
	return -EINVAL;
}

static const char *const off_on[] = {"off", "on"};
static const char *const bounds[] = {"low", "avg", "up"};           /* enum sw_aria_bound */
static const char *const wf_slots[] = {"free", "basic", "refined"}; /* enum sw_sim_wf_slots */
static const char *const load_measures[] = {"sum", "kinds"};        /* enum sw_sim_load_measure */
static const char *const placements[] = {"random", "rack"};         /* enum sw_placement */
static const char *const net_models[] = {"flow", "rack"};           /* enum sw_sim_net_model */
static const char *const map_inputs[] = {"hdfs", "live"}; /* sw_sim_config.map_input_live */
/* sw_sim_config.output_next: 0 is HDFS's placement, 1 and 2 the next nodes' */
static const char *const output_replicas[] = {"hdfs", "1", "2"};
static const char *const copy_memories[] = {"reduce", "none"}; /* enum sw_sim_copy_memory */

/* --starvation-window SEC|Kx */
static int parse_window(const struct options_ctx *ctx, const char *arg, struct replay_opts *o)
{
	size_t n = strlen(arg);
	char num[64];

	o->starvation_multiple = 0;
	if (n == 0 || arg[n - 1] != 'x')
		return parse_double(ctx, "--starvation-window", arg, 0,
		                    &o->sim.sched.starvation_window);
	if (n >= sizeof(num) || n == 1) {
		fprintf(stderr, "%s: --starvation-window %s: expected seconds or Kx, K > 0\n",
		        ctx->prefix, arg);
		return -EINVAL;
	}
	memcpy(num, arg, n - 1);
	num[n - 1] = '\0';
	return parse_double(ctx, "--starvation-window", num, 1e-3, &o->starvation_multiple);
}

/* --deadline-factor LO:HI, 0 < LO <= HI */
static int parse_factor(const struct options_ctx *ctx, const char *arg, struct load_opts *o)
{
	char *end;
	double lo = strtod(arg, &end), hi = *end == ':' ? strtod(end + 1, &end) : NAN;

	if (*end || !(lo > 0) || !(hi >= lo) || !(hi <= 1e6)) {
		fprintf(stderr, "%s: --deadline-factor %s: expected LO:HI, 0 < LO <= HI <= 1e6\n",
		        ctx->prefix, arg);
		return -EINVAL;
	}
	o->deadline_lo = lo;
	o->deadline_hi = hi;
	return 0;
}

/* --reduces auto|N */
static int parse_reduces(const struct options_ctx *ctx, const char *arg, uint32_t *out)
{
	double v;

	if (!strcmp(arg, "auto")) {
		*out = 0;
		return 0;
	}
	if (parse_count(ctx, "--reduces", arg, SW_WORKLOAD_MAX_REDUCES, &v) < 0)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

/* The digits at *@p p as a rack or node number; moves *@p p past them. @return 0 or -1. */
static int parse_index(const char **p, uint32_t *out)
{
	const char *s = *p;
	uint64_t v = 0;

	if (!isdigit((unsigned char)*s))
		return -1;
	for (; isdigit((unsigned char)*s); s++)
		if ((v = v * 10 + (uint64_t)(*s - '0')) > UINT32_MAX)
			return -1;
	*out = (uint32_t)v;
	*p = s;
	return 0;
}

/* A time in seconds at @p p, finite and >= 0 (> 0 when @p open). */
static int parse_seconds(const char *p, char **end, int open, double *out)
{
	*out = strtod(p, end);
	return *end == p || !isfinite(*out) || *out < 0 || (open && *out == 0) ? -1 : 0;
}

/* RACK.NODE@SECONDS[+DOWN_SECONDS], appended to the run's faults. */
static int parse_fault(const struct options_ctx *ctx, const char *arg, struct sw_sim_config *c)
{
	struct sw_sim_fault f = {0};
	const char *p = arg;
	char *end;

	if (parse_index(&p, &f.rack) || *p++ != '.' || parse_index(&p, &f.node) || *p++ != '@' ||
	    parse_seconds(p, &end, 0, &f.at) ||
	    (*end == '+' && parse_seconds(end + 1, &end, 1, &f.down_for)) || *end)
		goto bad;
	if (c->n_faults == SW_SIM_MAX_FAULTS) {
		fprintf(stderr, "%s: --fail-node %s: at most %d node failures\n", ctx->prefix, arg,
		        SW_SIM_MAX_FAULTS);
		return -EINVAL;
	}
	c->faults[c->n_faults++] = f;
	return 0;
bad:
	fprintf(stderr,
	        "%s: --fail-node %s: expected RACK.NODE@SECONDS or RACK.NODE@SECONDS+DOWN_SECONDS "
	        "(rack and node numbered from 0, times >= 0 and finite, e.g. 2.3@3600+600)\n",
	        ctx->prefix, arg);
	return -EINVAL;
}

static void set_defaults(struct replay_opts *o)
{
	memset(o, 0, sizeof(*o));
	load_opts_default(&o->load);
	snprintf(o->schedulers, sizeof(o->schedulers), "fair,sw-fair,delay,sw-relaxed,drf,sw-drf");
	o->baseline = "fair";
	sw_sim_config_default(&o->sim);
	o->warmup = -1;
	o->workers = (int)sysconf(_SC_NPROCESSORS_ONLN);
	o->plot = 1;
	o->progress = RUNNER_PROGRESS_EVERY;
}

static int parse_one(int c, const char *arg, struct replay_opts *o, const struct options_ctx *ctx)
{
	double v = 0;
	int rc = 0, choice = 0;

	switch (c) {
	case 'm':
		o->load.mix = arg;
		break;
	case 's':
		if (strlen(arg) >= sizeof(o->schedulers)) {
			fprintf(stderr, "%s: --schedulers: list too long\n", ctx->prefix);
			return -EINVAL;
		}
		strcpy(o->schedulers, arg);
		break;
	case 'b':
		o->baseline = arg;
		break;
	case 'd':
		return parse_double(ctx, "--duration", arg, 0.01, &o->load.duration);
	case 'w':
		return parse_double(ctx, "--warmup", arg, 0, &o->warmup);
	case 'u':
		rc = parse_count(ctx, "--users", arg, SW_SCHED_MAX_USERS, &v);
		o->load.users = (uint32_t)v;
		break;
	case 'S':
		/* a double counts whole numbers exactly up to 2^53; beyond, the cast is undefined
		 */
		rc = parse_count(ctx, "--seed", arg, 0x1p53, &v);
		o->load.seed = (uint64_t)v;
		break;
	case 'Y':
		o->load.topology = arg;
		break;
	case 'O':
		return parse_double(ctx, "--oversub", arg, 1, &o->load.oversub);
	case 'T':
		return parse_double(ctx, "--time-scale", arg, 1e-6, &o->load.time_scale);
	case 'Z':
		return parse_double(ctx, "--size-scale", arg, 1e-6, &o->load.size_scale);
	case 'H':
		return parse_double(ctx, "--heartbeat", arg, 0.01, &o->sim.heartbeat);
	case 'J':
		return parse_double(ctx, "--jobs-per-user", arg, 0.01, &o->jobs_per_user);
	case 'I':
		return parse_double(ctx, "--interarrival", arg, 0.01, &o->load.interarrival);
	case 't':
		return parse_fraction(ctx, "--saturation-threshold", arg, 1,
		                      &o->sim.sched.nw_saturation_threshold);
	case 'M':
		return parse_fraction(ctx, "--map-completion-threshold", arg, 0,
		                      &o->sim.sched.map_completion_threshold);
	case 'W':
		return parse_window(ctx, arg, o);
	case 'A':
		/* 0 is allowed (no deferral): parse_count starts at 1 */
		rc = parse_double(ctx, "--affinity-delays", arg, 0, &v);
		if (rc == 0 && (v != floor(v) || v > UINT32_MAX)) {
			fprintf(stderr, "%s: --affinity-delays %s: expected a whole number\n",
			        ctx->prefix, arg);
			rc = -EINVAL;
		}
		if (rc == 0)
			o->sim.sched.affinity_max_delays = (uint32_t)v;
		break;
	case 'V':
		return parse_double(ctx, "--accel-threshold", arg, 1,
		                    &o->sim.sched.accel_threshold);
	case 'K':
		return parse_double(ctx, "--plan-period", arg, 1e-3, &o->sim.sched.plan_period);
	case 'B':
		rc = parse_choice(ctx, "--aria-bound", arg, bounds, 3, &choice);
		o->sim.sched.aria_bound = (enum sw_aria_bound)choice;
		break;
	case 'i':
		rc = parse_choice(ctx, "--map-input", arg, map_inputs, 2, &choice);
		o->sim.map_input_live = choice;
		break;
	case 'e':
		rc = parse_choice(ctx, "--output-replicas", arg, output_replicas, 3, &choice);
		o->sim.output_next = (uint32_t)choice;
		break;
	case 'F':
		return parse_fault(ctx, arg, &o->sim);
	case 'R':
		return parse_fraction(ctx, "--task-failure-rate", arg, 0,
		                      &o->sim.task_failure_rate);
	case 'r':
		return parse_choice(ctx, "--ratio-history", arg, off_on, 2, &o->sim.ratio_history);
	case 'c':
		return parse_choice(ctx, "--contention", arg, off_on, 2, &o->sim.contention);
	case 'k':
		return parse_choice(ctx, "--slots-only", arg, off_on, 2, &o->sim.slots_only);
	case 'U':
		rc = parse_choice(ctx, "--copy-memory", arg, copy_memories, 2, &choice);
		o->sim.copy_memory = (enum sw_sim_copy_memory)choice;
		break;
	case 'l':
		return parse_choice(ctx, "--timeline", arg, off_on, 2, &o->sim.timeline);
	case 'X':
		return parse_bounded(ctx, "--load-threshold", arg, 0, SW_SIM_MAX_LOAD_THRESHOLD,
		                     &o->sim.load_threshold);
	case 'Q':
		rc = parse_choice(ctx, "--load-measure", arg, load_measures, 2, &choice);
		o->sim.load_measure = (enum sw_sim_load_measure)choice;
		break;
	case 'g':
		rc = parse_choice(ctx, "--workflow-slots", arg, wf_slots, 3, &choice);
		o->sim.workflow_slots = (enum sw_sim_wf_slots)choice;
		break;
	case 'x':
		return parse_double(ctx, "--workflow-deadline", arg, 1e-3,
		                    &o->sim.workflow_deadline);
	case 'y':
		return parse_fraction(ctx, "--straggler-rate", arg, 0, &o->sim.straggler_rate);
	case 'z':
		return parse_bounded(ctx, "--straggler-slowdown", arg, 1, SW_SIM_MAX_SLOWDOWN,
		                     &o->sim.straggler_slowdown);
	case 'N':
		return parse_bounded(ctx, "--net-quantum", arg, 0, SW_SIM_MAX_NET_QUANTUM,
		                     &o->sim.net_quantum);
	case 'n':
		rc = parse_choice(ctx, "--net-model", arg, net_models, 2, &choice);
		o->sim.net_model = (enum sw_sim_net_model)choice;
		break;
	case 'a':
		rc = parse_bounded(ctx, "--rack-fetch-min", arg, 0,
		                   (double)SW_SIM_MAX_RACK_FETCH_MIN, &v);
		if (!rc && v != floor(v)) {
			fprintf(stderr,
			        "%s: --rack-fetch-min %s: expected a whole number of bytes\n",
			        ctx->prefix, arg);
			rc = -EINVAL;
		}
		o->sim.rack_fetch_min = (uint64_t)v;
		break;
	case 'D':
		return parse_reduces(ctx, arg, &o->load.reduces);
	case 'L':
		rc = parse_choice(ctx, "--placement", arg, placements, 2, &choice);
		o->load.placement = (enum sw_placement)choice;
		break;
	case 'C':
		return parse_double(ctx, "--compute-scale", arg, 1e-3, &o->load.compute_scale);
	case 'E':
		return parse_factor(ctx, arg, &o->load);
	case 'f':
		o->load.transactional = arg;
		break;
	case 'o':
		o->out = arg;
		break;
	case 'j':
		rc = parse_count(ctx, "--jobs", arg, RUNNER_MAX_WORKERS, &v);
		o->workers = (int)v;
		break;
	case 'P':
		o->plot = 0;
		break;
	case 'q':
		o->progress = 0;
		break;
	case 'G':
		return parse_double(ctx, "--progress", arg, 0.001, &o->progress);
	case 'p':
		return ctx->param(ctx->param_arg, arg);
	}
	return rc;
}

static int is_policy(const char *name)
{
	for (const char *const *p = sw_sched_policy_names(); *p; p++)
		if (!strcmp(*p, name))
			return 1;
	return 0;
}

/* Splits the scheduler list; fills names and the baseline's index, or says what is wrong. */
static int split_schedulers(struct replay_opts *o, const struct options_ctx *ctx)
{
	char *save;

	strcpy(o->names_buf, o->schedulers);
	o->n_schedulers = 0;
	o->baseline_index = -1;
	for (char *tok = strtok_r(o->names_buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!is_policy(tok)) {
			fprintf(stderr,
			        "%s: --schedulers: unknown scheduler '%s' (known:", ctx->prefix,
			        tok);
			for (const char *const *p = sw_sched_policy_names(); *p; p++)
				fprintf(stderr, " %s", *p);
			fprintf(stderr, ")\n");
			return -EINVAL;
		}
		for (int k = 0; k < o->n_schedulers; k++) {
			if (!strcmp(o->names[k], tok)) {
				/* Both runs would write uplink-NAME.csv: one result, lost work. */
				fprintf(stderr, "%s: --schedulers: '%s' is listed twice\n",
				        ctx->prefix, tok);
				return -EINVAL;
			}
		}
		if (o->n_schedulers == OPTIONS_MAX_SCHEDULERS) {
			fprintf(stderr, "%s: --schedulers: at most %d\n", ctx->prefix,
			        OPTIONS_MAX_SCHEDULERS);
			return -EINVAL;
		}
		if (!strcmp(tok, o->baseline))
			o->baseline_index = o->n_schedulers;
		o->names[o->n_schedulers++] = tok;
	}
	if (o->n_schedulers == 0) {
		fprintf(stderr, "%s: --schedulers: empty list\n", ctx->prefix);
		return -EINVAL;
	}
	if (o->baseline_index < 0) {
		fprintf(stderr, "%s: --baseline %s is not among --schedulers\n", ctx->prefix,
		        o->baseline);
		return -EINVAL;
	}
	return 0;
}

double options_warmup_s(const struct replay_opts *o, double span_s)
{
	return o->warmup >= 0 ? o->warmup * 3600 : fmin(3600, span_s / 5);
}

/* --jobs-per-user becomes a number of users once the steady-state window is known. */
static int resolve_jobs_per_user(struct replay_opts *o, const struct options_ctx *ctx)
{
	double warmup;

	if (!o->jobs_per_user)
		return 0;
	if (!load_is_paper_mix(o->load.mix) || o->load.users) {
		fprintf(stderr,
		        "%s: --jobs-per-user applies to mix1, mix2 and mix3, and replaces "
		        "--users\n",
		        ctx->prefix);
		return -EINVAL;
	}
	warmup = options_warmup_s(o, o->load.duration * 3600) / 3600;
	if (warmup >= o->load.duration) {
		fprintf(stderr,
		        "%s: --warmup %.2f h leaves no steady-state window in --duration %.2f h\n",
		        ctx->prefix, warmup, o->load.duration);
		return -EINVAL;
	}
	o->load.users =
	        load_users_for_jobs_per_user(&o->load, o->load.duration - warmup, o->jobs_per_user);
	return 0;
}

int options_parse(int argc, char **argv, struct replay_opts *o, const struct options_ctx *ctx)
{
	struct option opts[N_LONGOPTS + 1];
	char msg[256];
	int c, rc = 0;

	/* The table without --param where it is not taken, so getopt reports it as unknown. */
	memcpy(opts, longopts, sizeof(opts));
	if (!ctx->param)
		opts[N_LONGOPTS - 1] = opts[N_LONGOPTS];
	set_defaults(o);
	optind = 1;
	opterr = 0;
	while (rc == 0 && (c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (c == 'h' && ctx->usage) {
			fputs(ctx->usage, stdout);
			fputs(options_help, stdout);
			fputs("\nschedulers:", stdout);
			for (const char *const *p = sw_sched_policy_names(); *p; p++)
				printf(" %s", *p);
			fputs("\n", stdout);
			return 1;
		}
		if (c == '?' || c == ':' || c == 'h') {
			fprintf(stderr, "%s: %s '%s'%s\n", ctx->prefix,
			        c == ':' ? "missing value for" : "unknown option", argv[optind - 1],
			        ctx->usage ? " (--help lists the options)" : "");
			return -EINVAL;
		}
		rc = parse_one(c, optarg, o, ctx);
	}
	if (rc == 0 && optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", ctx->prefix, argv[optind]);
		rc = -EINVAL;
	}
	if (rc == 0 && load_mix_kind(o->load.mix, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "%s: %s\n", ctx->prefix, msg);
		rc = -EINVAL;
	}
	if (rc == 0)
		rc = split_schedulers(o, ctx);
	if (rc == 0)
		rc = resolve_jobs_per_user(o, ctx);
	return rc;
}
